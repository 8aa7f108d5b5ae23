"""Peak resident memory and CPU seconds of a process tree, sampled every 0.2 s while a job runs.
Shared by bench/nexmark.py (the JVM children of the benchmark's own process) and
bench/flink_compare.py (each engine's whole process, from start to exit)."""

from __future__ import annotations

import threading


class PeakRSS:
    """With ``pid``: that process and its descendants; without: this process's descendants only
    (the JVM a PySpark job runs in, not the Python driver that samples it)."""

    def __init__(self, pid: int | None = None) -> None:
        import psutil

        self.root = psutil.Process(pid) if pid is not None else None
        self.me = psutil.Process()
        self.peak = 0
        self._cpu: dict[int, float] = {}  # last CPU seconds seen per process: exited ones still count
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @property
    def cpu(self) -> float:
        return sum(self._cpu.values())

    def _processes(self) -> list:
        try:
            if self.root is None:
                return self.me.children(recursive=True)
            return [self.root, *self.root.children(recursive=True)]
        except Exception:  # the root has exited
            return []

    def _run(self) -> None:
        while True:
            total = 0
            for p in self._processes():
                try:
                    t = p.cpu_times()
                    self._cpu[p.pid] = t.user + t.system
                    total += p.memory_info().rss
                except Exception:  # exited between listing and reading
                    pass
            self.peak = max(self.peak, total)
            if self._stop.wait(0.2):
                return

    def __enter__(self) -> PeakRSS:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

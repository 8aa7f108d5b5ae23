"""What the scripts that start a local service (the Kafka broker, HDFS, the Spark cluster) share:
a free port on loopback, a child process that dies with its parent, and jars fetched once from
Maven Central. Only the standard library is used."""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import subprocess
from pathlib import Path
from typing import Self

LOOPBACK = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


def die_with_parent(own_group: bool = False) -> None:
    """In the child before exec: killed by the kernel when its parent dies, even by SIGKILL, so
    no service outlives a test run; ``own_group``: in a process group of its own, so that a kill
    reaches the JVMs it starts (a Spark worker's executors)."""
    if own_group:
        os.setsid()
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def maven_fetch(pom: Path, target: Path, version: str, what: str, error: type[Exception], quiet: bool = True) -> Path:
    """The runtime jars of ``pom``'s dependencies in ``target`` (marked complete with
    ``version``), fetched with Maven (``mvn dependency:copy-dependencies``) the first time;
    ``error`` is raised with one line naming ``what`` when Maven is missing or fails."""
    if (target / ".complete").exists():
        return target
    mvn = shutil.which("mvn")
    if mvn is None:
        raise error(f"Maven (mvn) is needed to fetch {what}: install it (e.g. apt-get install maven), "
                    f"or put the jars in {target}.")
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    cmd = [mvn, "-B", *(["-q"] if quiet else []), "-f", str(pom), "dependency:copy-dependencies",
           "-DincludeScope=runtime", f"-DoutputDirectory={partial}"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        last = (proc.stdout + proc.stderr).strip().splitlines()
        raise error(f"mvn could not fetch {what} from Maven Central: {last[-1] if last else 'exit ' + str(proc.returncode)}")
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    (target / ".complete").write_text(version)
    return target


def stop_process(process: subprocess.Popen[bytes] | None) -> None:
    """SIGTERM, then SIGKILL after 20 s."""
    if process is not None and process.poll() is None:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class Service:
    """A service in a child process: ``start`` (in each subclass) runs it and returns once it
    answers; ``stop`` ends it; ``with`` does both."""

    process: subprocess.Popen[bytes] | None = None

    def start(self) -> Self:
        raise NotImplementedError

    def stop(self) -> None:
        stop_process(self.process)
        self.process = None

    def wait(self) -> None:
        """Until the service ends, or Ctrl-C (the script's ``start`` command)."""
        assert self.process is not None
        try:
            self.process.wait()
        except KeyboardInterrupt:
            pass

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

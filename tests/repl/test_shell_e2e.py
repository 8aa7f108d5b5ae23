"""End to end in a real terminal: ``python -m repl.cli`` in a tmux pane, driven with send-keys and
read with capture-pane. A table over JSON files (monitored, so the query keeps running), a
windowed continuous query in table mode, new input that changes its rows, ``q``, SHOW JOBS, QUIT.

Needs tmux (CI: ``apt-get install -y tmux``) and Java for Spark."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.spark]

ROOT = Path(__file__).resolve().parents[2]


class Pane:
    def __init__(self, name: str):
        self.name = name

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True, timeout=30).stdout

    def type(self, text: str) -> None:
        # tmux reads an argument ending in ';' as a command separator: escape it
        self.tmux("send-keys", "-t", self.name, "-l", text[:-1] + "\\;" if text.endswith(";") else text)
        self.tmux("send-keys", "-t", self.name, "Enter")

    def key(self, key: str) -> None:
        self.tmux("send-keys", "-t", self.name, key)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name)

    def wait(self, predicate, timeout: float, what: str) -> str:
        deadline = time.time() + timeout
        while True:
            text = self.screen()
            if predicate(text):
                return text
            if time.time() > deadline:
                raise AssertionError(f"{what}: not seen within {timeout} s; the pane shows:\n{text}")
            time.sleep(0.2)

    def wait_for(self, needle: str, timeout: float = 30) -> str:
        return self.wait(lambda t: needle in t, timeout, repr(needle))

    def dead(self) -> bool:
        return self.tmux("display-message", "-p", "-t", self.name, "#{pane_dead}").strip() == "1"


def write_events(directory: Path, name: str, minute: int) -> None:
    rows = [
        {"ts": f"2024-01-01 00:{minute:02d}:{s:02d}.000", "item": ("apple", "pear")[s % 2], "price": s}
        for s in range(30)
    ]
    tmp = directory / f".{name}"
    tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    tmp.rename(directory / name)


def rows_shown(screen: str) -> int:
    m = re.search(r"rows \d+–\d+ of (\d+)", screen)
    return int(m.group(1)) if m else -1


def test_the_shell_in_a_terminal(tmp_path):
    # a missing tmux fails rather than skips: a skipped terminal test would pass CI unseen
    assert shutil.which("tmux"), "the shell's end-to-end test drives a real terminal with tmux: install tmux"
    data = tmp_path / "events"
    data.mkdir()
    write_events(data, "a.json", minute=0)
    name = f"sqlengine-e2e-{os.getpid()}"
    pane = Pane(name)
    status_file = tmp_path / "exit-status"
    # the pane's shell waits for the shell under test and writes its exit status (tmux 3.3 does not
    # always reap a pane's process promptly, so #{pane_dead_status} can stay empty)
    command = f"cd {ROOT} && {sys.executable} -m repl.cli --home {tmp_path / 'home'}; echo $? > {status_file}"
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "200", "-y", "50", command], check=True, timeout=30)
    try:
        pane.tmux("set-option", "-t", name, "remain-on-exit", "on")
        pane.wait_for("sqlengine>", timeout=30)
        # the prompt is up before Spark: the toolbar (drawn once the terminal has told its size)
        # says Spark is still starting
        screen = pane.wait_for("Spark: ", timeout=10)
        assert "starting…" in screen and "result mode: table" in screen
        pane.type(
            "CREATE TABLE bids (ts TIMESTAMP_LTZ(3), item STRING, price BIGINT, "
            "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', "
            f"'path' = '{data}', 'format' = 'json', 'source.monitor-interval' = '1 s');"
        )
        pane.wait_for("[INFO] Table has been created.")
        pane.type(
            "SELECT item, window_start, COUNT(*) AS c, SUM(price) AS s "
            "FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND)) "
            "GROUP BY item, window_start, window_end;"
        )
        # the full-screen table view: windows [0,10) and [10,20) have closed (watermark 28 s)
        first = pane.wait(lambda t: rows_shown(t) == 4, timeout=180, what="the first rows")
        assert "| apple | 2024-01-01 00:00:00.000 |" in first and "| pear  | 2024-01-01 00:00:10.000 |" in first
        assert " RUNNING · 4 rows · " in first and "state: WindowAggregate" in first
        assert "q stop" in first
        # new input: the open window [20,30) closes, and two windows of minute 1
        write_events(data, "b.json", minute=1)
        later = pane.wait(lambda t: rows_shown(t) == 10, timeout=120, what="the changed rows")
        assert "| apple | 2024-01-01 00:00:20.000 |" in later and "| pear  | 2024-01-01 00:01:10.000 |" in later
        pane.wait_for("watermark 2024-01-01T00:01:28.000Z", timeout=60)  # the status line follows
        pane.key("q")
        back = pane.wait_for("[INFO] Query stopped: 10 rows in its result", timeout=60)
        assert "sqlengine>" in back.split("[INFO] Query stopped")[1]  # back at the prompt
        pane.type("SHOW JOBS;")
        jobs = pane.wait_for("| select | CANCELED ")
        assert "| job id " in jobs
        pane.type("QUIT;")
        pane.wait(lambda _t: status_file.exists() and status_file.read_text().strip() != "", timeout=60, what="the shell to end")
        pane.wait(lambda _t: pane.dead(), timeout=30, what="the pane to close")
        final = pane.screen()
        assert status_file.read_text().strip() == "0", f"exit status {status_file.read_text()!r}; the pane shows:\n{final}"
        assert "Traceback" not in final and "at org.apache" not in final and "Fatal Python error" not in final
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True, timeout=30)

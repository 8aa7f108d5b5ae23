"""Apache Flink 2.3's own SQL client, ``sql-client.sh`` in embedded mode on a local mini-cluster,
from the PyFlink install of bench/flink_compare.py: the shell a Flink SQL user starts, for the
side-by-side shell benchmarks (bench/shell_startup.py, bench/interactive_latency.py).

PyFlink's wheel ships ``bin/sql-client.sh`` and ``opt/flink-sql-client-2.3.0.jar`` but not the SQL
gateway classes the client starts its session in; ``flink-sql-gateway-2.3.0.jar`` comes from Maven
Central (``mvn dependency:get``) and is put in the install's ``opt/``, where the script looks.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from pathlib import Path

from pty_shell import PtyShell

PROMPT = re.compile(rb"Flink SQL(?:\x1b\[0m)?> ")  # "Flink SQL" is coloured
GATEWAY_JAR = Path.home() / ".m2/repository/org/apache/flink/flink-sql-gateway/2.3.0/flink-sql-gateway-2.3.0.jar"


@functools.cache  # one subprocess per benchmark, not one per shell started
def flink_home(python: str) -> Path:
    """The PyFlink package directory of ``python``'s install (Flink's bin/, lib/, opt/, conf/)."""
    out = subprocess.run([python, "-c", "import os, pyflink; print(os.path.dirname(pyflink.__file__))"],
                         capture_output=True, text=True, check=True).stdout
    return Path(out.strip())


def gateway_jar(home: Path) -> None:
    if any((home / "opt").glob("flink-sql-gateway-*.jar")):
        return
    if not GATEWAY_JAR.exists():
        subprocess.run(["mvn", "-q", "dependency:get", "-Dartifact=org.apache.flink:flink-sql-gateway:2.3.0",
                        "-Dtransitive=false"], check=True)
    shutil.copy(GATEWAY_JAR, home / "opt")


def sql_client(python: str, init: Path, history: Path) -> list[str]:
    """The command line of Flink's SQL client: the session on a local mini-cluster of parallelism 2
    (as PyFlink's side of the benchmarks; its one task manager then needs 2 slots, where the install's
    config.yaml gives 1 and a job would wait for the second), UTC as sqlengine's session, ``init``
    run first."""
    home = flink_home(python)
    gateway_jar(home)
    return ["bash", str(home / "bin" / "sql-client.sh"), "embedded",
            "-D", "execution.target=local", "-D", "parallelism.default=2", "-D", "taskmanager.numberOfTaskSlots=2",
            "-D", "table.local-time-zone=UTC",
            "-i", str(init), "-hist", str(history)]


def start(python: str, init: Path, history: Path, rows: int = 24, cols: int = 80) -> PtyShell:
    """Flink's SQL client started in a pseudo-terminal, as bench/pty_shell.py starts sqlengine's."""
    return PtyShell(None, rows=rows, cols=cols, command=sql_client(python, init, history), prompt=PROMPT)

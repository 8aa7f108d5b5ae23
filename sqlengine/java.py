"""Is there a Java that Spark can run on? Checked before a JVM is started.

Spark 4 needs Java 17+. We find java as Spark's launcher does ($JAVA_HOME/bin/java, else ``java``
on PATH) and read ``java -version`` only, so the check is fast and its failure is one clear line
instead of a gateway error with a Py4J trace.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

MIN_VERSION = 17
_INSTALL_HINT = (
    "Install a JDK 17+ (e.g. apt-get install openjdk-17-jre-headless) or set JAVA_HOME."
)
# `openjdk version "17.0.15" 2025-04-15`, `java version "1.8.0_292"`, `openjdk version "21" ...`
_VERSION = re.compile(r'version\s+"([^"]+)"')


class JavaMissing(Exception):
    """No usable Java; ``str(err)`` is one line fit to show a user."""


@dataclass(frozen=True)
class JavaInfo:
    path: str  # the java executable that was run
    version: str  # as reported, e.g. "17.0.15"
    major: int  # 17
    java_home: str | None  # JAVA_HOME when it was used


def parse_major(version: str) -> int | None:
    """The feature release of a Java version string: "1.8.0_292" -> 8, "17.0.2" -> 17."""
    parts = re.split(r"[._+\-]", version)
    try:
        first = int(parts[0])
        return int(parts[1]) if first == 1 and len(parts) > 1 else first
    except ValueError:
        return None


def find_java(tool: str = "java") -> tuple[str | None, str | None]:
    """(the JDK's ``tool`` executable or None, JAVA_HOME or None), in the order Spark's launcher
    looks for java: $JAVA_HOME/bin, else PATH."""
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = Path(home) / "bin" / tool
        return (str(candidate) if candidate.is_file() else None), home
    return shutil.which(tool), None


def check_java(minimum: int = MIN_VERSION) -> JavaInfo:
    """The Java Spark will use; raises :class:`JavaMissing` if absent or older than ``minimum``."""
    java, home = find_java()
    need = f"sqlengine needs Java {minimum} or newer to run queries"
    if java is None:
        where = (
            f"JAVA_HOME={home} has no bin/java"
            if home
            else "no java on PATH and JAVA_HOME is not set"
        )
        raise JavaMissing(f"{need}; {where}. {_INSTALL_HINT}")
    try:
        proc = subprocess.run(
            [java, "-version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        reason = "timed out" if isinstance(err, subprocess.TimeoutExpired) else str(err)
        raise JavaMissing(f"{need}; running {java} -version failed ({reason}). {_INSTALL_HINT}") from None
    output = (proc.stderr or "") + (proc.stdout or "")
    match = _VERSION.search(output)
    major = parse_major(match.group(1)) if match else None
    if match is None or major is None:
        raise JavaMissing(
            f"{need}; could not read the version of {java} (`java -version` said: "
            f"{output.strip().splitlines()[0] if output.strip() else 'nothing'}). {_INSTALL_HINT}"
        )
    if major < minimum:
        raise JavaMissing(f"{need}; found Java {major} at {java}. {_INSTALL_HINT}")
    return JavaInfo(path=java, version=match.group(1), major=major, java_home=home)

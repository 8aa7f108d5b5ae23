import os
import stat
import subprocess
import sys

import pytest

from sqlengine.java import JavaMissing, check_java, parse_major


def fake_java_home(tmp_path, version_line: str):
    bin_dir = tmp_path / "jdk" / "bin"
    bin_dir.mkdir(parents=True)
    java = bin_dir / "java"
    java.write_text(f"#!/bin/sh\necho '{version_line}' >&2\n")
    java.chmod(java.stat().st_mode | stat.S_IEXEC)
    return tmp_path / "jdk", java


@pytest.mark.parametrize(
    "version,major",
    [("1.8.0_292", 8), ("11.0.2", 11), ("17.0.15", 17), ("21", 21), ("22-ea", 22), ("x", None)],
)
def test_parse_major(version, major):
    assert parse_major(version) == major


def test_old_java_in_java_home_is_one_clear_line(tmp_path, monkeypatch):
    home, java = fake_java_home(tmp_path, 'openjdk version "11.0.2" 2019-01-15')
    monkeypatch.setenv("JAVA_HOME", str(home))
    with pytest.raises(JavaMissing) as info:
        check_java()
    message = str(info.value)
    assert message == (
        f"sqlengine needs Java 17 or newer to run queries; found Java 11 at {java}. "
        "Install a JDK 17+ (e.g. apt-get install openjdk-17-jre-headless) or set JAVA_HOME."
    )
    assert "\n" not in message


def test_java_8_style_version(tmp_path, monkeypatch):
    home, _ = fake_java_home(tmp_path, 'java version "1.8.0_292"')
    monkeypatch.setenv("JAVA_HOME", str(home))
    with pytest.raises(JavaMissing, match="found Java 8 at"):
        check_java()


def test_new_enough_java_in_java_home(tmp_path, monkeypatch):
    home, java = fake_java_home(tmp_path, 'openjdk version "21.0.1" 2023-10-17')
    monkeypatch.setenv("JAVA_HOME", str(home))
    info = check_java()
    assert (info.major, info.version, info.path, info.java_home) == (21, "21.0.1", str(java), str(home))


def test_java_home_without_java(tmp_path, monkeypatch):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    with pytest.raises(JavaMissing, match=r"JAVA_HOME=.* has no bin/java\. Install a JDK 17\+"):
        check_java()


def test_no_java_on_path(tmp_path, monkeypatch):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(JavaMissing) as info:
        check_java()
    assert "no java on PATH and JAVA_HOME is not set" in str(info.value)


def test_unreadable_version(tmp_path, monkeypatch):
    home, _ = fake_java_home(tmp_path, "something odd")
    monkeypatch.setenv("JAVA_HOME", str(home))
    with pytest.raises(JavaMissing, match="could not read the version"):
        check_java()


def test_session_creation_reports_missing_java_without_a_trace(tmp_path):
    """A fresh process asked for a session with an old Java prints our line, no traceback."""
    home, _ = fake_java_home(tmp_path, 'openjdk version "11.0.2"')
    code = (
        "from sqlengine.session import create_session\n"
        "from sqlengine.java import JavaMissing\n"
        "try:\n"
        f"    create_session(log_dir={str(tmp_path / 'logs')!r})\n"
        "except JavaMissing as err:\n"
        "    print(err)\n"
    )
    env = dict(os.environ, JAVA_HOME=str(home))
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
        cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))),
    )
    assert proc.returncode == 0
    assert proc.stderr == ""
    assert proc.stdout.startswith("sqlengine needs Java 17 or newer to run queries; found Java 11")

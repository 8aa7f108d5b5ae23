"""The shell's history file: owner-only, and secret option values masked in it."""

from __future__ import annotations

import argparse
import os
import stat

from repl.history import MaskedFileHistory
from tests.repl.shell_driver import CTRL_D, ShellDriver

SECRET_DDL = "CREATE TABLE k (a INT) WITH ('connector' = 'datagen', 'password' = 'hunter2');"


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_the_history_file_is_owner_only_and_keeps_secrets_masked(tmp_path):
    old = os.umask(0o022)
    try:
        history = MaskedFileHistory(tmp_path / "history")
    finally:
        os.umask(old)
    history.append_string(SECRET_DDL)
    assert mode(tmp_path / "history") == 0o600
    text = (tmp_path / "history").read_text()
    assert "hunter2" not in text and "'password' = '******'" in text
    assert history.get_strings()[-1] == SECRET_DDL  # this session recalls it as typed
    assert list(MaskedFileHistory(tmp_path / "history").load_history_strings()) == [SECRET_DDL.replace("hunter2", "******")]


def test_a_new_home_is_owner_only_and_its_history_has_no_secret(tmp_path):
    home = tmp_path / "home"
    args = argparse.Namespace(home=str(home), init=None, file=None, define=None, master=None, remote=None, command="shell")
    old = os.umask(0o022)
    sh = ShellDriver(main_args=args)
    try:
        sh.start()
        sh.send(SECRET_DDL + "\r")
        sh.wait_for("Table has been created.")
        sh.send(CTRL_D)
        assert sh.join() == 0
    finally:
        sh.close()
        os.umask(old)
    assert (mode(home), mode(home / "logs")) == (0o700, 0o700)
    assert (mode(home / "catalog.db"), mode(home / "history")) == (0o600, 0o600)
    text = (home / "history").read_text()
    assert "CREATE TABLE k" in text and "hunter2" not in text

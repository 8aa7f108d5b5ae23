"""Options the top level and a subcommand both take (--master, --remote, --conf, -D, --init,
--checkpoint-root) count wherever they are written: `sqlengine --master URL run f.sql` ran in
local mode before, the subcommand's default overwriting the top level's value."""

from __future__ import annotations

import pytest

from repl.cli import build_parser


def parse(*argv: str):
    return build_parser().parse_args(list(argv))


@pytest.mark.parametrize("command", [["run", "f.sql"], ["submit", "f.sql"], ["shell"], []])
def test_the_top_levels_values_reach_the_subcommand(command, monkeypatch):
    monkeypatch.setenv("SPARK_REMOTE", "sc://127.0.0.1:15002")  # an explicit --master beats it, at either level
    args = parse("--master", "spark://127.0.0.1:7077", "--conf", "a=1", "-D", "X=1", "--checkpoint-root", "/shared", *command)
    assert args.master == "spark://127.0.0.1:7077" and args.remote is None
    assert args.conf == ["a=1"] and args.define == ["X=1"] and args.checkpoint_root == "/shared"


def test_lists_are_joined_top_level_first_and_a_single_value_of_the_subcommand_wins():
    args = parse("--conf", "a=1", "-D", "X=1", "-i", "init.sql", "--checkpoint-root", "/top",
                 "run", "--conf", "b=2", "-D", "Y=2", "--init", "more.sql", "--checkpoint-root", "/mine", "f.sql")
    assert args.conf == ["a=1", "b=2"] and args.define == ["X=1", "Y=2"] and args.init == ["init.sql", "more.sql"]
    assert args.checkpoint_root == "/mine"


def test_where_spark_runs_is_the_subcommands_when_it_says(monkeypatch):
    monkeypatch.setenv("SPARK_REMOTE", "sc://127.0.0.1:15002")
    assert (parse("run", "f.sql").master, parse("run", "f.sql").remote) == (None, "sc://127.0.0.1:15002")
    args = parse("run", "--master", "local[1]", "f.sql")  # an explicit master beats $SPARK_REMOTE
    assert (args.master, args.remote) == ("local[1]", None)
    args = parse("--master", "local[1]", "run", "--remote", "sc://h:1", "f.sql")
    assert (args.master, args.remote) == (None, "sc://h:1")


@pytest.mark.parametrize("command", [["lint", "f.sql"], ["explain", "f.sql"]])
def test_lint_and_explain_take_the_top_levels_init_and_variables(command):
    args = parse("-D", "X=1", "-i", "tables.sql", *command[:1], "-D", "Y=2", *command[1:])
    assert args.define == ["X=1", "Y=2"] and args.init == ["tables.sql"]


def test_nothing_given_is_nothing(monkeypatch):
    monkeypatch.delenv("SPARK_REMOTE", raising=False)
    args = parse("run", "f.sql")
    assert (args.master, args.remote, args.conf, args.define, args.init, args.checkpoint_root) == (None,) * 6
    assert not [k for k in vars(args) if k.startswith("sub_")]


@pytest.mark.parametrize("argv", [["--no-warm-up"], ["--no-warm-up", "shell"], ["shell", "--no-warm-up"]])
def test_no_warm_up_counts_at_either_level(argv):
    assert parse(*argv).no_warm_up is True
    assert parse("shell").no_warm_up is None

"""The program spark-submit runs for `sqlengine submit` (a .py file is what it takes): the
command line of sqlengine, in the driver spark-submit started.

spark-submit merges a Python program's stdout and stderr into its own stdout, beside Spark's
chatter; so in client mode `sqlengine submit` hands us two named pipes ($SQLENGINE_SUBMIT_PIPES:
out, err) that it copies to its own stdout and stderr, and spark-submit's own output goes to the
log. `--format json` then stays clean to pipe, as with `sqlengine run`."""

from __future__ import annotations

import os
import sys

PIPES = "SQLENGINE_SUBMIT_PIPES"


def _use_pipes() -> None:
    paths = os.environ.get(PIPES, "").split(os.pathsep)
    if len(paths) != 2:
        return
    for fd, path in zip((1, 2), paths, strict=True):
        pipe = os.open(path, os.O_WRONLY)
        os.dup2(pipe, fd)
        os.close(pipe)


if __name__ == "__main__":
    _use_pipes()
    from repl.cli import main

    sys.exit(main())

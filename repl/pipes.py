"""A closed standard output (``sqlengine -f file.sql | head -1``) ends the program quietly.

Python ignores SIGPIPE, so a write to a pipe whose reader has gone raises BrokenPipeError. We do
not restore SIGPIPE's default action: it would also kill the process on a broken socket (the
Spark gateway's). Instead the write fails, the program stops what it was doing (jobs of this
process are stopped on the way out, as for Ctrl-C) and exits with status 141, the status a shell
reports for a program that SIGPIPE ended (128 + 13), so ``set -o pipefail`` scripts see what
they would see for ``cat``. Nothing more is printed: not on stdout, which is gone, and not on
stderr either.
"""

from __future__ import annotations

import errno
import os
import select
import sys

EXIT_CLOSED_OUTPUT = 141  # 128 + SIGPIPE


class OutputClosed(BaseException):
    """Standard output (or error) was closed by its reader. A BaseException, like
    KeyboardInterrupt: the handlers of failed statements (``except Exception``) must let it
    through to the entry, which ends the program quietly."""


def is_closed_output(err: BaseException) -> bool:
    """Whether ``err`` is a write to our standard output or error whose reader has gone (and not,
    say, a broken socket)."""
    if isinstance(err, OutputClosed):
        return True
    if not isinstance(err, OSError) or err.errno != errno.EPIPE:
        return False
    return any(_reader_gone(fd) for fd in (1, 2))


def _reader_gone(fd: int) -> bool:
    """A pipe whose read end is closed reports POLLERR on its write end."""
    try:
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        return any(ev & select.POLLERR for _fd, ev in poller.poll(0))
    except (OSError, ValueError, AttributeError):
        return False


def quiet_exit() -> int:
    """Point stdout and stderr at /dev/null (so that nothing, not even the interpreter's final
    flush, writes to the closed pipe) and return the exit status."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        for fd in (1, 2):
            os.dup2(devnull, fd)
        os.close(devnull)
    except OSError:
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()  # what was still buffered goes to /dev/null
        except Exception:
            pass
    return EXIT_CLOSED_OUTPUT

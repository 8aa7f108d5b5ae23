"""The engine's log file, ``<home>/logs/sqlengine.log``: our messages, other libraries' warnings
and Python warnings go there, never to the terminal, and every line has secret option values
masked (a failing statement quoted in a message may carry a password)."""

from __future__ import annotations

import logging
from pathlib import Path

from catalog.home import private_dir
from planner.redact import mask_secrets

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class MaskSecrets(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        masked = mask_secrets(text)
        if masked != text:
            record.msg, record.args = masked, None
        if record.exc_info and not record.exc_text:
            record.exc_text = mask_secrets(logging.Formatter().formatException(record.exc_info))
        elif record.exc_text:
            record.exc_text = mask_secrets(record.exc_text)
        return True


def setup_logging(home: Path) -> Path:
    logs = private_dir(home / "logs")
    path = logs / "sqlengine.log"
    handler = logging.FileHandler(path)
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.addFilter(MaskSecrets())
    ours = logging.getLogger("sqlengine")
    ours.setLevel(logging.INFO)
    ours.addHandler(handler)
    ours.propagate = False
    # everything else (asyncio's "exception in callback", libraries) to the same file, never to
    # the terminal under a prompt or between results
    everyone = logging.getLogger()
    everyone.addHandler(handler)
    everyone.setLevel(logging.WARNING)
    logging.captureWarnings(True)  # pyspark's FutureWarnings too: the log, not the terminal
    return path

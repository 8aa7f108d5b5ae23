"""The engine's home directory: catalog, history, checkpoints and logs live under it."""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "SQLENGINE_HOME"


def resolve_home(explicit: str | os.PathLike[str] | None = None) -> Path:
    """``--home`` if given, else ``$SQLENGINE_HOME``, else ``~/.sqlengine``; created if missing."""
    raw = explicit or os.environ.get(ENV_VAR) or Path.home() / ".sqlengine"
    home = Path(raw).expanduser().resolve()
    home.mkdir(parents=True, exist_ok=True)
    return home

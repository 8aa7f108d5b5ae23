"""The engine's home directory: catalog, history, checkpoints and logs live under it.

What sqlengine creates there is the owner's alone: the home and ``logs/`` are created ``0700``,
the catalog and the shell's history ``0600`` (the catalog keeps secret option values, the logs
and history may quote statements). Existing files and directories keep their mode.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "SQLENGINE_HOME"
PRIVATE_DIR, PRIVATE_FILE = 0o700, 0o600


def resolve_home(explicit: str | os.PathLike[str] | None = None) -> Path:
    """``--home`` if given, else ``$SQLENGINE_HOME``, else ``~/.sqlengine``; created if missing,
    with its ``logs`` directory."""
    raw = explicit or os.environ.get(ENV_VAR) or Path.home() / ".sqlengine"
    home = Path(raw).expanduser().resolve()
    private_dir(home)
    private_dir(home / "logs")
    return home


def private_dir(path: Path) -> Path:
    """Create ``path`` (and missing parents, with the default mode) as an owner-only directory;
    an existing directory is left as it is."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.mkdir(mode=PRIVATE_DIR)
    except FileExistsError:
        if not path.is_dir():
            raise
        return path
    os.chmod(path, PRIVATE_DIR)  # mkdir's mode is masked by the umask; chmod is exact
    return path


def private_file(path: Path) -> Path:
    """Create ``path`` empty as an owner-only file unless it exists (then it is left as it is)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    except FileExistsError:
        return path
    try:
        os.fchmod(fd, PRIVATE_FILE)
    finally:
        os.close(fd)
    return path

"""The shell's history file (``<home>/history``): created owner-only (0600), and each statement is
written with its secret option values masked (``planner.redact``). The statement as typed stays in
this session's memory, so Up recalls it whole until the shell exits; a later session reads the
masked text."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.history import FileHistory

from catalog.home import private_file
from planner.redact import mask_secrets


class MaskedFileHistory(FileHistory):
    def __init__(self, filename: str | Path) -> None:
        private_file(Path(filename))
        super().__init__(str(filename))

    def store_string(self, string: str) -> None:
        super().store_string(mask_secrets(string))

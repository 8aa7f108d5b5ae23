"""SQL source text with positions: offsets to (line, column), and the line shown under an error."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Position:
    line: int  # 1-based
    column: int  # 1-based, in characters


@dataclass(frozen=True)
class SourceText:
    text: str
    path: str | None = None  # None for the shell or a string
    _line_starts: tuple[int, ...] = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        starts = [0]
        find = self.text.find
        i = find("\n")
        while i >= 0:  # str.find, not a Python loop over every character (lint reads whole files)
            starts.append(i + 1)
            i = find("\n", i + 1)
        object.__setattr__(self, "_line_starts", tuple(starts))

    @property
    def name(self) -> str:
        return self.path or "<input>"

    def position(self, offset: int) -> Position:
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self._line_starts, offset) - 1
        return Position(line + 1, offset - self._line_starts[line] + 1)

    def line_text(self, line: int) -> str:
        start = self._line_starts[line - 1]
        end = self._line_starts[line] - 1 if line < len(self._line_starts) else len(self.text)
        return self.text[start:end].rstrip("\r")

    def offset(self, line: int, column: int) -> int:
        return self._line_starts[line - 1] + column - 1


@dataclass(frozen=True)
class Span:
    """Half-open character range [start, end) in a SourceText."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if self.end < self.start:
            object.__setattr__(self, "end", self.start)

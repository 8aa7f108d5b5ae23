"""The shell's prompt: a prompt_toolkit PromptSession with our lexer, completer, key bindings,
history under the home (secrets masked: ``repl.history``) and the bottom toolbar. Multi-line:
Enter runs the buffer only once its statement is complete (``repl.buffer.is_complete``)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from planner.statements.session import KNOWN_SETTINGS
from repl.buffer import is_complete
from repl.toolbar import toolbar_text

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.formatted_text import StyleAndTextTuples

    from repl.shell import Shell

log = logging.getLogger("sqlengine.shell")
PROMPT = "sqlengine> "


def prompt_session(shell: Shell) -> PromptSession[str]:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
    from prompt_toolkit.filters import Condition
    from prompt_toolkit.history import InMemoryHistory
    from prompt_toolkit.lexers import PygmentsLexer

    from repl.completer import SqlCompleter
    from repl.history import MaskedFileHistory
    from repl.keys import prompt_bindings
    from repl.lexer import FlinkSqlLexer
    from repl.style import STYLE

    completer = SqlCompleter(
        shell.engine.catalog,
        settings=lambda: KNOWN_SETTINGS,
        job_ids=lambda: [j.id for j in shell.engine.job_list()],
    )
    tick = {"n": 0}

    def toolbar() -> StyleAndTextTuples | str:
        tick["n"] += 1
        try:
            return toolbar_text(shell.spark, shell.engine.job_list, lambda: shell.engine.planner.settings, tick["n"])
        except Exception:
            log.debug("toolbar", exc_info=True)
            return ""

    # prompt_toolkit passes the line's wrap count as ``is_soft_wrap`` (0: not a soft-wrapped line)
    def continuation(width: int, line_number: int, is_soft_wrap: int) -> StyleAndTextTuples:
        return [("class:continuation", " " * width if is_soft_wrap else " " * max(0, width - 2) + "> ")]

    return PromptSession(
        message=[("class:prompt", PROMPT)],
        # the prompt's own buffer, not the focused one (during Ctrl-R the search field has focus)
        multiline=Condition(lambda: not is_complete(shell.session.default_buffer.text) if shell.session else True),
        prompt_continuation=continuation,
        lexer=PygmentsLexer(FlinkSqlLexer),
        completer=completer,
        complete_while_typing=True,
        complete_in_thread=True,
        auto_suggest=AutoSuggestFromHistory(),
        history=MaskedFileHistory(shell.history) if shell.history else InMemoryHistory(),
        search_ignore_case=True,
        bottom_toolbar=toolbar,
        refresh_interval=0.5,
        style=STYLE,
        include_default_pygments_style=False,
        key_bindings=prompt_bindings(),
        input=shell.term.input,
        output=shell.term.output,
    )


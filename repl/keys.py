"""Key bindings of the prompt, on top of prompt_toolkit's Emacs bindings (which give Ctrl-R
history search, Ctrl-A/E, word moves, ...):

    Enter       runs the buffer when its statement is complete (`;`), else starts a new line
                (the PromptSession's ``multiline`` filter decides, see ``repl.shell``)
    Alt-Enter   always a new line
    Enter       with a completion selected: takes the completion, runs nothing
    Ctrl-C      clears the buffer (the prompt raises KeyboardInterrupt; the shell goes on)
    Ctrl-D      on an empty line: quit (asks first when jobs are running)
"""

from __future__ import annotations

from prompt_toolkit.filters import completion_is_selected
from prompt_toolkit.key_binding import KeyBindings


def prompt_bindings() -> KeyBindings:
    kb = KeyBindings()

    @kb.add("escape", "enter")
    def _newline(event) -> None:  # type: ignore[no-untyped-def]
        event.current_buffer.newline(copy_margin=False)

    @kb.add("enter", filter=completion_is_selected)
    def _take_completion(event) -> None:  # type: ignore[no-untyped-def]
        event.current_buffer.complete_state = None

    return kb

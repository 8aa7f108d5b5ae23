"""Key bindings of the prompt, on top of prompt_toolkit's Emacs bindings (which give Ctrl-R
history search, Ctrl-A/E, word moves, ...):

    Enter       runs the buffer when its statement is complete (`;`), else starts a new line
                (the PromptSession's ``multiline`` filter decides, see ``repl.shell``)
    Alt-Enter   always a new line
    Enter       with a completion selected: takes the completion, runs nothing
    Tab         inserts the best completion at once (matching is fuzzy, so there is rarely a
                common prefix to insert); Tab again cycles, Shift-Tab goes back
    Ctrl-C      clears the buffer (the prompt raises KeyboardInterrupt; the shell goes on)
    Ctrl-D      on an empty line: quit (asks first when jobs are running)
"""

from __future__ import annotations

from prompt_toolkit.buffer import CompletionState
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.filters import completion_is_selected, has_selection
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent


def prompt_bindings() -> KeyBindings:
    kb = KeyBindings()

    @kb.add("escape", "enter")
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.newline(copy_margin=False)

    @kb.add("tab", filter=~has_selection)
    def _complete(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if buffer.complete_state:
            buffer.complete_next()
            return
        if buffer.completer is None:
            return
        # computed here rather than in the background, so a Tab typed right after a word (before
        # the completion-while-typing has come back) still completes it
        found = list(buffer.completer.get_completions(buffer.document, CompleteEvent(completion_requested=True)))
        if found:
            buffer.complete_state = CompletionState(original_document=buffer.document, completions=found)
            buffer.go_to_completion(0)

    @kb.add("enter", filter=completion_is_selected)
    def _take_completion(event: KeyPressEvent) -> None:
        event.current_buffer.complete_state = None

    return kb

"""Colours of the shell: SQL tokens (pygments token classes), the prompt, the completion menu, the
bottom toolbar, messages, and the result views. One prompt_toolkit Style used everywhere."""

from __future__ import annotations

from prompt_toolkit.styles import Style

RULES: dict[str, str] = {
    # SQL tokens (PygmentsLexer maps Token.Keyword to class:pygments.keyword, ...)
    "pygments.keyword": "bold #5f87ff",
    "pygments.keyword.type": "#00afaf",
    "pygments.name.builtin": "#af87ff",
    "pygments.name.function": "#af87ff",
    "pygments.name.quoted": "#d7af5f",
    "pygments.name.variable": "#ff8700",
    "pygments.literal.string": "#5faf5f",
    "pygments.literal.number": "#d7875f",
    "pygments.comment": "italic #808080",
    "pygments.comment.special": "italic #d787af",
    "pygments.operator": "#bcbcbc",
    # prompt
    "prompt": "bold #5fafff",
    "continuation": "#5f5f5f",
    # completion menu
    "completion-menu.completion": "bg:#303030 #d0d0d0",
    "completion-menu.completion.current": "bg:#5f87af #ffffff",
    "completion-menu.meta.completion": "bg:#262626 #8a8a8a",
    "completion-menu.meta.completion.current": "bg:#5f87af #e4e4e4",
    # bottom toolbar
    "bottom-toolbar": "bg:#262626 #bcbcbc noreverse",
    "toolbar.ok": "#5faf5f bold",
    "toolbar.busy": "#d7af00 bold",
    "toolbar.bad": "#ff5f5f bold",
    "toolbar.key": "#8a8a8a",
    # messages printed by the shell
    "info": "#5faf5f",
    "warning": "#d7af00",
    "error": "#ff5f5f",
    "dim": "#8a8a8a",
    "state.bounded": "#5faf5f bold",
    "state.unbounded": "#ff8700 bold",
    "spinner": "#5fafff",
    # result views
    "view.title": "bg:#005f87 #ffffff bold",
    "view.header": "bold underline",
    "view.row.new": "bg:#303a30",
    "view.status": "bg:#303030 #d0d0d0",
    "view.status.ok": "bg:#303030 #87d787 bold",
    "view.status.bad": "bg:#303030 #ff5f5f bold",
    "view.keys": "bg:#1c1c1c #8a8a8a",
    "change.insert": "#5faf5f",
    "change.delete": "#ff5f5f",
    "change.update-before": "#d7875f",
    "change.update-after": "#87afd7",
}

STYLE = Style.from_dict(RULES)

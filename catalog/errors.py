"""Catalog errors: each carries a message fit to show a user as is."""


class CatalogError(Exception):
    """A catalog operation failed; ``str(err)`` is the user-facing message."""


class ObjectNotFound(CatalogError):
    def __init__(self, kind: str, name: str, suggestion: str | None = None):
        self.kind, self.name, self.suggestion = kind, name, suggestion
        hint = f" Did you mean `{suggestion}`?" if suggestion else ""
        super().__init__(f"{kind.capitalize()} `{name}` does not exist.{hint}")


class ObjectExists(CatalogError):
    def __init__(self, kind: str, name: str, existing_kind: str | None = None):
        self.kind, self.name = kind, name
        what = existing_kind or kind
        super().__init__(f"A {what} named `{name}` already exists.")

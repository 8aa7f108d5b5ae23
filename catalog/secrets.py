"""Masking of secret option values wherever options are shown or logged."""

from __future__ import annotations

from collections.abc import Mapping

MASK = "******"

# Substrings of option keys that name a secret (lower-cased match).
SECRET_KEY_PARTS = (
    "password",
    "passwd",
    "secret",
    "token",
    "sasl.jaas.config",
    "credential",
    "private-key",
    "private.key",
    "access-key",
    "access.key",
    "accesskey",
    "api-key",
    "api.key",
    "apikey",
    "keystore.key",
    "ssl.key",
    "auth",
)


def is_secret_key(key: str) -> bool:
    """Whether an option key names a secret (``password``, ``sasl.jaas.config``, ...)."""
    low = key.lower()
    return any(part in low for part in SECRET_KEY_PARTS)


def mask_value(key: str, value: str) -> str:
    return MASK if is_secret_key(key) else value


def mask_options(options: Mapping[str, str]) -> dict[str, str]:
    """A copy of ``options`` with the values of secret keys replaced by a mask."""
    return {k: mask_value(k, v) for k, v in options.items()}

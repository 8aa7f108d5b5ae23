"""`sqlengine run` of Nexmark queries under different settings, side by side: the JVM's options
(its garbage collector), the operators' (Java or Python), any `SET`. The same files as
bench/flink_compare.py (made by it when missing), each run a whole process, the variants
alternating and taking turns at going first.

    python bench/settings_compare.py [--events 2000000] [--runs 3] [--format csv]
        [--variant 'G1:spark.driver.extraJavaOptions=-XX:+UseG1GC'
         --variant 'Parallel:spark.driver.extraJavaOptions=-XX:+UseParallelGC'] [q0 q4 ...]

A variant is ``NAME:key=value;key=value``; its settings become the script's first statements,
``SET 'key' = 'value';`` (JVM options are read when the JVM starts, so they must come first;
sqlengine's own options stay, and a collector named there replaces the JVM's default: G1 on a
machine of 2 cores and 2 GiB or more). Per query and variant: the median whole-run wall time, CPU
seconds and peak resident memory of the process tree (as bench/flink_compare.py measures them),
and each variant's wall time over the first's. The table goes to stdout; each query's result as
a JSON line to stderr, under a progress bar.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from statistics import geometric_mean, median

from tqdm import tqdm  # the bench extra

sys.path.insert(0, str(Path(__file__).resolve().parent))
from flink_compare import generate, sqlengine, timed_script

DEFAULT_QUERIES = ["q0", "q3", "q4", "q5", "q8", "q9", "q18", "q19"]
DEFAULT_VARIANTS = ["G1:spark.driver.extraJavaOptions=-XX:+UseG1GC", "Parallel:spark.driver.extraJavaOptions=-XX:+UseParallelGC"]


def variant(text: str) -> tuple[str, dict[str, str]]:
    """``NAME:key=value;key=value`` as its name and settings."""
    name, sep, body = text.partition(":")
    pairs = [p.partition("=") for p in body.split(";") if p.strip()]
    if not sep or not name or any(not eq for _, eq, _ in pairs):
        raise argparse.ArgumentTypeError(f"expected NAME:key=value;key=value, got {text!r}")
    return name, {k.strip(): v.strip() for k, _, v in pairs}


def with_settings(script: Path, settings: dict[str, str], work: Path, name: str) -> Path:
    out = work / f"{script.stem}-{name}.sql"
    sets = "".join(f"SET '{k}' = '{v}';\n" for k, v in settings.items())
    out.write_text(sets + script.read_text())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("queries", nargs="*", default=DEFAULT_QUERIES)
    ap.add_argument("--events", type=int, default=2_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--format", default="csv")
    ap.add_argument("--variant", action="append", type=variant,
                    help="NAME:key=value;key=value (repeatable; the first is the baseline)")
    ap.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "sqlengine-flink-compare")
    args = ap.parse_args()
    variants = args.variant or [variant(v) for v in DEFAULT_VARIANTS]
    work = Path(tempfile.mkdtemp(prefix="settings-compare-"))
    data = generate(args.events, args.format, args.data / args.format / str(args.events))
    homes = iter(range(1, 1 << 30))
    bar = tqdm(total=len(args.queries) * args.runs * len(variants), unit="run", file=sys.stderr, dynamic_ncols=True)
    # a warm-up: the OS's file cache, and sqlengine's class cache written
    sqlengine(["run", str(timed_script("q0", data, args.format, work))], work / "warm-up", check=True)
    rows = []
    for q in args.queries:
        base = timed_script(q, data, args.format, work)
        scripts = {name: with_settings(base, settings, work, name) for name, settings in variants}
        runs: dict[str, list[dict]] = {name: [] for name, _ in variants}
        for i in range(args.runs):
            order = variants[i % len(variants):] + variants[:i % len(variants)]
            for name, _ in order:
                bar.set_description(f"{q} {name}")
                r = sqlengine(["run", str(scripts[name])], work / f"home{next(homes)}", check=True)
                runs[name].append(r)
                bar.update()
        row = {"query": q, **{name: {k: median(r[k] for r in rs) for k in ("wall", "cpu", "rss")}
                              for name, rs in runs.items()}}
        rows.append(row)
        bar.write(json.dumps(row), file=sys.stderr)
    bar.close()
    first = variants[0][0]
    head = "| query | " + " | ".join(f"{n} s | {n} CPU s | {n} peak MB" for n, _ in variants) + "".join(
        f" | {n} / {first}" for n, _ in variants[1:]) + " |"
    print(head)
    print("|" + "---|" * (1 + 3 * len(variants) + len(variants) - 1))
    for row in rows:
        cells = [f"{row[n]['wall']:.1f} | {row[n]['cpu']:.0f} | {row[n]['rss'] / 2**20:,.0f}" for n, _ in variants]
        ratios = [f"{row[n]['wall'] / row[first]['wall']:.2f}" for n, _ in variants[1:]]
        print(f"| {row['query']} | " + " | ".join(cells + ratios) + " |")
    for n, _ in variants[1:]:
        g = geometric_mean([row[n]["wall"] / row[first]["wall"] for row in rows])
        print(f"\n{n} / {first}, geometric mean of the wall-time ratios: {g:.3f}")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()

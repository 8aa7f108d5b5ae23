"""sqlengine against Apache Flink 2.3 on the same files: the Nexmark queries, each run as a whole
process on both engines (sqlengine local[2]; Flink's local mini-cluster through PyFlink,
parallelism 2), over the same events written once to files by sqlengine's own nexmark connector
and filesystem sink.

    python bench/flink_compare.py [--events 1000000] [--runs 3] [--formats csv,json,parquet]
                                  [--flink-python /tmp/flink/bin/python] [q0 q1 ...]

PyFlink runs from a virtualenv of its own (``--flink-python``; made with apache-flink 2.3.0 when
missing), never from sqlengine's environment: the two pin different py4j versions.

Data: for each size (``--events`` and four times as many) and the check size (``--check-events``),
the three tables person, auction and bid, each as one file sorted by event time (Spark's sorted
parts concatenated in order; Parquet row groups copied in order with pyarrow). One file sorted by
time, because Flink's file source promises no order across files or splits, and a split read after
a later one would make its rows late (dropped) on Flink only. Flink's Parquet format jar
(org.apache.flink:flink-sql-parquet) comes from Maven Central; the Hadoop classes it needs, from
the pyspark install's shaded Hadoop client jars.

Per query and format, reported:
- whole-run wall time of each engine (process start to exit, as a user waits for it), the median of
  ``--runs`` runs at each size, the engines alternating and taking turns at going first;
- marginal throughput: the extra events of the large size over the extra seconds they took;
- CPU seconds and peak resident memory of the process tree (sampled every 0.2 s; each process's
  last 0.2 s is not seen);
- whether the final rows are equal: the query's SELECT on each engine over the check data, its
  final table (changelog applied) compared as a multiset. A query whose result depends on the wall
  clock (PROCTIME) is not compared.
A query an engine refuses or fails is reported with that engine's first error line.
Results: a table on stdout and JSON in ``--out``; docs/benchmarks.md quotes them (and
bench/charts.py draws its chart from the table there). On stderr, each query's result as a JSON
line and a progress bar (tqdm, the ``bench`` extra).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from statistics import geometric_mean, median

from tqdm import tqdm  # the bench extra

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "nexmark"
FLINK_SIDE = ROOT / "bench" / "flink_side.py"
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests" / "conformance"))
from as_installed import sqlengine_env  # noqa: E402
from flink_side import INSERT_SELECT  # noqa: E402  (standard library only)
from on_flink import statements  # noqa: E402  (standard library only)
from peak_rss import PeakRSS  # noqa: E402

PARQUET_JAR = Path.home() / ".m2/repository/org/apache/flink/flink-sql-parquet/2.3.0/flink-sql-parquet-2.3.0.jar"
COLUMNS = {
    "person": "id BIGINT, name VARCHAR, emailAddress VARCHAR, creditCard VARCHAR, city VARCHAR, state VARCHAR, "
              "`dateTime` TIMESTAMP(3), extra VARCHAR",
    "auction": "id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT, "
               "`dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR",
    "bid": "auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, `dateTime` TIMESTAMP(3), "
           "extra VARCHAR",
}
EVENT_TYPE = {"person": 0, "auction": 1, "bid": 2}
ALL = [f"q{i}" for i in range(24)]
NOT_RUN = {
    "q6": "Flink cannot run it (its OVER window cannot consume the Top-1's retractions)",
    "q14": "calls the benchmark's Java UDF count_char (sqlengine runs a Python one: not the same query)",
}
WALL_CLOCK = {"q12"}  # PROCTIME windows: results depend on when rows arrive, not compared
# q13's side table (Flink's legacy CSV options) reads ${FLINK_HOME}/data/side_input.txt: Nexmark's
# side_input_gen.sh writes it with 10,000 rows "i,i"; it does not change, so q13's rows are compared
SIDE_INPUT_ROWS = 10_000
CREATE_TABLE = re.compile(r"^\s*CREATE\s+TABLE\s+(\w+)", re.IGNORECASE)
# write files under ${NEXMARK_DIR}: each timed run into a directory of its own (a file sink skips
# batches an earlier run's sink log holds), counted and removed after the run
FILE_SINKS = {"q10"}


# -- data ------------------------------------------------------------------------------------------


def generate(events: int, fmt: str, target: Path) -> Path:
    """The three tables of ``events`` Nexmark events as one time-sorted file each under
    ``target`` (made once; an existing complete directory is reused)."""
    done = target / "COMPLETE"
    if done.exists():
        return target
    parts = target / "parts"
    lines = [
        "SET 'execution.runtime-mode' = 'batch';",
        (FIXTURES / "ddl_gen.sql").read_text().replace("${TPS}", "10000").replace("${EVENTS_NUM}", str(events))
        .replace("${PERSON_PROPORTION}", "1").replace("${AUCTION_PROPORTION}", "3").replace("${BID_PROPORTION}", "46")
        + ";",
    ]
    for table, cols in COLUMNS.items():
        names = ", ".join(f"{table}.{c.split()[0]}" if c.split()[0] != "`dateTime`" else "`dateTime`"
                          for c in cols.split(", "))
        lines.append(f"CREATE TABLE {table}_out ({cols}) WITH ('connector' = 'filesystem', "
                     f"'path' = '{parts / table}', 'format' = '{fmt}');")
        lines.append(f"INSERT INTO {table}_out SELECT {names} FROM datagen WHERE event_type = {EVENT_TYPE[table]} "
                     "ORDER BY `dateTime`;")
    script = target / "generate.sql"
    target.mkdir(parents=True, exist_ok=True)
    script.write_text("\n".join(lines) + "\n")
    sqlengine(["run", str(script)], target / "home", check=True)
    for table in COLUMNS:
        files = sorted((parts / table).glob(f"part-*.{fmt}")) or sorted((parts / table).glob("part-*"))
        merge(files, target / f"{table}.{fmt}", fmt)
    shutil.rmtree(parts)
    done.write_text(str(events))
    return target


def merge(files: list[Path], out: Path, fmt: str) -> None:
    """Spark's parts, each sorted and in range order, as one file in that order."""
    if fmt == "parquet":
        import pyarrow.parquet as pq

        writer = None
        for f in files:
            part = pq.ParquetFile(f)
            for i in range(part.num_row_groups):
                group = part.read_row_group(i)
                if writer is None:
                    # INT96 timestamps, as Spark wrote them (and as Flink writes its own by default)
                    writer = pq.ParquetWriter(out, group.schema, use_deprecated_int96_timestamps=True)
                writer.write_table(group)
        assert writer is not None, f"no parts for {out}"
        writer.close()
    else:
        with open(out, "wb") as sink:
            for f in files:
                sink.write(f.read_bytes())


def tables_ddl(data: Path, fmt: str) -> str:
    return "".join(
        f"CREATE TABLE {table} ({cols},\n  WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND)\n"
        f"WITH ('connector' = 'filesystem', 'path' = '{data / f'{table}.{fmt}'}', 'format' = '{fmt}');\n"
        for table, cols in COLUMNS.items()
    )


def flink_home(work: Path) -> Path:
    """A directory standing for ${FLINK_HOME}: data/side_input.txt as Nexmark's generator writes it."""
    side = work / "flink_home" / "data" / "side_input.txt"
    if not side.exists():
        side.parent.mkdir(parents=True, exist_ok=True)
        side.write_text("".join(f"{i},{i}\n" for i in range(SIDE_INPUT_ROWS)))
    return side.parents[1]


def query_text(query: str, work: Path) -> str:
    return (FIXTURES / f"{query}.sql").read_text().replace("${FLINK_HOME}", str(flink_home(work)))


def timed_script(query: str, data: Path, fmt: str, work: Path, out: Path | None = None) -> Path:
    """Both engines' timed run: the tables over ``data``, then the query file as published (its
    files, if it writes any, under ``out``)."""
    text = query_text(query, work)
    path = work / f"{query}-{fmt}-{data.name}.sql"
    if out is not None:
        text = text.replace("${NEXMARK_DIR}", str(out)).replace("${SUBMIT_TIME}", "run")
        path = path.with_name(f"{path.stem}-{out.name}.sql")
    path.write_text(tables_ddl(data, fmt) + text)
    return path


def written_rows(out: Path) -> int:
    """The lines of the files a run wrote under ``out`` (as a reader lists them: no names
    starting with '_' or '.', which are sink logs, markers and files in progress)."""
    return sum(sum(1 for _ in p.open("rb")) for p in out.rglob("*")
               if p.is_file() and not any(part.startswith(("_", ".")) for part in p.relative_to(out).parts))


def check_script(query: str, data: Path, fmt: str, work: Path) -> Path:
    """The rows check: the tables over ``data``, then the query's SELECT (an INSERT's query without
    its sink table), so that each engine returns its rows instead of writing them."""
    script = statements(query_text(query, work))
    sinks = {s.split()[2].lower() for s in script if INSERT_SELECT.match(s)}
    select = [INSERT_SELECT.match(s).group(1) if INSERT_SELECT.match(s) else s
              for s in script if not ((m := CREATE_TABLE.match(s)) and m.group(1).lower() in sinks)]
    path = work / f"{query}-{fmt}-{data.name}-select.sql"
    path.write_text(tables_ddl(data, fmt) + ";\n".join(select) + ";\n")
    return path


# -- running ---------------------------------------------------------------------------------------


def measure(cmd: list[str], env: dict[str, str] | None = None) -> dict:
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    with PeakRSS(proc.pid) as usage:
        out, err = proc.communicate()
        wall = time.perf_counter() - t0
    return {"wall": wall, "cpu": usage.cpu, "rss": usage.peak, "rc": proc.returncode, "error": first_error(err),
            "stdout": out}


def first_error(err: str) -> str:
    """sqlengine's error line, or the first Java exception's message in Flink's trace (py4j's own
    line names only the call that failed)."""
    lines = [line.strip() for line in err.splitlines()]
    for s in lines:
        if s.startswith(("sqlengine:", "[ERROR]")):
            return s[:300]
    for s in lines:
        if "Exception: " in s and "Py4JJavaError" not in s:
            return s.lstrip(": ")[:300]
    return lines[-1][:300] if err.strip() else ""


def sqlengine(args: list[str], home: Path, check: bool = False) -> dict:
    result = measure([sys.executable, "-m", "repl.cli", "--home", str(home), *args[:1], "--master", "local[2]",
                      *args[1:]], sqlengine_env())
    if check and result["rc"] != 0:
        raise SystemExit(f"sqlengine {' '.join(args)} failed: {result['error']}")
    return result


class Engines:
    def __init__(self, flink_python: str, work: Path, *, flink_batch: bool = False, sqlengine_sets: tuple[str, ...] = ()) -> None:
        self.flink_python = flink_python
        self.work = work
        self.homes = 0
        self.flink_mode = ["--batch"] if flink_batch else []  # Flink's batch runtime mode for the timed runs
        self.sets = [a for s in sqlengine_sets for a in ("--set", s)]  # sqlengine's settings for the timed runs

    def home(self) -> Path:
        self.homes += 1
        return self.work / f"home{self.homes}"

    def run(self, engine: str, script: Path, fmt: str) -> dict:
        if engine == "sqlengine":
            return sqlengine(["run", *self.sets, str(script)], self.home())
        return measure([self.flink_python, str(FLINK_SIDE), "run", str(script), *self.jar(fmt), *self.flink_mode])

    def rows(self, engine: str, script: Path, fmt: str) -> Counter | str:
        """The final table of the check script's SELECT, or the engine's error line."""
        if engine == "sqlengine":
            r = sqlengine(["run", "--format", "json", str(script)], self.home())
            if r["rc"] != 0:
                return r["error"] or f"exit {r['rc']}"
            table = [list(json.loads(line).values()) for line in r["stdout"].splitlines() if line.startswith("{")]
        else:
            out = self.work / f"rows-{script.stem}.json"
            r = measure([self.flink_python, str(FLINK_SIDE), "rows", str(script), str(out), *self.jar(fmt)])
            if r["rc"] != 0:
                return r["error"] or f"exit {r['rc']}"
            table = json.loads(out.read_text())
        return Counter(json.dumps([floats(v) for v in row]) for row in table)

    def jar(self, fmt: str) -> list[str]:
        """Flink's Parquet format, and the Hadoop classes it needs (Flink ships none): the shaded
        Hadoop client jars of the pyspark install."""
        if fmt != "parquet":
            return []
        import pyspark

        jars = Path(pyspark.__file__).parent / "jars"
        hadoop = sorted(jars.glob("hadoop-client-api-*.jar")) + sorted(jars.glob("hadoop-client-runtime-*.jar"))
        return ["--jar", ";".join(str(j) for j in [PARQUET_JAR, *hadoop])]


def floats(v):
    return float(f"{v:.9g}") if isinstance(v, float) and not math.isnan(v) else v


def flink_venv(python: Path) -> None:
    """PyFlink in a virtualenv of its own (made when missing): apache-flink 2.3 pins py4j
    0.10.9.7 and pyspark 4.3 pins 0.10.9.9, so the two cannot share sqlengine's environment."""
    if python.exists():
        return
    venv = python.parent.parent
    print(f"installing PyFlink 2.3 into {venv} (a few minutes)", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "apache-flink==2.3.0"], check=True)


def parquet_jar() -> None:
    if not PARQUET_JAR.exists():
        subprocess.run(["mvn", "-q", "dependency:get", "-Dartifact=org.apache.flink:flink-sql-parquet:2.3.0",
                        "-Dtransitive=false"], check=True)


# -- one query -------------------------------------------------------------------------------------


def compare(engines: Engines, query: str, fmt: str, sizes: list[tuple[int, Path]], check: Path, runs: int) -> dict:
    out: dict = {"query": query, "format": fmt}
    if query not in WALL_CLOCK:
        select = check_script(query, check, fmt, engines.work)
        got = {e: engines.rows(e, select, fmt) for e in ("sqlengine", "flink")}
        for e, r in got.items():
            if isinstance(r, str):
                out[f"{e}_error"] = r
        if not any(isinstance(r, str) for r in got.values()):
            out["equal"] = got["sqlengine"] == got["flink"]
            out["rows"] = sum(got["flink"].values())
            if not out["equal"]:
                missing, extra = got["flink"] - got["sqlengine"], got["sqlengine"] - got["flink"]
                out["difference"] = {"missing": sum(missing.values()), "extra": sum(extra.values()),
                                     "examples": sorted(missing)[:3] + sorted(extra)[:3]}
    if runs == 0 or any(f"{e}_error" in out for e in ("sqlengine", "flink")):
        return out
    for events, data in sizes:
        runs_of: dict[str, list[dict]] = {"sqlengine": [], "flink": []}
        # each engine's files (if the query writes any) go to a directory of its own, emptied after each run
        dirs = {e: engines.work / f"{query}-files-{e}" if query in FILE_SINKS else None for e in runs_of}
        scripts = {e: timed_script(query, data, fmt, engines.work, d) for e, d in dirs.items()}
        for i in range(runs):
            for e in (("sqlengine", "flink") if i % 2 == 0 else ("flink", "sqlengine")):
                files = dirs[e]
                r = engines.run(e, scripts[e], fmt)
                if files is not None:
                    r["written"] = written_rows(files) if files.exists() else 0
                    shutil.rmtree(files, ignore_errors=True)
                if r["rc"] != 0:
                    out[f"{e}_error"] = r["error"] or f"exit {r['rc']}"
                    return out
                runs_of[e].append(r)
        for e, rs in runs_of.items():
            out.setdefault(e, {})[str(events)] = {
                "wall": median(r["wall"] for r in rs), "cpu": median(r["cpu"] for r in rs),
                "rss_mb": max(r["rss"] for r in rs) / 2**20, "walls": [round(r["wall"], 2) for r in rs],
                **({"written": sorted({r["written"] for r in rs})} if query in FILE_SINKS else {}),
            }
    (small, _), (large, _) = sizes
    if query in FILE_SINKS:  # every run of both engines wrote the same number of rows
        out["written_equal"] = len({n for e in ("sqlengine", "flink") for n in out[e][str(large)]["written"]}) == 1
    for e in ("sqlengine", "flink"):
        extra = out[e][str(large)]["wall"] - out[e][str(small)]["wall"]
        out[e]["marginal_events_per_s"] = (large - small) / extra if extra > 0 else None
    return out


# -- report ----------------------------------------------------------------------------------------


def report(results: list[dict], sizes: list[int]) -> str:
    large = sizes[1]
    head = (f"| query | format | rows equal | sqlengine s ({large:,}) | Flink s | Flink s / sqlengine s "
            "| sqlengine marginal ev/s | Flink marginal ev/s | marginal ratio | sqlengine CPU s | Flink CPU s "
            "| sqlengine peak MB | Flink peak MB |")
    lines = [head, "|" + "---|" * 13]
    ratios = []
    for r in results:
        eq = {True: "yes", False: "**no**"}.get(r.get("equal"), "—")
        if r.get("written_equal") is False:
            eq += " (**files differ**)"
        if "sqlengine" not in r or "flink" not in r:
            why = f"sqlengine: {r['sqlengine_error']}" if r.get("sqlengine_error") else f"Flink: {r.get('flink_error')}"
            lines.append(f"| {r['query']} | {r['format']} | {eq} | {why} |" + " |" * 9)
            continue
        s, f = r["sqlengine"], r["flink"]
        ratio = f[str(large)]["wall"] / s[str(large)]["wall"]
        ratios.append(ratio)
        ms, mf = s["marginal_events_per_s"], f["marginal_events_per_s"]
        # no marginal figure when the large input took no longer than the small one (noise)
        m_ratio = f"{ms / mf:.2f}" if ms and mf else "—"
        lines.append(
            f"| {r['query']} | {r['format']} | {eq} | {s[str(large)]['wall']:.1f} | {f[str(large)]['wall']:.1f} | "
            f"{ratio:.2f} | {f'{ms:,.0f}' if ms else '—'} | {f'{mf:,.0f}' if mf else '—'} | {m_ratio} | "
            f"{s[str(large)]['cpu']:.0f} | {f[str(large)]['cpu']:.0f} | {s[str(large)]['rss_mb']:,.0f} | "
            f"{f[str(large)]['rss_mb']:,.0f} |"
        )
    if ratios:
        lines.append(f"\nGeometric mean of Flink's whole-run time over sqlengine's: {geometric_mean(ratios):.2f} "
                     f"({len(ratios)} query runs; above 1 means sqlengine is faster)")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("queries", nargs="*")
    ap.add_argument("--events", type=int, default=1_000_000, help="the small size; the large one is four times it")
    ap.add_argument("--check-events", type=int, default=20_000, help="the size the rows are compared on")
    ap.add_argument("--runs", type=int, default=3, help="timed runs per engine and size; 0: compare the rows only")
    ap.add_argument("--formats", default="csv,json,parquet")
    ap.add_argument("--flink-python", default="/tmp/flink/bin/python")
    ap.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "sqlengine-flink-compare")
    ap.add_argument("--out", type=Path, default=Path("flink_compare.json"))
    ap.add_argument("--flink-batch", action="store_true",
                    help="time Flink in its batch runtime mode (the rows are compared in streaming mode)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a setting for sqlengine's timed runs (sqlengine run --set), e.g. sqlengine.bounded.batch=false")
    args = ap.parse_args()
    flink_venv(Path(args.flink_python))
    queries = args.queries or [q for q in ALL if q not in NOT_RUN]
    formats = args.formats.split(",")
    if "parquet" in formats:
        parquet_jar()
    work = Path(tempfile.mkdtemp(prefix="flink-compare-"))
    engines = Engines(args.flink_python, work, flink_batch=args.flink_batch, sqlengine_sets=tuple(args.set))
    sizes = [args.events, 4 * args.events]
    results = []
    # on stderr, under each query's result line: how far the run is (a pass of every query with
    # --runs 3 takes about 1.5 hours here)
    bar = tqdm(total=len(formats) * len(queries), unit="query", file=sys.stderr, dynamic_ncols=True)
    for fmt in formats:
        bar.set_description(f"{fmt}: generating the events")
        data = {n: generate(n, fmt, args.data / fmt / str(n)) for n in (args.check_events, *sizes)}
        # a warm-up of each engine: the OS's file cache, and sqlengine's class cache written
        bar.set_description(f"{fmt}: warming up")
        for _ in range(2 if args.runs else 0):
            for e in ("sqlengine", "flink"):
                engines.run(e, timed_script("q0", data[args.check_events], fmt, work), fmt)
        for q in queries:
            bar.set_description(f"{fmt}: {q}")
            r = compare(engines, q, fmt, [(n, data[n]) for n in sizes], data[args.check_events], args.runs)
            results.append(r)
            bar.write(json.dumps(r), file=sys.stderr)
            bar.update()
            args.out.write_text(json.dumps({"sizes": sizes, "check_events": args.check_events, "runs": args.runs,
                                            "results": results}, indent=1))
    bar.close()
    print(report(results, sizes) if args.runs else "\n".join(
        f"{r['query']} {r['format']}: " + ({True: "equal", False: "DIFFERENT", None: "not compared"}[r.get("equal")])
        + "".join(f"; {e}: {r[e + '_error']}" for e in ("sqlengine", "flink") if e + "_error" in r) for r in results))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()

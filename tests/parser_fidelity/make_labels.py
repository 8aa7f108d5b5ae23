"""Labels every corpus statement with Apache Flink's own SQL parser: accepted or rejected, and where.

    /work/flinkvenv/bin/python tests/parser_fidelity/make_labels.py

Runs only in the PyFlink venv (apache-flink==2.3.0; see README.md), and imports nothing of ours.
A local TableEnvironment is started only to get its JVM: nothing is planned or executed. Each
statement goes through Calcite's ``SqlParser.parseStmt()`` (what ``ParserImpl.parse`` calls via
``CalciteParser.parse`` for one statement) with the parser config the table planner builds in
``PlannerContext.getSqlParserConfig()``: ``FlinkSqlParserImpl.FACTORY``, ``FlinkSqlConformance.DEFAULT``,
``Lex.JAVA``, identifier max length 256. That is syntax only: no catalog lookup, no validation.
The config is built here from those parts and checked against the planner's own before use.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
CORPUS = HERE / "corpus.jsonl"
LABELS = HERE / "labels.jsonl"
META = HERE / "labels_meta.json"
LOCAL = {  # nothing should listen on or reach anything but this host
    "rest.address": "127.0.0.1",
    "rest.bind-address": "127.0.0.1",
    "jobmanager.rpc.address": "127.0.0.1",
    "jobmanager.bind-host": "127.0.0.1",
    "taskmanager.host": "127.0.0.1",
    "taskmanager.bind-host": "127.0.0.1",
}


def describe(config) -> str:
    """A parser config as text; the factory prints with an identity hash, which is dropped."""
    return re.sub(r"@[0-9a-f]+\b", "", config.toString())


class FlinkParser:
    def __init__(self) -> None:
        from pyflink.common import Configuration
        from pyflink.java_gateway import get_gateway
        from pyflink.table import EnvironmentSettings, TableEnvironment

        conf = Configuration()
        for key, value in LOCAL.items():
            conf.set_string(key, value)
        settings = EnvironmentSettings.new_instance().in_streaming_mode().with_configuration(conf).build()
        self.t_env = TableEnvironment.create(settings)
        self.gateway = get_gateway()
        jvm = self.gateway.jvm
        # the planner (with Calcite and Flink's parser) lives in its own class loader, behind
        # flink-table-planner-loader: reach its classes through the loader of the planner's Parser
        planner_parser = self.t_env._j_tenv.getParser()
        self.loader = planner_parser.getClass().getClassLoader()
        sql_parser = self._class("org.apache.calcite.sql.parser.SqlParser")
        config = self._static(sql_parser, "config")
        config = (
            config.withParserFactory(self._field("org.apache.flink.sql.parser.impl.FlinkSqlParserImpl", "FACTORY"))
            .withConformance(self._field("org.apache.flink.sql.parser.validate.FlinkSqlConformance", "DEFAULT"))
            .withLex(self._field("org.apache.calcite.config.Lex", "JAVA"))
            .withIdentifierMaxLength(256)
        )
        self.config = config
        self._check_against_planner(planner_parser)
        types = self.gateway.new_array(jvm.java.lang.Class, 2)
        types[0] = jvm.java.lang.Class.forName("java.lang.String")
        types[1] = self._class("org.apache.calcite.sql.parser.SqlParser$Config")
        self._create = sql_parser.getMethod("create", types)
        metadata = self._parser("").getMetadata()
        self.reserved_words = sorted(
            w for w in metadata.getTokens() if re.fullmatch(r"[A-Z_][A-Z0-9_]*", w) and metadata.isReservedWord(w)
        )
        self.flink_version = jvm.org.apache.flink.runtime.util.EnvironmentInformation.getVersion()
        self.flink_commit = jvm.org.apache.flink.runtime.util.EnvironmentInformation.getGitCommitIdAbbrev()

    def _class(self, name: str):
        return self.gateway.jvm.java.lang.Class.forName(name, True, self.loader)

    def _field(self, cls: str, name: str):
        return self._class(cls).getField(name).get(None)

    def _static(self, cls, name: str):
        no_types = self.gateway.new_array(self.gateway.jvm.java.lang.Class, 0)
        no_args = self.gateway.new_array(self.gateway.jvm.java.lang.Object, 0)
        return cls.getMethod(name, no_types).invoke(None, no_args)

    def _check_against_planner(self, planner_parser) -> None:
        """Our config must equal the one the planner parses with (read from its private fields):
        if Flink changes how it configures the parser, the labels must not silently drift."""
        supplier = planner_parser.getClass().getDeclaredField("calciteParserSupplier")
        supplier.setAccessible(True)
        calcite_parser = supplier.get(planner_parser).get()
        field = calcite_parser.getClass().getDeclaredField("config")
        field.setAccessible(True)
        theirs = field.get(calcite_parser)

        if describe(theirs) != describe(self.config):
            raise SystemExit(f"parser config differs from the planner's:\n ours:   {describe(self.config)}\n theirs: {describe(theirs)}")

    def _parser(self, sql: str):
        args = self.gateway.new_array(self.gateway.jvm.java.lang.Object, 2)
        args[0], args[1] = sql, self.config
        return self._create.invoke(None, args)

    def parse(self, sql: str) -> dict:
        from py4j.protocol import Py4JJavaError

        parser = self._parser(sql)
        try:
            parser.parseStmt()
        except Py4JJavaError as err:
            exc = err.java_exception
            name = exc.getClass().getName()
            if not name.endswith("SqlParseException"):
                raise RuntimeError(f"{name} while parsing {sql[:200]!r}: {exc.getMessage()}") from None
            pos = exc.getPos()
            message = (exc.getMessage() or name).splitlines()[0]
            line = pos.getLineNum() if pos is not None else None
            column = pos.getColumnNum() if pos is not None else None
            return {"accepted": False, "message": message, "line": line, "column": column}
        return {"accepted": True, "message": None, "line": None, "column": None}


def main() -> None:
    start = time.monotonic()
    text = CORPUS.read_text()
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    flink = FlinkParser()
    print(f"Flink {flink.flink_version} ({flink.flink_commit}) JVM ready in {time.monotonic() - start:.1f}s", file=sys.stderr)
    labels = []
    for n, row in enumerate(rows, 1):
        labels.append({"id": row["id"], **flink.parse(row["sql"])})
        if n % 500 == 0:
            print(f"  {n}/{len(rows)}", file=sys.stderr)
    with LABELS.open("w") as f:
        for label in labels:
            f.write(json.dumps(label, ensure_ascii=False) + "\n")
    accepted = sum(label["accepted"] for label in labels)
    meta = {
        "flink_version": flink.flink_version,
        "flink_commit": flink.flink_commit,
        "parser": "org.apache.calcite.sql.parser.SqlParser.parseStmt()",
        "parser_config": describe(flink.config),
        "corpus_sha256": hashlib.sha256(text.encode()).hexdigest(),
        "statements": len(labels),
        "accepted": accepted,
        "rejected": len(labels) - accepted,
        # words Flink's parser will not take as unquoted identifiers (for grouping disagreements)
        "reserved_words": " ".join(flink.reserved_words),
    }
    META.write_text(json.dumps(meta, indent=2) + "\n")
    print(f"{len(labels)} labels ({accepted} accepted) in {time.monotonic() - start:.1f}s -> {LABELS.name}", file=sys.stderr)


if __name__ == "__main__":
    main()

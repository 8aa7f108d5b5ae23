"""EXPLAIN as JSON and as a Mermaid flowchart."""

from __future__ import annotations

import json
import re

from catalog import Catalog
from planner.explain.json_plan import render_json, to_dict
from planner.explain.mermaid import render_mermaid
from planner.statements.script import parse_script
from planner.statements.session import PlannerSession

SQL = """\
CREATE TABLE orders (order_id BIGINT, amount DOUBLE, order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND) WITH ('connector' = 'datagen', 'rows-per-second' = '100');
CREATE TABLE shipments (order_id BIGINT, carrier STRING, ship_time TIMESTAMP(3),
  WATERMARK FOR ship_time AS ship_time - INTERVAL '5' SECOND) WITH ('connector' = 'datagen', 'rows-per-second' = '100');
SELECT o.order_id, s.carrier FROM orders AS o JOIN shipments AS s ON o.order_id = s.order_id;
"""


def analysis():
    session = PlannerSession(Catalog.in_memory())
    out = None
    for stmt in parse_script(SQL, "q.sql").statements:
        out = session.execute(stmt).analysis or out
    return out


def test_json_nodes_edges_state_and_diagnostics():
    doc = json.loads(render_json(analysis()))
    kinds = {n["id"]: n["kind"] for n in doc["nodes"]}
    assert doc["roots"] == ["n0"] and doc["verdict"] == "unbounded"
    join = next(n for n in doc["nodes"] if n["kind"] == "RegularJoin")
    assert join["changelog"] == "insert-only" and join["watermark"] == "delay 5 s"
    assert join["state"]["verdict"] == "unbounded"
    left, _right = join["state"]["parts"]
    assert (left["label"], left["bounded"], left["growth"]) == ("left side", False, "rows")
    assert left["estimate"]["growth_per_day"] > 0 and left["estimate"]["formula"]
    scans = [n for n in doc["nodes"] if n["kind"] == "Scan"]
    assert len(scans) == 2 and all(n["state"] is None for n in scans)
    # every edge goes from an input to the node that reads it
    for e in doc["edges"]:
        assert e["from"] in kinds and e["to"] in kinds
    assert sum(1 for e in doc["edges"] if e["to"] == join["id"]) == 2
    codes = [d["code"] for d in doc["diagnostics"]]
    assert codes == ["SE102", "SE102"]
    assert all(d["node"] == join["id"] and d["line"] == 5 for d in doc["diagnostics"])


def test_json_node_ids_are_the_binders_and_the_same_for_the_same_statement():
    first, second = to_dict(analysis()), to_dict(analysis())  # planned twice, in two sessions
    assert [(n["id"], n["kind"]) for n in first["nodes"]] == [(n["id"], n["kind"]) for n in second["nodes"]]
    assert [n["id"] for n in first["nodes"]] == [f"n{i}" for i in range(len(first["nodes"]))]  # pre-order
    assert first["roots"] == ["n0"]


def test_mermaid_flowchart():
    text = render_mermaid(analysis())
    lines = text.splitlines()
    assert lines[0] == "flowchart BT"
    nodes = [ln for ln in lines if re.match(r"\s+n\d+\[\"", ln)]
    assert len(nodes) == len(to_dict(analysis())["nodes"])
    join = next(ln for ln in nodes if "RegularJoin" in ln)
    assert "state: UNBOUNDED" in join and "`" not in join and '"' not in join[join.index('["') + 2 : -2]
    assert re.search(r"class (n\d+,)*n\d+ unbounded", text)
    assert "classDef unbounded" in text and "classDef bounded" in text
    assert sum(1 for ln in lines if "-->" in ln) == len(to_dict(analysis())["edges"])
    fenced = render_mermaid(analysis(), fenced=True)
    assert fenced.startswith("```mermaid\nflowchart BT\n") and fenced.endswith("```\n")

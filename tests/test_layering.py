"""catalog and planner never import pyspark (lint and explain run without a JVM), and each
package imports only the layers below it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ["catalog", "planner", "sqlengine", "repl"]


def test_catalog_and_planner_import_with_pyspark_made_unimportable():
    code = (
        "import sys\n"
        "sys.modules['pyspark'] = None  # any import of pyspark now raises ImportError\n"
        "import pkgutil, importlib\n"
        "for pkg in ('catalog', 'planner'):\n"
        "    mod = importlib.import_module(pkg)\n"
        "    for info in pkgutil.walk_packages(mod.__path__, pkg + '.'):\n"
        "        importlib.import_module(info.name)\n"
        "from planner.statements.session import PlannerSession\n"
        "from catalog import Catalog\n"
        "from planner.statements.script import parse_script\n"
        "s = PlannerSession(Catalog.in_memory())\n"
        "for st in parse_script(\"CREATE TABLE t (a INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector'='datagen');"
        " SELECT a, COUNT(*) FROM t GROUP BY a\").statements:\n"
        "    s.execute(st)\n"
        "print('ok', 'pyspark' in sys.modules and sys.modules['pyspark'] is not None)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok False"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_packages_import_only_downwards():
    for i, layer in enumerate(LAYERS):
        above = set(LAYERS[i + 1 :])
        for path in (ROOT / layer).rglob("*.py"):
            bad = _imports(path) & above
            assert not bad, f"{path.relative_to(ROOT)} imports {bad}, a layer above {layer}"
    for layer in ("catalog", "planner"):
        for path in (ROOT / layer).rglob("*.py"):
            assert "pyspark" not in _imports(path), f"{path.relative_to(ROOT)} imports pyspark"


def _module_graph() -> dict[str, set[str]]:
    """Each module of the four packages -> the modules of them it imports, lazily or not
    (imports under ``if TYPE_CHECKING:`` do not run and are left out)."""
    paths = {}
    for layer in LAYERS:
        for path in (ROOT / layer).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            paths[name.removesuffix(".__init__")] = path
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        visitor = _ImportVisitor(paths)
        visitor.visit(ast.parse(path.read_text()))
        graph[name] = {m for m in visitor.found if m in paths and m != name}
    return graph


class _ImportVisitor(ast.NodeVisitor):
    def __init__(self, modules: dict[str, Path]):
        self.modules = modules
        self.found: set[str] = set()

    def visit_If(self, node: ast.If) -> None:
        if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        self.found.update(a.name for a in node.names)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module and node.level == 0:
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                self.found.add(sub if sub in self.modules else node.module)


def _circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root, edges_of_root in graph.items():
        if root in index:
            continue
        work = [(root, iter(sorted(edges_of_root)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_no_import_circles():
    # The one circle kept: a state fact renders its own sentence (``StatePart.bound``) through
    # the module that holds all of the state analysis's prose, which reads the facts' types.
    allowed = [{"planner.analysis.state.facts", "planner.analysis.state.text"}]
    assert [c for c in _circles(_module_graph()) if c not in allowed] == []


def test_the_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]

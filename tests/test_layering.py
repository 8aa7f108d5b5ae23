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
        "from planner.session import PlannerSession\n"
        "from catalog import Catalog\n"
        "from planner.script import parse_script\n"
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

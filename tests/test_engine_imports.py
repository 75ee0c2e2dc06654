"""Issue 11 item 10: the engine's modules import each other without a cycle (rules <-> yueqing
was one, hidden behind imports inside functions)."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "engine"


def import_graph() -> dict[str, set[str]]:
    """module -> the engine modules it imports, at the top or inside a function."""
    modules = {p.stem for p in ENGINE.glob("*.py")}
    graph = {}
    for path in ENGINE.glob("*.py"):
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                name = (node.module or "").removeprefix("engine.")
                if node.level == 1 or (node.module or "").startswith("engine"):
                    if name in modules:
                        edges.add(name)
                    elif not name:  # from . import x
                        edges |= {a.name for a in node.names if a.name in modules}
        graph[path.stem] = edges - {path.stem}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}

    def visit(node, trail):
        if state.get(node) == 1:
            return trail[trail.index(node):] + [node]
        if state.get(node) == 2:
            return None
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            found = visit(nxt, trail + [node])
            if found:
                return found
        state[node] = 2
        return None

    for node in sorted(graph):
        found = visit(node, [])
        if found:
            return found
    return None


def test_engine_modules_import_without_a_cycle():
    graph = import_graph()
    assert "yueqing" in graph["scoring"] and "rules" in graph["yueqing"]
    assert "yueqing" not in graph["rules"]
    assert find_cycle(graph) is None


def test_the_check_finds_a_cycle():
    assert find_cycle({"rules": {"yueqing"}, "yueqing": {"rules"}}) == ["rules", "yueqing", "rules"]


def test_each_module_imports_first_on_its_own():
    for name in ("rules", "yueqing", "scoring", "service"):
        p = subprocess.run([sys.executable, "-c", f"import engine.{name}"], capture_output=True, text=True,
                           cwd=ENGINE.parent)
        assert p.returncode == 0, p.stderr

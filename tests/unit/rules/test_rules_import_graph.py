"""The rules package imports in one direction: no module depends on one that depends back on it.

Module-level imports may form no cycle at all. Counting the imports inside functions too (a lazy
import is still a dependency), the service and what it calls (learner, retraction, selection and
checking) form none either. Imports under `if TYPE_CHECKING:` never run and are left out.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import heedful.rules

PACKAGE = "heedful.rules"
ROOT = Path(heedful.rules.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PACKAGE, *parts))


def _type_checking_only(tree: ast.Module) -> set[int]:
    """Line numbers of the statements inside `if TYPE_CHECKING:` blocks."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def _imports(path: Path, modules: set[str], lazy: bool) -> set[str]:
    """The modules of the package that `path` imports (a package import counts as its `__init__`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_only(tree)
    found: set[str] = set()
    for node in ast.walk(tree) if lazy else _module_level(tree):
        if getattr(node, "lineno", 0) in skipped:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        else:
            continue
        found.update(name for name in names if name in modules)
    return found


def _module_level(tree: ast.Module) -> list[ast.stmt]:
    """Statements that run on import: the module body, and the bodies of its `if`/`try` blocks."""
    out: list[ast.stmt] = []
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        out.append(node)
        if isinstance(node, ast.If | ast.Try):
            pending.extend(node.body)
            pending.extend(node.orelse)
            if isinstance(node, ast.Try):
                pending.extend(node.finalbody)
                for handler in node.handlers:
                    pending.extend(handler.body)
    return out


def graph(lazy: bool = False) -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in ROOT.rglob("*.py")}
    modules = set(paths)
    # A module's own packages load before it whatever it imports: an edge to one of them is no cycle.
    return {
        name: {other for other in _imports(path, modules, lazy) if not name.startswith(other + ".")} - {name}
        for name, path in paths.items()
    }


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected set of more than one module (Tarjan), as sorted lists."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_rules_package_has_no_import_cycle() -> None:
    edges = graph()
    assert "heedful.rules.learn" in edges and edges["heedful.rules.service"]
    assert cycles(edges) == []


SERVICE = {
    "heedful.rules.service",
    "heedful.rules.service_checks",
    "heedful.rules.learn",
    "heedful.rules.retraction",
    "heedful.rules.parts",
    "heedful.rules.library",
    "heedful.rules.importer",
}


def test_the_service_and_what_it_calls_have_no_cycle_even_through_lazy_imports() -> None:
    edges = graph(lazy=True)
    assert "heedful.rules.learn" in edges["heedful.rules.service"]
    assert [group for group in cycles(edges) if set(group) & SERVICE] == []


def test_the_learner_imports_on_its_own() -> None:
    for module in ("heedful.rules.learn", "heedful.rules.service_checks", "heedful.rules.retraction"):
        done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr

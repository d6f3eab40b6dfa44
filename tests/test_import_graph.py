"""The import graph of ``src/rhineland``: no module imports, at run time, a module that
imports it back (directly or round a circle), counting imports inside functions.

Imports for type annotations only (under ``if TYPE_CHECKING:``) may still form
circles where a rule module names ``Game`` or a round class in its signatures; those
circles may only shrink: each must lie within one of :data:`TYPE_ONLY_CIRCLES`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"

TYPE_ONLY_CIRCLES: tuple[frozenset[str], ...] = (
    frozenset({
        "engine.emergency", "engine.game", "engine.legal", "engine.legal.generate",
        "engine.rounds.base", "engine.rounds.operating", "engine.rounds.operating_steps",
        "engine.rounds.stock", "engine.rounds.stock_steps", "engine.rounds.turns",
        "engine.rules_operating", "engine.rules_stock", "engine.rules_trains",
        "engine.steps", "engine.title"}),
)
"""Circles of annotation-only imports left (module names under ``rhineland.``)."""


def modules(src: Path = SRC) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the ``rhineland`` package."""
    out: dict[str, Path] = {}
    for path in (src / "rhineland").rglob("*.py"):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports(name: str, tree: ast.Module, known: Iterable[str], *,
            type_only: bool) -> set[str]:
    """The modules of ``known`` that module ``name`` (parsed as ``tree``) imports;
    with ``type_only`` false, those under ``if TYPE_CHECKING:`` are left out.
    ``from package import module`` counts as an import of that module only."""
    known = set(known)
    package = name if tree_is_package(name, known) else name.rsplit(".", 1)[0]
    found: set[str] = set()

    def visit(body: Iterable[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If) and _is_type_checking(node):
                if type_only:
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name in known)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    parts = parts[: len(parts) - (node.level - 1)]
                    base = ".".join(parts + ([node.module] if node.module else []))
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    target = sub if sub in known else base
                    if target in known:
                        found.add(target)
            else:
                for field in ("body", "orelse", "finalbody"):
                    inner = getattr(node, field, None)
                    if isinstance(inner, list):
                        visit(n for n in inner if isinstance(n, ast.stmt))
                for handler in getattr(node, "handlers", ()):
                    visit(handler.body)

    visit(tree.body)
    found.discard(name)
    return found


def tree_is_package(name: str, known: set[str]) -> bool:
    """Whether ``name`` is a package (some known module lies under it)."""
    return any(m.startswith(name + ".") for m in known)


def graph(*, type_only: bool, src: Path = SRC) -> dict[str, set[str]]:
    """Module -> the modules it imports (at run time, or also for annotations)."""
    mods = modules(src)
    return {name: imports(name, ast.parse(path.read_text()), mods, type_only=type_only)
            for name, path in mods.items()}


def circles(edges: Mapping[str, Iterable[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm,
    iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []
    counter = 0
    for root in edges:
        if root in index:
            continue
        work: list[tuple[str, list[str]]] = [(root, sorted(edges[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(edges.get(nxt, ()))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    comp.add(member)
                    if member == node:
                        break
                if len(comp) > 1:
                    out.append(frozenset(comp))
    return out


def _short(names: Iterable[str]) -> list[str]:
    return sorted(n.removeprefix("rhineland.") for n in names)


def test_the_circle_finder_finds_circles_and_nothing_else() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"d"}, "f": {"f"}}
    assert circles(edges) == [frozenset({"a", "b", "c"})]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_imports_skip_type_checking_blocks_but_count_imports_in_functions() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from rhineland.x import X\n"
        "def f():\n    from rhineland.y import g\n"
        "from rhineland import z\n")
    known = {"rhineland", "rhineland.x", "rhineland.y", "rhineland.z", "rhineland.w"}
    assert imports("rhineland.w", tree, known, type_only=False) == {
        "rhineland.y", "rhineland.z"}
    assert imports("rhineland.w", tree, known, type_only=True) == {
        "rhineland.x", "rhineland.y", "rhineland.z"}


def test_no_module_imports_itself_round_a_circle_at_run_time() -> None:
    found = circles(graph(type_only=False))
    assert not found, "import circles: " + "; ".join(" <-> ".join(_short(c)) for c in found)


def test_annotation_only_circles_only_shrink() -> None:
    allowed = [frozenset(f"rhineland.{m}" for m in c) for c in TYPE_ONLY_CIRCLES]
    for comp in circles(graph(type_only=True)):
        assert any(comp <= group for group in allowed), (
            "a new circle of type-only imports: " + " <-> ".join(_short(comp)))

"""docs/rules-index.md names only code and tests that exist.

The index lists, per rule of the seeds, its modules (paths under ``src/rhineland/``
with the names defined there) and its tests (``tests/<file>.py::<test function>``).
Each name is looked up in the file's syntax tree (``ast``; nothing is imported), so a
renamed or moved function, class, test or file fails this test until the index follows.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "rhineland"
INDEX = ROOT / "docs" / "rules-index.md"

SECTIONS = {"18Rhl": 30, "1893: Cologne": 25, "Shared rules (both titles)": 8}
"""Section heading -> the least number of rules it must list."""

SPAN = re.compile(r"`([^`]+)`")
TEST_REF = re.compile(r"^(tests/[\w/]+\.py)::(test_\w+)$")
DOTTED = re.compile(r"^[A-Z]\w*\.\w+$")


@dataclass(frozen=True)
class Row:
    section: str
    rule: str
    modules: str
    tests: str
    notes: str


def parse(text: str) -> list[Row]:
    """The rows of every table in ``text``, with the ``## `` heading above them."""
    rows: list[Row] = []
    section = ""
    for line in text.splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
            continue
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == "Rule" or set(cells[0]) <= {"-"}:
            continue  # the header and its separator
        assert len(cells) == 4, f"{section}: a row of {len(cells)} cells: {line}"
        rows.append(Row(section, *cells))
    return rows


@functools.cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _targets(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


@functools.cache
def defined_names(path: Path) -> frozenset[str]:
    """Top-level functions, classes and assignments of ``path``, and ``Class.member`` for
    the methods and attributes defined in each top-level class's body."""
    out: set[str] = set()
    for node in _tree(path).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        out.update(_targets(node))
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    out.add(f"{node.name}.{member.name}")
                out.update(f"{node.name}.{t}" for t in _targets(member))
    return frozenset(out)


@functools.cache
def defined_tests(path: Path) -> frozenset[str]:
    """Every ``test_*`` function of ``path`` (module level or in a class)."""
    return frozenset(
        n.name for n in ast.walk(_tree(path))
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test_")
    )


@functools.cache
def _json(path: Path) -> object:
    return json.loads(path.read_text(encoding="utf-8"))


def _json_has(path: Path, key: str) -> bool:
    node = _json(path)
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


@functools.cache
def _classes() -> frozenset[str]:
    """``Class.member`` of every module under ``src/rhineland``."""
    return frozenset(
        name for p in SRC.rglob("*.py") for name in defined_names(p) if "." in name
    )


@functools.cache
def _repo_files() -> tuple[str, ...]:
    return tuple(
        p.relative_to(ROOT).as_posix()
        for d in (SRC, ROOT / "tests", ROOT / "docs") for p in d.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )


def _leftover(cell: str, allowed: str) -> str:
    """What ``cell`` holds outside its code spans besides the ``allowed`` separators."""
    return "".join(ch for ch in SPAN.sub("", cell) if ch not in allowed and not ch.isspace())


def _cell_spans(where: str, cell: str, column: str, separators: str,
                missing: str) -> tuple[list[str], list[str]]:
    """The code spans of a cell, and its errors: none at all (``missing``), or text
    outside them besides the ``separators``."""
    errors: list[str] = []
    spans = SPAN.findall(cell)
    if not spans:
        errors.append(f"{where}: {missing}")
    if _leftover(cell, separators):
        errors.append(f"{where}: text outside code spans in the {column} cell: {cell}")
    return spans, errors


def check_modules(row: Row) -> list[str]:
    """Every path of the Modules cell is a file under ``src/rhineland`` and every name
    after it is defined there (a ``.json`` file: a dotted key of it)."""
    where = f"{row.section} / {row.rule}"
    spans, errors = _cell_spans(where, row.modules, "Modules", ":;,", "no module named")
    current: Path | None = None
    for span in spans:
        if span.endswith((".py", ".json")):
            current = SRC / span
            if not current.is_file():
                errors.append(f"{where}: no file src/rhineland/{span}")
                current = None
            continue
        if current is None:
            errors.append(f"{where}: {span!r} follows no existing module path")
        elif current.suffix == ".json":
            if not _json_has(current, span):
                errors.append(f"{where}: no key {span!r} in {current.relative_to(ROOT)}")
        elif span not in defined_names(current):
            errors.append(f"{where}: {span!r} is not defined in {current.relative_to(ROOT)}")
    return errors


def check_tests(row: Row) -> list[str]:
    """Every test of the Tests cell exists; "none" only with a note saying so."""
    where = f"{row.section} / {row.rule}"
    if row.tests == "none":
        note = row.notes.lower()
        if "no test" not in note and "no focused test" not in note:
            return [f"{where}: no test, and the Notes do not say so"]
        return []
    spans, errors = _cell_spans(where, row.tests, "Tests", ";,",
                                "no test named (write 'none' and say so in the Notes)")
    for span in spans:
        m = TEST_REF.match(span)
        if m is None:
            errors.append(f"{where}: {span!r} is not tests/<file>.py::<test function>")
            continue
        path = ROOT / m.group(1)
        if not path.is_file():
            errors.append(f"{where}: no test file {m.group(1)}")
        elif m.group(2) not in defined_tests(path):
            errors.append(f"{where}: no test {m.group(2)} in {m.group(1)}")
    return errors


def check_notes(row: Row) -> list[str]:
    """Paths named in the Notes exist (a file of the repository ending so), and so does
    each ``Class.member`` named there (in some module under ``src/rhineland``)."""
    where = f"{row.section} / {row.rule}"
    errors: list[str] = []
    for span in SPAN.findall(row.notes):
        if "::" in span:
            m = TEST_REF.match(span)
            if m is None or not (ROOT / m.group(1)).is_file() or (
                m.group(2) not in defined_tests(ROOT / m.group(1))
            ):
                errors.append(f"{where}: the Notes name a missing test {span!r}")
        elif span.endswith((".py", ".json", ".md")):
            if not any(f == span or f.endswith("/" + span) for f in _repo_files()):
                errors.append(f"{where}: the Notes name a missing file {span!r}")
        elif DOTTED.match(span) and span not in _classes():
            errors.append(f"{where}: the Notes name {span!r}, defined nowhere")
    return errors


def check(text: str) -> list[str]:
    """Every error of the index ``text``."""
    errors: list[str] = []
    for row in parse(text):
        errors += check_modules(row) + check_tests(row) + check_notes(row)
    return errors


def test_the_index_lists_every_section_with_its_rules() -> None:
    rows = parse(INDEX.read_text(encoding="utf-8"))
    for section, least in SECTIONS.items():
        rules = [r.rule for r in rows if r.section == section]
        assert len(rules) >= least, f"{section}: {len(rules)} rules, expected {least} or more"
        assert len(rules) == len(set(rules)), f"{section}: a rule listed twice"


def test_every_module_name_and_test_named_in_the_index_exists() -> None:
    errors = check(INDEX.read_text(encoding="utf-8"))
    assert not errors, "\n".join(errors)


def test_the_check_catches_a_misspelt_name() -> None:
    """The check itself refuses what is wrong (an index given here, not the file)."""
    bad = "\n".join([
        "## 18Rhl",
        "| Rule | Modules | Tests | Notes |",
        "|---|---|---|---|",
        "| Montan | `titles/g18rhl/revenue.py`: `RhlRevenue.bonusses` "
        "| `tests/test_routes_rules.py::test_montan_is_30_before_phase_5` | |",
        "| Float | `titles/g18rhl/rulez.py`: `Rhl.float_percent` "
        "| `tests/test_rules_18rhl.py::test_keg_sells_its_two_double_certificates_first_and_"
        "floats_at_60_with_6_par` | see `Rhl.flaot_percent` |",
        "| Trajekt | titles/g18rhl/revenue.py | none | |",
    ])
    errors = check(bad)
    assert any("'RhlRevenue.bonusses' is not defined" in e for e in errors)
    assert any("no test test_montan_is_30_before_phase_5" in e for e in errors)
    assert any("no file src/rhineland/titles/g18rhl/rulez.py" in e for e in errors)
    assert any("'Rhl.float_percent' follows no existing module path" in e for e in errors)
    assert any("'Rhl.flaot_percent', defined nowhere" in e for e in errors)
    assert any("Trajekt: no module named" in e for e in errors)
    assert any("Trajekt: no test, and the Notes do not say so" in e for e in errors)
    good = [*bad.splitlines()[:3],
            "| Montan | `titles/g18rhl/revenue.py`: `RhlRevenue.bonuses` "
            "| `tests/test_routes_rules.py::test_montan_is_20_before_phase_5` | |"]
    assert check("\n".join(good)) == []

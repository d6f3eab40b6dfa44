"""The optional native build (rhineland.native): when the compiled modules are used, and
that they behave as their sources.

The guard's decisions are checked on a fake package tree (no compiler needed); the
build itself compiles a copy of the package with mypyc (skipped without a C compiler)
and compares a native and a pure process: env runs of both titles (every mask and
observation of 1,500 steps, walks, lays and route searches included) and real games
replayed to their end.
"""

from __future__ import annotations

import copy
import importlib.machinery
import importlib.util
import os
import pickle
import shutil
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from play import random_positions
from reference import SHARED, needs_shared
from rhineland import native

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]
SRC = Path(native.__file__).resolve().parent.parent


def fake_tree(root: Path) -> None:
    """Sources of the native modules (copies) and empty files where compiled ones go."""
    for m in native.MODULES:
        src = native.source_path(m, root)
        src.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(native.source_path(m, SRC), src)
        src.with_name(src.stem + SUFFIX).write_bytes(b"")
    native.shared_lib(root).write_bytes(b"")
    dependency = root / "rhineland" / "board" / "hexgrid.py"
    shutil.copy(SRC / "rhineland" / "board" / "hexgrid.py", dependency)


def write_manifest(root: Path) -> None:
    """The manifest of the tree as it stands (as a build writes it)."""
    sources = native.source_digests(root)
    (root / "rhineland" / native.MANIFEST).write_bytes(orjson.dumps({"sources": sources}))


@pytest.fixture
def meta_path() -> Iterator[list[object]]:
    """``sys.meta_path`` as it was (the suite's own guard included), restored after."""
    before = list(sys.meta_path)
    yield before
    sys.meta_path[:] = before


def without_guard_finders() -> None:
    """Take the suite's own source finder off ``sys.meta_path`` (the fixture puts it back),
    so that :func:`native.install` under test adds its own."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, native._SourceFinder)]


@pytest.fixture
def built_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake tree with a current build (:func:`fake_tree`, :func:`write_manifest`), no
    ``RHINELAND_PURE``."""
    monkeypatch.delenv(native.PURE_ENV, raising=False)
    fake_tree(tmp_path)
    write_manifest(tmp_path)
    return tmp_path


def added_finders(before: list[object]) -> list[native._SourceFinder]:
    """The guard's source finders put on ``sys.meta_path`` since ``before``."""
    return [f for f in sys.meta_path
            if isinstance(f, native._SourceFinder) and f not in before]


def test_no_build_means_the_sources(tmp_path: Path, meta_path: list[object]) -> None:
    for m in native.MODULES:
        src = native.source_path(m, tmp_path)
        src.parent.mkdir(parents=True, exist_ok=True)
        src.write_text("")
    assert not native.built(tmp_path)
    assert native.stale_modules(tmp_path) == list(native.MODULES)
    assert native.install(tmp_path) is False
    assert added_finders(meta_path) == []


def test_a_current_build_is_used(built_tree: Path, meta_path: list[object]) -> None:
    assert native.built(built_tree)
    assert native.stale_modules(built_tree) == []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert native.install(built_tree) is True
    assert added_finders(meta_path) == []


def test_a_changed_source_makes_every_module_pure(built_tree: Path,
                                                   meta_path: list[object]) -> None:
    tmp_path = built_tree
    changed = native.source_path("rhineland.routes.search.walk", tmp_path)
    changed.write_text(changed.read_text() + "\n# edited after the build\n")
    assert native.stale_modules(tmp_path) == ["rhineland.routes.search.walk"]
    without_guard_finders()
    with pytest.warns(RuntimeWarning, match=r"stale \(rhineland\.routes\.search\.walk changed"):
        assert native.install(tmp_path) is False
    [finder] = added_finders(meta_path)
    assert sys.meta_path[0] is finder
    # all of them from their sources, the unchanged ones too (they call each other)
    for m in native.MODULES:
        spec = finder.find_spec(m, None)
        assert spec is not None and spec.origin == str(native.source_path(m, tmp_path))
    assert finder.find_spec("rhineland.engine.game", None) is None


def test_pure_env_var_wins_over_a_current_build(
    built_tree: Path, monkeypatch: pytest.MonkeyPatch, meta_path: list[object]
) -> None:
    monkeypatch.setenv(native.PURE_ENV, "1")
    without_guard_finders()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert native.install(built_tree) is False
    assert len(added_finders(meta_path)) == 1


def test_clean_removes_the_build(tmp_path: Path) -> None:
    fake_tree(tmp_path)
    write_manifest(tmp_path)
    (tmp_path / f"0123abcd__mypyc{SUFFIX}").write_bytes(b"")
    # a module an earlier build compiled and this one does not: its leftover goes too
    (tmp_path / "rhineland" / "env.py").write_text("")
    (tmp_path / "rhineland" / f"env{SUFFIX}").write_bytes(b"")
    (tmp_path / "rhineland" / f"orphan{SUFFIX}").write_bytes(b"")  # no source: kept
    gone = native.clean(tmp_path)
    assert len(gone) == len(native.MODULES) + 3
    assert not (tmp_path / "rhineland" / f"env{SUFFIX}").exists()
    assert (tmp_path / "rhineland" / f"orphan{SUFFIX}").exists()
    assert (tmp_path / f"0123abcd__mypyc{SUFFIX}").exists()  # another project's, kept
    assert not native.built(tmp_path)
    assert native.read_manifest(tmp_path) is None
    assert all(native.source_path(m, tmp_path).exists() for m in native.MODULES)


def test_an_edited_dependency_makes_the_build_stale(built_tree: Path,
                                                    meta_path: list[object]) -> None:
    # the compiled graph module checks the types of what it imports from hexgrid
    tmp_path = built_tree
    hexgrid = tmp_path / "rhineland" / "board" / "hexgrid.py"
    hexgrid.write_text(hexgrid.read_text().replace(
        "OPPOSITE: tuple[int, ...] = tuple(opposite(e) for e in range(6))",
        "OPPOSITE: list[int] = [opposite(e) for e in range(6)]"))
    assert native.stale_modules(tmp_path) == ["rhineland.board.hexgrid"]
    without_guard_finders()
    with pytest.warns(RuntimeWarning, match=r"stale \(rhineland\.board\.hexgrid changed"):
        assert native.install(tmp_path) is False


def test_a_build_for_another_python_is_no_build(tmp_path: Path) -> None:
    fake_tree(tmp_path)
    for m in native.MODULES:
        native.compiled_paths(m, tmp_path)[0].rename(
            native.source_path(m, tmp_path).with_suffix(".cpython-399-x86_64-linux-gnu.so"))
    native.shared_lib(tmp_path).unlink()
    write_manifest(tmp_path)
    assert not native.built(tmp_path)
    assert len(native.clean(tmp_path)) == len(native.MODULES) + 1  # still removed by clean


def test_a_build_without_mypyc_keeps_the_earlier_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_tree(tmp_path)
    write_manifest(tmp_path)
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "mypyc" else real(name, *a))
    with pytest.raises(native.NativeBuildError, match="mypyc is not installed"):
        native.build(tmp_path)
    assert native.stale_modules(tmp_path) == []


@pytest.mark.parametrize(("value", "pure"), [("1", True), ("yes", True), ("0", False),
                                             ("", False), ("false", False)])
def test_pure_env_values(monkeypatch: pytest.MonkeyPatch, value: str, pure: bool) -> None:
    monkeypatch.setenv(native.PURE_ENV, value)
    assert native.pure_requested() is pure


def probe(root: Path, pure: bool, exports: list[str]) -> dict[str, object]:
    """Run tests/native_probe.py with ``root`` first on the path."""
    env = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    env["PYTHONPATH"] = str(root)
    if pure:
        env[native.PURE_ENV] = "1"
    done = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning",
         str(Path(__file__).with_name("native_probe.py")), *exports],
        env=env, capture_output=True, text=True, check=True,
    )
    return dict(orjson.loads(done.stdout.strip().splitlines()[-1]))


@needs_shared
@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                    reason="no C compiler for mypyc")
@pytest.mark.skipif(importlib.util.find_spec("mypyc") is None, reason="mypyc not installed")
def test_native_build_behaves_as_its_sources(tmp_path: Path) -> None:
    shutil.copytree(SRC / "rhineland", tmp_path / "rhineland",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", native.MANIFEST))
    compiled = native.build(tmp_path)
    assert len(compiled) == len(native.MODULES) + 1  # and the shared library
    assert native.stale_modules(tmp_path) == []
    exports = [str(SHARED / "fixtures" / "18Rhl" / "18Rhl_end_bank.json"),
               str(SHARED / "fixtures" / "1893" / "1893_end_bank.json")]
    fast = probe(tmp_path, False, exports)
    slow = probe(tmp_path, True, exports)
    assert fast.pop("active") is True
    assert slow.pop("active") is False
    assert fast == slow
    assert fast["cycles"] == 0  # compiled closures leave no cycles either (mypyc's env objects)
    assert len(fast) == 5
    for export in exports:  # the copies of a game have its state
        assert len(set(fast[export])) == 1  # type: ignore[arg-type]


def test_a_board_copies_without_its_route_cache() -> None:
    """A board deep-copied or pickled leaves its route cache behind (rebuilt on demand; in
    the native build it holds compiled objects, which do not copy)."""
    game = next(random_positions("1893", 2, 1))
    board = game.board
    board.route_cache = object()
    for copied in (copy.deepcopy(board), pickle.loads(pickle.dumps(board))):
        assert copied.route_cache is None
        assert copied.version == board.version
        assert copied.tiles == board.tiles and copied.tokens == board.tokens
        assert copied.supply == board.supply and copied.spec == board.spec

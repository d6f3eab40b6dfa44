"""The optional native build: the hottest modules compiled with mypyc, from the same sources.

The engine is pure Python and stays so by default.  ``rhineland native build`` (or
:func:`build`) compiles :data:`MODULES` -- the network walk, the tile-lay checks and
the best-route search, most of a random game's time -- with `mypyc
<https://mypyc.readthedocs.io>`_ (part of mypy; a C compiler and the Python headers are
needed) into extension modules beside their sources, and writes a manifest
(``rhineland/_native.json``: the SHA-256 of each compiled source).  Python then imports
the compiled modules instead of the sources; they behave the same (the type annotations
are checked at run time as well) and run the env and self-play about 15% faster.

At ``import rhineland`` (:func:`install`, its answer kept in :data:`USING_NATIVE`), the
compiled modules are used only while every compiled source still matches the manifest and
``RHINELAND_PURE`` is not set in the environment; otherwise all of them are imported from
their sources (with one warning when a build is present but stale): the compiled modules
call each other directly, so it is all of them or none.  ``rhineland native clean``
removes the build.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

MODULES: tuple[str, ...] = (
    "rhineland.board.graph",
    "rhineland.board.legality.tile_lays",
    "rhineland.routes.graph",
    "rhineland.routes.search",
    "rhineland.routes.search_model",
)
"""The modules the native build compiles (one mypyc group: they call each other natively)."""

MANIFEST = "_native.json"
"""The build's manifest, in the ``rhineland`` package directory."""

PURE_ENV = "RHINELAND_PURE"
"""Set (to anything but empty) to import the sources even where a current build exists."""

_ROOT = Path(__file__).resolve().parent.parent


class NativeBuildError(RuntimeError):
    """The native build failed (no mypyc, no C compiler, a compile error); the message
    holds the compiler's last lines.  The sources are left as they were."""


def source_path(module: str, root: Path = _ROOT) -> Path:
    """The ``.py`` file of ``module`` under ``root`` (the directory holding ``rhineland``)."""
    return root.joinpath(*module.split(".")).with_suffix(".py")


def compiled_paths(module: str, root: Path = _ROOT) -> list[Path]:
    """The extension-module files of ``module`` present beside its source (any ABI tag)."""
    src = source_path(module, root)
    return sorted(p for p in src.parent.glob(src.stem + ".*")
                  if any(p.name.endswith(s) for s in importlib.machinery.EXTENSION_SUFFIXES))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_manifest(root: Path = _ROOT) -> dict[str, str] | None:
    """The manifest's ``module -> SHA-256 of its source`` (None: no build, or unreadable)."""
    try:
        data = json.loads((root / "rhineland" / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    sources = data.get("sources") if isinstance(data, dict) else None
    if not isinstance(sources, dict):
        return None
    return {str(k): str(v) for k, v in sources.items()}


def stale_modules(root: Path = _ROOT) -> list[str]:
    """The modules whose compiled build is missing or no longer matches its source (all
    of :data:`MODULES` when there is no manifest); ``[]``: the build is current."""
    manifest = read_manifest(root) or {}
    return [m for m in MODULES
            if not compiled_paths(m, root) or manifest.get(m) != _digest(source_path(m, root))]


def built(root: Path = _ROOT) -> bool:
    """Whether any compiled module is present (current or not)."""
    return any(compiled_paths(m, root) for m in MODULES)


def active() -> bool:
    """Whether this process runs the compiled modules (``rhineland`` imported first)."""
    module = sys.modules.get(MODULES[0])
    return module is not None and not str(getattr(module, "__file__", "")).endswith(".py")


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds :data:`MODULES` as their ``.py`` sources, ahead of the compiled files."""

    def __init__(self, root: Path) -> None:
        self.sources = {m: source_path(m, root) for m in MODULES}

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        """The source's spec for one of :data:`MODULES`, else None (the usual finders)."""
        src = self.sources.get(fullname)
        if src is None:
            return None
        return importlib.util.spec_from_file_location(fullname, src)


def install(root: Path = _ROOT) -> bool:
    """Decide, before any of :data:`MODULES` is imported, whether the compiled ones are
    used: returns True when they are (a current build, ``RHINELAND_PURE`` unset); else
    puts a finder first on ``sys.meta_path`` that imports them all from their sources
    (warning once when the build is stale).  Called when this module is imported, by
    ``rhineland/__init__`` first of all."""
    if not built(root):
        return False
    pure = bool(os.environ.get(PURE_ENV))
    stale = [] if pure else stale_modules(root)
    if pure or stale:
        if stale:
            warnings.warn(
                f"rhineland: the native build is stale ({', '.join(stale)} changed since "
                "it was compiled); running the pure-Python sources: run "
                "`rhineland native build` again, or `rhineland native clean`",
                RuntimeWarning, stacklevel=2)
        if not any(isinstance(f, _SourceFinder) for f in sys.meta_path):
            sys.meta_path.insert(0, _SourceFinder(root))
        return False
    return True


def clean(root: Path = _ROOT) -> list[Path]:
    """Remove the native build under ``root``: the compiled modules, their shared library
    and the manifest.  Returns the files removed."""
    gone: list[Path] = []
    for m in MODULES:
        gone += compiled_paths(m, root)
    gone += sorted(p for p in root.glob("*__mypyc.*")
                   if any(p.name.endswith(s) for s in importlib.machinery.EXTENSION_SUFFIXES))
    manifest = root / "rhineland" / MANIFEST
    if manifest.exists():
        gone.append(manifest)
    for p in gone:
        p.unlink()
    return gone


def build(root: Path = _ROOT, *, quiet: bool = True) -> list[Path]:
    """Compile :data:`MODULES` under ``root`` with mypyc, in place, and write the manifest.

    Replaces an earlier build.  Takes about a minute (one C compilation).  Returns the
    compiled files.  Raises :class:`NativeBuildError` when mypyc is missing or the
    compilation fails (the earlier build is removed then: the sources are used)."""
    import shutil
    import subprocess

    clean(root)
    if importlib.util.find_spec("mypyc") is None:
        raise NativeBuildError("mypyc is not installed: pip install 'rhineland[native]'")
    files = [str(source_path(m, root).relative_to(root)) for m in MODULES]
    work = root / "build"
    existed = work.exists()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "mypyc", *files], cwd=root, capture_output=quiet,
            text=True, check=False,
        )
    finally:
        if not existed:
            shutil.rmtree(work, ignore_errors=True)
    if done.returncode != 0:
        clean(root)
        tail = "\n".join(((done.stdout or "") + (done.stderr or "")).splitlines()[-8:])
        raise NativeBuildError(f"mypyc failed (exit {done.returncode}): {tail}")
    manifest = {"python": f"{sys.version_info.major}.{sys.version_info.minor}",
                "sources": {m: _digest(source_path(m, root)) for m in MODULES}}
    (root / "rhineland" / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    out = [p for m in MODULES for p in compiled_paths(m, root)]
    if len(out) < len(MODULES):
        clean(root)
        raise NativeBuildError("mypyc ran but did not leave every compiled module")
    return out


USING_NATIVE = install()
"""Whether the compiled modules are to be used in this process (decided on the first
``import rhineland``, before they are imported)."""

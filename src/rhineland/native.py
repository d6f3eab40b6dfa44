"""The optional native build: the hottest modules compiled with mypyc, from the same sources.

The engine is pure Python and stays so by default.  ``rhineland native build`` (or
:func:`build`) compiles :data:`MODULES` -- the network walk and the tile geometry it
reads, the tile-lay checks, the best-route search (a large part of a 1893 game's time),
the legal-action generator with its trials and the observation encoder -- with `mypyc
<https://mypyc.readthedocs.io>`_ (part of mypy; a C compiler and the Python headers are
needed) into extension modules beside their sources, and writes a manifest
(``rhineland/_native.json``: the SHA-256 of every source of the package).  Python then
imports the compiled modules instead of the sources; they behave the same (the type
annotations are checked at run time as well) and take about two thirds of the sources'
time for the best routes and the legal actions of the real games, 75-100% of it for a
replay or an env step (``bench/native_ratio.py``).

At ``import rhineland`` (:func:`install`, its answer kept in :data:`USING_NATIVE`), the
compiled modules are used only while every source of the package still matches the
manifest and ``RHINELAND_PURE`` does not ask for the sources (:func:`pure_requested`);
otherwise all of them are imported from
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
import shutil
import sys
import warnings
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

MODULES: tuple[str, ...] = (
    "rhineland.board.graph",
    "rhineland.board.upgrades",
    "rhineland.board.legality.tile_lays",
    "rhineland.routes.graph",
    "rhineland.routes.search.result",
    "rhineland.routes.search.candidate",
    "rhineland.routes.search.budget",
    "rhineland.routes.search.bounds",
    "rhineland.routes.search.walk",
    "rhineland.routes.search.lists",
    "rhineland.routes.search.index",
    "rhineland.routes.search.level_bounds",
    "rhineland.routes.search.branch_and_bound",
    "rhineland.routes.search.run",
    "rhineland.routes.search_model",
    "rhineland.engine.legal.generate",
    "rhineland.engine.legal.trial",
    "rhineland.rl.observation",
)
"""The modules the native build compiles (one mypyc group: they call each other natively):
the walks, the tile geometry they read (compiled, its fields are read without a lookup by
name), lay checks and route search (every module of the ``routes.search`` package but its
``__init__``, which only re-exports), and the legal-action generator, its trials and the
observation encoder (every env step runs them)."""

MANIFEST = "_native.json"
"""The build's manifest, in the ``rhineland`` package directory."""

GROUP = "rhineland._native"
"""The mypyc group: its shared library is ``rhineland/_native__mypyc<suffix>``, inside the
package (a top-level name would sit among other projects' files in ``site-packages``)."""

PURE_ENV = "RHINELAND_PURE"
"""Set (to anything but empty or ``0``) to import the sources even where a current build
exists."""

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]
"""This interpreter's own extension suffix (with its ABI tag): a build for another Python
is no build here."""

_ROOT = Path(__file__).resolve().parent.parent

_SETUP = """from setuptools import setup
from mypyc.build import mypycify

setup(name="rhineland-native", script_args=["build_ext", "--inplace"],
      ext_modules=mypycify({files!r}, group_name={group!r}))
"""


class NativeBuildError(RuntimeError):
    """The native build failed (no mypyc, no C compiler, a compile error); the message
    holds the compiler's last lines.  An earlier build is left as it was."""


def source_path(module: str, root: Path = _ROOT) -> Path:
    """The ``.py`` file of ``module`` under ``root`` (the directory holding ``rhineland``)."""
    return root.joinpath(*module.split(".")).with_suffix(".py")


def compiled_paths(module: str, root: Path = _ROOT) -> list[Path]:
    """The extension-module file of ``module`` for this interpreter, if present."""
    src = source_path(module, root)
    path = src.with_name(src.stem + SUFFIX)
    return [path] if path.exists() else []


def shared_lib(root: Path = _ROOT) -> Path:
    """The build's shared library (the compiled code of all :data:`MODULES`)."""
    *package, name = GROUP.split(".")
    return root.joinpath(*package, f"{name}__mypyc{SUFFIX}")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def source_digests(root: Path = _ROOT) -> dict[str, str]:
    """``module -> SHA-256`` of every source of the package under ``root``: the compiled
    code depends on the types of what it imports, not only on its own sources."""
    out: dict[str, str] = {}
    for path in sorted((root / "rhineland").rglob("*.py")):
        rel = path.relative_to(root).with_suffix("")
        out[".".join(rel.parts)] = _digest(path)
    return out


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
    """What makes the build unusable: compiled modules missing, and modules of the package
    added, removed or changed since the build (all of :data:`MODULES` when there is no
    manifest or no shared library); ``[]``: the build is current."""
    manifest = read_manifest(root)
    if manifest is None or not shared_lib(root).exists():
        return list(MODULES)
    missing = [m for m in MODULES if not compiled_paths(m, root)]
    now = source_digests(root)
    changed = sorted(m for m in now.keys() | manifest.keys() if now.get(m) != manifest.get(m))
    return missing + [m for m in changed if m not in missing]


def built(root: Path = _ROOT) -> bool:
    """Whether any compiled file for this interpreter is present (current or not)."""
    return shared_lib(root).exists() or any(compiled_paths(m, root) for m in MODULES)


def active() -> bool:
    """Whether this process runs the compiled modules (``rhineland`` imported first)."""
    module = sys.modules.get(MODULES[0])
    return module is not None and not str(getattr(module, "__file__", "")).endswith(".py")


def pure_requested() -> bool:
    """Whether ``RHINELAND_PURE`` asks for the sources (set, and not empty or ``0``)."""
    return os.environ.get(PURE_ENV, "").strip().lower() not in ("", "0", "false", "no")


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
    pure = pure_requested()
    stale = [] if pure else stale_modules(root)
    if pure or stale:
        if stale:
            shown = ", ".join(stale[:4]) + (f" and {len(stale) - 4} more" if len(stale) > 4 else "")
            warnings.warn(
                f"rhineland: the native build is stale ({shown} changed since "
                "it was compiled); running the pure-Python sources: run "
                "`rhineland native build` again, or `rhineland native clean`",
                RuntimeWarning, stacklevel=2)
        if not any(isinstance(f, _SourceFinder) for f in sys.meta_path):
            sys.meta_path.insert(0, _SourceFinder(root))
        return False
    return True


def clean(root: Path = _ROOT) -> list[Path]:
    """Remove the native build under ``root``: the compiled modules (any Python's, of
    :data:`MODULES` or of an earlier build's list: an extension module beside its
    ``.py`` source), their shared library and the manifest -- files inside the package
    only.  Returns the files removed."""
    gone: list[Path] = []
    # every compiled module beside its source, also of a module no longer in MODULES (a
    # build's leftover would be imported ahead of its source)
    for p in sorted((root / "rhineland").rglob("*")):
        if p.suffix in (".so", ".pyd") and p.with_name(p.name.split(".")[0] + ".py").exists():
            gone.append(p)
    lib = shared_lib(root)
    gone += sorted(p for p in lib.parent.glob(lib.name.split(".")[0] + ".*")
                   if p.suffix in (".so", ".pyd"))
    manifest = root / "rhineland" / MANIFEST
    if manifest.exists():
        gone.append(manifest)
    for p in gone:
        p.unlink()
    return gone


def _place(src: Path, dst: Path) -> None:
    """Copy ``src`` to ``dst`` by a rename within ``dst``'s directory (a new file: processes
    that loaded the old one keep it; none sees a half-written file)."""
    tmp = dst.with_name(dst.name + ".tmp")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


def build(root: Path = _ROOT, *, quiet: bool = True) -> list[Path]:
    """Compile :data:`MODULES` under ``root`` with mypyc and write the manifest.

    The sources are compiled in a temporary copy of the package (nothing is written
    beside them but the compiled files and the manifest, last); an earlier build is
    replaced only when the compilation succeeded.  Takes about a minute (one C
    compilation).  Returns the compiled files.  Raises :class:`NativeBuildError` when
    mypyc is missing or the compilation fails (an earlier build is left as it was)."""
    import subprocess
    import tempfile

    if importlib.util.find_spec("mypyc") is None:
        raise NativeBuildError("mypyc is not installed: pip install mypy setuptools "
                               "(the 'native' extra of rhineland)")
    files = [str(source_path(m, Path()).as_posix()) for m in MODULES]
    with tempfile.TemporaryDirectory(prefix="rhineland-native-") as tmp:
        work = Path(tmp)
        shutil.copytree(root / "rhineland", work / "rhineland",
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", MANIFEST))
        digests = source_digests(work)
        (work / "setup.py").write_text(_SETUP.format(files=files, group=GROUP))
        done = subprocess.run(
            [sys.executable, "setup.py"], cwd=work, capture_output=quiet, text=True,
            check=False,
        )
        made = [source_path(m, work).with_name(source_path(m, work).stem + SUFFIX)
                for m in MODULES] + [shared_lib(work)]
        if done.returncode != 0 or not all(p.exists() for p in made):
            tail = "\n".join(((done.stdout or "") + (done.stderr or "")).splitlines()[-8:])
            raise NativeBuildError(f"mypyc failed (exit {done.returncode}): {tail}")
        clean(root)
        for p in made:
            _place(p, root / p.relative_to(work))
    manifest = {"python": sys.implementation.cache_tag, "sources": digests}
    path = root / "rhineland" / MANIFEST
    path.with_name(MANIFEST + ".tmp").write_text(json.dumps(manifest, indent=1) + "\n")
    os.replace(path.with_name(MANIFEST + ".tmp"), path)
    return [root / p.relative_to(work) for p in made]


USING_NATIVE = install()
"""Whether the compiled modules are to be used in this process (decided on the first
``import rhineland``, before they are imported)."""

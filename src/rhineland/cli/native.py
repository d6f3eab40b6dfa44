"""``rhineland native``: build, remove or inspect the optional native build
(:mod:`rhineland.native`: the hottest modules compiled with mypyc)."""

from __future__ import annotations

import click

from rhineland import native
from rhineland.cli.errors import fail


@click.group("native", short_help="The optional compiled build of the hottest modules.")
def native_cmd() -> None:
    """The optional native build: the network walk, the tile-lay checks and the
    best-route search compiled with mypyc from the same sources (on the real games,
    best routes and legal actions about 1.5x faster, replays and env steps 0-35%).
    Needs the 'native' extra (mypy, setuptools) and a C compiler.
    Set RHINELAND_PURE=1 to run the sources with a build present."""


@native_cmd.command("build", short_help="Compile the modules (about a minute).")
@click.option("--verbose", is_flag=True, help="Show the compiler's output.")
def build_cmd(verbose: bool) -> None:
    """Compile the modules in place and write the manifest; exit status 2 if it fails
    (the pure-Python sources are used then)."""
    try:
        native.build(quiet=not verbose)
    except native.NativeBuildError as exc:
        fail("bad_argument", str(exc).replace("\n", " | "))
    click.echo(f"built {len(native.MODULES)} compiled modules: {', '.join(native.MODULES)}")
    click.echo("new processes use them (RHINELAND_PURE=1 to run the sources)")


@native_cmd.command("clean", short_help="Remove the compiled modules.")
def clean_cmd() -> None:
    """Remove the compiled modules, their shared library and the manifest."""
    gone = native.clean()
    click.echo(f"removed {len(gone)} files" if gone else "no native build present")


@native_cmd.command("status", short_help="Whether the compiled modules are used.")
def status_cmd() -> None:
    """Say whether a build is present, current, and used by this process."""
    if not native.built():
        click.echo("no native build: the pure-Python sources run")
        return
    stale = native.stale_modules()
    if stale:
        click.echo(f"native build stale ({', '.join(stale)}): the sources run; "
                   "run `rhineland native build` again")
    elif native.active():
        click.echo(f"native build current and in use: {', '.join(native.MODULES)}")
    else:
        click.echo(f"native build current, not in use ({native.PURE_ENV} is set)")

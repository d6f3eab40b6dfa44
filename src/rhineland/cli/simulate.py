"""``rhineland simulate`` and ``rhineland tournament``: many bot games over local processes.

``rhineland simulate TITLE --games N --players K --bots random,greedy [--seed S]
[--jobs J] [--out DIR] [--optional RULE ...] [--mixed-optional] [--rules seed]
[--backend ray]`` plays N games
(seeds S, S+1, ...) with the bots seated in turn (the list repeated to K seats and
rotated by one seat per game), with a progress bar; writes each game's export
to DIR; prints a table (actions and rounds per game, end reason, score spread)
and the games per second.  On an engine error it stops, writes the failing
game's export (to DIR, or the current directory) and exits with status 1.
``--backend ray`` runs each game as a Ray task (local Ray with J CPUs, or the cluster
at ``--ray-address``); Ray is an optional extra, imported only then.

``rhineland tournament TITLE --games N --players K --bots greedy,random ...``
plays the same way and prints each bot's win rate (a tie for first shared) with
its Wilson 95% interval, its average score with a 95% interval, and the margin of
the first bot named over the second (difference of win rates) with a bootstrap 95%
interval.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections import Counter
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from rhineland.bots import make_bot
from rhineland.cli.errors import fail
from rhineland.engine.ruleset import REFERENCE, RULE_SETS
from rhineland.engine.titledata import optional_rules_of
from rhineland.sim.batch import (
    BackendError,
    GameOutcome,
    GameSpec,
    draw_optional_rules,
    run_batch,
    run_batch_ray,
    seat_bots,
)
from rhineland.sim.results import append_result, load_results, spec_key
from rhineland.sim.stats import margin, score_margin, standings
from rhineland.titles import TITLES, canonical_title, get_title

PER_GAME_ROWS = 40
"""Up to this many games the table has a row per game; beyond, a summary only."""


def _check(title: str, players: int, bots: str, optional: tuple[str, ...],
           games: int, jobs: int) -> list[str]:
    """The bot names; exits with a one-line error for a bad argument."""
    if title not in TITLES:
        fail("bad_argument", f"unknown title {title!r} (titles: {', '.join(TITLES)})")
    names = [b.strip() for b in bots.split(",") if b.strip()]
    if not names:
        fail("bad_argument", "--bots: name at least one bot (random, greedy, mcts, mcts:N)")
    for n in names:
        try:
            make_bot(n)
        except ValueError as exc:
            fail("bad_argument", f"--bots: {exc}")
    known = optional_rules_of(TITLES[title].package)
    for rule in optional:
        if rule not in known:
            fail("bad_argument", f"--optional: {title} has no optional rule {rule!r} "
                 f"(rules: {', '.join(known)})")
    if games < 1:
        fail("bad_argument", "--games must be at least 1")
    if jobs < 1:
        fail("bad_argument", "--jobs must be at least 1")
    allowed = sorted(get_title(title).data.players)
    if players not in allowed:
        fail("bad_argument", f"--players: {title} is for "
             f"{', '.join(map(str, allowed))} players, not {players}")
    return names


def _specs(title: str, games: int, players: int, names: list[str], seed: int,
           optional: tuple[str, ...], mixed: bool, out: str | None,
           max_actions: int, rules: str = REFERENCE) -> list[GameSpec]:
    return [
        GameSpec(title, seed + g, seat_bots(names, players, g),
                 draw_optional_rules(title, seed + g) if mixed else optional,
                 max_actions, rules, out, out or ".")
        for g in range(games)
    ]


def _play(specs: list[GameSpec], jobs: int, console: Console, backend: str = "local",
          address: str | None = None, results: Path | None = None
          ) -> tuple[list[GameOutcome], float]:
    """Run the games with a progress bar; the outcomes (in seed order) and the wall time.
    ``backend``: ``"local"`` (processes) or ``"ray"`` (exits with a one-line error when
    Ray is missing or unreachable).  ``results``: each finished game is appended to
    this file as it ends."""
    outcomes: list[GameOutcome] = []
    start = time.perf_counter()
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("games", total=len(specs))
        runs = (run_batch(specs, jobs) if backend == "local"
                else run_batch_ray(specs, jobs, address))
        try:
            for outcome in runs:
                outcomes.append(outcome)
                if results is not None and outcome.error is None:
                    append_result(results, outcome)
                progress.advance(task)
        except BackendError as exc:
            progress.stop()
            fail("bad_argument", f"--backend ray: {exc}")
        except BrokenProcessPool as exc:  # a worker killed (out of memory, a signal)
            progress.stop()
            fail("engine_error", f"a worker process ended abruptly after {len(outcomes)} "
                 f"games: {exc}")
    outcomes.sort(key=lambda o: o.spec.seed)
    return outcomes, time.perf_counter() - start


def _stdout() -> Console:
    """Standard output for the tables; wide enough for a table row when piped."""
    return Console(width=None if sys.stdout.isatty() else 160)


def _stop_on_error(outcomes: list[GameOutcome]) -> None:
    for o in outcomes:
        if o.error is not None:
            error = " ".join(o.error.split())  # one line, whatever the message
            fail("engine_error", f"game {o.spec.title} seed {o.spec.seed} "
                 f"(bots {','.join(o.spec.bots)}, rules {','.join(o.spec.optional_rules) or '-'}) "
                 f"failed after {o.actions} actions: {error}; its export: {o.export_path}")


def _options(f: click.decorators.FC) -> click.decorators.FC:
    for opt in reversed([
        click.argument("title"),
        click.option("--games", "-n", type=int, default=10, show_default=True,
                     help="Number of games."),
        click.option("--players", "-p", type=int, default=3, show_default=True,
                     help="Players per game."),
        click.option("--bots", "-b", default="random", show_default=True,
                     help="Bots, comma separated (random, greedy, mcts, mcts:N), seated in "
                     "turn and rotated by one seat per game."),
        click.option("--seed", "-s", type=int, default=0, show_default=True,
                     help="Seed of the first game (the next games: seed+1, ...)."),
        click.option("--jobs", "-j", type=int, default=1, show_default=True,
                     help="Local processes."),
        click.option("--optional", "optional", multiple=True,
                     help="An optional rule for every game (repeatable)."),
        click.option("--mixed-optional", is_flag=True,
                     help="Draw each game's optional rules from its seed."),
        click.option("--max-actions", type=int, default=6000, show_default=True,
                     help="Stop a game (unfinished) after this many actions."),
        click.option("--rules", "rules", type=click.Choice(RULE_SETS), default=REFERENCE,
                     show_default=True,
                     help="The rule set: reference (18xx.games) or seed (the seed "
                     "summaries)."),
    ]):
        f = opt(f)
    return f


@click.command("simulate", short_help="Play many bot games; exports and a table.")
@_options
@click.option("--out", "-o", type=click.Path(file_okay=False), default=None,
              help="Folder for each game's export.")
@click.option("--check", is_flag=True,
              help="Check the invariants after every action (money conserved, "
              "certificates at 100%, no negative cash) and that each export replays to "
              "the same result; a failure stops like an engine error.")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local",
              show_default=True,
              help="local: --jobs processes here; ray: one Ray task a game (pip install "
              "-e '.[ray]'), on a local Ray with --jobs CPUs or the cluster at --ray-address.")
@click.option("--ray-address", default=None,
              help="Address of a running Ray cluster (e.g. auto, ray://HOST:10001).")
def simulate_cmd(title: str, games: int, players: int, bots: str, seed: int, jobs: int,
                 optional: tuple[str, ...], mixed_optional: bool, max_actions: int,
                 rules: str, out: str | None, check: bool, backend: str,
                 ray_address: str | None) -> None:
    """Play GAMES games of TITLE (18Rhl or 1893) between bots; print a table."""
    title = canonical_title(title)
    names = _check(title, players, bots, optional, games, jobs)
    specs = _specs(title, games, players, names, seed, optional, mixed_optional, out,
                   max_actions, rules)
    if check:
        specs = [dataclasses.replace(s, check=True) for s in specs]
    if out is not None:
        _writable_folder(out)
    console = Console(stderr=True)
    outcomes, wall = _play(specs, jobs, console, backend, ray_address)
    _stop_on_error(outcomes)
    out_console = _stdout()
    if len(outcomes) <= PER_GAME_ROWS:
        table = Table(title=f"{title}: {len(outcomes)} games")
        for col in ("seed", "bots", "rules", "actions", "rounds", "end", "scores", "spread"):
            table.add_column(col, justify="right" if col in ("actions", "rounds", "spread")
                             else "left")
        for o in outcomes:
            table.add_row(str(o.spec.seed), ",".join(o.spec.bots),
                          ",".join(o.spec.optional_rules) or "-", str(o.actions), str(o.rounds),
                          o.end_reason or "unfinished", " ".join(map(str, o.scores)),
                          str(o.spread))
        out_console.print(table)
    _summary(out_console, outcomes, wall, jobs)
    unfinished = sum(1 for o in outcomes if not o.finished)
    if unfinished:
        click.echo(f"error: {unfinished} of {len(outcomes)} games did not end within "
                   f"--max-actions {max_actions}", err=True)
        sys.exit(1)


def _writable_folder(out: str) -> None:
    """Make the ``--out`` folder (and its parents) before any game is played; exits with
    a one-line error (status 2) when it cannot be made or written to."""
    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".rhineland-write-check"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        fail("bad_argument", f"--out: cannot write to {out}: {exc.strerror or exc}")


def _summary(console: Console, outcomes: list[GameOutcome], wall: float, jobs: int) -> None:
    finished = [o for o in outcomes if o.finished]
    reasons = Counter(o.end_reason or "unfinished" for o in outcomes)

    def span(values: list[int]) -> str:
        if not values:
            return "-"
        return f"mean {sum(values) / len(values):.0f}, min {min(values)}, max {max(values)}"

    table = Table(title="summary", show_header=False)
    table.add_row("games", f"{len(outcomes)} ({len(finished)} finished)")
    table.add_row("end reasons", ", ".join(f"{k} {v}" for k, v in reasons.most_common()))
    table.add_row("actions per game", span([o.actions for o in outcomes]))
    table.add_row("rounds per game", span([o.rounds for o in outcomes]))
    table.add_row("score spread (M)", span([o.spread for o in finished]))
    table.add_row("games/s", f"{len(outcomes) / wall:.3f} ({wall:.1f} s wall, {jobs} "
                  f"job{'s' if jobs != 1 else ''}; "
                  f"{sum(o.seconds for o in outcomes) / max(1, len(outcomes)):.2f} s per game)")
    console.print(table)


@click.command("tournament", short_help="Bots against each other: win rates with intervals.")
@_options
@click.option("--results", "results", type=click.Path(dir_okay=False), default=None,
              help="JSON-lines file: each game is appended as it ends; games of this run "
              "already in it are counted, not played again (a stopped run resumes).")
def tournament_cmd(title: str, games: int, players: int, bots: str, seed: int, jobs: int,
                   optional: tuple[str, ...], mixed_optional: bool, max_actions: int,
                   rules: str, results: str | None) -> None:
    """Play GAMES games of TITLE between bots with seats rotated; print each bot's win
    rate (Wilson 95% interval) and average score (95% interval)."""
    title = canonical_title(title)
    names = _check(title, players, bots, optional, games, jobs)
    specs = _specs(title, games, players, names, seed, optional, mixed_optional, None,
                   max_actions, rules)
    console = Console(stderr=True)
    done: list[GameOutcome] = []
    path = Path(results) if results is not None else None
    if path is not None:
        try:
            recorded = {spec_key(o.spec): o for o in load_results(path)}
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a"):  # written as each game ends: refused now, not after one
                pass
        except (OSError, ValueError) as exc:
            fail("bad_argument", f"--results: {exc}")
        done = [recorded[spec_key(s)] for s in specs if spec_key(s) in recorded]
        specs = [s for s in specs if spec_key(s) not in recorded]
        if done:
            console.print(f"{len(done)} games from {path}, {len(specs)} to play")
    outcomes, wall = _play(specs, jobs, console, results=path)
    _stop_on_error(outcomes)
    outcomes = sorted(done + outcomes, key=lambda o: o.spec.seed)
    table = Table(title=f"{title}: {len(outcomes)} games, {players} players, seats rotated")
    for col in ("bot", "seats", "wins", "win rate", "95% CI", "avg score (M)"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for st in sorted(standings(outcomes).values(), key=lambda s: -s.win_rate):
        lo, hi = st.win_ci
        mean, half = st.score
        table.add_row(st.bot, str(st.seats), f"{st.wins:g}", f"{st.win_rate:.1%}",
                      f"{lo:.1%}-{hi:.1%}", f"{mean:.0f} ± {half:.0f}")
    out = _stdout()
    out.print(table)
    distinct = list(dict.fromkeys(names))
    if len(distinct) >= 2:
        m = margin(outcomes, distinct[0], distinct[1], seed=seed)
        if m is not None:
            out.print(f"margin {m.first} over {m.second}: {m.diff:+.1%} win rate "
                      f"(bootstrap 95% CI {m.low:+.1%} to {m.high:+.1%}, games resampled)")
        sm = score_margin(outcomes, distinct[0], distinct[1], seed=seed)
        if sm is not None:
            out.print(f"score margin {sm.first} over {sm.second}: {sm.diff:+.0f}M a seat "
                      f"(bootstrap 95% CI {sm.low:+.0f}M to {sm.high:+.0f}M, games resampled)")
    unfinished = sum(1 for o in outcomes if not o.finished)
    played = len(outcomes) - len(done)
    rate = played / wall if wall > 0 else 0.0
    out.print(f"{rate:.3f} games/s ({played} played now); even odds {1 / players:.1%} a seat"
              + (f"; {unfinished} unfinished (not counted)" if unfinished else ""))

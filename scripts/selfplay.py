"""Self-play at scale: N games per title from ``new_game`` to the end, each checked.

    .venv/bin/python scripts/selfplay.py [--title 18Rhl] [--games 1000] [--jobs 2]
                                         [--seed 0] [--bot random|greedy|mcts:N]
                                         [--json report.json]

Each game draws its player count (18Rhl 3-6, 1893 2-4) and optional rules from its
seed.  With ``--bot random`` (the default) every action is chosen at random among
``legal_actions()`` (:mod:`rhineland.sim.selfplay`); with another bot name
(:func:`rhineland.bots.make_bot`: ``greedy``, ``mcts:N``) that bot sits in every seat
(seat ``i`` seeded ``seed * 1000 + i``) and plays by :func:`rhineland.bots.play_game`.
Checked per game (``--no-check`` skips them):

* the invariants after every action (:mod:`rhineland.sim.invariants`: money conserved,
  certificates at 100%, no negative cash where the rules allow none);
* the game's export (``to_export``) replays to the same end and result, with no
  leniency used.

A game that crashes, breaks an invariant or does not replay is a failure: its export
(the actions up to the failure) and the error are saved in ``--save-dir``.  Prints per
title the games, how they ended (bank broken, bankruptcy, ...), unfinished games (no
end within ``--max-actions``), failures, actions per game, and games per second per
core (games / CPU seconds of the games) besides the wall clock rate.  ``--jobs J``
plays J games at a time in worker processes.  Interrupted (SIGINT, or SIGTERM for a
run in the background), it prints the figures of the games played so far; without a
terminal it notes the games played once a minute on stderr.  Exit status 1 if any game failed.
"""

from __future__ import annotations

import argparse
import random
import signal
import statistics
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import orjson
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from rhineland import Game, replay, to_export
from rhineland.bots import make_bot, play_game
from rhineland.engine.actions import Action
from rhineland.io.export import parse_export
from rhineland.sim.invariants import invariant_errors
from rhineland.sim.selfplay import TITLE_PLAYERS, SelfPlayResult, play, random_setup


class InvariantBroken(Exception):
    """An invariant does not hold after an action."""


@dataclass
class GameReport:
    """One checked game: setup, end, length, CPU seconds, and what failed (if anything)."""

    title: str
    seed: int
    players: int = 0
    optional_rules: tuple[str, ...] = ()
    finished: bool = False
    end_reason: str | None = None
    actions: int = 0
    cpu: float = 0.0
    failure: str | None = None
    saved: str | None = None


def play_bot(title: str, seed: int, bot: str, max_actions: int,
             on_action: Callable[[Game, Action], Any]) -> SelfPlayResult:
    """One game of ``title`` with bot ``bot`` in every seat: the player count and the
    optional rules drawn from ``seed`` as for random self-play
    (:func:`~rhineland.sim.selfplay.random_setup`), the game itself seeded ``seed``.
    The engine's errors are raised as :class:`~rhineland.bots.BotGameError`."""
    if bot == "random":
        return play(title, seed, max_actions=max_actions, on_action=on_action)
    players, opts = random_setup(title, random.Random(seed))
    bots = [make_bot(bot, seed * 1000 + i) for i in range(players)]
    r = play_game(title, bots, seed=seed, optional_rules=opts, max_actions=max_actions,
                  on_action=on_action)
    return SelfPlayResult(r.game, r.finished, r.end_reason, r.actions, r.result)


def run_game(title: str, seed: int, max_actions: int, check: bool,
             save_dir: str, bot: str = "random") -> GameReport:
    """Play and check one game (see the module docstring); never raises."""
    start = time.process_time()
    report = GameReport(title, seed)
    seen: dict[str, Any] = {}

    def after(game: Game, action: Action) -> None:
        if "game" not in seen:
            seen["game"] = game
            seen["money"] = game.data.bank  # all the money there is: the bank's at setup
        if check:
            errors = invariant_errors(game, seen["money"])
            if errors:
                raise InvariantBroken(f"after action {len(game.actions)} ({action.type}): "
                                      + "; ".join(errors))

    try:
        r = play_bot(title, seed, bot, max_actions, after)
        game = r.game
        seen["game"] = game
        report.players = len(game.players)
        report.optional_rules = tuple(game.title.optional_rules)
        report.finished, report.end_reason, report.actions = r.finished, r.end_reason, r.actions
        if check:
            again = replay(parse_export(to_export(game)))
            if again.is_terminal != r.finished or (r.finished and again.result() != r.result):
                raise AssertionError(
                    f"the export replays to {again.result() if again.is_terminal else 'no end'}"
                    f", the game ended with {r.result if r.finished else 'no end'}")
            if again.leniencies_used:
                raise AssertionError(f"the replay used leniencies: {again.leniencies_used}")
    except Exception as exc:
        report.failure = f"{type(exc).__name__}: {exc}"
        game = seen.get("game")
        if game is not None:
            report.players = len(game.players)
            report.optional_rules = tuple(game.title.optional_rules)
            report.actions = len(game.actions)
            path = Path(save_dir) / f"{title}_seed{seed}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(orjson.dumps(to_export(game), option=orjson.OPT_INDENT_2))
            path.with_suffix(".txt").write_text(traceback.format_exc())
            report.saved = str(path)
    report.cpu = time.process_time() - start
    return report


Task = tuple[str, int, int, bool, str, str]
"""A game to play: title, seed, action cap, check, save folder, bot name."""


def _run(task: Task) -> GameReport:
    return run_game(*task)


def reports(tasks: list[Task], jobs: int) -> Iterator[GameReport]:
    """The reports of ``tasks`` as they finish (in this process with one job)."""
    if jobs <= 1:
        for task in tasks:
            yield _run(task)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(_run, tasks, chunksize=1)


def summary(title: str, rows: list[GameReport]) -> list[str]:
    """The printed figures of one title's games."""
    if not rows:
        return [f"{title}: no games played"]
    ends = Counter(r.end_reason or "?" for r in rows if r.finished and not r.failure)
    unfinished = [r.seed for r in rows if not r.finished and not r.failure]
    failed = [r for r in rows if r.failure]
    lengths = [r.actions for r in rows if not r.failure]
    cpu = sum(r.cpu for r in rows)
    out = [f"{title}: {len(rows)} games (seeds {min(r.seed for r in rows)}.."
           f"{max(r.seed for r in rows)})",
           f"  finished {sum(ends.values())} (end: {dict(ends.most_common())}), "
           f"unfinished {len(unfinished)}, failed {len(failed)}"]
    if lengths:
        out.append(f"  actions/game: median {statistics.median(lengths):.0f}, "
                   f"min {min(lengths)}, max {max(lengths)}")
    out.append(f"  {len(rows) / cpu:.3f} games/s per core ({cpu:.0f} CPU s)")
    out.extend(f"  failed: seed {r.seed}: {r.failure} (export: {r.saved})" for r in failed)
    if unfinished:
        out.append(f"  unfinished seeds: {unfinished}")
    return out


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """Play the games and print the figures; exit status 1 if any game failed."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--title", action="append", choices=sorted(TITLE_PLAYERS),
                    help="title to play (repeatable; default: every title)")
    ap.add_argument("--games", type=int, default=10, help="games per title")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first game")
    ap.add_argument("--max-actions", type=int, default=5000)
    ap.add_argument("--jobs", type=int, default=1, help="games played at a time")
    ap.add_argument("--bot", default="random",
                    help="the bot in every seat: random (weighted random self-play), "
                    "greedy, mcts:N")
    ap.add_argument("--no-check", action="store_true",
                    help="skip the invariants and the replay of each export")
    ap.add_argument("--save-dir", default="selfplay_failures",
                    help="where a failed game's export and error go")
    ap.add_argument("--json", type=Path, help="write every game's report to this file")
    args = ap.parse_args(argv)
    titles = args.title or sorted(TITLE_PLAYERS)
    if args.bot != "random":
        try:
            make_bot(args.bot)
        except ValueError as exc:
            ap.error(str(exc))
    # the titles alternate, so that an interrupted run has played each about as often
    tasks = [(t, s, args.max_actions, not args.no_check, args.save_dir, args.bot)
             for s in range(args.seed, args.seed + args.games) for t in titles]
    rows: dict[str, list[GameReport]] = {t: [] for t in titles}
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("failed {task.fields[failed]}"), TimeElapsedColumn())
    signal.signal(signal.SIGTERM, _interrupt)  # a background run is stopped by SIGTERM
    start = last_note = time.perf_counter()
    plain = not sys.stderr.isatty()
    with Progress(*columns, console=None, transient=False, disable=plain) as progress:
        bars = {t: progress.add_task(t, total=args.games, failed=0) for t in titles}
        try:
            for report in reports(tasks, args.jobs):
                rows[report.title].append(report)
                failed = sum(1 for r in rows[report.title] if r.failure)
                progress.update(bars[report.title], advance=1, failed=failed)
                if plain and time.perf_counter() - last_note > 60:  # no bar: a line a minute
                    last_note = time.perf_counter()
                    print(", ".join(f"{t} {len(v)} played, {sum(1 for r in v if r.failure)}"
                                    " failed" for t, v in rows.items()), file=sys.stderr,
                          flush=True)
        except KeyboardInterrupt:  # the figures of the games played so far
            print("interrupted", file=sys.stderr)
    wall = time.perf_counter() - start
    done = sum(len(v) for v in rows.values())
    print(f"bot {args.bot}: {done} of {len(tasks)} games, {args.jobs} job(s), {wall:.0f} s: "
          f"{done / wall:.3f} games/s")
    for t in titles:
        print("\n".join(summary(t, rows[t])))
    if args.json:
        args.json.write_bytes(orjson.dumps([asdict(r) for t in titles for r in rows[t]],
                                           option=orjson.OPT_INDENT_2))
    return 1 if any(r.failure for t in titles for r in rows[t]) else 0


if __name__ == "__main__":
    sys.exit(main())

"""Many bot games, in parallel local processes: what ``rhineland simulate`` and
``rhineland tournament`` run.

A :class:`GameSpec` names one game (title, seed, one bot per seat, optional rules);
:func:`run_game` plays it in the calling process and returns a picklable
:class:`GameOutcome` (writing the export when asked, and always the failing
game's export on an engine error; with ``check``, the invariants after every
action and the export's replay to the same result); :func:`run_batch` runs specs over ``jobs``
processes (``concurrent.futures``) and yields outcomes as they finish, stopping
at the first error; :func:`run_batch_ray` does the same as Ray tasks (the ``ray``
extra, imported only there).
"""

from __future__ import annotations

import concurrent.futures as cf
import random
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from rhineland.bots import BotGameError, make_bot, play_game
from rhineland.engine.actions import Action
from rhineland.engine.game import Game
from rhineland.engine.titledata import optional_rules_of
from rhineland.io.export import parse_export, replay, to_export
from rhineland.sim.invariants import InvariantError, check_invariants, total_money
from rhineland.titles import TITLES


@dataclass(frozen=True)
class GameSpec:
    """One game to play: ``bots[i]`` (a :func:`rhineland.bots.make_bot` name) sits in
    seat ``i`` (player id ``i + 1``); ``rules`` the rule set; ``out_dir`` receives the export
    (``<title>-<seed>.json``) when set; ``failure_dir`` a failing game's export."""

    title: str
    seed: int
    bots: tuple[str, ...]
    optional_rules: tuple[str, ...] = ()
    max_actions: int = 6000
    rules: str = "reference"
    out_dir: str | None = None
    failure_dir: str = "."
    check: bool = False


@dataclass
class GameOutcome:
    """What one game gave: ``scores`` (M) by seat, ``error`` (``None`` when the engine
    raised nothing) and ``export_path`` (the file written, if any); ``seconds`` the
    wall time of the game."""

    spec: GameSpec
    finished: bool = False
    end_reason: str | None = None
    actions: int = 0
    rounds: int = 0
    scores: list[int] = field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None
    export_path: str | None = None

    @property
    def spread(self) -> int:
        """Highest less lowest final score (M); 0 for an unfinished game."""
        return max(self.scores) - min(self.scores) if self.scores else 0

    @property
    def winners(self) -> list[int]:
        """The seats (0-based) with the highest score ([] for an unfinished game)."""
        if not self.scores:
            return []
        top = max(self.scores)
        return [i for i, s in enumerate(self.scores) if s == top]


def _write(path: Path, data: object) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(data))
    return str(path)


def run_game(spec: GameSpec) -> GameOutcome:
    """Play ``spec`` (bot of seat ``i`` seeded ``seed * 1000 + i``).  An exception in
    the engine or a bot is returned as ``error`` (type and message) with the failing
    game's export written to ``failure_dir/<title>-<seed>-failed.json``."""
    start = time.perf_counter()
    bots = [make_bot(name, spec.seed * 1000 + i) for i, name in enumerate(spec.bots)]
    out = GameOutcome(spec)
    money: list[int] = []

    def check(game: Game, action: Action) -> None:
        if not money:
            money.append(total_money(game))
        check_invariants(game, money[0])

    try:
        played = play_game(spec.title, bots, seed=spec.seed,
                           optional_rules=spec.optional_rules, max_actions=spec.max_actions,
                           rules=spec.rules,
                           on_action=check if spec.check else None)
        if spec.check and played.finished:
            _check_replay(played.game, played.result)
    except BotGameError as exc:
        out.error = str(exc)
        out.actions = len(exc.game.actions)
        path = Path(spec.failure_dir) / f"{spec.title}-{spec.seed}-failed.json"
        out.export_path = _write(path, to_export(exc.game))
        out.seconds = time.perf_counter() - start
        return out
    out.finished = played.finished
    out.end_reason = played.end_reason
    out.actions = played.actions
    out.rounds = played.rounds
    out.scores = [played.result[p] for p in sorted(played.result)]
    if spec.out_dir is not None:
        out.export_path = _write(Path(spec.out_dir) / f"{spec.title}-{spec.seed}.json",
                                 to_export(played.game))
    out.seconds = time.perf_counter() - start
    return out


def _check_replay(game: Game, result: dict[int, int]) -> None:
    """Raise :class:`BotGameError` unless ``game``'s export (through JSON text) replays
    to a finished game with ``result``."""
    try:
        again = replay(parse_export(orjson.loads(orjson.dumps(to_export(game)))))
    except Exception as exc:
        raise BotGameError(game, exc) from exc
    if not again.is_terminal or again.result() != result:
        raise BotGameError(game, InvariantError(
            f"the export replays to {again.result()}, not {result}"))


def run_batch(specs: Sequence[GameSpec], jobs: int = 1) -> Iterator[GameOutcome]:
    """Play ``specs`` over ``jobs`` local processes (in this process when ``jobs`` is
    1), yielding each outcome as it finishes; after an outcome with an ``error``
    the games not started are cancelled and no more are yielded."""
    if jobs <= 1:
        for spec in specs:
            outcome = run_game(spec)
            yield outcome
            if outcome.error is not None:
                return
        return
    with cf.ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_game, s) for s in specs]
        try:
            for fut in cf.as_completed(futures):
                outcome = fut.result()
                yield outcome
                if outcome.error is not None:
                    return
        finally:
            for f in futures:
                f.cancel()


class BackendError(Exception):
    """A backend that cannot run here (Ray not installed, no cluster at the address)."""


def run_batch_ray(specs: Sequence[GameSpec], jobs: int = 1,
                  address: str | None = None) -> Iterator[GameOutcome]:
    """Play ``specs`` as Ray tasks (one game a task) and yield each outcome as it
    finishes; stop (cancelling the rest) after an outcome with an ``error``, as
    :func:`run_batch`.  ``address``: a running cluster (``"auto"``, ``"ray://host:10001"``
    ...); without it a local Ray with ``jobs`` CPUs is started (and shut down at the end).
    Ray is imported here only; raises :class:`BackendError` when it is not installed or
    the cluster cannot be reached."""
    try:
        import ray
    except ImportError:
        raise BackendError("the ray backend needs Ray: pip install -e '.[ray]'") from None
    started = False
    if not ray.is_initialized():
        try:
            if address is None:
                ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False,
                         configure_logging=False)
            else:
                ray.init(address=address, log_to_driver=False, configure_logging=False)
        except Exception as exc:  # Ray raises several types (ConnectionError, RuntimeError ...)
            raise BackendError(f"cannot start or reach Ray: {exc}") from None
        started = True
    try:
        task = ray.remote(num_cpus=1)(run_game)
        pending = [task.remote(s) for s in specs]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            outcome: GameOutcome = ray.get(done[0])
            yield outcome
            if outcome.error is not None:
                for ref in pending:
                    ray.cancel(ref)
                return
    finally:
        if started:
            ray.shutdown()


def seat_bots(bots: Sequence[str], players: int, game_index: int) -> tuple[str, ...]:
    """The bots of each seat in game ``game_index``: the list repeated to ``players``
    seats and rotated by the game index, so every bot sits in every seat in turn."""
    return tuple(bots[(i + game_index) % len(bots)] for i in range(players))


def draw_optional_rules(title: str, seed: int, share: float = 0.4) -> tuple[str, ...]:
    """A mix of ``title``'s optional rules drawn from ``seed`` (each with chance
    ``share``)."""
    rng = random.Random(seed * 7919 + 17)
    return tuple(r for r in optional_rules_of(TITLES[title].package) if rng.random() < share)

"""``rhineland play``: a game in the terminal for people (hotseat), with bots in any seat.

    rhineland play 18Rhl --players Ann,Ben,Cid [--bot Ben=greedy ...] [--seed N] [--optional RULE]
    [--rules seed]
    rhineland play --load GAME.json [--bot ...]

Each turn shows whose decision it is, the players' cash and certificates, the
companies (share price, treasury, trains, tokens), the bank, the phase and the
next train, and the legal moves numbered 1, 2, ...  Type a number to play a move
(``N AMOUNT`` for a move with an amount range, e.g. ``3 45``), or a command:
``undo`` (back to your previous decision), ``routes`` (the best routes of the
company operating, with every bonus), ``state`` (show the table again), ``save
FILE`` (an 18xx.games export), ``help``, ``quit``.  Bots (``random``, ``greedy``,
``mcts``; seat by name or number) move on their own and each move is printed.
End of input is ``quit``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

import click
import orjson
from rich.console import Console
from rich.markup import escape

from rhineland.api import new_game
from rhineland.bots import BOT_NAMES, Bot, decider, make_bot
from rhineland.cli.errors import fail, fail_input
from rhineland.cli.play_view import state_view
from rhineland.cli.routes import route_set_text
from rhineland.engine.game import Game
from rhineland.engine.legal import AmountRange, Choice, RouteChoice
from rhineland.engine.ruleset import REFERENCE, RULE_SETS
from rhineland.errors import ExportError, GameError
from rhineland.io.describe import describe, status_line
from rhineland.io.export import ReplayError, load_export, replay, to_export
from rhineland.routes.search import best_routes
from rhineland.titles import canonical_title

HELP = """moves: N plays move N; N AMOUNT plays a move with an amount (e.g. 3 45)
commands: undo (back to your last decision), routes (best routes now), state,
          save FILE (18xx.games export), help, quit"""


class Session:
    """A terminal game: ``game``, ``bots`` by player id, ``out`` the console; ``echo``
    prints each input line after the prompt (for piped input: a terminal echoes it
    itself)."""

    def __init__(self, game: Game, bots: dict[int, Bot], out: Console,
                 echo: bool = True) -> None:
        self.game = game
        self.bots = bots
        self.out = out
        self.echo = echo
        self.shown: list[Choice] = []
        self.shown_at: int | None = None  # len(game.actions) when the moves were shown
        self.moves_made = 0  # people's moves of this session not undone (undo's reach)
        self.final_at: int | None = None  # len(game.actions) when the end was shown

    def run(self, lines: Iterable[str]) -> int:
        """Play until ``quit`` or the end of input (once the game is over, ``save``,
        ``undo``, ``state`` and ``help`` still work); ``lines`` yields input lines.
        Returns the exit status (0)."""
        it = iter(lines)
        while True:
            self._bots_move()
            if self.game.is_terminal:  # over: save, undo, help and quit remain
                if self.final_at != len(self.game.actions):
                    self._final()
                    self.final_at = len(self.game.actions)
            elif self.shown_at != len(self.game.actions):
                self._show_moves()
            self.out.print("> ", end="")
            try:
                line = next(it)
            except StopIteration:
                self.out.print("\n(end of input: quit)")
                return 0
            if self.echo:  # so a transcript of piped input reads well
                self.out.print(line.rstrip(), markup=False)
            if not self.command(line.strip()):
                return 0

    def _err(self, text: str) -> None:
        self.out.print(text, markup=False)

    def _bots_move(self) -> None:
        g = self.game
        while not g.is_terminal:
            pid = decider(g)
            bot = self.bots.get(pid)
            if bot is None:
                return
            action = bot.choose(g, pid)
            choice_text = _plain(g, action)
            g.process(action)
            self.out.print(f"{g.player(pid).name} ({bot.name}): {choice_text}", markup=False)

    def _show_moves(self) -> None:
        g = self.game
        self.out.rule(escape(status_line(g)))
        self.out.print(state_view(g))
        self.shown = g.legal_actions()
        self.shown_at = len(g.actions)
        who = ", ".join(g.player(p).name for p in g.acting_entities())
        self.out.print(f"{who}, your moves:", markup=False)
        for i, c in enumerate(self.shown, 1):
            hint = "  (type: N AMOUNT)" if isinstance(c, AmountRange) else ""
            self.out.print(f"  {i:>3}  {describe(g, c)}{hint}", markup=False)

    def command(self, line: str) -> bool:
        """Carry out one input line; ``False`` to stop (``quit``)."""
        if not line:
            return True
        word, _, rest = line.partition(" ")
        word = word.lower()
        if word in ("quit", "exit", "q"):
            return False
        if word in ("help", "h", "?"):
            self.out.print(HELP)
        elif word == "undo":
            self._undo()
        elif word == "routes":
            self._routes()
        elif word == "state":
            self.shown_at = self.final_at = None
        elif word == "save":
            self._save(rest.strip())
        elif word.isdigit():
            self._move(int(word), rest.strip())
        else:
            self._err(f"error: unknown command {word!r} (help lists the commands)")
        return True

    def _move(self, n: int, amount: str) -> None:
        if self.game.is_terminal:
            self._err(f"error: the game is over ({self._over_hint()})")
            return
        if not 1 <= n <= len(self.shown):
            self._err(f"error: no move {n} (moves 1..{len(self.shown)})")
            return
        choice = self.shown[n - 1]
        g = self.game
        if isinstance(choice, AmountRange):
            if not amount.isdigit():
                self._err(f"error: move {n} needs an amount, {choice.min}..{choice.max}M "
                               f"(e.g. {n} {choice.min})")
                return
            value = int(amount)
            if value not in choice.values():
                self._err(f"error: {value}M is outside {choice.min}..{choice.max}M")
                return
            action = choice.at(value)
        elif amount:
            self._err(f"error: move {n} takes no amount (type {n} alone)")
            return
        elif isinstance(choice, RouteChoice):
            action = choice.best(g)
        else:
            action = choice
        text = _plain(g, action)  # worded before: a train's seller, a share's source
        try:
            g.process(action)
        except GameError as exc:
            self._err(f"error: {exc}")
            return
        self.moves_made += 1
        self.out.print(f"played: {text}", markup=False)

    def _undo(self) -> None:
        """Undo the last action, and the bots' actions before it, back to a person's
        decision."""
        g = self.game
        if not self.moves_made:  # the bots' moves before a person's first are kept
            self._err("error: nothing to undo (no move of yours in this session yet)")
            return
        n = 0
        try:
            g.undo()
            n += 1
            while not g.is_terminal and decider(g) in self.bots:
                g.undo()
                n += 1
        except GameError as exc:
            if n == 0:
                self._err(f"error: {exc}")
                return
        self.moves_made -= 1
        who = ", ".join(g.player(p).name for p in g.acting_entities())
        self.out.print(f"undone: {n} action{'s' if n != 1 else ''} (back to {who})",
                       markup=False)

    def _routes(self) -> None:
        if self.game.is_terminal:
            self._err("error: the game is over")
            return
        ent = self.game.round.current_entity(self.game)
        if not hasattr(ent, "trains"):
            self._err("error: no company is operating now (routes are for an operating round)")
            return
        try:
            rs = best_routes(self.game)
        except GameError as exc:
            self._err(f"error: {exc}")
            return
        for ln in route_set_text(rs, self.game.round.label, self.game.board.spec):
            self.out.print(ln, markup=False)

    def _save(self, path: str) -> None:
        if not path:
            self._err("error: save needs a file name (save FILE)")
            return
        try:
            Path(path).expanduser().write_bytes(
                orjson.dumps(to_export(self.game), option=orjson.OPT_INDENT_2))
        except OSError as exc:
            self._err(f"error: cannot write {path}: {exc.strerror}")
            return
        self.out.print(f"saved to {path}", markup=False)

    def _final(self) -> None:
        g = self.game
        self.out.rule(escape(status_line(g)))
        self.out.print(state_view(g))
        self.out.print("final scores:")
        for p in sorted(g.players, key=lambda p: -g.player_value(p)):
            self.out.print(f"  {p.name:<16} {g.player_value(p)}M", markup=False)
        self.out.print(f"the game is over: {self._over_hint()}")

    def _over_hint(self) -> str:
        """What is left to do once the game is over."""
        undo = ", undo takes back your last move" if self.moves_made else ""
        return f"save FILE keeps it{undo}, quit ends"


def _plain(game: Game, action: object) -> str:
    from rhineland.engine.actions import RunRoutes

    if isinstance(action, RunRoutes):
        total = sum(int(r.get("revenue", 0)) for r in action.routes)
        return f"{action.entity}: run trains for {total}M"
    return describe(game, action)  # type: ignore[arg-type]


def _seats(game: Game, specs: tuple[str, ...], seed: int) -> dict[int, Bot]:
    bots: dict[int, Bot] = {}
    by_name = {p.name.lower(): p.id for p in game.players}
    seats = [pid for pid, _ in game.seats]
    for spec in specs:
        seat, eq, kind = spec.partition("=")
        if not eq:
            fail("bad_argument", f"--bot {spec!r}: expected SEAT=BOT (e.g. Ben=greedy)")
        if seat.isdigit() and 1 <= int(seat) <= len(seats):
            pid = seats[int(seat) - 1]
        elif seat.lower() in by_name:
            pid = by_name[seat.lower()]
        else:
            fail("bad_argument", f"--bot {spec!r}: no seat {seat!r} (players: "
                 f"{', '.join(p.name for p in game.players)}, or 1..{len(seats)})")
        try:
            bots[pid] = make_bot(kind, seed + pid)
        except ValueError as exc:
            fail("bad_argument", f"--bot {spec!r}: {exc}")
    return bots


@click.command("play", short_help="Play a game in the terminal (hotseat, bots).")
@click.argument("title", required=False)
@click.option("--players", default=None, help="Player names in seat order, comma separated.")
@click.option("--bot", "bot_specs", multiple=True, metavar="SEAT=BOT",
              help=f"A bot in a seat (a name or number): {', '.join(BOT_NAMES)}, mcts:N.")
@click.option("--seed", type=int, default=0, show_default=True, help="The game's seed.")
@click.option("--optional", "optional", multiple=True, help="An optional rule (repeatable).")
@click.option("--rules", "rules", type=click.Choice(RULE_SETS), default=REFERENCE,
              show_default=True,
              help="The rule set: reference (18xx.games) or seed (the seed summaries).")
@click.option("--load", "load", type=click.Path(dir_okay=False), default=None,
              help="Resume a saved game (an 18xx.games export).")
def play_cmd(title: str | None, players: str | None, bot_specs: tuple[str, ...], seed: int,
             optional: tuple[str, ...], rules: str, load: str | None) -> None:
    """Play TITLE (18Rhl or 1893) in the terminal, or resume a game with --load."""
    if load is not None:
        if title is not None or players is not None:
            fail("bad_argument", "--load resumes a saved game: give no TITLE or --players")
        try:
            game = replay(load_export(load))
        except ExportError as exc:
            fail_input(exc, False)
        except ReplayError as exc:
            fail("illegal_action", f"{load}: action {exc.action_id}: {exc.reason}")
        game.keep_history = True  # the moves made from here on can be undone
    else:
        if title is None or players is None:
            fail("bad_argument", "name a TITLE and --players (or --load FILE)")
        title = canonical_title(title)
        names = [n.strip() for n in players.split(",") if n.strip()]
        if len({n.lower() for n in names}) != len(names):
            fail("bad_argument", "--players: the names must differ")
        try:
            game = new_game(title, names, seed=seed, optional_rules=optional, rules=rules)
        except ExportError as exc:
            fail("bad_argument", str(exc))
        except GameError as exc:
            fail("bad_argument", str(exc), rule=exc.rule)
    bots = _seats(game, bot_specs, seed)
    out = Console(width=None if sys.stdout.isatty() else 140, highlight=False)
    out.print(HELP)
    sys.exit(Session(game, bots, out, echo=not sys.stdin.isatty()).run(sys.stdin))

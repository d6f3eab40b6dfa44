"""Trying actions on the game itself: the one check behind ``is_legal`` and the generator.

An action is legal exactly when :meth:`Game.process` would accept it under the
rules (no leniency).  :class:`Trial` asks the checks ``process`` makes first
(:meth:`Game.check`, on the state as it is) and, unless they decide, applies the
candidate action to a copy of the game's state (the game's own state object is
set aside and put back), so the legal-action generator and ``is_legal`` share
``process``'s own checks: they can never disagree with it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from functools import partial
from typing import TYPE_CHECKING

from rhineland.engine.actions import Action
from rhineland.engine.legal.choices import AmountRange, with_amount
from rhineland.errors import GameError

if TYPE_CHECKING:
    from rhineland.engine.view import TrialGame


class Trial:
    """Apply actions to copies of ``game``'s state: after every :meth:`accepts` the game
    has its own state back, untouched.  One trial object serves one position (what
    :meth:`amount_range` learns of a group of spans holds there only)."""

    def __init__(self, game: TrialGame) -> None:
        self.game = game
        self.legal_groups: set[Hashable] = set()
        """The ``same_as`` keys of amount spans found legal (see :meth:`amount_range`)."""
        self.memo: dict[Hashable, object] = {}
        """What the checks of this position keep (:meth:`Game.remembered
        <rhineland.engine.game.Game.remembered>`), lent to the game while they run."""

    def accepts(self, action: Action) -> bool:
        """Whether the rules accept ``action`` now (``process`` would apply it)."""
        return self.refusal(action) is None

    def refusal(self, action: Action) -> GameError | None:
        """Why the rules refuse ``action`` now, or ``None`` when they accept it.

        The checks ``process`` makes first are asked on the game as it is
        (:meth:`Game.check <rhineland.engine.game.Game.check>`: the state untouched): a
        refusal of theirs is the answer, and so is their yes where they are the whole
        of the rules for the action; otherwise the action is applied to a copy."""
        game = self.game
        outer = game.position_memo
        game.position_memo = self.memo  # the state stays untouched while it checks
        try:
            if game.check(action):
                return None
        except GameError as exc:
            return _untraced(exc)
        finally:
            game.position_memo = outer
        return self.applied(action)

    def applied(self, action: Action) -> GameError | None:
        """Why ``process`` refuses ``action`` applied to a copy of the state now (``None``:
        it accepts it); the game keeps its own state, untouched."""
        game = self.game
        live, log_len, saved = game.state, len(game.log), game.leniencies
        game.state = live.clone()
        game.leniencies = frozenset()
        try:
            game._apply(action)  # the very path of process
            return None
        except GameError as exc:
            return _untraced(exc)
        finally:
            game.state = live
            game.leniencies = saved
            game.truncate_log(log_len)

    def keep(self, actions: Iterable[Action]) -> list[Action]:
        """The ``actions`` the rules accept, in order."""
        return [a for a in actions if self.accepts(a)]

    def amount_range(self, template: Action, field: str, lo: int, hi: int, step: int = 1,
                     hints: Iterable[int] = (),
                     whole: frozenset[str] = frozenset(),
                     bounds: Callable[[], tuple[int, int]] | None = None,
                     same_as: Hashable = None,
                     gate: Callable[[], bool] | None = None) -> AmountRange | None:
        """The legal amounts of ``template``'s ``field`` within ``lo..hi`` (by ``step``) as
        an :class:`AmountRange`, or ``None`` when no amount is legal.

        The legal amounts of one decision form an interval (a least and a most M); it
        is found from a legal point (``lo``, ``hi`` or one of ``hints``) by bisection.
        A refusal by one of the ``whole`` rules (rules that do not look at the amount)
        refuses every amount: ``None`` at once.  Where the rules state the interval of
        their amount checks (``bounds()``: least, most M), the other checks refuse every
        amount or none: one trial at the least amount decides (a refusal by another rule
        than ``whole`` falls back to the search).  With ``bounds``, a span whose
        ``same_as`` key was found legal at this position already is legal exactly where
        ``gate()`` holds (untried; :attr:`AmountSpan.same_as`).
        """
        if hi < lo:
            return None
        seen: dict[int, bool] = {}
        if bounds is not None:
            least, most = bounds()
            least = lo + max(0, -(-(least - lo) // step)) * step  # onto the grid, inside
            most = lo + (min(hi, most) - lo) // step * step
            if least > most:
                return None
            if same_as is not None and same_as in self.legal_groups:
                if gate is not None and not gate():
                    return None
                return AmountRange(with_amount(template, field, least), field, least, most,
                                   step)
            refused = self.refusal(with_amount(template, field, least))
            if refused is None:
                if same_as is not None:
                    self.legal_groups.add(same_as)
                return AmountRange(with_amount(template, field, least), field, least, most,
                                   step)
            if refused.rule in whole:
                return None
            seen[least] = False

        ok = partial(_amount_ok, self, template, field, whole, seen)

        # the hints first (likely legal), then the ends; any legal point will do
        points = [lo + (h - lo) // step * step for h in hints if lo <= h <= hi]
        inside = None
        try:
            for v in dict.fromkeys([*points, hi, lo]):
                if ok(v):
                    inside = v
                    break
        except _NoAmount:
            return None
        if inside is None:
            return None
        least = _edge(ok, inside, lo, step)
        most = _edge(ok, inside, hi, step)
        return AmountRange(with_amount(template, field, least), field, least, most, step)


def _amount_ok(trial: Trial, template: Action, field: str, whole: frozenset[str],
               seen: dict[int, bool], v: int) -> bool:
    """Whether the rules accept ``template`` with ``field`` at ``v`` (asked once per
    amount: ``seen``); raises :class:`_NoAmount` for a refusal by one of the ``whole``
    rules.  A module function, bound with :func:`functools.partial` by
    :meth:`Trial.amount_range`: a nested function there would be kept by its own
    closure (compiled, mypyc's environment object), a reference cycle per span."""
    if v not in seen:
        refused = trial.refusal(with_amount(template, field, v))
        if refused is not None and refused.rule in whole:
            raise _NoAmount
        seen[v] = refused is None
    return seen[v]


def _untraced(exc: GameError) -> GameError:
    """``exc`` without its traceback: a refusal is read for its rule and message only,
    and its traceback's frames (the caller's among them) would make a reference cycle
    with the refusal held there, left to the garbage collector (with every frame's
    locals) after each refused trial."""
    exc.__traceback__ = None
    return exc


class _NoAmount(Exception):
    """A refusal that holds for every amount (see :meth:`Trial.amount_range`)."""


def _edge(ok: Callable[[int], bool], legal: int, far: int, step: int) -> int:
    """The legal amount nearest to ``far`` between ``legal`` (a legal amount) and ``far``,
    by bisection on the ``step`` grid (legality is one interval).  ``far`` itself is
    tried first, then the amount next to ``legal``: a range often ends at the span's
    end, or at a hint (e.g. a price equal to all the cash), found so in one or two
    trials."""
    if far == legal or ok(far):
        return far
    if abs(far - legal) > step:
        near = legal + step if far > legal else legal - step
        if not ok(near):
            return legal
        legal = near
    while abs(far - legal) > step:  # ``far`` is refused, ``legal`` accepted
        low, high = min(legal, far), max(legal, far)
        mid = low + (high - low) // (2 * step) * step
        if ok(mid):
            legal = mid
        else:
            far = mid
    return legal

"""The legal decisions, tried only when asked: for a random choice that needs one of them.

``legal_actions()`` tries every candidate decision of the current step (each trial
copies the game's state).  A random player that first draws a kind of action and
then one legal decision of that kind needs only the candidates it looks at:
:class:`LazyChoices` lists the candidates (:func:`~rhineland.engine.legal.generate.candidates`)
as *entries*, one per decision ``legal_actions()`` could list (a plain action, an
amount span, a listed decision, a tile lay before its track restriction, each rung of
a ladder), and tries an entry only when
:meth:`LazyChoices.legal` is asked about it, with the very rules of
:func:`~rhineland.engine.legal.generate.resolve` (the same :class:`Trial`, a ladder
refused past its first refusal, the same decision proposed twice counted once).  The
legal entries are therefore exactly ``legal_actions()`` (:meth:`LazyChoices.all_legal`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rhineland.engine.legal.choices import (
    AmountSpan,
    Candidate,
    Choice,
    Deferred,
    Ladder,
    Listed,
    choice_key,
)
from rhineland.engine.legal.generate import candidates
from rhineland.engine.legal.trial import Trial

if TYPE_CHECKING:
    from rhineland.engine.actions import Action
    from rhineland.engine.game import Game


@dataclass(frozen=True)
class Entry:
    """One decision ``legal_actions()`` might list: candidate ``cand`` (rung ``rung`` of
    a ladder, else 0) and the action it stands for (``action``: a listed decision's
    choice, an amount span's template)."""

    cand: Candidate
    rung: int
    action: Any


class LazyChoices:
    """The current step's candidate decisions of ``game`` as :class:`Entry` objects
    (:attr:`entries`, in the generator's order, repeats left out), tried when asked.
    Valid while the game's state does not change."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.trial = Trial(game)
        self.entries: list[Entry] = []
        self._legal: dict[int, Choice | None] = {}
        self._ladders: dict[int, list[Action | None]] = {}
        st = game.state
        if st.finished or st.round is None:
            return
        seen: set[tuple[Any, ...]] = set()
        for c in candidates(game):
            if isinstance(c, Listed | Deferred):
                self.entries.append(Entry(c, 0, c.choice))
            elif isinstance(c, AmountSpan):
                self.entries.append(Entry(c, 0, c.action))
            elif isinstance(c, Ladder):
                self.entries.extend(Entry(c, i, a) for i, a in enumerate(c.actions))
            else:
                key = choice_key(game, c)  # resolve tries the same decision once
                if key not in seen:
                    seen.add(key)
                    self.entries.append(Entry(c, 0, c))

    def legal(self, entry: Entry) -> Choice | None:
        """The decision ``legal_actions()`` lists for ``entry`` (an amount span as its
        :class:`~rhineland.engine.legal.AmountRange`), or ``None`` when the rules refuse
        it (tried once, remembered)."""
        key = id(entry)
        if key in self._legal:
            return self._legal[key]
        c = entry.cand
        got: Choice | None
        if isinstance(c, Listed):
            got = c.choice
        elif isinstance(c, Deferred):
            got = c.choice if c.check() else None
        elif isinstance(c, AmountSpan):
            got = self.trial.amount_range(c.action, c.field, c.lo, c.hi, c.step, c.hints,
                                          c.whole, c.bounds, c.same_as, c.gate)
        elif isinstance(c, Ladder):
            got = self._ladder(c)[entry.rung]
        else:
            got = c if self.trial.accepts(c) else None
        self._legal[key] = got
        return got

    def _ladder(self, ladder: Ladder) -> list[Action | None]:
        """Each rung's action if legal (as ``resolve`` does: after a refusal that is not
        one of ``ladder.skip``, the costlier rungs are refused untried)."""
        got = self._ladders.get(id(ladder))
        if got is None:
            got = [None] * len(ladder.actions)
            for i, a in enumerate(ladder.actions):
                refused = self.trial.refusal(a)
                if refused is None:
                    got[i] = a
                elif refused.rule not in ladder.skip:
                    break
            self._ladders[id(ladder)] = got
        return got

    def all_legal(self) -> list[Choice]:
        """Every legal entry's decision, in order: ``legal_actions()`` (for tests)."""
        out: list[Choice] = []
        for e in self.entries:
            got = self.legal(e)
            if got is not None:
                out.append(got)
        return out

"""The lay context's private states (``rules_operating.private_states``): at every
position of seeded random games of both titles they are what each private is now
(owner as text when a player's, closed, ability used), and the mapping is given again
only while no private changed."""

from __future__ import annotations

import pytest

from play import random_positions
from rhineland.board.legality import PrivateState
from rhineland.engine.rules_operating import private_states
from rhineland.sim.selfplay import TITLE_PLAYERS


@pytest.mark.parametrize("title", sorted(TITLE_PLAYERS))
def test_private_states_are_the_privates_now(title: str) -> None:
    kinds: set[tuple[bool, bool, bool]] = set()
    for game in random_positions(title, 2, 900):
        got = private_states(game)
        want = {
            p.sym: PrivateState(p.sym, str(p.owner) if isinstance(p.owner, int) else None,
                                p.closed, p.ability_uses > 0)
            for p in game.privates.values()
        }
        assert got == want and list(got) == list(want)
        assert private_states(game) is got
        rnd = game.state.round
        if rnd is not None and rnd.kind == "Operating":
            ent = rnd.current_entity(game)
            if ent is not None and hasattr(ent, "trains"):
                assert game.title.lay_context(game, rnd, ent).privates is got
        kinds |= {(s.owner is not None, s.closed, s.used) for s in got.values()}
    # owned by a player, by nobody (a company's or the bank's), closed, used: all seen
    assert {(True, False, False), (False, False, False)} <= kinds
    assert any(closed for _, closed, _ in kinds)


def test_a_change_of_a_private_gives_new_states() -> None:
    game = next(g for g in random_positions("1893", 2, 400) if g.privates)
    first = private_states(game)
    private = next(iter(game.privates.values()))
    was = private.closed
    private.closed = not was
    try:
        changed = private_states(game)
        assert changed is not first and changed[private.sym].closed is (not was)
        assert first[private.sym].closed is was
    finally:
        private.closed = was
    assert private_states(game) is first

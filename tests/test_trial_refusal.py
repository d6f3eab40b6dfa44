"""A trial's refusal is the rule's ``GameError`` without a traceback: listing the legal
actions (``resolve`` holds each refusal while it reads its rule) then leaves no
reference cycle through the trial's frames for the garbage collector."""

from __future__ import annotations

import gc

from rhineland import new_game
from rhineland.engine.actions import Pass
from rhineland.engine.legal.trial import Trial


def test_refusal_has_no_traceback_and_listing_leaves_no_frame_cycles() -> None:
    game = new_game("1893", ["P1", "P2", "P3"], seed=0)
    others = [p for p in game.state.players if p.id not in game.acting_entities()]
    refused = Trial(game).refusal(Pass(entity=others[0].id))
    assert refused is not None and refused.rule  # another player may not act now
    assert refused.__traceback__ is None
    gc.collect()
    was = gc.get_debug()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for _ in range(40):  # a draft, then a stock round: many refused trials
            actions = game.legal_actions(expand=True)
            game.process(actions[len(actions) // 2])
        gc.collect()
        frames = [o for o in gc.garbage if type(o).__name__ == "frame"]
    finally:
        gc.set_debug(was)
        gc.garbage.clear()
    assert frames == []

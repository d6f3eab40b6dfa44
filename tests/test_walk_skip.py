"""The network walk skips a converging step that can add nothing, and its result is the same.

Beyond a junction ("converging" exit) the walk releases its marks as it backs up, so it
re-walks the track beyond once per chain that reaches it; on a late 1893 board a walk
takes thousands of such steps for under two hundred paths.  Once a walk has taken
``graph._REWALKS`` of them it skips each step whose relaxed reach (``graph._Beyond``) holds
no path not yet seen and no look not yet made into a hex not yet entered.  At positions
of real games of both titles, every corporation's walk with the skip from its first
converging step equals the walk without it: the hexes and edges touched, the nodes and
paths reached, and the first looks into each hex (a look made again records nothing a
reader uses: compared without repeats); and the skip takes far fewer steps."""

from __future__ import annotations

import pytest

from reference import ReferenceGames, needs_shared
from rhineland.board import graph
from rhineland.board.graph import compute_connectivity

GAMES = {"1893": "end_bank", "18Rhl": "end_bank"}
POSITIONS = 8


def _first_seen(looks: tuple[tuple[int, str], ...]) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for look in looks:
        if look not in out:
            out.append(look)
    return out


@needs_shared
@pytest.mark.sources_only
@pytest.mark.parametrize("title", sorted(GAMES))
def test_skipping_steps_keeps_the_walk(title: str, monkeypatch: pytest.MonkeyPatch) -> None:
    ref = ReferenceGames(title)
    ids = [a.id for a in ref.export(GAMES[title]).actions]
    steps = 0
    original = graph._Walk.path

    def counted(self: graph._Walk, *args: object) -> None:
        nonlocal steps
        steps += 1
        original(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(graph._Walk, "path", counted)
    walks = full_steps = skipping_steps = 0
    for k in range(1, POSITIONS + 1):
        game = ref.position(GAMES[title], ids[k * (len(ids) - 1) // POSITIONS])
        board, rules = game.board, game.title.board_rules
        for sym, corp in game.corporations.items():
            if not board.token_locations(sym):
                continue
            monkeypatch.setattr(graph, "_REWALKS", 10**9)
            steps = 0
            full = compute_connectivity(board, sym, rules)
            full_steps += steps
            monkeypatch.setattr(graph, "_REWALKS", 0)
            steps = 0
            skipping = compute_connectivity(board, sym, rules)
            skipping_steps += steps
            assert skipping.hexes == full.hexes, (sym, corp)
            assert skipping.node_keys == full.node_keys
            assert skipping.path_keys == full.path_keys
            assert skipping.complete and full.complete
            assert full.looks is not None and skipping.looks is not None
            assert set(skipping.looks) == set(full.looks)
            for hi, made in full.looks.items():
                assert _first_seen(skipping.looks[hi]) == _first_seen(made)
            walks += 1
    assert walks > 20
    assert skipping_steps < 0.8 * full_steps, (skipping_steps, full_steps)

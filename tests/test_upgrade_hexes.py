"""A title's ``upgrade_hexes`` names every hex its upgrade rule treats apart: 1893's
normal-lay upgrade targets of an old tile in a phase are the same on every other hex
(checked for every manifest and printed tile, phase and hex of the map), so they are
worked out once for all of them; and they are what ``upgrades_to`` says on each hex."""

from __future__ import annotations

from rhineland import new_game


def test_1893_upgrade_targets_are_the_same_outside_the_upgrade_hexes() -> None:
    game = new_game("1893", ["P1", "P2", "P3"], seed=0)
    rules = game.title.board_rules
    data = game.data
    assert rules.upgrade_hexes == frozenset({"G6", "N5", "P5"})
    olds = {id(t): t for t in data.tiles.values()}
    olds.update({id(h.tile): h.tile for h in data.map.hexes.values()})
    phases = [p.name for p in data.phases]
    others = [h for h in data.map.hexes if h not in rules.upgrade_hexes]
    some = 0
    for old in olds.values():
        for phase in phases:
            expected = tuple(new for new in data.tiles.values()
                             if rules.upgrades_to(others[0], old, new, phase=phase))
            some += bool(expected)
            for hex_id in others:
                assert tuple(new for new in data.tiles.values()
                             if rules.upgrades_to(hex_id, old, new, phase=phase)) == expected
                assert rules.upgrade_targets(hex_id, old, phase) == expected
            for hex_id in rules.upgrade_hexes:  # worked out on their own
                assert rules.upgrade_targets(hex_id, old, phase) == tuple(
                    new for new in data.tiles.values()
                    if rules.upgrades_to(hex_id, old, new, phase=phase))
    assert some > 50

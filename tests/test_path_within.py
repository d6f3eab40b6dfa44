"""``RotatedPath.within`` (written out for speed) is the endpoint rule it states: each
endpoint matches one of the other path's (the same edge, or a node of the same kind)
and the gauges agree; checked for every pair of paths of every tile at every rotation
of both titles, and ``paths_within`` against its definition on every pair of rotated
tiles of 1893's manifest."""

from __future__ import annotations

from rhineland import new_game
from rhineland.board.upgrades import End, RotatedPath, geometry, paths_within
from rhineland.sim.selfplay import TITLE_PLAYERS


def _end_matches(x: End, y: End) -> bool:
    if x[0] == "edge":
        return y[0] == "edge" and x[1] == y[1]
    return x[0] == y[0]


def _gauge_matches(mine: str, other: str) -> bool:
    return other == "dual" if mine == "dual" else other in (mine, "dual")


def _within(p: RotatedPath, q: RotatedPath) -> bool:
    return ((_end_matches(p.a, q.a) or _end_matches(p.a, q.b))
            and (_end_matches(p.b, q.a) or _end_matches(p.b, q.b))
            and _gauge_matches(p.gauge, q.gauge))


def test_within_is_the_endpoint_rule_for_every_pair_of_paths() -> None:
    for title, (players, _) in sorted(TITLE_PLAYERS.items()):
        data = new_game(title, [f"P{i + 1}" for i in range(players)]).data
        tiles = {id(t): t for t in data.tiles.values()}
        tiles.update({id(h.tile): h.tile for h in data.map.hexes.values()})
        paths = {(p.a, p.b, p.gauge): p for t in tiles.values() for r in range(6)
                 for p in geometry(t, r).paths}
        found = 0
        for p in paths.values():
            for q in paths.values():
                assert p.within(q) == _within(p, q), (p, q)
                found += _within(p, q)
        assert found > len(paths)  # each path in itself, and more


def test_paths_within_is_every_old_path_within_a_new_one() -> None:
    data = new_game("1893", ["P1", "P2", "P3"]).data
    geoms = [geometry(t, r) for t in data.tiles.values() for r in range(6)]
    kept = 0
    for old in geoms:
        for new in geoms:
            expected = all(any(_within(p, q) for q in new.paths) for p in old.paths)
            assert paths_within(old.paths, new.paths) == expected
            kept += expected
    assert kept > len(geoms)

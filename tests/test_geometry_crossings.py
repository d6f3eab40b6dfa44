"""``TileGeometry.crossings`` (what a network walk asks when it leaves a path by one of its
edges, worked out once per rotated tile) is what it states: for every path of every tile
of both titles at every rotation, each edge in the path's order with the neighbour's edge
facing it (three sides round), the neighbour's ``gauge_paths`` key of that edge and the
path's gauge, and whether several paths of the tile share the edge."""

from __future__ import annotations

from rhineland import new_game
from rhineland.board.upgrades import geometry
from rhineland.sim.selfplay import TITLE_PLAYERS


def test_crossings_state_each_edge_of_each_path() -> None:
    checked = shared = 0
    for title, counts in sorted(TITLE_PLAYERS.items()):
        game = new_game(title, [f"P{i + 1}" for i in range(min(counts))])
        tiles = list(game.data.tiles.values()) + [
            placed.tile for placed in game.board.tiles.values()]
        for tile in tiles:
            for rotation in range(6):
                g = geometry(tile, rotation)
                assert len(g.crossings) == len(g.paths)
                for path, crossings in zip(g.paths, g.crossings, strict=True):
                    assert [c[0] for c in crossings] == list(path.edges)
                    for e, back, key, converging in crossings:
                        assert back == (e + 3) % 6 and key == (back, path.gauge)
                        users = sum(e in p.edges for p in g.paths)
                        assert converging == (users > 1)
                        checked += 1
                        shared += converging
    assert checked > 1000 and shared > 0

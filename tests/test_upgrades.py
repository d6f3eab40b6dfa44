"""Upgrade rules against the reference facts, for both titles and every optional rule.

Per hex: the tiles that may go on the preprinted tile (``first_upgrades``) and
the whole upgrade tree reachable from it (``upgrade_graph``); per manifest tile:
its ``upgrades_to`` list (the tile manifest's view, no hex rules).  Optional
rules are checked by applying the facts' ``optional_rules`` differences to the
base facts.  Also the hex links (``neighbors``) the connectivity walk uses.
"""

from __future__ import annotations

import copy
import json
import pickle
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from rhineland.api import new_game
from rhineland.board.graph import hex_links
from rhineland.board.legality import BoardRules
from rhineland.board.upgrades import (
    generic_upgrades_to,
    hex_first_upgrades,
    tile_upgrades,
    upgrade_graph,
)
from rhineland.titles import get_title
from rhineland.titles.g18rhl.board_rules import RhlBoardRules
from rhineland.titles.g1893.board_rules import CologneBoardRules

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
RULES: dict[str, type[BoardRules]] = {"18Rhl": RhlBoardRules, "1893": CologneBoardRules}
OPTIONS = {
    "18Rhl": ("", "optional_2_train", "lower_starting_capital", "promotion_tiles",
              "ratingen_variant"),
    "1893": ("", "optional_2_train", "optional_grey_phase", "optional_existing_track"),
}
CASES = [(t, o) for t, opts in OPTIONS.items() for o in opts]


@cache
def _facts(title: str) -> dict[str, Any]:
    path = SHARED / "reference" / f"{title}.facts.json"
    if not path.exists():
        pytest.skip(f"reference facts not found at {path}")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def facts_with(title: str, option: str) -> dict[str, Any]:
    """The facts of ``title`` with ``option``'s differences applied (hexes, tiles, graph)."""
    base = copy.deepcopy(_facts(title))
    if not option:
        return base
    for diff in base["optional_rules"][option]["differences"]:
        parts = diff["path"].split("/")
        if parts[0] not in ("hexes", "tiles", "upgrade_graph"):
            continue
        node = base
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        if diff["change"] == "removed":
            node.pop(parts[-1], None)
        else:
            node[parts[-1]] = diff["value"]
    return base


def _setup(title: str, option: str) -> tuple[dict[str, Any], Any, BoardRules]:
    facts = facts_with(title, option)
    data = get_title(title, (option,) if option else ()).data
    return facts, data, RULES[title](data)


@pytest.mark.parametrize(("title", "option"), CASES)
def test_first_upgrades(title: str, option: str) -> None:
    """Tiles layable on each preprinted hex equal the reference's ``first_upgrades``."""
    facts, data, rules = _setup(title, option)
    assert set(facts["hexes"]) == set(data.map.hexes)
    for hid, h in facts["hexes"].items():
        ref = h.get("first_upgrades") or []
        ours = hex_first_upgrades(data.tiles, rules, hid, data.map.hexes[hid].tile)
        assert sorted(ours) == sorted(ref), hid


@pytest.mark.parametrize(("title", "option"), CASES)
def test_upgrade_graph(title: str, option: str) -> None:
    """Each hex's upgrade tree equals the reference ``upgrade_graph`` (leaves omitted)."""
    facts, data, rules = _setup(title, option)
    ours_all = {}
    for hid, h in data.map.hexes.items():
        g = upgrade_graph(data.tiles, rules, hid, h.tile)
        g = {k: sorted(v) for k, v in g.items() if v}
        if g:
            ours_all[hid] = g
    ref_all = {
        hid: {k: sorted(v) for k, v in g.items() if v}
        for hid, g in facts["upgrade_graph"].items()
    }
    ref_all = {h: g for h, g in ref_all.items() if g}
    assert ours_all == ref_all


@pytest.mark.parametrize(("title", "option"), CASES)
def test_tile_upgrades_to(title: str, option: str) -> None:
    """Every manifest tile's ``upgrades_to`` equals the reference's."""
    facts, data, rules = _setup(title, option)
    assert set(facts["tiles"]) == set(data.tiles)
    for name, t in facts["tiles"].items():
        assert sorted(tile_upgrades(data.tiles, rules, name)) == sorted(t["upgrades_to"]), name


@pytest.mark.parametrize("title", list(OPTIONS))
def test_hex_links_match_reference_neighbors(title: str) -> None:
    """Track crosses exactly the hex sides the reference lists as neighbours."""
    facts, data, _ = _setup(title, "")
    links = hex_links(data.map)
    for hid, h in facts["hexes"].items():
        assert links[hid] == {int(e): n for e, n in h["neighbors"].items()}, hid


def test_generic_rules_examples() -> None:
    """Named cases of the generic rules (18Rhl manifest)."""
    data = get_title("18Rhl").data
    t = data.tiles
    # colour must advance exactly one step
    assert generic_upgrades_to(t["7"], t["26"])
    assert not generic_upgrades_to(t["7"], t["39"])
    # old track must be kept: a sharp curve does not fit a straight-track green tile
    assert not generic_upgrades_to(t["7"], t["16"])
    # OO cities keep both cities, and their edges
    assert generic_upgrades_to(t["937"], t["938"])
    # label must match: a Y city does not take an OO tile
    assert not generic_upgrades_to(t["201"], t["938"])
    # a private's special lay skips label and city checks
    assert generic_upgrades_to(t["201"], t["15"], special=True)


@pytest.mark.parametrize("title", ["18Rhl", "1893"])
def test_geometry_pickles_and_copies_as_its_tile(title: str) -> None:
    """A placed tile's geometry (a compiled class in the native build) survives pickle
    and deep copy: the copy's geometry is worked out again for the copy's tile, equal
    field by field, and its paths pickle alike."""
    game = new_game(title, ["A", "B", "C"])
    placed = [p for p in game.board.tiles.values() if p.geometry.paths]
    assert placed
    for p in placed[:20]:
        for q in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p)):
            g, h = p.geometry, q.geometry
            assert h.tile is q.tile and h.rotation == p.rotation
            assert (h.paths, h.exits, h.edge_paths, h.node_paths, h.gauge_paths,
                    h.crossings, h.cities) == (g.paths, g.exits, g.edge_paths,
                                               g.node_paths, g.gauge_paths, g.crossings,
                                               g.cities)
        path = p.geometry.paths[0]
        assert pickle.loads(pickle.dumps(path)) == path

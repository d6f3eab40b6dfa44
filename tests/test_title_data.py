"""The loaded title data against the reference facts of both titles.

The reference facts (``../shared/reference/<title>.facts.json``) are the static
facts of 18Rhl and 1893: Cologne as the reference engine has them.  Every test
here compares the project's LOADED objects (``get_title(...).data``: TitleData,
TrainSpec, PhaseSpec, MarketCell, CorporationSpec, MinorSpec, PrivateSpec,
Tile, HexSpec) with them, never our JSON files.  The same comparisons run for
every optional rule: the reference lists what each rule changes
(``optional_rules.<rule>.differences``, a list of ``{path, change, value}``);
:func:`_apply_differences` applies them to the base facts and the result is
compared with ``get_title(title, [rule]).data``.

Test ids read ``<title>/<rule or base>/<item>`` and failure messages name the
field, so a failure says e.g. ``18Rhl/ratingen_variant/E12: labels ...``.

Not compared here (computed by code owned elsewhere): ``upgrade_graph``,
``upgrades_to``, ``first_upgrades`` (board/upgrades.py) and the hex ``flags``
(notes mirroring game constants).  Facts that our schema does not carry are
checked to hold the one value the engine assumes (messages say "unmodelled";
test_ability_flags_are_derivable, test_rules_not_carried_are_common), so
dropping them loses nothing.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from rhineland.board.hexgrid import neighbor_id, opposite
from rhineland.board.mapspec import IMPASSABLE_HEX_COLORS, HexSpec
from rhineland.board.tiles import Path as TrackPath
from rhineland.board.tiles import Tile
from rhineland.engine.titledata import DistanceRule, TitleData
from rhineland.titles import get_title

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
REFERENCE = SHARED / "reference"
FACT_FILES = {"18Rhl": "18Rhl.facts.json", "1893": "1893.facts.json"}

if not all((REFERENCE / f).is_file() for f in FACT_FILES.values()):
    pytest.skip(
        f"reference facts not found under {REFERENCE} (the shared material is absent); "
        "title data tests need ../shared/reference/*.facts.json",
        allow_module_level=True,
    )

BASE = "base"
"""Stands for "no optional rule" in test ids."""

# Keys of ability records the schema does not carry: ``summary`` is prose; the
# others are checked by test_ability_flags_are_derivable to be the same for
# every ability of a type (so the engine may take them from the type).
ABILITY_DROPPED = ("summary", "use_across_ors", "remove_when_used_up", "passive", "hidden")

# Game constants that are reference-engine metadata, not rules.
CONSTANTS_DROPPED = ("autoroute", "dev_stages", "keywords", "mutex_rules", "prototype")


# --------------------------------------------------------------------------- facts


@cache
def base_facts(title: str) -> dict[str, Any]:
    """The reference facts file of ``title``, parsed (cached; treat as read-only)."""
    result: dict[str, Any] = json.loads((REFERENCE / FACT_FILES[title]).read_text())
    return result


def _record_key(record: Mapping[str, Any]) -> Any:
    return record.get("sym", record.get("name"))


def _apply_differences(facts: dict[str, Any], differences: Sequence[Mapping[str, Any]]) -> None:
    """Apply the reference's listed differences of one optional rule to ``facts`` in place.

    A path is ``/``-separated; in a list of records (trains, companies,
    corporations) a step names the record by its ``sym``/``name``.  A record
    added to a list takes the place of a record removed from the same list by
    the same rule (18Rhl ``ratingen_variant``: ATB replaces PWB as private
    No. 1), otherwise it is appended.
    """
    removed_at: dict[int, int] = {}
    for diff in differences:
        steps = diff["path"].split("/")
        node: Any = facts
        for step in steps[:-1]:
            if isinstance(node, list):
                node = next(r for r in node if _record_key(r) == step)
            else:
                node = node.setdefault(step, {})
        last = steps[-1]
        change = diff["change"]
        if isinstance(node, list):
            idx = next((i for i, r in enumerate(node) if _record_key(r) == last), None)
            if change == "removed":
                assert idx is not None, diff["path"]
                node.pop(idx)
                removed_at[id(node)] = idx
            elif idx is None:
                node.insert(removed_at.pop(id(node), len(node)), copy.deepcopy(diff["value"]))
            else:
                node[idx] = copy.deepcopy(diff["value"])
        elif change == "removed":
            node.pop(last, None)
        else:
            node[last] = copy.deepcopy(diff["value"])


@cache
def expected_facts(title: str, rule: str) -> dict[str, Any]:
    """The reference facts of ``title`` with optional ``rule`` (or none, for ``base``)."""
    facts = copy.deepcopy(base_facts(title))
    if rule != BASE:
        _apply_differences(facts, facts["optional_rules"][rule]["differences"])
    return facts


def loaded(title: str, rule: str) -> TitleData:
    """Our loaded title data for ``title`` with optional ``rule``."""
    return get_title(title, [] if rule == BASE else [rule]).data


def _cases() -> list[tuple[str, str]]:
    out = []
    for title in FACT_FILES:
        out.append((title, BASE))
        out.extend((title, rule) for rule in base_facts(title)["optional_rules"])
    return out


CASES = _cases()


def _params(items: Iterator[tuple[str, str, str]]) -> list[Any]:
    return [pytest.param(t, r, i, id=f"{t}/{r}/{i}") for t, r, i in items]


def _hex_params() -> list[Any]:
    return _params((t, r, h) for t, r in CASES for h in expected_facts(t, r)["hexes"])


def _tile_params() -> list[Any]:
    return _params((t, r, n) for t, r in CASES for n in expected_facts(t, r)["tiles"])


def _record_params(key: str) -> list[Any]:
    return _params(
        (t, r, _record_key(rec)) for t, r in CASES for rec in expected_facts(t, r)[key]
    )


def _find(records: Sequence[Mapping[str, Any]], key: str) -> Mapping[str, Any]:
    return next(r for r in records if _record_key(r) == key)


class Diffs:
    """Collects field mismatches so one failure lists every wrong field."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.problems: list[str] = []

    def eq(self, field: str, ours: Any, ref: Any) -> None:
        if ours != ref:
            self.problems.append(f"{field}: ours {ours!r} != reference {ref!r}")

    def check(self, field: str, ok: bool, detail: str) -> None:
        if not ok:
            self.problems.append(f"{field}: {detail}")

    def done(self) -> None:
        assert not self.problems, f"{self.where}:\n  " + "\n  ".join(self.problems)


ALL_CASES = [pytest.param(t, r, id=f"{t}/{r}") for t, r in CASES]
"""Every (title, rule) pair, ``base`` included, as pytest parameters."""


# ------------------------------------------------------------------- tile parts


def _ref_nodes(src: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    """(part, kind, revenue, slots, reserved, markers, groups, hidden, loc) by part."""
    out = []
    for kind, key in (("city", "cities"), ("town", "towns"), ("offboard", "offboards")):
        for n in src.get(key, ()):
            out.append(
                (
                    n["part"],
                    kind,
                    n["revenue"],
                    n.get("slots", 0),
                    tuple(n.get("reserved_for", ())),
                    tuple(n.get("tokens", ())),
                    tuple(n.get("groups", ())),
                    bool(n.get("hidden", False)),
                    n.get("loc"),
                )
            )
    return sorted(out, key=lambda n: n[0])


def _our_nodes(tile: Tile) -> list[tuple[Any, ...]]:
    return sorted(
        (
            (n.part, n.kind, n.revenue, n.slots, n.reserved, n.markers, n.groups, n.hidden, n.loc)
            for n in tile.nodes
        ),
        key=lambda n: n[0],
    )


def _ref_end(end: Mapping[str, Any]) -> tuple[Any, ...]:
    if "edge" in end:
        return ("edge", end["edge"])
    return ("node", end["part"], end["kind"])


def _our_end(tile: Tile, end: int | str) -> tuple[Any, ...]:
    if isinstance(end, int):
        return ("edge", end)
    part = int(end.removeprefix("p"))
    try:
        kind = tile.node(part).kind
    except KeyError:
        kind = "<no such node>"
    return ("node", part, kind)


def _ref_paths(src: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (_ref_end(p["a"]), _ref_end(p["b"]), int(p.get("terminal") or 0), p.get("track", "broad"))
        for p in src.get("paths", ())
    ]


def _our_paths(tile: Tile) -> list[tuple[Any, ...]]:
    return [(_our_end(tile, p.a), _our_end(tile, p.b), p.terminal, p.gauge) for p in tile.paths]


def _ref_terrain(src: Mapping[str, Any]) -> list[tuple[int, str]]:
    # our Terrain.kind joins the reference's terrain list with "/" (one kind in practice)
    return [(c["cost"], "/".join(c["terrains"])) for c in src.get("upgrade_costs", ())]


def _ref_icons(src: Mapping[str, Any]) -> list[str]:
    # our icon notation: the name, with "!" appended when the icon is sticky
    return [i["name"] + ("!" if i["sticky"] else "") for i in src.get("icons", ())]


def _compare_tile_parts(d: Diffs, ours: Tile, ref: Mapping[str, Any]) -> None:
    """Everything a hex and a manifest tile have in common."""
    d.eq("color", ours.color, ref["color"])
    d.eq("labels", list(ours.labels), ref.get("labels", []))
    d.eq("terrain (upgrade_costs)", [(t.cost, t.kind) for t in ours.terrain], _ref_terrain(ref))
    d.eq("terrain_cost", ours.terrain_cost, sum(c["cost"] for c in ref.get("upgrade_costs", ())))
    d.eq("nodes (cities/towns/offboards)", _our_nodes(ours), _ref_nodes(ref))
    d.eq("paths", _our_paths(ours), _ref_paths(ref))
    d.eq("exits", sorted(ours.exits()), sorted(ref.get("exits", [])))
    d.eq("icons", list(ours.icons), _ref_icons(ref))
    for i in ref.get("icons", ()):
        d.check("icons.blocks_lay", not i["blocks_lay"], f"{i['name']} blocks lays: not modelled")
    # rotation keeps the path structure: every exit turns with the tile
    turned = sorted((e + 1) % 6 for e in ref.get("exits", []))
    d.eq("exits(rotation=1)", sorted(ours.exits(1)), turned)


# -------------------------------------------------------------------------- map


@pytest.mark.parametrize(("title", "rule"), ALL_CASES)
def test_same_hexes(title: str, rule: str) -> None:
    assert sorted(loaded(title, rule).map.hexes) == sorted(expected_facts(title, rule)["hexes"])


@pytest.mark.parametrize(("title", "rule"), ALL_CASES)
def test_layout(title: str, rule: str) -> None:
    data, facts = loaded(title, rule), expected_facts(title, rule)
    assert data.layout == facts["layout"] == facts["rules"]["layout"]
    assert data.map.layout == facts["layout"]


@pytest.mark.parametrize("title", list(FACT_FILES))
def test_impassable_hex_colors(title: str) -> None:
    assert set(base_facts(title)["rules"]["impassable_hex_colors"]) == IMPASSABLE_HEX_COLORS


@pytest.mark.parametrize(("title", "hex_id"), [
    pytest.param(t, h, id=f"{t}/{h}") for t in FACT_FILES for h in base_facts(t)["hexes"]
])
def test_direction_table(title: str, hex_id: str) -> None:
    """Our hex grid's neighbour offsets are the reference's ``direction_table``."""
    facts = base_facts(title)
    h = facts["hexes"][hex_id]
    for row in facts["direction_table"]:
        x, y = h["x"] + row["dx"], h["y"] + row["dy"]
        expect = f"{chr(65 + y)}{x + 1}" if x >= 0 and 0 <= y <= 25 else None
        assert neighbor_id(hex_id, row["edge"], facts["layout"]) == expect, row


@pytest.mark.parametrize(("title", "rule", "hex_id"), _hex_params())
def test_hex(title: str, rule: str, hex_id: str) -> None:
    data = loaded(title, rule)
    ref = expected_facts(title, rule)["hexes"][hex_id]
    hs: HexSpec = data.map.hexes[hex_id]
    d = Diffs(f"{title}/{rule}/{hex_id}")
    d.eq("x", hs.x, ref["x"])
    d.eq("y", hs.y, ref["y"])
    d.eq("id (row letter + column)", hs.id, f"{ref['row']}{ref['column']}")
    d.eq("preprinted tile id", hs.preprinted_id, ref["tile_id"])
    d.eq("tile name", hs.tile.name, ref["tile_name"])
    d.eq("tile count (preprinted)", hs.tile.count, 0)
    d.eq("location name", hs.location, ref.get("location_name"))
    _compare_tile_parts(d, hs.tile, ref)
    d.eq(
        "borders",
        [(b.edge, b.kind, b.cost, b.color) for b in hs.borders],
        [(b["edge"], b["type"], b.get("cost", 0), b.get("color")) for b in ref.get("borders", ())],
    )
    d.eq("blockers", list(hs.blockers), ref.get("blockers", []))
    d.eq("stubs", list(hs.stubs), ref.get("stubs", []))
    d.eq(
        "partitions",
        [list(p) for p in hs.partitions],
        [[p["a"], p["b"], p["type"]] for p in ref.get("partitions", ())],
    )
    for p in ref.get("partitions", ()):
        # not modelled: a partition restriction, and the blocking (a runtime fact:
        # 18Rhl's NLK ability blocks water partitions while it is open)
        d.eq("partition.restrict", p["restrict"], None)
        d.eq("partition.blocked_by", p["blocked_by"], [])
    # Neighbours.  Ours (HexSpec.neighbors) list every on-map hex across each
    # edge.  The reference's omit (a) the side of an impassable border recorded on
    # this hex and (b) a red/gray/blue neighbour whose track does not face back;
    # that is MapSpec.open_neighbors.  So: ours restricted that way == reference,
    # and every hex the reference lists is among ours.
    ref_neighbors = {int(e): n for e, n in ref["neighbors"].items()}
    d.eq("open_neighbors", data.map.open_neighbors(hex_id), ref_neighbors)
    all_sides = {e: neighbor_id(hex_id, e, data.layout) for e in range(6)}
    d.eq("neighbors (all on-map)", dict(hs.neighbors),
         {e: n for e, n in all_sides.items() if n in data.map.hexes})
    for e, n in hs.neighbors.items():
        d.eq(f"neighbor {e} faces back", data.map.neighbor(n, opposite(e)), hex_id)
    for b in hs.borders:
        if b.kind == "impassable":
            d.check(f"border {b.edge}", b.edge not in ref_neighbors, "reference crosses it")
            d.check(f"border {b.edge}", b.edge not in hs.neighbors
                    or data.map.crossing_blocked(hex_id, b.edge), "crossing_blocked is False")
    # node lookups used by the engine agree with the nodes listed
    for n in hs.tile.cities:
        d.eq(f"city_index(p{n.part})", hs.tile.cities[hs.tile.city_index(n.part)], n)
    d.done()


# ------------------------------------------------------------------------ tiles


@pytest.mark.parametrize(("title", "rule"), ALL_CASES)
def test_same_tiles(title: str, rule: str) -> None:
    ours = list(loaded(title, rule).tiles)
    ref = list(expected_facts(title, rule)["tiles"])
    assert sorted(ours) == sorted(ref)


@pytest.mark.parametrize(("title", "rule", "name"), _tile_params())
def test_tile(title: str, rule: str, name: str) -> None:
    tile = loaded(title, rule).tiles[name]
    ref = expected_facts(title, rule)["tiles"][name]
    d = Diffs(f"{title}/{rule}/tile {name}")
    d.eq("name", tile.name, name)
    d.eq("count", tile.count, ref["count"])
    d.eq("copy ids", tile.copy_ids(), ref["ids"])
    _compare_tile_parts(d, tile, ref)
    d.done()


# ----------------------------------------------------------------------- trains


def _ref_distance(dist: int | list[dict[str, Any]]) -> tuple[DistanceRule, ...]:
    # a plain number n: n stops of any kind, each counted (the reference's n-train)
    if isinstance(dist, int):
        return (DistanceRule(("city", "offboard", "town"), dist, dist),)
    return tuple(DistanceRule(tuple(x["nodes"]), x["pay"], x["visit"]) for x in dist)


@pytest.mark.parametrize(("title", "rule"), ALL_CASES)
def test_train_order(title: str, rule: str) -> None:
    assert [t.name for t in loaded(title, rule).trains] == [
        t["name"] for t in expected_facts(title, rule)["trains"]
    ]


@pytest.mark.parametrize(("title", "rule", "name"), _record_params("trains"))
def test_train(title: str, rule: str, name: str) -> None:
    t = loaded(title, rule).train(name)
    ref = _find(expected_facts(title, rule)["trains"], name)
    d = Diffs(f"{title}/{rule}/train {name}")
    d.eq("count", t.count, ref["count"])
    d.eq("price", t.price, ref["price"])
    d.eq("distance", t.distance, _ref_distance(ref["distance"]))
    city = ref["distance"] if isinstance(ref["distance"], int) else next(
        x["pay"] for x in ref["distance"] if "city" in x["nodes"]
    )
    d.eq("city_stops", t.city_stops, city)
    d.eq("rusts_on", t.rusts_on, ref.get("rusts_on"))
    d.eq("available_on", t.available_on, ref.get("available_on"))
    d.eq("discount", None if t.discount is None else dict(t.discount), ref.get("discount"))
    d.eq("events", list(t.events), [e["type"] for e in ref.get("events", ())])
    for e in ref.get("events", ()):
        # events fire when the first train of the type is bought
        d.eq(f"event {e['type']} on_train", e["on_train"], t.ids[0])
    d.eq("ids", t.ids, ref["ids"])
    d.done()


@pytest.mark.parametrize(("title", "rule"), ALL_CASES)
def test_phases(title: str, rule: str) -> None:
    ours = loaded(title, rule).phases
    ref = expected_facts(title, rule)["phases"]
    d = Diffs(f"{title}/{rule}/phases")
    d.eq("names", [p.name for p in ours], [p["name"] for p in ref])
    for p, r in zip(ours, ref, strict=False):
        d.eq(f"phase {r['name']} on", p.on, r["on"])
        tl = p.train_limit if isinstance(p.train_limit, int) else dict(p.train_limit)
        d.eq(f"phase {r['name']} train_limit", tl, r["train_limit"])
        for kind in ("corporation", "minor"):
            want = r["train_limit"] if isinstance(r["train_limit"], int) else r["train_limit"][kind]
            if isinstance(r["train_limit"], int) or kind in r["train_limit"]:
                d.eq(f"phase {r['name']} limit_for({kind})", p.limit_for(kind), want)
        d.eq(f"phase {r['name']} tiles", list(p.tiles), r["tiles"])
        d.eq(f"phase {r['name']} status", list(p.status), r["status"])
        d.eq(f"phase {r['name']} operating_rounds", p.operating_rounds, r["operating_rounds"])
        d.check(f"phase {r['name']} on", p.on in {t.name for t in loaded(title, rule).trains},
                "starts on no train")
    d.done()


# ----------------------------------------------------------------------- market


@pytest.mark.parametrize(("title", "rule"), ALL_CASES)
def test_stock_market(title: str, rule: str) -> None:
    data = loaded(title, rule)
    ref = expected_facts(title, rule)["stock_market"]
    d = Diffs(f"{title}/{rule}/stock market")
    d.eq("movement", data.market_movement, ref["movement"])
    d.eq("row lengths", [len(r) for r in data.market], [len(r) for r in ref["rows"]])
    for r, (ours_row, ref_row) in enumerate(zip(data.market, ref["rows"], strict=False)):
        for c, (cell, rc) in enumerate(zip(ours_row, ref_row, strict=False)):
            if rc is None or cell is None:
                d.eq(f"cell {r},{c}", cell, rc)
                continue
            d.eq(f"cell {r},{c} price", cell.price, rc["price"])
            d.eq(f"cell {r},{c} row/col", (cell.row, cell.col), (r, c))
            d.eq(f"cell {r},{c} types", list(cell.types), rc["types"])
            d.eq(f"cell {r},{c} is_par", cell.is_par, any(t.startswith("par") for t in rc["types"]))
    # par action "share_price" ids: "<price>,<row>,<column>"
    d.eq(
        "par ids",
        [c.id for c in data.par_cells],
        [
            f"{rc['price']},{r},{c}"
            for r, row in enumerate(ref["rows"])
            for c, rc in enumerate(row)
            if rc is not None and any(t.startswith("par") for t in rc["types"])
        ],
    )
    d.done()


# --------------------------------------------------------------------- entities


@pytest.mark.parametrize(("title", "rule"), ALL_CASES)
def test_entity_order(title: str, rule: str) -> None:
    data, facts = loaded(title, rule), expected_facts(title, rule)
    assert [c.sym for c in data.corporations] == [c["sym"] for c in facts["corporations"]]
    assert [m.sym for m in data.minors] == [m["sym"] for m in facts["minors"]]
    assert [p.sym for p in data.privates] == [p["sym"] for p in facts["companies"]]


def _abilities(ref: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in a.items() if k not in ABILITY_DROPPED} for a in ref.get("abilities", ())
    ]


@pytest.mark.parametrize(("title", "rule", "sym"), _record_params("corporations"))
def test_corporation(title: str, rule: str, sym: str) -> None:
    facts = expected_facts(title, rule)
    c = loaded(title, rule).corporation(sym)
    ref = _find(facts["corporations"], sym)
    d = Diffs(f"{title}/{rule}/corporation {sym}")
    d.eq("name", c.name, ref["full_name"])
    d.eq("tokens", list(c.tokens), ref["tokens"])
    home = ref["home"]
    d.eq("home", list(c.home), [] if home is None else home if isinstance(home, list) else [home])
    d.eq("home_city", c.home_city, ref["home_city"])
    d.eq("float_percent", c.float_percent, ref["float_percent"])
    d.eq("max_ownership_percent", c.max_ownership_percent, ref["max_ownership_percent"])
    d.eq("float_excludes_market", c.float_excludes_market, ref["float_excludes_market"])
    d.eq("floatable", c.floatable, ref["floatable"])
    shares = ref["shares"]
    d.eq("share percents", list(c.shares), [s["percent"] for s in shares])
    d.eq("share ids", c.share_ids, [s["id"] for s in shares])
    d.eq("president flags", [i == 0 for i in range(len(c.shares))],
         [s["president"] for s in shares])
    d.eq("president percent", c.president_percent, shares[0]["percent"])
    d.eq("double certificates", list(c.double_certs), [s["double_cert"] for s in shares])
    d.eq("reserved (unbuyable) shares", list(c.reserved_shares),
         [i for i, s in enumerate(shares) if not s["buyable"]])
    d.eq("total percent", sum(c.shares), 100)
    d.eq("abilities", [dict(a) for a in c.abilities], _abilities(ref))
    # unmodelled: every corporation trades at market price and is fully capitalised
    d.eq("always_market_price (unmodelled)", ref["always_market_price"], True)
    d.eq("capitalization (title rule)", loaded(title, rule).rules["capitalization"],
         ref["capitalization"])
    d.check("type (unmodelled)", ref["type"] in (None, "corporation"), f"type {ref['type']!r}")
    d.done()


@pytest.mark.parametrize(("title", "rule", "sym"), _record_params("minors"))
def test_minor(title: str, rule: str, sym: str) -> None:
    ref = _find(expected_facts(title, rule)["minors"], sym)
    m = next(x for x in loaded(title, rule).minors if x.sym == sym)
    d = Diffs(f"{title}/{rule}/minor {sym}")
    d.eq("name", m.name, ref["full_name"])
    d.eq("tokens", list(m.tokens), ref["tokens"])
    d.eq("home", m.home, ref["home"])
    d.eq("home_city", m.home_city, ref["home_city"])
    d.eq("abilities", [dict(a) for a in m.abilities], _abilities(ref))
    d.eq("type", ref["type"], "minor")
    d.done()


@pytest.mark.parametrize(("title", "rule", "sym"), _record_params("companies"))
def test_private(title: str, rule: str, sym: str) -> None:
    ref = _find(expected_facts(title, rule)["companies"], sym)
    p = loaded(title, rule).private(sym)
    d = Diffs(f"{title}/{rule}/private {sym}")
    d.eq("name", p.name, ref["full_name"])
    d.eq("value", p.value, ref["value"])
    d.eq("revenue", p.revenue, ref["revenue"])
    d.eq("initial_owner", p.initial_owner, ref["initial_owner"])
    # price limits between players: half to double the face value
    d.eq("min_price", p.min_price, ref["min_price"])
    d.eq("max_price", p.max_price, ref["max_price"])
    d.eq("abilities", [dict(a) for a in p.abilities], _abilities(ref))
    for a in ref.get("abilities", ()):
        d.eq(f"ability({a['type']!r}) type", (p.ability(a["type"]) or {}).get("type"), a["type"])
    d.done()


@pytest.mark.parametrize("title", list(FACT_FILES))
def test_ability_flags_are_derivable(title: str) -> None:
    """The ability flags we drop hold one value per ability type (all rules together)."""
    seen: dict[tuple[str, str], set[str]] = {}
    for rule in [BASE, *base_facts(title)["optional_rules"]]:
        facts = expected_facts(title, rule)
        for rec in facts["companies"] + facts["corporations"] + facts["minors"]:
            for a in rec.get("abilities", ()):
                for k in ABILITY_DROPPED[1:]:
                    seen.setdefault((a["type"], k), set()).add(json.dumps(a.get(k, False)))
    mixed = {k: v for k, v in seen.items() if len(v) > 1}
    assert not mixed
    for (kind, flag), values in seen.items():
        if flag in ("use_across_ors", "remove_when_used_up"):
            assert values == {"true"}, (kind, flag, values)
        if flag == "hidden":
            assert values == {"false"}, (kind, flag, values)


# ------------------------------------------------------------------------- game


@pytest.mark.parametrize(("title", "rule"), ALL_CASES)
def test_bank_players_rng(title: str, rule: str) -> None:
    data, facts = loaded(title, rule), expected_facts(title, rule)
    rules = facts["rules"]
    d = Diffs(f"{title}/{rule}/game")
    d.eq("title", data.title, facts["title"])
    d.eq("optional_rules", list(data.optional_rules), [] if rule == BASE else [rule])
    d.eq("bank", data.bank, facts["bank_cash_total"])
    d.eq("bank (rules.bank_cash)", data.bank, rules["bank_cash"])
    d.eq("rng (a, c, m)", data.rng, (rules["rand_a"], rules["rand_c"], rules["rand_m"]))
    d.eq("rng m", data.rng[2], 2**31)
    lo, hi = facts["game_constants"]["player_range"]
    d.eq("player counts", sorted(data.players), list(range(lo, hi + 1)))
    d.eq("player counts (per_player_count)", sorted(data.players),
         sorted(int(n) for n in facts["per_player_count"]))
    # A rule that changes the starting cash lists only the figure of the player
    # count the facts were generated with; the cash of every count then comes
    # from the title's ``lower_starting_cash`` constant.
    lower = any(x["path"] == "player_start_cash"
                for x in facts["optional_rules"].get(rule, {}).get("differences", ()))
    for n, row in facts["per_player_count"].items():
        cash = facts["game_constants"]["lower_starting_cash"][n] if lower else row["start_cash"]
        d.eq(f"{n} players: starting cash", data.players[int(n)][0], cash)
        d.eq(f"{n} players: cert limit", data.players[int(n)][1], row["cert_limit"])
        d.eq(f"{n} players: cert limit (rules)", data.players[int(n)][1], rules["cert_limit"][n])
        if not lower:
            d.eq(f"{n} players: starting cash (rules)", data.players[int(n)][0],
                 rules["starting_cash"][n])
            d.eq(f"{n} players: bank after start", data.bank - int(n) * cash,
                 row["bank_cash_after_start"])
    n = facts["generated_with"]["players"]
    d.eq(f"{n} players: starting cash (generated game)", data.players[n][0],
         facts["player_start_cash"])
    d.eq(f"{n} players: cert limit (generated game)", data.players[n][1], facts["cert_limit"])
    d.eq(f"{n} players: bank after start (generated game)", data.bank - n * data.players[n][0],
         facts["bank_cash_after_start"])
    for k, v in data.rules.items():
        d.eq(f"rules.{k}", v, rules.get(k, "<absent>"))
    d.eq("constants", dict(data.constants),
         {k: v for k, v in facts["game_constants"].items() if k not in CONSTANTS_DROPPED})
    d.done()


# Reference rules our game.json carries elsewhere or that are not rules.
RULES_ELSEWHERE = ("bank_cash", "starting_cash", "cert_limit", "layout", "axes",
                   "rand_a", "rand_c", "rand_m", "currency_format_str", "impassable_hex_colors")


def test_rules_not_carried_are_common() -> None:
    """A reference rule our game.json does not carry has one value in both titles.

    The engine takes such a rule as a common default (18xx: the base rules), so
    not carrying it loses nothing while the two titles agree.
    """
    rhl, cologne = (base_facts(t)["rules"] for t in FACT_FILES)
    carried = set(loaded("18Rhl", BASE).rules) | set(RULES_ELSEWHERE)
    assert carried == set(loaded("1893", BASE).rules) | set(RULES_ELSEWHERE)
    differing = sorted(k for k in rhl.keys() | cologne.keys()
                       if k not in carried and rhl.get(k) != cologne.get(k))
    assert differing == []


@pytest.mark.parametrize(("title", "rule"), ALL_CASES)
def test_variable_icons(title: str, rule: str) -> None:
    data, facts = loaded(title, rule), expected_facts(title, rule)
    ref = facts.get("variable_icons")
    if ref is None:
        assert data.variable_icons is None
        return
    assert data.variable_icons is not None
    placements = data.variable_icons["placements"]
    assert [r["value"] for r in ref["table"]] == list(range(1, len(placements) + 1))
    assert [tuple(p) for p in placements] == [
        (r["coal_icon_hex"], r["steel_icon_hex"]) for r in ref["table"]
    ]
    assert dict(data.variable_icons["icons"]) == ref["icon_names"]
    for coal, steel in placements:
        assert coal in data.map.hexes and steel in data.map.hexes


@pytest.mark.parametrize(("title", "rule"), ALL_CASES)
def test_id_conventions_hold(title: str, rule: str) -> None:
    """Our id builders produce the conventions ``id_conventions`` describes."""
    data, facts = loaded(title, rule), expected_facts(title, rule)
    for name, t in data.tiles.items():
        assert t.copy_ids() == [f"{name}-{i}" for i in range(t.count)]
    for t in data.trains:
        assert t.ids == [f"{t.name}-{i}" for i in range(t.count)]
    for c in data.corporations:
        assert c.share_ids == [f"{c.sym}_{i}" for i in range(len(c.shares))]
    for h in data.map.hexes.values():
        name, _, idx = h.preprinted_id.rpartition("-")
        assert name == h.id and idx.isdigit(), h.preprinted_id
    # the examples the conventions text gives, where the title has them
    examples = {
        "18Rhl": {"tile": "X922-0", "pre": "A8-1", "share": "ADR_1"},
        "1893": {"tile": "K57-1", "pre": "T3-5", "share": "DE_0"},
    }[title]
    text = json.dumps(facts["id_conventions"])
    for ex in examples.values():
        assert ex in text
    assert examples["pre"] in {h.preprinted_id for h in data.map.hexes.values()}
    assert examples["tile"] in {i for t in data.tiles.values() for i in t.copy_ids()}
    assert examples["share"] in {i for c in data.corporations for i in c.share_ids}


def test_unknown_optional_rule_is_refused() -> None:
    from rhineland.errors import GameError

    with pytest.raises(GameError, match="no optional rule"):
        get_title("18Rhl", ["no_such_rule"])


def test_path_rotation_keeps_nodes() -> None:
    p = TrackPath(5, "p0", terminal=1, gauge="narrow")
    assert p.rotated(2) == TrackPath(1, "p0", 1, "narrow")

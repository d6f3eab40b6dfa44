"""Transcribe a title's static facts into rhineland's own data schema.

Developer tool, run by hand when the title data must be rebuilt:

    python scripts/build_title_data.py ../shared/reference/18Rhl.facts.json

It reads a reference facts file (the published rules data of the title, as
collected in ``../shared/reference``) and writes the project's own files under
``src/rhineland/titles/<package>/data/``: ``game.json``, ``market.json``,
``trains.json``, ``entities.json``, ``tiles.json``, ``map.json`` and
``options.json``.  The schema is documented in ``docs/data-schema.md``.

Computed facts (neighbours, exits, upgrade graphs) are *not* transcribed: the
engine derives them, and ``tests/test_title_data.py`` checks them against the
reference.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

PACKAGES = {"18Rhl": "g18rhl", "1893": "g1893"}
ROOT = Path(__file__).resolve().parent.parent


def _end(end: dict[str, Any]) -> int | str:
    if "edge" in end:
        return int(end["edge"])
    return f"p{end['part']}"


def tile_spec(src: dict[str, Any]) -> dict[str, Any]:
    """Our tile schema: colour, labels, nodes (by part index), track, terrain, icons."""
    out: dict[str, Any] = {"color": src["color"]}
    if src.get("labels"):
        out["labels"] = list(src["labels"])
    nodes: dict[int, dict[str, Any]] = {}
    for kind, key in (("city", "cities"), ("town", "towns"), ("offboard", "offboards")):
        for n in src.get(key, []):
            node: dict[str, Any] = {"kind": kind, "revenue": n["revenue"]}
            if kind == "city":
                node["slots"] = n["slots"]
            for k_src, k_dst in (
                ("reserved_for", "reserved"),
                ("tokens", "markers"),
                ("groups", "groups"),
                ("loc", "loc"),
                ("hidden", "hidden"),
            ):
                if n.get(k_src):
                    node[k_dst] = n[k_src]
            nodes[int(n["part"])] = node
    if nodes:
        # Node i of the list is normally tile part i; where other parts (borders,
        # stubs) come first in the definition, the part number is kept explicitly.
        listed = []
        for pos, part in enumerate(sorted(nodes)):
            node = nodes[part]
            if part != pos:
                node = {"part": part, **node}
            listed.append(node)
        out["nodes"] = listed
    track = []
    for p in src.get("paths", []):
        seg: list[Any] = [_end(p["a"]), _end(p["b"])]
        extra = {}
        if p.get("terminal"):
            extra["terminal"] = int(p["terminal"])
        if p.get("track") and p["track"] != "broad":
            extra["gauge"] = p["track"]
        if extra:
            seg.append(extra)
        track.append(seg)
    if track:
        out["track"] = track
    if src.get("upgrade_costs"):
        out["terrain"] = [
            {"cost": c["cost"], "kind": "/".join(c["terrains"])} for c in src["upgrade_costs"]
        ]
    if src.get("icons"):
        out["icons"] = [
            i["name"] + ("!" if i.get("sticky") else "") for i in src["icons"]
        ]
    return out


# Ability keys not transcribed: ``summary`` is prose; the flags hold one value
# per ability type (tests/test_title_data.py checks this), so the engine takes
# them from the type.
_ABILITY_DROPPED = ("summary", "use_across_ors", "remove_when_used_up", "passive", "hidden")


def _abilities(entity: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in a.items() if k not in _ABILITY_DROPPED}
        for a in entity.get("abilities", [])
    ]


def build(facts: dict[str, Any]) -> dict[str, Any]:
    title = facts["title"]
    rules = facts["rules"]
    files: dict[str, Any] = {}

    players = {
        n: {"cash": v["start_cash"], "cert_limit": v["cert_limit"]}
        for n, v in facts["per_player_count"].items()
    }
    keep_rules = [
        "sell_after", "sell_movement", "sold_out_increase", "market_share_limit",
        "track_restriction", "home_token_timing", "must_buy_train", "ebuy_from_others",
        "game_end_check", "cert_limit_includes_privates", "min_bid_increment",
        "capitalization", "next_sr_player_order", "all_companies_assignable",
    ]
    files["game.json"] = {
        "title": title,
        "bank": rules["bank_cash"],
        "players": players,
        "layout": facts["layout"],
        "rng": {"a": rules["rand_a"], "c": rules["rand_c"], "m": rules["rand_m"]},
        "rules": {k: rules[k] for k in keep_rules if k in rules},
        "constants": {
            k: v
            for k, v in facts["game_constants"].items()
            if k not in ("autoroute", "dev_stages", "keywords", "mutex_rules", "prototype")
        },
    }
    if "variable_icons" in facts:
        vi = facts["variable_icons"]
        files["game.json"]["variable_icons"] = {
            "draw": "first",
            "placements": [[r["coal_icon_hex"], r["steel_icon_hex"]] for r in vi["table"]],
            "icons": {"coal": vi["icon_names"]["coal"], "steel": vi["icon_names"]["steel"]},
        }

    sm = facts["stock_market"]
    files["market.json"] = {
        "movement": sm["movement"],
        "rows": [
            [
                None
                if c is None
                else str(c["price"]) + (":" + ",".join(c["types"]) if c["types"] else "")
                for c in row
            ]
            for row in sm["rows"]
        ],
    }

    trains = []
    for t in facts["trains"]:
        tr: dict[str, Any] = {"name": t["name"], "count": t["count"], "price": t["price"]}
        dist = t["distance"]
        if isinstance(dist, int):
            tr["distance"] = dist
        else:
            tr["distance"] = [
                {"nodes": d["nodes"], "pay": d["pay"], "visit": d["visit"]} for d in dist
            ]
        for k in ("rusts_on", "available_on", "discount"):
            if k in t:
                tr[k] = t[k]
        if t.get("events"):
            tr["events"] = [e["type"] for e in t["events"]]
        trains.append(tr)
    phases = []
    for p in facts["phases"]:
        phases.append(
            {
                "name": p["name"],
                "on": p["on"],
                "train_limit": p["train_limit"],
                "tiles": p["tiles"],
                "status": p["status"],
                "operating_rounds": p["operating_rounds"],
            }
        )
    # records keyed by name/symbol, so that the options' merge patches compose
    files["trains.json"] = {
        "trains": {t.pop("name"): t for t in trains},
        "phases": phases,
    }

    corps = []
    for c in facts["corporations"]:
        corp: dict[str, Any] = {
            "sym": c["sym"],
            "name": c["full_name"],
            "tokens": c["tokens"],
            "home": c["home"],
            "float_percent": c["float_percent"],
            "max_ownership_percent": c["max_ownership_percent"],
            "shares": [s["percent"] for s in c["shares"]],
        }
        if c.get("home_city") is not None:
            corp["home_city"] = c["home_city"]
        unbuyable = [i for i, s in enumerate(c["shares"]) if not s.get("buyable", True)]
        if unbuyable:
            corp["reserved_shares"] = unbuyable
        if not c.get("floatable", True):
            corp["floatable"] = False
        if c.get("float_excludes_market"):
            corp["float_excludes_market"] = True
        if c.get("abilities"):
            corp["abilities"] = _abilities(c)
        corps.append(corp)
    minors = []
    for m in facts["minors"]:
        minor: dict[str, Any] = {
            "sym": m["sym"], "name": m["full_name"], "tokens": m["tokens"], "home": m["home"],
            "home_city": m.get("home_city", 0),
        }
        if m.get("abilities"):
            minor["abilities"] = _abilities(m)
        minors.append(minor)
    privates = []
    for position, p in enumerate(facts["companies"]):
        priv: dict[str, Any] = {
            "sym": p["sym"], "name": p["full_name"], "value": p["value"], "revenue": p["revenue"],
            "position": position,
        }
        if p.get("initial_owner"):
            priv["initial_owner"] = p["initial_owner"]
        if p.get("abilities"):
            priv["abilities"] = _abilities(p)
        privates.append(priv)
    files["entities.json"] = {
        "corporations": {c.pop("sym"): c for c in corps},
        "minors": {m.pop("sym"): m for m in minors},
        "privates": {p.pop("sym"): p for p in privates},
    }

    tiles = {}
    for name, t in facts["tiles"].items():
        spec = tile_spec(t)
        spec["count"] = t["count"]
        tiles[name] = spec
    files["tiles.json"] = tiles

    hexes = {}
    for hid, h in facts["hexes"].items():
        spec = tile_spec(h)
        spec["preprinted"] = h["tile_id"]
        if h.get("location_name"):
            spec["name"] = h["location_name"]
        if h.get("borders"):
            spec["borders"] = [dict(b) for b in h["borders"]]
        if h.get("blockers"):
            spec["blockers"] = h["blockers"]
        if h.get("stubs"):
            spec["stubs"] = h["stubs"]
        if h.get("partitions"):
            spec["partitions"] = [
                {"a": p["a"], "b": p["b"], "kind": p["type"]} for p in h["partitions"]
            ]
        hexes[hid] = spec
    files["map.json"] = {"hexes": hexes}

    # Optional rules: a JSON merge patch (RFC 7386) over our own files, per file.
    base_facts = facts
    options: dict[str, Any] = {}
    for opt, info in facts.get("optional_rules", {}).items():
        variant = copy.deepcopy(base_facts)
        variant.pop("optional_rules", None)
        for diff in info["differences"]:
            _apply_diff(variant, diff)
        vfiles = build({**variant, "optional_rules": {}})
        patch = {}
        for fname, content in vfiles.items():
            if fname == "options.json":
                continue
            p = _merge_patch_diff(files[fname], content)
            if p is not _SAME:
                patch[fname] = p
        options[opt] = patch
    files["options.json"] = options
    return files


def _apply_diff(facts: dict[str, Any], diff: dict[str, Any]) -> None:
    if diff["path"] == "player_start_cash":
        # the lower starting capital: cash per player count from the title constants
        lower = facts["game_constants"]["lower_starting_cash"]
        for n, row in facts["per_player_count"].items():
            row["start_cash"] = lower[n]
        return
    parts = diff["path"].split("/")
    node: Any = facts
    for p in parts[:-1]:
        if isinstance(node, list):
            # list of named records (trains, companies)
            node = next(x for x in node if x.get("name", x.get("sym")) == p)
        else:
            node = node.setdefault(p, {})
    last = parts[-1]
    if isinstance(node, list):
        idx = next((i for i, x in enumerate(node) if x.get("name", x.get("sym")) == last), None)
        if diff["change"] == "removed":
            assert idx is not None
            node.pop(idx)
            _REMOVED_AT[id(node)] = idx
        elif idx is None:
            # an added record takes the place of one removed from the same list
            node.insert(_REMOVED_AT.pop(id(node), len(node)), diff["value"])
        else:
            node[idx] = diff["value"]
        return
    if diff["change"] == "removed":
        node.pop(last, None)
    else:
        node[last] = diff["value"]


_REMOVED_AT: dict[int, int] = {}


class _Same:
    pass


_SAME: Any = _Same()


def _merge_patch_diff(base: Any, new: Any) -> Any:
    if isinstance(base, dict) and isinstance(new, dict):
        out: dict[str, Any] = {}
        for k in base:
            if k not in new:
                out[k] = None
        for k, v in new.items():
            if k not in base:
                out[k] = v
            else:
                d = _merge_patch_diff(base[k], v)
                if d is not _SAME:
                    out[k] = d
        return out if out else _SAME
    return _SAME if base == new else new


def _dump(content: Any) -> str:
    """JSON with one record per line under each top-level key (diff-friendly)."""

    def one(v: Any) -> str:
        return json.dumps(v, ensure_ascii=False, separators=(", ", ": "))

    lines = ["{"]
    items = list(content.items())
    for i, (k, v) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if isinstance(v, dict) and v and all(isinstance(x, (dict, list)) for x in v.values()):
            lines.append(f" {one(k)}: {{")
            sub = list(v.items())
            for j, (k2, v2) in enumerate(sub):
                c2 = "," if j < len(sub) - 1 else ""
                lines.append(f"  {one(k2)}: {one(v2)}{c2}")
            lines.append(f" }}{comma}")
        elif isinstance(v, list) and v and all(isinstance(x, (dict, list)) for x in v):
            lines.append(f" {one(k)}: [")
            for j, v2 in enumerate(v):
                c2 = "," if j < len(v) - 1 else ""
                lines.append(f"  {one(v2)}{c2}")
            lines.append(f" ]{comma}")
        else:
            lines.append(f" {one(k)}: {one(v)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    for path in argv:
        facts = json.loads(Path(path).read_text())
        out_dir = ROOT / "src" / "rhineland" / "titles" / PACKAGES[facts["title"]] / "data"
        out_dir.mkdir(parents=True, exist_ok=True)
        for fname, content in build(facts).items():
            (out_dir / fname).write_text(_dump(content))
        print(f"wrote {out_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

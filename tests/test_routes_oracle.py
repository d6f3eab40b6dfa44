"""Every recorded ``run_routes`` of every fixture, validated and priced against the oracle.

For action ``i`` of an export (``../shared/fixtures/**.json``) the board is
rebuilt from the oracle trace entry just before it (``trace[i - 1]``, the
trace's ``initial`` for ``i == 0``) with its phase, the acting entity's
trains and tokens; the recorded routes go through
:func:`rhineland.routes.run_revenue` and each train's revenue must equal both
the export's ``revenue`` and the trace's ``route_revenue``.

18Rhl needs two pieces of game state the trace does not list: the variable
coal/steel icons (drawn from the export's seed) and the sticky icons carried
over from replaced tiles; :class:`IconTracker` keeps the latter by watching
tile changes from one trace entry to the next, as the engine would on every
tile lay.

The per-fixture tally ``N/M`` is printed (``pytest -s``) and asserted complete.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from rhineland.engine.titledata import TitleData
from rhineland.errors import GameError
from rhineland.io.trace import board_from_trace_state
from rhineland.routes import RevenueRules, RouteContext, RouteResult, run_revenue
from rhineland.titles import get_title
from rhineland.titles.g18rhl.revenue import RhlRevenue, carried_icons, variable_icons
from rhineland.titles.g1893.revenue import CologneRevenue

SHARED = Path(__file__).resolve().parents[1].parent / "shared"

pytestmark = pytest.mark.skipif(
    not (SHARED / "fixtures").is_dir(), reason=f"shared fixtures not found at {SHARED}"
)


def _fixtures() -> list[Path]:
    if not (SHARED / "fixtures").is_dir():
        return []
    return [
        *sorted(SHARED.glob("fixtures/18Rhl/*.json")),
        *sorted(SHARED.glob("fixtures/1893/*.json")),
        *sorted(SHARED.glob("fixtures/generated/*/*.json")),
    ]


def _trace_for(fixture: Path) -> Path:
    for p in (
        SHARED / "oracle" / f"{fixture.stem}.trace.json",
        SHARED / "oracle" / "generated" / f"{fixture.stem}.trace.json",
    ):
        if p.exists():
            return p
    raise FileNotFoundError(f"no oracle trace for {fixture.name}")


@lru_cache(maxsize=32)
def _load(path: Path) -> Any:
    return json.loads(path.read_bytes())


def rules_for(data: TitleData) -> RevenueRules:
    """The title's revenue rules (the lead wires these into the Title classes)."""
    if data.title == "18Rhl":
        return RhlRevenue.for_data(data)
    return CologneRevenue.for_data(data)


class IconTracker:
    """18Rhl hex icons beyond the current tile's: variable icons plus carried sticky ones."""

    def __init__(self, data: TitleData, seed: int, initial_tiles: Mapping[str, Any]) -> None:
        self.data = data
        self.icons: dict[str, frozenset[str]] = (
            variable_icons(data, seed) if data.title == "18Rhl" else {}
        )
        self.tiles = dict(initial_tiles)

    def update(self, tiles: Mapping[str, Any]) -> Mapping[str, frozenset[str]]:
        """Carry sticky icons of every tile replaced since the last call."""
        if self.data.title == "18Rhl":
            for h, now in tiles.items():
                before = self.tiles.get(h)
                if before == now:
                    continue
                old = self.data.tiles[before[0]] if before else self.data.map.hexes[h].tile
                keep = carried_icons(old)
                if keep:
                    self.icons[h] = self.icons.get(h, frozenset()) | keep
        self.tiles = dict(tiles)
        return dict(self.icons)


@dataclass
class Case:
    """One run_routes action: context, recorded routes, expected revenues per train."""

    index: int
    ctx: RouteContext
    routes: list[Mapping[str, Any]]
    recorded: dict[str, int]
    oracle: dict[str, int]


def cases(fixture: Path) -> Iterator[Case]:
    """The run_routes actions of one fixture, with their context from the trace."""
    export = _load(fixture)
    trace = _load(_trace_for(fixture))
    title = get_title(export["title"], export["settings"].get("optional_rules") or [])
    data = title.data
    rules = rules_for(data)
    entries = trace["trace"]
    icons = IconTracker(data, int(export["settings"]["seed"]), trace["initial"].get("tiles", {}))
    for i, action in enumerate(export["actions"]):
        state = trace["initial"] if i == 0 else entries[i - 1]
        hex_icons = icons.update(state.get("tiles", {}))
        if action["type"] != "run_routes" or not action["routes"]:
            continue
        sym = action["entity"]
        ent = state["corporations"].get(sym) or state.get("minors", {}).get(sym)
        assert ent is not None, f"{fixture.stem} action {i}: {sym} not in the trace state"
        ctx = RouteContext(
            board=board_from_trace_state(data, state),
            data=data,
            entity=sym,
            phase=state["phase"],
            trains=tuple(ent["trains"]),
            rules=rules,
            hex_icons=hex_icons,
        )
        yield Case(
            index=i,
            ctx=ctx,
            routes=action["routes"],
            recorded={r["train"]: r["revenue"] for r in action["routes"]},
            oracle={x["train"]: x["revenue"] for x in entries[i].get("route_revenue", [])},
        )


TALLY: dict[str, tuple[int, int]] = {}


@pytest.mark.parametrize("fixture", _fixtures(), ids=lambda p: p.stem)
def test_recorded_routes_match_oracle(fixture: Path) -> None:
    """Each recorded route is legal and pays what the export and the oracle say."""
    ok = total = 0
    failures: list[str] = []
    for case in cases(fixture):
        try:
            results: list[RouteResult] | None = run_revenue(case.ctx, case.routes)
            error = ""
        except GameError as e:
            results, error = None, str(e)
        for k, route in enumerate(case.routes):
            total += 1
            train = route["train"]
            got = results[k].revenue if results else None
            want = case.recorded[train]
            if got == want == case.oracle.get(train):
                ok += 1
            else:
                failures.append(
                    f"action {case.index} {case.ctx.entity} {train}: got {got} {error}, "
                    f"export {want}, oracle {case.oracle.get(train)} ({route.get('revenue_str')})"
                )
    TALLY[fixture.stem] = (ok, total)
    print(f"{fixture.stem}: {ok}/{total} run_routes routes match")
    assert not failures, "\n".join(failures[:20])


def test_fixtures_present() -> None:
    """The shared fixtures hold the 15 exports these tests expect."""
    assert len(_fixtures()) == 15

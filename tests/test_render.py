"""Drawing positions: valid SVG for the reference games, what is drawn counted against
the game state, the hex geometry, location names, and the render / routes --svg commands."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from reference import SHARED, needs_shared
from rhineland.board.hexgrid import DIRECTIONS
from rhineland.board.names import location_name, stops_text
from rhineland.cli.main import cli
from rhineland.engine.game import Game
from rhineland.io.export import load_export, replay_iter
from rhineland.render import render_svg
from rhineland.render.geometry import Layout, edge_angle
from rhineland.titles import get_title

NS = "{http://www.w3.org/2000/svg}"
FIXTURES = sorted((SHARED / "fixtures").rglob("*.json"))
FIXTURES = [p for p in FIXTURES if p.name != "manifest.json"]
REAL = {"18Rhl": SHARED / "fixtures" / "18Rhl" / "18Rhl_end_bank.json",
        "1893": SHARED / "fixtures" / "1893" / "1893_end_bank.json"}
SEED = SHARED / "fixtures" / "18Rhl" / "18Rhl_seed_opening.json"


def parse(text: str) -> ET.Element:
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == f"{NS}svg"
    return root


def by_class(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter() if cls in (e.get("class") or "").split()]


def positions(path: Path, count: int) -> list[tuple[int, Game]]:
    """``count`` positions spread evenly over the export (the last one included),
    each a game copy at that point, with the action id reached."""
    export = load_export(path)
    n = len(export.actions)
    wanted = {round(i * (n - 1) / max(count - 1, 1)) for i in range(count)}
    out = []
    for i, action, game in replay_iter(export):
        if i in wanted:
            out.append((action.id, game.copy()))
    return out


# -- geometry --------------------------------------------------------------------------

@pytest.mark.parametrize("layout", ["pointy", "flat"])
def test_edge_angles_point_at_the_neighbour_across_the_edge(layout: str) -> None:
    lay = Layout(layout, 10.0, 0.0, 0.0)
    for edge, (dx, dy) in enumerate(DIRECTIONS[layout]):
        x0, y0 = lay.centre(4, 4)
        x1, y1 = lay.centre(4 + dx, 4 + dy)
        angle = math.atan2(y1 - y0, x1 - x0)
        diff = (angle - edge_angle(layout, edge)) % (2 * math.pi)
        assert min(diff, 2 * math.pi - diff) < 1e-9, (layout, edge)
        # neighbours touch: centres one hex width apart
        assert math.hypot(x1 - x0, y1 - y0) == pytest.approx(10.0 * math.sqrt(3))


# -- names -----------------------------------------------------------------------------

def test_location_names_of_hexes_and_nodes() -> None:
    spec = get_title("18Rhl").data.map
    assert location_name(spec, "K2") == "Aachen (K2)"
    assert location_name(spec, "K2-0") == "Aachen (K2)"
    assert location_name(spec, "I10-2") == "Köln Deutz (I10)"
    assert location_name(spec, "E8-0") == "E8"  # a hex the map does not name
    assert stops_text(spec, ["K2-0", "K6-0"]) == "Aachen (K2) - Düren (K6)"
    spec93 = get_title("1893").data.map
    assert location_name(spec93, "R7-0") == "Bonn-Beuel (R7)"


# -- every reference game: valid SVG ---------------------------------------------------

@needs_shared
@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_svg_of_reference_positions_is_valid_xml(path: Path) -> None:
    for _, game in positions(path, 4):
        root = parse(render_svg(game))
        assert len(by_class(root, "hex")) == len(game.board.spec.hexes)


# -- what is drawn is the game state ---------------------------------------------------

def _board_tokens(game: Game) -> Counter[tuple[str, str]]:
    out: Counter[tuple[str, str]] = Counter()
    for (hex_, _ci), syms in game.board.tokens.items():
        for sym in syms:
            out[(hex_, sym)] += 1
    return out


def _drawn_tokens(root: ET.Element) -> Counter[tuple[str, str]]:
    out: Counter[tuple[str, str]] = Counter()
    for t in by_class(root, "token"):
        out[(t.get("data-hex") or "", t.get("data-company") or "")] += 1
    return out


@needs_shared
@pytest.mark.parametrize("title", sorted(REAL))
def test_tiles_tokens_and_companies_drawn_match_the_state(title: str) -> None:
    checked = 0
    for action_id, game in positions(REAL[title], 24):
        root = parse(render_svg(game))
        laid = {h.get("data-hex"): (h.get("data-tile"), int(h.get("data-rotation") or 0))
                for h in by_class(root, "hex") if h.get("data-laid")}
        expected = {h: (p.tile_id, p.rotation) for h, p in game.board.tiles.items()
                    if not game.board.is_preprinted(h)}
        assert laid == expected, action_id
        assert _drawn_tokens(root) == _board_tokens(game), action_id
        started = {c.sym for c in game.corporations.values()
                   if (c.ipoed or c.floated) and not c.closed}
        started |= {m.sym for m in game.minors.values() if not m.closed and m.owner is not None}
        assert {e.get("data-company") for e in by_class(root, "company")} == started, action_id
        markers = {e.get("data-company") for e in by_class(root, "market-marker")}
        assert markers == {c.sym for c in game.corporations.values()
                           if c.share_price is not None and not c.closed}, action_id
        assert len(by_class(root, "player")) == len(game.players)
        checked += 1
    assert checked >= 20
    # the real games lay tiles and place tokens: the check above compared real content
    assert laid and _board_tokens(game)


@needs_shared
def test_offboard_values_follow_the_phase() -> None:
    games = positions(REAL["18Rhl"], 2)  # the start and the end (phase 8)
    for _, game in games:
        root = parse(render_svg(game))
        now = {g.get("data-now") for g in by_class(root, "offboard-values")}
        color = game.phase.tiles[-1]
        nimwegen = game.board.tiles["A4"].tile.nodes[0].revenue_in(color)
        assert str(nimwegen) in now
    assert games[0][1].phase.name == "2" and games[-1][1].phase.name == "8"


@needs_shared
def test_seed_opening_draws_the_worked_example() -> None:
    """Seed 000: after OR 2, ADR (home Aachen K2) and RhE (Köln I10) hold their home
    tokens, ADR's yellow town tile lies on K4 between Aachen and Düren (K6)."""
    export = load_export(SEED)
    game = None
    for _, _, g in replay_iter(export):
        game = g
    assert game is not None
    root = parse(render_svg(game))
    companies = {k: n for k, n in _drawn_tokens(root).items() if k[1] in game.corporations}
    assert companies == {("K2", "ADR"): 1, ("I10", "RhE"): 1}
    # the printed coal and steel of the Eastern Ruhr sit in their city slots
    assert _drawn_tokens(root)[("C14", "K")] == 1 and _drawn_tokens(root)[("D15", "S")] == 1
    laid = [h for h in by_class(root, "hex") if h.get("data-laid")]
    assert [h.get("data-hex") for h in laid] == ["K4"]
    names = {t.text for t in root.iter(f"{NS}text") if t.get("class") == "name"}
    assert {"Aachen", "Düren", "Krefeld"} <= names
    company = {e.get("data-company"): e for e in by_class(root, "company")}
    texts = [t.text for t in company["ADR"].iter(f"{NS}text")]
    assert "225M" in texts and "2 2" in texts  # the seed: 225M treasury, trains 2 + 2


# -- commands --------------------------------------------------------------------------

def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@needs_shared
def test_render_command_svg_and_png(tmp_path: Path) -> None:
    code, _, err = run("render", str(SEED), "--at", "20", "-o", str(tmp_path / "a.svg"))
    assert code == 0, err
    parse((tmp_path / "a.svg").read_text(encoding="utf-8"))
    pytest.importorskip("cairosvg")
    code, _, err = run("render", str(SEED), "-o", str(tmp_path / "a.png"))
    assert code == 0, err
    assert (tmp_path / "a.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@needs_shared
def test_render_command_errors_are_one_line(tmp_path: Path) -> None:
    code, _, err = run("render", str(SEED), "-o", str(tmp_path / "a.txt"))
    assert code == 2 and err.count("\n") == 1 and "expected a file ending in .svg or .png" in err
    code, _, err = run("render", str(SEED), "--at", "99999", "-o", str(tmp_path / "a.svg"))
    assert code == 2 and err == "error: the export has no action 99999\n"
    code, _, err = run("render", str(tmp_path / "missing.json"), "-o", str(tmp_path / "a.svg"))
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1


@needs_shared
def test_routes_svg_draws_each_train_with_its_revenue(tmp_path: Path) -> None:
    out = tmp_path / "routes.svg"
    code, text, err = run("routes", str(REAL["18Rhl"]), "--before", "607", "--svg", str(out))
    assert code == 0, err
    assert "Duisburg (D9)" in text  # stops by name
    root = parse(out.read_text(encoding="utf-8"))
    drawn = {g.get("data-train"): int(g.get("data-revenue") or 0) for g in by_class(root, "route")}
    assert drawn == {"5-1": 320, "6-5": 440}  # CCE's best run there: 760M
    legend = "".join(t.text or "" for t in by_class(root, "route-legend")[0].iter(f"{NS}text"))
    assert "total 760M" in legend


@needs_shared
def test_routes_svg_errors_name_the_svg_option(tmp_path: Path) -> None:
    # the bad file name is refused before the replay and search, naming --svg (not --output)
    code, text, err = run("routes", str(REAL["18Rhl"]), "--before", "607",
                          "--svg", str(tmp_path / "best.jpg"))
    assert (code, text) == (2, "")
    assert err == f"error: --svg: expected a file ending in .svg or .png, found " \
                  f"{str(tmp_path / 'best.jpg')!r}\n"
    code, text, err = run("routes", str(REAL["18Rhl"]), "--before", "607", "--json",
                          "--svg", str(tmp_path / "no" / "such" / "dir" / "best.svg"))
    assert code == 2 and err.count("\n") == 1
    error = json.loads(err)["error"]
    assert error["kind"] == "bad_argument" and error["rule"] == "argument.output"
    assert error["message"].startswith("--svg: cannot write ")


@needs_shared
def test_best_routes_svg_draws_each_run_below_the_best(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    code, text, err = run("replay", str(REAL["18Rhl"]), "--until", "250", "--best-routes",
                          "--svg", str(folder))
    assert code == 0, err
    below = [line for line in text.splitlines() if " ran " in line and ", best " in line
             and line.startswith("OR")]
    files = sorted(p.name for p in folder.iterdir())
    assert len(files) == len(below) == 4
    assert "action-243-CCE.svg" in files  # OR 6.2: CCE ran 110M, the best is 120M
    root = parse((folder / "action-243-CCE.svg").read_text(encoding="utf-8"))
    assert len(by_class(root, "map")) == 2
    routes = by_class(root, "route")
    assert [(g.get("data-train"), g.get("data-revenue")) for g in routes] == \
        [("3-2", "110"), ("3-2", "120")]
    code, _, err = run("replay", str(SEED), "--svg", str(folder))
    assert code == 2 and err == "error: --svg needs --best-routes\n"


def test_svg_writer_escapes_text_and_attributes() -> None:
    from rhineland.render import svg

    doc = svg.document(10, 10, [
        svg.text(1, 2, 'Köln & "Deutz" <ferry>', class_="name", data_note='a "b" & <c>'),
        svg.element("rect", x=0.005, y=-0.001, width=3, height=2.5, stroke_width=1.0),
    ])
    root = parse(doc)
    t = next(root.iter(f"{NS}text"))
    assert t.text == 'Köln & "Deutz" <ferry>' and t.get("data-note") == 'a "b" & <c>'
    rect = next(root.iter(f"{NS}rect"))
    assert (rect.get("x"), rect.get("y"), rect.get("height"), rect.get("stroke-width")) == \
        ("0.01", "0", "2.5", "1")

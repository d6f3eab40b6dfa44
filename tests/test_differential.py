"""The differential harness's own parts that need no Ruby: playing games here in every
mode (their exports replay to the same state), the verdict's lines and the summary by
kind of fault.  Its runs against the reference are ``scripts/differential.py``."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from rhineland.engine.actions import Bankrupt
from rhineland.io.export import load_export, parse_export, replay, to_export
from rhineland.io.state_view import game_state
from rhineland.sim.differential import (
    ALL_BANKRUPT,
    BONDS_DEADLOCK,
    MERGER_TIE_CRASH,
    MODES,
    Oracle,
    OracleError,
    Verdict,
    documented_difference,
    documented_refusal,
    play_ours,
    summary,
)


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_plays_a_game_whose_export_replays(mode: str) -> None:
    game = play_ours("18Rhl", 11, mode, max_actions=60)
    out = to_export(game)
    assert len(out["actions"]) == 60
    again = replay(parse_export(out))
    assert game_state(again) == game_state(game)


def test_the_web_client_posts_every_action_over_the_api() -> None:
    game = play_ours("1893", 5, "web", max_actions=30, players=3)
    assert [a.id for a in game.actions] == list(range(1, 31))
    assert [p for _, p in game.seats] == ["P1", "P2", "P3"]


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown mode 'chess'"):
        play_ours("18Rhl", 1, "chess")


def test_the_oracle_needs_its_folder(tmp_path: Path) -> None:
    with pytest.raises(OracleError, match="no reference oracle"):
        Oracle(tmp_path / "missing")


def test_verdict_lines_and_the_summary_by_kind() -> None:
    clean = Verdict(game="a", title="18Rhl", source="even", actions=10, accepted=True,
                    same_values=True, matched=10, compared=10)
    refused = Verdict(game="b", title="18Rhl", source="web", actions=99, refused_at=42,
                      refusal="Engine::GameError: Not a buyable train: 2-6")
    other = Verdict(game="c", title="18Rhl", source="bots", actions=50, accepted=True,
                    same_values=True,
                    not_offered=[{"id": 7, "type": "sell_shares", "reason": "x"}],
                    difference={"action_id": 9, "type": "pass", "path": "players.1.cash",
                                "ours": 10, "reference": 20})
    assert clean.clean and not refused.clean and not other.clean
    assert clean.line() == "a [even, 10 actions]: ok (10/10 states)"
    assert refused.line() == ("b [web, 99 actions]: REFUSED at 42: Engine::GameError: Not a "
                              "buyable train: 2-6")
    assert "1 not offered, first #7" in other.line()
    assert "state differs after #9 (pass): players.1.cash: ours 10 != reference 20" in (
        other.line())
    lines = summary([clean, refused, other,
                     Verdict(game="d", title="18Rhl",
                             refusal="Engine::GameError: Not a buyable train: 4-1")])
    assert lines[0] == ("18Rhl: 4 games, 1 clean; accepted with the same values 2, every "
                        "action offered 3, every state equal 3")
    assert "     2 x 18Rhl refused: Engine::GameError: Not a buyable train: #  (e.g. b)" in (
        lines)
    assert any(line.endswith("x 18Rhl not offered: sell_shares  (e.g. c)") for line in lines)
    assert any("18Rhl state: pass -> players.#.cash" in line for line in lines)


def test_the_all_bankrupt_end_is_a_documented_difference() -> None:
    end = {"action_id": 645, "type": "bankrupt", "path": "finished", "ours": True,
           "reference": False}
    assert documented_difference(end, last=True) == ALL_BANKRUPT
    assert documented_difference(end, last=False) is None
    assert documented_difference({**end, "path": "players.1.cash"}, last=True) is None
    next_round = {**end, "path": "round.num", "ours": 1, "reference": 2}
    assert documented_difference(next_round, last=True) is None
    assert documented_difference(next_round, last=True, all_bankrupt=True) == ALL_BANKRUPT
    assert documented_difference({**next_round, "path": "players.1.cash"}, last=True,
                                 all_bankrupt=True) is None
    v = Verdict(game="e", title="18Rhl", accepted=True, same_values=True, difference=end,
                documented=ALL_BANKRUPT)
    assert v.clean and "documented difference: every player bankrupt" in v.line()
    assert summary([v])[0].endswith("every state equal 0 (and 1 but for a documented "
                                    "difference)")


def test_a_game_that_could_not_be_played_names_only_its_error() -> None:
    v = Verdict(game="f", title="1893", source="web", error="play failed: RuntimeError: x")
    assert v.line() == "f [web, 0 actions]: error: play failed: RuntimeError: x"
    assert v.kinds() == ["error: play failed: RuntimeError: x"]


def test_a_reference_failure_on_the_last_bankruptcy_is_the_documented_end(
        tmp_path: Path) -> None:
    """The reference fails (``ZeroDivisionError``) starting a stock round with nobody in
    it when the last player's bankruptcy ends an operating round: the documented
    all-bankrupt end, only when every player is bankrupt here."""
    data_dir = Path(__file__).parent / "data" / "selfplay"
    game = replay(load_export(data_dir / "18Rhl_seed959_last_bankruptcy.json"))
    before = tmp_path / "before.json"
    before.write_bytes(orjson.dumps(to_export(game)))
    game.process(Bankrupt(entity="KEG", entity_type="corporation"))
    ended = tmp_path / "ended.json"
    out = to_export(game)
    ended.write_bytes(orjson.dumps(out))
    last = out["actions"][-1]["id"]
    v = Verdict(game="ended", title="18Rhl", refused_at=last,
                refusal="ZeroDivisionError: divided by 0")
    assert documented_refusal(ended, out, v) == ALL_BANKRUPT
    other = Verdict(game="ended", title="18Rhl", refused_at=last,
                    refusal="Engine::GameError: Cannot go bankrupt")
    assert documented_refusal(ended, out, other) is None
    v.documented = ALL_BANKRUPT
    assert v.clean and "documented difference" in v.line()
    assert summary([v])[1].strip().startswith("1 x 18Rhl documented: every player")


def test_a_refused_bankruptcy_for_bonds_left_out_is_the_documented_deadlock(
        tmp_path: Path) -> None:
    """1893, seed 2044 (even), OR #198: RSE (190M, no train) must buy the 300M 4-train;
    its president P1 has 76M, no share he may sell and the bond AdSK-2, and no other
    company's train may be bought.  The reference counts the bond (366M), refuses the
    bankruptcy and accepts nothing else; rhineland leaves the bond out and goes on by
    the bankruptcy: the documented bonds deadlock."""
    data_dir = Path(__file__).parent / "data" / "differential"
    game = replay(load_export(data_dir / "1893_even2044_before198_bonds_deadlock.json"))
    assert game.legal_actions() == [Bankrupt(entity="RSE", entity_type="corporation")]
    game.process(Bankrupt(entity="RSE", entity_type="corporation"))
    assert game.finished
    ended = tmp_path / "ended.json"
    out = to_export(game)
    ended.write_bytes(orjson.dumps(out))
    v = Verdict(game="ended", title="1893", refused_at=out["actions"][-1]["id"],
                refusal="Engine::GameError: Cannot go bankrupt. RSE's cash plus P1's cash "
                        "and sellable shares total 366M")
    assert documented_refusal(ended, out, v) == BONDS_DEADLOCK
    v.documented = BONDS_DEADLOCK
    v.not_offered = [{"id": v.refused_at, "type": "bankrupt",
                      "reason": "offers bankrupt to nobody"}]
    assert v.clean and "not offered" not in v.line()
    v.not_offered.append({"id": 12, "type": "pass", "reason": "r"})
    assert not v.clean and "1 not offered, first #12" in v.line()


def test_the_reference_crash_on_a_tied_merger_is_documented() -> None:
    """1893-random-3017 #430: the reference fails (``Integer::MAX``) founding HGK with
    two 30% holders, one of whom merged nothing; the game is clean only if every state
    before it is equal."""
    v = Verdict(game="g", title="1893", refused_at=430,
                refusal="NameError: uninitialized constant Integer::MAX")
    data = {"actions": [{"id": 430, "type": "special_buy"}, {"id": 431, "type": "pass"}]}
    v.documented = documented_refusal(Path("unused.json"), data, v)
    assert v.documented == MERGER_TIE_CRASH
    assert v.clean
    v.difference = {"action_id": 12, "type": "pass", "path": "bank", "ours": 1,
                    "reference": 2}
    v.documented = documented_refusal(Path("unused.json"), data, v)
    assert v.documented == MERGER_TIE_CRASH
    assert not v.clean and "state differs after #12" in v.line()

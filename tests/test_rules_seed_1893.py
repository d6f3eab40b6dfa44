"""The ``seed`` rule set of 1893: the Starting Package as seed 001 states it
(:mod:`rhineland.titles.g1893.seed_rounds`), each rule with the seed's numbers, beside
the reference draft (docs/rules-differences.md, "The seed rule set")."""

from __future__ import annotations

import orjson
import pytest

from play import label
from reference import needs_shared
from rhineland import GameError, new_game, replay, to_export
from rhineland.engine.actions import Bid, Pass
from rhineland.engine.game import Game
from rhineland.io.export import parse_export
from rhineland.titles.g1893.starting_package import draftables


def game_3p(rules: str = "seed") -> Game:
    return new_game("1893", ["P1", "P2", "P3"], seed=5, rules=rules)


def offers(game: Game) -> dict[str, int]:
    return game.round.offers(game)  # type: ignore[attr-defined,no-any-return]


def test_offers_are_the_topmost_card_and_the_cheapest_minor() -> None:
    """Seed: "buy the topmost card in the package, buy the cheapest available minor
    company, or pass": FdSD (180M) and KSZ (minor 3, 100M), nothing else."""
    game = game_3p()
    assert offers(game) == {"FdSD": 180, "KSZ": 100}
    for sym, price in (("EVA", 150), ("EKB", 210), ("KFBE", 200)):
        with pytest.raises(GameError) as err:
            game.process(Bid(entity=1, company=sym, price=price))
        assert err.value.rule == "draft.item"
    game.process(Bid(entity=1, company="KSZ", price=100))
    assert game.player(1).cash == 500 and game.minors["KSZ"].cash == 100
    # the next cheapest minor: HdSK is no minor; BKB 180 < KFBE 200 < EKB 210 < KBE 220
    assert offers(game) == {"FdSD": 180, "BKB": 180}
    game.process(Bid(entity=2, company="FdSD", price=180))
    assert offers(game) == {"EVA": 150, "BKB": 180}


def test_reference_draft_offers_every_private_and_two_minors() -> None:
    game = game_3p("reference")
    from rhineland.titles.g1893.rules import Cologne

    assert isinstance(game.title, Cologne)
    assert draftables(game) == ["FdSD", "EVA", "HdSK", "EKB", "KFBE"]


def test_price_drops_5_when_everyone_passes_and_a_pass_is_not_for_good() -> None:
    """Seed: "If everyone passes without buying the first still-available card, its
    price drops by 5 Mark and it is offered again, and so on until someone buys it."
    FdSD 180 -> 175 -> 170M; P1, who passed twice, buys it at 170M; EVA starts at its
    face value 150M."""
    game = game_3p()
    for _ in range(2):
        for pid in (1, 2, 3):
            game.process(Pass(entity=pid))
    assert offers(game) == {"FdSD": 170, "KSZ": 100}
    assert game.round.current_entity(game).id == 1
    with pytest.raises(GameError) as err:
        game.process(Bid(entity=1, company="FdSD", price=180))
    assert err.value.rule == "draft.price"
    bank = game.bank.cash
    game.process(Bid(entity=1, company="FdSD", price=170))
    assert game.player(1).cash == 600 - 170 and game.bank.cash == bank + 170
    assert offers(game) == {"EVA": 150, "KSZ": 100}


def test_a_buy_restarts_the_lap_of_passes() -> None:
    """Two passes, then a buy of the cheapest minor: no drop; a full lap after it
    drops the topmost card (FdSD 180 -> 175M)."""
    game = game_3p()
    game.process(Pass(entity=1))
    game.process(Pass(entity=2))
    game.process(Bid(entity=3, company="KSZ", price=100))
    assert offers(game)["FdSD"] == 180
    for pid in (1, 2, 3):
        game.process(Pass(entity=pid))
    assert offers(game) == {"FdSD": 175, "BKB": 180}


def test_at_0_the_player_in_turn_must_take_the_card() -> None:
    """36 laps of passes bring FdSD to 0M; then a pass is refused (the seed: "until
    someone buys it") and P1 takes it for nothing."""
    game = game_3p()
    for _ in range(36):
        for pid in (1, 2, 3):
            game.process(Pass(entity=pid))
    assert offers(game)["FdSD"] == 0
    with pytest.raises(GameError) as err:
        game.process(Pass(entity=1))
    assert err.value.rule == "draft.must_take"
    game.process(Bid(entity=1, company="FdSD", price=0))
    assert game.private("FdSD").owner == 1 and game.player(1).cash == 600


def test_package_sold_out_starts_the_first_stock_round_and_replays() -> None:
    """Every card bought in turn (the topmost each time): SR 1 follows, led by the
    player after the last buyer; the export names the rule set and replays."""
    game = game_3p()
    pid, last = 1, 0
    while game.round.kind == "Draft":
        top = next(iter(offers(game).items()))
        if game.player(pid).cash < top[1]:
            game.process(Pass(entity=pid))
        else:
            game.process(Bid(entity=pid, company=top[0], price=top[1]))
            last = pid
        pid = pid % 3 + 1
    assert game.round.kind == "Stock" and label(game) == "SR 1"
    assert game.seat_order()[0].id == last % 3 + 1
    sold = {s: game.private(s).owner for s in ("FdSD", "EVA", "HdSK", "EKB", "KFBE", "KSZ",
                                               "KBE", "BKB")}
    assert all(isinstance(o, int) for o in sold.values())
    data = orjson.loads(orjson.dumps(to_export(game)))
    assert data["settings"]["rhineland_rules"] == "seed"
    again = replay(parse_export(data))
    assert {p.id: p.cash for p in again.players} == {p.id: p.cash for p in game.players}


@needs_shared
def test_fdsd_owner_is_held_to_the_certificate_limit_in_the_seed() -> None:
    """Seed 001: "Certificate limit per player: ... 3 players — 12" and "No player may hold
    more than 60%"; the reference lets FdSD's owner buy RAG beyond them.  released g23
    action 248 (the reference accepts it: 1001 at 9/9 buys RAG_8); the same position
    under the seed's rules refuses it."""
    from reference import ReferenceGames
    from rhineland.titles import get_title

    ref = ReferenceGames("1893")
    game = ref.position("released/g23", 247)
    action = ref.action("released/g23", 248)
    assert game.is_legal(action)
    seed_title = get_title("1893", game.title.optional_rules, "seed")
    game.title, game.data = seed_title, seed_title.data  # the same position, seed rules
    assert game.private("FdSD").owner == 1001
    with pytest.raises(GameError) as err:
        game.process(action)
    assert err.value.rule == "stock.cert_limit"
    assert game.corporation("RAG").percent_of(1001) == 20

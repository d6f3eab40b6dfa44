"""The RL action codec and observation encoding at the positions of the reference games.

Every reference game in ``../shared/fixtures`` is replayed with the replay API; at every
position of the real games, and at 25 evenly spread positions of each other game, every
legal action has exactly one code, the code decodes back to an action equal to it, the
mask is 1 exactly at those codes, and the recorded next action (when its amount lies on
the grid) has a code that decodes to it.  The observation has its fixed length there.

``RHINELAND_CODEC_POSITIONS=0`` checks every position of every game, the run's best
routes included (the acceptance run; a few minutes)::

    RHINELAND_CODEC_POSITIONS=0 .venv/bin/pytest tests/test_rl_codec.py -k every_legal
"""

from __future__ import annotations

import functools
import itertools
import os
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from reference import SHARED, needs_shared  # noqa: E402
from rhineland import new_game  # noqa: E402
from rhineland.engine.actions import Action, RunRoutes  # noqa: E402
from rhineland.engine.game import Game  # noqa: E402
from rhineland.engine.legal import AmountRange, RouteChoice, choice_key, find_choice  # noqa: E402
from rhineland.io.export import load_export, replay  # noqa: E402
from rhineland.rl import ActionCodec, CodecError, ObservationEncoder  # noqa: E402
from rhineland.rl.actions import BID_GRID, PRICE_GRID  # noqa: E402

SKIP = {"undo", "redo", "message", "program_share_pass", "program_buy_shares",
        "program_disable", "destination_connection"}
REAL = {"18Rhl/18Rhl_end_bank.json", "18Rhl/18Rhl_seed_opening.json",
        "1893/1893_end_bank.json"}
SAMPLED = int(os.environ.get("RHINELAND_CODEC_POSITIONS", "25"))
"""Positions checked per game other than the real ones (0: every position)."""
FIXTURES = sorted(str(p.relative_to(SHARED / "fixtures"))
                  for p in (SHARED / "fixtures").rglob("*.json") if p.name != "manifest.json")


@functools.cache
def codec(title: str, n: int) -> ActionCodec:
    return ActionCodec(title, n)


@functools.cache
def encoder(title: str, n: int) -> ObservationEncoder:
    return ObservationEncoder(title, n)


def check_position(game: Game, recorded: Action | None, routes: bool) -> int:
    """Check the codes at ``game``'s position; return how many legal actions had one."""
    c = codec(game.title.data.title, len(game.players))
    legal = c.legal(game)
    assert len(legal.codes) == len(set(legal.codes))
    assert int(legal.mask.sum()) == len(legal.codes)
    assert all(legal.mask[code] == 1 for code in legal.codes)
    seen: set[int] = set()
    for choice in game.legal_actions():
        if isinstance(choice, RouteChoice):
            code = c.blocks["run_routes"][0]
            assert code in legal
            seen.add(code)
            if routes:
                run = legal.action(code)
                assert isinstance(run, RunRoutes) and run.entity == choice.entity
                assert run == choice.best(game)
        elif isinstance(choice, AmountRange):
            grid = BID_GRID if choice.type == "bid" else PRICE_GRID
            amounts = [a for _, a in grid.amounts(choice.min, choice.max)]
            assert amounts[0] == choice.min
            for amount in amounts:
                assert choice.min <= amount <= choice.max
                action = choice.at(amount)
                code = c.code_of(game, action, choice)
                assert code not in seen, c.describe(code)
                seen.add(code)
                assert legal.action(code) == action
        else:
            code = c.code_of(game, choice)
            assert code not in seen, c.describe(code)
            seen.add(code)
            assert legal.action(code) == choice
    assert seen == set(legal.codes)
    if recorded is not None and recorded.type not in ("run_routes", *SKIP):
        match = find_choice(game, game.legal_actions(), recorded)
        if isinstance(match, AmountRange):
            grid = BID_GRID if match.type == "bid" else PRICE_GRID
            amount = getattr(recorded, match.field)
            if amount == match.min or (amount % grid.unit == 0 and amount <= grid.cap):
                code = c.code_of(game, match.at(amount), match)
                assert choice_key(game, legal.action(code)) == choice_key(game, recorded)
        elif match is not None:
            assert isinstance(match, Action)
            code = c.code_of(game, match)
            assert choice_key(game, legal.action(code)) == choice_key(game, recorded)
    obs = encoder(game.title.data.title, len(game.players)).encode(game, 0)
    assert obs.shape == (encoder(game.title.data.title, len(game.players)).size,)
    assert obs.dtype == np.float32 and bool(np.isfinite(obs).all())
    return len(legal.codes)


@needs_shared
@pytest.mark.parametrize("rel", FIXTURES)
def test_every_legal_action_has_one_code_and_decodes_back(rel: str) -> None:
    export = load_export(SHARED / "fixtures" / rel)
    actions = export.actions
    decisions = [i for i, a in enumerate(actions) if a.type not in SKIP]
    every = rel in REAL or SAMPLED == 0
    stride = 1 if every else max(1, len(decisions) // SAMPLED)
    wanted = set(decisions[::stride])
    checked = []

    def at(i: int, action: Action, game: Game) -> None:
        if i + 1 in wanted and not game.is_terminal:
            checked.append(check_position(game, actions[i + 1], routes=every))

    game = replay(export, on_action=at, live=True)
    if 0 in wanted:
        first = new_game(export.title, [p.name for p in game.players], seed=export.seed,
                         optional_rules=export.optional_rules)
        checked.append(check_position(first, actions[0], routes=every))
    # every wanted position but the one after the last action (the game's end)
    assert len(checked) >= (len(wanted) - 1 if every else min(len(wanted) - 1, SAMPLED - 1))
    assert sum(checked) > len(checked)  # more than one legal action somewhere


def test_codes_are_fixed_per_title_and_player_count() -> None:
    """The table does not depend on optional rules or the game; blocks tile the space."""
    for title, n in (("18Rhl", 3), ("18Rhl", 6), ("1893", 2), ("1893", 4)):
        c = codec(title, n)
        starts = sorted(c.blocks.values())
        assert starts[0][0] == 0
        for (s0, n0), (s1, _) in itertools.pairwise(starts):
            assert s0 + n0 == s1
        assert starts[-1][0] + starts[-1][1] == c.size
        assert ActionCodec(title, n).size == c.size
        assert c.describe(0) == ("pass", ())


def test_public_encode_decode_round_trip_at_the_start() -> None:
    """18Rhl, 4 players: the first decisions are the waterfall auction's bids (5 M grid)
    and a pass; 1893, 3 players: the Starting Package draft at face value."""
    for title, n in (("18Rhl", 4), ("1893", 3)):
        game = new_game(title, [f"P{i}" for i in range(n)], seed=3)
        c = codec(title, n)
        legal = c.legal(game)
        for code in legal.codes:
            action = legal.action(code)
            assert c.encode(game, action) == code
            assert c.decode(game, code) == action
        with pytest.raises(CodecError):
            c.decode(game, c.blocks["dividend"][0])
        for outside in (-1, c.size, 10**9):  # no wrapping round, no IndexError
            with pytest.raises(CodecError, match=f"code {outside} is outside 0..{c.size - 1}"):
                c.decode(game, outside)
    game = new_game("18Rhl", ["a", "b", "c", "d"], seed=3)
    bids = [a for a in (codec("18Rhl", 4).legal(game).action(k)
                        for k in codec("18Rhl", 4).legal(game).codes) if a.type == "bid"]
    prices = sorted({b.price for b in bids})
    assert all(p % 5 == 0 for p in prices)


def test_observation_layout_and_real_values() -> None:
    """Seat-relative players' cash: 18Rhl with 4 players starts at 450 M each, 1893 with
    3 players at 600 M (the titles' starting cash); the dict view has the layout's shapes."""
    for title, n, cash in (("18Rhl", 4, 450), ("1893", 3, 600)):
        game = new_game(title, [f"P{i}" for i in range(n)])
        enc = encoder(title, n)
        flat = enc.encode(game, 1)
        view = enc.as_dict(flat)
        assert flat.shape == (enc.size,)
        assert sum(s.size for s in enc.layout) == enc.size
        assert {k: v.shape for k, v in view.items()} == {s.name: s.shape for s in enc.layout}
        assert list(view["players"][:, 0]) == [cash / 1000] * n
        assert view["phase"][0] == 1
        assert view["acting"].sum() == 1
        # the first seat decides; seen from seat 1 it is the last of the rotated seats
        assert view["acting"][n - 1] == 1
        assert enc.encode_dict(game, 0)["acting"][0] == 1


@needs_shared
def test_observation_follows_the_real_game() -> None:
    """At the end of the real 18Rhl game the players' cash and the corporations' share
    prices in the vector are the state's (cash / 1000, price / 100), rotated by seat."""
    game = replay(load_export(Path(SHARED / "fixtures" / "18Rhl" / "18Rhl_end_bank.json")))
    enc = encoder("18Rhl", len(game.players))
    for seat in range(len(game.players)):
        view = enc.encode_dict(game, seat)
        for i, p in enumerate(game.players):
            rel = (i - seat) % len(game.players)
            assert view["players"][rel, 0] == pytest.approx(p.cash / 1000)
        for ci, sym in enumerate(enc.corps):
            corp = game.corporations[sym]
            price = corp.share_price.price / 100 if corp.share_price else 0.0
            assert view["corporations"][ci, 6] == pytest.approx(price)
    assert enc.encode_dict(game, 0)["globals"][2] == 1  # the game is over



def test_two_legal_actions_with_one_code_are_refused() -> None:
    """18Rhl's first decision lists bid ranges (5 M grid, one code per price level): a
    range listed twice, or with its lowest bid listed on its own as well (a fixed amount
    is price level 0), shares level 0's code, and the codec refuses the list naming the
    code; listed once, every level above the lowest decodes to its bid."""
    game = new_game("18Rhl", ["a", "b", "c", "d"], seed=3)
    c = codec("18Rhl", 4)
    rng = next(r for r in game.legal_actions()
               if isinstance(r, AmountRange) and r.max >= r.min + 2 * BID_GRID.unit)
    base = c.code_of(game, rng.at(rng.min), rng)
    legal = c.legal(game)
    above = [(k, k * BID_GRID.unit) for k in BID_GRID.levels_above(rng.min, rng.max)]
    assert len(above) >= 2
    assert all(legal.action(base + k) == rng.at(price) for k, price in above)
    for listed in ([rng, rng], [rng.at(rng.min), rng], [rng, rng.at(rng.min)]):
        game.legal_actions = (  # type: ignore[method-assign]
            lambda expand=False, listed=listed: list(listed))
        with pytest.raises(CodecError, match=f"two legal actions share code {base} "):
            c.legal(game)

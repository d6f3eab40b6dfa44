"""Rules audit, round 3 (issue 9): more rules where rhineland and the reference engine
disagreed in situations the reference games of ``../shared`` do not reach, each with
real values, built through the public API from saved self-play positions
(``tests/data/selfplay``: exports of random games, replayed to the position).

Rule sources are named per test: the reference engine's rule as read in
tobymao/18xx (never its code) and the title data.
"""

from __future__ import annotations

from pathlib import Path

from play import price
from rhineland.engine.actions import Bankrupt
from rhineland.engine.emergency import emergency_bundles
from rhineland.io.export import load_export, replay

SELFPLAY = Path(__file__).parent / "data" / "selfplay"


# -- 18Rhl bankruptcy: the operating order is not re-sorted ---------------------------------


def test_18rhl_bankruptcy_keeps_the_order_of_the_companies_yet_to_operate() -> None:
    """18Rhl (the reference engine's 18Rhl bankruptcy step sells and dumps the bankrupt
    president's shares but, unlike the shared step and an emergency sale, does not
    re-sort the companies yet to operate).  Self-play seed 5, OR 10.2: RhE (19M) must
    buy a 500M train; its president P3 (100M) can raise 299M.  Going bankrupt, P3 sells
    DEE 10% and KEG 20% (each 60M -> 55M, one row down); ADR stays at 60M.  The order
    stays RhE, CME, GVE, CCE, BME, DEE, ADR, KEG: DEE still operates before ADR."""
    game = replay(load_export(SELFPLAY / "18Rhl_seed5_bankrupt_order.json"))
    rnd = game.round
    assert (rnd.label, rnd.step) == ("OR 10.2", "buy_train")
    order = ["RhE", "CME", "GVE", "CCE", "BME", "DEE", "ADR", "KEG"]
    assert rnd.order == order and rnd.index == 0
    rhe, p3 = game.corporation("RhE"), game.player(3)
    assert (rhe.cash, p3.cash) == (19, 100)
    sales = [(c.sym, pct) for c, _certs, pct in emergency_bundles(game, rhe, p3)]
    assert sales == [("DEE", 10), ("KEG", 20)]
    game.process(Bankrupt(entity="RhE", entity_type="corporation"))
    assert p3.bankrupt
    assert [price(game, s)[0] for s in ("DEE", "ADR", "KEG")] == [55, 60, 55]
    assert rnd.order == order and rnd.index == 1

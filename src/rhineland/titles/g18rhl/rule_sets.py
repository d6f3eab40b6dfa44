"""18Rhl's rule sets: the values and steps each one plays (one place for the choice).

``reference`` is the reference engine's game (18xx.games; every exported game
replays under it).  ``seed`` plays the rules seed ``000`` (English) and ``004``
(Italian) state where they differ from the reference (docs/rules-differences.md,
"The seed rule set"):

* (f) a company floats at the end of the stock round in which 50% (KEG 60%) has been
  sold, and the bank then pays it par × the shares sold ("Floats at the end of the
  round if 50% is sold"; "Before phase 5: on floating, par × shares sold"; the worked
  opening: "At the end of the round, the [ADR] has 50% sold and floats. The bank pays
  it the par price of the 5 shares sold: 400M");
* (c) with NLK bought, GVE floats with 40% sold, NLK's free 10% not counting as sold
  ("the GVE also floats with only 40% sold"), and receives par × the shares sold;
* (b) trains change hands between companies only from phase 3 (the phase table:
  "1st 3-train · Two operating rounds; trains between companies");
* (a) a company that must buy a train it cannot pay first sells its own treasury
  shares, then its president pays, and as a last resort the president sells shares or
  takes a bank loan, deducted doubled from their final wealth (rules summary
  "Bankruptcy" and comparison §8).
"""

from __future__ import annotations

from dataclasses import dataclass

from rhineland.engine.ruleset import REFERENCE, SEED
from rhineland.engine.steps import Step
from rhineland.titles.g18rhl.seed_steps import SEED_STEPS
from rhineland.titles.g18rhl.steps import STEPS


@dataclass(frozen=True)
class RhlRuleSet:
    """The choices of one 18Rhl rule set.

    ``float_at_sr_end``: floats wait for the end of the stock round (else at the
    purchase that reaches the float percentage); ``capital_per_share_sold``: an
    incremental float pays par × the shares sold (NLK's free GVE share not sold; else
    5 × par, KEG 6 ×); ``gve_nlk_float_sold``: percent of GVE that must be sold to
    float it once NLK was bought (``None``: its data's 50%, NLK's share counting);
    ``trains_between_companies_from``: the first phase (name) in which companies buy
    trains from each other; ``company_sells_treasury_first`` and ``bank_loan``: the
    seed's forced train purchase (the company sells its own shares first; the
    president may take a bank loan, counted double against their final value) instead
    of the reference's bankruptcy and receivership; ``steps``: the OR turn's steps;
    ``loan_penalty``: the factor of a loan deducted from the final value;
    ``keg_doubles_until_float``: until KEG floats only its 20% certificates may be
    bought, from the IPO or the market (the reference engine), else the seed's "the
    first two KEG certificates sold are the 20% ones" (no other IPO certificate while
    one is left there).
    """

    float_at_sr_end: bool
    capital_per_share_sold: bool
    gve_nlk_float_sold: int | None
    trains_between_companies_from: int
    company_sells_treasury_first: bool
    bank_loan: bool
    steps: tuple[Step, ...]
    loan_penalty: int = 2
    keg_doubles_until_float: bool = True


RULE_SETS: dict[str, RhlRuleSet] = {
    REFERENCE: RhlRuleSet(
        float_at_sr_end=False,
        capital_per_share_sold=False,
        gve_nlk_float_sold=None,
        trains_between_companies_from=2,
        company_sells_treasury_first=False,
        bank_loan=False,
        steps=STEPS,
    ),
    SEED: RhlRuleSet(
        float_at_sr_end=True,
        capital_per_share_sold=True,
        gve_nlk_float_sold=40,
        trains_between_companies_from=3,
        company_sells_treasury_first=True,
        bank_loan=True,
        steps=SEED_STEPS,
        keg_doubles_until_float=False,
    ),
}
"""Each rule set's choices (:mod:`rhineland.engine.ruleset`)."""

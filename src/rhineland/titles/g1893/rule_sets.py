"""1893's rule sets: the round and values each one plays (one place for the choice).

``reference`` is the reference engine's game (every exported game replays under it).
``seed`` plays what seed 001 states where the reference differs
(docs/rules-differences.md, "The seed rule set"):

* 1893 (a)/(b): the Starting Package by sequential offers — the topmost card or the
  cheapest minor, the topmost card's price dropping 5M when everybody passes
  (:class:`~rhineland.titles.g1893.seed_rounds.SeedPackageRound`), instead of the
  draft and the forced auction;
* 1893 (h): the certificate limit and the 60% holding limit bind FdSD's owner buying
  RAG like everyone ("No player may hold more than 60% ... Certificate limit per
  player"), where the reference accepts any RAG buy of FdSD's owner.
"""

from __future__ import annotations

from dataclasses import dataclass

from rhineland.engine.ruleset import REFERENCE, SEED
from rhineland.titles.g1893.rounds import StartingPackageDraft
from rhineland.titles.g1893.seed_rounds import SeedPackageRound


@dataclass(frozen=True)
class CologneRuleSet:
    """The choices of one 1893 rule set: ``package_round``, the first round's class;
    ``fdsd_owner_free_of_limits``: FdSD's owner buys RAG free of the certificate and
    holding limits (the reference engine's shortcut)."""

    package_round: type[StartingPackageDraft]
    fdsd_owner_free_of_limits: bool


RULE_SETS: dict[str, CologneRuleSet] = {
    REFERENCE: CologneRuleSet(package_round=StartingPackageDraft,
                              fdsd_owner_free_of_limits=True),
    SEED: CologneRuleSet(package_round=SeedPackageRound, fdsd_owner_free_of_limits=False),
}
"""Each rule set's choices (:mod:`rhineland.engine.ruleset`)."""

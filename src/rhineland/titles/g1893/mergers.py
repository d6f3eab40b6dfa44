"""1893's merged corporations: AGV and HGK become buyable, are voted on and founded
(the merger round, :class:`MergerRound`, and what it does).

Sources: seed ``001`` ("Minor companies that merge via shareholder vote") and
the oracle traces.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rhineland.engine.actions import Action, DiscardTrain, Pass, SpecialBuy
from rhineland.engine.entities import IPO, Player
from rhineland.engine.rounds.base import Round, finish_round
from rhineland.engine.shares import give, set_price, to_market
from rhineland.errors import GameError
from rhineland.titles.g1893.constants import (
    MERGED,
    MERGED_PAR_TYPE,
    MERGED_TREASURY,
    MERGERS,
    VOTE_ORDER,
)
from rhineland.titles.g1893.state import cologne_state

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.legal.choices import Candidate


class MergerRound(Round):
    """A merger round (``MR turn.num``): holders vote on founding AGV or HGK.

    Reserved-certificate holders vote their certificates' percentage, players
    their bought shares; the market's shares count as no.  50% yes founds the
    corporation, more than 50% no postpones it.  Then the new president may
    discard excess trains.
    """

    kind = "Merger"

    def __init__(self, turn: int, num: int) -> None:
        super().__init__(turn, num)
        self.offering: list[str] = []
        self.voters: list[int] = []
        self.votes: dict[int, int] = {}
        self.yes = 0
        self.no = 0
        self.index = 0
        self.discards: list[str] = []

    @property
    def label(self) -> str:
        """``MR turn.num``."""
        return f"MR {self.turn}.{self.num}"

    def start(self, game: Game) -> None:
        """Found or offer AGV/HGK (``start_merger_round``); end the round if nothing is left."""
        start_merger_round(game, self)
        self._check_done(game)

    def current_entity(self, game: Game) -> Any:
        """The corporation that must discard trains, else the player whose vote is next."""
        if self.discards:
            return game.corporation(self.discards[0])
        return game.player(self.voters[self.index])

    def step_name(self, game: Game) -> str:
        """``potential_discard_trains_after_merge`` while a founded corporation discards.

        Otherwise ``merger`` (reference engine step names).
        """
        if self.discards:
            return "potential_discard_trains_after_merge"
        return "merger"

    def candidates(self, game: Game) -> list[Candidate]:
        """A founded corporation's discards (each train, or pass); else the vote."""
        if self.discards:
            corp = game.corporation(self.discards[0])
            out: list[Candidate] = [
                DiscardTrain(entity=corp.sym, entity_type="corporation", train=t.id)
                for t in corp.trains
            ]
            out.append(Pass(entity=corp.sym, entity_type="corporation"))
            return out
        pid = self.current_entity(game).id
        return [SpecialBuy(entity=pid, description=d) for d in ("yes", "no")]

    def process(self, game: Game, action: Action) -> None:
        """A vote (``special_buy``: ``yes``/``no``), or a train discard after a founding.

        Raises ``GameError`` [``merger.vote``] for anything else while a vote is open.
        """
        if self.discards:
            process_merge_discard(game, self, action)
            self._check_done(game)
            return
        player = self.expect_player(game, action)
        if not isinstance(action, SpecialBuy) or action.description not in ("yes", "no"):
            raise GameError(
                f"{player.name} must vote yes or no on {self.offering[0]}", "merger.vote"
            )
        merger_vote(game, self, player, action.description)
        self._check_done(game)

    def _check_done(self, game: Game) -> None:
        if not self.offering and not self.discards:
            finish_round(game, self)


def make_buyable(game: Game, sym: str) -> None:
    """The merged corporation's unreserved shares go to the market at 120M."""
    corp = game.corporation(sym)
    kind = MERGED_PAR_TYPE[sym]
    cell = next(c for c in game.data.par_cells if kind in c.types)

    corp.par_price = cell
    set_price(game, corp, cell)
    for cert in corp.certificates:
        if cert.owner == IPO and not cert.reserved:
            to_market(game, cert)
    corp.can_buy_shares = True
    game.add_log(f"{sym} shares can now be bought")


def start_merger_round(game: Game, rnd: MergerRound) -> None:
    """At the start of a merger round: found AGV/HGK if a 5-/6-train scheduled it, else vote.

    A merger vote is offered for each corporation that is mergeable (buyable, not
    yet founded).  docs/rules-differences.md 1893 (d), (e).
    """
    state = cologne_state(game)
    for sym in MERGED:
        if state.auto_found[sym]:
            found(game, rnd, sym)
        elif state.mergable[sym]:
            offer_merger(game, rnd, sym)


def offer_merger(game: Game, rnd: MergerRound, sym: str) -> None:
    """Queue a merger vote on ``sym``; the first one queued is set up at once."""
    rnd.offering.append(sym)
    if len(rnd.offering) > 1:
        return
    _setup_vote(game, rnd, sym)


def _setup_vote(game: Game, rnd: MergerRound, sym: str) -> None:
    rnd.voters = []
    rnd.votes = {}
    rnd.yes = 0
    rnd.index = 0
    corp = game.corporation(sym)
    shares = dict(MERGERS[sym])
    for merging in VOTE_ORDER[sym]:
        share_index = shares[merging]
        owner = game.private(merging).owner
        if not isinstance(owner, int):
            continue
        pct = corp.certificates[share_index].percent
        if owner not in rnd.votes:
            rnd.voters.append(owner)
            rnd.votes[owner] = 0
        rnd.votes[owner] += pct
    for p in game.state.players:
        pct = corp.percent_of(p.id)
        if pct:
            if p.id not in rnd.votes:
                rnd.voters.append(p.id)
                rnd.votes[p.id] = 0
            rnd.votes[p.id] += pct
    rnd.no = 100 - sum(rnd.votes.values())


def merger_vote(game: Game, rnd: MergerRound, player: Player, choice: str) -> None:
    """Record ``player``'s vote (their voting percentage) on the first offered merger.

    50% yes founds the corporation; more than 50% no (market shares count as no)
    postpones it to the next merger round, as does the end of the votes.  Source:
    docs/rules-differences.md 1893 (e).
    """
    sym = rnd.offering[0]
    pct = rnd.votes.get(player.id, 0)
    done = False
    if choice == "yes":
        rnd.yes += pct
        game.add_log(f"{player.name} votes yes on {sym} ({rnd.yes}% yes)")
        if rnd.yes >= 50:
            found(game, rnd, sym)
            done = True
    else:
        rnd.no += pct
        game.add_log(f"{player.name} votes no on {sym} ({rnd.no}% no)")
        done = rnd.no > 50
    if done:
        rnd.offering.pop(0)
        if rnd.offering:
            _setup_vote(game, rnd, rnd.offering[0])
        return
    rnd.index += 1
    if rnd.index >= len(rnd.voters):
        rnd.offering.pop(0)
        if rnd.offering:
            _setup_vote(game, rnd, rnd.offering[0])


def found(game: Game, rnd: MergerRound, sym: str) -> None:
    """Found AGV/HGK: 400M from the bank, reserved certificates to the merging
    entities' owners, the minors' treasuries, trains and tokens; the presidency
    to the largest holder (ties: the merging order)."""
    state = cologne_state(game)
    state.auto_found[sym] = False
    state.mergable[sym] = False
    corp = game.corporation(sym)
    game.pay(game.bank, corp, MERGED_TREASURY)
    priority: list[int] = []
    pres_cert = corp.certificates[0]
    for merging, share_index in MERGERS[sym]:
        private = game.private(merging)
        owner = private.owner
        cert = corp.certificates[share_index]
        cert.reserved = False
        if isinstance(owner, int):
            give(game, cert, owner)
            priority.append(owner)
        game.title.close_private(game, private)
        minor = game.minors.get(merging)
        if minor is None:
            continue
        if minor.cash:
            game.pay(minor, corp, minor.cash)
        for t in list(minor.trains):
            minor.trains.remove(t)
            t.owner = corp.sym
            corp.trains.append(t)
        for hex_id, ci in minor.tokens:
            game.board.remove_token(hex_id, ci, minor.sym)
            game.board.add_token(hex_id, ci, corp.sym)
            corp.tokens.append((hex_id, ci))
            corp.tokens_used += 1
        minor.tokens = []
        minor.closed = True
        minor.floated = False
        minor.owner = None
    holders = {p.id: corp.percent_of(p.id) for p in game.state.players}
    best = max(holders.values())
    leaders = [pid for pid, pct in holders.items() if pct == best]
    if pres_cert.owner not in leaders:
        leaders.sort(key=lambda pid: priority.index(pid) if pid in priority else 99)
        from rhineland.engine.shares import president_swap

        president_swap(game, corp, leaders[0], pres_cert.owner)
    corp.floated = True
    corp.can_buy_shares = True
    game.add_log(f"{sym} is founded")
    if corp.trains:
        rnd.discards.append(sym)


def process_merge_discard(game: Game, rnd: MergerRound, action: Action) -> None:
    """After a founding, its president discards trains (``discard_train``) or passes.

    Discarded trains go to the open market.  A pass while over the train limit
    raises ``GameError`` [``train.limit``]; another action [``merger.discard``].
    """
    sym = rnd.discards[0]
    corp = game.corporation(sym)
    if action.type == "pass" and action.entity == sym:
        if game.title.over_train_limit(game, corp):
            raise GameError(f"{sym} must discard down to its train limit", "train.limit")
        rnd.discards.pop(0)
        return
    if action.type == "discard_train" and action.entity == sym:
        game.title.discard_train(game, corp, str(getattr(action, "train", "")))
        if not corp.trains:
            rnd.discards.pop(0)  # nothing left to decide
        return
    raise GameError(f"{sym}'s president decides which trains {sym} keeps", "merger.discard")

"""The title interface: static data plus the rule hooks in which titles differ.

The engine calls these hooks instead of testing the title's name.  The
defaults (:class:`~rhineland.engine.rules_stock.StockRules`,
:class:`~rhineland.engine.rules_operating.OperatingRules`,
:class:`~rhineland.engine.rules_trains.TrainRules`) are the common
18xx rules; each title package subclasses :class:`Title` in
``titles/<package>/rules.py`` and overrides what its rules change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rhineland.board.legality import BoardRules
from rhineland.engine.rules_operating import OperatingRules
from rhineland.engine.rules_stock import StockRules
from rhineland.engine.rules_trains import TrainRules
from rhineland.engine.ruleset import REFERENCE, check_rule_set
from rhineland.engine.titledata import TitleData, load_title_data
from rhineland.routes import RevenueRules

if TYPE_CHECKING:
    from rhineland.engine.actions import Action
    from rhineland.engine.game import Game
    from rhineland.engine.rounds.base import Round


class Title(StockRules, OperatingRules, TrainRules):
    """A title with one set of optional rules.

    Subclasses set ``name`` (the export's ``title``) and ``package`` (the
    module path of the title package holding ``data/``).
    """

    name: ClassVar[str] = ""
    package: ClassVar[str] = ""

    def __init__(self, optional_rules: tuple[str, ...] | list[str] = (),
                 rules: str = REFERENCE) -> None:
        self.optional_rules = tuple(sorted(optional_rules))
        self.rules = check_rule_set(rules)
        """The rule set played (:mod:`rhineland.engine.ruleset`: ``reference`` or ``seed``)."""
        self.data: TitleData = load_title_data(self.name, self.package, self.optional_rules)
        self.board_rules = self.make_board_rules()
        self.revenue_rules = self.make_revenue_rules()

    def make_board_rules(self) -> BoardRules:
        """The title's tile/token rules object (override per title)."""
        return BoardRules(self.data)

    def make_revenue_rules(self) -> RevenueRules:
        """The title's route rules object (override per title)."""
        return RevenueRules()

    def __repr__(self) -> str:
        if self.rules != REFERENCE:
            return f"{type(self).__name__}({list(self.optional_rules)!r}, rules={self.rules!r})"
        return f"{type(self).__name__}({list(self.optional_rules)!r})"

    def __deepcopy__(self, memo: dict[int, Any]) -> Title:
        return self  # immutable rules and data are shared by snapshots

    # -- setup and round sequence ------------------------------------------------------
    def new_title_state(self) -> Any:
        """The title's own state at the start (a mutable dataclass kept in
        ``State.title_state``), ``None`` without one.  Title hook."""
        return None

    def setup(self, game: Game) -> None:
        """Title-specific setup after the common one: printed markers go on the board."""
        for hex_id, city_index, sym in self.board_rules.setup_tokens():
            game.board.add_token(hex_id, city_index, sym)

    def first_round(self, game: Game) -> Round:
        """The game's first round: SR 1 by default.  Title hook; 18Rhl starts with the
        waterfall auction, 1893 with the starting package draft."""
        from rhineland.engine.rounds.stock import StockRound

        return StockRound(1)

    def next_round(self, game: Game, rnd: Round) -> Round | None:
        """SR n -> OR n.1 .. n.k (k from the phase) -> SR n+1."""
        from rhineland.engine.rounds.operating import OperatingRound
        from rhineland.engine.rounds.stock import StockRound

        if game.state.finished:
            return None
        if rnd.kind in ("Auction", "Draft"):
            self.order_after_auction(game, rnd)
            return StockRound(rnd.turn)
        if rnd.kind == "Stock":
            game.state.or_count = game.phase.operating_rounds
            return OperatingRound(rnd.turn, 1)
        if rnd.kind == "Operating":
            if self.check_game_end(game, rnd):
                return None
            if rnd.num < game.state.or_count:
                return OperatingRound(rnd.turn, rnd.num + 1)
            game.state.turn = rnd.turn + 1
            return StockRound(rnd.turn + 1)
        return StockRound(rnd.turn + 1)

    def order_after_auction(self, game: Game, rnd: Round) -> None:
        """Seat order for the first stock round (default: unchanged)."""

    def check_game_end(self, game: Game, rnd: Round) -> bool:
        """End after the last OR of the set once the bank has broken (``full_or``)."""
        if game.bank.broken and rnd.num >= game.state.or_count:
            game.state.finished = True
            game.state.game_end_reason = "bank"
            return True
        return False

    def loans(self, game: Game) -> dict[int, int]:
        """Player id -> the bank loans (M) they owe (default: none).  Title hook; 18Rhl's
        seed rule set lends for a forced train purchase."""
        return {}

    def before_action(self, game: Game, action: Action) -> None:
        """Title hook called before each game action is applied (default: nothing)."""
        pass

    def after_action(self, game: Game, action: Action) -> None:
        """After each game action: once the bank has broken (a payment it could not make
        in full, :meth:`~rhineland.engine.game.Game.pay`; a payment that leaves it at
        exactly 0M does not break it, as the reference's ``check_cash``), the game end is
        triggered: it ends after the last OR of the set (``full_or``).  Title hook."""
        if game.bank.broken and game.state.end_trigger is None:
            game.state.end_trigger = ("bank", "full_or")

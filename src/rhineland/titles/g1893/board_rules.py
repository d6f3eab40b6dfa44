"""1893: Cologne tile and token rules (exceptions to :class:`rhineland.board.legality.BoardRules`).

Sources: the seed rules summary (``001``), the reference facts
(``game_constants``: ``leverkusen_*``, ``rhine_passage``, ``tile_block``;
``hex_flag_notes``) and the reference engine's 1893 track step.

* Leverkusen G6: the yellow double-town tiles (K1, K55) upgrade only to the
  green single city K314, laid at rotation 0 without the rotation checks.
* Rhine passages (L5 Köln, S6 Bonn): in phase 2 no tile may have track across
  their water border.
* Tile block (N5, P5): no tile until the first 3-train (phase 3).
* The printed neutral token in H5 fills the slot but never blocks.
"""

from __future__ import annotations

from collections.abc import Hashable

from rhineland.board.legality import BoardRules, LayContext
from rhineland.board.tiles import Tile
from rhineland.board.upgrades import TileGeometry
from rhineland.engine.titledata import TitleData


class CologneBoardRules(BoardRules):
    """1893's board rules (module docstring)."""

    NEUTRAL_TOKENS = frozenset({"N"})

    def __init__(self, data: TitleData) -> None:
        super().__init__(data)
        c = self.data.constants
        self.leverkusen_hex = str(c.get("leverkusen_hex_name", "G6"))
        self.leverkusen_green = str(c.get("leverkusen_green_tile", "K314"))
        self.leverkusen_yellow: tuple[str, ...] = tuple(c.get("leverkusen_yellow_tiles", ()))
        self.rhine_passage: frozenset[str] = frozenset(c.get("rhine_passage", ()))
        self.tile_block: frozenset[str] = frozenset(c.get("tile_block", ()))
        self.upgrade_hexes = frozenset({self.leverkusen_hex}) | self.tile_block

    def upgrades_to(
        self,
        hex_id: str | None,
        old: Tile,
        new: Tile,
        *,
        special: bool = False,
        company: str | None = None,
        phase: str | None = None,
    ) -> bool:
        """Leverkusen G6: yellow upgrades only to K314; tile-block hexes take no tile in phase 2.

        Otherwise the default upgrade rule (reference ``game_constants``: ``leverkusen_*``,
        ``tile_block``).
        """
        if hex_id == self.leverkusen_hex and old.color == "yellow":
            return new.name == self.leverkusen_green
        if hex_id in self.tile_block and (phase or self.first_phase) == self.first_phase:
            return False
        return super().upgrades_to(
            hex_id,
            old,
            new,
            special=special,
            company=company,
            phase=phase,
        )

    def manifest_upgrades(self, tile: Tile) -> tuple[str, ...]:
        """Manifest upgrades: Leverkusen's yellow double-town tiles (K1, K55) -> K314."""
        if tile.name in self.leverkusen_yellow:
            return (self.leverkusen_green,)
        return ()

    def rotation_allowed(self, ctx: LayContext, hex_id: str, new: TileGeometry) -> bool:
        """Leverkusen's K314 at any rotation; in phase 2 no track across a Rhine passage's water.

        The closed Rhine crossings (L5, S6) open with the first 3-train (seed 001,
        comparison 6); otherwise the default rotation rule.
        """
        if hex_id == self.leverkusen_hex and new.tile.name == self.leverkusen_green:
            return True
        if not super().rotation_allowed(ctx, hex_id, new):
            return False
        if ctx.phase != self.first_phase or hex_id not in self.rhine_passage:
            return True
        water = {b.edge for b in ctx.data.map.hexes[hex_id].borders if b.kind == "water"}
        return not (water & new.exits)

    def rotation_key(self, ctx: LayContext) -> Hashable:
        """:meth:`rotation_allowed` reads the phase (the Rhine passages' water)."""
        return ctx.phase

    def fixed_rotation(self, ctx: LayContext, hex_id: str, new: Tile) -> int | None:
        """Leverkusen's green K314 on G6 is offered at rotation 0, without geometric checks."""
        if hex_id == self.leverkusen_hex and new.name == self.leverkusen_green:
            return 0
        return None

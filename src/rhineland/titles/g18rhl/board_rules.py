"""18Rhl tile and token rules (exceptions to :class:`rhineland.board.legality.BoardRules`).

Sources: the seed rules summary (``000``), the reference facts
(``game_constants``: ``upgrades_to_87``, ``upgrades_from_58``,
``rhine_metropolis_hexes``, ``osterath_potential_tile_upgrades_from``...) and
the reference engine's 18Rhl track/token steps.

* Rhine metropolis hexes (Duisburg D9, Düsseldorf F9, Köln I10): green goes
  only to that city's brown tile (927 D, 928 K, 929 DU), brown only to gray
  (932, or the promotion tiles); normal lays there are offered at rotation 0
  and skip the geometric rotation checks; in green, tokens block the walk only
  when all three slots are filled and the operating company has none there.
  After the operator's own lay on a metropolis hex, that hex blocks as its
  previous tile did until the next lay or token (:meth:`RhlBoardRules.lagging`).
* Moers D7: green -> 947, brown -> 950.
* Town tiles: 3 -> 141/142/143, 4 -> 141/142, 58 -> 141..144 (and those green
  town tiles upgrade no further); 2/56 -> 87, 1/55 -> 88, 69 -> 204; upgrades
  to 87/88/204 are exempt from the "use new track" rule.
* Osterath 935 (orange): only private No. 2 (KEO) lays it, on E8, over any
  tile there, from phase 3 until phase 5, at rotation 1; it never upgrades.
* Private abilities: No. 3 (Szl) lays one free tile on its mountain hexes
  (offered only where the tile is a normal upgrade); No. 4 (Tjt) lays a free
  green metropolis tile (never brown); Nos. 2 and 4 are not usable in phase 2;
  no private lay after the company tokened or bought a train this turn.
* No. 1 (PWB) blocks E14 except for its owner's companies.
* After a teleport lay the token may follow without connection: free after
  No. 2's, at the normal price after No. 4's.
* Ratingen variant: E10 takes only 1910 (its exits exactly its two stubs), then
  1911; Ratingen E12 takes no tile in phase 2; No. 1 is the Angertalbahn
  (ATB), which blocks E12 except for its owner's companies and lays a free
  yellow town tile there that must join the company's network.
"""

from __future__ import annotations

import copy
import functools

from rhineland.board.board import Board
from rhineland.board.legality import (
    BoardRules,
    LayContext,
    PrivateState,
    SpecialAbility,
)
from rhineland.board.tiles import Tile
from rhineland.board.upgrades import TileGeometry, generic_upgrades_to
from rhineland.engine.titledata import TitleData

OSTERATH = "935"
KEO = "KEO"
SZL = "Szl"
TJT = "Tjt"
ATB = "ATB"
METROPOLIS_BROWN = {"F9": "927", "I10": "928", "D9": "929"}
GREEN_TO_BROWN_MANIFEST = {
    "X921": "927", "X922": "927", "X923": "928", "X924": "928", "X925": "929", "X926": "929",
}


class RhlBoardRules(BoardRules):
    """18Rhl's board rules (module docstring)."""

    def __init__(self, data: TitleData) -> None:
        super().__init__(data)
        c = self.data.constants
        self.metropolis: frozenset[str] = frozenset(c.get("rhine_metropolis_hexes", ()))
        self.lag: tuple[str, str] | None = None
        """``(hex, colour)``: that metropolis hex blocks as a tile of that colour did
        (:meth:`lagging`); None: every hex as its tile."""
        self._lagging: dict[tuple[str, str], RhlBoardRules] = {}
        self.to_87: frozenset[str] = frozenset(c.get("upgrades_to_87", ()))
        self.to_88: frozenset[str] = frozenset(c.get("upgrades_to_88", ()))
        self.to_204: str = str(c.get("upgrade_to_204", ""))
        self.from_3: frozenset[str] = frozenset(c.get("upgrades_from_3", ()))
        self.from_4: frozenset[str] = frozenset(c.get("upgrades_from_4", ()))
        self.from_58: frozenset[str] = frozenset(c.get("upgrades_from_58", ()))
        self.osterath_from: tuple[str, ...] = tuple(
            c.get("osterath_potential_tile_upgrades_from", ())
        )
        self.ratingen_hex: str = str(c.get("ratingen_hex", "E12"))
        self.promotion = "promotion_tiles" in self.data.optional_rules
        self.ratingen = "ratingen_variant" in self.data.optional_rules

    # -- upgrades --------------------------------------------------------------------
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
        """18Rhl's upgrade table (module docstring; reference ``game_constants``).

        Osterath 935: KEO only on E8, before phase 5, and never upgraded.  A green
        Rhine metropolis goes only to its own brown tile, brown to 932 (or the promotion
        tiles); Moers D7 green -> 947, brown -> 950; the town-tile and 87/88/204 lists;
        Ratingen variant: E10 1910 then 1911, no tile on E12 in phase 2.  Otherwise the
        generic rule.
        """
        phase_no = _phase_number(phase or self.first_phase)
        if old.name == OSTERATH or (new.name == OSTERATH and phase_no >= 5):
            return False
        if hex_id == "E8" and new.name == OSTERATH and company == KEO:
            return True
        if old.color == "green" and hex_id in METROPOLIS_BROWN:
            return new.name == METROPOLIS_BROWN[hex_id]
        if hex_id == "D7" and old.color == "green":
            return new.name == "947"
        if hex_id == "D7" and old.color == "brown":
            return new.name == "950"
        if old.name == "3":
            return new.name in self.from_3
        if old.name == "4":
            return new.name in self.from_4
        if old.name == "58":
            return new.name in self.from_58
        if old.name in self.from_58:
            return False
        if old.name in self.to_87:
            return new.name == "87"
        if old.name in self.to_88:
            return new.name == "88"
        if old.name == self.to_204:
            return new.name == "204"
        if self.promotion:
            if old.color == "brown" and old.name == "216" and hex_id == "D13":
                return new.name == "Essen"
            if old.color == "brown" and hex_id in ("F9", "I10"):
                return new.name == "932V"
            if old.color == "brown" and hex_id == "D7":
                return new.name == "950"
            if old.color == "brown" and hex_id == "D9":
                return new.name == "949"
        elif old.color == "brown" and hex_id in self.metropolis:
            return new.name == "932"
        if self.ratingen and hex_id is not None:
            if hex_id == "E10":
                if old.color == "white":
                    return new.name == "1910"
                if old.color == "yellow":
                    return new.name == "1911"
                return False
            if hex_id == self.ratingen_hex and (phase or self.first_phase) == "2":
                return False
        return generic_upgrades_to(old, new, special=special)

    def manifest_upgrades(self, tile: Tile) -> tuple[str, ...]:
        """Manifest upgrades: Osterath 935, the metropolis brown/gray and promotion tiles."""
        out: list[str] = []
        if tile.name in self.osterath_from:
            out.append(OSTERATH)
        if tile.name == "947" and self.promotion:
            out.append("950")
        if tile.name == "216" and self.promotion:
            out.append("Essen")
        if tile.name in ("927", "928") and self.promotion:
            out.append("932V")
        if tile.name in ("927", "928", "929") and not self.promotion:
            out.append("932")
        if tile.name == "929" and self.promotion:
            out.append("949")
        if tile.name in GREEN_TO_BROWN_MANIFEST:
            out.append(GREEN_TO_BROWN_MANIFEST[tile.name])
        return tuple(out)

    # -- network ---------------------------------------------------------------------
    def city_blocks(
        self, board: Board, hex_id: str, city_index: int, entity: str, tokens: list[str], slots: int
    ) -> bool:
        """A green Rhine metropolis blocks only with all 3 slots filled and none of ``entity``'s.

        Otherwise the default rule (reference engine's 18Rhl token rule).
        """
        color = board.tiles[hex_id].tile.color
        if self.lag is not None and self.lag[0] == hex_id:
            color = self.lag[1]
        if hex_id in self.metropolis and color == "green":
            in_hex = [s for (h, _), syms in board.tokens.items() if h == hex_id for s in syms]
            if len(in_hex) < 3 or entity in in_hex:
                return False
        return super().city_blocks(board, hex_id, city_index, entity, tokens, slots)

    def lagging(self, hex_id: str, color: str) -> RhlBoardRules:
        """These rules with metropolis ``hex_id`` blocking as a ``color`` tile did.

        The reference engine's network after a company's lay on a Rhine metropolis:
        it walks the network during the lay (with the new tile) before it sets the
        hex's token blocking for the new colour, and keeps that walk until the next
        lay or token placement clears it; its token step offers and accepts only
        cities that walk reached (docs/rules-differences.md, "A green metropolis
        passes from the next lay or token on").  One object per ``(hex, colour)``,
        so the network caches keyed on the rules object stay apart.
        """
        key = (hex_id, color)
        got = self._lagging.get(key)
        if got is None:
            got = copy.copy(self)
            got.lag = key
            got._lagging = {}
            self._lagging[key] = got
        return got

    # -- lays ------------------------------------------------------------------------
    def blocker_exempt(
        self, ctx: LayContext, blocker: str, state: PrivateState, hex_id: str, actor: str
    ) -> bool:
        """No. 1's hex (E14; Ratingen variant: ATB's E12) is open to its owner's companies.

        Seed 000 (private No. 1: "blocks hex E14"); the ``actor`` private's owner or the
        president must own the blocking private.
        """
        if hex_id not in ("E14", self.ratingen_hex):
            return False
        player = ctx.privates[actor].owner if actor in ctx.privates else ctx.president
        return player is not None and player == state.owner

    def rotation_allowed(self, ctx: LayContext, hex_id: str, new: TileGeometry) -> bool:
        """Tile 1910 (Ratingen variant, E10) must use exactly the hex's two stubs; else default."""
        if new.tile.name == "1910":
            return set(ctx.data.map.hexes[hex_id].stubs) == set(new.exits)
        return super().rotation_allowed(ctx, hex_id, new)

    def fixed_rotation(self, ctx: LayContext, hex_id: str, new: Tile) -> int | None:
        """Rhine metropolis lays are offered at rotation 0, without the geometric checks."""
        return 0 if hex_id in self.metropolis else None

    def skip_track_restriction(self, old: Tile, new: Tile) -> bool:
        """Upgrades to 87/88/204, and with the promotion tiles 929 -> 949, are named
        outright by the reference's upgrade rule, so their track is not checked: 949
        routes one old city edge through its new town (generated2 g403 #779: 929 -> 949
        on D9, edge 4 now reaches the city by the town).  The other promotion tiles are
        checked as any upgrade: 947 -> 950 on Moers keeps the city's 30M, so its new
        town must be on the company's network (differential 18Rhl-random-5049 #729)."""
        if new.name in ("87", "88", "204"):
            return True
        return self.promotion and old.name == "929" and new.name == "949"

    # -- private companies -----------------------------------------------------------
    def special_abilities(self, ctx: LayContext) -> list[SpecialAbility]:
        """No private lay after the company tokened or bought a train this turn.

        KEO, Tjt and ATB are not usable in phase 2 (seed 000: KEO "from the green phase on";
        reference engine for Tjt and ATB).
        """
        if ctx.tokened or ctx.bought_train:
            return []
        out = super().special_abilities(ctx)
        if ctx.phase == "2":
            out = [a for a in out if a.company not in (KEO, TJT, ATB)]
        return out

    def special_offered(
        self, ctx: LayContext, ability: SpecialAbility, hex_id: str, old: Tile
    ) -> list[Tile]:
        """The tiles a private's lay offers: KEO adds Osterath 935 on E8.

        Szl (No. 3) offers only tiles that are normal upgrades of its mountain hex
        (seed 000, privates Nos. 2 and 3).
        """
        tiles = super().special_offered(ctx, ability, hex_id, old)
        if (
            hex_id == "E8"
            and ability.company == KEO
            and ctx.board.supply.get(OSTERATH)
            and all(t.name != OSTERATH for t in tiles)
        ):
            tiles.append(ctx.data.tiles[OSTERATH])
        if ability.company == SZL:
            tiles = [
                t for t in tiles
                if self.can_upgrade(hex_id, old, t, phase=ctx.phase)
            ]
        return tiles

    def special_rotations(
        self, ctx: LayContext, ability: SpecialAbility, hex_id: str, new: Tile
    ) -> tuple[int, ...] | None:
        """KEO's Osterath 935 on E8 is laid at rotation 1 only; no other fixed rotations."""
        if hex_id == "E8" and ability.company == KEO and new.name == OSTERATH:
            return (1,)
        return None

    def teleport_token_price(self, company: str, price: int) -> int:
        """Token price (M) after a teleport: Tjt (No. 4) the normal price, KEO (No. 2) free.

        docs/rules-differences.md (g).
        """
        # No. 4's token after its ferry lay costs the normal price; No. 2's is free
        return price if company == TJT else 0

    def special_refusal(self, ctx: LayContext, ability: SpecialAbility, new: Tile) -> str | None:
        """Tjt (No. 4) upgrades only to green, never to brown (seed 000, private No. 4)."""
        if ability.company == TJT and new.color == "brown":
            return f"{TJT} cannot upgrade to brown tiles"
        return None


@functools.lru_cache(maxsize=64)
def _phase_number(name: str) -> int:
    """The number in a phase name (``"3"`` -> 3, ``"4+4"`` -> 44; none: 0), memoised."""
    digits = "".join(ch for ch in name if ch.isdigit())
    return int(digits) if digits else 0

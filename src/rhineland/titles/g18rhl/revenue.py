"""18Rhl route rules and bonuses.

Rule sources: the seed ``000`` summary (towns never start or end a route;
Montan bonus for coal + steel, +20M / +40M from the brown phase; Eastern Ruhr
+10M per established link, at most 4; Eisern Rhein +80M Roermond - Eastern
Ruhr; the Rheingold-Express 8-train; the Rhine ferry penalty), the reference
facts (``game_constants``: ``rge_hexes``, ``eastern_ruhr_hexes``,
``basel_frankfurt_offboard_hexes``, ``rhine_metropolis_hexes``,
``out_tokened_hexes``, ``ratingen_hex``...) and the reference engine's
behaviour as recorded in the oracle traces.  Values are the oracle's:

* Montan: coal and steel both on the route: +20M, +40M from phase 5;
  two or more of each ("double Montan"): +40M, +80M from phase 5.  Coal/steel
  are hexes with a ``K``/``S`` icon (printed, variable, or carried over from a
  replaced tile), the coal or steel side of an Eastern Ruhr offboard (its
  city's ``K``/``S`` marker); Siegerland (J15) is one steel by its icon, like
  any other (reference: 18Rhl_g401 #658 and g419 #614 run two coal with J15
  as the only steel for a single +40M).  Not for the 8-train.
* Eastern Ruhr: a stop in C14 or D15 adds 10M per established link.
* Eisern Rhein: Roermond (G2) and an Eastern Ruhr stop on one route: +80M.
* Ferry (Trajekt): in a Rhine metropolis hex (D9, F9, I10: any colour), a
  visit right after a visit of the same hex is no stop: it costs no distance
  and pays nothing, and the visit before it pays 10M less (the ferry fee).
  On a green tile that is the ferry (narrow track) between the west and the
  east city (the pair pays one city's value less 10M); on the gray promotion
  tile 949 (Duisburg) the town and the city joined inside the hex: the first
  of the two visited pays, less 10M (reference: 18Rhl_g404 #557
  "D11-D9[Tr]-C10" with the town first pays 20 - 10M for D9).  A visit the
  train does not pay for (a town for the Rheingold-Express) neither is dropped
  nor pays the fee, but one right before a paid visit of its hex still drops
  that one.  Visiting both cities of a green metropolis *not* one after the
  other is illegal.  A yellow metropolis (three separate cities) may be
  visited more than once, on either bank (oracle: 18Rhl_g00 and g01 run
  F9-G10-F9 and I10-H9-I10).
* Full green metropolis: with all 3 slots filled the hex blocks every
  company without a token in it; with fewer tokens nothing there blocks.
* Rheingold-Express (train ``8``): must start or end at an RGE hex; may not
  visit any other red (offboard) hex; towns neither count nor pay, and it may
  even end at one (oracle: 18Rhl_g08 action 394); when *both* ends of the
  route are RGE hexes every Rhine metropolis stop pays double (its value less
  any ferry fee, doubled); its 8 best-paying cities/offboards pay, ranked by
  what each pays (doubling included; no token need be among them).
  No Montan/Ratingen bonus.  (Eastern Ruhr and Eisern Rhein cannot arise: they
  need offboards the 8-train may not visit.)
* A route other than the Rheingold-Express's may touch at most one of
  C14/D15, one of A4/A6, one of L11/L13, and may not start or end at an
  out-tokened offboard (A14, B15, C2 with another company's token).  The
  Rheingold-Express may run from Basel (L11) to Frankfurt (L13), both RGE
  hexes; A4 and A6 share the offboard group NorthWest, which no route uses
  twice.
* Ratingen variant: a non-8 route with a stop in Ratingen (E12) and any steel
  earns +30M.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from rhineland.board.tiles import Tile
from rhineland.engine.rng import GameRandom, pick_variable_icons
from rhineland.engine.titledata import TitleData, TrainSpec
from rhineland.errors import GameError
from rhineland.routes.graph import RevenueNode, TrackGraph
from rhineland.routes.model import Bonus, Route, RouteContext
from rhineland.routes.rules import Evaluation, RevenueRules

RGE_TRAIN = "8"
ROERMOND = "G2"
EASTERN_RUHR_LINKS = (("C12", 4), ("D13", 3), ("D13", 4), ("E14", 3))
"""(hex, edge): a tile exit on that side establishes one Eastern Ruhr link."""
COAL, STEEL = "K", "S"
TRAJEKT_FEE = 10
EASTERN_RUHR_PER_LINK = 10
EISERN_RHEIN_BONUS = 80
RATINGEN_BONUS = 30


def _hexes(value: object) -> frozenset[str]:
    if isinstance(value, str):
        return frozenset(value.split())
    if isinstance(value, Iterable):
        return frozenset(str(v) for v in value)
    return frozenset()


def variable_icons(data: TitleData, seed: int) -> dict[str, frozenset[str]]:
    """hex -> {"K"} / {"S"}: the variable coal mine and steel works of a game seeded
    ``seed`` (the first draw of the game's generator, :func:`rhineland.engine.rng.
    pick_variable_icons`), as :attr:`RouteContext.hex_icons` wants them."""
    if not data.variable_icons:
        return {}
    placement = pick_variable_icons(GameRandom(seed, data.rng), data.variable_icons)
    return {h: frozenset(icons) for h, icons in placement.icons_by_hex().items()}


def carried_icons(old_tile: Tile) -> frozenset[str]:
    """Icons that stay on a hex when ``old_tile`` is replaced: its sticky ones (``"K!"``).

    The engine adds them to :attr:`RouteContext.hex_icons` of the hex on every
    upgrade (18Rhl: the brown Moers tile's coal mine survives the gray Moers
    tile).  The ferry icon is dropped: the brown tile replaces the ferry.
    """
    return frozenset(
        i[:-1] for i in old_tile.icons if i.endswith("!") and i[:-1] not in ("trajekt",)
    )


def established_links(ctx: RouteContext) -> int:
    """Eastern Ruhr links: the context's count, else the tile exits on the link sides."""
    if ctx.eastern_ruhr_links is not None:
        return ctx.eastern_ruhr_links
    n = 0
    for h, edge in EASTERN_RUHR_LINKS:
        placed = ctx.board.tiles.get(h)
        if placed is not None and edge in placed.tile.exits(placed.rotation):
            n += 1
    return min(n, 4)


class RhlRevenue(RevenueRules):
    """18Rhl route rules (see the module docstring for every rule and value)."""

    towns_may_end = False  # except for the Rheingold-Express, which ignores towns
    SEARCH_BOUNDS_CHECKED = True  # bounds of titles/g18rhl/search_profile.py

    def __init__(self, constants: Mapping[str, object] | None = None) -> None:
        c = constants or {}
        self.rge = _hexes(c.get("rge_hexes", ("A4", "A6", "L11", "L13")))
        self.eastern_ruhr = _hexes(c.get("eastern_ruhr_hexes", ("C14", "D15")))
        self.north_west = _hexes(c.get("nimwegen_arnheim_offboard_hexes", ("A4", "A6")))
        self.south = _hexes(c.get("basel_frankfurt_offboard_hexes", ("L11", "L13")))
        self.metropolis = _hexes(c.get("rhine_metropolis_hexes", ("D9", "F9", "I10")))
        self.out_tokened = _hexes(c.get("out_tokened_hexes", ("A14", "B15", "C2")))
        self.ratingen = str(c.get("ratingen_hex", "E12"))

    @classmethod
    def for_data(cls, data: TitleData) -> RhlRevenue:
        """The rules with the title data's game constants."""
        return cls(data.constants)

    # -- blocking ------------------------------------------------------------
    def city_blocks(self, ctx: RouteContext, graph: TrackGraph, node: RevenueNode) -> bool:
        """Green metropolis: the whole hex blocks only when full (3 tokens) and not ours."""
        if node.hex in self.metropolis and node.tile_color == "green":
            occ = [o for n in graph.by_hex.get(node.hex, ()) for o in self.occupants(ctx, n)]
            return len(occ) >= 3 and ctx.entity not in occ
        return super().city_blocks(ctx, graph, node)

    # -- legality ------------------------------------------------------------
    def check_ends(self, ctx: RouteContext, route: Route) -> None:
        """No route starts or ends at a town -- except the Rheingold-Express (oracle)."""
        if route.train_spec.name != RGE_TRAIN:
            super().check_ends(ctx, route)

    def check_route(self, ctx: RouteContext, route: Route) -> None:
        """Offboard pairs, out-tokened ends, Rheingold-Express and metropolis rules."""
        t = route.train
        visits = route.visits
        for end in (visits[0], visits[-1]):
            if end.hex in self.out_tokened and self._out_tokened(ctx, end):
                raise GameError(
                    f"train {t} may not run to {end.hex}: another company's token closes it",
                    "route.out_tokened",
                )
        pairs = (
            (self.eastern_ruhr, "Eastern Ruhr"),
            (self.north_west, "Nimwegen/Arnheim"),
            (self.south, "Basel/Frankfurt"),
        )
        for group, what in pairs if route.train_spec.name != RGE_TRAIN else ():
            hit = [v.name for v in visits if v.hex in group]
            if len(hit) > 1:
                raise GameError(
                    f"train {t} may not run from one {what} offboard to another "
                    f"({' - '.join(hit)})",
                    "route.offboard_pair",
                )
        if route.train_spec.name == RGE_TRAIN:
            if visits[0].hex not in self.rge and visits[-1].hex not in self.rge:
                raise GameError(
                    f"Rheingold-Express {t} must start or end at an RGE hex "
                    f"({', '.join(sorted(self.rge))}); route {visits[0].name} - {visits[-1].name}",
                    "route.rge",
                )
            other_red = [v.name for v in visits if v.tile_color == "red" and v.hex not in self.rge]
            if other_red:
                raise GameError(
                    f"Rheingold-Express {t} may not visit offboard hexes other than the RGE "
                    f"hexes ({', '.join(other_red)})",
                    "route.rge",
                )
        self._trajekts(route, check=True)

    def _out_tokened(self, ctx: RouteContext, node: RevenueNode) -> bool:
        placed = ctx.board.tiles[node.hex]
        if not placed.tile.cities:
            return False
        toks = ctx.board.tokens_in(node.hex, 0)
        return any(s != ctx.entity for s in toks)

    @staticmethod
    def pays_for(spec: TrainSpec, node: RevenueNode) -> bool:
        """Whether a train of ``spec`` pays for ``node``'s kind (not the 8-train's towns)."""
        return any(node.kind in r.nodes and r.pay > 0 for r in spec.distance)

    def _paid(self, route: Route, node: RevenueNode) -> bool:
        return self.pays_for(route.train_spec, node)

    def _trajekts(self, route: Route, check: bool = False) -> list[int]:
        """Indices of the visits dropped by the ferry rule (module docstring): a paid visit
        right after a visit of the same Rhine metropolis hex.  With ``check``, raise for a
        green metropolis entered twice other than one visit right after the other."""
        visits = route.visits
        if check:
            by_hex: dict[str, list[int]] = {}
            for i, v in enumerate(visits):
                if v.hex in self.metropolis and v.tile_color == "green":
                    by_hex.setdefault(v.hex, []).append(i)
            for h, idx in by_hex.items():
                for k, i in enumerate(idx):
                    for j in idx[k + 1 :]:
                        if j != i + 1:
                            raise GameError(
                                f"train {route.train} enters the green Rhine metropolis {h} "
                                f"twice ({visits[i].name}, {visits[j].name}) without taking "
                                f"the ferry between them",
                                "route.trajekt",
                            )
        return [
            j
            for j in range(1, len(visits))
            if visits[j].hex in self.metropolis
            and visits[j - 1].hex == visits[j].hex
            and self._paid(route, visits[j])
        ]

    def _ferry_fees(self, route: Route, ferried: Sequence[int]) -> list[int]:
        """Indices of the visits that pay the ferry fee: the paid visit before each dropped one."""
        return [j - 1 for j in ferried if self._paid(route, route.visits[j - 1])]

    def visit_costs(self, ctx: RouteContext, route: Route) -> list[int]:
        """A visit dropped by the ferry rule does not count against the distance."""
        costs = [1] * len(route.visits)
        for i in self._trajekts(route):
            costs[i] = 0
        return costs

    # -- revenue -------------------------------------------------------------
    def stop_value(self, ctx: RouteContext, route: Route, node: RevenueNode) -> int:
        """Towns pay nothing to the Rheingold-Express (its distance pays 0 towns)."""
        for r in route.train_spec.distance:
            if node.kind in r.nodes and r.pay == 0:
                return 0
        return super().stop_value(ctx, route, node)

    def evaluate(
        self, ctx: RouteContext, route: Route, tokened: frozenset[int], costs: Sequence[int]
    ) -> Evaluation:
        """The default evaluation on the ferry rule's values: a dropped visit pays nothing
        and is no stop; the visit before it competes (8-train) and doubles (Rheingold) with
        its value less the fee, which is listed as the ``trajekt`` bonus."""
        ferried = self._trajekts(route)
        fees = set(self._ferry_fees(route, ferried))
        raw = [self.stop_value(ctx, route, v) for v in route.visits]
        for j in ferried:
            raw[j] = 0
        values = [r - TRAJEKT_FEE if i in fees else r for i, r in enumerate(raw)]
        dropped = set(ferried)
        stops = tuple(
            i for i in self.paying_stops(ctx, route, values, costs, tokened) if i not in dropped
        )
        base = sum(raw[i] for i in stops)
        bonuses = tuple(self.bonuses(ctx, route, stops, values))
        return Evaluation(base, stops, bonuses, sum(costs))

    def rheingold_doubles(self, route: Route) -> bool:
        """Whether the route is a Rheingold-Express run from one RGE hex to another."""
        visits = route.visits
        return (
            route.train_spec.name == RGE_TRAIN
            and len(visits) > 1
            and visits[0].hex in self.rge
            and visits[-1].hex in self.rge
        )

    def paying_stops(
        self,
        ctx: RouteContext,
        route: Route,
        values: Sequence[int],
        costs: Sequence[int],
        tokened: frozenset[int],
    ) -> tuple[int, ...]:
        """The Rheingold-Express pays its 8 best-paying cities/offboards; other trains: default.

        Ranked by what each pays: a metropolis doubled on an RGE-to-RGE run (values are
        already net of the ferry fee).  Visits costing no distance (dropped by the ferry)
        pay nothing and are left out.
        """
        if route.train_spec.name != RGE_TRAIN:
            return super().paying_stops(ctx, route, values, costs, tokened)
        pay = next((r.pay for r in route.train_spec.distance if "city" in r.nodes), 0)
        visits = route.visits
        pool = [
            i
            for i, v in enumerate(visits)
            if costs[i] > 0 and self._paid(route, v)
        ]
        if len(pool) <= pay:
            return tuple(pool)
        double = self.rheingold_doubles(route)

        def weight(i: int) -> int:
            return values[i] * (2 if double and visits[i].hex in self.metropolis else 1)

        pool.sort(key=lambda i: (-weight(i), i))
        return tuple(sorted(pool[:pay]))

    def icons(self, ctx: RouteContext, hex_id: str) -> frozenset[str]:
        """Icons on a hex now: the tile's own (sticky mark stripped) and the carried ones."""
        placed = ctx.board.tiles[hex_id]
        own = frozenset(i.rstrip("!") for i in placed.tile.icons)
        extra = ctx.hex_icons.get(hex_id)
        return own | extra if extra else own

    def montan_counts(self, ctx: RouteContext, visits: Sequence[RevenueNode]) -> tuple[int, int]:
        """(coal, steel) on a route: hexes with the icon, and Eastern Ruhr sides."""
        coal_hexes: set[str] = set()
        steel_hexes: set[str] = set()
        coal = steel = 0
        for v in visits:
            icons = self.icons(ctx, v.hex)
            if COAL in icons:
                coal_hexes.add(v.hex)
            if STEEL in icons:
                steel_hexes.add(v.hex)
            if v.hex in self.eastern_ruhr:
                coal += COAL in v.node.markers
                steel += STEEL in v.node.markers
        return coal + len(coal_hexes), steel + len(steel_hexes)

    def bonuses(
        self, ctx: RouteContext, route: Route, stops: Sequence[int], values: Sequence[int]
    ) -> list[Bonus]:
        """Montan, Eastern Ruhr, Eisern Rhein, ferry, Rheingold-Express and Ratingen."""
        out: list[Bonus] = []
        visits = route.visits
        rge = route.train_spec.name == RGE_TRAIN
        brown = "brown" in ctx.phase_spec.tiles
        coal, steel = self.montan_counts(ctx, visits)
        if not rge and coal and steel:
            double = coal > 1 and steel > 1
            amount = (40 if double else 20) * (2 if brown else 1)
            out.append(
                Bonus("montan", amount, f"{'double ' if double else ''}coal {coal}, steel {steel}")
            )
        if any(v.hex in self.eastern_ruhr for v in visits):
            links = established_links(ctx)
            if links:
                out.append(Bonus("eastern_ruhr", EASTERN_RUHR_PER_LINK * links, f"{links} links"))
            if any(v.hex == ROERMOND for v in visits):
                out.append(Bonus("eisern_rhein", EISERN_RHEIN_BONUS, "Roermond - Eastern Ruhr"))
        paid = set(stops)
        fees = [i for i in self._ferry_fees(route, self._trajekts(route)) if i in paid]
        if fees:
            out.append(
                Bonus(
                    "trajekt",
                    -TRAJEKT_FEE * len(fees),
                    ", ".join(visits[i + 1].name for i in fees),
                )
            )
        if self.rheingold_doubles(route):
            doubled = [i for i in stops if visits[i].hex in self.metropolis]
            if doubled:
                out.append(
                    Bonus(
                        "rheingold",
                        sum(values[i] for i in doubled),
                        ", ".join(visits[i].name for i in doubled),
                    )
                )
        if (
            not rge
            and "ratingen_variant" in ctx.data.optional_rules
            and steel
            and any(v.hex == self.ratingen for v in visits)
        ):
            out.append(Bonus("ratingen", RATINGEN_BONUS, "Ratingen with steel"))
        return out

"""18Rhl's best-route search profile: pruning and bonus bounds for :class:`RhlRevenue`.

Registered for :class:`RhlRevenue` by the title (``rules.py``, with
:func:`~rhineland.routes.search_model.register_profile`).
The bounds read the revenue hooks' own data (``montan_counts``, ``stop_value``,
the out-tokened check) so that they follow the rules they bound.
"""

from __future__ import annotations

from collections.abc import Sequence

from rhineland.routes.graph import RevenueNode, TrackGraph
from rhineland.routes.model import RouteContext
from rhineland.routes.rules import RevenueRules
from rhineland.routes.search_model import TitleProfile, TrainModel
from rhineland.titles.g18rhl.revenue import (
    EASTERN_RUHR_PER_LINK,
    EISERN_RHEIN_BONUS,
    RATINGEN_BONUS,
    RGE_TRAIN,
    ROERMOND,
    RhlRevenue,
    established_links,
)


class RhlProfile(TitleProfile):
    """18Rhl (:class:`RhlRevenue`): the checks and bonuses of ``titles/g18rhl/revenue.py``.

    Pruning (each a check that hook raises on): the Rheingold-Express visits
    no red hex but the RGE hexes and has an RGE end; no other train starts or
    ends at a town; nobody ends at an out-tokened offboard; one visit at most
    per Eastern Ruhr / Nimwegen-Arnheim / Basel-Frankfurt pair; a green Rhine
    metropolis is entered twice only by its ferry (the second city right after
    the first).  A paid visit right after a visit of the same Rhine metropolis
    hex (any colour) is dropped: it costs no distance (and pays nothing, which
    the bounds ignore: they count its value).

    Bonus bound per route: Montan at its value for the summed per-node coal
    and steel counts (summing per node never undercounts the hook's per-hex
    count, and Montan grows with the counts), Eastern Ruhr and Eisern Rhein at
    their values when their hexes are visited, Ratingen when E12 and a steel
    node are visited, the Rheingold doubling as the sum of the visited
    metropolis values when both ends could be RGE hexes, the ferry fee (never
    positive) as 0.
    """

    rules: RhlRevenue

    def __init__(self, ctx: RouteContext, rules: RevenueRules, graph: TrackGraph) -> None:
        super().__init__(ctx, rules, graph)
        assert isinstance(rules, RhlRevenue)
        self.rhl = rules
        self.links = established_links(ctx)
        self.brown = "brown" in ctx.phase_spec.tiles
        self.ratingen = "ratingen_variant" in ctx.data.optional_rules
        self._bonus_nodes: tuple[object, ...] | None = None

    def group_names(self, spec_name: str, node: RevenueNode) -> tuple[str, ...]:
        """Offboard groups, plus the Eastern Ruhr, Nimwegen/Arnheim and Basel/Frankfurt
        pairs -- the pairs not for the Rheingold-Express (it may run Basel - Frankfurt)."""
        out = list(super().group_names(spec_name, node))
        if spec_name == RGE_TRAIN:
            return tuple(out)
        r = self.rhl
        for name, hexes in (("er", r.eastern_ruhr), ("nw", r.north_west), ("s", r.south)):
            if node.hex in hexes:
                out.append(name)
        return tuple(out)

    def may_visit(self, spec_name: str, node: RevenueNode) -> bool:
        """The Rheingold-Express visits no red hex but the RGE hexes; other trains any node."""
        if spec_name == RGE_TRAIN:
            return node.tile_color != "red" or node.hex in self.rhl.rge
        return True

    def may_end(self, spec_name: str, node: RevenueNode) -> bool:
        """Only the Rheingold-Express ends at a town; no route ends at an out-tokened offboard."""
        if spec_name != RGE_TRAIN and node.kind == "town":
            return False
        r = self.rhl
        return not (node.hex in r.out_tokened and r._out_tokened(self.ctx, node))

    def need_end(self, spec_name: str) -> frozenset[str] | None:
        """The Rheingold-Express must start or end at an RGE hex; other trains: no rule."""
        return self.rhl.rge if spec_name == RGE_TRAIN else None

    def metro_hex(self, node: RevenueNode) -> str | None:
        """A Rhine metropolis hex: a paid visit right after one of that hex is dropped."""
        return node.hex if node.hex in self.rhl.metropolis else None

    def ferry_free(self, spec_name: str, node: RevenueNode) -> bool:
        """Dropped (free) if the train pays for the node's kind: not the 8-train's towns."""
        return self.rhl.pays_for(self.ctx.data.train(spec_name), node)

    def revisit_illegal(self, node: RevenueNode) -> bool:
        """A green Rhine metropolis is entered a second time only by its ferry."""
        return node.hex in self.rhl.metropolis and node.tile_color == "green"

    def bonus_data(self, spec_name: str) -> tuple[object, ...]:
        """Per-node data for :meth:`bonus_bound`.

        ``(is_rge, coal, steel, eastern_ruhr, roermond, ratingen, metropolis, rge_end,
        masks)``: a flag, then one tuple per graph node each (counts or flags), then the
        node bitmasks ``(eastern_ruhr, roermond, ratingen, coal or steel)``.
        """
        if self._bonus_nodes is None:  # the same for every train of the search
            self._bonus_nodes = self._node_bonus_data()
        return (spec_name == RGE_TRAIN, *self._bonus_nodes)

    def _node_bonus_data(self) -> tuple[object, ...]:
        """The per-node part of :meth:`bonus_data` (all but the flag)."""
        r = self.rhl
        nodes = self.graph.nodes
        counts = [r.montan_counts(self.ctx, [n]) for n in nodes]
        coal = tuple(c for c, _ in counts)
        steel = tuple(s for _, s in counts)
        er = tuple(n.hex in r.eastern_ruhr for n in nodes)
        roermond = tuple(n.hex == ROERMOND for n in nodes)
        ratingen = tuple(n.hex == r.ratingen for n in nodes)
        metro = tuple(n.hex in r.metropolis for n in nodes)
        rge_end = tuple(n.hex in r.rge for n in nodes)
        masks = (_mask(er), _mask(roermond), _mask(ratingen),
                 _mask(tuple(c > 0 or s > 0 for c, s in counts)))
        return (coal, steel, er, roermond, ratingen, metro, rge_end, masks)

    def bonus_bound(self, train: TrainModel, nodes: Sequence[int], mask: int | None = None) -> int:
        """Upper bound (M) on a route's 18Rhl bonuses over ``nodes`` (``mask``: their
        bitmask, when the caller has it).

        Eastern Ruhr and Eisern Rhein; for the Rheingold-Express the doubled metropolis
        values; otherwise Montan (+20/+40M, doubled from brown) and Ratingen.
        """
        rge, coal, steel, _er, _ro, _ra, metro, rge_end, masks = train.bonus_data
        assert isinstance(coal, tuple) and isinstance(steel, tuple)
        assert isinstance(metro, tuple) and isinstance(rge_end, tuple)
        assert isinstance(masks, tuple)
        er_mask, roermond_mask, ratingen_mask, montan_mask = masks
        if mask is None:
            mask = 0
            for i in nodes:
                mask |= 1 << i
        out = 0
        if mask & er_mask:
            out += EASTERN_RUHR_PER_LINK * self.links
            if mask & roermond_mask:
                out += EISERN_RHEIN_BONUS
        if rge:
            if rge_end[nodes[0]] and rge_end[nodes[-1]]:
                out += sum(v for i in nodes if metro[i] and (v := train.value[i]) > 0)
            return out
        m = mask & montan_mask
        if not m:
            return out
        c = s = 0
        while m:
            low = m & -m
            i = low.bit_length() - 1
            c += coal[i]
            s += steel[i]
            m ^= low
        if c and s:
            out += (40 if c > 1 and s > 1 else 20) * (2 if self.brown else 1)
        if self.ratingen and s and mask & ratingen_mask:
            out += RATINGEN_BONUS
        return out

    def route_bound(self, train: TrainModel, nodes: Sequence[int], free: int) -> int:
        """Upper bound (M) on the revenue of a route of ``train`` over ``nodes``, tighter
        than the default where the ferry drops a visit or the Rheingold doubling pays.

        18Rhl's hooks never pay a visit that costs no distance (``visit_costs`` gives 0
        only to the visits the ferry drops, and ``evaluate`` removes them from the
        stops), so each rule pays at most its best ``pay`` *counted* visits (not ``pay +
        free``).  A run of consecutive visits of one metropolis hex that the ferry
        drops in either direction (all of one kind, each one the train pays for) has
        exactly one counted visit in each direction: it enters the pools with its best
        value only.  On a Rheingold-Express run whose ends are both RGE hexes a paying
        metropolis stop earns its value (less any fee) twice and the 8 stops are the
        best by that weight: the pool holds the metropolis values doubled, and the
        separate doubling term of :meth:`bonus_bound` is left out.  The other bonuses
        are :meth:`bonus_bound`'s.  See ``docs/best-routes.md`` §1.
        """
        rge, _c, _s, _e, _r, _t, metro, rge_end, _m = train.bonus_data
        assert isinstance(metro, tuple) and isinstance(rge_end, tuple)
        double = bool(rge) and len(nodes) > 1 and rge_end[nodes[0]] and rge_end[nodes[-1]]
        vals = train.value
        mh = train.metro_hex
        ferry = train.ferry
        kinds = self.kinds
        pool: list[tuple[str, int]] = []  # (kind, weight) per counted visit (runs merged)
        i, n = 0, len(nodes)
        while i < n:
            x = nodes[i]
            w = vals[x] * 2 if double and metro[x] else vals[x]
            j = i + 1
            h = mh[x]
            if h is not None and ferry[x]:
                while j < n and mh[y := nodes[j]] == h and ferry[y] and kinds[y] == kinds[x]:
                    wy = vals[y] * 2 if double and metro[y] else vals[y]
                    w = max(w, wy)
                    j += 1
            pool.append((kinds[x], w))
            i = j
        total = 0
        for r, names in enumerate(train.rule_nodes):
            got = sorted((w for k, w in pool if k in names and w > 0), reverse=True)
            total += sum(got[: train.pays[r]])
        bonus = self.bonus_bound(train, nodes)
        if double:  # the doubling is in the pool's weights
            bonus -= sum(v for i in nodes if metro[i] and (v := vals[i]) > 0)
        return total + bonus

    def sum_bound_free(self, train: TrainModel) -> int:
        """0 for a train paying every visit (not the Rheingold-Express: it pays 8 stops of any
        number): :meth:`route_bound` merges only runs with a dropped visit (a ferried visit
        right after one of its hex), so on a route without one its pools are the visits
        themselves, each rule's pool holds at most ``limits <= pays`` counted visits, and
        the bound is the sum of the positive stop values plus :meth:`bonus_bound`."""
        if not train.all_pay or train.name == RGE_TRAIN:
            return -1
        return 0

    def bonus_cap(self, train: TrainModel) -> int:
        """The most :meth:`bonus_bound` gives any route of ``train``: each of its terms at
        its largest over the nodes the train may visit (all of them on one route, both ends
        RGE hexes)."""
        rge, coal, steel, er, roermond, ratingen, metro, _, _m = train.bonus_data
        assert isinstance(coal, tuple) and isinstance(steel, tuple)
        assert isinstance(er, tuple) and isinstance(roermond, tuple)
        assert isinstance(ratingen, tuple) and isinstance(metro, tuple)
        seen = [i for i, ok in enumerate(train.visit) if ok]
        out = 0
        if any(er[i] for i in seen):
            out += EASTERN_RUHR_PER_LINK * self.links
            if any(roermond[i] for i in seen):
                out += EISERN_RHEIN_BONUS
        if rge:
            return out + sum(v for i in seen if metro[i] and (v := train.value[i]) > 0)
        c = sum(coal[i] for i in seen)
        st = sum(steel[i] for i in seen)
        if c and st:
            out += (40 if c > 1 and st > 1 else 20) * (2 if self.brown else 1)
        if self.ratingen and st and any(ratingen[i] for i in seen):
            out += RATINGEN_BONUS
        return out


def _mask(flags: Sequence[bool]) -> int:
    """The bitmask of the indices whose flag is set."""
    out = 0
    for i, f in enumerate(flags):
        if f:
            out |= 1 << i
    return out

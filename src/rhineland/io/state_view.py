"""A game's state as a plain JSON-able dict, in the shape of the oracle trace entries.

The same view serves ``rhineland replay --json`` and the oracle comparison
(``scripts/oracle_diff.py``): round, phase, bank, whose turn, players (cash,
value, shares, companies), corporations (cash, price, trains, tokens, share
distribution), minors, private companies, the depot and changed tiles.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rhineland.engine.entities import IPO, MARKET, Corporation, Minor, Player, Private

if TYPE_CHECKING:
    from rhineland.engine.game import Game


def entity_ref(entity: Any) -> dict[str, str] | None:
    """``{"id", "type"}`` of a player, corporation, minor or private company."""
    if entity is None:
        return None
    if isinstance(entity, Player):
        return {"id": str(entity.id), "type": "player"}
    if isinstance(entity, Corporation):
        return {"id": entity.sym, "type": "corporation"}
    if isinstance(entity, Minor):
        return {"id": entity.sym, "type": "minor"}
    if isinstance(entity, Private):
        return {"id": entity.sym, "type": "company"}
    return None


def game_state(game: Game) -> dict[str, Any]:
    """The trace-shaped state of ``game`` now (see the module docstring)."""
    st = game.state
    rnd = st.round
    out: dict[str, Any] = {}
    if rnd is not None:
        out["round"] = {"kind": rnd.kind, "turn": rnd.turn, "num": rnd.num, "label": rnd.label}
    out["phase"] = game.phase.name
    out["bank"] = st.bank.cash
    out["bank_broken"] = st.bank.broken
    out["finished"] = st.finished
    if st.end_trigger is not None:
        out["end_trigger"] = list(st.end_trigger)
    if st.finished and not st.ended_mid_round:
        out["current"] = entity_ref(rnd.final_entity(game) if rnd is not None else None)
        out["step"] = None
        out["acting"] = [str(p.id) for p in st.players if not p.bankrupt]
    else:
        out["current"] = entity_ref(rnd.current_entity(game) if rnd is not None else None)
        out["step"] = rnd.step_name(game) if rnd is not None else None
        out["acting"] = [str(i) for i in rnd.acting_player_ids(game)] if rnd is not None else []
    out["player_order"] = [str(p.id) for p in st.players]
    out["priority"] = str(game.title.trace_priority(game).id) if game.seat_order() else None
    out["players"] = {str(p.id): player_view(game, p) for p in st.players}
    corps = {}
    for c in game.corporations.values():
        if c.ipoed or c.floated:
            corps[c.sym] = corporation_view(game, c)
    out["corporations"] = corps
    if game.minors:
        out["minors"] = {m.sym: minor_view(m) for m in game.minors.values()}
    out["companies"] = {
        p.sym: {"owner": _owner(p.owner), "closed": p.closed} for p in game.privates.values()
    }
    available: dict[str, int] = {}
    for spec in game.data.trains:
        available[spec.name] = 0
    for t in game.depot_trains():
        available[t.name] += 1
    out["depot"] = {
        "available": available,
        "discarded": [t.id for t in game.discarded_trains()],
    }
    out["tiles"] = {h: [name, rot] for h, (name, rot) in game.board.changed_tiles().items()}
    return out


def _owner(owner: Any) -> str | None:
    if owner is None:
        return None
    return str(owner)


def player_view(game: Game, p: Player) -> dict[str, Any]:
    """A player's trace entry: cash and value (M), percent held per corporation,
    private companies, bankruptcy flag."""
    shares = {}
    for c in game.corporations.values():
        pct = c.percent_of(p.id)
        if pct:
            shares[c.sym] = pct
    return {
        "cash": p.cash,
        "value": game.player_value(p),
        "shares": shares,
        "companies": sorted(p.companies),
        "bankrupt": p.bankrupt,
    }


def corporation_view(game: Game, c: Corporation) -> dict[str, Any]:
    """A corporation's trace entry: cash, share price and cell, par, floated/IPOed,
    president, trains, tokens, IPO/reserved/market percentages, capitalisation,
    operated/closed."""
    sp = c.share_price
    reserved = sum(x.percent for x in c.certificates if x.owner == IPO and x.reserved)
    return {
        "cash": c.cash,
        "price": sp.price if sp else None,
        "cell": [sp.row, sp.col] if sp else None,
        "par": c.par_price.price if c.par_price else None,
        "floated": c.floated,
        "ipoed": c.ipoed,
        "president": _president(c),
        "trains": [t.id for t in c.trains],
        "tokens": [[h, i] for h, i in c.tokens],
        "tokens_left": c.tokens_left,
        "ipo_pct": c.percent_of(IPO),
        "reserved_pct": reserved,
        "pool_pct": c.percent_of(MARKET),
        "capitalization": c.capitalization,
        "operated": c.operated,
        "closed": c.closed,
    }


def _president(c: Corporation) -> str | None:
    """The president's id, or ``"market"`` while the president's certificate lies there."""
    cert = next((x for x in c.certificates if x.president), None)
    if cert is None or cert.owner == IPO:
        return None
    return str(cert.owner)


def minor_view(m: Minor) -> dict[str, Any]:
    """A minor's trace entry: cash (M), owner, trains, tokens, floated/operated/closed."""
    return {
        "cash": m.cash,
        "owner": str(m.owner) if m.owner is not None else None,
        "trains": [t.id for t in m.trains],
        "tokens": [[h, i] for h, i in m.tokens],
        "floated": m.floated,
        "operated": m.operated,
        "closed": m.closed,
    }

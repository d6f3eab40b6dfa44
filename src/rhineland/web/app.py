"""The FastAPI application: the JSON API under ``/api`` and the page under ``/``.

API (documented at ``/docs``, OpenAPI at ``/openapi.json``):

* ``GET /api/games``: the lobby (recent games);
* ``POST /api/games`` ``{"title", "players": [names], "seed", "optional_rules",
  "bots": {seat: kind}}`` -> ``{"id", "seats": [{"id", "name", "secret", "bot",
  "url"}], "spectator", "spectator_url"}`` (bot seats have no secret);
* ``POST /api/games/import`` (an 18xx.games export as the body; ``?bots=2:greedy,3:random``);
* ``GET /api/games/{id}``: the state, whose turn, the last action id (``?at=N``: the
  position after the first N actions, replayed; nothing is written);
* ``GET /api/games/{id}/legal`` with ``Authorization: Bearer <seat secret>``;
* ``POST /api/games/{id}/actions`` with the seat secret and ``{"action": {...},
  "last_action_id": N}`` -> 200 and the new state; 403 wrong seat, 409 stale
  ``last_action_id``, 422 illegal (the engine's message) or malformed (the export
  validation's message);
* ``POST /api/games/{id}/routes/preview`` with the body of ``/routes``: the revenue the
  engine would pay for those routes or its one-line refusal, and the best routes found
  (nothing is applied or stored);
* ``POST /api/games/{id}/undo`` ``{"last_action_id": N}``: undo one's own last action;
* ``GET /api/games/{id}/export``: the 18xx.games export (``result`` once finished);
* ``GET /api/games/{id}/events``: server-sent events, one per stored action (``action``)
  and chat message (``chat``);
* ``GET /api/games/{id}/chat``: the chat; ``POST`` with the seat secret and ``{"text"}``:
  write in it;
* ``GET /api/games/{id}/note`` with the seat secret: the seat's private note; ``PUT``
  ``{"text"}``: keep it;
* ``GET /api/games/{id}/alerts`` with the seat secret: where the seat hears that it is
  its turn; ``PUT`` ``{"webhook", "email"}``: set (``""`` or ``null``: clear) either
  (:mod:`rhineland.web.notify`);
* ``GET /api/games/{id}/map.svg`` and ``/panels.svg``: the drawings of the position
  (``?at=N``: of a past one; ``?best=COMPANY``: the map with the best routes of the
  company running trains now drawn, each with its revenue).

Every refusal is ``{"error": "<one line>"}`` with its status.  The limits of
:mod:`rhineland.web.limits` guard every request (body size, time and nesting, paths, the
action rate per seat: 429 with ``Retry-After``) and add the security headers to every
response.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp

from rhineland.errors import ExportError
from rhineland.io.export import parse_json
from rhineland.web.bots import BotRunner
from rhineland.web.db import open_engine
from rhineland.web.events import Hub
from rhineland.web.history import History, HistoryError, Position, setup_of
from rhineland.web.limits import Limits, TokenBuckets, guard, retry_after
from rhineland.web.notify import Notifier
from rhineland.web.store import (
    Created,
    Forbidden,
    GameStore,
    Live,
    NotFound,
    Refused,
    TooMany,
    WebError,
    check_game_id,
    well_formed,
)
from rhineland.web.views import (
    best_map_svg,
    legal_view,
    map_svg,
    panels_svg,
    round_starts,
    state_view,
)

STATIC = Path(__file__).parent / "static"
"""The page's assets (HTML, JS, CSS), served under ``/static``."""


class NewGame(BaseModel):
    """``POST /api/games``: title, player names in seat order, seed, optional rules and
    bots by seat number (1-based) -> bot name (``random``, ``greedy``, ``mcts:N``)."""

    title: str = Field(examples=["18Rhl"])
    players: list[str] = Field(examples=[["Ann", "Ben", "Cid"]])
    seed: int = 0
    optional_rules: list[str] = []
    bots: dict[int, str] = Field(default={}, examples=[{"2": "greedy", "3": "random"}])
    description: str = ""
    open_seats: list[int] = Field(default=[], description="Seats whose invite links the "
                                  "lobby shows (anyone may take them).")
    clock_minutes: int | None = Field(default=None, description="A chess clock: minutes "
                                      "of thinking time per player (shown, not enforced).")


class ActionRequest(BaseModel):
    """``POST /api/games/{id}/actions``: an export action record (no ``id`` needed: the
    server numbers it) and the last action id the sender saw."""

    action: dict[str, Any]
    last_action_id: int


class RouteStops(BaseModel):
    """One train's route by its stops, in order: hexes or ``"<hex>-<part>"`` nodes."""

    train: str = Field(examples=["2-0"])
    stops: list[str] = Field(examples=[["K2", "K4", "K6"]])


class RunRequest(BaseModel):
    """``POST /api/games/{id}/routes``: run ``entity``'s trains on routes given by their
    stops (the server finds the track between stops and the revenue); the last action id
    the sender saw."""

    entity: str
    routes: list[RouteStops]
    last_action_id: int


class ChatRequest(BaseModel):
    """``POST /api/games/{id}/chat``: the message (plain text, at most
    :data:`~rhineland.web.store.CHAT_CHARS` characters)."""

    text: str = Field(examples=["good luck, all"])


class NoteRequest(BaseModel):
    """``PUT /api/games/{id}/note``: the seat's private note (plain text, at most
    :data:`~rhineland.web.store.NOTE_CHARS` characters; empty clears it)."""

    text: str = Field(examples=["buy the 3-train before RhE"])


class AlertsRequest(BaseModel):
    """``PUT /api/games/{id}/alerts``: the seat's webhook URL (http or https, at most
    :data:`~rhineland.web.notify.WEBHOOK_CHARS` characters) and e-mail address (when the
    server sends mail); ``""`` or ``null`` clears one, one left out stays as it is."""

    webhook: str | None = Field(default=None, examples=["https://example.org/my-turn"])
    email: str | None = Field(default=None, examples=["ann@example.org"])


class UndoRequest(BaseModel):
    """``POST /api/games/{id}/undo``: the last action id the sender saw."""

    last_action_id: int


_bearer = HTTPBearer(auto_error=False, description="The seat's secret from its invite link.")
Auth = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]


def _game_id(game_id: str) -> str:
    check_game_id(game_id)  # the shape, before the database is read
    return game_id


def _seat_secret(auth: Auth) -> str | None:
    secret = auth.credentials if auth is not None else None
    if not well_formed(secret):  # the shape, before the database is read
        raise Forbidden("the secret opens no seat of this game: it is not of a secret's "
                        "shape (use your seat's invite link)")
    return secret


def _viewer_secret(auth: Auth) -> str | None:
    secret = auth.credentials if auth is not None else None
    return secret if well_formed(secret) else None  # a malformed one: a spectator's view


At = Annotated[int | None, Query(description="A past position: the game after its first "
                                "N actions (0: the start; the number of actions: now).")]
"""The ``at`` query parameter of the state and the drawings (``None``: now)."""

Best = Annotated[str | None, Query(max_length=16, description="A company running trains "
                                   "now: the map with its best routes drawn (the preview's).")]
"""The ``best`` query parameter of the map (``None``: no routes drawn)."""


@dataclasses.dataclass(frozen=True)
class Past:
    """A past position of a game: ``position`` replayed (:mod:`rhineland.web.history`),
    ``then`` the live game's record as it was there (its game is the live one: read
    :attr:`Position.game` instead), ``of`` the number of actions now, ``last_action_id``
    now, ``rounds`` the round of every position now, ``clock_at`` the time the position
    ended (the next action's, Unix seconds)."""

    position: Position
    then: Live
    of: int
    last_action_id: int
    rounds: list[str]
    clock_at: int | None


GameId = Annotated[str, Depends(_game_id)]
"""A game id path parameter of a game id's shape (else 404)."""
Secret = Annotated[str | None, Depends(_seat_secret)]
"""The bearer secret of the seat that acts, of a secret's shape (else 403)."""
Viewer = Annotated[str | None, Depends(_viewer_secret)]
"""The bearer secret of whoever looks (``None`` for a malformed one: watching)."""


class _GuardedApp(FastAPI):
    """FastAPI with :func:`rhineland.web.limits.guard` outside all of its own middleware
    (so even its last-resort 500 carries the security headers)."""

    limits: Limits = Limits()

    def build_middleware_stack(self) -> ASGIApp:
        """The app's middleware stack behind the request guard and security headers."""
        return guard(super().build_middleware_stack(), self.limits)


def _created(c: Created) -> dict[str, Any]:
    seats = [{"id": s["id"], "name": s["name"], "bot": s["bot"],
              "secret": None if s["bot"] else s["secret"],
              "url": None if s["bot"] else f"/g/{c.id}#{s['secret']}"} for s in c.seats]
    return {"id": c.id, "seats": seats, "spectator": c.spectator,
            "spectator_url": f"/g/{c.id}#{c.spectator}"}


def _bots_param(text: str | None) -> dict[int, str]:
    out: dict[int, str] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        seat, _, kind = part.partition(":")
        if not seat.strip().isdigit() or not kind.strip():
            raise Refused(f"bots: expected SEAT:BOT (e.g. 2:greedy), found {part!r}")
        out[int(seat)] = kind.strip()
    return out


def _json_body(raw: bytes, model: type[BaseModel]) -> Any:
    """The request body as ``model``: malformed JSON refused with the export
    validation's one-line message, a wrong shape with the field named."""
    try:
        data = parse_json(raw, "the request body")
    except ExportError as exc:
        raise Refused(str(exc)) from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in err["loc"]) or "body"
        raise Refused(f"{where}: {err['msg']}") from None


async def _seat_write(request: Request, model: type[BaseModel],
                      write: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    """A seat's write of its own (chat, note, alerts): the body as ``model``
    (:func:`_json_body`), then ``write(body)`` in a worker thread (the store checks the
    seat's secret and rate, the values, stores them)."""
    body = _json_body(await request.body(), model)
    return await run_in_threadpool(write, body)


def _body_doc(model: type[BaseModel]) -> dict[str, Any]:
    return {"requestBody": {"required": True, "content": {
        "application/json": {"schema": model.model_json_schema()}}}}


def create_app(db_url: str = "sqlite:///rhineland.sqlite3", *, inline_bots: bool = False,
               bot_workers: int = 2, resume_bots: bool = True,
               now: Callable[[], int] | None = None,
               limits: Limits | None = None, notifier: Notifier | None = None) -> FastAPI:
    """The application on the database ``db_url`` (SQLite file or ``postgresql://``).

    ``inline_bots``: bots move inside the request that made it their turn (tests);
    otherwise in ``bot_workers`` threads.  ``resume_bots``: on start, the bots of the
    stored games that were to move play on (after a stop or a crash).  ``now()``: the
    time in Unix seconds (default: the system clock; tests give their own).
    ``limits``: the bounds of :mod:`rhineland.web.limits` (default: its values).
    ``notifier``: sends the your-turn alerts (default: webhooks to global addresses, no
    mail; :mod:`rhineland.web.notify`).
    """
    lim = limits or Limits()
    hub = Hub(per_client=lim.streams_per_client)
    buckets = TokenBuckets(lim.action_burst, lim.action_rate, lim.clock)
    chat_buckets = TokenBuckets(lim.chat_burst, lim.chat_rate, lim.clock)

    def admit(game_id: str, pid: int) -> None:
        wait = buckets.take((game_id, pid))
        if wait:
            raise TooMany(f"too many actions from this seat: at most {lim.action_burst} at "
                          f"once, then {lim.action_rate:g} a second; try again in "
                          f"{retry_after(wait)} s", retry_after(wait))

    def admit_chat(game_id: str, pid: int) -> None:
        wait = chat_buckets.take((game_id, pid))
        if wait:
            raise TooMany(f"too many messages from this seat: at most {lim.chat_burst} at "
                          f"once, then {lim.chat_rate:g} a second; try again in "
                          f"{retry_after(wait)} s", retry_after(wait))

    engine = open_engine(db_url)
    alerts = notifier or Notifier()

    def on_turn(game_id: str, seats: list[int], last_action_id: int) -> None:
        alerts.announce(game_id, seats, last_action_id, store.turns)

    hooks: dict[str, Any] = {"on_change": hub.publish, "admit": admit,
                             "admit_chat": admit_chat, "on_chat": hub.publish_chat,
                             "on_turn": on_turn}
    store = (GameStore(engine, **hooks) if now is None else
             GameStore(engine, now=now, **hooks))
    runner = BotRunner(store, workers=bot_workers, inline=inline_bots)
    history = History()

    def past(game_id: str, at: int | None) -> Past | None:
        """The position after the first ``at`` actions (``None`` for ``None`` or now).
        Raises :class:`Refused` for a negative ``at``, :class:`NotFound` past the end."""
        if at is None:
            return None
        if at < 0:
            raise Refused(f"at: expected a position from 0 (the start) to the number of "
                          f"actions, found {at}")
        with store.locked(game_id) as live:
            n = live.n_actions
            if at > n:
                raise NotFound(f"no position {at}: the game has {n} actions (positions 0 "
                               f"to {n})")
            if at == n:
                return None
            actions = list(live.game.actions)
            setup = setup_of(live.game)
            then = dataclasses.replace(live, senders=live.senders[:at], bots={})
            facts = (n, live.last_action_id, list(live.rounds), actions[at].created_at)
        try:
            position = history.position(game_id, setup, actions, at)
        except HistoryError as exc:
            raise Refused(f"cannot show position {at}: {exc}") from None
        return Past(position, then, *facts)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if resume_bots:
            threading.Thread(target=_resume, args=(store, runner), daemon=True).start()
        yield
        runner.shutdown()
        alerts.shutdown()

    app = _GuardedApp(title="rhineland", version="0.1.0", lifespan=lifespan,
                      description="Play 18Rhl and 1893: Cologne: games as 18xx.games "
                                  "action lists; money in M (Mark).")
    app.limits = lim
    app.state.store = store
    app.state.hub = hub
    app.state.bots = runner
    app.state.notifier = alerts
    app.state.limits = lim

    @app.exception_handler(WebError)
    async def _web_error(_req: Request, exc: WebError) -> JSONResponse:
        headers = ({"Retry-After": str(exc.retry_after)} if isinstance(exc, TooMany)
                   else None)
        return JSONResponse({"error": exc.message}, status_code=exc.status, headers=headers)

    @app.exception_handler(HTTPException)
    async def _http_error(_req: Request, exc: HTTPException) -> JSONResponse:
        # no route, no static file, a method not allowed: one line as every refusal
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code,
                            headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_req: Request, exc: RequestValidationError) -> JSONResponse:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ())) or "request"
        return JSONResponse({"error": f"{where}: {err.get('msg', 'invalid')}"},
                            status_code=422)

    # -- the page ------------------------------------------------------------------------
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def lobby_page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/g/{game_id}", include_in_schema=False)
    def game_page(game_id: GameId) -> FileResponse:
        return FileResponse(STATIC / "game.html")

    # -- the API -------------------------------------------------------------------------
    @app.get("/api/games", summary="The lobby: recent games, newest first")
    def lobby() -> list[dict[str, Any]]:
        return store.lobby()

    @app.post("/api/games", summary="Create a game")
    def create(body: NewGame) -> dict[str, Any]:
        created = store.create(body.title, body.players, seed=body.seed,
                               optional_rules=body.optional_rules, bots=body.bots,
                               description=body.description, open_seats=body.open_seats,
                               clock=None if body.clock_minutes is None
                               else body.clock_minutes * 60)
        runner.kick(created.id)
        return _created(created)

    @app.post("/api/games/import", summary="Import an 18xx.games export",
              openapi_extra={"requestBody": {"required": True, "content": {
                  "application/json": {"schema": {"type": "object"}}}}})
    async def import_game(request: Request, bots: str | None = None) -> dict[str, Any]:
        raw = await request.body()
        try:
            data = parse_json(raw, "the export")
        except ExportError as exc:
            raise Refused(str(exc)) from None
        created = store.import_export(data, bots=_bots_param(bots))
        runner.kick(created.id)
        return _created(created)

    @app.get("/api/games/{game_id}", summary="The state: whose turn, last action id, ...")
    def get_state(game_id: GameId, secret: Viewer, at: At = None) -> dict[str, Any]:
        then = past(game_id, at)
        if then is None:
            with store.locked(game_id) as live:
                seat = _seat_or_none(live, secret)
                return state_view(live, seat, store.now())
        base = then.position.view("state", lambda g: state_view(
            dataclasses.replace(then.then, game=g), None,
            then.clock_at if then.clock_at is not None else store.now()))
        return {**base, "seat": _seat_or_none(then.then, secret),
                "rounds": round_starts(then.rounds),
                "history": {"at": then.position.at, "of": then.of,
                            "last_action_id": then.last_action_id}}

    @app.get("/api/games/{game_id}/legal", summary="The seat's legal actions")
    def legal(game_id: GameId, secret: Secret) -> dict[str, Any]:
        with store.locked(game_id) as live:
            seat = live.seat_of(secret)
            if seat is None:
                raise Forbidden("the spectator link watches: it has no legal actions")
            return {"seat": seat, "last_action_id": live.last_action_id,
                    "actions": legal_view(live, seat)}

    @app.post("/api/games/{game_id}/actions", summary="Act for one's seat",
              openapi_extra=_body_doc(ActionRequest),
              responses={403: {"description": "not this seat's secret, turn or entity"},
                         409: {"description": "stale last_action_id"},
                         422: {"description": "illegal or malformed action"}})
    async def act(game_id: GameId, request: Request, secret: Secret) -> dict[str, Any]:
        body: ActionRequest = _json_body(await request.body(), ActionRequest)

        def work() -> dict[str, Any]:
            store.act(game_id, secret, body.action, body.last_action_id)
            runner.kick(game_id)
            with store.locked(game_id) as fresh:
                return state_view(fresh, fresh.seat_of(secret), store.now())

        return await run_in_threadpool(work)

    @app.post("/api/games/{game_id}/routes", summary="Run trains on routes given by stops",
              openapi_extra=_body_doc(RunRequest),
              responses={403: {"description": "not this seat's secret, turn or entity"},
                         409: {"description": "stale last_action_id"},
                         422: {"description": "the rules refuse the run (the engine's "
                                              "message)"}})
    async def run_routes(game_id: GameId, request: Request, secret: Secret) -> dict[str, Any]:
        body: RunRequest = _json_body(await request.body(), RunRequest)

        def work() -> dict[str, Any]:
            store.run_stops(game_id, secret, body.entity,
                            [r.model_dump() for r in body.routes], body.last_action_id)
            runner.kick(game_id)
            with store.locked(game_id) as fresh:
                return state_view(fresh, fresh.seat_of(secret), store.now())

        return await run_in_threadpool(work)

    @app.post("/api/games/{game_id}/routes/preview",
              summary="The revenue of routes given by stops, and the best (nothing stored)",
              openapi_extra=_body_doc(RunRequest),
              responses={403: {"description": "not this seat's secret, turn or entity"},
                         409: {"description": "stale last_action_id"}})
    async def preview_routes(game_id: GameId, request: Request,
                             secret: Secret) -> dict[str, Any]:
        body: RunRequest = _json_body(await request.body(), RunRequest)
        return await run_in_threadpool(
            store.preview_stops, game_id, secret, body.entity,
            [r.model_dump() for r in body.routes], body.last_action_id)

    @app.post("/api/games/{game_id}/undo", summary="Undo one's own last action",
              openapi_extra=_body_doc(UndoRequest))
    async def undo(game_id: GameId, request: Request, secret: Secret) -> dict[str, Any]:
        body: UndoRequest = _json_body(await request.body(), UndoRequest)

        def work() -> dict[str, Any]:
            live = store.undo(game_id, secret, body.last_action_id)
            runner.kick(game_id)
            return state_view(live, live.seat_of(secret), store.now())

        return await run_in_threadpool(work)

    @app.get("/api/games/{game_id}/export", summary="The 18xx.games export")
    def export(game_id: GameId) -> dict[str, Any]:
        return store.export(game_id)

    @app.get("/api/games/{game_id}/events", summary="Server-sent events, one per action")
    def events(game_id: GameId, request: Request) -> StreamingResponse:
        with store.locked(game_id) as live:
            first = live.last_action_id
        client = request.client.host if request.client is not None else ""
        return StreamingResponse(hub.stream(game_id, first, client=client),
                                 media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache",
                                          "X-Accel-Buffering": "no"})

    def drawing(game_id: str, at: int | None, name: str, draw: Callable[[Any], str]) -> Response:
        then = past(game_id, at)
        if then is not None:
            return Response(then.position.view(name, draw), media_type="image/svg+xml")
        with store.locked(game_id) as live:
            return Response(draw(live.game), media_type="image/svg+xml")

    @app.get("/api/games/{game_id}/chat", summary="The chat: the last messages, oldest first")
    def chat(game_id: GameId) -> dict[str, Any]:
        return {"messages": store.messages(game_id)}

    @app.post("/api/games/{game_id}/chat", summary="Write in the chat (a seat)",
              openapi_extra=_body_doc(ChatRequest),
              responses={403: {"description": "not a seat's secret (the spectator's)"},
                         422: {"description": "empty, too long, or control characters"},
                         429: {"description": "too many messages from this seat"}})
    async def write(game_id: GameId, request: Request, secret: Secret) -> dict[str, Any]:
        return await _seat_write(request, ChatRequest, lambda body: store.chat(
            game_id, secret, body.text))

    @app.get("/api/games/{game_id}/note", summary="The seat's private note")
    def note(game_id: GameId, secret: Secret) -> dict[str, Any]:
        return store.note(game_id, secret)

    @app.put("/api/games/{game_id}/note", summary="Keep the seat's private note",
             openapi_extra=_body_doc(NoteRequest),
             responses={403: {"description": "not a seat's secret (the spectator's)"},
                        422: {"description": "too long, or control characters"},
                        429: {"description": "too many writes from this seat"}})
    async def keep_note(game_id: GameId, request: Request, secret: Secret) -> dict[str, Any]:
        return await _seat_write(request, NoteRequest, lambda body: store.save_note(
            game_id, secret, body.text))

    @app.get("/api/games/{game_id}/alerts", summary="Where the seat hears of its turn")
    def get_alerts(game_id: GameId, secret: Secret) -> dict[str, Any]:
        return {**store.alerts(game_id, secret), "mail": alerts.mail_enabled}

    @app.put("/api/games/{game_id}/alerts", summary="Set the seat's your-turn alerts",
             openapi_extra=_body_doc(AlertsRequest),
             responses={403: {"description": "not a seat's secret (the spectator's)"},
                        422: {"description": "a malformed URL or address, or an address "
                                             "on a server that sends no mail"},
                        429: {"description": "too many writes from this seat"}})
    async def set_alerts(game_id: GameId, request: Request, secret: Secret) -> dict[str, Any]:
        return await _seat_write(request, AlertsRequest, lambda body: {
            **store.save_alerts(game_id, secret, body.model_dump(include=body.model_fields_set),
                                mail=alerts.mail_enabled), "mail": alerts.mail_enabled})

    @app.get("/api/games/{game_id}/map.svg", summary="The map of the position (SVG)")
    def map_image(game_id: GameId, at: At = None, best: Best = None) -> Response:
        if best is None or at is not None:
            return drawing(game_id, at, "map", map_svg)
        with store.locked(game_id) as live:
            found = store.best_of(live, best)
            if found is None:
                raise Refused(f"{best} does not run trains now")
            return Response(best_map_svg(live.game, best, found["routes"]),
                            media_type="image/svg+xml")

    @app.get("/api/games/{game_id}/panels.svg",
             summary="Stock market, companies, players and depot (SVG)")
    def panels_image(game_id: GameId, at: At = None) -> Response:
        return drawing(game_id, at, "panels", panels_svg)

    return app


def _seat_or_none(live: Live, secret: str | None) -> int | None:
    if secret is None:
        return None
    try:
        return live.seat_of(secret)
    except Forbidden:
        return None


def _resume(store: GameStore, runner: BotRunner) -> None:
    """Let the bots of every active stored game that were to move play on."""
    for gid in store.game_ids(active=True):
        try:
            if store.bots_to_act(gid):
                runner.kick(gid)
        except Exception:  # a game that no longer loads waits; the server goes on
            continue

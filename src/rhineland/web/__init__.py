"""Play in the browser: a web server for live and asynchronous games.

Games are stored as their action lists (the 18xx.games export shape) in SQLite or
PostgreSQL (:mod:`rhineland.web.db`); :mod:`rhineland.web.store` applies an action
atomically (it is stored and applied, or refused); :mod:`rhineland.web.bots` plays the
bot seats on the server; :mod:`rhineland.web.events` pushes every change to the open
pages (server-sent events); :mod:`rhineland.web.app` is the FastAPI application (the
JSON API under ``/api`` and the page under ``/``, its assets in ``web/static``);
:mod:`rhineland.web.limits` bounds what a hostile client can do (body size, time and
nesting, paths, the action rate, event streams, slow connections) and adds the security
headers.

    from rhineland.web import create_app
    app = create_app("sqlite:///games.sqlite3")     # serve with uvicorn

Needs the ``web`` extra (``pip install -e '.[web]'``).
"""

from __future__ import annotations

from rhineland.web.app import create_app

__all__ = ["create_app"]

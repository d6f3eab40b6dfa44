"""Your-turn alerts: a webhook POST and an e-mail when it becomes a seat's turn.

A seat may keep a webhook URL and an e-mail address with its game (``PUT
/api/games/{id}/alerts``, :class:`~rhineland.web.db.AlertRow`).  After every stored
action the store names the people who decide now and did not before (never the seat
that just acted, nothing once the game is over); :class:`Notifier` then, in its own
threads, off the request path, reads where each of them wants to hear of it and sends
one POST of :meth:`Turn.payload` to the webhook and one mail through the SMTP server
of :class:`Smtp` (when one is configured).  A failure (a refused connection, a timeout,
an HTTP error, a redirect, an SMTP error) is logged as a warning and kept in
:attr:`Notifier.failures`; the game never hears of it.
"""

from __future__ import annotations

import collections
import email.utils
import ipaddress
import logging
import re
import smtplib
import socket
import threading
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any, Literal
from urllib.parse import urlsplit

import orjson

log = logging.getLogger("rhineland.web.notify")

WEBHOOK_CHARS = 500
"""The longest webhook URL, in characters."""

EMAIL_CHARS = 254
"""The longest e-mail address, in characters (RFC 5321's path limit)."""

TIMEOUT = 5.0
"""Seconds a webhook POST or an SMTP session may take."""

PENDING = 1000
"""Alerts waiting to be sent at most; past that a new one is dropped (and logged)."""

_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")
_EMAIL = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
                    rf"@{_LABEL}(?:\.{_LABEL})*\.[A-Za-z]{{2,63}}")


def webhook_url(text: str | None) -> str | None:
    """``text`` as a webhook URL (``None`` for ``None`` or an empty one: no webhook).
    Raises ``ValueError`` with a one-line message unless it is an ``http://`` or
    ``https://`` URL of at most :data:`WEBHOOK_CHARS` printable ASCII characters with a
    host name or address, an optional port and path, and no user, password or
    fragment."""
    url = _bounded(text, WEBHOOK_CHARS, "webhook: a URL")
    if url is None:
        return None
    bad = next((ch for ch in url if not "!" <= ch <= "~"), None)
    if bad is not None:
        raise ValueError(f"webhook: no spaces, control or non-ASCII characters in the URL "
                         f"(found U+{ord(bad):04X}; percent-encode it)")
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https"):
        raise ValueError(f"webhook: expected an http:// or https:// URL, found "
                         f"{url[:40]!r}")
    if "@" in parts.netloc:
        raise ValueError("webhook: no user or password in the URL")
    if "#" in url:
        raise ValueError("webhook: no fragment (#...) in the URL")
    host = parts.hostname or ""
    try:
        parts.port  # noqa: B018 (a port out of range or not a number raises)
    except ValueError:
        raise ValueError(f"webhook: not a port: {parts.netloc!r}") from None
    if not _is_address(host) and not _HOST.fullmatch(host):
        raise ValueError(f"webhook: expected a host name or address, found {host!r}")
    return url


def email_address(text: str | None) -> str | None:
    """``text`` as an e-mail address (``None`` for ``None`` or an empty one: no mail).
    Raises ``ValueError`` with a one-line message unless it is ``local@domain`` in
    plain ASCII (a dot-atom local part of at most 64 characters, a domain of labels with
    a top-level one of letters), at most :data:`EMAIL_CHARS` characters."""
    addr = _bounded(text, EMAIL_CHARS, "email: an address")
    if addr is None:
        return None
    if not _EMAIL.fullmatch(addr) or len(addr.partition("@")[0]) > 64:
        raise ValueError(f"email: expected an address like name@example.org, found "
                         f"{addr[:40]!r}")
    return addr


def _bounded(text: str | None, limit: int, what: str) -> str | None:
    """``text`` without spaces around it, ``None`` when empty; ``ValueError`` past
    ``limit`` characters (``what``: ``"email: an address"``)."""
    kept = (text or "").strip()
    if len(kept) > limit:
        raise ValueError(f"{what} is at most {limit} characters, not {len(kept)}")
    return kept or None


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Smtp:
    """The SMTP server that sends the your-turn mail: ``host``, ``port``, ``sender``
    (the From address), ``tls`` (``"none"``, ``"starttls"`` or ``"ssl"``: SMTP over
    TLS), ``user`` and ``password`` to log in with (none: no login)."""

    host: str
    sender: str
    port: int = 25
    tls: Literal["none", "starttls", "ssl"] = "none"
    user: str | None = None
    password: str | None = None


@dataclass(frozen=True)
class Turn:
    """It became seat ``seat``'s (a player id, named ``name``) turn in game ``game_id``
    of ``title`` at action ``last_action_id``; ``webhook`` and ``email``: where that
    seat wants to hear of it (``None``: not there)."""

    game_id: str
    title: str
    seat: int
    name: str
    last_action_id: int
    webhook: str | None = None
    email: str | None = None

    @property
    def path(self) -> str:
        """The game's page, without a secret (the seat's invite link adds it after #)."""
        return f"/g/{self.game_id}"

    def payload(self, public_url: str = "") -> dict[str, Any]:
        """The webhook's JSON body: ``{"event": "your_turn", "game_id", "title",
        "seat", "name", "last_action_id", "path", "url"}`` (``url``: ``path`` under
        ``public_url``, ``None`` without one)."""
        return {"event": "your_turn", "game_id": self.game_id, "title": self.title,
                "seat": self.seat, "name": self.name,
                "last_action_id": self.last_action_id, "path": self.path,
                "url": public_url.rstrip("/") + self.path if public_url else None}

    def mail(self, smtp: Smtp, public_url: str = "") -> EmailMessage:
        """The your-turn mail to :attr:`email` from ``smtp.sender`` (plain text)."""
        msg = EmailMessage()
        msg["From"] = smtp.sender
        msg["To"] = self.email or ""
        msg["Subject"] = f"Your turn: {self.title} ({self.game_id})"
        msg["Date"] = email.utils.formatdate(localtime=False)
        where = public_url.rstrip("/") + self.path if public_url else self.path
        msg.set_content(
            f"{self.name}, it is your turn in {self.title} (game {self.game_id}, seat "
            f"{self.seat}, after action {self.last_action_id}).\n\n"
            f"Open your seat's invite link to play: {where}#...\n"
            "(the part after # is your seat's secret; it is not in this mail.)\n\n"
            "You get this mail because your seat set this address on the game's page; "
            "clear it there to get no more.\n")
        return msg


Lookup = Callable[[str, Sequence[int], int], list[Turn]]
"""``lookup(game_id, seats, last_action_id)``: the :class:`Turn` of each of ``seats``
that set a webhook or an address (:meth:`~rhineland.web.store.GameStore.turns`)."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is a failure: a webhook goes to the URL its seat set, nowhere else."""

    def redirect_request(self, *_args: Any, **_kwargs: Any) -> None:
        """Follow no redirect (``urlopen`` raises the 3xx as an ``HTTPError``)."""
        return None


_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())


def post_json(url: str, body: bytes, timeout: float, *, private_ok: bool = False) -> None:
    """POST ``body`` (JSON) to ``url`` within ``timeout`` seconds (no proxy, no
    redirect).  Raises ``OSError`` (``urllib``'s errors among them) for a failure, an
    answer other than 2xx, or, unless ``private_ok``, a host that is or resolves to an
    address that is not global (loopback, private, link-local: the server's own
    network)."""
    parts = urlsplit(url)
    if not private_ok:
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
        for info in socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM):
            ip = ipaddress.ip_address(str(info[4][0]).split("%")[0])
            if not ip.is_global:
                raise OSError(f"{parts.hostname} is at {ip}, not a global address")
    req = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json", "User-Agent": "rhineland-alerts/1"})
    with _OPENER.open(req, timeout=timeout) as res:
        res.read(4096)
        if not 200 <= res.status < 300:
            raise OSError(f"HTTP {res.status}")


def send_mail(smtp: Smtp, msg: EmailMessage, timeout: float) -> None:
    """Send ``msg`` through ``smtp`` (one session of at most ``timeout`` seconds a step).
    Raises ``OSError`` (``smtplib``'s errors among them)."""
    cls = smtplib.SMTP_SSL if smtp.tls == "ssl" else smtplib.SMTP
    with cls(smtp.host, smtp.port, timeout=timeout) as session:
        if smtp.tls == "starttls":
            session.starttls()
        if smtp.user:
            session.login(smtp.user, smtp.password or "")
        session.send_message(msg)


class Notifier:
    """Sends the your-turn alerts in ``workers`` threads of its own.

    ``smtp``: the mail server (``None``: no mail; an address cannot be set);
    ``public_url``: the server's address as the players reach it (for the links; ``""``:
    paths only); ``timeout``: seconds per POST or SMTP step; ``private_ok``: webhooks
    may go to loopback and private addresses (tests, a club's own network).  ``post`` and
    ``mail`` replace :func:`post_json` and :func:`send_mail` (tests)."""

    def __init__(self, *, smtp: Smtp | None = None, public_url: str = "",
                 timeout: float = TIMEOUT, private_ok: bool = False, workers: int = 2,
                 post: Callable[[str, bytes], None] | None = None,
                 mail: Callable[[EmailMessage], None] | None = None) -> None:
        self.smtp = smtp
        self.public_url = public_url
        self.timeout = timeout
        self.private_ok = private_ok
        self._post = post
        self._mail = mail
        self._pool = ThreadPoolExecutor(workers, "rhineland-alerts")
        self._pending = 0
        self._idle = threading.Condition()
        self.failures: collections.deque[str] = collections.deque(maxlen=100)
        """The latest failures, one line each (also logged)."""

    @property
    def mail_enabled(self) -> bool:
        """Whether an SMTP server is configured (a seat may set an address)."""
        return self.smtp is not None

    def announce(self, game_id: str, seats: Sequence[int], last_action_id: int,
                 lookup: Lookup) -> None:
        """It became ``seats``' turn in ``game_id`` at ``last_action_id``: look up where
        they want to hear of it and tell them, in the background (returns at once)."""
        with self._idle:
            if self._pending >= PENDING:
                self._fail(f"{game_id}: {PENDING} alerts are waiting; this one is dropped")
                return
            self._pending += 1
        try:
            self._pool.submit(self._run, game_id, list(seats), last_action_id, lookup)
        except RuntimeError:  # shut down
            self._done()

    def _run(self, game_id: str, seats: list[int], last_action_id: int,
             lookup: Lookup) -> None:
        try:
            for turn in lookup(game_id, seats, last_action_id):
                self.send(turn)
        except Exception as exc:  # the database: logged, the game goes on
            self._fail(f"{game_id}: cannot read the alerts: {type(exc).__name__}: {exc}")
        finally:
            self._done()

    def send(self, turn: Turn) -> None:
        """Send ``turn``'s webhook POST and mail now (in the caller's thread); a failure
        is logged and kept in :attr:`failures`, never raised."""
        if turn.webhook is not None:
            body = orjson.dumps(turn.payload(self.public_url))
            try:
                if self._post is not None:
                    self._post(turn.webhook, body)
                else:
                    post_json(turn.webhook, body, self.timeout, private_ok=self.private_ok)
            except Exception as exc:
                self._fail(f"{turn.game_id}: seat {turn.seat}: webhook failed: "
                           f"{type(exc).__name__}: {exc}")
        if turn.email is not None and self.smtp is not None:
            try:
                msg = turn.mail(self.smtp, self.public_url)
                if self._mail is not None:
                    self._mail(msg)
                else:
                    send_mail(self.smtp, msg, self.timeout)
            except Exception as exc:
                self._fail(f"{turn.game_id}: seat {turn.seat}: mail failed: "
                           f"{type(exc).__name__}: {exc}")

    def _fail(self, message: str) -> None:
        line = " ".join(message.split())
        self.failures.append(line)
        log.warning("rhineland alerts: %s", line)

    def _done(self) -> None:
        with self._idle:
            self._pending -= 1
            if not self._pending:
                self._idle.notify_all()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until no alert is waiting or being sent (``False`` on timeout)."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._pending, timeout)

    def shutdown(self) -> None:
        """Stop the threads after the alerts under way (those waiting are dropped)."""
        self._pool.shutdown(wait=True, cancel_futures=True)
        with self._idle:  # the dropped ones wait no more
            self._pending = 0
            self._idle.notify_all()

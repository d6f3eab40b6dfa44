"""Differential testing against the reference engine (18xx.games), both ways.

*Ours to the reference*: games are played here (:func:`play_ours`: a random player that
draws each action kind evenly, the weighted random player, mixed bots, or a client of
the web API), their exports are given to the reference engine, and :func:`judge`
reports whether it accepts them with the same player values, the first action it
refuses, every action its interface would not have offered, and the first field where
our state differs from its state after an action.

*The reference to ours*: the reference's random player makes new games
(:meth:`Oracle.play`) and :func:`judge` replays each here against its trace.

The reference is the pinned engine of ``../shared/tools/ref-oracle`` run as a black box
through its scripts (:class:`Oracle`); it needs Ruby, so nothing of the test suite
calls it: what it finds becomes the project's own regression tests.
``scripts/differential.py`` is the command line.
"""

from __future__ import annotations

import random
import re
import subprocess
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

from rhineland.engine.game import Game
from rhineland.io.export import load_export, parse_json, replay, to_export
from rhineland.io.oracle import compare_with_trace
from rhineland.titles.g1893.constants import is_bond

MODES = ("even", "random", "bots", "web")
"""How :func:`play_ours` plays: ``even`` a random player drawing each action kind with
the same weight (rare kinds get tried), ``random`` the self-play random player,
``bots`` a bot per seat drawn from random, greedy and MCTS, ``web`` a random client of
the web API (every action posted over HTTP, the export downloaded)."""

PROFILES = ("normal", "rush", "overspend", "dumper", "midor", "merger", "bankrupt",
            "certlimit", "trader", "broke")
"""The reference random player's profiles (``play.rb --profile``)."""


class OracleError(RuntimeError):
    """The reference's scripts could not be run (Ruby missing, the tool folder absent)."""


@dataclass
class Oracle:
    """The reference engine's scripts in ``tool_dir`` (``../shared/tools/ref-oracle``)."""

    tool_dir: Path
    timeout: float = 900.0
    env: dict[str, str] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        setup = self.tool_dir / "setup.sh"
        if not setup.is_file():
            raise OracleError(f"no reference oracle at {self.tool_dir} (setup.sh missing)")
        out = subprocess.run(["bash", str(setup)], capture_output=True, text=True, check=False)
        found = dict(re.findall(r"(\w+)=(\S+)", out.stdout.replace("export ", "")))
        if out.returncode != 0 or "REF_LIB" not in found:
            raise OracleError(f"the oracle's setup failed: {out.stdout.strip()} "
                              f"{out.stderr.strip()}".strip())
        import os

        self.env = {**os.environ, **found}

    def _ruby(self, script: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["ruby", str(self.tool_dir / script), *args], env=self.env,
                              capture_output=True, text=True, timeout=self.timeout,
                              check=False)

    def load(self, export: Path) -> dict[str, Any]:
        """The strict replay's verdict (``loader.rb``): ``result_matches``, ``values``,
        ``finished`` or ``error`` (the first refused action's message)."""
        out = self._ruby("ref-engine/loader.rb", str(export))
        return _last_json(out.stdout) or {"error": f"loader gave no verdict: "
                                                   f"{_tail(out.stderr)}"}

    def offered(self, export: Path) -> list[dict[str, Any]]:
        """Every action of the export the reference's interface would not have offered
        (``offered.rb``: ``id``, ``type``, ``entity``, ``reason``)."""
        with tempfile.NamedTemporaryFile(suffix=".jsonl") as tmp:
            self._ruby("oracle-factory/offered.rb", "-q", "--json", tmp.name, str(export))
            lines = Path(tmp.name).read_text(encoding="utf-8").splitlines()
        out: list[dict[str, Any]] = []
        for line in lines:
            try:
                out += orjson.loads(line).get("not_offered") or []
            except orjson.JSONDecodeError:
                continue
        return out

    def trace(self, export: Path, out: Path) -> bool:
        """Write the reference's state after every action to ``out``; whether it could."""
        self._ruby("oracle-factory/trace.rb", str(export), str(out))
        return out.is_file() and out.stat().st_size > 0

    def play(self, title: str, players: int, seed: int, profile: str, index: int,
             out_dir: Path, rules: Sequence[str] = ()) -> Path | None:
        """A new reference game by its random player, with its trace; the export's path
        (``None`` when the reference could not finish one)."""
        args = ["--title", title, "--players", str(players), "--seed", str(seed),
                "--rng", str(seed), "--profile", profile, "--index", str(index),
                "--out", str(out_dir), "--trace"]
        if rules:
            args += ["--rules", ",".join(rules)]
        self._ruby("oracle-factory/play.rb", *args)
        path = out_dir / f"{title}_g{index}.json"
        return path if path.is_file() else None


def _last_json(text: str) -> dict[str, Any] | None:
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                got = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(got, dict):
                return got
    return None


def _tail(text: str) -> str:
    lines = [x for x in text.strip().splitlines() if x.strip()]
    return lines[-1][:300] if lines else "(nothing)"


# -- playing here --------------------------------------------------------------------------
def play_ours(title: str, seed: int, mode: str, *, max_actions: int = 5000,
              players: int | None = None) -> Game:
    """One game of ``title`` played here by :data:`MODES` ``mode``: the player count and
    optional rules drawn from ``seed`` (:func:`~rhineland.sim.selfplay.random_setup`)
    unless ``players`` is given."""
    from rhineland.sim.selfplay import EVEN_WEIGHTS, play, random_setup

    rng = random.Random(seed)
    n, opts = random_setup(title, rng)
    n = players or n
    if mode in ("even", "random"):
        return play(title, seed, players=n, optional_rules=opts, max_actions=max_actions,
                    weights=EVEN_WEIGHTS if mode == "even" else None).game
    if mode == "bots":
        from rhineland.bots import make_bot, play_game

        names = [rng.choice(("random", "greedy", "greedy", "mcts:4")) for _ in range(n)]
        bots = [make_bot(name, seed * 1000 + i) for i, name in enumerate(names)]
        return play_game(title, bots, seed=seed, optional_rules=opts,
                         max_actions=max_actions).game
    if mode == "web":
        return _play_web(title, seed, n, opts, rng, max_actions)
    raise ValueError(f"unknown mode {mode!r} (modes: {', '.join(MODES)})")


def _play_web(title: str, seed: int, n: int, opts: Sequence[str], rng: random.Random,
              max_actions: int) -> Game:
    """A game played through the web API (in process): every seat a random client that
    reads its legal actions, draws one (an amount in its range) and posts it; the
    export is then downloaded and loaded."""
    import warnings

    with warnings.catch_warnings():  # starlette's note on its httpx transport
        warnings.filterwarnings("ignore", message=".*httpx.*")
        from fastapi.testclient import TestClient

    from rhineland.io.export import game_from_export, parse_export
    from rhineland.web.app import create_app
    from rhineland.web.limits import Limits

    # One client plays every seat as fast as it can: the per-seat action rate is a
    # guard against people, not the harness.
    unthrottled = Limits(action_burst=1 << 30)
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(f"sqlite:///{tmp}/web.sqlite3", inline_bots=True,
                         resume_bots=False, now=lambda: 1_800_000_000, limits=unthrottled)
        with TestClient(app) as client:
            made = client.post("/api/games", json={
                "title": title, "players": [f"P{i + 1}" for i in range(n)], "seed": seed,
                "optional_rules": list(opts)}).json()
            gid = made["id"]
            secrets = {s["id"]: s["secret"] for s in made["seats"]}
            for _ in range(max_actions):
                state = client.get(f"/api/games/{gid}").json()
                if state["finished"] or not state["acting"]:
                    break
                seat = state["acting"][0]
                auth = {"Authorization": f"Bearer {secrets[seat]}"}
                legal = client.get(f"/api/games/{gid}/legal", headers=auth).json()
                entries = legal["actions"]
                if not entries:
                    break
                kinds = sorted({e["action"]["type"] for e in entries})
                kind = rng.choice(kinds)
                entry = rng.choice([e for e in entries if e["action"]["type"] == kind])
                action = dict(entry["action"])
                amount = entry.get("amount")
                if amount:
                    steps = (amount["max"] - amount["min"]) // amount["step"]
                    action[amount["field"]] = amount["min"] + amount["step"] * rng.randint(
                        0, steps)
                got = client.post(f"/api/games/{gid}/actions", headers=auth, json={
                    "action": action, "last_action_id": legal["last_action_id"]})
                if got.status_code != 200:
                    raise RuntimeError(f"the web API refused a legal action "
                                       f"{orjson.dumps(action).decode()}: {got.text}")
            data = client.get(f"/api/games/{gid}/export").json()
    export = parse_export(data)
    game = game_from_export(export, keep_history=False, lenient=False)
    for step in export.actions:
        game.process(step, atomic=False)
    return game


# -- judging -------------------------------------------------------------------------------
@dataclass
class Verdict:
    """What the reference says of one export: ``accepted`` (it replays every action),
    ``same_values`` (its players' values equal the export's ``result``), ``refused_at``
    and ``refusal`` (the first action it refuses), ``not_offered`` (actions its
    interface would not have offered), ``difference`` (the first field where the
    states differ after an action: ``action_id``, ``type``, ``path``, ``ours``,
    ``reference``) over ``matched`` of ``compared`` actions."""

    game: str
    title: str = ""
    source: str = ""
    actions: int = 0
    accepted: bool = False
    same_values: bool | None = None
    refused_at: int | None = None
    refusal: str | None = None
    not_offered: list[dict[str, Any]] = field(default_factory=list)
    difference: dict[str, Any] | None = None
    matched: int = 0
    compared: int = 0
    error: str | None = None
    documented: str | None = None
    """The difference is one ``docs/rules-differences.md`` lists (its name), where the
    reference does what the rules clearly forbid."""

    @property
    def clean(self) -> bool:
        """Accepted with the same values, every action offered, every state equal (but
        for a documented difference)."""
        return ((self.accepted or self.documented is not None)
                and self.same_values is not False and not self.unexcused_not_offered()
                and (self.difference is None or self.difference_documented())
                and self.error is None)

    def difference_documented(self) -> bool:
        """Whether the state difference is the documented one: the accepted game's
        documented difference, or one at or after a documented refusal (a difference
        before the refusal is ours)."""
        if self.difference is None or self.documented is None:
            return False
        if self.accepted or self.refused_at is None:
            return True
        return int(self.difference["action_id"]) >= self.refused_at

    def unexcused_not_offered(self) -> list[dict[str, Any]]:
        """The actions not offered, but for a documented refusal's refused action (the
        reference neither accepts nor offers it there)."""
        if self.documented is None or self.accepted:
            return self.not_offered
        return [n for n in self.not_offered if n.get("id") != self.refused_at]

    def line(self) -> str:
        """One line: the game and its first fault (or ``ok``)."""
        parts: list[str] = []
        if self.error:
            parts.append(f"error: {self.error}")
        if not self.accepted and self.refusal is not None and self.documented:
            parts.append(f"documented difference: {self.documented} (the reference: "
                         f"{self.refusal[:80]} at {self.refused_at})")
        elif not self.accepted and self.refusal is not None:
            parts.append(f"REFUSED at {self.refused_at}: {self.refusal}")
        elif self.same_values is False:
            parts.append("accepted, OTHER values")
        not_offered = self.unexcused_not_offered()
        if not_offered:
            x = not_offered[0]
            parts.append(f"{len(not_offered)} not offered, first #{x.get('id')}: "
                         f"{str(x.get('reason'))[:200]}")
        if self.difference_documented():
            parts.append(f"documented difference: {self.documented}")
        elif self.difference:
            d = self.difference
            parts.append(f"state differs after #{d['action_id']} ({d['type']}): {d['path']}: "
                         f"ours {str(d['ours'])[:80]} != reference {str(d['reference'])[:80]}")
        what = "; ".join(parts) if parts else f"ok ({self.matched}/{self.compared} states)"
        return f"{self.game} [{self.source}, {self.actions} actions]: {what}"

    def kinds(self) -> list[str]:
        """The faults as kinds (numbers and ids taken out) for the summary."""
        out: list[str] = []
        if self.error:
            out.append("error: " + _generic(self.error))
        if not self.accepted and self.refusal and self.documented:
            out.append(f"documented: {self.documented}")
        elif not self.accepted and self.refusal:
            out.append("refused: " + _generic(self.refusal))
        elif self.same_values is False:
            out.append("other values")
        for x in self.unexcused_not_offered()[:1]:
            out.append(f"not offered: {x.get('type')}")
        if self.difference_documented() and self.accepted:
            out.append(f"documented: {self.documented}")
        elif self.difference:
            out.append(f"state: {self.difference['type']} -> "
                       f"{_generic(self.difference['path'])}")
        return out


_IDS = re.compile(r"\b[A-Za-z]*\d[\w-]*\b")


def _generic(text: str) -> str:
    """``text`` with the words holding digits (ids, amounts, hexes) made ``#``."""
    return _IDS.sub("#", text)[:160]


_REFUSED_AT = re.compile(r"^action (\d+)\b")


def judge(oracle: Oracle, export_path: Path, work: Path, *, source: str = "",
          trace_path: Path | None = None) -> Verdict:
    """Ask the reference about one export (its verdict, the actions its interface would
    not offer) and compare our state with its state after every action it accepted
    (its trace, made in ``work`` unless ``trace_path`` is given: then the export is a
    reference game and only the comparison is made)."""
    data = parse_json(export_path.read_bytes(), str(export_path))
    verdict = Verdict(game=export_path.stem, title=str(data.get("title")), source=source,
                      actions=len(data.get("actions") or []))
    if trace_path is None:
        got = oracle.load(export_path)
        if "error" in got:
            verdict.refusal = str(got["error"])
        else:
            verdict.accepted = True
            if data.get("result"):
                verdict.same_values = bool(got.get("result_matches"))
        verdict.not_offered = oracle.offered(export_path)
        trace_path = work / f"{export_path.stem}.trace.json"
        if not oracle.trace(export_path, trace_path):
            verdict.error = "the reference wrote no trace"
            return verdict
        if not verdict.accepted:
            stopped = parse_json(trace_path.read_bytes()).get("error") or ""
            m = _REFUSED_AT.match(str(stopped))
            verdict.refused_at = int(m.group(1)) if m else None
            verdict.documented = documented_refusal(export_path, data, verdict)
    else:
        verdict.accepted = True
    try:
        report = compare_with_trace(export_path, trace_path)
    except Exception as exc:  # a malformed trace or export: reported, the batch goes on
        verdict.error = f"comparison failed: {type(exc).__name__}: {exc}"
        return verdict
    verdict.matched, verdict.compared = report.matched, report.total
    if report.diffs:
        d = report.diffs[0]
        verdict.difference = {"action_id": d.action_id, "type": d.action_type,
                              "path": d.path, "ours": d.ours, "reference": d.theirs}
        last = report.matched + 1 == report.total
        verdict.documented = documented_difference(
            verdict.difference, last=last,
            all_bankrupt=last and d.action_type == "bankrupt"
            and all_players_bankrupt(export_path))
    return verdict


ALL_BANKRUPT = "every player bankrupt: the game ends (the reference goes on, nobody to act)"
"""``docs/rules-differences.md``, both titles: when the last player goes bankrupt the
game is over here; the reference leaves it unfinished with no one to act (or, where the
bankruptcy ends an operating round, fails starting a stock round with nobody in it)."""


def documented_difference(difference: dict[str, Any], *, last: bool,
                          all_bankrupt: bool = False) -> str | None:
    """The name of the documented difference ``difference`` is (:data:`ALL_BANKRUPT`:
    the game's last action a bankruptcy after which only our game is finished, or,
    with ``all_bankrupt`` (every player is bankrupt here), after which the reference
    went on to another round), or ``None``."""
    if not (last and difference["type"] == "bankrupt"):
        return None
    if (difference["path"] == "finished" and difference["ours"] is True
            and difference["reference"] is False):
        return ALL_BANKRUPT
    if all_bankrupt and str(difference["path"]).startswith("round."):
        return ALL_BANKRUPT
    return None


def all_players_bankrupt(export_path: Path) -> bool:
    """Whether every player is bankrupt at the end of the export (replayed here)."""
    game = replay(load_export(export_path))
    return all(p.bankrupt for p in game.players)


def documented_refusal(export_path: Path, data: dict[str, Any],
                       verdict: Verdict) -> str | None:
    """The documented difference a refusal is, or ``None``: :data:`ALL_BANKRUPT` when the
    refused action is the export's last, a bankruptcy after which every player here is
    bankrupt, and the reference failed with a ``ZeroDivisionError`` (it starts the next
    stock round with nobody in it); :data:`BONDS_DEADLOCK` when that bankruptcy is
    refused for means that count bonds rhineland leaves out; :data:`MERGER_TIE_CRASH`
    for the reference's crash on a tied merger presidency (any action)."""
    actions = data.get("actions") or []
    if not actions or verdict.refused_at is None or verdict.refusal is None:
        return None
    if "Integer::MAX" in verdict.refusal:
        return MERGER_TIE_CRASH
    last = actions[-1]
    if not (last.get("type") == "bankrupt" and last.get("id") == verdict.refused_at
            and data.get("game_end_reason") == "bankrupt"):
        return None
    if "ZeroDivisionError" in verdict.refusal:
        return ALL_BANKRUPT if all_players_bankrupt(export_path) else None
    if "Cannot go bankrupt" in verdict.refusal and bonds_left_out(export_path, last):
        return BONDS_DEADLOCK
    return None


MERGER_TIE_CRASH = ("1893 merger presidency tied with a holder who merged nothing: the "
                    "reference crashes (Integer::MAX), rhineland takes the merging order")
"""``docs/rules-differences.md``, 1893 merger ties: the reference engine fails with
``NameError: uninitialized constant Integer::MAX`` when the largest holders of a founded
AGV/HGK tie, the president's certificate is not theirs and one of them merged nothing."""


BONDS_DEADLOCK = ("1893 bonds where no other company's train may be bought: the bankruptcy "
                  "goes on here (the reference counts the bonds, refuses it and leaves no "
                  "legal action)")
"""``docs/rules-differences.md``, 1893 bonds: the reference engine counts a president's
bonds toward the means in the bankruptcy check though no step sells them in an
operating round; where the company may buy no other company's train it is left with
no action it accepts, and rhineland lets the bonds not count."""


def bonds_left_out(export_path: Path, bankrupt: dict[str, Any]) -> bool:
    """Whether, just before the export's last action ``bankrupt``, the bankrupt
    company's president holds bonds that rhineland's bankruptcy check leaves out
    (``bankruptcy_extra_means`` 0 for a player with bonds)."""
    game = replay(load_export(export_path), until=int(bankrupt["id"]) - 1)
    sym = str(bankrupt.get("entity"))
    entity: Any = game.corporations.get(sym) or game.minors.get(sym)
    owners = game.entity_owner_ids(entity) if entity is not None else []
    if not owners:
        return False
    player = game.player(owners[0])
    has_bonds = any(is_bond(c) for c in player.companies)
    return has_bonds and game.title.bankruptcy_extra_means(game, entity, player) == 0


def summary(verdicts: Sequence[Verdict]) -> list[str]:
    """Lines: per title the games judged and the clean ones, then every fault kind with
    its count of games and the first game showing it."""
    lines: list[str] = []
    for title in sorted({v.title for v in verdicts}):
        vs = [v for v in verdicts if v.title == title]
        accepted = sum(v.accepted and v.same_values is not False for v in vs)
        offered = sum(not v.not_offered for v in vs)
        equal = sum(v.difference is None and v.error is None for v in vs)
        documented = sum(v.documented is not None and v.error is None for v in vs)
        lines.append(f"{title}: {len(vs)} games, {sum(v.clean for v in vs)} clean; accepted "
                     f"with the same values {accepted}, every action offered {offered}, "
                     f"every state equal {equal}"
                     + (f" (and {documented} but for a documented difference)"
                        if documented else ""))
    counts: Counter[str] = Counter()
    first: dict[str, str] = {}
    for v in verdicts:
        for kind in dict.fromkeys(v.kinds()):
            key = f"{v.title} {kind}"
            counts[key] += 1
            first.setdefault(key, v.game)
    for key, n in counts.most_common():
        lines.append(f"  {n:4d} x {key}  (e.g. {first[key]})")
    return lines


def write_report(verdicts: Sequence[Verdict], path: Path) -> None:
    """The verdicts as JSON lines."""
    path.write_bytes(b"".join(orjson.dumps(asdict(v), default=str) + b"\n"
                              for v in verdicts))


def export_of(game: Game) -> bytes:
    """The game's export as JSON bytes (what 18xx.games loads)."""
    return orjson.dumps(to_export(game), option=orjson.OPT_INDENT_2)


__all__ = ["MODES", "PROFILES", "Oracle", "OracleError", "Verdict", "export_of", "judge",
           "play_ours", "summary", "write_report"]

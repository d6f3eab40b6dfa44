"""Benchmark: ``best_routes`` on dense boards (issue 10).

    ulimit -v 6000000   # always: a runaway search must not take the machine down
    PYTHONPATH=src .venv/bin/python bench/routes_dense.py [--budget N] [--timeout S]
        [--limit K] [--every N] [--titles 18Rhl,1893] [EXPORT ...]

Dense boards, by the rule of issue 10: from the final position of every game in
``../shared/fixtures`` (every batch), every company with a token on the board
lays, in turn, the engine's own legal tile lays
(:func:`rhineland.board.legality.legal_tile_lays`, normal lays, cash unlimited)
that add track (the new tile has more track paths than the old one), until no
lay of any company adds track.  Then each such company in turn gets a token in
every free city slot (a copy of the board per company) and runs

(a) each of the phase's largest legal train mixes: ``limit`` copies of the
    largest train type of the phase, and ``limit - 1`` of it plus one of the
    second largest (``limit``: the phase's train limit for the company);
(b) three of the largest train type (a what-if beyond the limit).

Each call runs in a forked child (``os.fork``): the time is the child's CPU
time (``time.process_time``: the machine is shared, so wall time follows the
load; the wall time is kept as ``wall``) of
:func:`rhineland.routes.search.search_routes`, the memory its peak
resident set above the resident set at the fork (``VmHWM`` after resetting it
through ``/proc/self/clear_refs``).  ``--budget`` passes ``budget_nodes`` (the
anytime mode: a cap on search nodes, for quick runs while developing);
``--timeout`` kills a call after that many seconds of CPU time (``ITIMER_PROF``:
user + system time of the child, the clock the figures use; reported as a
timeout), with a wall-clock guard of ten times that (``signal.alarm``, reported
as "wall timeout") in case a child stalls without using CPU.
Prints median, p95 and max time and peak memory per case, node counts (which
do not depend on the machine's load) and the slowest calls.  Dense boards are
cached in ``/tmp/rhineland_dense_boards.pickle`` (``--cache`` for another file,
``--rebuild`` to redo).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import pickle
import signal
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rhineland.io.export import load_export, replay
from rhineland.routes.model import RouteContext
from rhineland.routes.search import search_routes
from rhineland.sim.dense import densify, fill_tokens, largest_types, tokened_companies

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CACHE = Path("/tmp/rhineland_dense_boards.pickle")


@dataclasses.dataclass(frozen=True)
class DenseCall:
    """One timed call: the game, the company, the case (a/b) and the context."""

    game: str
    entity: str
    case: str
    ctx: RouteContext

    @property
    def label(self) -> str:
        trains = "+".join(t.rpartition("-")[0] for t in self.ctx.trains)
        return f"{self.game} {self.entity} {self.case} {trains}"


def all_exports() -> list[Path]:
    """Every game of every batch in ``../shared/fixtures`` (not the manifests)."""
    return sorted(
        p for p in SHARED.glob("fixtures/**/*.json") if p.name != "manifest.json"
    )


def dense_calls(path: Path) -> list[DenseCall]:
    """The calls of one export: densify its final board, then per tokened company the
    cases (a) and (b) of the module docstring."""
    export = load_export(path)
    game = replay(export)
    densify(game)
    types = largest_types(game)
    out: list[DenseCall] = []
    for ent in tokened_companies(game):
        kind = "corporation" if ent.sym in game.corporations else "minor"
        limit = game.phase.limit_for(kind)
        base = dataclasses.replace(
            game.title.route_context(game, ent), trains=(), board=game.board.clone()
        )
        ctx = fill_tokens(base)
        mixes = [[types[0]] * limit]
        if len(types) > 1 and limit > 1:
            mixes.append([types[0]] * (limit - 1) + [types[1]])
        for mix in mixes:
            trains = tuple(f"{n}-{90 + i}" for i, n in enumerate(mix))
            out.append(DenseCall(path.stem, ent.sym, "a", dataclasses.replace(ctx, trains=trains)))
        trains = tuple(f"{types[0]}-{90 + i}" for i in range(3))
        out.append(DenseCall(path.stem, ent.sym, "b", dataclasses.replace(ctx, trains=trains)))
    return out


def load_calls(paths: list[Path], rebuild: bool = False, cache_path: Path = CACHE
               ) -> list[DenseCall]:
    """Dense calls of ``paths``, from the cache file ``cache_path`` when it holds them."""
    cache: dict[str, list[DenseCall]] = {}
    if cache_path.exists() and not rebuild:
        try:
            cache = pickle.loads(cache_path.read_bytes())
        except Exception:
            cache = {}
    out: list[DenseCall] = []
    dirty = False
    for p in paths:
        key = str(p)
        if key not in cache:
            print(f"densifying {p.parent.name}/{p.name} ...", file=sys.stderr, flush=True)
            cache[key] = dense_calls(p)
            dirty = True
        out.extend(cache[key])
    if dirty:
        cache_path.write_bytes(pickle.dumps(cache))
    return out


def _rss_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def run_call(call: DenseCall, budget: int | None, timeout: float) -> dict[str, Any]:
    """Run one call in a forked child; its time (s), peak memory (MB) and result."""
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(rd)
        with contextlib.suppress(OSError):  # resets VmHWM to the current RSS
            Path("/proc/self/clear_refs").write_text("5")
        base = _rss_kb("VmRSS")
        # The timeout is CPU time (the clock the figures use): SIGPROF ends the
        # child; the alarm only guards against a child that stalls off the CPU.
        signal.setitimer(signal.ITIMER_PROF, timeout)
        signal.alarm(max(1, int(10 * timeout + 0.999)))
        res: dict[str, Any]
        try:
            start = time.perf_counter()
            cpu0 = time.process_time()
            rs = (search_routes(call.ctx) if budget is None
                  else search_routes(call.ctx, budget_nodes=budget))
            took = time.perf_counter() - start
            res = {
                "time": time.process_time() - cpu0,
                "wall": took,
                "revenue": rs.revenue,
                "bound": rs.proof.bound,
                "nodes": rs.proof.nodes,
                "candidates": rs.proof.candidates,
            }
        except MemoryError:
            res = {"error": "memory", "time": time.process_time() - cpu0,
                   "wall": time.perf_counter() - start}
        res["mem"] = max(0, _rss_kb("VmHWM") - base) / 1024
        os.write(wr, json.dumps(res).encode())
        os._exit(0)
    os.close(wr)
    data = b""
    while chunk := os.read(rd, 65536):
        data += chunk
    os.close(rd)
    _, status = os.waitpid(pid, 0)
    if not data:
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
        error = {signal.SIGPROF: "timeout", signal.SIGALRM: "wall timeout"}.get(
            sig, f"died ({status})")
        return {"error": error, "time": timeout, "mem": 0.0}
    out: dict[str, Any] = json.loads(data)
    return out


def p95(xs: list[float]) -> float:
    """The 95th percentile (nearest rank)."""
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(0.95 * len(s)) - 1))]


def report(name: str, rows: list[tuple[DenseCall, dict[str, Any]]]) -> None:
    if not rows:
        return
    times = [r["time"] for _, r in rows]
    mems = [r["mem"] for _, r in rows]
    nodes = [r.get("nodes", 0) for _, r in rows]
    fails = sum(1 for _, r in rows if "error" in r)
    gaps = sum(1 for _, r in rows if "bound" in r and r["bound"] > r["revenue"])
    print(
        f"{name}: {len(rows)} calls, time median {statistics.median(times):.3f} s, "
        f"p95 {p95(times):.3f} s, max {max(times):.3f} s; peak memory median "
        f"{statistics.median(mems):.0f} MB, p95 {p95(mems):.0f} MB, max {max(mems):.0f} MB; "
        f"nodes median {statistics.median(nodes):.0f}, max {max(nodes)}; "
        f"failed {fails}, open gap {gaps}"
    )


def iter_selected(calls: list[DenseCall], titles: set[str], limit: int | None, every: int
                  ) -> Iterator[DenseCall]:
    """The calls of ``titles``, every ``every``-th of them, the first ``limit``."""
    picked = [c for c in calls if c.ctx.data.title in titles][::every]
    yield from picked[:limit]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--budget", type=int, default=None, help="budget_nodes per call")
    parser.add_argument("--timeout", type=float, default=60.0, help="CPU seconds per call")
    parser.add_argument("--limit", type=int, default=None, help="first K calls only")
    parser.add_argument("--every", type=int, default=1, help="every N-th call (a sample)")
    parser.add_argument("--titles", default="18Rhl,1893")
    parser.add_argument("--rebuild", action="store_true", help="rebuild the dense boards")
    parser.add_argument("--cache", type=Path, default=CACHE, help="dense-board cache file")
    parser.add_argument("--json", type=Path, default=None, help="write every call's figures")
    parser.add_argument("exports", nargs="*", type=Path)
    args = parser.parse_args()
    calls = load_calls(args.exports or all_exports(), args.rebuild, args.cache)
    titles = set(args.titles.split(","))
    rows: list[tuple[DenseCall, dict[str, Any]]] = []
    for call in iter_selected(calls, titles, args.limit, args.every):
        res = run_call(call, args.budget, args.timeout)
        rows.append((call, res))
        print(f"  {res['time']:7.3f} s {res['mem']:6.0f} MB {res.get('nodes', '-'):>8} nodes "
              f"{res.get('revenue', '-')}/{res.get('bound', '-')} {res.get('error', '')} "
              f"{call.label}", flush=True)
    for title in sorted(titles):
        for case in ("a", "b"):
            report(f"{title} ({case})",
                   [(c, r) for c, r in rows if c.ctx.data.title == title and c.case == case])
    print("slowest:")
    for c, r in sorted(rows, key=lambda cr: -cr[1]["time"])[:8]:
        print(f"  {r['time']:7.3f} s {r['mem']:6.0f} MB {c.label} {r}")
    if args.json:
        args.json.write_text(json.dumps(
            [{"label": c.label, "title": c.ctx.data.title, "case": c.case, **r}
             for c, r in rows], indent=1))


if __name__ == "__main__":
    main()

"""Differential runs against the reference engine (needs Ruby: ../shared/tools/ref-oracle).

    .venv/bin/python scripts/differential.py ours [--title 18Rhl|1893|both] [--games 20]
        [--seed 0] [--modes even,random,bots,web] [--jobs 2] [--out DIR] [--json OUT.jsonl]
    .venv/bin/python scripts/differential.py reference [--title ...] [--games 4]
        [--seed 1000000] [--jobs 2] [--out DIR] [--json OUT.jsonl]
    .venv/bin/python scripts/differential.py judge EXPORT.json [TRACE.json] ...

``ours``: games played here (modes in turn: ``even`` a random player drawing every
action kind evenly, ``random`` the self-play player, ``bots`` random/greedy/MCTS seats,
``web`` a random client of the web API), player counts and optional rules drawn from
each seed; each export goes to the reference: accepted with the same values or refused
(the first refused action), every action its interface would not have offered, and
the first field where our state differs from its state after an action.

``reference``: new games by the reference's random player (``play.rb``; profiles,
player counts and optional rules drawn from each seed, seeds from 1,000,000 up)
replayed here against their traces.

``judge``: the same questions about given exports (with a trace: a reference game).

Prints a line per game and a summary grouped by fault kind; ``--json`` keeps every
verdict.  Exit status 1 when a game is not clean.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import traceback
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from rhineland.sim.differential import (  # noqa: E402
    MODES,
    PROFILES,
    Oracle,
    OracleError,
    Verdict,
    export_of,
    judge,
    play_ours,
    summary,
    write_report,
)
from rhineland.sim.selfplay import TITLE_PLAYERS, random_setup  # noqa: E402

TOOL = ROOT.parent / "shared" / "tools" / "ref-oracle"


def _ours(job: tuple[str, int, str, str, int]) -> Verdict:
    title, seed, mode, out, max_actions = job
    name = f"{title}-{mode}-{seed}"
    try:
        game = play_ours(title, seed, mode, max_actions=max_actions)
    except Exception as exc:
        return Verdict(game=name, title=title, source=mode,
                       error=f"play failed: {type(exc).__name__}: {exc} "
                             f"{traceback.format_exc(limit=-1).splitlines()[-2].strip()}")
    path = Path(out) / f"{name}.json"
    path.write_bytes(export_of(game))
    with tempfile.TemporaryDirectory() as work:
        return judge(Oracle(TOOL), path, Path(work), source=mode)


def _reference(job: tuple[str, int, str, int]) -> Verdict:
    title, seed, out, index = job
    rng = random.Random(seed)
    n, opts = random_setup(title, rng)
    profile = rng.choice(PROFILES)
    source = f"play.rb {profile} {n}p {','.join(opts) or '-'}"
    oracle = Oracle(TOOL)
    path = oracle.play(title, n, seed, profile, index, Path(out), opts)
    if path is None:
        return Verdict(game=f"{title}_g{index}", title=title, source=source,
                       error="the reference's player made no game (a crash of the reference)")
    trace = path.with_name(f"{path.stem}.trace.json")
    with tempfile.TemporaryDirectory() as work:
        return judge(oracle, path, Path(work), source=source,
                     trace_path=trace if trace.is_file() else None)


def _judge(job: tuple[str, str | None]) -> Verdict:
    export, trace = job
    with tempfile.TemporaryDirectory() as work:
        return judge(Oracle(TOOL), Path(export), Path(work), source="given",
                     trace_path=Path(trace) if trace else None)


def _titles(arg: str) -> list[str]:
    return sorted(TITLE_PLAYERS) if arg == "both" else [arg]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    ours = sub.add_parser("ours", help="games played here, judged by the reference")
    ref = sub.add_parser("reference", help="new reference games, replayed here")
    given = sub.add_parser("judge", help="given exports (EXPORT [TRACE] pairs by name)")
    for p in (ours, ref):
        p.add_argument("--title", default="both", choices=["both", *sorted(TITLE_PLAYERS)])
        p.add_argument("--games", type=int, default=10, help="games per title")
        p.add_argument("--out", type=Path, default=None, help="folder for the exports")
    ours.add_argument("--seed", type=int, default=0)
    ours.add_argument("--modes", default=",".join(MODES))
    ours.add_argument("--max-actions", type=int, default=5000)
    ref.add_argument("--seed", type=int, default=1_000_000)
    given.add_argument("files", nargs="+", type=Path)
    for p in (ours, ref, given):
        p.add_argument("--jobs", type=int, default=2)
        p.add_argument("--json", type=Path, default=None, help="every verdict (JSON lines)")
    args = parser.parse_args(argv)
    try:
        Oracle(TOOL)
    except OracleError as exc:
        print(f"differential: {exc}", file=sys.stderr)
        return 2
    out = args.out if getattr(args, "out", None) else Path(tempfile.mkdtemp(prefix="diff-"))
    out.mkdir(parents=True, exist_ok=True)
    verdicts: list[Verdict] = []
    jobs: list[object]
    if args.cmd == "ours":
        modes = [m for m in args.modes.split(",") if m]
        bad = sorted(set(modes) - set(MODES))
        if bad:
            parser.error(f"unknown mode {bad[0]!r} (modes: {', '.join(MODES)})")
        jobs = [(t, args.seed + i, modes[i % len(modes)], str(out), args.max_actions)
                for t in _titles(args.title) for i in range(args.games)]
        work = _ours
    elif args.cmd == "reference":
        jobs = [(t, args.seed + i, str(out), args.seed + i)
                for t in _titles(args.title) for i in range(args.games)]
        work = _reference
    else:
        traces = {f.name.removesuffix(".trace.json"): f for f in args.files
                  if f.name.endswith(".trace.json")}
        jobs = [(str(f), str(traces[f.stem]) if f.stem in traces else None)
                for f in args.files if not f.name.endswith(".trace.json")]
        work = _judge
    print(f"differential: {len(jobs)} games, exports in {out}", flush=True)
    for verdict in _run(work, jobs, args.jobs):
        verdicts.append(verdict)
        print(verdict.line(), flush=True)
    for line in summary(verdicts):
        print(line)
    if args.json:
        write_report(verdicts, args.json)
    return 0 if all(v.clean for v in verdicts) else 1


def _run(work: object, jobs: list[object], n: int) -> Iterator[Verdict]:
    if n <= 1:
        for job in jobs:
            yield work(job)  # type: ignore[operator]
        return
    with ProcessPoolExecutor(n) as pool:
        yield from pool.map(work, jobs)  # type: ignore[arg-type]


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

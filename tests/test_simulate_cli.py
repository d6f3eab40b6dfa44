"""``rhineland simulate`` and ``rhineland tournament`` (:mod:`rhineland.cli.simulate`), the
batch runner (:mod:`rhineland.sim.batch`) and the tournament statistics
(:mod:`rhineland.sim.stats`), with a bounded number of short games."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from rhineland import Game, load_export, replay
from rhineland.bots import RandomBot
from rhineland.cli.main import cli
from rhineland.engine.actions import Action
from rhineland.sim import batch
from rhineland.sim.batch import GameOutcome, GameSpec, run_batch, seat_bots
from rhineland.sim.results import load_results
from rhineland.sim.stats import margin, mean_ci, score_margin, standings, wilson


def test_simulate_writes_exports_that_replay(tmp_path: Path) -> None:
    out = tmp_path / "games"
    res = CliRunner().invoke(cli, ["simulate", "1893", "--games", "2", "--players", "2",
                                   "--bots", "random", "--seed", "11", "--out", str(out)])
    assert res.exit_code == 0, res.output
    files = sorted(p.name for p in out.iterdir())
    assert files == ["1893-11.json", "1893-12.json"]
    for name in files:
        game = replay(load_export(out / name))
        assert game.is_terminal
        scores = " ".join(str(game.result()[p]) for p in sorted(game.result()))
        assert scores in res.output
    assert "games/s" in res.output and "2 (2 finished)" in res.output


class Boom:
    """Bots that play randomly until the 40th decision of all of them, which raises."""

    name = "boom"
    calls = 0

    def __init__(self) -> None:
        self.inner = RandomBot(1)

    def choose(self, game: Game, entity: int) -> Action:
        Boom.calls += 1
        if Boom.calls == 40:
            raise KeyError("engine bug stand-in")
        return self.inner.choose(game, entity)


def test_simulate_stops_on_an_error_and_writes_the_failing_export(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch, "make_bot", lambda name, seed=0: Boom())
    Boom.calls = 0
    res = CliRunner().invoke(cli, ["simulate", "18Rhl", "--games", "3", "--players", "3",
                                   "--out", str(tmp_path)])
    assert res.exit_code == 1
    assert isinstance(res.exception, SystemExit)  # the one line, no exception of its own
    # (the progress bar's line, emptied, comes first)
    assert res.output.strip().startswith("error: game 18Rhl seed 0") and "KeyError" in res.output
    assert "Traceback" not in res.output
    failed = tmp_path / "18Rhl-0-failed.json"
    assert failed.exists()
    game = replay(load_export(failed))  # the 39 actions played before the error
    assert len(game.actions) == 39 and not game.is_terminal
    assert not (tmp_path / "18Rhl-1.json").exists()


def test_simulate_refuses_bad_arguments() -> None:
    runner = CliRunner()
    res = runner.invoke(cli, ["simulate", "18Rhx"])
    assert res.exit_code == 2 and "unknown title '18Rhx'" in res.output
    res = runner.invoke(cli, ["simulate", "18Rhl", "--bots", "random,smart"])
    assert res.exit_code == 2 and "unknown bot 'smart'" in res.output
    res = runner.invoke(cli, ["simulate", "1893", "--optional", "nope"])
    assert res.exit_code == 2 and "no optional rule 'nope'" in res.output
    res = runner.invoke(cli, ["simulate", "18Rhl", "--bots", "mcts:x"])
    assert res.exit_code == 2 and "bad MCTS iteration count" in res.output
    res = runner.invoke(cli, ["simulate", "18Rhl", "--players", "9", "--games", "1"])
    assert res.exit_code == 2 and "18Rhl is for 3, 4, 5, 6 players, not 9" in res.output


def test_two_jobs_give_the_same_games_as_one(tmp_path: Path) -> None:
    """Two processes play the same games as one: identical exports (first 200 actions)."""
    def run(jobs: int) -> dict[str, bytes]:
        out = tmp_path / f"jobs{jobs}"
        specs = [GameSpec("1893", s, ("random", "greedy"), max_actions=200, out_dir=str(out))
                 for s in (21, 22, 23)]
        outcomes = list(run_batch(specs, jobs))
        assert sorted(o.spec.seed for o in outcomes) == [21, 22, 23]
        assert all(o.actions == 200 and o.error is None for o in outcomes)
        return {p.name: p.read_bytes() for p in out.iterdir()}

    one, two = run(1), run(2)
    assert len(one) == 3
    assert one == two


def test_seats_rotate() -> None:
    assert seat_bots(["greedy", "random"], 3, 0) == ("greedy", "random", "greedy")
    assert seat_bots(["greedy", "random"], 3, 1) == ("random", "greedy", "random")
    assert seat_bots(["a", "b", "c"], 3, 2) == ("c", "a", "b")


def test_wilson_and_mean_intervals() -> None:
    lo, hi = wilson(5, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.2366, 0.7634)
    lo, hi = wilson(0, 20)
    assert lo == 0.0 and round(hi, 4) == 0.1611
    assert wilson(0, 0) == (0.0, 1.0)
    mean, half = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5 and round(half, 4) == round(1.959963984540054 * (5 / 12) ** 0.5, 4)


def test_standings_share_ties() -> None:
    spec = GameSpec("18Rhl", 0, ("greedy", "random", "greedy"))
    outs = [GameOutcome(spec, finished=True, scores=[10, 30, 30]),
            GameOutcome(spec, finished=True, scores=[50, 20, 10]),
            GameOutcome(spec, finished=False)]
    st = standings(outs)
    assert st["greedy"].seats == 4 and st["greedy"].wins == 1.5
    assert st["random"].seats == 2 and st["random"].wins == 0.5
    assert st["greedy"].scores == [10, 30, 50, 10]


def _mcts_greedy_outcomes() -> tuple[GameSpec, list[GameOutcome]]:
    """Four 1893 games, seats rotated: three finished (30/10, 30/10, 50/20), one not."""
    a = GameSpec("1893", 0, ("mcts", "greedy"))
    b = GameSpec("1893", 1, ("greedy", "mcts"))
    return a, [GameOutcome(a, finished=True, scores=[30, 10]),
               GameOutcome(b, finished=True, scores=[30, 10]),
               GameOutcome(a, finished=True, scores=[50, 20]),
               GameOutcome(b, finished=False)]


def test_margin_with_bootstrap_interval() -> None:
    """Three games, seats rotated: MCTS wins two, greedy one (a tie counts half): the
    margin is 2/3 - 1/3; the bootstrap interval holds it, is the same for the same
    seed, and is a single point when every resample is alike."""
    a, outs = _mcts_greedy_outcomes()
    m = margin(outs, "mcts", "greedy", resamples=500, seed=4)
    assert m is not None
    assert m.diff == 2 / 3 - 1 / 3
    assert -1.0 <= m.low <= m.diff <= m.high <= 1.0 and m.low < m.high
    assert margin(outs, "mcts", "greedy", resamples=500, seed=4) == m
    sweep = margin(outs[::2], "mcts", "greedy", resamples=50)
    assert sweep is not None and (sweep.diff, sweep.low, sweep.high) == (1.0, 1.0, 1.0)
    tie = margin([GameOutcome(a, finished=True, scores=[20, 20])], "mcts", "greedy")
    assert tie is not None and tie.diff == 0.0
    assert margin(outs, "mcts", "random") is None


def test_score_margin_with_bootstrap_interval() -> None:
    """The same three finished games: MCTS scored 30, 10 and 50 (30M a seat), greedy
    10, 30 and 20 (20M a seat): +10M; the unfinished game does not count."""
    _, outs = _mcts_greedy_outcomes()
    m = score_margin(outs, "mcts", "greedy", resamples=500, seed=4)
    assert m is not None and m.diff == 10.0
    assert m.low <= m.diff <= m.high and m.low < m.high
    assert m.low >= -20.0 and m.high <= 40.0
    three = GameSpec("18Rhl", 2, ("mcts", "greedy", "greedy"))
    one = score_margin([GameOutcome(three, finished=True, scores=[40, 10, 30])],
                       "mcts", "greedy")
    assert one is not None and (one.diff, one.low, one.high) == (20.0, 20.0, 20.0)
    assert score_margin(outs, "mcts", "random") is None


def test_tournament_prints_each_bot() -> None:
    res = CliRunner().invoke(cli, ["tournament", "18Rhl", "--games", "1", "--players", "3",
                                   "--bots", "greedy,random", "--seed", "2"])
    assert res.exit_code == 0, res.output
    lines = {ln.split()[1]: ln for ln in res.output.splitlines()
             if ln.strip().startswith("│") and len(ln.split()) > 2}
    assert "greedy" in lines and "random" in lines
    assert "even odds 33.3%" in res.output
    assert "margin greedy over random:" in res.output
    assert "bootstrap 95% CI" in res.output
    assert "score margin greedy over random:" in res.output


def test_simulate_check_verifies_invariants_and_replay() -> None:
    res = CliRunner().invoke(cli, ["simulate", "1893", "--games", "1", "--players", "2",
                                   "--bots", "random", "--seed", "2", "--check"])
    assert res.exit_code == 0, res.output
    assert "1 (1 finished)" in res.output


def test_invariant_check_finds_lost_money() -> None:
    from rhineland import new_game
    from rhineland.sim.invariants import InvariantError, check_invariants, total_money

    game = new_game("18Rhl", ["A", "B", "C"])
    start = total_money(game)
    check_invariants(game, start)
    game.players[0].cash -= 5
    with pytest.raises(InvariantError, match=r"money is not conserved: .* was"):
        check_invariants(game, start)
    game.players[0].cash += 5
    game.corporations["ADR"].certificates[1].owner = "nobody"
    with pytest.raises(InvariantError, match="ADR_1 is held by 'nobody'"):
        check_invariants(game, start)


def test_tournament_results_file_resumes_a_stopped_run(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``--results``: two 1893 games are appended as they end; the same run asked for
    three games plays only the third (one call of ``run_game``) and counts all three
    (6 seats); a broken line is a one-line error."""
    path = tmp_path / "runs.jsonl"
    args = ["tournament", "1893", "--players", "2", "--bots", "random,greedy", "--seed", "5",
            "--results", str(path)]
    res = CliRunner().invoke(cli, [*args, "--games", "2"])
    assert res.exit_code == 0, res.output
    lines = path.read_text().splitlines()
    assert len(lines) == 2
    first = load_results(path)
    assert [o.spec.seed for o in first] == [5, 6]
    assert [o.spec.bots for o in first] == [("random", "greedy"), ("greedy", "random")]
    assert all(o.finished and len(o.scores) == 2 for o in first)
    calls: list[int] = []
    real = batch.run_game

    def counted(spec: GameSpec) -> GameOutcome:
        calls.append(spec.seed)
        return real(spec)

    monkeypatch.setattr(batch, "run_game", counted)
    res = CliRunner().invoke(cli, [*args, "--games", "3"])
    assert res.exit_code == 0, res.output
    assert calls == [7]
    assert "2 games from" in res.output
    assert "1 played now" in res.output
    again = load_results(path)
    assert [o.spec.seed for o in again] == [5, 6, 7]
    assert again[:2] == first
    rows = {ln.split()[1]: ln.split() for ln in res.output.splitlines()
            if ln.strip().startswith("│") and len(ln.split()) > 3}
    assert rows["random"][3] == "3" and rows["greedy"][3] == "3"  # seats
    path.write_text(lines[0] + "\n{\"title\": \"1893\"}\n")
    res = CliRunner().invoke(cli, [*args, "--games", "3"])
    assert res.exit_code != 0
    assert "runs.jsonl:2: a result line lacks 'seed'" in res.output
    assert "Traceback" not in res.output


def test_unwritable_outputs_are_refused_before_any_game(tmp_path: Path) -> None:
    """``--out`` and ``--results`` that cannot be written: one line, status 2, no game
    played (a file stands where the folder would go)."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    runner = CliRunner()
    res = runner.invoke(cli, ["simulate", "1893", "--games", "1", "--players", "2",
                              "--out", str(blocker / "games")])
    assert res.exit_code == 2 and isinstance(res.exception, SystemExit)
    assert res.output.startswith(f"error: --out: cannot write to {blocker / 'games'}")
    res = runner.invoke(cli, ["tournament", "1893", "--games", "1", "--players", "2",
                              "--results", str(blocker / "runs.jsonl")])
    assert res.exit_code == 2 and isinstance(res.exception, SystemExit)
    assert res.output.startswith("error: --results: ") and "Traceback" not in res.output


def test_tournament_stops_on_an_error_with_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch, "make_bot", lambda name, seed=0: Boom())
    monkeypatch.chdir(tmp_path)  # the failing export goes to the current folder
    Boom.calls = 0
    res = CliRunner().invoke(cli, ["tournament", "1893", "--games", "2", "--players", "2"])
    assert res.exit_code == 1 and isinstance(res.exception, SystemExit)
    assert res.output.strip().startswith("error: game 1893 seed 0") and "KeyError" in res.output
    assert (tmp_path / "1893-0-failed.json").exists()


def test_unfinished_games_are_named(tmp_path: Path) -> None:
    res = CliRunner().invoke(cli, ["simulate", "1893", "--games", "1", "--players", "2",
                                   "--max-actions", "30"])
    assert res.exit_code == 1 and isinstance(res.exception, SystemExit)
    assert "error: 1 of 1 games did not end within --max-actions 30" in res.output


def test_a_killed_worker_and_a_multi_line_error_are_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from concurrent.futures.process import BrokenProcessPool

    from rhineland.cli import simulate

    def broken(specs: object, jobs: int) -> object:
        raise BrokenProcessPool("A process in the process pool was terminated abruptly")
        yield  # a generator, as run_batch is

    monkeypatch.setattr(simulate, "run_batch", broken)
    res = CliRunner().invoke(cli, ["simulate", "1893", "--games", "2", "--jobs", "2"])
    assert res.exit_code == 1 and isinstance(res.exception, SystemExit)
    assert res.output.strip() == ("error: a worker process ended abruptly after 0 games: "
                                  "A process in the process pool was terminated abruptly")
    monkeypatch.undo()

    class TwoLines(Boom):
        def choose(self, game: Game, entity: int) -> Action:
            raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(batch, "make_bot", lambda name, seed=0: TwoLines())
    res = CliRunner().invoke(cli, ["simulate", "1893", "--games", "1", "--players", "2",
                                   "--out", str(tmp_path)])
    assert res.exit_code == 1
    assert res.output.strip().count("\n") == 0 and "RuntimeError: boom second line" in res.output

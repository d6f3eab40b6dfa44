"""``rhineland simulate --backend ray``: the same games as the local backend, as Ray
tasks on a one-CPU local Ray (skipped when Ray is not installed); without Ray, a
one-line error."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator

import pytest
from click.testing import CliRunner

from rhineland.cli.main import cli
from rhineland.sim.batch import GameSpec, run_batch

HAS_RAY = importlib.util.find_spec("ray") is not None


@pytest.fixture(scope="module")
def local_ray() -> Iterator[object]:
    """One local Ray with one CPU for the module's tests (the backend reuses it)."""
    import ray

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    yield ray
    ray.shutdown()


@pytest.mark.skipif(not HAS_RAY, reason="ray is not installed (pip install -e '.[ray]')")
def test_ray_backend_plays_the_same_games_as_local(local_ray: object) -> None:
    from rhineland.sim.batch import run_batch_ray

    specs = [GameSpec("1893", seed, ("random", "random"), max_actions=150)
             for seed in (1, 2)]
    local = sorted(run_batch(specs, 1), key=lambda o: o.spec.seed)
    remote = sorted(run_batch_ray(specs, 1), key=lambda o: o.spec.seed)
    assert [(o.actions, o.rounds, o.scores, o.error) for o in remote] == \
        [(o.actions, o.rounds, o.scores, o.error) for o in local]
    assert all(o.actions == 150 for o in remote)


@pytest.mark.skipif(not HAS_RAY, reason="ray is not installed (pip install -e '.[ray]')")
def test_simulate_cli_with_ray(local_ray: object) -> None:
    result = CliRunner().invoke(cli, ["simulate", "1893", "--games", "2", "--players", "2",
                                      "--max-actions", "100", "--backend", "ray",
                                      "--jobs", "1"])
    # unfinished games (cut at 100 actions) exit 1 after the table
    assert "games/s" in result.output and "2 (0 finished)" in result.output
    assert result.exit_code == 1


def test_ray_backend_without_ray_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_ray(name: str, *args: object, **kwargs: object) -> object:
        if name == "ray" or name.startswith("ray."):
            raise ImportError("No module named 'ray'")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_ray)
    result = CliRunner().invoke(cli, ["simulate", "1893", "--games", "1", "--players", "2",
                                      "--backend", "ray"])
    assert result.exit_code == 2
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert lines[-1].startswith("error: --backend ray: the ray backend needs Ray")
    assert "Traceback" not in result.output

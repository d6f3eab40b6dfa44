"""Run by tests/test_native.py in a fresh process (native or pure): prints one JSON line
of fingerprints -- whether the compiled modules are in use, the legal-action masks and
observations of an env run per title, the objects those runs leave for the cycle collector,
and the state after replaying real games (the export paths are the arguments), of the
game and of its deep and pickled copies."""

from __future__ import annotations

import copy
import gc
import hashlib
import pickle
import sys

import numpy as np
import orjson

from rhineland import native
from rhineland.env import RhinelandEnv
from rhineland.io.export import load_export, replay
from rhineland.io.state_view import game_state

STEPS = 1500


def env_run(title: str, players: int, seed: int) -> str:
    """SHA-256 of every mask and observation of STEPS random env steps."""
    env = RhinelandEnv(title, players, seed=seed)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    digest = hashlib.sha256()
    games = 0
    for _ in range(STEPS):
        if any(env.terminations.values()) or any(env.truncations.values()):
            games += 1
            env.reset(seed=seed + games)
        obs = env.observe(env.agent_selection)
        mask = obs["action_mask"]
        digest.update(mask.tobytes())
        digest.update(obs["observation"].tobytes())
        env.step(int(rng.choice(np.flatnonzero(mask))))
    return digest.hexdigest()


def state_digest(game: object) -> str:
    """SHA-256 of the game's state view."""
    return hashlib.sha256(orjson.dumps(game_state(game),  # type: ignore[arg-type]
                                       option=orjson.OPT_SORT_KEYS)).hexdigest()


def main() -> None:
    """Print the fingerprints as one JSON object."""
    out: dict[str, object] = {"active": native.active()}
    gc.collect()
    gc.disable()  # what the env runs leave for the cycle collector, counted below
    try:
        out["1893"] = env_run("1893", 3, 5)
        out["18Rhl"] = env_run("18Rhl", 4, 5)
        out["cycles"] = gc.collect()
    finally:
        gc.enable()
    for path in sys.argv[1:]:
        game = replay(load_export(path))
        # the end state, and that of a deep copy and of a pickled copy of the game (its
        # board's route cache holds compiled objects in the native build)
        out[path] = [state_digest(g) for g in
                     (game, copy.deepcopy(game), pickle.loads(pickle.dumps(game)))]
    print(orjson.dumps(out).decode())


if __name__ == "__main__":
    main()

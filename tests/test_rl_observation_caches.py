"""What the observation encoder keeps between calls never goes stale: the holdings of a
corporation's certificates (the last ones, kept while their owners and spec are the
same), the board's segments (kept per board version, updated by the hexes and tokens
that changed) and the players' values read from the holdings.

Along real games an encoder used at every position encodes exactly as a new one, and a
certificate moved (or a corporation with other certificates) shows at once."""

from __future__ import annotations

import dataclasses

import pytest

np = pytest.importorskip("numpy")

from reference import SHARED, needs_shared  # noqa: E402
from rhineland import new_game  # noqa: E402
from rhineland.engine.actions import Action  # noqa: E402
from rhineland.engine.entities import IPO, Certificate  # noqa: E402
from rhineland.engine.game import Game  # noqa: E402
from rhineland.io.export import load_export, replay  # noqa: E402
from rhineland.rl import ObservationEncoder  # noqa: E402

REAL = ("1893/1893_end_bank.json", "18Rhl/18Rhl_end_bank.json")
POSITIONS = 40


@needs_shared
@pytest.mark.parametrize("rel", REAL)
def test_a_used_encoder_encodes_as_a_new_one_along_a_real_game(rel: str) -> None:
    """At 40 positions spread over the real game (and at its end, then at its start and
    end in turn: another board each time), every seat's vector from the encoder used all
    along equals a new encoder's, byte for byte, and the players' values in it are
    ``game.player_values()`` (M / 1000, seat-relative)."""
    export = load_export(SHARED / "fixtures" / rel)
    n = len(export.players)
    used = ObservationEncoder(export.title, n)
    stride = max(1, len(export.actions) // POSITIONS)
    checked: list[int] = []

    def check(game: Game) -> None:
        new = ObservationEncoder(export.title, n)
        values = game.player_values()
        for seat in range(n):
            vec = used.encode(game, seat)
            assert vec.tobytes() == new.encode(game, seat).tobytes()
            seen = used.as_dict(vec)["players"][:, 1]
            want = [np.float32(values[game.seats[(seat + r) % n][0]] / 1000)
                    for r in range(n)]
            assert list(seen) == want
        checked.append(len(game.actions))

    def at(i: int, action: Action, game: Game) -> None:
        used.encode(game, i % n)  # the encoder sees every position
        if i % stride == 0:
            check(game)

    final = replay(export, on_action=at, live=True)
    check(final)
    assert len(checked) >= POSITIONS
    assert final.is_terminal
    start = new_game(export.title, [p.name for p in final.players], seed=export.seed,
                     optional_rules=export.optional_rules)
    for game in (start, final, start):  # other boards in turn
        check(game)


def test_a_moved_certificate_shows_at_once() -> None:
    """1893, 3 players: DE parred at 100 M; a 10 % certificate moved from the IPO to the
    player in seat 1 shows in their shares (0.1), the IPO percent (1.0 -> 0.9) and their
    value (600 M + 100 M); moved back, the vector is the first one again."""
    game = new_game("1893", ["A", "B", "C"])
    enc = ObservationEncoder("1893", 3)
    de = game.corporations["DE"]
    cell = next(c for row in game.data.market for c in row if c is not None and c.price == 100)
    de.par_price = de.share_price = cell
    ci = enc.corps.index("DE")
    before = enc.encode(game, 0)
    view = enc.as_dict(before)
    assert view["shares"][1, ci] == 0
    assert view["corporations"][ci, 8] == np.float32(1.0)
    assert view["players"][1, 1] == np.float32(0.6)
    cert = de.certificates[1]
    assert (cert.percent, cert.owner) == (10, IPO)
    cert.owner = game.seats[1][0]
    view = enc.as_dict(enc.encode(game, 0))
    assert view["shares"][1, ci] == np.float32(0.1)
    assert view["corporations"][ci, 8] == np.float32(0.9)
    assert view["players"][1, 1] == np.float32(0.7)
    cert.owner = IPO
    assert enc.encode(game, 0).tobytes() == before.tobytes()


def test_the_same_owners_of_other_certificates_are_not_confused() -> None:
    """Two 1893 games whose DE certificates have the same owners (the president's
    certificate with seat 0, the rest in the IPO) but other percents (20 % and, in a
    made-up spec, 30 % + 10 % x 7): each game shows its own president's share."""
    a = new_game("1893", ["A", "B", "C"])
    b = new_game("1893", ["A", "B", "C"])
    spec = a.corporations["DE"].spec
    assert spec.shares[0] == 20 and len(spec.shares) == 9
    other = dataclasses.replace(spec, shares=(30,) + (10,) * 7 + (0,))
    de_b = b.corporations["DE"]
    de_b.spec = other
    de_b.certificates = [Certificate("DE", i, pct, i == 0, IPO)
                         for i, pct in enumerate(other.shares)]
    for game in (a, b):
        game.corporations["DE"].certificates[0].owner = game.seats[0][0]
    enc = ObservationEncoder("1893", 3)
    ci = enc.corps.index("DE")
    for game, share, ipo in ((a, 0.2, 0.8), (b, 0.3, 0.7), (a, 0.2, 0.8)):
        view = enc.as_dict(enc.encode(game, 0))
        assert view["shares"][0, ci] == np.float32(share)
        assert view["president"][ci, 0] == 1
        assert view["corporations"][ci, 8] == np.float32(ipo)


def test_vectors_are_independent() -> None:
    """Each call returns its own writable vector: changing one leaves the next alone."""
    game = new_game("18Rhl", ["A", "B", "C", "D"])
    enc = ObservationEncoder("18Rhl", 4)
    first = enc.encode(game, 0)
    first[:] = 7
    second = enc.encode(game, 0)
    assert not np.array_equal(first, second)
    assert second.flags.writeable and second[0] in (0, 1)

"""What the terminal game shows besides the tables of players and companies
(:mod:`rhineland.cli.play_view`): the stock market with the companies on their cells,
the operating company's part of the map, and token moves named by place
(:func:`rhineland.io.describe.city_place`)."""

from __future__ import annotations

from rich.console import Console

from rhineland import Game, new_game
from rhineland.bots import GreedyBot, decider
from rhineland.cli.play_view import market_view, network_view, state_view
from rhineland.engine.actions import PlaceToken
from rhineland.io.describe import describe


def _greedy_until(game: Game, done: object) -> Game:
    bot = GreedyBot()
    for _ in range(3000):
        if done(game):  # type: ignore[operator]
            return game
        game.process(bot.choose(game, decider(game)))
    raise AssertionError("the position was not reached")


def _text(renderable: object) -> str:
    console = Console(width=160, record=True)
    console.print(renderable)
    return console.export_text()


def _at_track(game: Game) -> bool:
    return (game.state.round is not None and game.state.round.kind == "Operating"
            and game.round.step_name(game) == "track")


def test_the_market_shows_each_company_on_its_cell() -> None:
    game = new_game("18Rhl", ["Ann", "Ben", "Cid"], seed=4)
    assert market_view(game) is None  # no share price yet
    _greedy_until(game, _at_track)
    view = market_view(game)
    assert view is not None
    text = _text(view)
    for corp in game.corporations.values():
        if corp.share_price is not None:
            assert corp.sym in text and str(corp.share_price.price) in text


def test_the_operating_company_sees_its_network() -> None:
    game = _greedy_until(new_game("18Rhl", ["Ann", "Ben", "Cid"], seed=4), _at_track)
    ent = game.round.current_entity(game)
    text = _text(network_view(game))
    assert f"{ent.sym}'s network" in text
    home = ent.tokens[0][0]  # its home hex, named by the map
    location = game.board.spec.hexes[home].location
    assert f"{location} ({home})" in text and ent.sym in text
    assert "network" in _text(state_view(game))
    assert network_view(new_game("1893", ["A", "B", "C"])) is None  # no operating round


def test_token_moves_name_the_place() -> None:
    def at_token(game: Game) -> bool:
        return any(isinstance(c, PlaceToken) for c in game.legal_actions())

    # 1893, seed 4, greedy: DE's first token choice is the city of tile 14-0 in Frechen
    game = _greedy_until(new_game("1893", ["Ann", "Ben", "Cid"], seed=4), at_token)
    tokens = [c for c in game.legal_actions() if isinstance(c, PlaceToken)]
    assert [(t.city, describe(game, t)) for t in tokens] == [
        ("14-0-0", "DE: place a token in Frechen (L3)")]


def test_a_played_move_reads_as_it_was_offered() -> None:
    """The ``played:`` line is worded before the move is made: a depot train is bought
    "from the depot", not from its new owner."""
    from rhineland.cli.play import Session
    from rhineland.engine.actions import BuyTrain

    def at_depot_train(game: Game) -> bool:
        return any(isinstance(c, BuyTrain) and game.train(c.train).owner is None
                   for c in game.legal_actions())

    game = _greedy_until(new_game("18Rhl", ["Ann", "Ben", "Cid"], seed=4), at_depot_train)
    choices = game.legal_actions()
    n, buy = next((i, c) for i, c in enumerate(choices, 1)
                  if isinstance(c, BuyTrain) and game.train(c.train).owner is None)
    offered = describe(game, buy)
    assert "from the depot" in offered
    out = Console(width=160, record=True)
    Session(game, {}, out, echo=False).run([str(n), "quit"])
    assert f"played: {offered}" in out.export_text()


def test_a_city_of_a_tile_with_several_is_counted() -> None:
    """Every city of every tile on a new 18Rhl board: a one-city tile gives its place, a
    tile with several cities says which; an id of no city stays as it is."""
    from rhineland.board.names import location_name
    from rhineland.io.describe import city_place

    game = new_game("18Rhl", ["Ann", "Ben", "Cid"])
    several = 0
    for hex_id, placed in game.board.tiles.items():
        cities = placed.tile.cities
        place = location_name(game.board.spec, hex_id)
        for i, city in enumerate(cities):
            text = city_place(game, f"{placed.tile_id}-{city.part}")
            if len(cities) == 1:
                assert text == place
            else:
                several += 1
                assert text == f"{place}, city {i + 1} of {len(cities)}"
    assert several >= 2
    assert city_place(game, "nowhere-9") == "nowhere-9"

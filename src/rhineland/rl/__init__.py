"""A standard reinforcement-learning interface to rhineland games.

* :class:`~rhineland.rl.actions.ActionCodec`: a fixed integer action space per title
  and player count with a legal-action mask (every legal action has one code);
* :class:`~rhineland.rl.observation.ObservationEncoder`: a flat float32 vector of fixed
  length per title and player count, and a dict view of the same numbers;
* ``rhineland.env.env(title, num_players, seed=None)``: a PettingZoo AEC environment
  (``pip install -e '.[rl]'``);
* :mod:`rhineland.rl.openspiel_game`: an OpenSpiel python game (``.[openspiel]``).

numpy is needed (the ``rl`` extra).
"""

from rhineland.rl.actions import ActionCodec, CodecError, LegalCodes
from rhineland.rl.observation import ObservationEncoder, Segment

__all__ = ["ActionCodec", "CodecError", "LegalCodes", "ObservationEncoder", "Segment"]

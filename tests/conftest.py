"""The suite tests the sources: a native build present in the checkout
(``rhineland native build``) is not used, as many tests look into the modules it
compiles (``RHINELAND_PURE=`` empty runs it anyway; then the tests marked
``sources_only``, which patch or count inside those modules, are skipped).
tests/test_native.py compares the native build with the sources in processes of its own.

Hypothesis runs under the ``rhineland`` profile: examples are untimed."""

import os

import pytest
from hypothesis import settings

os.environ.setdefault("RHINELAND_PURE", "1")

settings.register_profile("rhineland", deadline=None)
settings.load_profile("rhineland")
"""No hypothesis example is timed: work is bounded by counts (max_examples), never by
the time (tests/test_untimed.py keeps it so)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the ``sources_only`` tests while the compiled modules run."""
    from rhineland import native

    if not native.active():
        return
    skip = pytest.mark.skip(reason="patches or counts inside a module the native build compiles")
    for item in items:
        if "sources_only" in item.keywords:
            item.add_marker(skip)

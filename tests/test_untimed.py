"""No test times its work: hypothesis examples run untimed, and no test source reads the
time of day or a performance counter (the machine's speed drifts; work is bounded by
counts)."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import settings

TESTS = Path(__file__).parent

LIMIT = "dead" + "line"
"""Hypothesis's per-example time limit setting (spelled apart so this file holds none)."""

TIMING_CALLS = re.compile(r"\b(?:time\.(?:time|perf_counter|monotonic|process_time)"
                          r"(?:_ns)?|datetime\.now|perf_counter)\s*\(")
"""Reading the time (a poll's short sleep between count-bounded tries reads none)."""

TIMED_EXAMPLE = re.compile(r"\b" + LIMIT + r"\s*=\s*(?!None\b)")
"""A hypothesis time limit other than ``None``."""


def sources() -> list[Path]:
    """Every Python file of the suite but this one."""
    return sorted(p for p in TESTS.rglob("*.py") if p.name != Path(__file__).name)


def test_hypothesis_examples_are_untimed() -> None:
    """The suite's hypothesis profile (tests/conftest.py) sets no time limit."""
    assert getattr(settings.default, LIMIT) is None


def test_no_test_times_a_hypothesis_example() -> None:
    """No ``@settings`` with a time limit other than ``None`` anywhere in the suite."""
    found = [f"{p.name}:{n}" for p in sources()
             for n, line in enumerate(p.read_text().splitlines(), 1)
             if TIMED_EXAMPLE.search(line)]
    assert found == []


def test_no_test_reads_the_time() -> None:
    """No ``time.time()``, ``perf_counter()``, ``monotonic()`` or ``datetime.now()`` in
    the suite."""
    found = [f"{p.name}:{n}: {line.strip()}" for p in sources()
             for n, line in enumerate(p.read_text().splitlines(), 1)
             if TIMING_CALLS.search(line)]
    assert found == []


def test_the_checks_catch_what_they_look_for() -> None:
    """The patterns match what they forbid (so the checks above can fail)."""
    assert TIMED_EXAMPLE.search("@settings(" + LIMIT + "=200)")
    assert not TIMED_EXAMPLE.search("@settings(" + LIMIT + "=None)")
    assert TIMING_CALLS.search("start = time." + "perf_counter()")
    assert TIMING_CALLS.search("t = time." + "time()")
    assert not TIMING_CALLS.search("time.sleep(0.05)")

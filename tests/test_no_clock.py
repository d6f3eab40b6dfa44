"""No test reads the clock: hypothesis has no deadline, and no test source times its
work or compares against a measured duration (the machine's speed drifts; work is
bounded by counts)."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import settings

TESTS = Path(__file__).parent

CLOCK_CALLS = re.compile(r"\b(?:time\.(?:time|perf_counter|monotonic|process_time)"
                         r"(?:_ns)?|datetime\.now|perf_counter)\s*\(")
"""Reading the clock (a poll's short sleep between count-bounded tries is no read)."""

DEADLINE = re.compile(r"\bdeadline\s*=\s*(?!None\b)")
"""A hypothesis deadline other than ``None``."""


def sources() -> list[Path]:
    """Every Python file of the suite but this one."""
    return sorted(p for p in TESTS.rglob("*.py") if p.name != Path(__file__).name)


def test_hypothesis_runs_without_a_deadline() -> None:
    """The suite's hypothesis profile (tests/conftest.py) sets no deadline."""
    assert settings.default.deadline is None


def test_no_test_sets_a_hypothesis_deadline() -> None:
    """No ``@settings(deadline=...)`` but ``deadline=None`` anywhere in the suite."""
    found = [f"{p.name}:{n}" for p in sources()
             for n, line in enumerate(p.read_text().splitlines(), 1) if DEADLINE.search(line)]
    assert found == []


def test_no_test_reads_the_clock() -> None:
    """No ``time.time()``, ``perf_counter()``, ``monotonic()`` or ``datetime.now()`` in
    the suite."""
    found = [f"{p.name}:{n}: {line.strip()}" for p in sources()
             for n, line in enumerate(p.read_text().splitlines(), 1)
             if CLOCK_CALLS.search(line)]
    assert found == []


def test_the_checks_catch_what_they_look_for() -> None:
    """The patterns match what they forbid (so the checks above can fail)."""
    assert DEADLINE.search("@settings(deadline=200)")
    assert not DEADLINE.search("@settings(deadline=None)")
    assert CLOCK_CALLS.search("start = time." + "perf_counter()")
    assert CLOCK_CALLS.search("t = time." + "time()")
    assert not CLOCK_CALLS.search("time.sleep(0.05)")

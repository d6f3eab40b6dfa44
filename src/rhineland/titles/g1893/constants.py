"""1893: Cologne's named companies and fixed amounts (seed 001; reference facts)."""

from __future__ import annotations

PRIVATES = ("FdSD", "EVA", "HdSK")
MINORS = ("EKB", "KFBE", "KSZ", "KBE", "BKB")
MERGED = ("AGV", "HGK")
# reserved certificate of the founded corporation per merging entity (share index)
MERGERS: dict[str, tuple[tuple[str, int], ...]] = {
    "AGV": (("EKB", 0), ("KSZ", 1), ("BKB", 2)),
    "HGK": (("KBE", 0), ("HdSK", 1), ("KFBE", 2)),
}
VOTE_ORDER: dict[str, tuple[str, ...]] = {
    "AGV": ("EKB", "KSZ", "BKB"),
    "HGK": ("KFBE", "KBE", "HdSK"),
}
"""Order in which the merging entities' owners are asked to vote (reference engine)."""
MERGED_PAR = 120
MERGED_PAR_TYPE = {"AGV": "par_2", "HGK": "par_1"}
"""The market cells where the merged corporations start (reference market legend)."""
MERGED_TREASURY = 400
MINOR_MIN_TREASURY = 100


def is_bond(sym: str) -> bool:
    """Whether ``sym`` is one of the 10 AdSK bonds (100M each, 10M income; seed 001)."""
    return sym.startswith("AdSK")

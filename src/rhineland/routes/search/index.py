"""A train type's sorted candidate list as bitsets over its indices
(:class:`CandidateIndex`: the candidates surely using each unit set, the clashes of a
pick, the best ``ub`` left beside the picks), with the clash memo bounded in memory
(:data:`MEMO_BITS`), and big bitsets cut in pieces (:func:`bit_pieces`)."""

from __future__ import annotations

from rhineland.routes.search.candidate import Candidate

_DIGITS = [bytes(48 + ((v >> b) & 1) for v in range(256)) for b in range(8)]
"""Per bit ``b``: the byte table mapping a byte to the ASCII digit of its bit ``b``."""

MEMO_BITS = 8 * 64 * 2**20
"""Bits the clash memo of one candidate index may hold (64 MB)."""


class CandidateIndex:
    """One train type's candidates (sorted by decreasing ``ub``) as bitsets over their indices.

    ``alive``: candidates not known to be illegal.  :meth:`clashes` of a picked
    candidate of any train is the set of candidates that cannot run beside it because
    their ``must`` units meet its ``must`` units (every realisation of the one shares
    a unit with every realisation of the other), asked through the unit-set ids of
    ``sure``.  So the candidates that may run beside some picked routes are within
    ``alive`` minus the union of their clashes, and the first of them (lowest index)
    has the best ``ub`` -- :meth:`best_ub` is an upper bound of "best ub of this
    train beside the picks", computed with a few big-integer operations.  Whether
    picked candidates really run beside each other is decided by :func:`joint`.
    """

    def __init__(self, cands: list[Candidate], masks: list[int]) -> None:
        self.cands = cands
        self.alive = (1 << len(cands)) - 1
        self._masks = masks
        self._by_id: list[int] | None = None
        self._near: dict[int, int] = {}
        self._memo: dict[int, tuple[Candidate, int]] = {}
        self._memo_cap = max(16, MEMO_BITS // max(1, len(cands)))
        self._counts: list[int] | None = None
        self._near_rows: dict[int, int] = {}  # per unit-set id: candidates using it
        self._chunked: dict[int, list[int]] = {}  # using (id), near (~id) in pieces
        self._orders: dict[int, list[int]] = {}  # per candidate pos: order()
        self._alive_key: int | None = None
        self._alive_chunks: list[int] = []

    def _build(self) -> list[int]:
        """Per unit-set id, the bitset of the candidates whose ``sure`` holds it: the
        ``sure`` masks laid out as one byte string, each id's column read out as binary
        digits (candidate 0 the lowest bit) -- no loop per candidate and id."""
        if not self.cands:
            return [0] * len(self._masks)
        width = max(1, (len(self._masks) + 7) // 8)
        blob = b"".join([c.sure.to_bytes(width, "little") for c in self.cands])
        rows = []
        for j in range(len(self._masks)):
            col = blob[j >> 3::width].translate(_DIGITS[j & 7])
            rows.append(int(col[::-1], 2))
        return rows

    def near_ids(self, j: int) -> int:
        """Bitmask of the unit-set ids meeting unit set ``j``."""
        got = self._near.get(j)
        if got is None:
            mine = self._masks[j]
            got = 0
            for x, other in enumerate(self._masks):
                if other & mine:
                    got |= 1 << x
            self._near[j] = got
        return got

    def _near_row(self, j: int) -> int:
        """Bitset of the candidates with a unit set in ``sure`` that meets unit set ``j``
        (one per unit-set id asked: the ids are few -- 59 on the densest 1893 board)."""
        got = self._near_rows.get(j)
        if got is None:
            if self._by_id is None:
                self._by_id = self._build()
            using = self._by_id
            rows = len(using)
            got = 0
            near = self.near_ids(j)
            while near:
                low = near & -near
                x = low.bit_length() - 1
                if x < rows:
                    got |= using[x]
                near ^= low
            self._near_rows[j] = got
        return got

    def clashes(self, other: Candidate) -> int:
        """Bitset of this type's candidates whose ``must`` units meet ``other``'s (a
        candidate of any train).

        Memoised per candidate, but the memo holds at most :data:`MEMO_BITS` bits in all
        (one candidate-sized bitset per entry; the oldest entry goes first): memory stays
        bounded by design, whatever the number of candidates."""
        key = id(other)
        hit = self._memo.get(key)
        if hit is not None and hit[0] is other:
            return hit[1]
        bits = 0
        m = other.sure
        while m:
            low = m & -m
            bits |= self._near_row(low.bit_length() - 1)
            m ^= low
        if len(self._memo) >= self._memo_cap:
            del self._memo[next(iter(self._memo))]
        self._memo[key] = (other, bits)
        return bits

    def best_ub(self, clash: int) -> int:
        """Best ``ub`` (at least 0) among the live candidates outside ``clash``."""
        free = self.alive & ~clash
        if not free:
            return 0
        return max(self.cands[(free & -free).bit_length() - 1].ub, 0)

    def first(self, clash: int) -> Candidate | None:
        """The first (best ``ub``) live candidate outside ``clash``, if any."""
        free = self.alive & ~clash
        if not free:
            return None
        return self.cands[(free & -free).bit_length() - 1]

    def order(self, c: Candidate) -> list[int]:
        """All the unit-set ids of ``c.sure`` in :meth:`crowded` order (kept per
        candidate of this list, by ``pos``)."""
        got = self._orders.get(c.pos)
        if got is None or self.cands[c.pos] is not c:
            got = self.crowded(c, len(self._masks))
            if self.cands[c.pos] is c:
                self._orders[c.pos] = got
        return got

    def crowded(self, c: Candidate, most: int) -> list[int]:
        """Up to ``most`` of the unit-set ids in ``c.sure``: those that the most candidates
        of this list surely use first (ties: the lower id)."""
        if self._by_id is None:
            self._by_id = self._build()
        if self._counts is None:
            self._counts = [row.bit_count() for row in self._by_id]
        counts = self._counts
        ids = []
        m = c.sure
        while m:
            low = m & -m
            x = low.bit_length() - 1
            if self._masks[x]:  # (a set of no unit is shared by nobody)
                ids.append(x)
            m ^= low
        ids.sort(key=lambda x: (-counts[x] if x < len(counts) else 0, x))
        return ids[:most]

    def alive_pieces(self) -> list[int]:
        """:attr:`alive` as :func:`bit_pieces` (kept while ``alive`` is the same)."""
        if self._alive_key is not self.alive:
            self._alive_key = self.alive
            self._alive_chunks = bit_pieces(self.alive)
        return self._alive_chunks

    def near(self, x: int) -> int:
        """Bitset of this list's candidates with a unit set in ``sure`` meeting unit set
        ``x``: each of them shares a unit with every candidate surely using ``x``."""
        return self._near_row(x)

    def using_chunks(self, x: int) -> list[int]:
        """:meth:`using` as :func:`bit_pieces` (kept per unit-set id)."""
        got = self._chunked.get(x)
        if got is None:
            got = self._chunked[x] = bit_pieces(self.using(x))
        return got

    def near_chunks(self, x: int) -> list[int]:
        """:meth:`near` as :func:`bit_pieces` (kept per unit-set id)."""
        got = self._chunked.get(~x)
        if got is None:
            got = self._chunked[~x] = bit_pieces(self.near(x))
        return got

    def using(self, x: int) -> int:
        """Bitset of this list's candidates whose ``sure`` holds unit set ``x``: they all
        use its units, so no two of them run beside each other."""
        if self._by_id is None:
            self._by_id = self._build()
        return self._by_id[x] if x < len(self._by_id) else 0


CHUNK_BYTES = 512
"""Bytes (4,096 bits) of a piece of :func:`bit_pieces`."""


def bit_pieces(x: int) -> list[int]:
    """The bitset ``x >= 0`` cut in pieces of :data:`CHUNK_BYTES` bytes (piece ``k``: bits
    ``4096 k`` to ``4096 k + 4095``): set operations on the first pieces of big sets cost
    the pieces, not the sets."""
    data = x.to_bytes((x.bit_length() + 7) // 8, "little")
    return [int.from_bytes(data[at:at + CHUNK_BYTES], "little")
            for at in range(0, len(data), CHUNK_BYTES)]

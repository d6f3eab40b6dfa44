"""The stock market grid and share price movements.

Two-dimensional movement (both titles): *up* moves one row up in the same
column, *down* one row down, *right* one column right (at the right end of a
row: up instead), *left* one column left (at the left end: down instead).  A
move that would leave the grid leaves the price where it is.
"""

from __future__ import annotations

from rhineland.engine.titledata import MarketCell


class StockMarket:
    """Movements on a title's market grid (``rows[r][c]`` is a cell or ``None``)."""

    def __init__(self, rows: tuple[tuple[MarketCell | None, ...], ...]) -> None:
        self.rows = rows

    def cell(self, row: int, col: int) -> MarketCell | None:
        """The cell at ``(row, col)``, or ``None`` when there is none."""
        if row < 0 or col < 0 or row >= len(self.rows) or col >= len(self.rows[row]):
            return None
        return self.rows[row][col]

    def find(self, price: int, row: int, col: int) -> MarketCell | None:
        """The par cell named by an export's ``"price,row,col"``, if it matches the grid."""
        c = self.cell(row, col)
        return c if c is not None and c.price == price else None

    def up(self, cell: MarketCell) -> MarketCell:
        """The cell one row up in the same column; ``cell`` itself where there is none."""
        return self.cell(cell.row - 1, cell.col) or cell

    def down(self, cell: MarketCell) -> MarketCell:
        """The cell one row down in the same column; ``cell`` itself where there is none."""
        return self.cell(cell.row + 1, cell.col) or cell

    def right(self, cell: MarketCell) -> MarketCell:
        """The cell one column right; at the right end of the row, :meth:`up` instead."""
        nxt = self.cell(cell.row, cell.col + 1)
        return nxt if nxt is not None else self.up(cell)

    def left(self, cell: MarketCell) -> MarketCell:
        """The cell one column left; at the left end of the row, :meth:`down` instead."""
        nxt = self.cell(cell.row, cell.col - 1)
        return nxt if nxt is not None else self.down(cell)

    def move(self, cell: MarketCell, direction: str, times: int = 1) -> MarketCell:
        """Move ``times`` steps ``direction`` (``"up"``, ``"down"``, ``"left"``, ``"right"``)."""
        step = {"up": self.up, "down": self.down, "left": self.left, "right": self.right}[direction]
        for _ in range(times):
            cell = step(cell)
        return cell

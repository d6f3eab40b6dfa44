"""Rounds: auction/draft, stock, operating (and title-specific ones such as mergers)."""

"""Simulation: random self-play over the legal actions."""

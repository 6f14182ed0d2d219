"""Kahuna: the two-player board game by Günter Cornett — referee, AI, terminal and web play."""

__version__ = "0.1.0"

"""Puzzles on the server (issue 52; docs/puzzles.md): the shipped set stored, answers checked by the
referee, players' and puzzles' Glicko-2 ratings, the daily puzzle."""

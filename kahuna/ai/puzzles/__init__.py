"""Puzzles: "find the best turn" from a seat's view at a moment of a real game, proved by search.

:mod:`~kahuna.ai.puzzles.puzzle` is the puzzle and the referee's check of an attempt,
:mod:`~kahuna.ai.puzzles.prove` the proof over determinizations of the hidden cards,
:mod:`~kahuna.ai.puzzles.themes` the names of what a solution does, :mod:`~kahuna.ai.puzzles.rate`
the starting rating from how the AI levels fare, :mod:`~kahuna.ai.puzzles.generate` the cutting
of candidates from self-play, and :mod:`~kahuna.ai.puzzles.shipped` the set shipped with the
package. Nothing here does I/O except the generator's output file and the shipped set's loader.
"""

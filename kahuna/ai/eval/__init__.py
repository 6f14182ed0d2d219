"""Measuring agents: games between them (:mod:`.match`), the arena that schedules many and tallies
them (:mod:`.arena`), the statistics of the tallies (:mod:`.stats`: score rates, intervals, Elo),
and the calibration of the analysis's win estimates against game results (:mod:`.calibration`)."""

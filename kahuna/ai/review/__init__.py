"""Looking back at games and helping players, each from a seat's own view: the analysis of every
decision (:mod:`.analysis`), the win-probability graph for spectators and replays
(:mod:`.wingraph`, from the public view only) and hints with their reasons (:mod:`.hints`)."""

"""The games: held in memory while used, changed only here, rebuilt from their records."""

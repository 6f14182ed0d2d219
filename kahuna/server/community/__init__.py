"""Players meeting players: the lobby's offers, challenges, ratings and profiles."""

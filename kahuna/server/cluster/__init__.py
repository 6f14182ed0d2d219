"""Several processes serving the same games: the broker, Redis, the job queue and ``kahuna worker``."""

"""The games: changed only by the engine, started only by the factory, their ends seen by one hook;
held in memory while used and rebuilt from their records (docs/architecture.md)."""

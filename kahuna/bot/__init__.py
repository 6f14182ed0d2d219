"""Online bots: programs that play on a Kahuna server over its HTTP API and WebSocket protocol."""

"""What every room of the server shares: settings and limits, logs, secrets, name checks, rate limits."""

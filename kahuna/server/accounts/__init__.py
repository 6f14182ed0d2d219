"""Accounts: who a person or a bot is, and the secrets that prove it."""

"""E-mail: addresses, the single-use tokens of mailed links, the mail queue and its sender (docs/accounts.md)."""

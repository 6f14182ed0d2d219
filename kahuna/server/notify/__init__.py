"""The notifier: the moments worth telling a player, decided once and fanned out to channels."""

"""The HTTP layer: one router per area, the two WebSockets, and the guards in front of them."""

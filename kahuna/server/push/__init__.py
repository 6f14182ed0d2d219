"""Web Push: notifications to the devices that subscribed an account, even with every tab closed."""

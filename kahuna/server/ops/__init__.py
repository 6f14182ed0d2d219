"""Operating the server: its Prometheus metrics and its readiness (docs/deploy.md).

A bottom room, like ``common``: every other room may record a metric, and this one imports none
of them (tests/server/test_server_rooms.py).
"""

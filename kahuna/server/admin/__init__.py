"""``kahuna admin``: what a person who runs a Kahuna server does by hand (docs/deploy.md).

A command room at the top, like ``serve.py``: it may use every room below and none imports it.
"""

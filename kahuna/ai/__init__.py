"""AI opponents: the agent interface, the agents, named levels and the arena that measures them.

Layering: ``kahuna.ai`` builds on :mod:`kahuna.rules` only (never on ``kahuna.envs``, the server or
the terminal UI); adapters to other libraries' agents live in :mod:`kahuna.envs` and join the
registry through the ``kahuna.agents`` entry point (see :mod:`kahuna.ai.registry`).
"""

from kahuna.ai.base import Agent, AgentError, RandomAgent

__all__ = ["Agent", "AgentError", "RandomAgent"]

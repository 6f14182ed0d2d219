"""AI opponents: the agent interface, the agents, named levels and the arena that measures them."""

from kahuna.ai.base import Agent, AgentError, RandomAgent, legal_actions

__all__ = ["Agent", "AgentError", "RandomAgent", "legal_actions"]

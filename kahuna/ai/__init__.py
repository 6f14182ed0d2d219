"""AI opponents: the agent interface, the agents, named levels, and the tools that measure, review
and train them.

The parts, each importing only those before it (``tests/ai/test_ai_layers.py`` checks it):

* :mod:`.spec` (the options of an agent spec and :class:`~kahuna.ai.spec.SpecError`),
  :mod:`.base` (the :class:`Agent` interface), :mod:`.levels` (the level table) and
  :mod:`.timed` (a level on the clock);
* :mod:`.agents`: the heuristic, greedy, ISMCTS (Python and compiled), the network and its search,
  external programs, and their shipped weights;
* :mod:`.registry`: the agent a spec names (``make_agent("hard")``), the levels included;
* :mod:`.review` (analysis, win graph, hints), :mod:`.eval` (games, the arena, statistics,
  calibration), :mod:`.training` (SPSA tuning, network self-play) and :mod:`.commands`
  (``kahuna arena|analyse|tune|train``).

Outside itself ``kahuna.ai`` builds on :mod:`kahuna.rules`, the compiled core :mod:`kahuna.fast`,
:mod:`kahuna.clock`, :mod:`kahuna.progress` and :mod:`kahuna.narrate`, never on ``kahuna.envs``,
the server or the terminal UI: adapters to other libraries' agents live in :mod:`kahuna.envs`
and join the registry through the ``kahuna.agents`` entry point.
"""

from kahuna.ai.base import Agent, AgentError, RandomAgent

__all__ = ["Agent", "AgentError", "RandomAgent"]

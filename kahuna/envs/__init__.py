"""Kahuna for AI research: one action codec, observations of player views, and adapters.

Install with ``pip install -e '.[rl]'``. Each adapter is its own module, imported on demand:

* :mod:`kahuna.envs.codec` — action ⇄ integer (``Action.index``, 243 actions) and masks;
* :mod:`kahuna.envs.observation` — a player view as a fixed-size vector;
* :mod:`kahuna.envs.pettingzoo` — ``env(**options)``, a PettingZoo AEC environment;
* :mod:`kahuna.envs.gymnasium` — ``KahunaEnv``, one seat against a built-in agent;
* :mod:`kahuna.envs.openspiel` — registers ``python_kahuna`` with pyspiel;
* :mod:`kahuna.envs.openspiel_agent` — OpenSpiel's ISMCTS bot as the ``openspiel-ismcts`` agent.

``kahuna.envs`` may use :mod:`kahuna.ai` (opponents, the registry), never the other way round.

``docs/research.md`` documents the codec and the observation layout.
"""

"""The AI's commands, each a module with ``add_parser`` and ``run`` (``kahuna/cli.py`` lists them):
``kahuna arena``, ``kahuna analyse``, ``kahuna tune`` and ``kahuna train``."""

#!/usr/bin/env python3
"""A complete Kahuna bot speaking the bot protocol (docs/bot-protocol.md) with the standard library.

It removes opposing bridges when it can, else builds, else takes a card, else ends its turn.
Try it:  kahuna arena "cmd:python3 examples/bot.py" random --games 10
"""

import json
import random
import sys

rng = random.Random(7)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "end":
        break
    if message["type"] == "move":
        legal = message["legal"]
        removals = [t for t in legal if t.startswith("x")]
        builds = [t for t in legal if ">" in t]
        takes = [t for t in legal if t.startswith("d")]
        endings = [t for t in legal if t in ("pass", "end")]
        choice = rng.choice(removals or builds or takes or endings or legal)
        print(json.dumps({"action": choice}), flush=True)

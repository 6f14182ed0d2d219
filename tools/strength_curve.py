"""The strength curve of one agent family: Elo against iterations or seconds, as a table and an SVG.

``python tools/strength_curve.py --spec 'net:iterations={x},c=1,mix=0.5,heuristic=ismcts-tuned,weights=net'
--x 500 1500 5000 15000 50000 --x-name 'iterations per decision' --games 200 --seed 7800
--svg docs/strength-curve.svg`` plays each point against the next (``kahuna.ai.eval.curve``) and
prints the Markdown table of ``docs/ai.md``; ``--json`` ends with the results, which ``--steps FILE``
reads back to redraw a curve without playing it again.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kahuna.ai.eval.curve import Step, chain, svg, table


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("--spec", required=True, help="agent spec with {x} where the budget goes")
    p.add_argument("--x", type=float, nargs="+", required=True, help="the budgets, increasing")
    p.add_argument("--x-name", default="iterations per decision", help="what x is (axis and table)")
    p.add_argument("--games", type=int, default=20, help="games per match of neighbours (default 20)")
    p.add_argument("--seed", type=int, default=7800, help="seed of the arena deals (default 7800)")
    p.add_argument("--jobs", type=int, default=1, help="games at once in worker processes")
    p.add_argument("--svg", type=Path, help="write the plot here")
    p.add_argument("--title", default="Strength against thinking", help="the plot's title")
    p.add_argument("--json", action="store_true", help="end with one JSON line of the points")
    p.add_argument("--steps", type=Path, help="a JSON file of a run (its last line) to redraw without playing")
    args = p.parse_args(argv)
    xs = list(args.x)
    if len(xs) < 2 or xs != sorted(xs) or args.games < 1:
        print("strength_curve: give at least two increasing --x and --games >= 1", file=sys.stderr)
        return 2
    specs = [args.spec.format(x=f"{x:g}") for x in xs]
    steps = None
    if args.steps is not None:
        known = json.loads(args.steps.read_text(encoding="utf-8").strip().splitlines()[-1])
        steps = [Step(**step) for step in known["steps"]]
    points = chain(specs, xs, args.games, args.seed, args.jobs, steps)
    print(table(points, args.x_name))
    if args.svg is not None:
        args.svg.write_text(svg(points, args.x_name, args.title), encoding="utf-8")
    if args.json:
        rows = [
            {"spec": pt.spec, "x": pt.x, "turn_seconds": pt.turn_seconds, "elo": pt.elo, "low": pt.low, "high": pt.high}
            for pt in points
        ]
        known_steps = [vars(pt.step) for pt in points if pt.step is not None]
        print(json.dumps({"games": args.games, "seed": args.seed, "points": rows, "steps": known_steps}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``kahuna puzzles``: make a puzzle set from self-play or a server's finished games, and read its figures.

* ``generate OUT``: play self-play games (or, with ``--db URL``, read a server's finished games from
  its database, which is only read: :mod:`kahuna.server.puzzles.finished`), cut and prove puzzles
  into ``OUT`` (JSON lines, resumable: run it again with the same file and seed to go on), with a
  progress bar;
* ``stats [FILE] [--json]``: the count, themes and rating bands of a set (the shipped one by
  default);
* ``rate FILE``: rate every puzzle of a set file again (each level's tries, as the generator rates a
  new puzzle) and rewrite only the ratings, with a progress bar (resumable:
  :mod:`kahuna.ai.puzzles.rerate`);
* ``sift FILE``: keep only the puzzles the levels fare on as a ladder (:mod:`kahuna.ai.puzzles.sift`);
* ``levels [FILE]``: let each AI level try every puzzle of a set again (tries salted apart from the
  rating run's) and print the share each solves per rating band (the tables of docs/puzzles.md).

``rate`` and ``levels`` take ``--jobs N``: the tries in N processes, the same counts.

Exit 2 on bad arguments, an unreadable file or database, with nothing written. The command lives
with the server because ``--db`` reads a server's database through the server's store; the rest is
the AI's (:mod:`kahuna.ai.puzzles`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from kahuna.progress import Progress

if TYPE_CHECKING:
    from kahuna.ai.puzzles.prove import ProofConfig

MAX_GAMES = 1_000_000
MAX_TRIES = 1000
MAX_JOBS = 64
MAX_SECONDS = 600.0


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "puzzles",
        help="make puzzles from self-play (generate, rate, sift), read a set's figures (stats, levels)",
        description="Puzzles: a seat's view at a moment of a game and the task 'find the best turn', "
        "proved by search over the hidden cards (docs/puzzles.md).",
    )
    actions = p.add_subparsers(dest="puzzles_command", metavar="ACTION", required=True)
    gen = actions.add_parser(
        "generate",
        help="cut and prove puzzles from self-play into a JSON-lines file (resumable)",
        description="Play self-play games of the strong levels (or, with --db, replay a server's finished "
        "games), cut the turns that matter, prove each over determinizations of the hidden cards, theme and "
        "rate it, and append it to OUT. Run again with the same OUT and --seed to continue where it stopped.",
    )
    gen.add_argument("out", help="output file (JSON lines); appended to, never overwritten")
    gen.add_argument("--seed", type=int, default=0, help="seed of the games and proofs (default 0)")
    gen.add_argument("--games", type=int, default=100, help="self-play games to play (default 100)")
    gen.add_argument(
        "--db",
        metavar="URL",
        default=None,
        help="cut from the finished games of a server's database instead of self-play (an SQLite or "
        "PostgreSQL URL, as kahuna serve --db takes; only read, never written)",
    )
    gen.add_argument("--target", type=int, default=None, help="stop once OUT holds this many puzzles")
    gen.add_argument("--worlds", type=int, default=None, help="determinizations per proof (default 16)")
    gen.add_argument("--seconds", type=float, default=20.0, help="time bound of one candidate's proof (default 20)")
    gen.add_argument("--quiet", action="store_true", help="no progress bar")
    gen.set_defaults(func=run_generate)
    st = actions.add_parser("stats", help="count, themes and rating bands of a set", description="Figures of a set.")
    st.add_argument("file", nargs="?", help="a set file (default: the shipped set)")
    st.add_argument("--json", action="store_true", help='one JSON object: {"count", "by_theme", "by_rating", ...}')
    st.set_defaults(func=run_stats)
    rt = actions.add_parser(
        "rate",
        help="rate every puzzle of a set file again (only the ratings change; resumable)",
        description="Let each AI level (easy to master) try every puzzle of FILE --tries times, seeded from "
        "--seed as the generator seeds a new puzzle's tries, and rewrite each puzzle's starting rating, "
        "solves and tries, nothing else. The tries made are kept in FILE.rating until the end: run it "
        "again with the same FILE, --seed and --tries to go on.",
    )
    rt.add_argument("file", help="the set file, rewritten in place")
    rt.add_argument("--seed", type=int, default=0, help="seed of the rating run: the generator's (default 0)")
    rt.add_argument("--tries", type=int, default=None, help="tries per level and puzzle (default: the generator's)")
    rt.add_argument("--jobs", type=int, default=1, help="processes trying the puzzles (default 1)")
    rt.add_argument("--quiet", action="store_true", help="no progress bar")
    rt.set_defaults(func=run_rate)
    sf = actions.add_parser(
        "sift",
        help="keep only the puzzles the AI levels fare on as a ladder",
        description="Rewrite FILE keeping its game lines and the puzzles on which each level either solves "
        "at least 80 %% of its rating tries or at most 20 %%, and every level stronger than one that solves "
        "it solves it too (docs/puzzles.md). Needs ratings of 20 tries a level (kahuna puzzles rate).",
    )
    sf.add_argument("file", help="the set file, rewritten in place")
    sf.set_defaults(func=run_sift)
    lv = actions.add_parser(
        "levels",
        help="the share of a set each AI level solves, by rating band",
        description="Let each AI level (easy to master) try every puzzle --tries times, seeded apart from "
        "the run that set the ratings, and print a Markdown table by rating band.",
    )
    lv.add_argument("file", nargs="?", help="a set file (default: the shipped set)")
    lv.add_argument("--seed", type=int, default=1, help="seed of the levels' choices (default 1)")
    lv.add_argument("--tries", type=int, default=None, help="tries per level and puzzle (default: the generator's)")
    lv.add_argument("--jobs", type=int, default=1, help="processes trying the puzzles (default 1)")
    lv.add_argument("--quiet", action="store_true", help="no progress bar")
    lv.set_defaults(func=run_levels)


def _fail(message: str) -> int:
    print(f"kahuna puzzles: {message}", file=sys.stderr)
    return 2


def run_generate(args: argparse.Namespace) -> int:
    from kahuna.ai.puzzles.generate import generate
    from kahuna.ai.puzzles.prove import ProofConfig

    if not 1 <= args.games <= MAX_GAMES:
        return _fail(f"--games must be between 1 and {MAX_GAMES}")
    if not 0 < args.seconds <= MAX_SECONDS:
        return _fail(f"--seconds must be above 0 and at most {MAX_SECONDS}")
    if args.worlds is not None and not 1 <= args.worlds <= 256:
        return _fail("--worlds must be between 1 and 256")
    if args.target is not None and args.target < 1:
        return _fail("--target must be at least 1")
    out = Path(args.out)
    if out.exists() and not out.is_file():
        return _fail(f"{out} is not a file")
    config = ProofConfig(seconds=args.seconds)
    if args.worlds is not None:
        config = ProofConfig(seconds=args.seconds, worlds=args.worlds)
    if args.db is not None:
        return _generate_from_db(args, out, config)
    cut = proved = 0
    with Progress(args.games, "games", enabled=False if args.quiet else None) as bar:
        for log in generate(args.seed, args.games, out, config=config, target=args.target):
            cut += log.candidates
            proved += log.proved
            bar.advance(note=f"{proved}/{cut} proved")
    print(json.dumps({"candidates": cut, "proved": proved, "out": str(out)}))
    return 0


def _generate_from_db(args: argparse.Namespace, out: Path, config: ProofConfig) -> int:
    """``generate --db``: every finished game of the database not yet in ``out``."""
    from kahuna.ai.puzzles.generate import generate_from_records, read_output
    from kahuna.server.puzzles.finished import SourceError, finished_count, finished_games, open_read_only

    try:
        engine = open_read_only(args.db)
    except SourceError as exc:
        return _fail(str(exc))
    try:
        done = frozenset(g for g in read_output(out)[0] if isinstance(g, str))
        games = ((f.game_id, f.record) for f in finished_games(engine, skip=done))
        total = max(0, finished_count(engine) - len(done))
        cut = proved = skipped = 0
        with Progress(total, "games", enabled=False if args.quiet else None) as bar:
            for log in generate_from_records(args.seed, games, out, config=config, target=args.target):
                if log is None:
                    skipped += 1
                else:
                    cut += log.candidates
                    proved += log.proved
                bar.advance(note=f"{proved}/{cut} proved")
    finally:
        engine.dispose()
    print(json.dumps({"candidates": cut, "proved": proved, "skipped": skipped, "out": str(out)}))
    return 0


def run_stats(args: argparse.Namespace) -> int:
    from kahuna.ai.puzzles.shipped import read_set, stats

    try:
        puzzles, games = read_set(Path(args.file) if args.file else None)
    except (OSError, ValueError, KeyError) as exc:
        return _fail(f"cannot read the set: {exc}")
    found = stats(puzzles, games)
    if args.json:
        print(json.dumps(found))
        return 0
    print(f"{found['count']} puzzles from {found['games']} games ({found['candidates']} candidates cut)")
    for name, value in found["by_rating"].items():
        print(f"  rating {name}: {value}")
    for name, value in found["by_theme"].items():
        print(f"  {name}: {value}")
    return 0


def _tries(args: argparse.Namespace) -> int | None:
    """``--tries``, the generator's when not given; ``None`` when out of bounds."""
    from kahuna.ai.puzzles.rate import TRIES

    tries = TRIES if args.tries is None else int(args.tries)
    return tries if 1 <= tries <= MAX_TRIES else None


def _bounds(args: argparse.Namespace) -> tuple[int, str] | str:
    """``--tries`` and ``--jobs`` checked: ``(tries, "")``, or the message of the first out of bounds."""
    tries = _tries(args)
    if tries is None:
        return f"--tries must be between 1 and {MAX_TRIES}"
    if not 1 <= args.jobs <= MAX_JOBS:
        return f"--jobs must be between 1 and {MAX_JOBS}"
    return tries, ""


def run_rate(args: argparse.Namespace) -> int:
    from kahuna.ai.puzzles.rate import AgentCache
    from kahuna.ai.puzzles.rerate import rerate
    from kahuna.ai.puzzles.shipped import read_set

    bounds = _bounds(args)
    if isinstance(bounds, str):
        return _fail(bounds)
    tries = bounds[0]
    path = Path(args.file)
    try:
        count = len(read_set(path)[0])
    except (OSError, ValueError, KeyError) as exc:
        return _fail(f"cannot read the set: {exc}")
    with Progress(count, "puzzles", enabled=False if args.quiet else None) as bar:
        for _ in rerate(path, args.seed, tries, AgentCache(), args.jobs):
            bar.advance()
    print(json.dumps({"rated": count, "tries": tries, "seed": args.seed, "out": str(path)}))
    return 0


def run_sift(args: argparse.Namespace) -> int:
    from kahuna.ai.puzzles.sift import SiftError, sift

    try:
        sifted = sift(Path(args.file))
    except SiftError as exc:
        return _fail(str(exc))
    except (OSError, ValueError, KeyError) as exc:
        return _fail(f"cannot read the set: {exc}")
    print(json.dumps({"kept": sifted.kept, "dropped": sifted.dropped, "out": args.file}))
    return 0


def run_levels(args: argparse.Namespace) -> int:
    from kahuna.ai.puzzles.rate import RATING_LEVELS, AgentCache, check_salt, solves_of_all
    from kahuna.ai.puzzles.shipped import level_table, read_set

    bounds = _bounds(args)
    if isinstance(bounds, str):
        return _fail(bounds)
    tries = bounds[0]
    try:
        puzzles, _ = read_set(Path(args.file) if args.file else None)
    except (OSError, ValueError, KeyError) as exc:
        return _fail(f"cannot read the set: {exc}")
    solved: dict[str, dict[str, int]] = {}
    with Progress(len(puzzles), "puzzles", enabled=False if args.quiet else None) as bar:
        for puzzle_id, counts in solves_of_all(puzzles, check_salt(args.seed), tries, AgentCache(), args.jobs):
            solved[puzzle_id] = counts
            bar.advance()
    print(f"The share of each band's puzzles each level solves (in more than half of its {tries} tries):\n")
    print(level_table(puzzles, solved, RATING_LEVELS, tries, by="puzzles"))
    print(f"\nThe share of each band's tries each level solves ({tries} a puzzle):\n")
    print(level_table(puzzles, solved, RATING_LEVELS, tries, by="tries"))
    return 0

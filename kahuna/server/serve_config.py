"""``kahuna serve --config FILE``: every option and limit of ``kahuna serve`` in one TOML file.

The file's keys are the options' names without their dashes (``ai-workers = 2``) and a
``[limits]`` table (``max_connections = 10000``, names as ``--limit``'s). Flags given on the
command line win over the file; ``--print-config`` prints the configuration in effect (the same
format, every limit included, passwords hidden) and exits. A key the server does not know, or a
value of the wrong kind, is an error naming the file, its line and the key, and nothing starts.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import tomllib
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from kahuna.server.common.config import Limits

OPTIONS: dict[str, type] = {
    "host": str,
    "port": int,
    "db": str,
    "broker": str,
    "ai-workers": int,
    "ai-long-workers": int,
    "local-ai": bool,
    "smtp": str,
    "mail-from": str,
    "public-url": str,
    "vapid-key": str,
    "vapid-subject": str,
    "push-insecure-host": list,
    "metrics-listen": str,
    "archive-after": float,
    "delete-guest-games-after": float,
}
"""Each option a file may set (``--limit`` is the ``[limits]`` table), and the TOML type it takes."""

_KINDS = {str: "a string", int: "an integer", float: "a number", bool: "true or false", list: "a list of strings"}


class ConfigError(Exception):
    """What is wrong in the file, with its line."""


def _line(lines: list[str], key: str, table: str | None = None) -> int:
    """The line (from 1) where ``key`` is set, in ``[table]`` if given (0 if not found)."""
    inside = table is None
    pattern = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=")
    for number, line in enumerate(lines, 1):
        header = re.match(r"^\s*\[([^\]]+)\]", line)
        if header:
            inside = header.group(1).strip() == table
        elif inside and pattern.match(line):
            return number
    return 0


def load(path: Path) -> tuple[dict[str, Any], list[str]]:
    """The file's options (by ``argparse`` destination) and its limits as ``NAME=VALUE``."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    lines = text.splitlines()
    options: dict[str, Any] = {}
    limits: list[str] = []
    for key, value in data.items():
        where = f"{path} line {_line(lines, key)}"
        if key == "limits":
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: limits is a table: [limits]")
            limits = _limits(path, lines, value)
            continue
        kind = OPTIONS.get(key)
        if kind is None:
            raise ConfigError(f"{where}: unknown key {key!r} (keys: {', '.join(OPTIONS)}, [limits])")
        numeric = int | float if kind is float else kind  # a number of days may be written 30 or 0.5
        ok = isinstance(value, numeric) and not (kind in (int, float) and isinstance(value, bool))
        if kind is list:
            ok = ok and all(isinstance(item, str) for item in value)
        if not ok:
            raise ConfigError(f"{where}: {key} must be {_KINDS[kind]}, not {value!r}")
        options[key.replace("-", "_")] = value
    return options, limits


def _limits(path: Path, lines: list[str], table: dict[str, Any]) -> list[str]:
    limits: list[str] = []
    for name, value in table.items():
        where = f"{path} line {_line(lines, name, 'limits')}"
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{where}: limit {name} needs a number, not {value!r}")
        assignment = f"{name}={value}"
        try:
            Limits().replace([assignment])
        except ValueError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        limits.append(assignment)
    return limits


def apply(parser: argparse.ArgumentParser, argv: list[str], path: Path) -> argparse.Namespace:
    """The command line parsed over the file's values: a flag given wins, the file fills the rest."""
    options, limits = load(path)
    given = argparse.Namespace(**options)
    given.limit = limits  # --limit flags are appended after, and so win
    given.push_insecure_host = options.get("push_insecure_host", [])
    return parser.parse_args(argv, namespace=given)


def render(args: argparse.Namespace, limits: Limits) -> str:
    """The configuration in effect as a TOML file (passwords in URLs hidden)."""
    out = ["# kahuna serve: the configuration in effect (kahuna serve --print-config)"]
    for key in OPTIONS:
        value = getattr(args, key.replace("-", "_"))
        if value is None:
            continue
        if key in ("db", "broker", "smtp") and isinstance(value, str):
            value = _hidden(value)
        out.append(f"{key} = {_toml(value)}")
    out.append("")
    out.append("[limits]")
    for field in dataclasses.fields(limits):
        value = getattr(limits, field.name)
        out.append(f"{field.name} = {_toml(float(value) if field.type == 'float' else value)}")
    return "\n".join(out) + "\n"


def _hidden(url: str) -> str:
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # not a SQLAlchemy URL (smtp://, redis://): hide what is between : and @
        return re.sub(r"(//[^:/@]*:)[^@/]*@", r"\1***@", url)


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(str(value))  # a JSON string is a TOML basic string

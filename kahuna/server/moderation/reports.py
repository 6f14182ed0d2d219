"""Players' reports of players (docs/moderation.md, *Reports*): the rules a report must pass, the
context stored with it, and the lists the reporter and the moderators read.

A report names its target, a reason and a note, and may name a game the target played
(``game_id``) or one of the target's chat lines in it (``line_id``). The target is named by its
username (a profile's report) or, from a game, by its seat there (``seat`` with ``game_id``): the
account that plays the seat now, whatever name the game showed the reporter, since a moderator may
have renamed it since the game began (a page open on a finished game that only another instance
holds still shows the old name: docs/moderation.md, *Not built yet*). What a moderator needs to
judge it is copied into the report when it is made (the line and the lines around it in the
players' room, with the seats' names), since the game may be archived or, a guest's, deleted later.
"""

from __future__ import annotations

import json
import time
from typing import Any, Literal

from sqlalchemy import Connection, func, select, update
from sqlalchemy.orm import aliased

from kahuna.server.accounts.store import Account, account_by_name, game_players
from kahuna.server.common.errors import Rejected
from kahuna.server.community.bots import run_by_server
from kahuna.server.db import store
from kahuna.server.db.schema import accounts, reports
from kahuna.server.moderation import log
from kahuna.server.moderation.history import target_history

Reason = Literal["cheating", "rating_manipulation", "abuse", "offensive_name", "spam", "other"]
MAX_NOTE = 500
"""Characters of a report's note."""
AROUND = 5
"""Lines of the players' room stored on either side of a reported chat line."""
OPEN, ACTED_ON, CLOSED = "open", "acted_on", "closed"
LISTED = 200
"""Reports one list holds, the newest first."""


def _names(conn: Connection, ids: set[int]) -> dict[int, str]:
    rows = conn.execute(select(accounts.c.id, accounts.c.username).where(accounts.c.id.in_(ids)))
    return {row.id: row.username for row in rows}


def _seated(conn: Connection, game_id: str, seat: int) -> Account | None:
    """The active account that plays ``seat`` of ``game_id`` (``None``: a guest's seat, no such
    game, or a deleted account): the seats a report of the game is checked against."""
    account_id = game_players(conn, game_id).get(seat)
    if account_id is None:
        return None
    row = conn.execute(
        select(accounts.c.id, accounts.c.username, accounts.c.is_bot).where(
            accounts.c.id == account_id, accounts.c.deleted.is_(None)
        )
    ).first()
    return None if row is None else Account(id=row.id, username=row.username, is_bot=bool(row.is_bot))


def _context(conn: Connection, target: Account, game_id: str | None, line_id: int | None) -> dict[str, Any] | Rejected:
    """What is stored with the report, or why the game or line does not fit the target."""
    if game_id is None:
        if line_id is not None:
            return Rejected("invalid", "a line_id needs the game_id of its game", 422)
        return {}
    players = game_players(conn, game_id)
    seats = sorted(seat for seat, account_id in players.items() if account_id == target.id)
    if not seats:
        return Rejected("not_in_game", f"{target.username} did not play the game {game_id}", 422)
    context: dict[str, Any] = {"game_id": game_id, "seats": seats}
    if line_id is None:
        return context
    rows = store.archived_rows(conn, game_id) or store.per_action_rows(conn, game_id)
    if not 0 <= line_id < len(rows.chat):
        return Rejected("no_such_line", f"the game {game_id} has no chat line {line_id}", 404)
    room, seat, _text, _at = rows.chat[line_id]
    if room != "players" or seat not in seats:
        return Rejected("not_their_line", f"the chat line {line_id} of {game_id} is not {target.username}'s", 422)
    names = _names(conn, set(players.values()))
    lines = [
        {"line_id": n, "seat": seat, "username": names.get(players[seat]), "text": text, "at": at}
        for n, (room, seat, text, at) in enumerate(rows.chat)
        if room == "players" and seat in players
    ]
    at = next(i for i, line in enumerate(lines) if line["line_id"] == line_id)
    context["line_id"] = line_id
    context["lines"] = lines[max(0, at - AROUND) : at + AROUND + 1]
    return context


def file_report(
    conn: Connection,
    reporter: Account,
    username: str | None,
    reason: str,
    note: str,
    game_id: str | None = None,
    line_id: int | None = None,
    seat: int | None = None,
) -> int | Rejected:
    """Store ``reporter``'s report of ``username``, or of the account playing ``seat`` of
    ``game_id`` (one of the two): its id, or why it is refused (nothing stored)."""
    if reporter.is_bot:
        return Rejected("bot_account", "a bot account cannot report: its owner reports as a person", 403)
    if len(note) > MAX_NOTE:
        return Rejected("note_too_long", f"a note has at most {MAX_NOTE} characters", 422, limit=MAX_NOTE)
    if username is not None and seat is None:
        target = account_by_name(conn, username)
        if target is None:
            return Rejected("not_found", f"no player {username!r}", 404)
    elif username is None and seat is not None and game_id is not None:
        target = _seated(conn, game_id, seat)
        if target is None:
            return Rejected("not_found", f"no account plays seat {seat} of the game {game_id}", 404)
    else:
        return Rejected("invalid", "a report names its player by username, or by seat with its game_id", 422)
    if target.id == reporter.id:
        return Rejected("own_account", "you cannot report yourself", 422)
    if run_by_server(target):
        return Rejected("server_account", f"{target.username} is run by the server itself: nobody to report", 422)
    context = _context(conn, target, game_id, line_id)
    if isinstance(context, Rejected):
        return context
    if open_report(conn, reporter.id, target.id):
        return Rejected("already_reported", f"your report of {target.username} is still open", 409)
    values = {
        "reporter": reporter.id,
        "target": target.id,
        "reason": reason,
        "note": note,
        "game_id": game_id,
        "line_id": line_id,
        "context": json.dumps(context),
        "status": OPEN,
        "created": time.time(),
    }
    return int(conn.execute(reports.insert().values(**values).returning(reports.c.id)).scalar_one())


def open_report(conn: Connection, reporter: int, target: int) -> bool:
    query = select(func.count()).where(reports.c.reporter == reporter, reports.c.target == target)
    return bool(conn.execute(query.where(reports.c.status == OPEN)).scalar_one())


def reports_by(conn: Connection, reporter: int) -> list[dict[str, Any]]:
    """The reporter's reports, the newest first: target, reason, status and when; never what a
    moderator did about it."""
    rows = conn.execute(
        select(reports.c.id, accounts.c.username, reports.c.reason, reports.c.status, reports.c.created)
        .join(accounts, accounts.c.id == reports.c.target)
        .where(reports.c.reporter == reporter)
        .order_by(reports.c.id.desc())
        .limit(LISTED)
    )
    return [
        {"report_id": r.id, "username": r.username, "reason": r.reason, "status": r.status, "created": r.created}
        for r in rows
    ]


def open_reports(conn: Connection, limit: int = LISTED) -> list[dict[str, Any]]:
    """The queue: open reports, the most reported players first, then the oldest report first, each
    with its target's history (``history.target_history``, read once per target)."""
    reporter, target = aliased(accounts), aliased(accounts)
    found = conn.execute(
        select(reports, reporter.c.username.label("reporter_name"), target.c.username.label("target_name"))
        .join(reporter, reporter.c.id == reports.c.reporter)
        .join(target, target.c.id == reports.c.target)
        .where(reports.c.status == OPEN)
        .order_by(reports.c.id)
        .limit(limit)
    ).all()
    rows = list(found)
    per_target: dict[int, int] = {}
    for row in rows:
        per_target[row.target] = per_target.get(row.target, 0) + 1
    rows.sort(key=lambda row: (-per_target[row.target], row.id))
    history = {target: target_history(conn, target) for target in per_target}
    return [
        {
            "report_id": row.id,
            "username": row.target_name,
            "reason": row.reason,
            "reporter": row.reporter_name,
            "note": row.note,
            "created": row.created,
            "context": json.loads(row.context),
            "target": history[row.target],
        }
        for row in rows
    ]


def close_report(conn: Connection, moderator: int, report_id: int, reason: str) -> Rejected | None:
    """Close an open report with no sanction (logged); why not if it is unknown or not open.

    One conditional update, not a read then a write: two moderators closing the report at once
    through two instances (or one closing it while a sanction names it) would both read it open;
    the update of the second waits for the first's row lock and then finds it open no more."""
    closing = update(reports).where(reports.c.id == report_id, reports.c.status == OPEN).values(status=CLOSED)
    closed = conn.execute(closing.returning(reports.c.target)).first()
    if closed is None:
        status = conn.execute(select(reports.c.status).where(reports.c.id == report_id)).scalar()
        if status is None:
            return Rejected("no_such_report", f"no report {report_id}", 404)
        return Rejected("report_not_open", f"the report {report_id} is {status} already", 409)
    log.append(conn, moderator, "close_report", closed.target, reason, report_id=report_id)
    return None

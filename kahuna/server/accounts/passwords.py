"""Passwords and usernames: what an account may be called and protected with, and how a password is kept.

Passwords are hashed with Argon2id by ``argon2-cffi`` (its default parameters: RFC 9106's
low-memory profile, 64 MiB and 3 passes), never stored or logged in clear. Hashing costs tens of
milliseconds of one core on purpose, so callers run it in a worker thread, and the HTTP layer
bounds how often a client may make the server hash (``ratelimit.Quotas`` and ``auth.LoginThrottle``).

A password's strength is judged by zxcvbn (Dropbox's estimator, maintained on PyPI): it counts the
guesses an attacker who knows the common passwords, words, names, dates, keyboard patterns,
repetitions, reversals and l33t substitutions would need, with the username and the site's name
as words it knows too. A password must need at least ``MIN_GUESSES`` (zxcvbn's score 3: "safely
unguessable") and not be one of the project's list of common passwords, which has the words for
"password" in the five languages zxcvbn's English lists miss.

A username is 2–20 ASCII letters, digits, ``_`` or ``-``. Two usernames that read alike are the
same account: the *key* that must be unique folds case and the ASCII look-alikes (``0``/``O``,
``1``/``l``/``I``, ``rn``/``m``, ``vv``/``w``, ``-``/``_``). Anything outside ASCII is refused
rather than normalised, so no Cyrillic or Greek letter can stand in for a Latin one. Names that
would pass for the server's staff or the site itself are reserved (:data:`RESERVED`).
"""

from __future__ import annotations

import asyncio
import re
import unicodedata
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from importlib import resources
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from kahuna.server.common import draws
from kahuna.server.common.errors import Rejected

MIN_PASSWORD = 8
MAX_PASSWORD = 256
"""Characters; the upper bound keeps one hash's cost bounded."""
MIN_GUESSES = 10**8
"""Guesses zxcvbn must estimate a password needs (its score 3 starts here)."""
ESTIMATED_PREFIX = 72
"""Characters zxcvbn judges (its own bound: the estimate's time grows with the length); a longer
password is judged by its first 72, which it is at least as strong as."""
SITE_WORDS = ("kahuna",)
"""Words an attacker of this site tries first, judged as zxcvbn judges the username."""
USERNAME = re.compile(r"[A-Za-z0-9_-]{2,20}")
USERNAME_CHARS = re.compile(r"[A-Za-z0-9_-]+")
"""What any part of a username is made of (a search's prefix)."""

_HASHER = PasswordHasher()
_TEST_HASHER = PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)
"""Argon2id at its cheapest (64 KiB, one pass): the test suite's server (``kahuna serve
--test-seed``, draws.py) hashes thousands of passwords it will never have to protect."""
_LOOK_ALIKES = (("rn", "m"), ("vv", "w"), ("0", "o"), ("1", "l"), ("i", "l"), ("-", "_"))
"""Applied in this order to the case-folded name (``rn`` before single letters)."""


class Refused(ValueError):
    """A username or password that may not be used; the message says why in English (sent as a
    422), ``code`` and ``params`` say it for a client to word in its language (``reason``)."""

    def __init__(self, message: str, code: str, **params: str | int) -> None:
        super().__init__(message)
        self.code = code
        self.params = params

    def reason(self) -> dict[str, str | int]:
        """``{"code": ..., **params}``, as the referee's reasons are sent."""
        return {"code": self.code, **self.params}


def check_username(name: str) -> str:
    """``name`` if it may be a username, else ``Refused`` with the reason."""
    if not name.isascii():
        raise Refused("a username has only ASCII letters, digits, _ and -", "username_chars")
    if not 2 <= len(name) <= 20:
        raise Refused("a username has 2 to 20 characters", "username_length", min=2, max=20)
    if USERNAME.fullmatch(name) is None:
        raise Refused("a username has only letters, digits, _ and -", "username_chars")
    return name


SITE_ACCOUNT = "kahuna"
"""The server's own account: a reserved name (:data:`RESERVED`), a bot account without a password
that files the fair-play screening's reports (``fairplay/verdict.py``) and plays no game."""
LEVEL_PREFIX = "ai-"
"""The AI levels' bot accounts are ``ai-<level>``: no person may sign up with a name that starts
like it (compared by key, so ``AI_``, ``a1-`` and ``Al-`` are refused too), or a challenge meant for
a level could reach them."""


RESERVED = frozenset(
    {
        "admin",
        "administrator",
        "anonymous",
        "api",
        "bot",
        "deleted",
        "guest",
        "help",
        "kahuna",
        "mod",
        "moderator",
        "null",
        "official",
        "player",
        "root",
        "security",
        "server",
        "staff",
        "support",
        "sysop",
        "system",
        "webmaster",
    }
)
"""Usernames nobody may take (compared by key): they would pass for the server, its staff or the
site, or for a placeholder the pages show (a guest, a deleted player)."""
RESERVED_PARTS = ("admin", "kahuna", "moderator", "official")
"""Words no username may contain (by key): ``KahunaTeam`` or ``admin_2`` would pass for staff."""


def check_new_username(name: str) -> str:
    """``name`` if a person may sign up with it: not in the AI levels' namespace, not reserved."""
    check_username(name)
    key = username_key(name)
    if key.startswith(username_key(LEVEL_PREFIX)):
        raise Refused(
            f"usernames starting with {LEVEL_PREFIX!r} are kept for the AI levels", "username_ai", prefix=LEVEL_PREFIX
        )
    if key in {username_key(word) for word in RESERVED} or any(username_key(p) in key for p in RESERVED_PARTS):
        raise Refused("this username is reserved (it would pass for the site or its staff)", "username_reserved")
    return name


def username_key(name: str) -> str:
    """What must be unique among usernames: NFKC, case-folded, ASCII look-alikes merged."""
    key = unicodedata.normalize("NFKC", name).casefold()
    for alike, canonical in _LOOK_ALIKES:
        key = key.replace(alike, canonical)
    return key


@cache
def _common() -> frozenset[str]:
    text = resources.files("kahuna.server.accounts").joinpath("common-passwords.txt").read_text("utf-8")
    return frozenset(line.strip().casefold() for line in text.splitlines() if line and not line.startswith("#"))


def check_password(password: str, username: str) -> str:
    """``password`` if it is acceptable, else ``Refused`` with the reason. Judging takes up to tens
    of milliseconds (zxcvbn): call it in a thread."""
    if len(password) < MIN_PASSWORD:
        raise Refused(f"a password has at least {MIN_PASSWORD} characters", "password_short", min=MIN_PASSWORD)
    if len(password) > MAX_PASSWORD:
        raise Refused(f"a password has at most {MAX_PASSWORD} characters", "password_long", max=MAX_PASSWORD)
    folded = password.casefold()
    if folded in _common():
        raise Refused("this password is among the most common ones; choose another", "password_common")
    if _contains_username(username_key(password), username_key(username)):
        raise Refused("a password may not contain the username", "password_username")
    if estimated_guesses(password, username) < MIN_GUESSES:
        raise Refused(
            "this password is too easy to guess: use a few unrelated words, or a longer one", "password_guessable"
        )
    return password


USERNAME_SLACK = 3
"""Characters a username may be short of at either end and still count as the username in a password."""


def _contains_username(password: str, username: str) -> bool:
    """Whether the password holds the username; for a name of six characters or more, also
    backwards, and for one of nine or more, all of it but up to :data:`USERNAME_SLACK` characters
    at its ends (``nreT_dlogira`` for ``Marigold_Tern``): guessing from a username tries those
    first. (A short name backwards is in too many good passwords: ``ab`` in ``basalt``.)"""
    if username in password:
        return True
    if len(username) < 6:
        return False
    run = len(username) - USERNAME_SLACK if len(username) >= 9 else len(username)
    for name in (username, username[::-1]):
        if any(name[start : start + run] in password for start in range(len(name) - run + 1)):
            return True
    return False


def estimated_guesses(password: str, username: str) -> float:
    """zxcvbn's estimate of the guesses ``password`` needs, knowing the username and the site."""
    from zxcvbn import zxcvbn  # imported when first needed: only sign-ups and password changes judge

    estimate = zxcvbn(password[:ESTIMATED_PREFIX], user_inputs=[username, *SITE_WORDS])
    return float(estimate["guesses"])


def hash_password(password: str) -> str:
    """The Argon2id hash (with its salt and parameters) to store. Slow: call it in a thread.
    A test server (``draws.seeded()``) hashes with the cheapest parameters; any hash verifies, as
    it carries its own."""
    return _hasher().hash(password)


def verify_password(stored: str | None, password: str) -> bool:
    """Whether ``password`` matches ``stored`` (``None``: no password, e.g. a bot, never matches).

    A missing hash is compared against a throw-away one, so that an unknown username takes as
    long to refuse as a wrong password (no probing for names by timing)."""
    try:
        return _HASHER.verify(stored or _dummy(), password) and stored is not None
    except (VerificationError, InvalidHashError):
        return False


@cache
def _dummy() -> str:
    return _hasher().hash("kahuna: no such account")


def _hasher() -> PasswordHasher:
    return _TEST_HASHER if draws.seeded() else _HASHER


T = TypeVar("T")
_HASHING = ThreadPoolExecutor(max_workers=2, thread_name_prefix="kahuna-argon2")


async def in_password_pool(fn: Callable[[], T]) -> T:
    """``fn`` (a check, judgement or hash of a password) in the passwords' own pool, two at a time:
    an Argon2id hash takes 64 MiB and tens of milliseconds, never on the event loop."""
    return await asyncio.get_running_loop().run_in_executor(_HASHING, fn)


def refused(exc: Refused) -> Rejected:
    """A refused username or password: 422 ``invalid`` with the English message and the ``reason``
    (code and parameters) that the browser words in its language."""
    return Rejected("invalid", str(exc), 422, reason=exc.reason())

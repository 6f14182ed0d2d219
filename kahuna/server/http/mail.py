"""The HTTP API of e-mail (docs/accounts.md, *E-mail*): the account's address and its
verification, and the password reset by mail. The work is ``mail/mailer.py``'s; this module speaks
HTTP.

A mailed link carries its token in the fragment (``/email/verify#TOKEN``, ``/password-reset#TOKEN``),
which browsers never send to a server or in a ``Referer``; the page posts it. So a mail scanner that
opens every link in a mail uses no token.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Request, Response
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from kahuna.server.accounts.passwords import Refused, check_password, hash_password, in_password_pool, refused
from kahuna.server.accounts.store import Account
from kahuna.server.common.errors import Rejected
from kahuna.server.http.accounts import Password
from kahuna.server.http.auth import Authenticator
from kahuna.server.http.common import client_ip
from kahuna.server.mail import templates
from kahuna.server.mail.addresses import MAX_ADDRESS, TokenRefused
from kahuna.server.mail.mailer import Mailer

Language = Literal["en", "de", "nl", "es", "da"]
MailToken = Annotated[str, StringConstraints(min_length=1, max_length=64)]
TOKEN_STATUS = {"token_unknown": 404, "token_used": 410, "token_expired": 410}
TOKEN_WORDS = {
    "token_unknown": "this link is not valid (a newer one may have been sent)",
    "token_used": "this link was used already",
    "token_expired": "this link has expired",
}


class AddressRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    email: str = Field(max_length=MAX_ADDRESS, description="the address; mail goes to it once it is verified")
    lang: Language | None = Field(
        default=None, description="the language of the account's mails (default: Accept-Language)"
    )


class Verification(BaseModel):
    model_config = ConfigDict(extra="forbid")

    token: MailToken = Field(description="the token of the mailed link (after the #)")


class ResetRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    email: str = Field(max_length=MAX_ADDRESS)
    lang: Language | None = None


class NewPassword(BaseModel):
    model_config = ConfigDict(extra="forbid")

    password: Password


class AddressState(BaseModel):
    enabled: bool = Field(description="whether this server sends e-mail")
    email: str | None = Field(description="the verified address")
    pending: str | None = Field(description="an address asked for, waiting for its link to be opened")


class MailState(BaseModel):
    enabled: bool


def _dead_link(exc: TokenRefused) -> Rejected:
    return Rejected(exc.code, TOKEN_WORDS[exc.code], TOKEN_STATUS[exc.code])


def router(mailer: Mailer, auth: Authenticator) -> APIRouter:
    api = APIRouter(prefix="/api", tags=["mail"])

    @api.get("/me/email", response_model=AddressState)
    async def my_address(account: Account = auth.session_account) -> Any:
        """The account's address, verified or pending, and whether e-mail is on."""
        return await mailer.address(account)

    @api.put("/me/email", status_code=202, response_model=AddressState)
    async def set_address(body: AddressRequest, request: Request, account: Account = auth.session_account) -> Any:
        """Ask for ``email`` as the account's address: a mail with a link (single-use, 24 hours)
        goes to it, and it counts once the link is opened (``422 invalid_email``, ``429``,
        ``404 mail_off``)."""
        lang = templates.language(body.lang, request.headers.get("accept-language"))
        await mailer.ask_verification(account, body.email.strip(), lang)
        return await mailer.address(account)

    @api.delete("/me/email", status_code=204)
    async def remove_address(account: Account = auth.session_account) -> None:
        """Forget the account's address (verified and pending); no mail goes to it any more."""
        await mailer.remove_address(account)

    @api.post("/email/verify", status_code=204)
    async def verify(body: Verification) -> None:
        """Open a verification link (no sign-in needed: the token is the proof). ``404
        token_unknown``, ``410 token_used``, ``410 token_expired``."""
        try:
            await mailer.verify(body.token)
        except TokenRefused as exc:
            raise _dead_link(exc) from None

    @api.get("/password-reset", response_model=MailState)
    async def reset_available() -> dict[str, bool]:
        """Whether this server can mail a reset link (the sign-in page offers it only then)."""
        return {"enabled": mailer.enabled}

    @api.post("/password-reset", status_code=202)
    async def ask_reset(body: ResetRequest, request: Request) -> Response:
        """Mail a reset link (single-use, one hour) to the accounts that verified ``email``. The
        answer is ``202`` whatever the address, known or not, valid or not (``404 mail_off``)."""
        lang = templates.language(body.lang, request.headers.get("accept-language"))
        mailer.ask_reset(body.email.strip(), lang, client_ip(request))
        return Response(status_code=202)

    @api.post("/password-reset/{token}", status_code=204)
    async def reset(token: Annotated[str, Path(min_length=1, max_length=64)], body: NewPassword) -> None:
        """Choose a new password with a reset link's token: the password rules apply (``422
        invalid`` with the reason, the token stays usable); every session of the account is signed
        out and every personal API token revoked. ``404 token_unknown``, ``410 token_used``,
        ``410 token_expired``."""
        try:
            _, username = await mailer.reset_account(token)
        except TokenRefused as exc:
            raise _dead_link(exc) from None
        try:
            password = await in_password_pool(lambda: check_password(body.password, username))
        except Refused as exc:
            raise refused(exc) from None
        hashed = await in_password_pool(lambda: hash_password(password))
        try:
            await mailer.reset(token, hashed)
        except TokenRefused as exc:  # used meanwhile by another request
            raise _dead_link(exc) from None

    return api

"""A player renamed by a moderator chooses its new name, once (docs/moderation.md, *Sanctions*;
``moderation.chat_sanctions``): ``GET /api/me`` says ``must_rename`` until it has."""

# No ``from __future__ import annotations``: FastAPI reads the body's model from the annotation.

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from kahuna.server.accounts.store import Account
from kahuna.server.http.auth import Authenticator
from kahuna.server.moderation.service import Moderation


class NewName(BaseModel):
    model_config = ConfigDict(extra="forbid")

    username: str = Field(min_length=1, max_length=40, description="the name chosen (2 to 20 characters)")


def router(moderation: Moderation, auth: Authenticator) -> APIRouter:
    api = APIRouter(prefix="/api", tags=["moderation"])

    @api.post("/me/name", status_code=204)
    async def choose_name(body: NewName, account: Account = auth.account) -> None:
        """The renamed account's new name (logged), once: 409 ``no_rename`` (not renamed, or chosen
        already), 422 ``invalid`` with the reason, 409 ``taken``."""
        await moderation.choose_name(account, body.username)

    return api

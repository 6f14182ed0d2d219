"""What the routers share: request field types and the client's address (the account dependencies
are the :class:`~kahuna.server.http.auth.Authenticator`'s).

A type that two routers accept is declared once here, so that the same field is checked the same
way wherever it arrives (a name, a seat token, an offer's terms).
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import Header, Path, Request
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictInt, StringConstraints

from kahuna.server.common.names import MAX_CODE_POINTS, clean_name
from kahuna.server.community.offers import Offer

Name = Annotated[str, StringConstraints(max_length=4 * MAX_CODE_POINTS), AfterValidator(clean_name)]
"""A player's name: shown to others (see ``kahuna.server.common.names``)."""
Secret = Annotated[str, StringConstraints(min_length=1, max_length=64)]
GameId = Annotated[str, Path(min_length=1, max_length=32)]
SeekId = Annotated[str, Path(min_length=1, max_length=32)]
SeekToken = Annotated[str | None, Header(alias="X-Seek-Token", max_length=64)]
"""The owner's secret of an offer (its seat token to come), in a header: never in a URL."""
Variants = list[Literal["no_build_at_enemy_stone", "replace_on_remove"]]
ClockJson = dict[str, StrictInt] | None


def client_ip(request: Request) -> str:
    return request.client.host if request.client else ""


class NewSeek(BaseModel):
    """The terms of an offer: a seek, a quick-pairing entry or a challenge."""

    model_config = ConfigDict(extra="forbid")

    clock: ClockJson = Field(default=None, max_length=2, examples=[{"initial": 300, "increment": 3}, {"days": 2}])
    variant: Variants = Field(default_factory=list, max_length=2)
    rated: bool = False
    name: Name = Field(default="Player", description="a guest's name (an account plays under its username)")


def offer_of(kind: str, body: NewSeek) -> Offer:
    return Offer(kind, body.clock, tuple(body.variant), body.rated, body.name)

"""The one :data:`metadata` every table of the server's database is on (``schema/__init__.py``)."""

from __future__ import annotations

from sqlalchemy import MetaData

metadata = MetaData()

"""Moderation (issue 48, docs/moderation.md): the accounts' roles, players' reports, moderators'
sanctions and the append-only moderation log. HTTP is ``http/moderation.py``; the command line's
``kahuna admin grant`` and ``revoke`` are ``admin/``."""

"""The mails' words in the five languages of the web UI, chosen on the server (a mail has no
browser to translate codes): the account's language if it is known, else the request's
``Accept-Language``, else English.

Every mail here is transactional (a verification or a password reset that the reader asked for):
none carries a ``List-Unsubscribe`` header, since there is nothing to unsubscribe from.
"""

from __future__ import annotations

LANGUAGES = ("en", "de", "nl", "es", "da")

_TEXTS: dict[str, dict[str, tuple[str, str]]] = {
    "verify": {
        "en": (
            "Kahuna: confirm your e-mail address",
            "Hello {username},\n\nplease confirm that this is your e-mail address for Kahuna by opening this link"
            " (it works once, for {hours} hours):\n\n{link}\n\n"
            "If you did not ask for this, ignore this mail: the address will not be used.\n",
        ),
        "de": (
            "Kahuna: Bestätige deine E-Mail-Adresse",
            "Hallo {username},\n\nbitte bestätige, dass dies deine E-Mail-Adresse für Kahuna ist, indem du diesen"
            " Link öffnest (er gilt einmal, {hours} Stunden lang):\n\n{link}\n\n"
            "Wenn du das nicht angefordert hast, ignoriere diese Mail: die Adresse wird nicht verwendet.\n",
        ),
        "nl": (
            "Kahuna: bevestig je e-mailadres",
            "Hallo {username},\n\nbevestig dat dit je e-mailadres voor Kahuna is door deze link te openen"
            " (hij werkt één keer, {hours} uur lang):\n\n{link}\n\n"
            "Heb je dit niet gevraagd, negeer deze mail dan: het adres wordt niet gebruikt.\n",
        ),
        "es": (
            "Kahuna: confirma tu dirección de correo",
            "Hola, {username}:\n\nconfirma que esta es tu dirección de correo para Kahuna abriendo este enlace"
            " (funciona una vez, durante {hours} horas):\n\n{link}\n\n"
            "Si no lo has pedido, ignora este correo: la dirección no se usará.\n",
        ),
        "da": (
            "Kahuna: bekræft din e-mailadresse",
            "Hej {username}\n\nbekræft, at dette er din e-mailadresse til Kahuna, ved at åbne dette link"
            " (det virker én gang, i {hours} timer):\n\n{link}\n\n"
            "Hvis du ikke har bedt om det, så ignorer denne mail: adressen bliver ikke brugt.\n",
        ),
    },
    "reset": {
        "en": (
            "Kahuna: choose a new password",
            "Hello {username},\n\nsomeone (we hope you) asked to reset the password of your Kahuna account."
            " Open this link to choose a new one (it works once, for {hours} hour):\n\n{link}\n\n"
            "Choosing a new password signs you out everywhere. If you did not ask for this, ignore this"
            " mail: your password stays as it is.\n",
        ),
        "de": (
            "Kahuna: Wähle ein neues Passwort",
            "Hallo {username},\n\njemand (hoffentlich du) möchte das Passwort deines Kahuna-Kontos zurücksetzen."
            " Öffne diesen Link, um ein neues zu wählen (er gilt einmal, {hours} Stunde lang):\n\n{link}\n\n"
            "Ein neues Passwort meldet dich überall ab. Wenn du das nicht angefordert hast, ignoriere diese"
            " Mail: dein Passwort bleibt, wie es ist.\n",
        ),
        "nl": (
            "Kahuna: kies een nieuw wachtwoord",
            "Hallo {username},\n\niemand (hopelijk jij) wil het wachtwoord van je Kahuna-account opnieuw instellen."
            " Open deze link om een nieuw te kiezen (hij werkt één keer, {hours} uur lang):\n\n{link}\n\n"
            "Een nieuw wachtwoord meldt je overal af. Heb je dit niet gevraagd, negeer deze mail dan: je"
            " wachtwoord blijft zoals het is.\n",
        ),
        "es": (
            "Kahuna: elige una contraseña nueva",
            "Hola, {username}:\n\nalguien (esperamos que tú) ha pedido restablecer la contraseña de tu cuenta de"
            " Kahuna. Abre este enlace para elegir una nueva (funciona una vez, durante {hours} hora):\n\n{link}\n\n"
            "Elegir una contraseña nueva cierra tu sesión en todas partes. Si no lo has pedido, ignora este"
            " correo: tu contraseña sigue igual.\n",
        ),
        "da": (
            "Kahuna: vælg en ny adgangskode",
            "Hej {username}\n\nnogen (forhåbentlig dig) har bedt om at nulstille adgangskoden til din Kahuna-konto."
            " Åbn dette link for at vælge en ny (det virker én gang, i {hours} time):\n\n{link}\n\n"
            "En ny adgangskode logger dig ud overalt. Hvis du ikke har bedt om det, så ignorer denne mail:"
            " din adgangskode forbliver som den er.\n",
        ),
    },
}
KINDS = tuple(_TEXTS)


def language(*choices: str | None) -> str:
    """The first of ``choices`` (a stored language, an ``Accept-Language`` header) that names one of
    :data:`LANGUAGES`; English if none does. A header's entries count in its order of preference."""
    for choice in choices:
        for tag in _tags(choice or ""):
            primary = tag.split("-")[0].strip().lower()
            if primary in LANGUAGES:
                return primary
    return "en"


def _tags(header: str) -> list[str]:
    """The language tags of an ``Accept-Language`` header (or one tag), most preferred first."""
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")[:20]):
        tag, _, params = part.partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                weight = 0.0
        if tag.strip() and weight > 0:
            ranked.append((-weight, index, tag.strip()))
    return [tag for _, _, tag in sorted(ranked)]


def render(kind: str, lang: str, **fields: str | int) -> tuple[str, str]:
    """The subject and body of a mail of ``kind`` in ``lang`` with its ``fields`` filled in."""
    subject, body = _TEXTS[kind][lang if lang in LANGUAGES else "en"]
    return subject, body.format(**fields)

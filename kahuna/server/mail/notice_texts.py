"""The words of notification mails (``mail/channel.py``) in the five languages of the web UI.

Unlike verification and reset mails (``templates.py``) nobody asked for these just now, so each
ends with the link that turns its kind off in one click (the same URL is the mail's
``List-Unsubscribe`` header). Names written by players (usernames, a tournament's name) appear only
in the body, never in the subject.
"""

from __future__ import annotations

from kahuna.server.mail.templates import LANGUAGES

_TEXTS: dict[str, dict[str, tuple[str, str]]] = {
    "your_turn": {
        "en": ("Kahuna: it is your turn", "Hello {username},\n\nit is your turn against {other}:\n\n{link}\n"),
        "de": ("Kahuna: Du bist am Zug", "Hallo {username},\n\ndu bist am Zug gegen {other}:\n\n{link}\n"),
        "nl": ("Kahuna: je bent aan zet", "Hallo {username},\n\nje bent aan zet tegen {other}:\n\n{link}\n"),
        "es": ("Kahuna: es tu turno", "Hola, {username}:\n\nes tu turno contra {other}:\n\n{link}\n"),
        "da": ("Kahuna: det er din tur", "Hej {username}\n\ndet er din tur mod {other}:\n\n{link}\n"),
    },
    "deadline": {
        "en": (
            "Kahuna: your time to move runs out soon",
            "Hello {username},\n\nyour game against {other} is lost on time in {hours} hours unless you"
            " move:\n\n{link}\n",
        ),
        "de": (
            "Kahuna: Deine Bedenkzeit läuft bald ab",
            "Hallo {username},\n\ndeine Partie gegen {other} ist in {hours} Stunden auf Zeit verloren, wenn du"
            " nicht ziehst:\n\n{link}\n",
        ),
        "nl": (
            "Kahuna: je bedenktijd loopt bijna af",
            "Hallo {username},\n\nje partij tegen {other} is over {hours} uur op tijd verloren als je niet"
            " zet:\n\n{link}\n",
        ),
        "es": (
            "Kahuna: tu tiempo para mover se acaba pronto",
            "Hola, {username}:\n\ntu partida contra {other} se perderá por tiempo en {hours} horas si no"
            " mueves:\n\n{link}\n",
        ),
        "da": (
            "Kahuna: din betænkningstid løber snart ud",
            "Hej {username}\n\ndit parti mod {other} er tabt på tid om {hours} timer, hvis du ikke"
            " trækker:\n\n{link}\n",
        ),
    },
    "challenge": {
        "en": (
            "Kahuna: you have been challenged",
            "Hello {username},\n\n{other} challenges you to a game:\n\n{link}\n",
        ),
        "de": (
            "Kahuna: Du wurdest herausgefordert",
            "Hallo {username},\n\n{other} fordert dich zu einer Partie heraus:\n\n{link}\n",
        ),
        "nl": ("Kahuna: je bent uitgedaagd", "Hallo {username},\n\n{other} daagt je uit voor een partij:\n\n{link}\n"),
        "es": ("Kahuna: te han desafiado", "Hola, {username}:\n\n{other} te desafía a una partida:\n\n{link}\n"),
        "da": ("Kahuna: du er blevet udfordret", "Hej {username}\n\n{other} udfordrer dig til et parti:\n\n{link}\n"),
    },
    "tournament": {
        "en": (
            "Kahuna: your tournament starts soon",
            "Hello {username},\n\nthe tournament {other} starts in {minutes} minutes:\n\n{link}\n",
        ),
        "de": (
            "Kahuna: Dein Turnier beginnt bald",
            "Hallo {username},\n\ndas Turnier {other} beginnt in {minutes} Minuten:\n\n{link}\n",
        ),
        "nl": (
            "Kahuna: je toernooi begint zo",
            "Hallo {username},\n\nhet toernooi {other} begint over {minutes} minuten:\n\n{link}\n",
        ),
        "es": (
            "Kahuna: tu torneo empieza pronto",
            "Hola, {username}:\n\nel torneo {other} empieza dentro de {minutes} minutos:\n\n{link}\n",
        ),
        "da": (
            "Kahuna: din turnering begynder snart",
            "Hej {username}\n\nturneringen {other} begynder om {minutes} minutter:\n\n{link}\n",
        ),
    },
}
_FOOTER = {
    "en": "\n--\nYou get this mail because it is on in your Kahuna account's notifications."
    " Stop these mails: {unsubscribe}\n",
    "de": "\n--\nDu bekommst diese Mail, weil sie in den Benachrichtigungen deines Kahuna-Kontos an ist."
    " Keine solchen Mails mehr: {unsubscribe}\n",
    "nl": "\n--\nJe krijgt deze mail omdat hij aan staat in de meldingen van je Kahuna-account."
    " Geen zulke mails meer: {unsubscribe}\n",
    "es": "\n--\nRecibes este correo porque está activado en las notificaciones de tu cuenta de Kahuna."
    " No recibir más correos así: {unsubscribe}\n",
    "da": "\n--\nDu får denne mail, fordi den er slået til i din Kahuna-kontos notifikationer."
    " Ingen flere af disse mails: {unsubscribe}\n",
}


def render(kind: str, lang: str, **fields: str | int) -> tuple[str, str]:
    """The subject and body (with its unsubscribe footer) of a notification of ``kind`` in ``lang``."""
    lang = lang if lang in LANGUAGES else "en"
    subject, body = _TEXTS[kind][lang]
    return subject, body.format(**fields) + _FOOTER[lang].format(**fields)

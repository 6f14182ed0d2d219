// The names a player gets without typing one. A guest is "Guest 4821": the number is drawn once
// and kept in this browser, so that two guests at one table are told apart and one guest keeps
// one name. Hot-seat's first seat is "Player 1" (the server names the second seat "Player 2").
//
// An AI level is named one way on every page and in every language: `levelName("easy")` is
// "Kahuna AI (Easy)" ("Kahuna-KI (Leicht)" in German), whether the page knows it from a seat's
// kind "ai:easy", from the server's seat name "Kahuna AI (easy)" or from its bot account "ai-easy".

import { t } from "./i18n.js";
import { preference, setPreference } from "./store.js";

/** This browser's guest name, in the current language. */
export function guestName() {
  let number = preference("guest", "");
  if (!/^[1-9]\d{3}$/.test(number)) {
    number = String(1000 + Math.floor(Math.random() * 9000));
    setPreference("guest", number);
  }
  return t("names.guest", { n: number });
}

/** The name for a new game: the typed one, else the guest's (hot-seat: "Player 1"). */
export function defaultName(typed, hotseat = false) {
  return typed.trim() || (hotseat ? t("names.player", { n: 1 }) : guestName());
}

/** An AI level in words: "Easy", "Medium"… ("random" says only that); an unknown level as it is. */
export function levelWord(level) {
  const key = level === "random" ? "names.level_random" : `level.${level}`;
  const word = t(key);
  return word === key ? level : word;
}

/** An AI level's name on every page: "Kahuna AI (Easy)", in the page's language. */
export function levelName(level) {
  return t("names.ai", { level: levelWord(level) });
}

/** The level of an AI level's bot account ("ai-easy": "easy"), else null. */
export function levelOfAccount(username) {
  const match = /^ai-([a-z]+)$/.exec(username || "");
  return match ? match[1] : null;
}

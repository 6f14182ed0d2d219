// The names a player gets without typing one. A guest is "Guest 4821": the number is drawn once
// and kept in this browser, so that two guests at one table are told apart and one guest keeps
// one name. Hot-seat's first seat is "Player 1" (the server names the second seat "Player 2").

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

// Every UI string in five languages (the seeds' languages). The language comes from the picker,
// else from the browser's preferences, else English; a missing key falls back to English.

import en from "./lang/en.js";
import de from "./lang/de.js";
import nl from "./lang/nl.js";
import da from "./lang/da.js";
import es from "./lang/es.js";

export const LANGUAGES = { en, de, nl, da, es };
const STORAGE_KEY = "kahuna.lang";
let current = "en";
const listeners = [];

function preferred() {
  const stored = localStorage.getItem(STORAGE_KEY);
  if (stored && LANGUAGES[stored]) return stored;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const code = tag.slice(0, 2).toLowerCase();
    if (LANGUAGES[code]) return code;
  }
  return "en";
}

export function initLanguage() {
  current = preferred();
  document.documentElement.lang = current;
}

export function language() {
  return current;
}

export function setLanguage(code) {
  if (!LANGUAGES[code]) return;
  current = code;
  localStorage.setItem(STORAGE_KEY, code);
  document.documentElement.lang = code;
  for (const listener of listeners) listener(code);
}

export function onLanguageChange(listener) {
  listeners.push(listener);
}

/** The string for key with {name} placeholders filled from params. */
export function t(key, params = {}) {
  const table = LANGUAGES[current];
  let text = key in table ? table[key] : en[key];
  if (text === undefined) return key;
  if (typeof text !== "string") return text;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
}

/** "Black" for seat 0, "White" for seat 1, in the current language. */
export function colourName(seat) {
  return t(seat === 0 ? "colour.black" : "colour.white");
}

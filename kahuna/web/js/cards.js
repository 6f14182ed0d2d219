// Island cards as HTML: the island's letter, name and number of lines, tinted per island
// (the letter and name carry the meaning, the tint only helps).

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { islandName } from "./narrate.js";

let lineCounts = {};

export function setLineCounts(board) {
  lineCounts = Object.fromEntries(board.islands.map((i) => [i.letter, i.lines]));
}

/** The inside of a face-up card. */
export function cardFace(letter) {
  return [
    h("span", { class: "card-letter", "aria-hidden": "true", text: letter }),
    h("span", { class: "card-name", text: islandName(letter) }),
    h("span", { class: "card-lines", "aria-hidden": "true", text: String(lineCounts[letter]) }),
  ];
}

/** A face-up card as a button; attrs may carry onclick, aria-pressed, aria-disabled, title. */
export function cardButton(letter, attrs = {}) {
  const label = t("card.label", { name: islandName(letter), lines: lineCounts[letter] });
  return h(
    "button",
    { type: "button", class: `card isl-${letter}`, "aria-label": label, dataset: { card: letter }, ...attrs },
    cardFace(letter),
  );
}

/** A face-up card that is only shown (not clickable). */
export function cardShown(letter, extraClass = "") {
  const label = t("card.label", { name: islandName(letter), lines: lineCounts[letter] });
  return h(
    "span",
    { class: `card isl-${letter} ${extraClass}`, role: "img", "aria-label": label, dataset: { card: letter } },
    cardFace(letter),
  );
}

/** The pattern on a card back: a sun over waves, with no island letter (a "K" read as KAHU). */
export function backMotif() {
  return h("span", { class: "card-back-mark", "aria-hidden": "true" });
}

/** A face-down card; with a label it is announced ("hidden card"), else it is only decoration. */
export function cardBack(extraClass = "", label = "") {
  const attrs = label ? { role: "img", "aria-label": label } : { "aria-hidden": "true" };
  return h("span", { class: `card back ${extraClass}`, "data-testid": "card-back", ...attrs }, [backMotif()]);
}

// The rules page: a summary of docs/RULES.md in the current language, the islands table from
// board.json, and how to play with clicks or notation on this site.

import { h, fill } from "./dom.js";
import { t } from "./i18n.js";

export function mountRules(root, board) {
  const sections = t("rules.sections").map((section) =>
    h("section", {}, [h("h2", { text: section.h }), ...section.p.map((text) => h("p", { text }))]),
  );
  const table = h("table", { class: "islands-table" }, [
    h("caption", { text: t("rules.islands_caption") }),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        [t("rules.col_letter"), t("rules.col_island"), t("rules.col_lines"), t("rules.col_control")].map((text) =>
          h("th", { scope: "col", text }),
        ),
      ),
    ),
    h(
      "tbody",
      {},
      board.islands.map((i) =>
        h("tr", {}, [
          h("td", { text: i.letter }),
          h("th", { scope: "row", text: i.name }),
          h("td", { text: String(i.lines) }),
          h("td", { text: String(i.control) }),
        ]),
      ),
    ),
  ]);
  const notation = h("section", {}, [
    h("h2", { text: t("rules.notation_title") }),
    h(
      "dl",
      { class: "notation-list" },
      [
        ["E>J", "rules.n_build"],
        ["xEJ:EJ", "rules.n_remove"],
        ["-K", "rules.n_discard"],
        ["dE", "rules.n_take"],
        ["d?", "rules.n_deck"],
        ["pass", "rules.n_pass"],
        ["end", "rules.n_end"],
      ].flatMap(([code, key]) => [h("dt", {}, [h("code", { text: code })]), h("dd", { text: t(key) })]),
    ),
  ]);
  fill(root, [
    h("article", { class: "rules-page" }, [
      h("h1", { text: t("rules.title") }),
      h("p", { class: "tagline", text: t("rules.intro") }),
      ...sections,
      table,
      notation,
      h("p", {}, [h("a", { href: "/", class: "btn primary", text: t("rules.play_now") })]),
    ]),
  ]);
  document.title = `${t("rules.title")} — Kahuna`;
}

// The rules page: a summary of docs/RULES.md in the current language, the islands table from
// board.json, and how to play with clicks or notation on this site.

import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { BoardView } from "./board.js";
import { tutorialButton } from "./lobby.js";

/**
 * Small board diagrams of the key rules, drawn by the game's own board with its own last-move
 * marks: a position (bridges, stones by seat) and what just changed in it.
 */
const DIAGRAMS = [
  {
    key: "rules.d_build",
    islands: ["E", "J", "F", "I"],
    bridges: { EJ: 0 },
    stones: {},
    marks: [{ kind: "built", line: "EJ", seat: 0 }],
  },
  {
    key: "rules.d_claim",
    islands: ["A", "B", "D", "H"],
    bridges: { AB: 0, AD: 0 },
    stones: { A: 0 },
    marks: [
      { kind: "built", line: "AD", seat: 0 },
      { kind: "claimed", island: "A", seat: 0 },
      { kind: "removed", line: "AH", seat: 1 },
    ],
  },
  {
    key: "rules.d_cascade",
    islands: ["A", "D", "H", "I", "L"],
    bridges: { AB: 0, AD: 0, HI: 1, HL: 1 },
    stones: { A: 0 },
    marks: [
      { kind: "claimed", island: "A", seat: 0 },
      { kind: "removed", line: "AH", seat: 1 },
      { kind: "lost", island: "H", seat: 1 },
    ],
  },
  {
    key: "rules.d_remove",
    islands: ["E", "J", "F", "I"],
    bridges: { EI: 0 },
    stones: {},
    marks: [{ kind: "removed", line: "EJ", seat: 1 }],
  },
];

function diagrams(board) {
  return h(
    "div",
    { class: "diagrams" },
    DIAGRAMS.map((d) => {
      const view = new BoardView(board, () => {});
      view.render({ bridges: d.bridges, stones: d.stones });
      view.showLastMoves(d.marks);
      view.zoom(d.islands);
      view.element.setAttribute("aria-hidden", "true");
      return h("figure", { class: "diagram" }, [view.element, h("figcaption", { text: t(d.key) })]);
    }),
  );
}

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
      h("p", {}, [t("lobby.try_tutorial"), " ", tutorialButton()]),
      ...sections.slice(0, 4),
      diagrams(board),
      ...sections.slice(4),
      table,
      notation,
      h("p", {}, [
        h("a", { href: "/", class: "btn primary", text: t("rules.play_now") }),

      ]),
    ]),
  ]);
  document.title = `${t("rules.title")} — Kahuna`;
}

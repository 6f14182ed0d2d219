// Screen-reader mode (issue 53; a setting kept in this browser, switched on the game page): the
// game in words a screen reader can walk by headings and lists — the points and whose turn, one's
// hand, the display and the deck, every island with its stone, its bridges by owner, its free
// lines and whether one bridge would change who holds it — and the seat's legal actions as
// buttons grouped by kind, each read as the log would word it with what it causes; the clocks
// read on request. Every action of either seat is already announced in words from the server's
// events (the game page's live announcer). It words what the server sent: the view, its legal
// tokens grouped by their notation's shape (docs/NOTATION.md), and what the referee foresees
// (the `foreseen` message: each action's consequences and the close islands, as event codes); it
// decides no rule.

import { h, fill } from "./dom.js";
import { t, colourName } from "./i18n.js";
import { islandName, lineWords, narrateToken, outcomeWords } from "./narrate.js";
import { preference, setPreference } from "./store.js";

const KINDS = ["build", "remove", "draw", "discard", "other"];

export function readerOn() {
  return preference("reader", "off") === "on";
}

export function setReaderOn(on) {
  setPreference("reader", on ? "on" : "off");
}

/** The account page's switch for this browser (the game page's settings have the same one). */
export function readerSetting() {
  const box = h("input", { type: "checkbox", id: "account-reader-mode", checked: readerOn(), onchange: (e) => setReaderOn(e.target.checked) });
  return h("section", { class: "card-panel", "aria-labelledby": "reader-setting-title" }, [
    h("h2", { id: "reader-setting-title", text: t("reader.setting_title") }),
    h("p", {}, [h("label", { class: "toggle" }, [box, " ", t("reader.mode")])]),
    h("p", { class: "hint", text: t("reader.setting_help") }),
  ]);
}

/** The kind of a legal token, read off its notation: X>Y builds, xXY:.. removes, d draws, -X discards. */
function kindOf(token) {
  if (token[1] === ">") return "build";
  if (token[0] === "x") return "remove";
  if (token[0] === "d") return "draw";
  if (token[0] === "-") return "discard";
  return "other";
}

function total(points) {
  return points.reduce((a, b) => a + b, 0);
}

/** A duration in words ("4 minutes 12 seconds", "2 days 3 hours"): a screen reader reads "4:12" as digits. */
export function durationWords(seconds) {
  const s = Math.max(0, Math.ceil(seconds - 0.001));
  const unit = (key, n) => (n === 1 ? t(`reader.${key}_one`) : t(`reader.${key}`, { n }));
  const parts = [
    ["days", Math.floor(s / 86400)],
    ["hours", Math.floor((s % 86400) / 3600)],
    ["minutes", Math.floor((s % 3600) / 60)],
    ["seconds", s < 3600 ? s % 60 : 0],
  ].filter(([, n]) => n > 0);
  return parts.length ? parts.map(([key, n]) => unit(key, n)).join(" ") : unit("seconds", 0);
}

/** One foreseen event (`foreseen.actions`, docs/protocol.md) as a few words. */
function consequenceWords(ev) {
  switch (ev.type) {
    case "island_claimed":
      return t("reader.c_claim", { island: islandName(ev.island) });
    case "bridge_returned":
      return t("reader.c_returned", { owner: colourName(ev.owner), line: lineWords(ev.line) });
    case "stone_lost":
      return t("reader.c_lost", { owner: colourName(ev.owner), island: islandName(ev.island) });
    case "bridge_built":
      return t("reader.c_replaced", { line: lineWords(ev.line) });
    case "round_scored":
      return t(ev.final ? "reader.c_final" : "reader.c_scored", { round: ev.round, black: ev.stones[0], white: ev.stones[1] });
    case "final_turns_began":
      return t("reader.c_final_turns");
    case "game_over":
      return t("reader.c_over", { outcome: outcomeWords(ev.winner, ev.reason) });
    default:
      return ev.type;
  }
}

/** An action in words, with what the referee foresees it causes (if anything). */
export function actionWords(token, seat, consequences) {
  const words = narrateToken(token, seat);
  if (!consequences?.length) return words;
  return t("reader.with_consequence", { action: words.replace(/\.$/, ""), what: consequences.map(consequenceWords).join(", ") });
}

function list(items, empty) {
  return items.length ? h("ul", {}, items.map((item) => h("li", {}, item))) : h("p", { text: empty });
}

export class ReaderPanel {
  /**
   * board: the parsed board.json; onPlay(token) plays a legal action (null: nothing to play, as
   * in the replay); clocks(): both clocks in words, or null for an untimed game.
   */
  constructor(board, onPlay = null, clocks = () => null) {
    this.board = board;
    this.onPlay = onPlay;
    this.clocks = clocks;
    this.body = h("div");
    // What the mode says on request (the clocks) or by itself (the low clock): a live region that
    // outlives every render, so that a screen reader hears each change.
    this.said = h("p", { class: "visually-hidden", role: "status", "data-testid": "reader-said" });
    // Hidden until the first render puts its heading in (a section named by a missing heading
    // has no role that allows aria-labelledby), and then whenever the mode is off.
    this.element = h("section", { class: "reader card-panel", "data-testid": "reader", "aria-labelledby": "reader-title", hidden: true }, [
      this.body,
      this.said,
    ]);
  }

  /** Say `text` through the mode's live region (only while the mode is on). */
  say(text) {
    if (readerOn()) this.said.textContent = text;
  }

  /**
   * The game in words for the view on screen. seat: the seat shown (null for a spectator);
   * legal: the tokens it may play now; curtained: hot-seat's hand-over hides the seat's hand;
   * foreseen: the server's `foreseen` message for this view's version (or null: not come yet);
   * hands: both hands as letters when they are public (a finished game's replay), else null.
   */
  render(view, seat, legal, curtained, foreseen = null, hands = null) {
    this.element.hidden = !readerOn();
    if (this.element.hidden) {
      fill(this.body, []);
      this.said.textContent = "";
      return;
    }
    const mover = view.result ? t("reader.over") : t("reader.to_move", { who: colourName(view.to_move) });
    const points = t("reader.points", { black: total(view.points[0]), white: total(view.points[1]) });
    const own = seat !== null && !curtained; // the seat's own actions and hand (not a spectator's, not behind the curtain)
    const timed = this.clocks() !== null;
    this.foreseen = foreseen;
    this.element.dataset.foreseen = foreseen ? "yes" : "no"; // for scripts and tests: the lists say what the referee foresees
    fill(this.body, [
      h("h2", { id: "reader-title", text: t("reader.title") }),
      h("p", { "data-testid": "reader-status", text: `${mover} ${points}` }),
      timed
        ? h("button", { type: "button", class: "btn", "data-testid": "reader-clocks", text: t("reader.clocks"), onclick: () => this.say(this.clocks()) })
        : null,
      own ? this.actions(view, seat, legal) : null,
      own ? h("h3", { text: t("reader.hand") }) : null,
      own ? list([...(view.hand || "")].map(islandName), t("reader.no_cards")) : null,
      ...(hands || []).flatMap((cards, who) => [
        h("h3", { text: t("reader.hand_of", { who: colourName(who) }) }),
        list([...cards].map(islandName), t("reader.no_cards")),
      ]),
      h("h3", { text: t("reader.display") }),
      list([...view.display].map(islandName), t("reader.no_cards")),
      h("p", { text: t("draw.deck", { n: view.deck_size }) }),
      h("h3", { text: t("reader.islands") }),
      h("ul", { "data-testid": "reader-islands" }, this.board.islands.map((island) => h("li", { text: this.island(view, island) }))),
    ]);
  }

  /** The seat's legal actions, grouped by kind, each a button that plays it. */
  actions(view, seat, legal) {
    if (!legal.length) return h("p", { "data-testid": "reader-no-actions", text: t("reader.no_actions") });
    const groups = KINDS.map((kind) => [kind, legal.filter((token) => kindOf(token) === kind)]).filter(([, tokens]) => tokens.length);
    return h("div", { class: "reader-actions", "data-testid": "reader-actions" }, [
      h("h3", { text: t("reader.actions") }),
      ...groups.map(([kind, tokens]) =>
        h("section", { "aria-label": t(`reader.kind_${kind}`) }, [
          h("h4", { text: t(`reader.kind_${kind}`) }),
          h("ul", {}, tokens.map((token) =>
            h("li", {}, [
              h("button", {
                type: "button",
                class: "reader-act btn",
                dataset: { token },
                text: actionWords(token, seat, this.foreseen?.actions?.[token]),
                onclick: () => this.onPlay(token),
              }),
            ]),
          )),
        ]),
      ),
    ]);
  }

  /** One island in words: its stone, its bridges by owner, its free lines (from board.json and the view). */
  island(view, island) {
    const letter = island.letter;
    const lines = this.board.lines.filter((line) => line.includes(letter));
    const other = (line) => islandName(line.replace(letter, ""));
    const owned = (seat) => lines.filter((line) => view.bridges[line] === seat).map(other);
    const free = lines.filter((line) => view.bridges[line] === undefined || view.bridges[line] === null).map(other);
    const stone = view.stones[letter];
    const close = (this.foreseen?.close || []).filter((c) => c.island === letter);
    const parts = [
      t("reader.island", { name: island.name, lines: lines.length, control: island.control }),
      stone === undefined || stone === null ? t("reader.no_stone") : t("reader.stone", { who: colourName(stone) }),
      ...[0, 1].filter((seat) => owned(seat).length).map((seat) => t("reader.bridges", { who: colourName(seat), to: owned(seat).join(", ") })),
      free.length ? t("reader.free", { to: free.join(", ") }) : t("reader.no_free"),
      ...close.map((c) => t(c.change === "claim" ? "reader.close_claim" : "reader.close_lose", { who: colourName(c.seat) })),
    ];
    return parts.join(" ");
  }
}

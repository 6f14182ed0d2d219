// A game's life around the board: the two clocks, resign / abort / rematch, the chat, and telling
// a player whose tab is in the background that it is their move. Everything here shows what the
// server says — the server owns the clock and decides every ending — and sends the player's
// requests; nothing here decides a rule.

import { h, fill } from "./dom.js";
import { t, colourName } from "./i18n.js";
import { preference, setPreference, rememberSeat } from "./store.js";
import { playSound } from "./sounds.js";
import { seatLabel } from "./account.js";
import { leftItems } from "./leaving.js";
import { seatMark } from "./panels.js";

const DAY = 86400;
const LOW_REAL_TIME = 10;
const LOW_CORRESPONDENCE = 3600;

/** Seconds as a clock shows them: 4:05, 1:02:03, 2d 3h (rounded up, as chess clocks do). */
export function formatClock(seconds) {
  const s = Math.max(0, Math.ceil(seconds - 0.001));
  const two = (n) => String(n).padStart(2, "0");
  if (s >= DAY) return `${Math.floor(s / DAY)}d ${Math.floor((s % DAY) / 3600)}h`;
  if (s >= 3600) return `${Math.floor(s / 3600)}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
  return `${Math.floor(s / 60)}:${two(s % 60)}`;
}

/** Whether a time control is correspondence (days per turn) rather than real time. */
function correspondence(clock) {
  return clock.control.days !== undefined;
}

/**
 * Both clocks, counting the running one down between the server's messages (each message sets
 * them right). `onLow()` is called once when the viewer's own running clock gets low: the last
 * 10 seconds in real time, the last hour in correspondence.
 */
export class ClockPanel {
  constructor(onLow) {
    this.onLow = onLow;
    this.element = h("div", { class: "clocks", "data-testid": "clocks", hidden: true });
    this.clock = null;
    this.at = 0;
    this.timer = null;
    this.warned = false;
  }

  /**
   * The clock of the latest message (or null: untimed), received at `at` (performance.now()),
   * for a viewer in `seat` (null: spectator).
   */
  update(clock, seat, at = performance.now()) {
    this.clock = clock || null;
    this.seat = seat;
    this.at = at;
    if (!this.clock || this.clock.running === null) this.warned = false;
    clearInterval(this.timer);
    const ticking = this.clock && (this.clock.running !== null || this.clock.starts_in !== undefined);
    this.timer = ticking ? setInterval(() => this.draw(), 250) : null;
    this.draw();
  }

  left(seat) {
    const clock = this.clock;
    const base = clock.remaining[seat];
    return seat === clock.running ? Math.max(0, base - (performance.now() - this.at) / 1000) : base;
  }

  draw() {
    const clock = this.clock;
    this.element.hidden = !clock;
    if (!clock) return;
    const limit = correspondence(clock) ? LOW_CORRESPONDENCE : LOW_REAL_TIME;
    const faces = [0, 1].map((seat) => {
      const left = this.left(seat);
      const running = clock.running === seat;
      const low = running && left <= limit;
      if (low && seat === this.seat && !this.warned) {
        this.warned = true;
        this.onLow();
      }
      return h(
        "div",
        {
          class: `clock${running ? " running" : ""}${low ? " low" : ""}`,
          "data-testid": `clock-${seat}`,
          "aria-label": t("clock.label", { who: colourName(seat), time: formatClock(left) }),
        },
        [seatMark(seat), " ", h("span", { class: "clock-time", text: formatClock(left) })],
      );
    });
    const { initial, increment, days } = clock.control;
    const minutes = initial % 60 === 0 ? String(initial / 60) : formatClock(initial);
    const control = correspondence(clock) ? t("clock.days", { n: days }) : `${minutes}+${increment}`;
    const items = [h("span", { class: "clock-control hint", text: control }), ...faces];
    if (clock.starts_in !== undefined) {
      // The clock waits for both players (the first-move grace): say so, and for how long at most.
      const left = Math.max(0, clock.starts_in - (performance.now() - this.at) / 1000);
      const text = t("clock.waiting", { time: formatClock(left) });
      items.push(h("span", { class: "clock-waiting hint", "data-testid": "clock-waiting", text }));
    }
    fill(this.element, items);
  }
}

/** Whether a history (public tokens) holds a finished turn: a draw, a decline or an end. */
function turnFinished(history) {
  return history.some((token) => token === "pass" || token === "end" || token.startsWith("d"));
}

/**
 * Resign (asks once more), abort (before either player has finished a turn) and, once the game is
 * over, the rematch: offer, accept, or the link to the agreed one. `send(msg)` sends a request.
 */
export class LifeControls {
  constructor(send) {
    this.send = send;
    this.element = h("div", { class: "life-controls", "data-testid": "life" });
    this.confirming = false;
    this.offeredBy = null;
    this.asked = false;
    this.rematch = null;
    this.takeback = null; // the pending take-back request: {seat, version}
  }

  /** A `takeback_offered` or `takeback_declined` message (a take-back done arrives as a sync). */
  heardTakeback(msg) {
    this.takeback = msg.type === "takeback_offered" ? { seat: msg.seat, version: msg.version } : null;
  }

  /**
   * Take-back in a casual game: "Take back" for the seat to move after an action of its turn,
   * "Accept"/"Decline" for the other seat while the request stands (an action since voids it).
   */
  takebackItems(entry, version) {
    const seat = entry.seat;
    const offer = this.takeback && this.takeback.version === version ? this.takeback : null;
    const button = (testid, key, msg, extra = {}) =>
      h("button", {
        type: "button",
        class: "btn",
        "data-testid": testid,
        onclick: () => this.send(msg),
        text: t(key),
        ...extra,
      });
    if (offer && offer.seat !== seat) {
      return [
        h("span", { class: "hint", text: t("life.takeback_offered", { who: seatLabel(offer.seat, entry.players, entry.kinds) }) }),
        button("takeback-accept", "life.takeback_accept", { type: "takeback" }),
        button("takeback-decline", "life.takeback_decline", { type: "takeback_decline" }),
      ];
    }
    if (!entry.canTakeBack) return [];
    const mine = offer && offer.seat === seat;
    return [button("takeback", mine ? "life.takeback_asked" : "life.takeback", { type: "takeback" }, { disabled: !!mine })];
  }

  /**
   * A `rematch_offered` or `rematch` message (the latter also from a sync's `rematch` id). Whether
   * the rematch was agreed while this page took part (an offer made, heard or accepted here): then
   * the player is taken to it; a finished game opened later only links to its rematch.
   */
  heard(msg) {
    if (msg.type === "rematch_offered") this.offeredBy = msg.seat;
    if (msg.type === "rematch") {
      const live = this.rematch === null && (this.asked || this.offeredBy !== null);
      this.rematch = msg;
      // A seat link "#seat:N" is the account's seat (no token): the account lists it, not this browser.
      const token = msg.seat_url?.split("#")[1];
      if (token && !token.startsWith("seat:")) rememberSeat({ game_id: msg.game_id, seat: msg.seat, token });
      return live;
    }
    return false;
  }

  render(entry) {
    const view = entry.view;
    const seat = entry.seat;
    const items = [];
    if (!view) {
      fill(this.element, []);
      return;
    }
    if (view.result?.reason === "aborted") {
      // Called off before it began: nothing to play again (a new game is one click away).
    } else if (view.result && entry.tournament) {
      // A tournament's board: its next game comes from the tournament, not from a rematch.
    } else if (view.result) {
      const link = this.rematch || (entry.rematch ? { game_id: entry.rematch } : null);
      if (link) {
        const href = link.seat_url || `/watch/${link.game_id}`;
        items.push(h("a", { class: "btn rematch-link", href, "data-testid": "rematch-link", text: t("life.to_rematch") }));
      } else if (seat !== null && seat !== undefined) {
        const mineOffered = this.offeredBy === seat;
        const theirs = this.offeredBy !== null && !mineOffered;
        items.push(
          h("button", {
            type: "button",
            class: "btn rematch",
            "data-testid": "rematch",
            disabled: mineOffered,
            onclick: () => {
              this.asked = true;
              this.send({ type: "rematch" });
            },
            text: t(mineOffered ? "life.rematch_offered" : theirs ? "life.accept_rematch" : "life.offer_rematch"),
          }),
        );
      }
    } else if (seat !== null && seat !== undefined && entry.status !== "waiting") {
      items.push(...leftItems(entry, this.send));
      items.push(...this.takebackItems(entry, entry.version));
      if (this.confirming) {
        items.push(
          h("span", { class: "hint", text: t("life.really_resign") }),
          h("button", {
            type: "button",
            class: "btn danger",
            "data-testid": "resign-confirm",
            onclick: () => {
              this.confirming = false;
              this.send({ type: "resign" });
            },
            text: t("life.resign"),
          }),
          h("button", {
            type: "button",
            class: "btn",
            onclick: () => {
              this.confirming = false;
              this.render(entry);
            },
            text: t("life.cancel"),
          }),
        );
      } else {
        items.push(
          h("button", {
            type: "button",
            class: "btn",
            "data-testid": "resign",
            onclick: () => {
              this.confirming = true;
              this.render(entry);
            },
            text: t("life.resign"),
          }),
        );
      }
    }
    if (entry.rematchOf) {
      items.push(
        h("a", {
          class: "rematch-of",
          href: `/replay/${encodeURIComponent(entry.rematchOf)}`,
          "data-testid": "rematch-of",
          text: t("life.rematch_of"),
        }),
      );
    }
    if (view && !view.result && seat !== null && seat !== undefined && !turnFinished(view.history)) {
      items.push(
        h("button", {
          type: "button",
          class: "btn",
          "data-testid": "abort",
          onclick: () => this.send({ type: "abort" }),
          text: t("life.abort"),
        }),
      );
    }
    fill(this.element, items);
  }
}

/**
 * The chat of a game: the players' room for a seat, the spectators' room for a spectator. Lines
 * are shown as text, never as HTML; a player can mute the opponent (kept in this browser).
 */
export class ChatPanel {
  constructor(gameId, send) {
    this.gameId = gameId;
    this.send = send;
    this.lines = [];
    // Lines typed while the socket is not open (the page just loaded, or it is reconnecting):
    // shown as not sent yet and sent, in order, once it opens, rather than silently kept back.
    this.unsent = [];
    this.seat = null;
    this.report = null; // opens the report dialog for an opponent's line, or the game's (null: no "Report")
    this.list = h("ol", { class: "chat-lines", "aria-live": "polite", "data-testid": "chat-lines" });
    this.input = h("input", { type: "text", maxlength: "300", autocomplete: "off", id: "chat-input" });
    this.muteBox = h("input", {
      type: "checkbox",
      id: "chat-mute",
      checked: this.muted(),
      onchange: (e) => {
        setPreference(`mute.${this.gameId}`, e.target.checked ? "on" : "off");
        this.draw();
      },
    });
    this.title = h("h2", { id: "chat-title" });
    this.sendButton = h("button", { type: "submit", class: "btn" });
    this.muteLabel = h("label", { class: "toggle" }, [this.muteBox, " ", h("span", { id: "chat-mute-label" })]);
    this.reportButton = h("button", {
      type: "button",
      class: "btn report-opponent",
      "data-testid": "report-opponent",
      hidden: true,
      onclick: () => this.report(null),
    });
    this.element = h("section", { class: "chat", "aria-labelledby": "chat-title", "data-testid": "chat" }, [
      this.title,
      this.list,
      h(
        "form",
        {
          class: "chat-form",
          onsubmit: (e) => {
            e.preventDefault();
            const text = this.input.value.trim();
            if (!text) return;
            this.input.value = "";
            this.unsent.push(text);
            this.flush();
          },
        },
        [h("label", { for: "chat-input", class: "visually-hidden", id: "chat-input-label" }), this.input, this.sendButton],
      ),
      this.muteLabel,
      this.reportButton,
    ]);
    this.texts();
  }

  muted() {
    return preference(`mute.${this.gameId}`, "off") === "on";
  }

  texts() {
    this.title.textContent = t("chat.title");
    this.sendButton.textContent = t("chat.send");
    this.input.placeholder = t("chat.placeholder");
    this.element.querySelector("#chat-input-label").textContent = t("chat.placeholder");
    this.element.querySelector("#chat-mute-label").textContent = t("chat.mute");
    this.reportButton.textContent = t("report.opponent");
  }

  /** How a seat's lines are signed: `name(seat)`, the player's name (the colour until then). */
  setNames(name) {
    this.name = name;
    this.draw();
  }

  /** All lines the recipient may read (from a sync) and the viewer's seat. */
  setLines(lines, seat) {
    this.lines = lines || [];
    this.seat = seat;
    this.muteLabel.hidden = seat === null || seat === undefined;
    this.draw();
  }

  /**
   * Offer "Report" on the opponent's lines of the players' room, `report(line)`, and "Report
   * opponent" for the game, `report(null)`; or null for neither.
   */
  setReport(report) {
    this.report = report;
    this.reportButton.hidden = !report;
    this.draw();
  }

  add(line) {
    this.lines.push(line);
    this.draw();
  }

  /** A moderator hid the line `lineId` (a `chat_hidden` frame): it leaves the panel. */
  hide(lineId) {
    this.lines = this.lines.filter((line) => line.line_id !== lineId);
    this.draw();
  }

  /** Send the lines not sent yet, oldest first, while the connection takes them. */
  flush() {
    while (this.unsent.length && this.send({ type: "chat", text: this.unsent[0] })) this.unsent.shift();
    this.draw();
  }

  /** Whether a line gets a "Report" button: the opponent's, in the players' room, with its id. */
  reportable(line) {
    const seated = this.seat !== null && this.seat !== undefined;
    return Boolean(this.report) && seated && line.room === "players" && line.seat === 1 - this.seat && line.line_id !== undefined;
  }

  draw() {
    const hideOpponent = this.seat !== null && this.seat !== undefined && this.muted();
    const shown = this.lines.filter((l) => !(hideOpponent && l.room === "players" && l.seat === 1 - this.seat));
    fill(
      this.list,
      shown.slice(-100).map((line) =>
        h("li", { class: `chat-line room-${line.room}` }, [
          line.seat === null ? null : seatMark(line.seat),
          h("span", { class: "who", text: `${line.seat === null ? t("chat.spectator") : this.name ? this.name(line.seat) : colourName(line.seat)}: ` }),
          h("span", { class: "chat-text", text: line.text }),
          this.reportable(line)
            ? h("button", {
                type: "button",
                class: "btn chat-report",
                "data-testid": "chat-report",
                "aria-label": t("report.line", { text: line.text }),
                onclick: () => this.report(line),
                text: t("report.button"),
              })
            : null,
        ]),
      ).concat(
        this.unsent.map((text) =>
          h("li", { class: "chat-line unsent", "data-testid": "chat-unsent" }, [
            h("span", { class: "chat-text", text }),
            h("span", { class: "chat-note", text: ` (${t("chat.unsent")})` }),
          ]),
        ),
      ),
    );
    this.list.scrollTop = this.list.scrollHeight;
  }
}

/**
 * Browser notifications of "your move" while the tab is in the background, asked for only when
 * the player presses the button (the Notification API's permission prompt).
 */
export class TurnNotifier {
  constructor() {
    this.wasMine = false;
    this.applicable = true;
    this.button = h("button", {
      type: "button",
      class: "btn notify-me",
      "data-testid": "notify-me",
      onclick: async () => {
        await Notification.requestPermission();
        this.show();
      },
    });
    this.show();
    this.texts();
  }

  /** Whether the viewer's turn can still come in this game: a seat, not hot-seat, not over. */
  applies(yes) {
    this.applicable = yes;
    this.show();
  }

  /** The button while it can do something: the turn can come and the browser has not been asked yet. */
  show() {
    const askable = typeof Notification !== "undefined" && Notification.permission === "default";
    this.button.hidden = !(this.applicable && askable);
  }

  texts() {
    this.button.textContent = t("notify.button");
  }

  /** Called on every render: notifies when it has just become the viewer's move. */
  update(mine, what) {
    if (mine && !this.wasMine && document.hidden && typeof Notification !== "undefined") {
      if (Notification.permission === "granted") new Notification(t("notify.your_move"), { body: what, tag: "kahuna" });
    }
    this.wasMine = mine;
  }
}

/** A warning for the viewer's own low clock: the message and a sound. */
export function lowClockWarning(showMessage, clock) {
  showMessage(t(clock && correspondence(clock) ? "clock.low_correspondence" : "clock.low"));
  playSound("turn");
}

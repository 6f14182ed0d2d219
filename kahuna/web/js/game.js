// The game page: live play (one seat, both seats hot-seat, or watching). It keeps the server's
// messages in order, animates each action's events step by step, and turns clicks and typed
// notation into action tokens — offered only when the server's `legal` list contains them.

import { h, fill, refill, copyText, sleep } from "./dom.js";
import { t, colourName, onLanguageChange } from "./i18n.js";
import { BoardView } from "./board.js";
import { GameConnection } from "./connection.js";
import { cardButton, cardBack, backMotif } from "./cards.js";
import { narrateEvent, narrateToken, seatsOfHistory, islandName, lineWords } from "./narrate.js";
import { reasonText } from "./reasons.js";
import { ClockPanel, LifeControls, ChatPanel, TurnNotifier, lowClockWarning } from "./life.js";
import { downloadLink, playersPanel, trackerPanel, summaryPanel, seatMark } from "./panels.js";
import { preference, setPreference, seatsOf, rememberSeat } from "./store.js";
import { LastMoves, changesBetween, loadSeen, saveSeen } from "./lastmoves.js";
import { scoringPanel } from "./scoring.js";
import { playSound, soundOn, setSoundOn } from "./sounds.js";
import { Tutorial } from "./tutorial.js";
import { playerNames, currentAccount, seatLabel } from "./account.js";
import { heardPresence, claimableIn } from "./leaving.js";
import { openReportDialog } from "./report.js";
import { hintAllowed, hintButton } from "./hintbutton.js";
import { tournamentOf, returnToTournament } from "./tournamentgame.js";
import { GameRatings } from "./gameratings.js";
import { ReaderPanel, durationWords, readerOn, setReaderOn } from "./reader.js";

const STEP_MS = { normal: 480, fast: 140, off: 0 };
/** How long a message stays in view before it fades (connection trouble stays until solved). */
const MESSAGE_MS = 9000;
/** One column (a phone): the stylesheet's breakpoint for it. */
const NARROW = matchMedia("(max-width: 860px)");
/** The smallest board fit() draws (CSS px high: on a phone its island names stay 12 px high), and
 * the room it keeps under the turn's buttons. */
const MIN_BOARD = { narrow: 285, wide: 280 };
const FIT_MARGIN = 10;

/** Typed notation in canonical spelling (capital islands, sorted letters), so "e>j" or "xje:je" work too. */
function tidyNotation(text) {
  const typed = text.trim();
  const sorted = (letters) => [...letters.toUpperCase()].sort().join("");
  if (/^[a-l]>[a-l]$/i.test(typed)) return typed.toUpperCase();
  const removal = /^x([a-l]{2}):([a-l]{2})(\+?)$/i.exec(typed);
  if (removal) return `x${sorted(removal[1])}:${sorted(removal[2])}${removal[3]}`;
  if (/^[-d][a-l]$/i.test(typed)) return typed[0].toLowerCase() + typed[1].toUpperCase();
  if (/^(pass|end|d\?)$/i.test(typed)) return typed.toLowerCase();
  return typed;
}

/** A touch screen: taps, no hovering pointer and often no keyboard. */
const COARSE = matchMedia("(pointer: coarse)");

/** "Confirm moves": a click selects, a second click (or Enter) commits; on by default on touch screens. */
function confirmMoves() {
  const fallback = COARSE.matches ? "on" : "off";
  return preference("confirm", fallback) === "on";
}

/** The chosen animation speed; without a choice, "off" for people who ask for reduced motion. */
function animationSpeed() {
  const fallback = matchMedia("(prefers-reduced-motion: reduce)").matches ? "off" : "normal";
  const speed = preference("speed", fallback);
  return speed in STEP_MS ? speed : fallback;
}

function redact(ev) {
  if (ev.type === "card_discarded" || (ev.type === "card_taken" && !ev.from_display)) return { ...ev, card: null };
  return ev;
}

export class GamePage {
  /**
   * tokens: the seat tokens this browser plays with (empty: watch as a spectator). tutorial: the
   * game is the tutorial's (both seats; the script plays White and Black sees only Black's view).
   * connect(token, onMessage, onState): the connection to use instead of the game's WebSocket
   * (the puzzles' page answers over HTTP, js/puzzles.js), with GameConnection's send and act.
   */
  constructor(root, board, gameId, tokens, tutorial = false, connect = null) {
    this.root = root;
    this.gameId = gameId;
    this.tutorial = tutorial
      ? new Tutorial(
          (token, version) => this.tutorAct(token, version),
          () => this.sendRequest({ type: "resign" }, this.conns[1]),
        )
      : null;
    this.hotseat = tokens.length > 1 && !this.tutorial;
    this.offline = connect !== null; // not a game of the server's (a puzzle): nothing to ask about it
    this.goingTo = null; // the rematch agreed while this page is open, to go to once its links are in
    this.selected = [];
    this.pending = null;
    this.lastToken = null;
    this.queue = [];
    this.busy = false;
    this.log = [];
    // Hot-seat: the seat that last asked for its hand. Any other seat on screen is behind the
    // hand-over curtain, the first turn's seat too: nothing of one seat shows until it asks.
    this.revealed = null;
    // The hand is one stop of the Tab key (arrow keys move between its cards): this one.
    this.handFocus = 0;
    this.replace = false;
    this.message = "";
    this.proposed = null;
    this.lastMoves = new LastMoves();
    this.ratings = new GameRatings(gameId, () => {
      if (this.conns.length) this.offerReports(this.conns[0]); // the opponent's seat may be an account's now
      this.render();
    });
    this.sinceLeft = null;
    this.wantFocus = false;
    this.board = new BoardView(
      board,
      (token) => this.play(token),
      (line) => this.lineClicked(line),
    );
    this.reader = new ReaderPanel(
      board,
      (token) => this.play(token, true),
      () => this.clockWords(),
    );
    this.build();
    const list = tokens.length ? tokens : [null];
    this.conns = list.map((token, i) => {
      const entry = { seat: null, view: null, legal: [], whyNot: {}, status: null, players: null, kinds: null, online: null };
      const onMessage = (msg) => this.receive(i, msg);
      const onState = (state) => this.connState(i, state);
      entry.conn = connect ? connect(token, onMessage, onState) : new GameConnection(gameId, token, onMessage, onState);
      return entry;
    });
    this.shown = 0;
    onLanguageChange(() => this.languageChanged());
    document.addEventListener("keydown", (e) => {
      const typing = ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement?.tagName);
      if (e.key === "/" && !typing && !this.notationForm.hidden) {
        e.preventDefault();
        this.notation.focus();
        this.notation.select();
      } else if (e.key === "Escape" && this.proposed !== null) {
        this.proposed = null;
        this.render();
      }
    });
  }

  /** The connection whose view is on screen. */
  get current() {
    return this.conns[this.shown];
  }

  build() {
    this.boardWrap = h("div", { class: "board-wrap" }, [this.board.element]);
    this.banner = h("div", { class: "banner", id: "banner", tabindex: "-1", role: "status", "aria-live": "polite" });
    // Feedback (why a click cannot work, notation errors, "connection lost", the low-clock
    // warning) takes the step hint's line in the bar that stays at the top: in view on every
    // screen, and in the flow of the page, so it never covers anything one could click.
    this.stepHint = h("p", { class: "hint step-hint", id: "action-hint" });
    this.messageBox = h("p", {
      class: "message notice",
      role: "alert",
      "aria-live": "assertive",
      "data-testid": "message",
      onclick: () => this.showMessage(""),
    });
    this.confirmBox = h("div", { class: "confirm-bar" });
    this.statusBar = h("div", { class: "status-bar" }, [
      this.banner,
      h("div", { class: "feedback-line" }, [this.messageBox, this.stepHint]),
      this.confirmBox,
    ]);
    this.scoringBox = h("div", { class: "scoring-box" });
    this.tutorialBox = h("div", { class: "tutorial-box" });
    this.sinceBox = h("div", { class: "since-box" });
    this.playersBox = h("div", { class: "players-box" });
    // Hidden until the game's first view fills them with their headings: a section named by a
    // heading that is not there yet has no name, and no role that allows aria-labelledby.
    this.drawBox = h("section", { class: "draw-area", "aria-labelledby": "draw-title", hidden: true });
    this.handBox = h("section", { class: "hand-area", "aria-labelledby": "hand-title", "data-testid": "hand", hidden: true });
    this.choiceBox = h("div", { class: "choice-box" });
    this.actionRow = h("div", { class: "action-row" });
    // The turn's buttons: the lit lines in words (right after the hand, so that one Tab leads
    // from the selected card to its lines), then discard, decline or end, and the hint.
    this.actionsBox = h("div", { class: "actions", "data-testid": "turn-actions" }, [this.choiceBox, this.actionRow]);
    this.notation = h("input", {
      id: "notation",
      type: "text",
      autocomplete: "off",
      spellcheck: "false",
      "aria-describedby": "notation-help",
      placeholder: "E>J",
    });
    this.notationForm = h(
      "form",
      {
        class: "notation",
        onsubmit: (e) => {
          e.preventDefault();
          const token = tidyNotation(this.notation.value);
          if (token) this.play(token, true);
        },
        onkeydown: (e) => {
          // No action contains "/": pressing it again just selects the text; Escape leaves the field.
          if (e.key === "/") {
            e.preventDefault();
            this.notation.select();
          } else if (e.key === "Escape") {
            e.preventDefault();
            this.notation.blur();
            this.focusNext();
          }
        },
      },
      [
        h("label", { for: "notation", id: "notation-label" }),
        this.notation,
        h("button", { type: "submit", class: "btn", id: "notation-submit" }),
        h("small", { id: "notation-help", class: "hint" }),
      ],
    );
    this.summaryBox = h("div", { class: "summary-box" });
    this.trackerBox = h("div", { class: "tracker-box" });
    // The log scrolls: a Tab stop of its own, so that the keyboard scrolls it too.
    this.logList = h("ol", { class: "log-list", reversed: true, tabindex: "0", "aria-labelledby": "log-title" });
    this.announcer = h("p", { class: "visually-hidden", "aria-live": "polite" });
    this.logBox = h("section", { class: "log", "aria-labelledby": "log-title" }, [
      h("h2", { id: "log-title" }),
      this.logList,
      this.announcer,
    ]);
    this.shareBox = h("section", { class: "share" });
    this.speedSelect = h("select", { id: "speed", onchange: (e) => setPreference("speed", e.target.value) });
    this.boardSizeSelect = h("select", {
      id: "board-size",
      onchange: (e) => {
        setPreference("board", e.target.value);
        this.fit();
      },
    });
    const toggle = (id, checked, onchange) =>
      h("label", { class: "toggle" }, [
        h("input", { type: "checkbox", id, checked, onchange: (e) => onchange(e.target.checked) }),
        " ",
        h("span", { id: `${id}-label` }),
      ]);
    this.settingsBox = h("div", { class: "settings" }, [
      h("span", {}, [h("label", { for: "speed", id: "speed-label" }), " ", this.speedSelect]),
      h("span", {}, [h("label", { for: "board-size", id: "board-size-label" }), " ", this.boardSizeSelect]),
      toggle("confirm-moves", confirmMoves(), (on) => {
        setPreference("confirm", on ? "on" : "off");
        this.proposed = null;
        this.render();
      }),
      toggle("sounds", soundOn(), (on) => setSoundOn(on)),
      toggle("reader-mode", readerOn(), (on) => {
        setReaderOn(on);
        this.render();
      }),
    ]);
    this.boardWrap.append(this.scoringBox);
    // Hand, display and deck, and the turn's buttons: the dock under the board (DOM order is
    // the keyboard's: hand, lit lines, buttons, then the cards that end the turn).
    this.dock = h("div", { class: "dock" }, [this.handBox, this.actionsBox, this.drawBox]);
    this.gameElement = h("div", { class: "game" }, [
      h("div", { class: "table-col" }, [
        h("h1", { class: "visually-hidden", id: "game-heading" }), // the page's title for a screen reader's headings
        this.statusBar,
        this.tutorialBox,
        this.summaryBox,
        this.boardWrap,
        this.dock,
      ]),
      h("aside", { class: "side-col" }, [
        this.reader.element,
        this.playersBox,
        this.sinceBox,
        this.notationForm,
        this.trackerBox,
        this.logBox,
        this.shareBox,
        this.settingsBox,
      ]),
    ]);
    fill(this.root, [this.gameElement]);
    this.buildLife();
    this.staticTexts();
    addEventListener("resize", () => this.fit());
  }

  /** The clocks above the board, resign/abort/rematch beside the players, the chat right under
   * them (beside the board, in view without scrolling at 1280×800; on a phone it comes after the board). */
  buildLife() {
    this.clocks = new ClockPanel(() => {
      lowClockWarning((text) => this.showMessage(text), this.clocks.clock);
      this.reader.say(t("reader.clock_low", { time: durationWords(this.clocks.left(this.current.seat)) }));
    });
    this.life = new LifeControls((msg) => this.sendRequest(msg));
    this.chat = new ChatPanel(this.gameId, (msg) => this.sendRequest(msg));
    this.notifier = new TurnNotifier();
    this.statusBar.append(this.clocks.element);
    this.playersBox.after(this.life.element);
    this.life.element.after(this.chat.element);
    this.settingsBox.append(this.notifier.button);
    if (this.tutorial) this.life.element.hidden = this.chat.element.hidden = true;
  }

  /**
   * "Report" on the opponent's chat lines and "Report opponent" for the game, for a signed-in
   * player (not a bot account) seated against a person with an account (not the AI, not a guest,
   * who has no account to report: the server's answer about the game's seats, `this.ratings`):
   * the dialog names the opponent, the game and the line if any (docs/moderation.md). The report
   * names the opponent by its seat, not by the name shown: a moderator may have renamed the
   * account since (the page learns the new name from a `sync`, but not where only another server
   * instance holds the finished game: docs/moderation.md), and the server reports
   * whichever account plays the seat.
   */
  offerReports(entry) {
    const seat = entry.seat;
    const seated = seat !== null && seat !== undefined && !this.hotseat && !this.tutorial;
    const person = seated && entry.kinds?.[1 - seat] === "human" && this.ratings.isAccount(1 - seat);
    const opponent = person ? entry.players?.[1 - seat] : null;
    if (!opponent) {
      this.chat.setReport(null);
      return;
    }
    const report = (line) =>
      openReportDialog({
        username: opponent,
        seat: 1 - seat,
        gameId: this.gameId,
        lineId: line ? line.line_id : null,
        lineText: line ? line.text : null,
        fallback: this.chat.input,
      });
    currentAccount().then((me) => this.chat.setReport(me && !me.is_bot ? report : null));
  }

  /** Send a request (resign, abort, rematch, chat) on the connection on screen (or entry's). */
  sendRequest(msg, entry = this.current) {
    const conn = entry.conn;
    return conn.send({ ...msg, id: `r${conn.nextId++}` });
  }

  /** Clock, chat and rematch messages: shown at once, outside the queue of versioned messages. */
  lifeMessage(index, msg) {
    const entry = this.conns[index];
    if (msg.type === "clock") {
      this.setClock(index, msg.clock);
    } else if (msg.type === "chat") {
      if (index === 0) this.chat.add(msg); // in hot-seat both seats hear each line: show it once
    } else if (msg.type === "chat_hidden") {
      if (index === 0) this.chat.hide(msg.line_id); // a moderator hid the line: gone for everyone
    } else if (msg.type === "takeback_offered" || msg.type === "takeback_declined") {
      if (this.hotseat) {
        // Both seats are at this device: the other seat accepts at once (declines never come).
        if (msg.type === "takeback_offered" && index === 0) {
          const other = this.conns.find((c) => c.seat !== null && c.seat !== msg.seat);
          if (other) other.conn.send({ type: "takeback", id: `r${other.conn.nextId++}` });
        }
        return true;
      }
      this.life.heardTakeback(msg);
      if (entry.seat !== null && msg.seat !== entry.seat) {
        const key = msg.type === "takeback_offered" ? "life.takeback_offered" : "life.takeback_declined";
        this.showMessage(t(key, { who: this.seatLabel(msg.seat) }), false, "info");
      }
      this.render();
    } else if (msg.type === "rematch_offered" || msg.type === "rematch") {
      if (this.life.heard(msg)) this.goingTo = msg.game_id;
      this.toRematch(msg);
      if (this.hotseat && msg.type === "rematch_offered" && index === 0) {
        // Both seats are at this device: the other seat accepts at once.
        const other = this.conns.find((c) => c.seat !== null && c.seat !== msg.seat);
        if (other) other.conn.send({ type: "rematch", id: `r${other.conn.nextId++}` });
      }
      const other = entry.seat !== null && msg.type === "rematch_offered" && msg.seat !== entry.seat && !this.hotseat;
      if (other) this.showMessage(t("life.offered_to_you", { who: this.seatLabel(msg.seat) }), false, "info");
      this.render();
    } else {
      return false;
    }
    return true;
  }

  /**
   * Take the player to the rematch agreed while this page was open, once every seat at this
   * screen has its new link (hot-seat: both; the browser has kept the tokens). A spectator, or a
   * player opening a finished game later, gets the link instead.
   */
  toRematch(msg) {
    if (msg.type !== "rematch" || this.goingTo !== msg.game_id || this.tutorial) return;
    if (!msg.seat_url) return;
    const seats = this.conns.filter((c) => c.seat !== null && c.seat !== undefined).length;
    if (this.hotseat && seatsOf(msg.game_id).length < seats) return; // the other seat's link is coming
    this.goingTo = null;
    location.assign(this.hotseat ? `/play/${encodeURIComponent(msg.game_id)}` : msg.seat_url);
  }

  setClock(index, clock) {
    const entry = this.conns[index];
    entry.clock = clock || null;
    entry.clockAt = performance.now();
    if (index === this.shown) this.clocks.update(entry.clock, entry.seat, entry.clockAt);
    const stopped = !entry.clock || entry.clock.running === null;
    if (stopped && [t("clock.low"), t("clock.low_correspondence")].includes(this.message)) this.showMessage("");
  }

  staticTexts() {
    this.root.querySelector("#notation-label").textContent = t("game.notation");
    this.root.querySelector("#notation-submit").textContent = t("game.notation_submit");
    this.root.querySelector("#notation-help").textContent = t("game.notation_help");
    this.root.querySelector("#log-title").textContent = t("log.title");
    this.root.querySelector("#game-heading").textContent = t("title.game");
    this.root.querySelector("#speed-label").textContent = t("game.speed");
    this.root.querySelector("#confirm-moves-label").textContent = t("game.confirm_moves");
    this.root.querySelector("#sounds-label").textContent = t("game.sounds");
    this.root.querySelector("#reader-mode-label").textContent = t("reader.mode");
    this.root.querySelector("#board-size-label").textContent = t("game.board_size");
    const size = preference("board", "fit");
    fill(
      this.boardSizeSelect,
      ["fit", "large"].map((key) => h("option", { value: key, selected: key === size, text: t(`game.board_${key}`) })),
    );
    const speed = animationSpeed();
    fill(
      this.speedSelect,
      Object.keys(STEP_MS).map((key) =>
        h("option", { value: key, selected: key === speed, text: t(`game.speed_${key}`) }),
      ),
    );
  }

  languageChanged() {
    if (!this.messageSticky) this.showMessage(""); // its words are the old language's
    this.staticTexts();
    this.chat.texts();
    this.notifier.texts();
    this.board.relabel();
    this.rebuildLog();
    this.render();
  }

  connState(index, state) {
    // No answer comes on a closed socket: an action sent on it was played or not, and the state
    // the reconnected socket is caught up with (updates, or a sync) tells which. Kept pending, it
    // would hold the board busy for good after a sync at the same version.
    if (state === "closed" && this.pending !== null && this.pending.index === index) {
      this.pending = null;
      this.render();
    }
    if (state === "gone") this.showMessage(t("game.not_found"), true);
    else if (state === "forbidden") this.showMessage(t("game.bad_link"), true);
    else if (state === "closed") this.showMessage(t("game.reconnecting"), true);
    else if (this.message === t("game.reconnecting")) this.showMessage("");
    if (state === "open" && index === this.shown) this.chat.flush();
  }

  // ------------------------------------------------------------------ messages

  receive(index, msg) {
    const entry = this.conns[index];
    // The tutor's seat only acts: what White sees never reaches the screen.
    if (this.tutorial && index === 1) {
      if (msg.type === "error") this.showMessage(this.errorText(msg));
      return;
    }
    if (msg.type === "presence") {
      heardPresence(entry, msg);
      clearTimeout(entry.claimTimer);
      const wait = this.hotseat || this.tutorial ? null : claimableIn(entry);
      if (wait) entry.claimTimer = setTimeout(() => index === this.shown && this.render(), wait + 50);
      if (index === this.shown) this.render();
      return;
    }
    if (msg.type === "pong" || msg.type === "ack") return;
    if (this.lifeMessage(index, msg)) return;
    if (msg.type === "foreseen") {
      entry.foreseen = msg;
      if (index === this.shown) this.render();
      return;
    }
    // A foresee that came too late (the game moved on) or twice: the next version asks again.
    if (msg.type === "error" && String(msg.id ?? "").startsWith("f")) return;
    if (msg.type === "error") {
      this.pending = null;
      if (msg.code === "stale_version") entry.conn.send({ type: "hello", version: entry.conn.version });
      this.showMessage(this.errorText(msg));
      this.render();
      return;
    }
    this.queue.push([index, msg]);
    if (!this.busy) this.drain();
  }

  async drain() {
    this.busy = true;
    while (this.queue.length) {
      const [index, msg] = this.queue.shift();
      const entry = this.conns[index];
      if (msg.type === "sync") {
        Object.assign(entry, { seat: msg.seat, view: msg.view, legal: msg.legal || [], status: msg.status });
        Object.assign(entry, { version: msg.version, canTakeBack: !!msg.can_take_back });
        entry.whyNot = msg.why_not || {};
        entry.rematch = msg.rematch || null;
        entry.rematchOf = msg.rematch_of || null;
        entry.casualReason = msg.casual_reason || null;
        entry.tournament = !!msg.tournament;
        this.setClock(index, msg.clock);
        entry.players = msg.players;
        entry.kinds = msg.kinds;
        if (index === 0) this.chat.setNames((seat) => seatLabel(seat, entry.players, entry.kinds));
        if (index === 0) this.chat.setLines(msg.chat, this.hotseat ? null : entry.seat);
        if (index === 0) this.offerReports(entry);
        this.adopt(entry);
        this.chooseShown();
        if (index === this.shown) {
          this.board.render(entry.view);
          this.rebuildLog();
          this.sinceYouLeft(entry);
        }
      } else if (msg.type === "update") {
        const animate = index === this.shown && this.queue.length < 6;
        if (index === this.shown || !this.logHas(msg.view.history.length))
          await this.playUpdate(msg, animate && index === this.shown);
        Object.assign(entry, { view: msg.view, legal: msg.legal || [], status: msg.status ?? entry.status });
        Object.assign(entry, { version: msg.version, canTakeBack: !!msg.can_take_back });
        entry.whyNot = msg.why_not || {};
        if ("clock" in msg) this.setClock(index, msg.clock); // caught-up updates have none: a clock follows
        if (this.pending !== null && this.pending.index === index) this.pending = null;
        this.chooseShown();
        if (index === this.shown) this.board.render(this.current.view);
        if (entry.seat !== null && msg.seat_acted !== entry.seat && msg.view.to_move === entry.seat && !this.hotseat)
          playSound("turn");
      }
      if (index === this.shown && !this.tutorial) saveSeen(this.gameId, entry.seat, entry.view);
      if (this.tutorial && index === 0) this.tutorial.advance(entry.view);
      this.render();
    }
    this.busy = false;
    this.render();
    const back = this.tutorial ? null : tournamentOf();
    if (back && this.conns.some((entry) => entry.view?.result)) returnToTournament(this.root, back);
  }

  /** Hot-seat: show the seat to move (the newest view decides); otherwise the only connection. */
  chooseShown() {
    if (!this.hotseat) return;
    const newest = this.conns.reduce((a, b) =>
      (b.view?.history.length ?? -1) > (a.view?.history.length ?? -1) ? b : a,
    );
    const seat = newest.view?.to_move;
    if (seat === null || seat === undefined) return; // over: the seat on screen stays
    const index = this.conns.findIndex((c) => c.seat === seat && c.view);
    if (index >= 0 && index !== this.shown) {
      this.shown = index;
      this.selected = [];
      this.board.render(this.current.view);
    }
  }

  /** Whether the hot-seat hand-over curtain hides the seat on screen. */
  curtained(seat) {
    return this.hotseat && this.revealed !== seat && !this.current.view?.result;
  }

  /**
   * A seat link opened in this browser makes the game this browser's: "my games" lists it and
   * its replay offers the analysis. Seats of the signed-in account ("seat:N") are the account's.
   */
  adopt(entry) {
    const token = entry.conn.token;
    if (this.tutorial || entry.seat === null || !token || token.startsWith("seat:")) return;
    if (seatsOf(this.gameId).some((s) => s.token === token)) return;
    rememberSeat({ game_id: this.gameId, seat: entry.seat, token, ...(this.hotseat ? { hotseat: true } : {}) });
  }

  logHas(version) {
    return this.log.some((item) => item.version === version);
  }

  async playUpdate(msg, animate) {
    const step = animate ? STEP_MS[animationSpeed()] : 0;
    const wait = () => sleep(step);
    // Numbered by its place in the game as played (a take-back makes the game's version run ahead).
    const number = msg.view.history.length;
    const item = { version: number, seat: msg.seat_acted, lines: [], token: msg.view.history[number - 1] };
    if (!this.logHas(number)) this.log.unshift(item);
    this.lastMoves.startAction();
    this.sinceLeft = null;
    const events = msg.events.map((raw) => (this.hotseat ? redact(raw) : raw));
    // The whole action at once: a live region read after each event would be cut short by the next.
    this.announcer.textContent = events.map(narrateEvent).join(" ");
    for (const ev of events) {
      item.lines.push(ev);
      this.renderLog();
      if (this.lastMoves.note(ev)) this.board.showLastMoves(this.lastMoves.changes);
      if (ev.type === "round_scored") this.showScoring(ev);
      if (animate) playSound(soundOf(ev));
      if (!step) continue;
      if (ev.type === "bridge_built") {
        this.board.setBridge(ev.line, ev.seat, "arriving");
        await wait();
      } else if (ev.type === "island_claimed") {
        this.board.setStone(ev.island, ev.seat, "arriving");
        await wait();
      } else if (ev.type === "bridge_returned" || ev.type === "bridge_removed") {
        await this.board.takeBridge(ev.line, wait);
      } else if (ev.type === "stone_lost") {
        await this.board.takeStone(ev.island, wait);
      }
    }
  }

  /** A round's scoring as a moment of its own: the stones counted and the points given. */
  showScoring(ev) {
    const close = () => {
      this.scoringBox.replaceChildren();
      this.focusNext();
    };
    fill(this.scoringBox, [scoringPanel(ev, playerNames(this.current.players, this.current.kinds), close)]);
    this.scoringBox.querySelector("button")?.focus({ preventScroll: true });
  }

  /**
   * Back in a game after the opponent moved: mark on the board what changed since this browser
   * last saw it, and list those actions in words, each one shown on the board when picked.
   */
  sinceYouLeft(entry) {
    if (this.tutorial) return;
    const seen = loadSeen(this.gameId, entry.seat);
    const view = entry.view;
    const seats = seatsOfHistory(view.history);
    // A view taken in the middle of a turn (the AI's, say): that turn's next actions add to its marks.
    const turnOver = !view.history.length || seats[view.history.length - 1] !== view.to_move;
    if (!seen) {
      // A first visit from this browser: mark the last turn as far as its tokens tell.
      this.lastMoves.replaceWith(lastTurnChanges(view, seats), turnOver);
      this.board.showLastMoves(this.lastMoves.changes);
      return;
    }
    if (seen.version >= view.history.length || this.hotseat) return;
    const steps = view.history.slice(seen.version).map((token, k) => ({
      version: seen.version + k + 1,
      seat: seats[seen.version + k],
      token,
    }));
    this.sinceLeft = { steps, changes: changesBetween(seen, view), at: null };
    this.lastMoves.replaceWith(this.sinceLeft.changes, turnOver);
    this.board.showLastMoves(this.lastMoves.changes);
  }

  renderSince() {
    const since = this.sinceLeft;
    if (!since) {
      this.sinceBox.replaceChildren();
      return;
    }
    const showStep = (k) => {
      since.at = k;
      const step = since.steps[k];
      this.board.showLastMoves(k === null ? since.changes : tokenChanges(step.token, step.seat));
      this.render();
    };
    const items = since.steps.map((step, k) =>
      h("li", { class: since.at === k ? "current" : "" }, [
        h("button", { type: "button", class: "log-jump", "aria-pressed": String(since.at === k), onclick: () => showStep(k) }, [
          seatMark(step.seat),
          " ",
          narrateToken(step.token, step.seat),
        ]),
      ]),
    );
    fill(this.sinceBox, [
      h("section", { class: "since", "data-testid": "since-you-left", "aria-labelledby": "since-title" }, [
        h("h2", { id: "since-title", text: t("since.title", { n: since.steps.length }) }),
        h("ol", { class: "log-list" }, items),
        h("p", { class: "since-nav" }, [
          h("button", {
            type: "button",
            class: "btn",
            id: "since-step",
            text: t("since.step"),
            onclick: () => showStep(since.at === null ? 0 : (since.at + 1) % since.steps.length),
          }),
          " ",
          h("button", { type: "button", class: "btn", id: "since-all", text: t("since.all"), onclick: () => showStep(null) }),
          " ",
          h("button", {
            type: "button",
            class: "btn",
            id: "since-close",
            text: t("since.close"),
            onclick: () => {
              this.sinceLeft = null;
              this.board.showLastMoves(this.lastMoves.changes);
              this.render();
              this.focusNext();
            },
          }),
        ]),
      ]),
    ]);
  }

  /** After a sync (first load, reload, reconnect far behind): the log in words from the history. */
  rebuildLog() {
    const view = this.current.view;
    if (!view) return;
    const known = new Map(this.log.map((item) => [item.version, item]));
    const seats = seatsOfHistory(view.history);
    // An entry of another line (a puzzle's board put on the solution's position) is not this history's.
    const kept = (i, token) => (known.get(i + 1)?.token === token ? known.get(i + 1) : null);
    this.log = view.history.map((token, i) => kept(i, token) || { version: i + 1, seat: seats[i], token }).reverse();
    this.renderLog();
  }

  renderLog() {
    fill(
      this.logList,
      this.log.slice(0, 400).map((item) => {
        const text = item.lines ? item.lines.map(narrateEvent).join(" ") : narrateToken(item.token, item.seat);
        return h("li", { class: `log-item seat${item.seat}`, value: item.version }, [
          h("span", { class: "log-num", text: `${item.version}.` }),
          h("span", {}, [seatMark(item.seat), " ", text]),
        ]);
      }),
    );
  }

  // ------------------------------------------------------------------ acting

  get mySeat() {
    return this.current.seat;
  }

  isLegal(token) {
    if (this.tutorial && !this.tutorial.allows(token, this.current.view?.history.length ?? -1)) return false;
    return this.current.legal.includes(token);
  }

  /** The tutor plays White's scripted move once White's connection has seen the same version. */
  tutorAct(token, version) {
    const white = this.conns[1].conn;
    if (white.version !== version) {
      if ((white.version ?? -1) < version) setTimeout(() => this.tutorAct(token, version), 200);
      return;
    }
    white.act(token);
  }

  /**
   * Why `token` cannot be played now, when that is known without asking the referee: the game's
   * status (loading, over, spectating, the other seat's turn) or the server's `why_not` for the
   * buttons on screen; null otherwise.
   */
  knownRefusal(token) {
    const entry = this.current;
    const view = entry.view;
    if (!view) return t("why.loading");
    if (view.result) return t("why.game_over");
    if (entry.seat === null || entry.seat === undefined) return t("why.spectator");
    if (view.to_move !== entry.seat) return t("why.not_your_turn", { who: colourName(view.to_move) });
    const reason = entry.whyNot[token];
    if (reason) return reasonText(reason);
    // The referee would allow it, the tutorial's lesson waits for another move: say which.
    if (this.tutorial && !this.isLegal(token)) return this.tutorial.refusal(view.history.length);
    return null;
  }

  /** The refusal of a button's token, in words (a generic sentence if the server gave none). */
  whyNot(token) {
    return this.knownRefusal(token) || t("why.not_now");
  }

  /** An error message of the server in words: a refusal of the referee is translated from its code. */
  errorText(msg) {
    if (msg.reason) return reasonText(msg.reason);
    const known = t(`error.${msg.code}`);
    if (known !== `error.${msg.code}`) return known; // a refusal the browser has words for
    if (msg.code === "malformed" && this.lastToken) return t("why.not_notation", { token: this.lastToken });
    if (msg.code === "chat_full") return t("game.chat_full");
    if (msg.code === "muted") return t("chat.muted", { n: Math.max(1, Math.ceil((msg.seconds_left || 0) / 60)) });
    if (msg.code === "rate_limited" && msg.retry_after) return t("game.too_fast", { s: Math.ceil(msg.retry_after) });
    return msg.message || msg.code;
  }

  /**
   * Play a token. One the server lists as legal is sent; for any other, the known refusal is
   * shown, or the token is sent anyway so that the referee says why (the browser decides nothing).
   */
  play(token, typed = false) {
    if (this.pending !== null || this.busy) {
      this.showMessage(t("hint.wait"));
      return;
    }
    if (!this.isLegal(token)) {
      const refusal = this.knownRefusal(token);
      if (refusal) {
        this.showMessage(refusal);
        return;
      }
    } else if (!typed && confirmMoves() && this.proposed !== token) {
      // First click: only propose; a second click on it, Enter or "Confirm" commits.
      this.proposed = token;
      this.showMessage("");
      this.render();
      this.confirmBox.querySelector("[data-testid=confirm]")?.focus({ preventScroll: true });
      return;
    }
    this.proposed = null;
    this.wantFocus = this.wantFocus || this.gameElement.contains(document.activeElement);
    this.lastToken = token;
    const id = this.current.conn.act(token);
    if (id === null) {
      this.showMessage(t("game.reconnecting"));
      return;
    }
    this.pending = { id, index: this.shown };
    this.selected = [];
    if (typed) this.notation.value = "";
    this.showMessage("");
    this.render();
  }

  /** A click on a line or bridge that is not offered: say why it cannot be used like that. */
  lineClicked(line) {
    const cards = this.selectedCards();
    if (this.current.seat === null) return;
    if (cards.length === 0) {
      this.showMessage(t("hint.select_first"));
    } else if (cards.length === 1) {
      const card = cards[0];
      if (!line.includes(card))
        this.showMessage(t("why.card_not_on_line", { card: islandName(card), line: lineWords(line) }));
      else this.play(`${card}>${line[0] === card ? line[1] : line[0]}`);
    } else {
      this.play(`x${line}:${[...cards].sort().join("")}${this.replace ? "+" : ""}`);
    }
  }

  selectedCards() {
    const hand = this.current.view?.hand || "";
    return this.selected.map((i) => hand[i]).filter(Boolean);
  }

  toggleCard(index) {
    const at = this.selected.indexOf(index);
    if (at >= 0) this.selected.splice(at, 1);
    else {
      this.selected.push(index);
      if (this.selected.length > 2) this.selected.shift();
    }
    this.proposed = null;
    this.showMessage("");
    this.render();
  }

  /** Feedback in the fixed message place; it fades after a while unless sticky (connection trouble). */
  /** Who sits in `seat`, by name (docs/web.md, *Names, not colours*). */
  seatLabel(seat) {
    return seatLabel(seat, this.current?.players, this.current?.kinds);
  }

  /**
   * Feedback in the bar at the top: a refusal or a problem (red), or with `tone` "info" a neutral
   * notice (an offer heard, a request made) that is no error.
   */
  showMessage(text, sticky = false, tone = "error") {
    this.message = text;
    this.messageSticky = Boolean(text) && sticky;
    this.messageBox.textContent = text;
    this.messageBox.classList.toggle("info", Boolean(text) && tone === "info");
    clearTimeout(this.messageTimer);
    if (text && !sticky)
      this.messageTimer = setTimeout(() => {
        if (this.message === text) this.showMessage("");
      }, MESSAGE_MS);
    this.fit();
  }

  /**
   * Size the board so that everything a turn needs is in the window at once, without
   * scrolling: the banner and its message line, the board, the hand, the display and deck and
   * the turn's buttons. The board takes the height the rest leaves, never less than a readable
   * minimum; on a narrow screen the hand comes first, then the draw, then the buttons. The move
   * waiting for confirmation is left out of the sum, so that proposing a move does not shrink
   * the board under the finger. "Board: large" (a setting) draws it as wide as its column.
   */
  fit() {
    const svg = this.board.element;
    const view = this.current?.view;
    const size = preference("board", "fit");
    const fitting = size === "fit" && view && !view.result;
    this.gameElement.classList.toggle("fitted", Boolean(fitting));
    this.gameElement.classList.toggle("board-large", size === "large");
    if (!fitting) {
      if (svg.style.maxHeight) {
        svg.style.maxHeight = "";
        this.board.reoffer();
      }
      return;
    }
    const narrow = NARROW.matches;
    const boardHeight = svg.getBoundingClientRect().height;
    const proposal = this.confirmBox.getBoundingClientRect().height;
    const room = (element) =>
      innerHeight - (element.getBoundingClientRect().bottom + scrollY - boardHeight - proposal) - FIT_MARGIN;
    const min = narrow ? MIN_BOARD.narrow : MIN_BOARD.wide;
    const ends = narrow ? [this.actionRow, this.drawBox, this.handBox] : [this.dock];
    const fits = ends.filter((el) => !el.hidden && el.getClientRects().length).map(room);
    const height = Math.floor(Math.max(min, fits.find((r) => r >= min) ?? min));
    if (svg.style.maxHeight !== `${height}px`) {
      svg.style.maxHeight = `${height}px`;
      this.board.reoffer();
    }
  }

  /**
   * Keyboard focus after an action took the focused control away: the next sensible control
   * (a card of the hand on one's turn, the lit choices, else the banner), never the page.
   */
  focusNext() {
    const pick = (selectors) => selectors.map((sel) => this.gameElement.querySelector(sel)).find(Boolean);
    const target =
      this.current.view && this.gameElement.dataset.turn === "mine"
        ? pick([
            "[data-testid=confirm]",
            ".board .pick",
            '.hand-row button.card[aria-pressed="true"]',
            ".hand-row button.card",
            '.draw[aria-disabled="false"]',
            ".reveal",
            "#banner",
          ])
        : pick([".reveal", "[data-testid=scoring] button", ".summary a", "#banner"]);
    target?.focus({ preventScroll: true });
  }

  // ------------------------------------------------------------------ rendering

  render() {
    const entry = this.current;
    if (!entry.view) return;
    const active = document.activeElement;
    const focused = focusKey(active, this.gameElement);
    const parked = active?.id === "banner";
    if (focused) this.wantFocus = true;
    const wasMine = this.gameElement.dataset.turn === "mine";
    this.renderView(entry);
    const again = focused && this.gameElement.querySelector(focused);
    if (again && again !== document.activeElement) again.focus({ preventScroll: true });
    const lost = !document.activeElement || document.activeElement === document.body;
    const nowMine = this.gameElement.dataset.turn === "mine";
    this.life.render(entry);
    // Controls only where they apply: no chat with the computer or on one's own device (a
    // spectator has the spectators' room), no "notify me" when one's turn cannot come.
    const seated = entry.seat !== null;
    const computer = seated && String(entry.kinds?.[1 - entry.seat] ?? "").startsWith("ai:");
    this.chat.element.hidden = Boolean(this.tutorial) || (seated && (this.hotseat || computer));
    this.notifier.applies(seated && !this.hotseat && !this.tutorial && !entry.view.result);
    this.notifier.update(nowMine && !this.hotseat, t("game.your_turn"));
    // Focus fell back to the page (its control went away), or it waited on the banner for our turn.
    if (this.wantFocus && (lost || (parked && nowMine && !wasMine))) this.focusNext();
  }

  renderView(entry) {
    const view = entry.view;
    const seat = entry.seat;
    const mine = seat !== null && view.to_move === seat && !view.result && entry.status !== "waiting";
    document.title = `${t(mine ? "title.your_turn" : "title.game")} — Kahuna`;
    // State for scripts and tests: whose turn it is from this page's point of view, and the version.
    Object.assign(this.gameElement.dataset, {
      turn: view.result ? "over" : entry.status === "waiting" ? "waiting" : mine ? "mine" : "theirs",
      version: String(view.history.length),
      busy: String(this.pending !== null || this.busy),
    });
    const curtain = this.curtained(seat);
    this.gameElement.classList.toggle("curtain", curtain);
    const banner = h("span", {}, this.bannerContent(entry, mine));
    // Replace the live banner only when its words change, so screen readers announce changes only.
    if (banner.textContent !== this.banner.textContent) this.banner.replaceChildren(banner);
    this.banner.classList.toggle("mine", mine);
    // Hot-seat hand-over: nothing that belongs to one seat (hand, known cards, tracker, the
    // seat's log and refusals) is on screen until the seat to move asks for it.
    fill(this.playersBox, [
      playersPanel(view, playerNames(entry.players, entry.kinds), seat, entry.online, curtain),
      casualNote(entry.casualReason),
    ]);
    if (!this.offline) this.ratings.want(Boolean(view.result), entry.players); // a puzzle is no stored game: no ratings
    this.ratings.decoratePlayers(this.playersBox);
    fill(this.trackerBox, curtain || view.result ? [] : trackerPanel(view));
    this.logBox.hidden = curtain;
    this.renderSummary(entry);
    this.renderDraw(view, seat, curtain);
    this.renderHand(view, seat, curtain);
    const picks = curtain ? new Map() : this.picksFor(mine);
    if (this.proposed !== null && ![...picks.values()].some((p) => p.token === this.proposed) && !this.isLegal(this.proposed))
      this.proposed = null;
    this.renderActions(view, seat, mine, picks, curtain);
    const foreseen = entry.foreseen?.version === entry.version ? entry.foreseen : null;
    this.reader.render(view, seat, mine ? entry.legal.filter((token) => this.isLegal(token)) : [], curtain, foreseen);
    this.foresee(entry);
    this.stepHint.textContent = curtain ? "" : this.hint(view, mine, this.selectedCards());
    this.renderConfirm(seat);
    this.renderShare(entry);
    this.renderSince();
    if (this.tutorial) fill(this.tutorialBox, [this.tutorial.panel(view)]);
    this.notationForm.hidden = seat === null || curtain || Boolean(view.result);
    this.fit();
    this.board.offer(picks, this.proposed);
  }

  /**
   * In screen-reader mode, ask the server once per version what the referee foresees (each
   * action's consequences, the close islands: `foresee`, docs/protocol.md), once the page has
   * caught up with every message; the answer comes as `foreseen` and re-renders the lists.
   */
  foresee(entry) {
    if (!readerOn() || this.busy || this.queue.length || entry.view.result || entry.version === undefined) return;
    if (entry.askedAt === entry.version) return;
    const conn = entry.conn;
    if (conn.send({ type: "foresee", version: entry.version, id: `f${conn.nextId++}` })) entry.askedAt = entry.version;
  }

  /** Both clocks in words, for the screen-reader mode's "Read the clocks" (null: untimed). */
  clockWords() {
    const clock = this.clocks?.clock;
    if (!clock) return null;
    return [0, 1]
      .map((seat) =>
        t(clock.running === seat ? "reader.clock_running" : "reader.clock_left", {
          who: colourName(seat),
          time: durationWords(this.clocks.left(seat)),
        }),
      )
      .join(" ");
  }

  /** The move waiting for confirmation ("confirm moves" setting), with Confirm and Cancel. */
  renderConfirm(seat) {
    if (this.proposed === null) {
      this.confirmBox.replaceChildren();
      return;
    }
    const token = this.proposed;
    fill(this.confirmBox, [
      h("span", { class: "confirm-text", text: narrateToken(token, seat) }),
      h("button", {
        type: "button",
        class: "btn primary",
        "data-testid": "confirm",
        id: "confirm",
        text: t("confirm.yes"),
        onclick: () => this.play(token),
      }),
      h("button", {
        type: "button",
        class: "btn",
        id: "confirm-cancel",
        text: t("confirm.no"),
        onclick: () => {
          this.proposed = null;
          this.render();
          this.focusNext();
        },
      }),
    ]);
  }

  bannerContent(entry, mine) {
    const view = entry.view;
    if (entry.status === "waiting") return [t("game.waiting")];
    const round = view.phase === "final" ? t("game.final_turns") : t("game.round", { n: view.round });
    const watching = entry.seat === null ? [h("span", { class: "watching", text: t("game.watching") }), " "] : [];
    if (view.result) return [...watching, this.tutorial ? t("tutorial.title_done") : `${round} · ${t("game.over")}`];
    const who =
      entry.seat === null || this.hotseat
        ? t("game.to_move", { who: colourName(view.to_move) })
        : t(mine ? "game.your_turn" : "game.their_turn", { who: colourName(view.to_move) });
    const extra = view.declined && mine ? [" · ", t("game.opponent_declined")] : [];
    return [...watching, seatMark(view.to_move), " ", round, " · ", who, ...extra];
  }

  /** The end of the game; the tutorial's end is its own lesson panel. */
  renderSummary(entry) {
    const view = entry.view;
    if (!view.result || this.tutorial) {
      this.summaryBox.replaceChildren();
      return;
    }
    const links = [
      aborted(view) ? null : h("a", { href: replayHref(this.gameId), class: "btn", text: t("summary.replay") }),
      downloadLink(this.gameId),
      h("a", { href: "/", class: "btn", text: t("summary.new_game") }),
    ];
    fill(this.summaryBox, summaryPanel(view, playerNames(entry.players, entry.kinds), links));
    this.ratings.decorateSummary(this.summaryBox, playerNames(entry.players, entry.kinds));
  }

  renderDraw(view, seat, curtain) {
    const drawing = view.phase === "play" && !view.result && !curtain;
    const items = [...view.display].map((letter) => this.drawButton(`d${letter}`, cardButton(letter), seat, drawing));
    const deck = h("button", { type: "button", class: "card back deck", dataset: { token: "d?" } }, [
      backMotif(),
      h("span", { class: "deck-count", text: String(view.deck_size) }),
    ]);
    deck.setAttribute("aria-label", t("draw.deck", { n: view.deck_size }));
    items.push(this.drawButton("d?", deck, seat, drawing));
    items.push(
      h("small", {
        class: "hint discards",
        text: t("draw.discards", {
          up: view.discard_face_up.length,
          down: view.face_down_counts[0] + view.face_down_counts[1],
        }),
      }),
    );
    fill(this.drawBox, [h("h2", { id: "draw-title", text: t("draw.title") }), h("div", { class: "draw-row" }, items)]);
    this.drawBox.hidden = false;
  }

  drawButton(token, button, seat, drawing) {
    const legal = this.isLegal(token) && this.pending === null && drawing;
    button.classList.add("draw");
    button.dataset.token = token;
    button.setAttribute("aria-disabled", String(!legal));
    if (this.proposed === token) button.classList.add("proposed");
    if (!legal && seat !== null && drawing) button.title = this.whyNot(token);
    button.addEventListener("click", () => (drawing ? this.play(token) : this.showMessage(this.whyNot(token))));
    if (!drawing) button.classList.add("inactive");
    return button;
  }

  renderHand(view, seat, curtain) {
    if (seat === null) {
      this.handBox.hidden = true;
      return;
    }
    this.handBox.hidden = false;
    const hand = view.hand || "";
    if (this.selected.some((i) => i >= hand.length)) this.selected = [];
    const title = h("h2", { id: "hand-title" }, [seatMark(seat), " ", t("hand.title", { who: colourName(seat) })]);
    if (curtain) {
      // Hot-seat hand-over: the hand face down until the seat to move asks for it. A redraw (a
      // clock, a presence) keeps the focus on the reveal button, or Enter pressed there would
      // land on the page instead (seen in a loaded test run).
      refill(this.handBox, [
        title,
        h("div", { class: "hand-curtain", "data-testid": "curtain" }, [
          h("p", { class: "curtain-text", text: t("hotseat.pass_device", { who: this.seatLabel(seat) }) }),
          h("button", {
            type: "button",
            class: "btn primary reveal",
            onclick: () => {
              this.revealed = seat;
              this.render();
              this.focusNext();
            },
            text: t("hotseat.reveal", { who: this.seatLabel(seat) }),
          }),
          h("div", { class: "hand-row" }, [...hand].map(() => cardBack("", t("card.back")))),
        ]),
      ]);
      return;
    }
    // One Tab stop for the whole hand (the selected card, else the last one focused); the
    // arrow keys, Home and End move between its cards.
    const stop = this.selected[0] ?? Math.min(this.handFocus, Math.max(0, hand.length - 1));
    const cards = [...hand].map((letter, i) =>
      cardButton(letter, {
        "aria-pressed": String(this.selected.includes(i)),
        tabindex: i === stop ? 0 : -1,
        onclick: () => this.toggleCard(i),
        onfocus: (e) => this.handFocused(e.currentTarget, i),
        onkeydown: (e) => this.handKey(e, i, hand.length),
        dataset: { card: letter, slot: i },
      }),
    );
    fill(this.handBox, [
      title,
      h("div", { class: "hand-row" }, cards.length ? cards : [h("span", { class: "hint", text: t("hand.empty") })]),
    ]);
  }

  /** The focused card becomes the hand's Tab stop. */
  handFocused(card, index) {
    this.handFocus = index;
    for (const other of this.handBox.querySelectorAll(".hand-row button.card")) other.tabIndex = other === card ? 0 : -1;
  }

  handKey(e, index, count) {
    const to = { ArrowLeft: index - 1, ArrowRight: index + 1, Home: 0, End: count - 1 }[e.key];
    if (to === undefined || count === 0) return;
    e.preventDefault();
    this.handBox.querySelector(`.hand-row [data-slot="${(to + count) % count}"]`)?.focus();
  }

  renderActions(view, seat, mine, picks, curtain) {
    this.actionsBox.hidden = seat === null || Boolean(view.result);
    if (seat === null || view.result || curtain) {
      this.choiceBox.replaceChildren();
      this.actionRow.replaceChildren();
      return;
    }
    const cards = this.selectedCards();
    const buttons = [];
    const discardToken = cards.length === 1 ? `-${cards[0]}` : null;
    buttons.push(
      this.actionButton(
        "discard",
        discardToken,
        cards.length === 1 ? t("act.discard", { card: islandName(cards[0]) }) : t("act.discard_none"),
        cards.length === 1 ? null : t("hint.discard_select"),
      ),
    );
    if (view.phase === "final") buttons.push(this.actionButton("end", "end", t("act.end"), null));
    else buttons.push(this.actionButton("pass", "pass", t("act.pass"), null));
    if (hintAllowed(this, this.current, mine)) buttons.push(hintButton(this, this.current));
    if (view.variant.replace_on_remove) {
      buttons.push(
        h("label", { class: "replace-toggle" }, [
          h("input", {
            type: "checkbox",
            checked: this.replace,
            onchange: (e) => {
              this.replace = e.target.checked;
              this.render();
            },
          }),
          " ",
          t("act.replace"),
        ]),
      );
    }
    // The board's lit choices again as plain buttons in words: quick to reach by keyboard and
    // screen reader; focusing or pointing at one lights its line on the board.
    const spot = (line) => () => this.board.spotlight(line);
    const choices = [...picks].map(([line, pick]) =>
      h("button", {
        type: "button",
        class: `btn choice-pick ${pick.kind}${pick.token === this.proposed ? " proposed" : ""}`,
        dataset: { token: pick.token, line },
        "aria-label": t(pick.kind === "build" ? "board.pick_build" : "board.pick_remove", { line: lineWords(line) }),
        onclick: () => this.play(pick.token),
        onfocus: spot(line),
        onblur: spot(null),
        onmouseenter: spot(line),
        onmouseleave: spot(null),
        text: lineWords(line),
      }),
    );
    fill(
      this.choiceBox,
      choices.length ? [h("div", { class: "choice-row", role: "group", "aria-labelledby": "action-hint" }, choices)] : [],
    );
    fill(this.actionRow, buttons);
  }

  actionButton(name, token, label, reasonIfNoToken) {
    const legal = token !== null && this.isLegal(token) && this.pending === null;
    const reason = legal ? "" : reasonIfNoToken || this.whyNot(token);
    const reasonId = `why-${name}`;
    return h("span", { class: "action" }, [
      h("button", {
        type: "button",
        class: `btn act-${name}${token !== null && token === this.proposed ? " proposed" : ""}`,
        "aria-disabled": String(!legal),
        "aria-describedby": legal ? null : reasonId,
        onclick: () => (token === null ? this.showMessage(reason) : this.play(token)),
        text: label,
      }),
      legal ? null : h("small", { class: "why", id: reasonId, text: reason }),
    ]);
  }

  hint(view, mine, cards) {
    if (view.result) return "";
    if (this.current.seat === null) return t("hint.watching");
    if (!mine) return this.pending !== null ? t("hint.sending") : "";
    if (this.proposed !== null) return t(COARSE.matches ? "hint.confirm_touch" : "hint.confirm");
    if (cards.length === 1) {
      const lines = this.current.legal.filter((tok) => tok.startsWith(`${cards[0]}>`) && this.isLegal(tok));
      return lines.length
        ? t("hint.pick_line", { card: islandName(cards[0]) })
        : t("hint.no_line", { card: islandName(cards[0]) });
    }
    if (cards.length === 2) {
      return this.removals(cards).length
        ? t("hint.pick_bridge")
        : t("hint.no_bridge", { cards: cards.map(islandName).join(" + ") });
    }
    return view.phase === "final" ? t("hint.final_turn") : t("hint.turn");
  }

  removals(cards) {
    const pair = [...cards].sort().join("");
    const suffix = this.replace ? "+" : "";
    return this.current.legal.filter(
      (tok) => tok.startsWith("x") && tok.endsWith(`:${pair}${suffix}`) && this.isLegal(tok),
    );
  }

  /** The lines (builds) or bridges (removals) the selected cards may take, from `legal`: line -> pick. */
  picksFor(mine) {
    const picks = new Map();
    const cards = this.selectedCards();
    if (mine && this.pending === null) {
      if (cards.length === 1) {
        for (const tok of this.current.legal.filter((x) => this.isLegal(x))) {
          if (tok.length === 3 && tok.startsWith(`${cards[0]}>`))
            picks.set([tok[0], tok[2]].sort().join(""), { token: tok, kind: "build" });
        }
      } else if (cards.length === 2) {
        for (const tok of this.removals(cards)) picks.set(tok.slice(1, 3), { token: tok, kind: "remove" });
      }
    }
    return picks;
  }

  renderShare(entry) {
    const items = [h("h2", { text: t("share.title") })];
    const spectator = `${location.origin}/watch/${encodeURIComponent(this.gameId)}`;
    if (entry.status === "waiting") {
      const invite = seatsOf(this.gameId).find((s) => s.invite_url)?.invite_url;
      if (invite) items.push(copyRow("invite", t("share.invite"), location.origin + invite));
    }
    items.push(copyRow("spectator", t("share.spectator"), spectator));
    if (entry.view.result && !aborted(entry.view))
      items.push(h("p", {}, [h("a", { href: replayHref(this.gameId), text: t("summary.replay") })]));
    fill(this.shareBox, items);
  }
}

/** Whether a finished game was aborted: it has no scores to show and no replay worth watching. */
function aborted(view) {
  return view.result?.reason === "aborted";
}

function replayHref(gameId) {
  return `/replay/${encodeURIComponent(gameId)}`;
}

/** Which sound an event makes (null: none). */
function soundOf(ev) {
  if (ev.type === "bridge_built") return "build";
  if (ev.type === "island_claimed") return "claim";
  if (ev.type === "bridge_returned") return "sweep";
  return null;
}

/** What a history token changed on the board, as far as the token itself tells (for "since you left"). */
function tokenChanges(token, seat) {
  if (token[1] === ">") return [{ kind: "built", line: [token[0], token[2]].sort().join(""), seat }];
  if (token[0] === "x") return [{ kind: "removed", line: token.slice(1, 3), seat: 1 - seat }];
  return [];
}

/** The changes of the last turn in the history that the board still shows (new bridges, removals). */
function lastTurnChanges(view, seats) {
  const history = view.history;
  let start = history.length;
  while (start > 0 && seats[start - 1] === seats[history.length - 1]) start--;
  return history
    .slice(start)
    .flatMap((token, k) => tokenChanges(token, seats[start + k]))
    .filter((c) => (c.kind === "built" ? view.bridges[c.line] === c.seat : view.bridges[c.line] === undefined));
}

/** A selector that finds the "same" control again after a re-render, so keyboard focus survives updates. */
function focusKey(element, within) {
  if (!element || !within.contains(element) || element === within) return null;
  if (element.id) return `#${CSS.escape(element.id)}`;
  if (element.dataset.slot !== undefined) return `.hand-row [data-slot="${element.dataset.slot}"]`;
  if (element.dataset.token) {
    return `${element.tagName.toLowerCase()}.${element.classList[0]}[data-token="${CSS.escape(element.dataset.token)}"]`;
  }
  const action = [...element.classList].find((c) => c.startsWith("act-"));
  return action ? `.${action}` : null;
}

/** A labelled read-only link with a copy button. */
export function copyRow(name, label, url) {
  const input = h("input", { type: "text", readonly: true, value: url, id: `link-${name}`, class: "link-input" });
  const status = h("span", { class: "copied", role: "status" });
  return h("div", { class: `copy-row ${name}` }, [
    h("label", { for: `link-${name}`, text: label }),
    h("div", { class: "copy-line" }, [
      input,
      h("button", {
        type: "button",
        id: `copy-${name}`,
        class: "btn copy",
        text: t("share.copy"),
        onclick: async () => {
          const ok = await copyText(url, input);
          status.textContent = ok ? t("share.copied") : "";
        },
      }),
      status,
    ]),
  ]);
}

/** The server's rule on rated games between the same two people (docs/community.md), for its words. */
const PAIR_LIMIT = { n: 3, hours: 24 };

/** Why a game asked for as rated counts for no rating (the server's reason code, in words). */
function casualNote(reason) {
  if (reason !== "pair_limit") return null;
  return h("p", { class: "casual-note", role: "note", "data-testid": "casual-note", text: t("game.casual_pair_limit", PAIR_LIMIT) });
}

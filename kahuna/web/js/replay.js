// The replay viewer of a finished game: step, play and jump through the spectator views the
// server sends for every action (GET /api/games/<id>/replay); no rule is re-computed here. A game
// that ended off the board (a resignation, on time, an abort) has no action for its end: its last
// step says how it ended from the game's result, and shows the end summary. The record
// (kahuna-record/1) can be downloaded from the replay at any step.

import { playerNames } from "./account.js";
import { h, s, fill, sleep } from "./dom.js";
import { t } from "./i18n.js";
import { api } from "./api.js";
import { BoardView } from "./board.js";
import { narrateEvent, narrateToken, outcomeWords } from "./narrate.js";
import { downloadLink, playersPanel, summaryPanel, seatMark } from "./panels.js";
import { LastMoves } from "./lastmoves.js";
import { mountAnalysis } from "./analysis.js";
import { ReaderPanel } from "./reader.js";

const PLAY_MS = 700;

const ICONS = {
  first: "M5 4h2v12H5zM17 4v12L8 10z",
  prev: "M15 4v12L6 10z",
  play: "M6 4v12l10-6z",
  pause: "M5 4h4v12H5zM11 4h4v12h-4z",
  next: "M5 4v12l9-6zM15 4h2v12h-2z",
  last: "M3 4v12l9-6zM13 4h2v12h-2z",
};

/** A small media-control icon (drawn, so no font needs the glyph). */
function iconSvg(name) {
  return s("svg", { viewBox: "0 0 20 20", width: 18, height: 18, "aria-hidden": "true" }, [
    s("path", { d: ICONS[name], fill: "currentColor" }),
  ]);
}

export async function mountReplay(root, board, gameId) {
  fill(root, [h("p", { class: "hint", text: t("lobby.loading") })]);
  let data;
  try {
    // Ask for the summary first: a running game has no replay yet, and asking would be an error.
    const summary = await api.summary(gameId);
    if (summary.status !== "over") throw Object.assign(new Error(t("replay.not_over")), { code: "not_over" });
    data = await api.replay(gameId);
  } catch (err) {
    const text =
      err.code === "not_over" || err.status === 409
        ? t("replay.not_over")
        : err.status === 404
          ? t("game.not_found")
          : err.message;
    fill(root, [
      h("div", { class: "lobby" }, [
        h("p", { class: "message", role: "alert", text }),
        h("p", {}, [h("a", { href: `/watch/${encodeURIComponent(gameId)}`, text: t("replay.watch_live") })]),
      ]),
    ]);
    return null;
  }
  return new ReplayViewer(root, board, gameId, data);
}

/** The viewer on the page (a new language mounts a new one): the one the keys move. */
let shown = null;

/** Where each round after the first (and the last turns) begins: [{version, round, final}]. */
function roundStarts(steps) {
  const starts = [];
  for (let k = 1; k < steps.length; k++) {
    const [before, after] = [steps[k - 1].view, steps[k].view];
    const final = after.phase === "final" && before.phase !== "final";
    if (final || (after.phase === "play" && after.round !== before.round))
      starts.push({ version: k, round: after.round, final });
  }
  return starts;
}

class ReplayViewer {
  constructor(root, board, gameId, data) {
    this.data = data;
    this.gameId = gameId;
    this.index = 0;
    this.playing = false;
    this.board = new BoardView(board, () => {});
    // Screen-reader mode (a setting of this browser): each step's position in words, with the
    // close majorities the server sent for it; the step label, a live region, says each step's
    // actions as they are stepped through.
    this.reader = new ReaderPanel(board);
    const last = data.steps.length - 1;
    this.slider = h("input", {
      type: "range",
      id: "replay-slider",
      min: 0,
      max: last,
      value: 0,
      oninput: (e) => this.jump(Number(e.target.value)),
    });
    const button = (id, label, icon, onclick) =>
      h("button", { type: "button", class: "btn icon", id, "aria-label": label, title: label, onclick }, [
        iconSvg(icon),
      ]);
    this.playButton = button("replay-play", t("replay.play"), "play", () => this.togglePlay());
    this.stepLabel = h("p", { class: "replay-step", "aria-live": "polite" });
    this.playersBox = h("div", { class: "players-box" });
    this.summaryBox = h("div", { class: "summary-box" });
    this.logList = h("ol", { class: "log-list replay-log" });
    this.analysisBox = h("section", { class: "analysis", id: "analysis" });
    const controls = h("div", { class: "replay-controls", role: "toolbar", "aria-label": t("replay.controls") }, [
      button("replay-first", t("replay.first"), "first", () => this.jump(0)),
      button("replay-prev", t("replay.prev"), "prev", () => this.jump(this.index - 1)),
      this.playButton,
      button("replay-next", t("replay.next"), "next", () => this.forward()),
      button("replay-last", t("replay.last"), "last", () => this.jump(last)),
      h("label", { for: "replay-slider", class: "visually-hidden", text: t("replay.jump") }),
      this.slider,
    ]);
    fill(root, [
      h("div", { class: "game replay" }, [
        h("div", { class: "table-col" }, [
          h("h1", { class: "banner", text: t("replay.title", { players: playerNames(data.players, data.kinds).join(" – ") }) }),
          h("p", { class: "replay-download", "data-testid": "replay-download" }, [downloadLink(gameId)]),
          this.summaryBox,
          h("div", { class: "board-wrap" }, [this.board.element]),
          controls,
          this.stepLabel,
          this.analysisBox,
        ]),
        h("aside", { class: "side-col" }, [
          this.reader.element,
          this.playersBox,
          h("section", { class: "log" }, [h("h2", { text: t("log.title") }), this.logList]),
        ]),
      ]),
    ]);
    document.title = `${t("replay.title", { players: "" })} — Kahuna`;
    this.renderLog();
    this.analysis = mountAnalysis(this.analysisBox, gameId, last, roundStarts(data.steps), (version) =>
      this.jump(version),
    );
    // The arrow keys, Home and End step through the game wherever focus is on the page (the
    // slider and text fields keep their own keys; a modified key is the browser's).
    if (!shown) document.addEventListener("keydown", (e) => shown?.key(e));
    shown = this;
    this.jump(0);
  }

  key(e) {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    if (["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName)) return;
    const keys = {
      ArrowLeft: () => this.jump(this.index - 1),
      ArrowRight: () => this.forward(),
      Home: () => this.jump(0),
      End: () => this.jump(this.data.steps.length - 1),
    };
    if (keys[e.key]) {
      e.preventDefault();
      keys[e.key]();
    }
  }

  stepText(step) {
    const words = !step.action
      ? t("replay.start")
      : step.events.length
        ? step.events.map(narrateEvent).join(" ")
        : narrateToken(step.action, step.seat_acted);
    const ended = this.endedOffBoard(step);
    return ended ? `${words} ${outcomeWords(ended.winner, ended.reason)}` : words;
  }

  /** The game's result if it ended off the board after this step (its last): no action ended it. */
  endedOffBoard(step) {
    const last = this.data.steps[this.data.steps.length - 1];
    return step === last && this.data.result && !step.view.result ? this.data.result : null;
  }

  renderLog() {
    fill(
      this.logList,
      this.data.steps
        .slice(1)
        .map((step) =>
          h(
            "li",
            { value: step.version, dataset: { version: step.version }, class: `log-item seat${step.seat_acted}` },
            [
              h("span", { class: "log-num", text: `${step.version}.` }),
              h("button", { type: "button", class: "log-jump", onclick: () => this.jump(step.version) }, [
                seatMark(step.seat_acted),
                " ",
                this.stepText(step),
              ]),
            ],
          ),
        ),
    );
  }

  jump(index) {
    const last = this.data.steps.length - 1;
    this.index = Math.max(0, Math.min(last, index));
    this.show();
  }

  /** One step forward with the step's events animated. */
  async forward() {
    if (this.index >= this.data.steps.length - 1) return;
    const step = this.data.steps[this.index + 1];
    for (const ev of step.events) {
      if (ev.type === "bridge_built") this.board.setBridge(ev.line, ev.seat, "arriving");
      else if (ev.type === "island_claimed") this.board.setStone(ev.island, ev.seat, "arriving");
      else if (ev.type === "bridge_returned" || ev.type === "bridge_removed")
        await this.board.takeBridge(ev.line, () => sleep(150));
      else if (ev.type === "stone_lost") await this.board.takeStone(ev.island, () => sleep(150));
    }
    this.jump(this.index + 1);
  }

  async togglePlay() {
    this.playing = !this.playing;
    this.setPlayButton();
    while (this.playing && this.index < this.data.steps.length - 1) {
      await this.forward();
      await sleep(PLAY_MS);
    }
    this.playing = false;
    this.setPlayButton();
  }

  setPlayButton() {
    const label = t(this.playing ? "replay.pause" : "replay.play");
    fill(this.playButton, [iconSvg(this.playing ? "pause" : "play")]);
    this.playButton.setAttribute("aria-label", label);
    this.playButton.title = label;
  }

  show() {
    const step = this.data.steps[this.index];
    const ended = this.endedOffBoard(step);
    const view = ended ? { ...step.view, result: ended } : step.view;
    // A jump grows the new bridges and stones in (unless motion is reduced) and marks what the
    // step changed, as the live game marks the last turn.
    this.board.render(view, !matchMedia("(prefers-reduced-motion: reduce)").matches);
    const marks = new LastMoves();
    marks.startAction();
    for (const ev of step.events) marks.note(ev);
    this.board.showLastMoves(marks.changes);
    this.slider.value = String(this.index);
    this.analysis.show(this.index);
    const last = this.data.steps.length - 1;
    const round = view.phase === "final" ? t("game.final_turns") : t("game.round", { n: view.round });
    this.stepLabel.textContent = `${t("replay.step", { k: this.index, n: last })} · ${round} — ${this.stepText(step)}`;
    // A finished game's record is public: each step's hands are shown face up (as known cards).
    const shown = step.hands ? { ...view, known: step.hands } : view;
    fill(this.playersBox, playersPanel(shown, playerNames(this.data.players, this.data.kinds), null, null));
    this.reader.render(view, null, [], false, { close: step.close || [] }, step.hands || null);
    if (view.result)
      fill(
        this.summaryBox,
        summaryPanel(view, playerNames(this.data.players, this.data.kinds), [
          h("a", { href: "/", class: "btn", text: t("summary.new_game") }),
        ]),
      );
    else this.summaryBox.replaceChildren();
    for (const li of this.logList.children) li.classList.toggle("current", Number(li.dataset.version) === this.index);
    const currentItem = this.logList.querySelector(".current");
    if (currentItem) currentItem.scrollIntoView({ block: "nearest" });
  }
}

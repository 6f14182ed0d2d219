// The puzzles' page (/puzzles, /puzzles?daily, /puzzles?streak): find the best turn of a seat's
// view. The board, hand, display, action buttons, typed notation and the reader mode are the game
// page's own (GamePage), given a connection that answers over HTTP: every action is sent as the
// attempt so far, and the server's referee says whether it is legal (its reason, translated as
// in a game), right so far (the board goes on with the view it sends), or the answer (right or
// wrong, the solution, the rating change; the board then shows the position the answer reached, and
// after a miss the solution's on request, both views sent by the server). The browser never holds
// the solution before answering.

import { h, fill } from "./dom.js";
import { t, onLanguageChange } from "./i18n.js";
import { api, ApiError } from "./api.js";
import { GamePage } from "./game.js";
import { narrateToken } from "./narrate.js";

/** A connection for GamePage: `act` posts the actions so far plus `token` to the attempt. */
class PuzzleConnection {
  constructor(shown, onMessage, onState, onAnswer) {
    this.shown = shown;
    this.onMessage = onMessage;
    this.onAnswer = onAnswer;
    this.actions = [];
    this.view = shown.view;
    this.foreseen = shown.foreseen ?? null; // what the referee foresees now (the reader's lists)
    this.version = 0;
    this.nextId = 1;
    this.done = false;
    setTimeout(() => {
      onState("open");
      onMessage({ ...this.frame("sync", shown.view, shown.legal), chat: [], clock: null, players: null, kinds: null });
    });
  }

  frame(type, view, legal, events = []) {
    return { type, seat: this.shown.view.seat, seat_acted: this.shown.view.seat, view, legal, events, version: this.version, status: "playing" };
  }

  /** Put another position on the board (the solution's, or back to the answer's), without a move. */
  show(view) {
    this.version += 1;
    this.foreseen = null;
    this.onMessage({ ...this.frame("sync", view, []), chat: [], clock: null, players: null, kinds: null });
  }

  /** The reader's `foresee` is answered from what the server sent with the position (`foreseen`),
   * as a game's socket answers it; nothing else to say: no chat, clock or resignation here. */
  send(msg) {
    if (msg?.type === "foresee" && this.foreseen && msg.version === this.version) {
      const found = { type: "foreseen", version: this.version, ...this.foreseen };
      setTimeout(() => this.onMessage(found));
    }
    return true;
  }

  act(token) {
    const id = `p${this.nextId++}`;
    if (this.done) return null;
    const tried = [...this.actions, token];
    api
      .attemptPuzzle(this.shown.puzzle_id, tried)
      .then((answer) => {
        this.actions = tried;
        this.version += 1;
        if (answer.correct === null) {
          this.view = answer.view;
          this.foreseen = answer.foreseen ?? null;
          this.onMessage(this.frame("update", answer.view, answer.legal, answer.events));
          this.onAnswer(null, token);
          return;
        }
        this.done = true;
        this.foreseen = null;
        // The board goes on to where the answer led (the server's view after it), as a game's would.
        this.view = answer.view;
        this.onMessage(this.frame("update", answer.view, [], answer.events));
        this.onAnswer(answer, token);
      })
      .catch((err) => {
        const msg = { type: "error", id, code: err instanceof ApiError ? err.code : "offline", message: err.message };
        if (err instanceof ApiError && err.reason) msg.reason = err.reason;
        if (err instanceof ApiError && err.retryAfter) msg.retry_after = err.retryAfter;
        this.onMessage(msg);
      });
    return id;
  }
}

/** The panel above the board: the task, the themes after answering, the verdict, the rating
 * change, the solution on request, "next", and the streak's count. */
class PuzzlePanel {
  constructor(mode, onNext, onBoard) {
    this.mode = mode;
    this.onNext = onNext;
    this.onBoard = onBoard;
    this.streak = 0;
    // The verdict is one live region for the page's life, only its words change: a region put in
    // anew with its words already in it is not read by every screen reader.
    this.head = h("div");
    this.verdict = h("p", { class: "puzzle-verdict", role: "status", "aria-live": "polite", "data-testid": "puzzle-verdict" });
    this.rest = h("div");
    this.element = h("section", { class: "puzzle-panel card-panel", "aria-labelledby": "puzzle-title" }, [this.head, this.verdict, this.rest]);
    this.shown = null;
    this.answer = null;
    this.steps = [];
    this.solutionOpen = false;
    this.onSolution = false; // after a miss, the board shows the solution's position instead of the answer's
  }

  start(shown) {
    Object.assign(this, { shown, answer: null, steps: [], solutionOpen: false, onSolution: false });
    this.render();
  }

  step(answer, token) {
    if (answer === null) this.steps.push(token);
    else {
      this.answer = answer;
      if (this.mode === "streak") this.streak = answer.correct ? this.streak + 1 : this.streak;
    }
    this.render();
  }

  /** Show the solution's position on the board (`true`) or the answer's, and say which. */
  board(onSolution) {
    if (onSolution !== this.onSolution) this.onBoard(onSolution ? this.answer.solution_view : this.answer.view);
    this.onSolution = onSolution;
    this.render();
  }

  render() {
    if (!this.shown) return;
    const answer = this.answer;
    const title = this.mode === "daily" ? t("puzzle.daily") : this.mode === "streak" ? t("puzzle.streak") : t("puzzle.title");
    const parts = [
      h("h1", { id: "puzzle-title", text: title }),
      h("p", { "data-testid": "puzzle-task", text: t("puzzle.task", { rating: this.shown.rating }) }),
    ];
    if (this.mode === "streak") parts.push(h("p", { "data-testid": "puzzle-streak", text: t("puzzle.streak_count", { n: this.streak }) }));
    fill(this.head, parts);
    const verdict = this.verdict;
    const words = answer !== null ? t(answer.correct ? "puzzle.right" : "puzzle.wrong") : this.steps.length ? t("puzzle.so_far", { n: this.steps.length }) : "";
    if (verdict.textContent !== words) verdict.textContent = words;
    verdict.classList.toggle("right", answer?.correct === true);
    verdict.classList.toggle("wrong", answer?.correct === false);
    parts.length = 0;
    if (answer !== null) {
      parts.push(h("p", { "data-testid": "puzzle-themes", text: t("puzzle.themes", { themes: this.shown.themes.map((x) => t(`theme.${x}`)).join(", ") }) }));
      const rating = answer.rating
        ? t("puzzle.rating_change", { before: answer.rating.before, after: answer.rating.after })
        : t("puzzle.not_rated");
      parts.push(h("p", { "data-testid": "puzzle-rating", text: rating }));
      if (!answer.correct) parts.push(h("p", { class: "hint", "data-testid": "puzzle-board", text: this.onSolution ? t("puzzle.showing_solution") : t("puzzle.showing_answer") }));
      const solution = this.solutionOpen
        ? h("p", { "data-testid": "puzzle-solution", text: t("puzzle.solution", { turn: answer.solution.map((x) => `${x} (${narrateToken(x, this.shown.view.seat)})`).join(", ") }) })
        : h("button", { class: "btn", type: "button", "data-testid": "show-solution", text: t("puzzle.show_solution"), onclick: () => { this.solutionOpen = true; this.board(!answer.correct); } });
      // After a miss, the board can show the solution's position or the one the answer reached.
      const toggle = this.solutionOpen && !answer.correct
        ? h("button", {
            class: "btn",
            type: "button",
            "data-testid": "board-toggle",
            text: this.onSolution ? t("puzzle.board_answer") : t("puzzle.board_solution"),
            onclick: () => this.board(!this.onSolution),
          })
        : null;
      const last = this.mode === "streak" && !answer.correct;
      parts.push(
        h("div", { class: "puzzle-buttons" }, [
          solution,
          ...(toggle ? [toggle] : []),
          h("button", {
            class: "btn primary",
            type: "button",
            "data-testid": "next-puzzle",
            text: last ? t("puzzle.streak_again") : t("puzzle.next"),
            onclick: () => this.onNext(last),
          }),
        ]),
      );
    }
    parts.push(
      h("p", { class: "hint" }, [
        h("a", { href: "/puzzles", text: t("puzzle.title") }),
        " · ",
        h("a", { href: "/puzzles?daily", text: t("puzzle.daily") }),
        " · ",
        h("a", { href: "/puzzles?streak", text: t("puzzle.streak") }),
      ]),
    );
    fill(this.rest, parts);
  }
}

export function mountPuzzles(root, board) {
  const params = new URLSearchParams(location.search);
  const mode = params.has("daily") ? "daily" : params.has("streak") ? "streak" : "rated";
  document.title = `${t("puzzle.title")} — Kahuna`;
  // A streak carries its count and the last puzzle's rating in the address: each puzzle is a page
  // of its own (one game page per load, as everywhere).
  const above = mode === "streak" && params.has("above") ? Number(params.get("above")) : null;
  const host = h("div", { class: "puzzle-game" });
  const message = h("p", { class: "message", role: "alert" });
  let connection = null;
  const panel = new PuzzlePanel(
    mode,
    (restart) => {
      if (mode !== "streak") location.assign("/puzzles");
      else if (restart) location.assign("/puzzles?streak");
      else location.assign(`/puzzles?streak&above=${panel.shown.rating}&n=${panel.streak}`);
    },
    (view) => connection?.show(view),
  );
  panel.streak = mode === "streak" ? Number(params.get("n")) || 0 : 0;
  fill(root, [h("div", { class: "puzzle-page" }, [panel.element, message, host])]);
  onLanguageChange(() => panel.render());

  async function load() {
    let shown;
    try {
      shown = mode === "daily" ? await api.dailyPuzzle() : await api.nextPuzzle(Number.isFinite(above) ? above : null);
    } catch (err) {
      message.textContent = err instanceof ApiError && err.status === 404 ? t("puzzle.none") : t("lobby.offline");
      return;
    }
    panel.start(shown);
    const connect = (_token, onMessage, onState) => {
      connection = new PuzzleConnection(shown, onMessage, onState, (answer, token) => panel.step(answer, token));
      return connection;
    };
    new GamePage(host, board, `puzzle-${shown.puzzle_id}`, ["puzzle"], false, connect);
  }

  load();
}

/** The home page's puzzle of the day: a link with its rating. */
export function dailyPuzzleCard() {
  const card = h("section", { class: "card-panel daily-puzzle", "aria-labelledby": "daily-title", "data-testid": "daily-puzzle" }, [
    h("h2", { id: "daily-title", text: t("puzzle.daily") }),
  ]);
  api
    .dailyPuzzle()
    .then((shown) => {
      card.append(
        h("p", { text: t("puzzle.task", { rating: shown.rating }) }),
        h("a", { class: "btn primary", href: "/puzzles?daily", text: t("puzzle.solve") }),
      );
    })
    .catch(() => card.remove());
  return card;
}

/** A profile's puzzles: the rating and the latest answers, each saying whether the puzzle is
 * retired (the site's puzzle set no longer holds it: never offered again, though the answer still
 * counts). The answers are not links: a puzzle is played only as the next one, the daily one or a
 * streak's, so a retired one is never opened from here, and the words say why it will not come. */
export function puzzleHistory(username) {
  // Named by its heading once it has one: an empty box is hidden and names nothing.
  const box = h("section", { class: "puzzle-history", "data-testid": "puzzle-history", hidden: true });
  api
    .puzzleHistory(username)
    .then((found) => {
      if (!found.answers.length) return;
      box.setAttribute("aria-labelledby", "puzzle-history-title");
      box.hidden = false;
      fill(box, [
        h("h2", { id: "puzzle-history-title", text: t("puzzle.history", { rating: found.rating }) }),
        h(
          "ul",
          {},
          found.answers.map((a) =>
            h("li", { "data-puzzle": a.puzzle_id }, [
              `${a.correct ? t("puzzle.right") : t("puzzle.wrong")} ${a.before} → ${a.after} (${a.themes.map((x) => t(`theme.${x}`)).join(", ")})`,
              ...(a.retired ? [" ", h("span", { class: "hint", "data-testid": "puzzle-retired", text: t("puzzle.retired") })] : []),
            ]),
          ),
        ),
      ]);
    })
    .catch(() => box.remove());
  return box;
}

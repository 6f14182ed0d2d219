// The interactive tutorial: a first game on a scripted deal (the server's "tutorial" game: a
// hot-seat game with a fixed deal), with the real board and the real referee. The player is
// Black; this script plays White's moves through White's own seat, and lets Black play only the
// move each lesson teaches: building, drawing, a claim with its sweep, the cascade, removing with
// two cards and the 5-card limit. The referee still judges every action: a scripted move that it
// refused would show its reason like any other.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { narrateToken } from "./narrate.js";

/**
 * The whole script: the token at each position of the history. Black's steps carry the lesson
 * shown while Black is to play it; White's are played by the tutor. The deal is the server's
 * TUTORIAL_DEAL (kahuna/server/tutorial.py); a Python test replays this script with the referee.
 */
export const SCRIPT = [
  { token: "A>B", lesson: "tutorial.build" },
  { token: "dD", lesson: "tutorial.take" },
  { token: "H>A" },
  { token: "D>H" },
  { token: "d?" },
  { token: "d?", lesson: "tutorial.deck" },
  { token: "L>H" },
  { token: "d?" },
  { token: "d?", lesson: "tutorial.claimed" },
  { token: "d?" },
  { token: "-K", lesson: "tutorial.limit" },
  { token: "d?", lesson: "tutorial.limit_draw" },
  { token: "d?" },
  { token: "A>D", lesson: "tutorial.sweep" },
  { token: "xDH:DH", lesson: "tutorial.remove" },
  { token: "d?", lesson: "tutorial.end_turn" },
];

/** Pause before each of the tutor's moves, so the player sees them one by one. */
const TUTOR_MS = 900;

export class Tutorial {
  /**
   * actForWhite(token, version) plays a token for White (the tutor's seat); resignForWhite()
   * ends the game once the script is over, so that no game is left waiting for White's move.
   */
  constructor(actForWhite, resignForWhite) {
    this.actForWhite = actForWhite;
    this.resignForWhite = resignForWhite;
    this.timer = null;
    this.ended = false;
  }

  /** The script's step at this point of the game (null once the script is over). */
  step(version) {
    return version < SCRIPT.length ? SCRIPT[version] : null;
  }

  /** Whether Black may play token now: only the move the lesson teaches. */
  allows(token, version) {
    return this.step(version)?.token === token;
  }

  /** After each update: if it is White's scripted move, play it after a pause; at the end, resign. */
  advance(view) {
    clearTimeout(this.timer);
    if (view.result) return;
    const step = this.step(view.history.length);
    if (!step && !this.ended) {
      this.ended = true;
      this.resignForWhite();
    }
    if (!step || view.to_move !== 1) return;
    this.timer = setTimeout(() => this.actForWhite(step.token, view.history.length), TUTOR_MS);
  }

  /** Why a move the referee would allow is not taken now: the lesson waits for its own move. */
  refusal(version) {
    const step = this.step(version);
    return step?.lesson ? t("tutorial.not_this", { move: narrateToken(step.token, 0) }) : t("tutorial.follow");
  }

  /** The lesson panel for this point of the game. */
  panel(view) {
    const version = view.history.length;
    const step = this.step(version);
    const done = version >= SCRIPT.length;
    const key = done ? "tutorial.done" : step.lesson || "tutorial.watch";
    const lessons = SCRIPT.filter((s) => s.lesson).length;
    const number = SCRIPT.slice(0, version + 1).filter((s) => s.lesson).length;
    return h("section", { class: "tutorial", "data-testid": "tutorial", "aria-live": "polite" }, [
      h("h2", { text: done ? t("tutorial.title_done") : t("tutorial.title", { k: number, n: lessons }) }),
      h("p", { class: "tutorial-text", text: t(key) }),
      done
        ? h("p", {}, [
            h("a", { href: "/", class: "btn primary", id: "tutorial-play", text: t("tutorial.play") }),
            " ",
            h("a", { href: "/rules", class: "btn", text: t("nav.rules") }),
          ])
        : null,
    ]);
  }
}

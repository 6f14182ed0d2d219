// The post-game analysis in the replay page (docs/analysis.md): a player of the game can ask the
// server for it; everyone can follow its progress and, once it is done, sees the win-probability
// graph (with its axes and where each round begins) with the classed moves of both seats marked,
// and those moves listed in words with the better move. Points, marks and list entries jump the
// replay there. Nothing is computed here: the server sends the graph (from the spectator's view)
// and the classes (each from its mover's own view).

import { h, s, fill, sleep } from "./dom.js";
import { t, colourName } from "./i18n.js";
import { api } from "./api.js";
import { seatsOf } from "./store.js";
import { currentAccount } from "./account.js";
import { narrateToken } from "./narrate.js";
import { seatMark } from "./panels.js";

function say(key, params = {}) {
  return t(`analysis.${key}`, params);
}

// Marks of the classed moves: a size as well as a colour (and each names its class when focused);
// Black's are diamonds and White's circles, as ◆ and ● mark the seats everywhere.
const MARKS = {
  inaccuracy: { fill: "#e0b000", r: 3 },
  mistake: { fill: "#e07000", r: 4 },
  blunder: { fill: "#c23b22", r: 5 },
};
const WIDTH = 600;
const HEIGHT = 180;
/** Room around the plot: the y axis's labels on the left, the x axis's below, round names above. */
const PAD = { left: 36, right: 8, top: 16, bottom: 22 };
/** The classes listed in words, worst first in each seat's eyes. */
const LISTED = ["blunder", "mistake", "inaccuracy"];

/** Whether the signed-in account (if any) holds a seat of the game: its newest games, listed by the server. */
async function accountHolds(gameId) {
  if (!(await currentAccount())) return false;
  return (await api.accountGames()).some((game) => game.game_id === gameId);
}

/**
 * Mount the panel into box; rounds are where each round begins ([{version, round, final}]);
 * jump(version) moves the replay. Returns {show(version)}.
 */
export function mountAnalysis(box, gameId, lastVersion, rounds, jump) {
  const panel = new AnalysisPanel(box, gameId, lastVersion, rounds, jump);
  panel.load();
  return panel;
}

class AnalysisPanel {
  constructor(box, gameId, lastVersion, rounds, jump) {
    this.box = box;
    this.gameId = gameId;
    this.last = Math.max(1, lastVersion);
    this.rounds = rounds;
    this.jump = jump;
    this.token = seatsOf(gameId).map((seat) => seat.token)[0] || null;
    // Whether this browser may start the analysis: a seat token, or a seat of the signed-in account.
    this.player = Boolean(this.token);
    this.cursor = null;
    this.version = 0;
  }

  async load() {
    try {
      if (!this.player) this.player = await accountHolds(this.gameId);
      const status = await api.analysis(this.gameId);
      this.render(status);
      if (status.state === "running") await this.poll();
    } catch (err) {
      this.message(err.message);
    }
  }

  /** Ask for the analysis (a player), then follow it. */
  async start() {
    try {
      this.render(await api.requestAnalysis(this.gameId, this.token));
      await this.poll();
    } catch (err) {
      this.message(err.code === "analysis_quota" ? say("quota") : err.message);
    }
  }

  /** Show the progress until the analysis is no longer running. */
  async poll() {
    for (;;) {
      await sleep(1000);
      const status = await api.analysis(this.gameId);
      this.render(status);
      if (status.state !== "running") return;
    }
  }

  message(text) {
    fill(this.box, [h("h2", { text: say("title") }), h("p", { class: "message", role: "alert", text })]);
  }

  render(status) {
    const parts = [h("h2", { text: say("title") })];
    if (status.state === "none" || status.state === "failed") {
      parts.push(h("p", { class: "hint", text: say(status.state === "failed" ? "failed" : "none") }));
      if (this.player)
        parts.push(h("button", { type: "button", class: "btn", id: "analysis-ask", onclick: () => this.start() }, [say("ask")]));
    } else if (status.state === "running") {
      const text = say("running", { done: status.done, total: status.total });
      parts.push(
        h("progress", { id: "analysis-progress", max: status.total, value: status.done, "aria-label": text }),
        h("p", { class: "hint", "aria-live": "polite", text }),
      );
    } else {
      parts.push(h("p", { class: "hint graph-caption", text: say("axes") }), this.graph(status.graph, status.moves));
      for (const seat of [0, 1])
        parts.push(
          h("p", { class: "analysis-summary", text: say("summary", { who: colourName(seat), ...status.summary[seat] }) }),
        );
      parts.push(this.mistakes(status.moves));
    }
    fill(this.box, parts);
    this.show(this.version);
  }

  x(version) {
    return PAD.left + ((WIDTH - PAD.left - PAD.right) * version) / this.last;
  }

  y(black) {
    return PAD.top + (HEIGHT - PAD.top - PAD.bottom) * (1 - black);
  }

  /** The axes: Black's chance (0, 50, 100 %) on the left, the actions below, and the rounds' starts. */
  axes() {
    const [bottom, top] = [this.y(0), this.y(1)];
    const text = (x, y, anchor, words, cls = "graph-label") =>
      s("text", { x, y, "text-anchor": anchor, class: cls, text: words });
    const nodes = [
      s("line", { x1: PAD.left, x2: PAD.left, y1: top, y2: bottom, class: "graph-axis" }),
      s("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: bottom, y2: bottom, class: "graph-axis" }),
    ];
    for (const p of [0, 0.5, 1])
      nodes.push(
        s("line", { x1: PAD.left - 4, x2: PAD.left, y1: this.y(p), y2: this.y(p), class: "graph-axis" }),
        text(PAD.left - 6, this.y(p) + 3, "end", `${100 * p} %`),
      );
    // About eight labelled ticks on the action axis, at round numbers.
    const every = [5, 10, 20, 25, 50, 100, 200].find((n) => this.last / n <= 8) || 500;
    for (let k = 0; k <= this.last; k += every)
      nodes.push(
        s("line", { x1: this.x(k), x2: this.x(k), y1: bottom, y2: bottom + 4, class: "graph-axis" }),
        text(this.x(k), bottom + 14, "middle", String(k)),
      );
    for (const start of this.rounds) {
      const x = this.x(start.version - 0.5);
      const name = start.final ? t("game.final_turns") : t("game.round", { n: start.round });
      const right = x > WIDTH * 0.8; // near the end the name goes left of its line
      nodes.push(
        s("line", { x1: x, x2: x, y1: top - 4, y2: bottom, class: "graph-round", "data-version": start.version }),
        text(right ? x - 3 : x + 3, top - 5, right ? "end" : "start", name, "graph-label graph-round-name"),
      );
    }
    return nodes;
  }

  /** The classed moves in words, in the game's order: what was played, and the better move. */
  mistakes(moves) {
    const listed = moves.filter((m) => LISTED.includes(m.class));
    const items = listed.map((move) => {
      const k = move.step + 1;
      const words = say("mistake_line", {
        k,
        cls: say(move.class),
        played: narrateToken(move.played, move.seat),
        best: narrateToken(move.best, move.seat),
        loss: Math.round(100 * (move.loss ?? 0)),
      });
      return h("li", { class: `mistake ${move.class}` }, [
        h("button", { type: "button", class: "log-jump mistake-jump", dataset: { version: k }, onclick: () => this.jump(k) }, [
          seatMark(move.seat),
          " ",
          words,
        ]),
      ]);
    });
    return h("section", { class: "mistakes", "data-testid": "mistakes", "aria-labelledby": "mistakes-title" }, [
      h("h3", { id: "mistakes-title", text: say("mistakes_title") }),
      items.length ? h("ol", { class: "log-list mistake-list" }, items) : h("p", { class: "hint", text: say("no_mistakes") }),
    ]);
  }

  /** A focusable SVG element that jumps the replay to version on click, Enter or Space. */
  jumper(tag, attrs, version, label) {
    const go = () => this.jump(version);
    return s(
      tag,
      {
        ...attrs,
        tabindex: 0,
        role: "button",
        "aria-label": label,
        dataset: { version },
        onclick: go,
        onkeydown: (e) => {
          if (e.key === "Enter" || e.key === " ") {
            e.preventDefault();
            go();
          }
        },
      },
      [s("title", {}, [label])],
    );
  }

  graph(points, moves) {
    const line = points.map((p) => `${this.x(p.step).toFixed(1)},${this.y(p.black).toFixed(1)}`).join(" ");
    const byStep = new Map(points.map((p) => [p.step, p.black]));
    const nodes = [
      s("rect", { x: 0, y: 0, width: WIDTH, height: HEIGHT, class: "graph-frame" }),
      s("line", {
        x1: PAD.left,
        x2: WIDTH - PAD.right,
        y1: this.y(0.5),
        y2: this.y(0.5),
        stroke: "#d9ceb2",
        "stroke-dasharray": "4 3",
      }),
      ...this.axes(),
      s("polyline", { points: line, fill: "none", stroke: "#17566f", "stroke-width": 2 }),
    ];
    // Each classed move sits on the curve at the turn it was played in (the last point before it),
    // under the points so that both stay clickable.
    let before = points.length ? points[0].black : 0.5;
    for (const move of moves) {
      if (byStep.has(move.step)) before = byStep.get(move.step);
      const mark = MARKS[move.class];
      if (!mark) continue;
      const label = say("move", {
        who: colourName(move.seat),
        k: move.step + 1,
        played: move.played,
        cls: say(move.class),
        best: move.best,
      });
      const cx = this.x(move.step);
      const cy = this.y(before);
      const r = mark.r;
      const shape =
        move.seat === 0
          ? ["polygon", { points: `${cx},${cy - r - 1} ${cx + r + 1},${cy} ${cx},${cy + r + 1} ${cx - r - 1},${cy}` }]
          : ["circle", { cx, cy, r }];
      nodes.push(
        this.jumper(
          shape[0],
          { ...shape[1], fill: mark.fill, stroke: "#1d2a31", class: `analysis-move ${move.class} seat${move.seat}` },
          move.step + 1,
          label,
        ),
      );
    }
    for (const p of points)
      nodes.push(
        this.jumper(
          "circle",
          { cx: this.x(p.step), cy: this.y(p.black), r: 2.5, fill: "#17566f", class: "analysis-point" },
          p.step,
          say("point", { k: p.step, p: Math.round(100 * p.black) }),
        ),
      );
    this.cursor = s("line", {
      y1: this.y(1),
      y2: this.y(0),
      stroke: "#ff8c00",
      "stroke-width": 1.5,
      x1: PAD.left,
      x2: PAD.left,
    });
    nodes.push(this.cursor);
    return s("svg", {
      id: "analysis-graph",
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      width: "100%",
      role: "group",
      "aria-label": say("axis"),
    }, nodes);
  }

  /** Mark the replay's current version on the graph. */
  show(version) {
    this.version = version;
    if (!this.cursor || !this.cursor.isConnected) return;
    const x = this.x(version).toFixed(1);
    this.cursor.setAttribute("x1", x);
    this.cursor.setAttribute("x2", x);
  }
}

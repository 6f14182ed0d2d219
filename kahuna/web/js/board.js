// The archipelago as SVG, drawn from board.json: islands, dotted lines, bridges, stones, and the
// highlights through which a player picks a line or a bridge. It shows; it never judges legality.

import { s } from "./dom.js";
import { islandOutline, smoothPath } from "./islands.js";
import { t, colourName } from "./i18n.js";
import { DRAWING_LAYOUT, islandRadius } from "./layout.js";

const SCALE = 1000;
/** Room around the outermost islands for their shallows and labels (drawing units). */
const MARGIN = 72;
/** The smallest tap target on screen for a lit line or bridge, in CSS pixels (WCAG 2.5.5). */
const TARGET_PX = 44;

/** A rectangle of width w around the segment (x1,y1)–(x2,y2), as path data: a click target with area. */
function band(x1, y1, x2, y2, w) {
  const len = Math.hypot(x2 - x1, y2 - y1) || 1;
  const [nx, ny] = [(-(y2 - y1) / len) * (w / 2), ((x2 - x1) / len) * (w / 2)];
  const pt = (x, y) => `${x.toFixed(1)},${y.toFixed(1)}`;
  return `M${pt(x1 + nx, y1 + ny)}L${pt(x2 + nx, y2 + ny)}L${pt(x2 - nx, y2 - ny)}L${pt(x1 - nx, y1 - ny)}Z`;
}

const radius = islandRadius;

/** The view box that shows every island with its label and nothing more. */
function viewBoxOf(board) {
  const xs = board.islands.map((i) => DRAWING_LAYOUT[i.letter].x * SCALE);
  const ys = board.islands.map((i) => DRAWING_LAYOUT[i.letter].y * SCALE);
  const [x0, y0] = [Math.min(...xs) - MARGIN, Math.min(...ys) - MARGIN - 24];
  const [x1, y1] = [Math.max(...xs) + MARGIN, Math.max(...ys) + MARGIN + 22];
  return [x0, y0, x1 - x0, y1 - y0].map((v) => Math.round(v)).join(" ");
}

/** The largest size an island name is drawn at (the phone's, in drawing units), for placing names. */
const NAME_SIZE = 30;
/** A bold capital's width in ems, spacing included (most are 0.86; these are narrower). */
const LETTER_EMS = { I: 0.45, J: 0.55, E: 0.7, F: 0.7, L: 0.7 };

/** Where each island's name goes (computed once: the drawing never changes). */
const PLACES = new Map();
/** The room kept between a name and any bridge or other island (drawing units; a stick is 14 wide). */
const NAME_CLEARANCE = 12;
/** Directions around an island to try a name in, most preferred first (degrees, 90 = below). */
const NAME_ANGLES = [90, 270, 0, 180, 45, 135, 315, 225, 67.5, 112.5, 22.5, 157.5, 292.5, 247.5, 337.5, 202.5];

/** The smallest distance between the segment a–b and the box (sampled: both are small). */
function clearance([ax, ay], [bx, by], box) {
  let best = Infinity;
  for (let k = 0; k <= 1; k += 0.01) {
    const [x, y] = [ax + k * (bx - ax), ay + k * (by - ay)];
    best = Math.min(best, Math.hypot(Math.max(box.x0 - x, 0, x - box.x1), Math.max(box.y0 - y, 0, y - box.y1)));
  }
  return best;
}

/**
 * Where an island's name goes: beside the island in the first direction (below, above, right,
 * left, the diagonals, then between them; close, then a little further out) where it keeps
 * NAME_CLEARANCE from every bridge's stick, at its largest size (the phone's), and reads as this
 * island's (clearly nearer to it than to any other) inside the drawing; where no place does, the
 * one with the most room among those that read right. So no bridge is drawn on a name.
 */
function labelPlace(board, sticks, centre, island) {
  const [cx, cy] = centre(island.letter);
  const r = islandRadius(island);
  // The text's box: its width from its letters, 1.2 ems high, the baseline 0.23 ems above its foot.
  const w = [...island.name].reduce((sum, letter) => sum + (LETTER_EMS[letter] ?? 0.86), 0) * NAME_SIZE;
  const h = NAME_SIZE * 1.2;
  const others = board.islands.filter((o) => o !== island).map((o) => [centre(o.letter), islandRadius(o)]);
  const [vx, vy, vw, vh] = viewBoxOf(board).split(" ").map(Number);
  const inside = (box) => box.x0 >= vx && box.x1 <= vx + vw && box.y0 >= vy && box.y1 <= vy + vh;
  const places = [];
  for (const gap of [4, 16]) {
    for (const degrees of NAME_ANGLES) {
      const [c, s] = [Math.cos((degrees * Math.PI) / 180), Math.sin((degrees * Math.PI) / 180)];
      const [px, py] = [cx + (r + gap) * c, cy + (r + gap) * s];
      const anchor = c > 0.3 ? "start" : c < -0.3 ? "end" : "middle";
      const x0 = anchor === "start" ? px : anchor === "end" ? px - w : px - w / 2;
      const y1 = s > 0.3 ? py + h : s < -0.3 ? py : py + h / 2;
      const box = { x0, x1: x0 + w, y0: y1 - h, y1 };
      const room = Math.min(...sticks.map(([a, b]) => clearance(a, b, box)));
      const own = clearance([cx, cy], [cx, cy], box) - r;
      const ours =
        inside(box) && Math.min(...others.map(([at, radius]) => clearance(at, at, box) - radius)) > own + NAME_SIZE * 0.66;
      places.push({ x: anchor === "start" ? x0 : anchor === "end" ? x0 + w : px, y: y1 - NAME_SIZE * 0.23, anchor, room, ours });
    }
  }
  const roomiest = (list) => list.reduce((a, b) => (b.room > a.room ? b : a));
  const readable = places.filter((p) => p.ours);
  return readable.find((p) => p.room >= NAME_CLEARANCE) || roomiest(readable.length ? readable : places);
}

export class BoardView {
  /**
   * board: the parsed board.json; onPick(token) is called when a highlighted line or bridge is
   * chosen, onLine(line) when any other line or bridge is clicked (so the page can say why not).
   */
  constructor(board, onPick, onLine = null) {
    this.board = board;
    this.onPick = onPick;
    this.onLine = onLine || (() => {});
    this.islands = new Map(board.islands.map((i) => [i.letter, i]));
    this.bridges = {};
    this.stones = {};
    this.marks = [];
    this.offered = null;
    this.spot = null;
    this.element = s("svg", {
      viewBox: viewBoxOf(board),
      class: onLine ? "board explains" : "board", // its lines and bridges answer a click (a pointer cursor)
      role: "group",
      "aria-label": t("board.label"),
    });
    // The sea reaches far beyond the view box: a board box wider than the drawing shows sea, not seams.
    this.element.append(
      this.defs(),
      s("rect", { x: -SCALE, y: -SCALE, width: 3 * SCALE, height: 3 * SCALE, fill: "url(#sea)" }),
    );
    this.lineLayer = s("g", { class: "lines" });
    this.islandLayer = s("g", { class: "islands" });
    this.markLayer = s("g", { class: "last-moves" });
    this.bridgeLayer = s("g", { class: "bridges" });
    this.labelLayer = s("g", { class: "labels", "aria-hidden": "true" });
    this.stoneLayer = s("g", { class: "stones" });
    this.pickLayer = s("g", { class: "picks" });
    this.ghostLayer = s("g", { class: "last-moves ghosts" });
    this.element.append(
      this.lineLayer,
      this.islandLayer,
      this.markLayer,
      this.bridgeLayer,
      this.labelLayer,
      this.stoneLayer,
      this.ghostLayer,
      this.pickLayer,
    );
    this.drawWaves();
    for (const line of board.lines) this.drawLine(line);
    for (const island of board.islands) this.drawIsland(island);
  }

  defs() {
    return s("defs", {}, [
      s("radialGradient", { id: "sea", gradientUnits: "userSpaceOnUse", cx: 540, cy: 580, r: 620 }, [
        s("stop", { offset: "0%", "stop-color": "#3a9cc0" }),
        s("stop", { offset: "100%", "stop-color": "#1b5f7e" }),
      ]),
      s("radialGradient", { id: "land", cx: "45%", cy: "40%", r: "70%" }, [
        s("stop", { offset: "0%", "stop-color": "#7fb35a" }),
        s("stop", { offset: "100%", "stop-color": "#4d8a3c" }),
      ]),
    ]);
  }

  centre(letter) {
    const at = DRAWING_LAYOUT[letter];
    return [at.x * SCALE, at.y * SCALE];
  }

  drawWaves() {
    const waves = s("g", { class: "waves", "aria-hidden": "true" });
    for (let k = 0; k < 14; k++) {
      const x = 80 + ((k * 263) % 860);
      const y = 190 + ((k * 151) % 740);
      waves.append(s("path", { d: `M${x},${y} q8,-6 16,0 t16,0` }));
    }
    this.lineLayer.append(waves);
  }

  drawLine(line) {
    const [x1, y1] = this.centre(line[0]);
    const [x2, y2] = this.centre(line[1]);
    this.lineLayer.append(
      s("g", { class: "route-group", dataset: { line }, onclick: () => this.onLine(line) }, [
        s("line", { x1, y1, x2, y2, class: "route" }),
        s("path", { d: band(x1, y1, x2, y2, 22), class: "hit" }),
      ]),
    );
  }

  /** Titles in the current language (after a language change). */
  relabel() {
    this.element.setAttribute("aria-label", t("board.label"));
    for (const g of this.islandLayer.querySelectorAll(".island")) {
      const island = this.islands.get(g.dataset.island);
      g.querySelector("title").textContent = t("board.island", {
        name: island.name,
        letter: island.letter,
        lines: island.lines,
      });
    }
    this.bridgeLayer.replaceChildren();
    this.stoneLayer.replaceChildren();
    for (const [line, owner] of Object.entries({ ...this.bridges })) this.setBridge(line, owner);
    for (const [island, owner] of Object.entries({ ...this.stones })) this.setStone(island, owner);
    this.showLastMoves(this.marks);
  }

  /** Show only the part of the archipelago around these islands (the rules page's diagrams). */
  zoom(letters) {
    const points = letters.map((l) => this.centre(l));
    const xs = points.map(([x]) => x);
    const ys = points.map(([, y]) => y);
    const [x0, y0] = [Math.min(...xs) - MARGIN, Math.min(...ys) - MARGIN - 10];
    const [x1, y1] = [Math.max(...xs) + MARGIN, Math.max(...ys) + MARGIN + 24];
    this.element.setAttribute("viewBox", [x0, y0, x1 - x0, y1 - y0].map(Math.round).join(" "));
  }

  /**
   * Mark the last turn's changes until the next move: changes is a list of {kind: "built" |
   * "removed" | "claimed" | "lost", line | island, seat}. New bridges and stones get a halo,
   * removed ones stay as a dashed ghost where they were.
   */
  showLastMoves(changes) {
    this.marks = changes;
    this.markLayer.replaceChildren();
    this.ghostLayer.replaceChildren();
    for (const change of changes) {
      const attrs = { "data-testid": "last-move", dataset: { kind: change.kind, seat: change.seat } };
      if (change.line) {
        const [x1, y1, x2, y2] = this.stickEnds(change.line);
        attrs.dataset.line = change.line;
        const layer = change.kind === "built" ? this.markLayer : this.ghostLayer;
        layer.append(s("line", { ...attrs, class: `mark-${change.kind} seat${change.seat}`, x1, y1, x2, y2 }));
      } else {
        const [cx, cy] = this.centre(change.island);
        attrs.dataset.island = change.island;
        const layer = change.kind === "claimed" ? this.markLayer : this.ghostLayer;
        layer.append(s("circle", { ...attrs, class: `mark-${change.kind} seat${change.seat}`, cx, cy, r: 24 }));
      }
    }
  }

  drawIsland(island) {
    const [cx, cy] = this.centre(island.letter);
    const r = radius(island);
    const outline = islandOutline(island.name, r);
    const title = t("board.island", { name: island.name, letter: island.letter, lines: island.lines });
    const g = s("g", { class: "island", dataset: { island: island.letter } }, [
      s("title", { text: title }),
      s("path", { class: "shallows", d: smoothPath(outline, cx, cy, 1.22) }),
      s("path", { class: "beach", d: smoothPath(outline, cx, cy, 1) }),
      s("path", { class: "land", d: smoothPath(outline, cx, cy, 0.78) }),
      s("path", { class: "hills", d: smoothPath(outline, cx - r * 0.08, cy - r * 0.1, 0.42) }),
    ]);
    this.islandLayer.append(g);
    if (!PLACES.has(island.letter)) {
      const sticks = this.board.lines.map((line) => {
        const [x1, y1, x2, y2] = this.stickEnds(line);
        return [
          [x1, y1],
          [x2, y2],
        ];
      });
      PLACES.set(island.letter, labelPlace(this.board, sticks, (l) => this.centre(l), island));
    }
    const place = PLACES.get(island.letter);
    this.labelLayer.append(
      s("text", {
        class: "island-name",
        x: place.x.toFixed(1),
        y: place.y.toFixed(1),
        "text-anchor": place.anchor,
        text: island.name,
      }),
    );
  }

  /** Both ends of the stick on a line, set back from the island centres. */
  stickEnds(line) {
    const [ax, ay] = this.centre(line[0]);
    const [bx, by] = this.centre(line[1]);
    const len = Math.hypot(bx - ax, by - ay);
    const [ux, uy] = [(bx - ax) / len, (by - ay) / len];
    const ra = radius(this.islands.get(line[0])) * 0.62;
    const rb = radius(this.islands.get(line[1])) * 0.62;
    return [ax + ux * ra, ay + uy * ra, bx - ux * rb, by - uy * rb];
  }

  /** Show the board of a player view at once; with arrive, new bridges and stones grow in. */
  render(view, arrive = false) {
    const how = (owner, before) => (arrive && owner !== null && owner !== undefined && owner !== before ? "arriving" : "");
    for (const [line, owner] of Object.entries(view.bridges)) this.setBridge(line, owner, how(owner, this.bridges[line]));
    for (const [island, owner] of Object.entries(view.stones)) this.setStone(island, owner, how(owner, this.stones[island]));
  }

  setBridge(line, owner, animate = "") {
    const old = this.bridgeLayer.querySelector(`[data-line="${line}"]`);
    if ((old ? Number(old.dataset.owner) : null) === owner && !animate) return;
    if (old) old.remove();
    this.bridges[line] = owner;
    if (owner === null || owner === undefined) return;
    const [x1, y1, x2, y2] = this.stickEnds(line);
    const [mx, my] = [(x1 + x2) / 2, (y1 + y2) / 2];
    const angle = (Math.atan2(y2 - y1, x2 - x1) * 180) / Math.PI;
    const names = `${this.islands.get(line[0]).name}–${this.islands.get(line[1]).name}`;
    const mark =
      owner === 0
        ? s("rect", { class: "mark", x: mx - 4, y: my - 4, width: 8, height: 8, transform: `rotate(45 ${mx} ${my})` })
        : s("circle", { class: "mark", cx: mx, cy: my, r: 4 });
    const g = s(
      "g",
      { class: `bridge seat${owner} ${animate}`, dataset: { line, owner }, onclick: () => this.onLine(line) },
      [
        s("title", { text: t("board.bridge", { colour: colourName(owner), line: names }) }),
        s("line", { class: "stick-edge", x1, y1, x2, y2 }),
        s("line", { class: "stick", x1, y1, x2, y2 }),
        mark,
      ],
    );
    g.style.transformOrigin = `${mx}px ${my}px`;
    g.dataset.angle = angle.toFixed(0);
    this.bridgeLayer.append(g);
  }

  setStone(letter, owner, animate = "") {
    const old = this.stoneLayer.querySelector(`[data-island="${letter}"]`);
    if ((old ? Number(old.dataset.owner) : null) === owner && !animate) return;
    if (old) old.remove();
    this.stones[letter] = owner;
    if (owner === null || owner === undefined) return;
    const [cx, cy] = this.centre(letter);
    const mark =
      owner === 0
        ? s("rect", { class: "mark", x: cx - 5, y: cy - 5, width: 10, height: 10, transform: `rotate(45 ${cx} ${cy})` })
        : s("circle", { class: "mark", cx, cy, r: 5.5 });
    const g = s("g", { class: `stone seat${owner} ${animate}`, dataset: { island: letter, owner } }, [
      s("title", { text: t("board.stone", { colour: colourName(owner), name: this.islands.get(letter).name }) }),
      s("circle", { class: "disc", cx, cy, r: 15 }),
      mark,
    ]);
    g.style.transformOrigin = `${cx}px ${cy}px`;
    this.stoneLayer.append(g);
  }

  /** Fade a bridge out (returned or removed) before it disappears. */
  async takeBridge(line, wait) {
    const old = this.bridgeLayer.querySelector(`[data-line="${line}"]`);
    if (old) {
      old.classList.add("leaving");
      await wait();
    }
    this.setBridge(line, null);
  }

  async takeStone(letter, wait) {
    const old = this.stoneLayer.querySelector(`[data-island="${letter}"]`);
    if (old) {
      old.classList.add("leaving");
      await wait();
    }
    this.setStone(letter, null);
  }

  /**
   * Offer choices: picks maps a line name to {token, kind: "build" | "remove"}. Each becomes a
   * focusable button on the board; clicking (or Enter/Space) calls onPick(token). The proposed
   * token (waiting for confirmation) is drawn as chosen.
   */
  offer(picks, proposed = null) {
    this.offered = [picks, proposed];
    this.pickLayer.replaceChildren();
    // At least TARGET_PX wide on screen, however small the board is drawn (a phone: ~0.5 px per
    // unit); the drawing's scale is the screen matrix's (the board may be fitted by its height).
    const scale = this.element.getScreenCTM()?.a || 1;
    const hitWidth = Math.min(120, Math.max(24, TARGET_PX / scale));
    for (const [line, pick] of picks) {
      const [x1, y1, x2, y2] = pick.kind === "build" ? this.lineEnds(line) : this.stickEnds(line);
      const names = `${this.islands.get(line[0]).name}–${this.islands.get(line[1]).name}`;
      const label = t(pick.kind === "build" ? "board.pick_build" : "board.pick_remove", { line: names });
      const g = s(
        "g",
        {
          class: `pick ${pick.kind}${pick.token === proposed ? " proposed" : ""}`,
          tabindex: 0,
          role: "button",
          "aria-label": label,
          dataset: { line, token: pick.token },
          onclick: () => this.onPick(pick.token),
          onfocus: () => this.spotlight(line),
          onblur: () => this.spotlight(null),
          onkeydown: (e) => {
            if (e.key === "Enter" || e.key === " ") {
              e.preventDefault();
              this.onPick(pick.token);
            }
          },
        },
        [
          s("title", { text: label }),
          s("line", { class: "glow", x1, y1, x2, y2 }),
          s("path", { class: "hit", d: band(x1, y1, x2, y2, hitWidth) }),
        ],
      );
      this.pickLayer.append(g);
    }
    this.spotlight(this.spot);
  }

  /** The same choices again after the board was resized (their tap targets depend on its scale). */
  reoffer() {
    if (this.offered) this.offer(...this.offered);
  }

  /**
   * Light one offered line as focus or hover would (null: none): the page calls it when a
   * choice's button in words is focused or pointed at, so the line it names shows on the board.
   */
  spotlight(line) {
    this.spot = line;
    for (const g of this.pickLayer.children) g.classList.toggle("lit", line !== null && g.dataset.line === line);
  }

  /** The visible part of a line between two islands (for build highlights). */
  lineEnds(line) {
    const [ax, ay] = this.centre(line[0]);
    const [bx, by] = this.centre(line[1]);
    const len = Math.hypot(bx - ax, by - ay);
    const [ux, uy] = [(bx - ax) / len, (by - ay) / len];
    const ra = radius(this.islands.get(line[0])) * 0.75;
    const rb = radius(this.islands.get(line[1])) * 0.75;
    return [ax + ux * ra, ay + uy * ra, bx - ux * rb, by - uy * rb];
  }
}

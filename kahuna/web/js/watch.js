// The Watch page (/watch) and TV (/tv): the games being played now (GET /api/games/live), as a
// spectator sees them. Each board is a spectator connection to its game (connection.js, no token),
// so what the server sends it is the spectator view and nothing of any hand; the boards only draw
// bridges and stones (board.js). Bounded: at most WATCH_BOARDS boards and sockets on the Watch
// page, one on TV, and the list asked for again every REFRESH_MS.

import { h, s, fill, refill } from "./dom.js";
import { t, colourName, onLanguageChange } from "./i18n.js";
import { BoardView } from "./board.js";
import { GameConnection } from "./connection.js";
import { seatMark } from "./panels.js";
import { playerName } from "./account.js";
import { ClockPanel } from "./life.js";
import { outcomeWords } from "./narrate.js";

/** The most boards (and WebSockets) the Watch page holds. */
export const WATCH_BOARDS = 12;
/** How often the list of games is asked for again (a new game appears within this time). */
const REFRESH_MS = 20000;
/** How long TV shows a finished game before it moves on (long enough to read the result). */
const TV_NEXT_MS = 4000;

/** The header's link to the Watch page: its word, and on a phone an eye instead (the word stays
 * for screen readers), so the header keeps one line in every language. */
export function watchNavLink() {
  const eye = s("svg", { class: "eye-icon", viewBox: "0 0 16 16", width: 16, height: 16, "aria-hidden": "true" }, [
    s("path", { d: "M1 8c2-3.5 4.5-5 7-5s5 1.5 7 5c-2 3.5-4.5 5-7 5S3 11.5 1 8z" }),
    s("circle", { cx: 8, cy: 8, r: 2.2 }),
  ]);
  return h("a", { href: "/watch", class: "watch-nav", title: t("watch.nav") }, [
    eye,
    h("span", { class: "watch-nav-text", text: t("watch.nav") }),
  ]);
}

async function liveGames(limit) {
  const answer = await fetch(`/api/games/live?limit=${limit}`);
  if (!answer.ok) throw new Error(`live games: ${answer.status}`);
  return (await answer.json()).games;
}

/** A seat of a listed game in words: its mark, its player's name and rating (if any). */
function seatLine(game, seat) {
  const player = game.players[seat];
  const rating = player.rating === null ? null : h("span", { class: "player-rating", text: String(player.rating) });
  return h("span", { class: `watch-seat seat${seat}` }, [
    seatMark(seat),
    " ",
    h("span", { class: "watch-name", title: player.name || "", text: player.name ? playerName(player.name, player.kind) : "—" }),
    rating ? " " : null,
    rating,
  ]);
}

function ratedMark(rated) {
  const [kind, key] = rated ? ["rated-mark", "watch.rated"] : ["casual-mark", "watch.casual"];
  return h("span", { class: `badge ${kind}`, text: t(key) });
}

/**
 * One game as a spectator watches it: a spectator connection and its latest view. onView(view,
 * msg) gets every new view; onOver() once, when the game ends.
 */
class Spectator {
  constructor(gameId, onView, onOver) {
    this.gameId = gameId;
    this.over = false;
    this.conn = new GameConnection(
      gameId,
      null,
      (msg) => {
        if (msg.type !== "sync" && msg.type !== "update" && msg.type !== "clock") return;
        if (msg.view) onView(msg.view, msg);
        else onView(null, msg);
        const ended = msg.status === "over" || Boolean(msg.view?.result);
        if (ended && !this.over) {
          this.over = true;
          onOver(msg.view);
        }
      },
      (state) => {
        if ((state === "gone" || state === "forbidden") && !this.over) {
          this.over = true;
          onOver(null);
        }
      },
    );
  }

  close() {
    this.conn.stopped = true;
    this.conn.ws?.close();
  }
}

/** A small live board of the Watch page, a link to the game. */
class Tile {
  constructor(board, game, onOver) {
    this.game = game;
    this.board = new BoardView(board, () => {});
    this.board.element.setAttribute("aria-hidden", "true");
    this.moves = h("span", { class: "watch-moves hint" });
    this.state = h("span", { class: "watch-state" });
    const link = { href: game.watch_url, class: "watch-tile", "data-testid": "watch-tile" };
    link.dataset = { game: game.game_id };
    this.element = h("a", link, [
      h("span", { class: "watch-players" }, [seatLine(game, 0), seatLine(game, 1)]),
      h("span", { class: "watch-board" }, [this.board.element]),
      h("span", { class: "watch-foot" }, [ratedMark(game.rated), this.moves, this.state]),
    ]);
    this.showMoves(game.moves);
    this.spectator = new Spectator(
      game.game_id,
      (view, msg) => {
        if (view) this.board.render(view);
        if (typeof msg.version === "number") this.showMoves(msg.version);
      },
      (view) => {
        this.element.classList.add("over");
        this.state.textContent = view?.result ? outcomeWords(view.result.winner, view.result.reason) : t("watch.over");
        onOver();
      },
    );
  }

  showMoves(n) {
    this.movesCount = n;
    this.moves.textContent = t("watch.moves", { n });
    const names = this.game.players.map((p) => (p.name ? playerName(p.name, p.kind) : "—"));
    this.element.setAttribute("aria-label", t("watch.tile_label", { black: names[0], white: names[1], n }));
  }

  close() {
    this.spectator.close();
  }
}

/** /watch: the running games as small live boards, best rated first; each opens its game. */
export function mountWatch(root, board) {
  document.title = `${t("watch.title")} — Kahuna`;
  const grid = h("div", { class: "watch-grid", "data-testid": "watch-grid" });
  const empty = h("p", { class: "watch-empty", "data-testid": "watch-empty", hidden: true, text: t("watch.empty") });
  const error = h("p", { class: "message", role: "alert" });
  fill(root, [
    h("section", { class: "watch-page" }, [
      h("div", { class: "watch-head" }, [
        h("h1", { text: t("watch.title") }),
        h("a", { href: "/tv", class: "btn", "data-testid": "tv-link", text: t("watch.tv") }),
      ]),
      h("p", { class: "hint", text: t("watch.intro") }),
      error,
      empty,
      grid,
    ]),
  ]);
  const section = root.querySelector(".watch-page");
  const tiles = new Map();
  let timer = null;
  const refresh = async () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, REFRESH_MS);
    let games;
    try {
      games = await liveGames(WATCH_BOARDS);
      error.textContent = "";
    } catch {
      error.textContent = t("lobby.offline");
      return;
    }
    if (!document.contains(section)) return; // replaced meanwhile (a new language)
    const listed = new Set(games.map((g) => g.game_id));
    for (const [id, tile] of tiles) {
      if (!listed.has(id)) {
        tile.close();
        tiles.delete(id);
      }
    }
    const order = games.map((game) => {
      let tile = tiles.get(game.game_id);
      if (!tile) {
        // a finished game stays on view until the next list: soon, so a new game takes its place
        tile = new Tile(board, game, () => {
          clearTimeout(timer);
          timer = setTimeout(refresh, TV_NEXT_MS);
        });
        tiles.set(game.game_id, tile);
      }
      return tile.element;
    });
    refill(grid, order); // a tile Tab is on keeps the focus
    empty.hidden = games.length > 0;
    section.dataset.loaded = "true";
  };
  refresh();
  // A new language mounts the page anew (app.js): this one's sockets and timer go with it.
  onLanguageChange(() => {
    if (document.contains(section)) return;
    for (const tile of tiles.values()) tile.close();
    tiles.clear();
    clearTimeout(timer);
  });
}

/** /tv: the best-rated running game, full size; when it ends, the next one. */
export function mountTv(root, board) {
  document.title = `${t("watch.tv_title")} — Kahuna`;
  let view = null;
  const boardWrap = h("div", { class: "board-wrap" });
  const clocks = new ClockPanel(() => {});
  const players = h("div", { class: "tv-players", "data-testid": "tv-players" });
  const status = h("p", { class: "tv-status", role: "status", "aria-live": "polite", "data-testid": "tv-status" });
  const open = h("a", { class: "btn", "data-testid": "tv-open", hidden: true, text: t("watch.open") });
  const stage = h("div", { class: "tv-stage", hidden: true }, [players, clocks.element, boardWrap]);
  const page = h("section", { class: "tv-page", "data-testid": "tv" }, [
    h("div", { class: "watch-head" }, [
      h("h1", { text: t("watch.tv_title") }),
      h("a", { href: "/watch", class: "btn", text: t("watch.title") }),
    ]),
    h("p", { class: "hint", text: t("watch.tv_intro") }),
    status,
    stage,
    h("p", {}, [open]),
  ]);
  fill(root, [page]);
  let current = null;
  let timer = null;
  const ended = new Set(); // games seen ending here: the list may still hold them for a moment
  const showPlayers = (game, points) => {
    const rows = [0, 1].map((seat) =>
      h("div", { class: `tv-player seat${seat}`, "data-testid": `tv-player-${seat}` }, [
        seatLine(game, seat),
        " ",
        h("span", { class: "hint", text: colourName(seat) }),
        points ? h("span", { class: "tv-points", text: t("watch.points", { n: points[seat] }) }) : null,
      ]),
    );
    const moves = h("span", { class: "hint", "data-testid": "tv-moves", text: t("watch.moves", { n: game.moves }) });
    fill(players, [...rows, h("div", { class: "tv-facts" }, [ratedMark(game.rated), " ", moves])]);
  };
  const next = async () => {
    clearTimeout(timer);
    let games = [];
    try {
      games = (await liveGames(5)).filter((g) => !ended.has(g.game_id));
    } catch {
      status.textContent = t("lobby.offline");
    }
    if (!document.contains(page)) return; // replaced meanwhile (a new language)
    const game = games[0];
    if (!game) {
      stage.hidden = true;
      open.hidden = true;
      page.dataset.game = "";
      status.textContent = t("watch.tv_waiting");
      timer = setTimeout(next, REFRESH_MS);
      return;
    }
    status.textContent = "";
    stage.hidden = false;
    open.hidden = false;
    open.href = game.watch_url;
    page.dataset.game = game.game_id;
    const shown = { ...game };
    showPlayers(shown, null);
    view = new BoardView(board, () => {}); // a fresh board: nothing of the last game stays on it
    boardWrap.replaceChildren(view.element);
    clocks.update(null, null);
    current = new Spectator(
      game.game_id,
      (v, msg) => {
        if (msg.clock !== undefined) clocks.update(msg.clock, null);
        if (!v) return;
        view.render(v);
        if (typeof msg.version === "number") shown.moves = msg.version;
        showPlayers(shown, v.points.map((p) => p.reduce((a, b) => a + b, 0)));
      },
      (v) => {
        ended.add(game.game_id);
        const result = v?.result ? outcomeWords(v.result.winner, v.result.reason) : t("watch.over");
        status.textContent = `${result} ${t("watch.tv_next")}`;
        const finished = current;
        timer = setTimeout(() => {
          finished.close();
          next();
        }, TV_NEXT_MS);
      },
    );
  };
  next();
  onLanguageChange(() => {
    if (document.contains(page)) return; // (see mountWatch)
    current?.close();
    clearTimeout(timer);
  });
}

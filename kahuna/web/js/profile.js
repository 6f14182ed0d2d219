// A player's profile (/users/<name>): the online dot, ratings in both pools, the rating history drawn
// as an SVG graph, the statistics, followers and followed players, and the games list (filtered by
// result and opponent, paged), each game linked to its replay; a signed-in visitor follows or blocks
// from here. Names are put on the page as text only.

import { puzzleHistory } from "./puzzles.js";
import { h, s, fill, scrollBox } from "./dom.js";
import { t } from "./i18n.js";
import { api, ApiError } from "./api.js";
import { currentAccount } from "./account.js";
import { onlineDot, nameWithDot, refusalText } from "./social.js";
import { openReportDialog } from "./report.js";
import { levelName, levelOfAccount } from "./names.js";

const POOLS = ["realtime", "correspondence"];
const W = 320;
const H = 120;
const PAD = 24;

/** The rating after each game as a polyline, with the lowest and highest rating marked. */
export function ratingGraph(points, pool) {
  if (points.length === 0) return h("p", { class: "graph-empty", text: t("profile.no_history") });
  const values = [1500, ...points.map((p) => p.rating)];
  const low = Math.min(...values) - 10;
  const high = Math.max(...values) + 10;
  const x = (i) => PAD + (i * (W - 2 * PAD)) / Math.max(1, values.length - 1);
  const y = (v) => H - PAD / 2 - ((v - low) * (H - PAD)) / (high - low);
  const path = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  return s("svg", { class: "rating-graph", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": t("profile.graph", { pool: t(`pool.${pool}`) }), "data-testid": `graph-${pool}` }, [
    s("line", { x1: PAD, x2: W - PAD / 2, y1: y(1500), y2: y(1500), class: "graph-base" }),
    s("polyline", { points: path, class: "graph-line", fill: "none" }),
    ...values.map((v, i) => s("circle", { cx: x(i), cy: y(v), r: 2.5, class: "graph-point" }, [s("title", { text: String(v) })])),
    s("text", { x: 2, y: y(Math.max(...values)) + 4, class: "graph-label", text: String(Math.round(Math.max(...values))) }),
    s("text", { x: 2, y: y(Math.min(...values)) + 4, class: "graph-label", text: String(Math.round(Math.min(...values))) }),
  ]);
}

function ratingText(r) {
  return `${r.rating}${r.provisional ? "?" : ""} ±${r.deviation}`;
}

function gameRow(game) {
  const change = game.rating_before === null ? "" : game.rating_after - game.rating_before;
  const changeText = change === "" ? "" : change >= 0 ? `+${change}` : String(change);
  const link = game.status === "over" ? `/replay/${encodeURIComponent(game.game_id)}` : `/watch/${encodeURIComponent(game.game_id)}`;
  return h("tr", {}, [
    h("td", {}, [h("a", { href: link, text: game.ended ? game.ended.slice(0, 10) : t("profile.playing") })]),
    h("td", { text: game.opponent || "" }),
    h("td", { text: game.result ? t(`profile.result_${game.result}`) : "" }),
    h("td", { text: game.rated ? t("seeks.rated") : t("seeks.casual") }),
    h("td", { class: "num", text: changeText }),
  ]);
}

/** Wins, losses and draws per pool and against each AI level, the best win and the longest streak. */
function statsPanel(stats) {
  const row = (label, tally) =>
    h("tr", {}, [
      h("th", { scope: "row", text: label }),
      ...["games", "wins", "losses", "draws"].map((k) => h("td", { class: "num", text: String(tally[k]) })),
    ]);
  const rows = [
    ...["realtime", "correspondence", "untimed"].map((pool) => row(t(`pool.${pool}`), stats.pools[pool])),
    ...Object.entries(stats.ai).map(([level, tally]) => row(t("stats.against", { level: levelName(level) }), tally)),
  ];
  const best = stats.best_win;
  return h("section", { class: "stats card-panel", "data-testid": "profile-stats" }, [
    h("h2", { text: t("stats.title") }),
    scrollBox(t("stats.title"), [
      h("table", { class: "games-table stats-table" }, [
        h("thead", {}, [h("tr", {}, ["stats.row_head", "stats.games", "stats.wins", "stats.losses", "stats.draws"].map((k) => h("th", {}, [h("span", { class: k === "stats.row_head" ? "visually-hidden" : null, text: t(k) })])))]),
        h("tbody", {}, rows),
      ]),
    ]),
    h("p", { "data-testid": "best-win" }, [
      t("stats.best_win"),
      " ",
      best ? h("a", { href: `/replay/${encodeURIComponent(best.game_id)}`, text: `${best.opponent} (${best.rating})` }) : t("stats.none"),
    ]),
    h("p", { "data-testid": "longest-streak", text: t("stats.streak", { n: stats.longest_streak }) }),
  ]);
}

/** Followers and followed players, each name after its online dot (the newest 100 of each). */
function followsPanel(follows) {
  const names = (list) =>
    list.length ? h("ul", { class: "user-list inline" }, list.map((u) => h("li", {}, [nameWithDot(u.username, u.online)]))) : h("p", { class: "hint", text: t("stats.none") });
  return h("section", { class: "follows card-panel", "data-testid": "profile-follows" }, [
    h("h2", { "data-testid": "followers-count", text: t("social.followers", { n: follows.followers }) }),
    names(follows.followers_list),
    h("h2", { "data-testid": "following-count", text: t("social.following", { n: follows.following }) }),
    names(follows.following_list),
  ]);
}

/** The games list: filtered by result and opponent, 20 a page, with the previous and next pages. */
function gamesList(username) {
  const result = h("select", { id: "games-result" }, ["", "win", "loss", "draw"].map((r) => h("option", { value: r, text: r ? t(`profile.result_${r}`) : t("stats.any_result") })));
  const opponent = h("input", { id: "games-opponent", type: "text", maxlength: 20, autocomplete: "off" });
  const table = scrollBox(t("profile.games"), [], { "data-testid": "profile-games" });
  const pager = h("p", { class: "pager" });
  const status = h("p", { class: "message", role: "status" });
  let page = 1;
  async function load() {
    status.textContent = "";
    const query = { page: String(page) };
    if (result.value) query.result = result.value;
    if (opponent.value.trim()) query.opponent = opponent.value.trim();
    let listed;
    try {
      listed = await api.userGames(username, query);
    } catch (err) {
      fill(table, []);
      fill(pager, []);
      status.textContent = err instanceof ApiError && err.status === 404 ? t("profile.not_found") : err instanceof ApiError && err.status === 422 ? t("search.invalid") : t("lobby.offline");
      return;
    }
    fill(
      table,
      listed.games.length
        ? [
            h("table", { class: "games-table" }, [
              h("thead", {}, [h("tr", {}, ["profile.date", "profile.opponent", "profile.result", "profile.kind", "profile.change"].map((k) => h("th", { text: t(k) })))]),
              h("tbody", {}, listed.games.map(gameRow)),
            ]),
          ]
        : [h("p", { text: t("profile.no_games") })],
    );
    const go = (to) => () => {
      page = to;
      load();
    };
    pager.hidden = listed.pages <= 1;
    fill(pager, [
      h("button", { type: "button", class: "btn", disabled: page <= 1, onclick: go(page - 1), text: t("stats.previous") }),
      " ",
      h("span", { text: t("stats.page", { page: listed.page, pages: listed.pages }) }),
      " ",
      h("button", { type: "button", class: "btn", disabled: page >= listed.pages, onclick: go(page + 1), text: t("stats.next") }),
    ]);
  }
  const apply = (e) => {
    e.preventDefault();
    page = 1;
    load();
  };
  load();
  return h("section", { class: "player-games" }, [
    h("h2", { text: t("profile.games") }),
    h("form", { class: "filter-row games-filter", onsubmit: apply }, [
      h("div", { class: "field" }, [h("label", { for: "games-result", text: t("profile.result") }), result]),
      h("div", { class: "field" }, [h("label", { for: "games-opponent", text: t("profile.opponent") }), opponent]),
      h("button", { type: "submit", class: "btn", text: t("stats.filter") }),
    ]),
    status,
    table,
    pager,
  ]);
}

/** Follow or unfollow, block or unblock: the signed-in visitor's buttons on another player's profile. */
function relationButtons(username, following, blocking, onChange) {
  const status = h("span", { class: "message", role: "status", "data-testid": "relation-status" });
  const act = (call) => async () => {
    status.textContent = "";
    try {
      await call(username);
      onChange();
    } catch (err) {
      status.textContent = refusalText(err);
    }
  };
  return h("p", { class: "actions relation-actions" }, [
    following
      ? h("button", { type: "button", id: "unfollow", class: "btn", onclick: act(api.unfollow), text: t("social.unfollow") })
      : h("button", { type: "button", id: "follow", class: "btn primary", onclick: act(api.follow), text: t("social.follow") }),
    blocking
      ? h("button", { type: "button", id: "unblock", class: "btn", onclick: act(api.unblock), text: t("social.unblock") })
      : h("button", { type: "button", id: "block", class: "btn", onclick: act(api.block), text: t("social.block") }),
    status,
  ]);
}

/** One's own finished games, every one the profile lists, as kahuna-record/1 lines (the API's export). */
function downloadAll(username) {
  const name = encodeURIComponent(username);
  return h("p", {}, [
    h("a", {
      href: `/api/users/${name}/games.jsonl`,
      download: `kahuna-${username}-games.jsonl`,
      class: "btn download",
      id: "download-all",
      text: t("profile.download_all"),
    }),
  ]);
}

export async function mountProfile(root, username) {
  document.title = `${username} — Kahuna`;
  let profile, follows;
  try {
    [profile, follows] = await Promise.all([api.user(username), api.follows(username)]);
  } catch (err) {
    const text = err instanceof ApiError && err.status === 404 ? t("profile.not_found") : t("lobby.offline");
    fill(root, [h("p", { class: "message", text })]);
    return;
  }
  const me = await currentAccount();
  const other = me && me.username !== profile.username;
  let relations = null;
  if (other) {
    const [following, blocks] = await Promise.all([api.following().catch(() => null), api.blocks().catch(() => null)]);
    relations = relationButtons(
      profile.username,
      Boolean(following?.users.some((u) => u.username === profile.username)),
      Boolean(blocks?.users.includes(profile.username)),
      () => mountProfile(root, username),
    );
  }
  // The server says whom a game may be offered to (not the site's own account, which answers none).
  const challenge = other && profile.challengeable
    ? h("p", {}, [h("a", { href: `/lobby?challenge=${encodeURIComponent(profile.username)}`, id: "challenge-link", text: t("seeks.challenge", { name: profile.username }) })])
    : null;
  const level = profile.is_bot ? levelOfAccount(profile.username) : null; // an AI level: its name, as everywhere
  fill(root, [
    h("section", { class: "profile" }, [
      h("h1", { "data-testid": "profile-name" }, [
        onlineDot(profile.online),
        ...(level ? [levelName(level), " ", h("span", { class: "hint", text: profile.username })] : [profile.username]),
        profile.is_bot ? h("span", { class: "badge", text: t("profile.bot") }) : null,
      ]),
      me && !other ? h("p", {}, [h("a", { href: "/following", id: "following-link", text: t("social.following_title") })]) : null,
      me && !other ? downloadAll(profile.username) : null,
      relations,
      // Not of an account the server runs (its own, an AI level's): nobody there to act on a report.
      other && !me.is_bot && profile.reportable
        ? h("p", {}, [
            h("button", {
              type: "button",
              class: "btn",
              id: "report-player",
              onclick: () => openReportDialog({ username: profile.username }),
              text: t("report.player"),
            }),
          ])
        : null,
      challenge,
      h("div", { class: "pools" }, POOLS.map((pool) =>
        h("div", { class: "pool card-panel" }, [
          h("h2", { text: t(`pool.${pool}`) }),
          h("p", { class: "rating", "data-testid": `rating-${pool}`, text: ratingText(profile.ratings[pool]) }),
          h("p", { text: t(profile.ratings[pool].games === 1 ? "profile.games_count_one" : "profile.games_count", { n: profile.ratings[pool].games }) }),
          ratingGraph(profile.history[pool], pool),
        ]),
      )),
      statsPanel(profile.stats),
      puzzleHistory(profile.username),
      followsPanel(follows),
      gamesList(profile.username),
    ]),
  ]);
}

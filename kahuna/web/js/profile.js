// A player's profile (/users/<name>): ratings in both pools, the rating history drawn as an SVG
// graph, and the recent games, each linked to its replay. Names are put on the page as text only.

import { h, s, fill } from "./dom.js";
import { t } from "./i18n.js";
import { api, ApiError } from "./api.js";
import { currentAccount } from "./account.js";

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

export async function mountProfile(root, username) {
  document.title = `${username} — Kahuna`;
  let profile;
  try {
    profile = await api.user(username);
  } catch (err) {
    const text = err instanceof ApiError && err.status === 404 ? t("profile.not_found") : t("lobby.offline");
    fill(root, [h("p", { class: "message", text })]);
    return;
  }
  const me = await currentAccount();
  const challenge =
    me && me.username !== profile.username
      ? h("p", {}, [h("a", { href: `/lobby?challenge=${encodeURIComponent(profile.username)}`, id: "challenge-link", text: t("seeks.challenge", { name: profile.username }) })])
      : null;
  fill(root, [
    h("section", { class: "profile" }, [
      h("h1", { "data-testid": "profile-name" }, [profile.username, profile.is_bot ? h("span", { class: "badge", text: t("profile.bot") }) : null]),
      challenge,
      h("div", { class: "pools" }, POOLS.map((pool) =>
        h("div", { class: "pool card-panel" }, [
          h("h2", { text: t(`pool.${pool}`) }),
          h("p", { class: "rating", "data-testid": `rating-${pool}`, text: ratingText(profile.ratings[pool]) }),
          h("p", { text: t(profile.ratings[pool].games === 1 ? "profile.games_count_one" : "profile.games_count", { n: profile.ratings[pool].games }) }),
          ratingGraph(profile.history[pool], pool),
        ]),
      )),
      h("h2", { text: t("profile.games") }),
      profile.games.length
        ? h("div", { class: "table-scroll" }, [
            h("table", { class: "games-table", "data-testid": "profile-games" }, [
              h("thead", {}, [h("tr", {}, ["profile.date", "profile.opponent", "profile.result", "profile.kind", "profile.change"].map((k) => h("th", { text: t(k) })))]),
              h("tbody", {}, profile.games.map(gameRow)),
            ]),
          ])
        : h("p", { text: t("profile.no_games") }),
    ]),
  ]);
}


// The leaderboard (/leaderboard): per pool, the players whose rating is trusted (deviation below
// 75), ranked; the others apart, with provisional ratings marked "?". The computers (the AI
// levels, whose ratings are fixed anchors, and players' bots) are no people: listed apart, under
// the people, each AI level by its name in the page's language. Names are text only.

import { h, fill, scrollBox } from "./dom.js";
import { t } from "./i18n.js";
import { api } from "./api.js";
import { levelName } from "./names.js";

function row(player, ranked) {
  const rating = `${player.rating}${player.provisional ? "?" : ""}`;
  return h("tr", {}, [
    h("td", { class: "num", text: ranked ? String(player.rank) : "" }),
    h("td", {}, [
      h("a", { href: `/users/${encodeURIComponent(player.username)}`, text: player.level ? levelName(player.level) : player.username }),
      player.is_bot && !player.level ? h("span", { class: "badge", text: t("profile.bot") }) : null,
    ]),
    h("td", { class: "num", text: rating }),
    h("td", { class: "num", text: `±${player.deviation}` }),
    h("td", { class: "num", text: String(player.games) }),
  ]);
}

function table(players, ranked, testid, label) {
  const head = ["leaderboard.rank", "leaderboard.player", "leaderboard.rating", "leaderboard.deviation", "leaderboard.games"];
  return scrollBox(label, [
    h("table", { class: "games-table", "data-testid": testid }, [
      h("thead", {}, [h("tr", {}, head.map((k) => h("th", { text: t(k) })))]),
      h("tbody", {}, players.map((p) => row(p, ranked))),
    ]),
  ]);
}

export async function mountLeaderboard(root) {
  document.title = `${t("leaderboard.title")} — Kahuna`;
  const pool = new URLSearchParams(location.search).get("pool") === "correspondence" ? "correspondence" : "realtime";
  const board = await api.leaderboard(pool).catch(() => null);
  if (!board) {
    fill(root, [h("p", { class: "message", text: t("lobby.offline") })]);
    return;
  }
  const computers = board.computers || [];
  fill(root, [
    h("section", { class: "leaderboard" }, [
      h("h1", { text: t("leaderboard.title") }),
      h("nav", { class: "pool-tabs" }, ["realtime", "correspondence"].map((p) =>
        h("a", { href: `/leaderboard?pool=${p}`, "aria-current": p === pool ? "page" : null, text: t(`pool.${p}`) }),
      )),
      h("p", { text: t("leaderboard.rule", { n: board.trusted_below }) }),
      board.players.length ? table(board.players, true, "leaderboard", t("leaderboard.title")) : h("p", { text: t("leaderboard.empty") }),
      board.unranked.length ? h("h2", { text: t("leaderboard.unranked") }) : null,
      board.unranked.length ? table(board.unranked, false, "unranked", t("leaderboard.unranked")) : null,
      computers.length ? h("h2", { text: t("leaderboard.computers") }) : null,
      computers.length ? h("p", { class: "hint", text: t("leaderboard.computers_help") }) : null,
      computers.length ? table(computers, true, "computers", t("leaderboard.computers")) : null,
    ]),
  ]);
}

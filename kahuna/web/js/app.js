// Entry point: loads the board, picks the language and mounts the page for location.pathname.

import { h, fill } from "./dom.js";
import { initLanguage, setLanguage, language, onLanguageChange, LANGUAGES, t } from "./i18n.js";
import { setIslandNames } from "./narrate.js";
import { setLineCounts } from "./cards.js";
import { mountLobby, mountJoin } from "./lobby.js";
import { GamePage } from "./game.js";
import { mountReplay } from "./replay.js";
import { mountRules } from "./rules.js";
import { seatsOf } from "./store.js";
import { accountLink, modLink, mountSignUp, mountSignIn, mountAccount, currentAccount } from "./account.js";
import { sanctionNotices } from "./sanctions.js";
import { mountMod } from "./mod.js";
import { mountVerifyEmail, mountPasswordReset } from "./mail.js";
import { mountUnsubscribe } from "./notify.js";
import { mountSeeks } from "./seeks.js";
import { mountProfile } from "./profile.js";
import { userSearch } from "./usersearch.js";
import { mountLeaderboard } from "./leaderboard.js";
import { mountTournaments, mountTournament } from "./tournaments.js";
import { tournamentsNavLink } from "./tournamentparts.js";
import { mountWatch, mountTv, watchNavLink } from "./watch.js";
import { registerWorker } from "./push.js";
import { mountFollowing } from "./social.js";
import { mountPuzzles } from "./puzzles.js";

function route(path) {
  const [, page = "", arg = ""] = path.split("/").map(decodeURIComponent);
  return { page, arg };
}

/** The seat tokens for /play/<id>: from the URL fragment, else the ones this browser kept. A
 * fragment entry "seat:N" is seat N of the signed-in account (played without a token). */
function tokensFor(gameId) {
  const fragment = location.hash.slice(1);
  if (fragment) return fragment.split(",").filter(Boolean);
  return seatsOf(gameId).map((s) => s.token);
}

function header(main) {
  const picker = h(
    "select",
    { id: "language", onchange: (e) => setLanguage(e.target.value) },
    Object.entries(LANGUAGES).map(([code, table]) =>
      h("option", { value: code, selected: code === language(), text: table["language.name"] }),
    ),
  );
  const bar = h("header", { class: "top" }, [
    h("a", { href: "#main", class: "skip-link", text: t("nav.skip") }),
    h("a", { href: "/", class: "brand", "aria-label": t("nav.home") }, [
      h("span", { class: "brand-mark", "aria-hidden": "true", text: "◆●" }),
      " Kahuna",
    ]),
    h("nav", { "aria-label": t("nav.label") }, [
      h("a", { href: "/", text: t("nav.lobby") }),
      h("a", { href: "/rules", text: t("nav.rules") }),
      h("a", { href: "/puzzles", class: "wide-only", text: t("nav.puzzles") }),
      watchNavLink(),
      h("a", { href: "/lobby", class: "wide-only", text: t("nav.community") }),
      tournamentsNavLink(),
      modLink(),
    ]),
    userSearch(),
    accountLink(),
    h("label", { for: "language", class: "visually-hidden", text: t("nav.language") }),
    picker,
  ]);
  bar.querySelector(".skip-link").addEventListener("click", (e) => {
    e.preventDefault();
    main.focus();
  });
  return bar;
}

async function start() {
  initLanguage();
  registerWorker();
  const [board, levels] = await Promise.all([
    fetch("/static/board.json").then((r) => r.json()),
    fetch("/api/levels")
      .then((r) => r.json())
      .then((d) => d.levels)
      .catch(() => ["easy"]),
  ]);
  setIslandNames(board);
  setLineCounts(board);
  const top = document.getElementById("top");
  const main = document.getElementById("main");
  const { page, arg } = route(location.pathname);
  let game = null;
  const mount = () => {
    fill(top, [header(main), sanctionNotices(currentAccount())]);
    if (page === "") mountLobby(main, board, levels);
    else if (page === "rules") mountRules(main, board);
    else if (page === "puzzles") mountPuzzles(main, board);
    else if (page === "lobby") mountSeeks(main, levels);
    else if (page === "users") mountProfile(main, arg);
    else if (page === "leaderboard") mountLeaderboard(main);
    else if (page === "following") mountFollowing(main);
    else if (page === "tournaments" && arg) mountTournament(main, arg);
    else if (page === "tournaments") mountTournaments(main);
    else if (page === "signup") mountSignUp(main);
    else if (page === "signin") mountSignIn(main);
    else if (page === "account") mountAccount(main);
    else if (page === "mod") mountMod(main);
    else if (page === "email" && arg === "verify") mountVerifyEmail(main);
    else if (page === "password-reset") mountPasswordReset(main);
    else if (page === "unsubscribe") mountUnsubscribe(main, arg);
    else if (page === "join") mountJoin(main, arg);
    else if (page === "replay") mountReplay(main, board, arg);
    else if (page === "watch" && !arg) mountWatch(main, board);
    else if (page === "tv") mountTv(main, board);
    else if (page === "play" || page === "watch") {
      const tutorial = page === "play" && new URLSearchParams(location.search).has("tutorial");
      if (!game) game = new GamePage(main, board, arg, page === "play" ? tokensFor(arg) : [], tutorial);
    } else fill(main, [h("p", { class: "message", text: t("game.not_found") })]);
  };
  onLanguageChange(() => {
    if (game) fill(top, [header(main), sanctionNotices(currentAccount())]);
    else mount();
  });
  mount();
}

start();

// Tournaments: the list and the creation form (/tournaments), and one tournament's page
// (/tournaments/<id>) with its live standings, pairings, a countdown and the player's current game
// one click away. A player paired into a game hears a sound, sees it in the tab's title and is
// taken to the game; the game's page brings it back here when the game is over
// (/play/<id>?tournament=<tid>). The page learns of a new game at once from /ws/lobby
// ("tournament_game") and refreshes the standings every few seconds until the event is over (a
// finished event shows its podium and is not polled again; a sign-out elsewhere turns the page
// into a guest's, without polling /me into 401s). Names are text only.

import { h, fill, refill, scrollBox } from "./dom.js";
import { t } from "./i18n.js";
import { ApiError, csrfToken } from "./api.js";
import { currentAccount } from "./account.js";
import { clockLabel } from "./seeks.js";
import { playSound } from "./sounds.js";
import { podium, hasByeNow, gamesCell, shareRow } from "./tournamentparts.js";
import { EventChat } from "./tournamentchat.js";
import { levelName } from "./names.js";

const REFRESH_MS = 3000;
const GO_TO_GAME_MS = 1500;
const PLAYED_KEY = "kahuna.tourney.game";
const CLOCKS = [
  ["180+2", "3+2"],
  ["300+3", "5+3"],
  ["600+5", "10+5"],
];

async function call(method, path, body) {
  const headers = body === undefined ? {} : { "Content-Type": "application/json" };
  const csrf = method === "GET" ? null : csrfToken();
  if (csrf) headers["X-CSRF-Token"] = csrf;
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, "offline", "");
  }
  const data = response.status === 204 ? {} : await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data?.error || "error", data?.message || "");
  return data;
}

const tournamentsApi = {
  list: () => call("GET", "/api/tournaments"),
  get: (id) => call("GET", `/api/tournaments/${encodeURIComponent(id)}`),
  me: (id) => call("GET", `/api/tournaments/${encodeURIComponent(id)}/me`),
  create: (body) => call("POST", "/api/tournaments", body),
  act: (id, what, body) => call("POST", `/api/tournaments/${encodeURIComponent(id)}/${what}`, body),
};

/** A refusal in the reader's language (the server's code; its English message as a last resort). */
function refusal(err) {
  const key = `tourney.error.${err.code}`;
  const text = t(key);
  return text === key ? t("tourney.error.other", { reason: err.message || err.code }) : text;
}

function kindLabel(kind) {
  return t(kind === "swiss" ? "tourney.swiss" : "tourney.arena");
}

function length(tour) {
  return tour.kind === "swiss" ? t("tourney.rounds_n", { n: tour.planned_rounds }) : t("tourney.minutes_n", { n: tour.minutes });
}

function tourRow(tour) {
  return h("tr", {}, [
    h("td", {}, [h("a", { href: `/tournaments/${encodeURIComponent(tour.tournament_id)}`, text: tour.name })]),
    h("td", { text: kindLabel(tour.kind) }),
    h("td", { text: clockLabel(tour.clock) }),
    h("td", { text: length(tour) }),
    h("td", { text: tour.rated ? t("tourney.rated") : t("tourney.casual") }),
    h("td", { text: tour.creator }),
  ]);
}

function tourTable(list, testid, label) {
  if (!list.length) return h("p", { class: "muted", text: t("tourney.none") });
  const head = ["tourney.name", "tourney.kind", "tourney.clock", "tourney.length", "tourney.rating", "tourney.creator"];
  return scrollBox(label, [
    h("table", { class: "games-table", "data-testid": testid }, [
      h("thead", {}, [h("tr", {}, head.map((k) => h("th", { text: t(k) })))]),
      h("tbody", {}, list.map(tourRow)),
    ]),
  ]);
}

function createForm(onError) {
  const name = h("input", { id: "tour-name", type: "text", name: "name", required: true, maxlength: 64, value: t("tourney.default_name") });
  const kind = h("select", { id: "tour-kind", name: "kind" }, [
    h("option", { value: "swiss", text: t("tourney.swiss") }),
    h("option", { value: "arena", text: t("tourney.arena") }),
  ]);
  const clock = h("select", { id: "tour-clock", name: "clock" }, CLOCKS.map(([v, label]) => h("option", { value: v, text: label })));
  const rounds = h("input", { id: "tour-rounds", type: "number", min: 1, max: 20, value: 5 });
  const minutes = h("input", { id: "tour-minutes", type: "number", min: 1, max: 1440, value: 30 });
  const startsIn = h("input", { id: "tour-starts", type: "number", min: 0, max: 1440, value: "" });
  const rated = h("input", { id: "tour-rated", type: "checkbox" });
  const play = h("input", { id: "tour-play", type: "checkbox", checked: true });
  const field = (id, key, input, attrs = {}) => h("div", { class: "field", ...attrs }, [h("label", { for: id, text: t(key) }), input]);
  const choice = (input, id, key) => h("div", { class: "choice" }, [input, h("label", { for: id, text: t(key) })]);
  const roundsField = field("tour-rounds", "tourney.rounds", rounds);
  const minutesField = field("tour-minutes", "tourney.minutes", minutes, { hidden: true });
  kind.addEventListener("change", () => {
    roundsField.hidden = kind.value !== "swiss";
    minutesField.hidden = kind.value !== "arena";
  });
  const submit = async (event) => {
    event.preventDefault();
    const [initial, increment] = clock.value.split("+").map(Number);
    const body = { kind: kind.value, name: name.value, clock: { initial, increment }, rated: rated.checked, join: play.checked };
    if (kind.value === "swiss") body.rounds = Number(rounds.value);
    else body.minutes = Number(minutes.value);
    if (startsIn.value !== "") body.starts_at = new Date(Date.now() + Number(startsIn.value) * 60000).toISOString();
    try {
      const made = await tournamentsApi.create(body);
      location.assign(`/tournaments/${encodeURIComponent(made.tournament_id)}`);
    } catch (err) {
      onError(refusal(err));
    }
  };
  return h("form", { class: "tour-create card-panel", "data-testid": "tour-create", onsubmit: submit }, [
    h("h2", { text: t("tourney.create") }),
    field("tour-name", "tourney.name", name),
    h("div", { class: "field-row" }, [field("tour-kind", "tourney.kind", kind), field("tour-clock", "tourney.clock", clock), roundsField, minutesField]),
    field("tour-starts", "tourney.starts_in", startsIn),
    choice(rated, "tour-rated", "tourney.rated"),
    choice(play, "tour-play", "tourney.play_in_it"),
    h("button", { type: "submit", class: "btn primary", text: t("tourney.create_button") }),
  ]);
}

export async function mountTournaments(root) {
  document.title = `${t("tourney.title")} — Kahuna`;
  const [list, me] = await Promise.all([tournamentsApi.list().catch(() => null), currentAccount()]);
  if (!list) {
    fill(root, [h("p", { class: "message", text: t("lobby.offline") })]);
    return;
  }
  const error = h("p", { class: "error", role: "alert", "data-testid": "tour-error" });
  fill(root, [
    h("section", { class: "tournaments" }, [
      h("h1", { text: t("tourney.title") }),
      h("p", { text: t("tourney.intro") }),
      h("h2", { text: t("tourney.running") }),
      tourTable(list.running, "tour-running", t("tourney.running")),
      h("h2", { text: t("tourney.upcoming") }),
      tourTable(list.upcoming, "tour-upcoming", t("tourney.upcoming")),
      me ? createForm((text) => (error.textContent = text)) : h("p", {}, [h("a", { class: "btn primary", href: "/signin", text: t("tourney.sign_in") })]),
      error,
      h("h2", { text: t("tourney.finished") }),
      tourTable(list.finished, "tour-finished", t("tourney.finished")),
    ]),
  ]);
}

function countdown(tour) {
  const skew = tour.now * 1000 - Date.now();
  const target = tour.status === "created" ? tour.starts_at : tour.status === "running" ? tour.ends_at : null;
  if (!target) return null;
  const left = Math.max(0, Math.round((target * 1000 - (Date.now() + skew)) / 1000));
  const text = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  return t(tour.status === "created" ? "tourney.starts_in_time" : "tourney.ends_in_time", { time: text });
}

function result(board, seat) {
  if (board.result === null) return t("tourney.playing");
  if (board.result === "bye") return t("tourney.bye");
  if (board.result === "draw") return "½–½";
  if (board.result === "none") return t("tourney.no_result");
  return board.result === String(seat) ? "1–0" : "0–1";
}

function standingsTable(tour) {
  const swiss = tour.kind === "swiss";
  const head = ["tourney.place", "tourney.player", "tourney.score", "tourney.games", "tourney.player_games", ...(swiss ? ["tourney.buchholz", "tourney.sb"] : ["tourney.sheet"])];
  return scrollBox(t("tourney.standings"), [
    h("table", { class: "games-table", "data-testid": "standings" }, [
      h("thead", {}, [h("tr", {}, head.map((k) => h("th", { text: t(k) })))]),
      h("tbody", {}, tour.standings.map((row, i) => h("tr", {}, [
        h("td", { class: "num", text: String(i + 1) }),
        h("td", {}, [h("a", { href: `/users/${encodeURIComponent(row.username)}`, text: row.username }), row.tiebreaks.fire ? h("span", { class: "badge", text: t("tourney.fire") }) : null]),
        h("td", { class: "num", text: String(row.score) }),
        h("td", { class: "num", text: String(row.games) }),
        gamesCell(tour, row.username),
        ...(swiss
          ? [h("td", { class: "num", text: String(row.tiebreaks.buchholz) }), h("td", { class: "num", text: String(row.tiebreaks.sonneborn_berger) })]
          : [h("td", { text: (row.tiebreaks.sheet || []).join(" ") })]),
      ]))),
    ]),
  ]);
}

function pairings(tour) {
  return h("ol", { class: "tour-rounds", "data-testid": "pairings", reversed: true }, [...tour.rounds].reverse().map((boards, index) =>
    h("li", {}, [
      h("h3", { text: t(tour.kind === "swiss" ? "tourney.round_n" : "tourney.pairing_n", { n: tour.rounds.length - index }) }),
      h("ul", {}, boards.map((board) => {
        const [first, second] = board.players;
        const line = second === null ? `${first} — ${t("tourney.bye")}` : `${first} – ${second}: ${result(board, 0)}`;
        if (!board.game_id) return h("li", { text: line });
        const where = board.result === null ? `/watch/${board.game_id}` : `/replay/${board.game_id}`;
        return h("li", {}, [h("a", { href: where, text: line })]);
      })),
    ]),
  ));
}

function gameUrl(tid, game) {
  return `/play/${encodeURIComponent(game.game_id)}?tournament=${encodeURIComponent(tid)}#seat:${game.seat}`;
}

export async function mountTournament(root, tid) {
  let account = await currentAccount();
  const levels = await fetch("/api/levels").then((r) => r.json()).then((d) => d.levels.filter((l) => l !== "random")).catch(() => []);
  const status = h("p", { class: "message", role: "status", "aria-live": "polite", "data-testid": "tour-status" });
  const error = h("p", { class: "error", role: "alert", "data-testid": "tour-error" });
  const body = h("div", {});
  const chat = new EventChat(tid);
  let tour = null;
  let mine = null;
  let leaving = false;

  const goToGame = (game) => {
    if (leaving) return;
    leaving = true;
    sessionStorage.setItem(PLAYED_KEY, game.game_id); // coming back during this game stays on the standings
    playSound("turn");
    document.title = `▶ ${t("tourney.your_game_title")} — Kahuna`;
    fill(status, [t("tourney.taking_you"), " ", h("a", { href: gameUrl(tid, game), "data-testid": "go-to-game", text: t("tourney.play_now") })]);
    setTimeout(() => location.assign(gameUrl(tid, game)), GO_TO_GAME_MS);
  };

  const act = async (what, extra) => {
    error.textContent = "";
    try {
      await tournamentsApi.act(tid, what, extra);
      await refresh();
    } catch (err) {
      error.textContent = refusal(err);
    }
  };

  // The creator's invite list, one for the page's life: a redraw (a player joined, a game ended)
  // leaves it in place (refill), so that a list open under the creator's pointer stays open and
  // keeps its choice. Its options change only when the levels not in the event do: a level invited
  // meanwhile is taken out, and the choice stays unless it was that level (or sent: it is in now).
  const pick = h("select", { id: "tour-invite" });
  const send = (event) => {
    event.preventDefault();
    act("invite", { username: pick.value });
  };
  const invite = h("form", { class: "tour-actions", "data-testid": "tour-invite", onsubmit: send }, [
    h("label", { for: "tour-invite", text: t("tourney.invite") }), pick,
    h("button", { type: "submit", class: "btn", text: t("tourney.invite_button") }),
  ]);
  const offer = (free) => {
    const values = free.map((level) => `ai-${level}`);
    if (values.join() === [...pick.options].map((option) => option.value).join()) return;
    const chosen = pick.value;
    pick.replaceChildren(...free.map((level) => h("option", { value: `ai-${level}`, text: levelName(level) })));
    if (values.includes(chosen)) pick.value = chosen;
  };

  let drawn = ""; // what the page shows: redrawn only when it changes
  const render = () => {
    if (!tour) return;
    const shown = JSON.stringify([{ ...tour, now: null }, mine, account?.username ?? null]); // the server's clock aside
    if (shown === drawn) return;
    drawn = shown;
    const joined = mine?.joined;
    const running = tour.status === "running";
    const buttons = [];
    if (account && tour.status !== "finished" && !joined) buttons.push(h("button", { class: "btn primary", "data-testid": "tour-join", onclick: () => act("join"), text: t("tourney.join") }));
    if (account && tour.status !== "finished" && joined) buttons.push(h("button", { class: "btn", "data-testid": "tour-leave", onclick: () => act("leave"), text: t("tourney.leave") }));
    if (account && tour.status === "created" && account.username === tour.creator) buttons.push(h("button", { class: "btn primary", "data-testid": "tour-start", onclick: () => act("start"), text: t("tourney.start") }));
    if (!account && tour.status !== "finished") buttons.push(h("a", { class: "btn primary", href: "/signin", text: t("tourney.sign_in") }));
    // The levels not playing in the event already (the server refuses those: already_invited).
    const playing = new Set(tour.players.filter((p) => p.active).map((p) => p.username));
    const free = levels.filter((level) => !playing.has(`ai-${level}`));
    const inviting = account && tour.status !== "finished" && account.username === tour.creator && free.length;
    if (inviting) offer(free);
    let berserk = null;
    if (joined && tour.kind === "arena" && tour.status !== "finished") {
      const box = h("input", { type: "checkbox", id: "tour-berserk", checked: mine.berserk, onchange: (e) => act("berserk", { berserk: e.target.checked }) });
      berserk = h("div", { class: "choice" }, [box, h("label", { for: "tour-berserk", text: t("tourney.berserk") })]);
    }
    const current = mine?.game_id
      ? h("p", { class: "tour-current" }, [h("a", { class: "btn primary", href: gameUrl(tid, mine), "data-testid": "tour-current-game", text: t("tourney.your_game") })])
      : joined && running && hasByeNow(tour, account.username) ? h("p", { class: "tour-bye", "data-testid": "tour-bye", text: t("tourney.bye_now", { n: tour.round }) })
      : joined && running ? h("p", { class: "muted", "data-testid": "tour-waiting", text: t("tourney.waiting") }) : null;
    const when = countdown(tour);
    const entrant = account && tour.players.some((p) => p.username === account.username);
    chat.writable(tour.status === "finished" ? "finished" : !account ? "guest" : entrant ? "player" : "viewer");
    refill(body, [
      h("h1", { text: tour.name }),
      h("p", { "data-testid": "tour-summary", text: [kindLabel(tour.kind), clockLabel(tour.clock), length(tour), tour.rated ? t("tourney.rated") : t("tourney.casual"), t(`tourney.status_${tour.status}`)].join(" · ") }),
      when ? h("p", { class: "tour-countdown", "data-testid": "countdown", text: when }) : null,
      podium(tour),
      h("div", { class: "tour-actions" }, buttons),
      inviting ? invite : null,
      berserk,
      current,
      h("h2", { text: t("tourney.standings") }),
      tour.standings.length ? standingsTable(tour) : h("p", { class: "muted", text: t("tourney.nobody") }),
      h("h2", { text: t("tourney.pairings") }),
      tour.rounds.length ? pairings(tour) : h("p", { class: "muted", text: t("tourney.not_paired") }),
      shareRow(tid),
    ]);
  };

  let timer = null;
  let socket = null;
  const signedOut = () => {
    account = null; // a guest's page from now on
    mine = null;
    socket?.close();
  };
  const stop = () => {
    clearInterval(timer);
    timer = null;
    socket?.close();
  };
  const refresh = async () => {
    if (account && !csrfToken()) signedOut(); // signed out in another tab: no /me (its 401s)
    try {
      tour = await tournamentsApi.get(tid);
      mine = account ? await tournamentsApi.me(tid) : null;
    } catch (err) {
      if (err.status === 401 && tour) {
        signedOut(); // the session ended on the server
        render();
        return;
      }
      if (err.status === 404) {
        stop();
        fill(root, [h("p", { class: "message", text: t("tourney.not_found") })]);
        return;
      }
      error.textContent = t("lobby.offline");
      return;
    }
    document.title = `${tour.name} — Kahuna`;
    render();
    if (tour.status === "finished") stop(); // nothing changes any more: no polling
    if (mine?.game_id && !leaving && sessionStorage.getItem(PLAYED_KEY) !== mine.game_id) goToGame(mine);
  };

  fill(root, [h("section", { class: "tournament" }, [body, status, error, chat.element])]);
  const loading = chat.load(); // asked with the event, so that no request follows a finished event's page
  await refresh();
  await loading;
  if (tour?.status === "finished") return;
  timer = setInterval(() => {
    if (!document.body.contains(body) || !timer) {
      stop();
      return;
    }
    refresh();
    if (socket?.readyState !== WebSocket.OPEN) chat.load(); // a guest's page (no socket) polls the chat
  }, REFRESH_MS);
  setInterval(() => {
    const shown = root.querySelector("[data-testid=countdown]");
    if (shown && tour) shown.textContent = countdown(tour) || "";
  }, 1000);
  if (account) {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const connect = () => {
      if (!document.body.contains(body) || !timer || !account) return; // the page was left, the event is over, signed out
      socket = new WebSocket(`${scheme}://${location.host}/ws/lobby`);
      socket.onopen = () => {
        socket.send(JSON.stringify({ type: "watch", tournament_id: tid })); // the event's chat lines, live
        chat.load(); // the lines written while the socket was away
      };
      socket.onmessage = (event) => {
        const message = JSON.parse(event.data);
        if (message.type === "tournament_game" && message.tournament_id === tid) goToGame(message);
        if (message.type === "tournament_chat" && message.tournament_id === tid) chat.add(message.line);
      };
      // Closed by an instance going away (an upgrade) or a network drop: connect again, so that a
      // new game is learnt at once rather than at the next refresh.
      socket.onclose = () => setTimeout(connect, 2000);
    };
    connect();
    const pinger = setInterval(() => {
      if (!document.body.contains(body)) {
        clearInterval(pinger);
        socket?.close();
        return;
      }
      if (socket?.readyState === WebSocket.OPEN) socket.send('{"type":"ping"}');
    }, 10000);
  }
}

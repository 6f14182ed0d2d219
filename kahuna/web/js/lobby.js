// The lobby: start a game (AI, friend by invite link, hot-seat), resume "my games", watch a game.

import { dailyPuzzleCard } from "./puzzles.js";
import { onlineCounts } from "./social.js";
import { h, fill } from "./dom.js";
import { t, colourName } from "./i18n.js";
import { api } from "./api.js";
import { loadSeats, rememberSeat, preference, setPreference } from "./store.js";
import { copyRow } from "./game.js";
import { BoardView } from "./board.js";
import { outcomeWords } from "./narrate.js";
import { formatClock } from "./life.js";
import { currentAccount, playerName, playerNames } from "./account.js";
import { defaultName, guestName, levelWord } from "./names.js";

const VARIANTS = ["no_build_at_enemy_stone", "replace_on_remove"];

function radio(name, value, checked, label, help) {
  const id = `${name}-${value}`;
  return h("div", { class: "choice" }, [
    h("input", { type: "radio", name, value, id, checked }),
    h("label", { for: id }, [h("strong", { text: label }), help ? h("small", { text: help }) : null]),
  ]);
}

function select(id, options, chosen) {
  return h(
    "select",
    { id, name: id },
    options.map(([value, label]) => h("option", { value, selected: value === chosen, text: label })),
  );
}

/** The clocks offered when creating a game: real time (minutes + seconds per turn) and days per move. */
const CLOCKS = [
  ["", () => t("lobby.clock_none")],
  ["180+2", () => "3+2"],
  ["300+3", () => "5+3"],
  ["600+5", () => "10+5"],
  ["900+10", () => "15+10"],
  ["1800+0", () => "30+0"],
  ["d1", () => t("lobby.clock_day")],
  ["d3", () => t("lobby.clock_days", { n: 3 })],
  ["d7", () => t("lobby.clock_days", { n: 7 })],
];

/** The API's clock object for a value of the clock select ("" for none). */
function clockOf(value) {
  if (!value) return null;
  if (value.startsWith("d")) return { days: Number(value.slice(1)) };
  const [initial, increment] = value.split("+").map(Number);
  return { initial, increment };
}

/** The lobby; `levels` are the AI levels the server offers (GET /api/levels), weakest first. */
export function mountLobby(root, board, levels) {
  const result = h("div", { class: "create-result", "aria-live": "polite" });
  const error = h("p", { class: "message", role: "alert" });
  const form = h("form", { class: "new-game card-panel", "aria-labelledby": "new-title" }, [
    h("h2", { id: "new-title", text: t("lobby.new_game") }),
    h("fieldset", {}, [
      h("legend", { text: t("lobby.opponent") }),
      radio("opponent", "ai", true, t("lobby.vs_ai"), t("lobby.vs_ai_help")),
      radio("opponent", "human", false, t("lobby.vs_friend"), t("lobby.vs_friend_help")),
      radio("opponent", "hotseat", false, t("lobby.hotseat"), t("lobby.hotseat_help")),
    ]),
    h("div", { class: "field-row" }, [
      h("div", { class: "field level-field" }, [
        h("label", { for: "level", text: t("lobby.level") }),
        select(
          "level",
          levels.map((l) => [l, levelWord(l)]),
          preference("level", "easy"),
        ),
      ]),
      h("div", { class: "field" }, [
        h("label", { for: "seat", text: t("lobby.seat") }),
        select(
          "seat",
          [
            ["random", t("lobby.seat_random")],
            ["first", t("lobby.seat_first")],
            ["second", t("lobby.seat_second")],
          ],
          "random",
        ),
      ]),
      h("div", { class: "field" }, [
        h("label", { for: "clock", text: t("lobby.clock") }),
        select("clock", CLOCKS.map(([value, label]) => [value, label()]), preference("clock", "")),
      ]),
      h("div", { class: "field" }, [
        h("label", { for: "name", text: t("lobby.name") }),
        h("input", {
          id: "name",
          name: "name",
          type: "text",
          maxlength: 40,
          autocomplete: "nickname",
          value: preference("name", ""),
          placeholder: guestName(),
        }),
      ]),
    ]),
    // Unlisted: kept off the Watch page and the live list (a hot-seat game always is).
    h("div", { class: "choice unlisted-field" }, [
      h("input", { type: "checkbox", id: "unlisted", name: "unlisted" }),
      h("label", { for: "unlisted" }, [
        h("strong", { text: t("watch.unlisted") }),
        h("small", { text: t("watch.unlisted_help") }),
      ]),
    ]),
    // Variants are for regulars: folded away, so that "Start game" stays in view.
    h("details", { class: "variants" }, [
      h("summary", { text: t("lobby.variants") }),
      ...VARIANTS.map((v) =>
        h("div", { class: "choice" }, [
          h("input", { type: "checkbox", id: `variant-${v}`, name: "variant", value: v }),
          h("label", { for: `variant-${v}` }, [
            h("strong", { text: t(`variant.${v}`) }),
            h("small", { text: t(`variant.${v}.help`) }),
          ]),
        ]),
      ),
    ]),
    h("button", { type: "submit", class: "btn primary", id: "start", text: t("lobby.start") }),
    error,
  ]);
  const levelField = form.querySelector(".level-field");
  const unlistedField = form.querySelector(".unlisted-field");
  form.addEventListener("change", () => {
    levelField.hidden = form.elements.opponent.value !== "ai";
    unlistedField.hidden = form.elements.opponent.value === "hotseat";
  });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const opponent = form.elements.opponent.value;
    const name = defaultName(form.elements.name.value, opponent === "hotseat");
    setPreference("name", form.elements.name.value.trim());
    const options = {
      opponent,
      seat: form.elements.seat.value,
      name,
      variant: [...form.querySelectorAll("input[name=variant]:checked")].map((i) => i.value),
    };
    if (opponent === "ai") {
      options.level = form.elements.level.value;
      setPreference("level", options.level);
    }
    if (opponent !== "hotseat" && form.elements.unlisted.checked) options.unlisted = true;
    const clock = clockOf(form.elements.clock.value);
    if (clock) options.clock = clock;
    setPreference("clock", form.elements.clock.value);
    error.textContent = "";
    try {
      const game = await api.createGame(options);
      // The game exists: the form has done its job and must not create a second one by mistake.
      for (const control of form.elements) control.disabled = true;
      started(game, opponent, result);
    } catch (err) {
      error.textContent = err.message || t("lobby.offline");
    }
  });
  const mine = h("section", { class: "my-games card-panel", "aria-labelledby": "mine-title" }, [
    h("h2", { id: "mine-title", text: t("lobby.my_games") }),
    h("p", { class: "hint", text: t("lobby.loading") }),
  ]);
  const watchInput = h("input", { id: "watch-id", type: "text", autocomplete: "off" });
  const watch = h(
    "form",
    {
      class: "watch card-panel",
      onsubmit: (e) => {
        e.preventDefault();
        const id = watchInput.value.trim().split("/").filter(Boolean).pop();
        if (id) location.href = `/watch/${encodeURIComponent(id.split("#")[0])}`;
      },
    },
    [
      h("h2", { text: t("lobby.watch") }),
      h("label", { for: "watch-id", text: t("lobby.watch_label") }),
      h("div", { class: "copy-line" }, [
        watchInput,
        h("button", { type: "submit", class: "btn", text: t("lobby.watch_go") }),
      ]),
    ],
  );
  // The title, one line and the form first, so "Start game" is in view on a laptop and a phone.
  fill(root, [
    h("div", { class: "lobby" }, [
      h("div", { class: "lobby-cols" }, [
        h("div", { class: "lobby-main" }, [
          h("section", { class: "intro" }, [
            h("h1", { text: "Kahuna" }),
            h("p", { class: "tagline" }, [
              t("lobby.tagline"),
              " ",
              h("a", { href: "/rules", text: t("lobby.read_rules") }),

            ]),
          ]),
          form,
          result,
        ]),
        h("div", { class: "lobby-side" }, [
          dailyPuzzleCard(),
          h("section", { class: "learn card-panel" }, [
            h("div", { class: "intro-board", "aria-hidden": "true" }, [new BoardView(board, () => {}).element]),
            h("p", {}, [tutorialButton("primary")]),
          ]),
          h("section", { class: "community-link card-panel" }, [
            h("h2", { text: t("seeks.title") }),
            h("p", { text: t("seeks.teaser") }),
            onlineCounts(),
            h("p", {}, [
              h("a", { href: "/lobby", id: "community-link", text: t("nav.community") }),
              " · ",
              h("a", { href: "/leaderboard", text: t("nav.leaderboard") }),
              " · ",
              h("a", { href: "/tournaments", id: "tournaments-link", text: t("tourney.nav") }),
            ]),
          ]),
          mine,
          watch,
        ]),
      ]),
    ]),
  ]);
  document.title = `${t("title.lobby")} — Kahuna`;
  listMyGames(mine);
}

function started(game, opponent, result) {
  if (opponent === "hotseat") {
    game.tokens.forEach((token, seat) => rememberSeat({ game_id: game.game_id, seat, token, hotseat: true }));
    location.href = `/play/${encodeURIComponent(game.game_id)}#${game.tokens.join(",")}`;
    return;
  }
  rememberSeat({ game_id: game.game_id, seat: game.seat, token: game.token, invite_url: game.invite_url || null });
  if (opponent === "ai") {
    location.href = game.seat_url;
    return;
  }
  fill(result, [
    h("section", { class: "card-panel invite" }, [
      h("h2", { text: t("lobby.invite_title") }),
      h("p", { text: t("lobby.invite_text", { colour: colourName(game.seat) }) }),
      copyRow("invite", t("share.invite"), location.origin + game.invite_url),
      h("p", {}, [
        h("a", { class: "btn primary", id: "go-to-table", href: game.seat_url, text: t("lobby.go_to_table") }),
      ]),
    ]),
  ]);
  result.querySelector("input").focus();
}

/**
 * The games of this browser's seat tokens and, when signed in, of the account (on any browser):
 * an account's seat this browser has no token for is played as "seat:N" (see connection.js).
 */
async function myGames(seats) {
  const me = await currentAccount();
  const [local, remote] = await Promise.all([
    seats.length ? api.myGames(seats.map((s) => s.token)) : [],
    me ? api.accountGames() : [],
  ]);
  const known = new Set(local.map((g) => `${g.game_id}/${g.seat}`));
  const more = remote.filter((g) => !known.has(`${g.game_id}/${g.seat}`)).map((g) => ({ ...g, token: `seat:${g.seat}` }));
  return [...local, ...more].sort((a, b) => String(b.updated).localeCompare(String(a.updated)));
}

async function listMyGames(box) {
  const seats = loadSeats();
  const title = box.querySelector("h2");
  let games;
  try {
    games = await myGames(seats);
  } catch (err) {
    fill(box, [title, h("p", { class: "message", text: err.message || t("lobby.offline") })]);
    return;
  }
  if (!games.length) {
    fill(box, [title, h("p", { class: "hint", text: t("lobby.no_games") })]);
    return;
  }
  const byGame = new Map();
  for (const g of games) {
    if (!byGame.has(g.game_id)) byGame.set(g.game_id, { ...g, tokens: [] });
    byGame.get(g.game_id).tokens[g.seat] = g.token;
  }
  const all = [...byGame.values()];
  // Games where this browser's player is to move come first, in a list of their own.
  const waiting = all.filter((g) => g.status === "playing" && g.tokens.filter(Boolean).length === 1 && g.to_move === g.seat);
  const waitingList = waiting.map((g) =>
    h("li", { class: "my-game waiting-game" }, [
      h("a", { href: `/play/${encodeURIComponent(g.game_id)}#${g.token}`, class: "waiting-link", text: t("lobby.resume") }),
      h("span", { class: "my-game-players", text: playerNames(g.players, g.kinds).filter(Boolean).join(" – ") }),
      g.clock
        ? h("small", { class: "my-game-state", text: formatClock(g.clock.remaining[g.seat]) })
        : null,
    ]),
  );
  const items = all.map((g) => {
    const tokens = g.tokens.filter(Boolean);
    const hotseat = tokens.length > 1;
    const href =
      g.status === "over"
        ? `/replay/${encodeURIComponent(g.game_id)}`
        : `/play/${encodeURIComponent(g.game_id)}#${tokens.join(",")}`;
    const players = (g.players || [])
      .map((p, seat) => `${colourName(seat)}: ${p === null ? t("players.waiting") : playerName(p, g.kinds?.[seat])}`)
      .join(" · ");
    const state =
      g.status === "over"
        ? outcomeWords(g.result?.winner ?? null, g.result?.reason ?? "draw")
        : g.status === "waiting"
          ? t("lobby.status_waiting")
          : !hotseat && g.to_move === g.seat
            ? t("lobby.status_your_turn")
            : t("lobby.status_playing");
    return h("li", { class: `my-game status-${g.status}` }, [
      h("a", { href, class: "my-game-link", text: g.status === "over" ? t("lobby.replay") : t("lobby.resume") }),
      h("span", { class: "my-game-players", text: players }),
      h("small", { class: "my-game-state", text: `${state} · ${t("lobby.actions", { n: g.version })}` }),
    ]);
  });
  fill(box, [
    waitingList.length ? h("h2", { id: "waiting-title", text: t("lobby.waiting_for_you") }) : null,
    waitingList.length ? h("ul", { class: "my-game-list waiting-list", "data-testid": "waiting-for-you" }, waitingList) : null,
    title,
    items.length ? h("ul", { class: "my-game-list" }, items) : h("p", { class: "hint", text: t("lobby.no_games") }),
  ]);
}

/** /join/<invite>: take the free seat of a friend's game. */
export function mountJoin(root, invite) {
  const error = h("p", { class: "message", role: "alert" });
  const name = h("input", {
    id: "name",
    type: "text",
    maxlength: 40,
    value: preference("name", ""),
    placeholder: guestName(),
    autocomplete: "nickname",
  });
  const form = h(
    "form",
    {
      class: "join card-panel",
      onsubmit: async (e) => {
        e.preventDefault();
        setPreference("name", name.value.trim());
        try {
          const seat = await api.join(invite, defaultName(name.value));
          rememberSeat({ game_id: seat.game_id, seat: seat.seat, token: seat.token });
          location.href = seat.seat_url;
        } catch (err) {
          error.textContent =
            err.code === "taken" ? t("join.taken") : err.code === "not_found" ? t("join.not_found") : err.message;
        }
      },
    },
    [
      h("h1", { text: t("join.title") }),
      h("p", { text: t("join.text") }),
      h("div", { class: "field" }, [h("label", { for: "name", text: t("lobby.name") }), name]),
      h("button", { type: "submit", class: "btn primary", id: "join", text: t("join.button") }),
      error,
    ],
  );
  fill(root, [h("div", { class: "lobby" }, [form])]);
  document.title = `${t("join.title")} — Kahuna`;
  name.focus();
}

/**
 * The tutorial's button: start its game (the server deals the scripted deal) and open it at
 * /play/<id>?tutorial with both seats' tokens. A button, not a page: nothing to bookmark.
 */
export function tutorialButton(extraClass = "") {
  const status = h("span", { class: "message", role: "status" });
  const button = h("button", {
    type: "button",
    class: `btn ${extraClass}`,
    id: "tutorial-start",
    text: t("tutorial.start"),
    onclick: async () => {
      button.disabled = true;
      try {
        const name = defaultName(preference("name", ""));
        const game = await api.createGame({ opponent: "tutorial", name });
        location.href = `/play/${encodeURIComponent(game.game_id)}?tutorial#${game.tokens.join(",")}`;
      } catch (err) {
        button.disabled = false;
        status.textContent = err.message || t("lobby.offline");
      }
    },
  });
  return h("span", { class: "tutorial-start" }, [button, " ", status]);
}

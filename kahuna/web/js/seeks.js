// The community lobby (/lobby): the open seeks, live from /ws/lobby, with filters (clock, rated,
// variant, rating range); a seek of your own, on a listed or a custom clock; "play now" (quick
// pairing); challenges to the computer's rated levels, to a player (/lobby?challenge=NAME, from a
// profile) and from other players. A guest sees rated seeks as needing an account. Names are put
// on the page as text only. An offer lives while this page is open: the page pings every 10 s,
// and the server cancels the offer when the connection closes.

import { onlineCounts, onlineDot, refusalText } from "./social.js";
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { api, ApiError } from "./api.js";
import { rememberSeat, preference, setPreference } from "./store.js";
import { currentAccount } from "./account.js";
import { formatClock } from "./life.js";
import { guestName, levelName } from "./names.js";

const CLOCKS = [
  ["180+2", "3+2"],
  ["300+3", "5+3"],
  ["600+5", "10+5"],
  ["900+10", "15+10"],
  ["d1", null],
  ["d3", null],
];
const PING_MS = 10000;
/** The custom clock's bounds (the server checks its own: docs/server.md's clock_min_seconds). */
const CUSTOM = { minutes: [1, 180], increment: [0, 60] };

function clockOf(value) {
  if (value.startsWith("d")) return { days: Number(value.slice(1)) };
  const [initial, increment] = value.split("+").map(Number);
  return { initial, increment };
}

export function clockLabel(clock) {
  if (!clock) return t("seeks.untimed");
  if (clock.days) return clock.days === 1 ? t("lobby.clock_day") : t("lobby.clock_days", { n: clock.days });
  const minutes = clock.initial % 60 === 0 ? String(clock.initial / 60) : formatClock(clock.initial);
  return `${minutes}+${clock.increment || 0}`;
}

/** The filters of the seek list, kept in this browser: {clock, rated, variant, min, max}. */
function loadFilters() {
  try {
    return { clock: "any", rated: "any", variant: "any", min: "", max: "", ...JSON.parse(preference("seek_filters", "{}")) };
  } catch {
    return { clock: "any", rated: "any", variant: "any", min: "", max: "" };
  }
}

/** Whether a seek passes the filters (a rating bound leaves out seeks without a rating). */
function shownBy(filters, seek) {
  const correspondence = Boolean(seek.clock?.days);
  if (filters.clock === "realtime" && (correspondence || !seek.clock)) return false;
  if (filters.clock === "correspondence" && !correspondence) return false;
  if (filters.rated !== "any" && seek.rated !== (filters.rated === "rated")) return false;
  if (filters.variant !== "any" && (seek.variant || []).length > 0 !== (filters.variant === "variants")) return false;
  const [min, max] = [filters.min, filters.max].map((v) => (v === "" ? null : Number(v)));
  if ((min !== null || max !== null) && seek.rating === null) return false;
  return (min === null || seek.rating >= min) && (max === null || seek.rating <= max);
}

/** Go to a seat the lobby gave this browser (remembered, like any seat, for "my games"). */
function takeSeat(seat) {
  rememberSeat({ game_id: seat.game_id, seat: seat.seat, token: seat.token });
  location.assign(seat.seat_url);
}

function errorText(err) {
  if (err instanceof ApiError && err.code === "too_many_seeks") return t("seeks.too_many");
  if (err instanceof ApiError && err.code === "blocked") return refusalText(err);
  if (err instanceof ApiError && err.code === "rating_marked") return t("seeks.rating_marked");
  if (err instanceof ApiError && err.code === "site_account") return t("seeks.site_account");
  if (err instanceof ApiError && err.status === 401) return t("seeks.sign_in_for_rated");
  return err instanceof ApiError && err.message ? err.message : t("lobby.offline");
}

const DOTS_EVERY_MS = 5000;

export async function mountSeeks(root, levels) {
  document.title = `${t("seeks.title")} — Kahuna`;
  const me = await currentAccount();
  const list = h("ul", { class: "seek-list", "data-testid": "seek-list", "aria-live": "polite" });
  const status = h("p", { class: "message", role: "status", "data-testid": "seek-status" });
  const seeks = new Map(); // seek_id -> public seek
  const incoming = new Map(); // seek_id -> a challenge to this account
  const challenges = h("ul", { class: "seek-list", "data-testid": "challenge-list", "aria-live": "polite" });
  const opponent = new URLSearchParams(location.search).get("challenge");
  const mine = new Map(); // seek_id -> token
  // Opponents with whom this account has played its rated games of the day: their rated seeks
  // would start casual (docs/community.md), said before anyone accepts.
  const pairLimits = me ? await api.pairLimits().catch(() => null) : null;
  const limited = new Set((pairLimits?.opponents || []).map((o) => o.username));
  const limitWords = { n: pairLimits?.limit ?? 3, hours: pairLimits?.hours ?? 24 };
  let socket = null;
  // The accounts of the listed offers that are online (their dots): asked for every few seconds.
  let onlineNames = new Set();
  async function lookDots() {
    const names = [...new Set([...seeks.values(), ...incoming.values()].filter((o) => o.account).map((o) => o.username))].slice(0, 50);
    if (names.length) {
      const found = await api.onlineUsers(names).catch(() => null);
      if (found) {
        const fresh = new Set(found.online);
        const changed = fresh.size !== onlineNames.size || [...fresh].some((n) => !onlineNames.has(n));
        onlineNames = fresh;
        if (changed) render();
      }
    }
  }
  async function refreshDots() {
    if (!list.isConnected) return; // this page was left (or drawn anew in another language)
    await lookDots();
    setTimeout(refreshDots, DOTS_EVERY_MS);
  }

  const clockSelect = h("select", { id: "seek-clock" }, [
    ...CLOCKS.map(([value, label]) => h("option", { value, text: label || clockLabel(clockOf(value)) })),
    h("option", { value: "custom", text: t("seeks.clock_custom") }),
  ]);
  clockSelect.value = "300+3";
  // A clock of one's own: minutes for each player and seconds added per turn.
  const number = (id, [min, max], value) => h("input", { id, type: "number", min, max, step: 1, value, required: true });
  const customMinutes = number("seek-minutes", CUSTOM.minutes, 5);
  const customIncrement = number("seek-increment", CUSTOM.increment, 3);
  const customBox = h("div", { class: "custom-clock", hidden: true }, [
    h("div", { class: "field" }, [h("label", { for: "seek-minutes", text: t("seeks.minutes") }), customMinutes]),
    h("div", { class: "field" }, [h("label", { for: "seek-increment", text: t("seeks.increment") }), customIncrement]),
  ]);
  clockSelect.addEventListener("change", () => (customBox.hidden = clockSelect.value !== "custom"));
  /** The chosen clock, or null (with the reason shown) for a custom clock out of bounds. */
  function chosenClock() {
    if (clockSelect.value !== "custom") return clockOf(clockSelect.value);
    const [minutes, increment] = [customMinutes, customIncrement].map((input) => Number(input.value));
    const inside = (v, [lo, hi]) => Number.isInteger(v) && v >= lo && v <= hi;
    if (!inside(minutes, CUSTOM.minutes) || !inside(increment, CUSTOM.increment)) {
      status.textContent = t("seeks.custom_bounds", {
        min: CUSTOM.minutes[0],
        max: CUSTOM.minutes[1],
        inc: CUSTOM.increment[1],
      });
      return null;
    }
    return { initial: minutes * 60, increment };
  }
  const rated = h("input", { type: "checkbox", id: "seek-rated", checked: Boolean(me), disabled: !me });
  const nameInput = h("input", {
    id: "seek-name",
    type: "text",
    maxlength: 40,
    value: me ? me.username : preference("name", ""),
    placeholder: guestName(),
    disabled: Boolean(me),
  });
  const nameOf = () => nameInput.value.trim() || guestName();

  const filters = loadFilters();
  const filterSelect = (key, options) =>
    h(
      "select",
      {
        id: `filter-${key}`,
        onchange: (e) => setFilter(key, e.target.value),
      },
      options.map((value) => h("option", { value, selected: filters[key] === value, text: t(`seeks.filter_${key}_${value}`) })),
    );
  const ratingInput = (key) =>
    h("input", {
      id: `filter-${key}`,
      type: "number",
      min: 0,
      max: 4000,
      step: 50,
      value: filters[key],
      placeholder: t(`seeks.filter_${key}_any`),
      oninput: (e) => setFilter(key, e.target.value),
    });
  const filterCount = h("p", { class: "hint", "aria-live": "polite", "data-testid": "filter-count" });
  const filterBox = h("fieldset", { class: "seek-filters", "data-testid": "seek-filters" }, [
    h("legend", { text: t("seeks.filters") }),
    h("div", { class: "filter-row" }, [
      h("div", { class: "field" }, [
        h("label", { for: "filter-clock", text: t("lobby.clock") }),
        filterSelect("clock", ["any", "realtime", "correspondence"]),
      ]),
      h("div", { class: "field" }, [
        h("label", { for: "filter-rated", text: t("seeks.filter_rated") }),
        filterSelect("rated", ["any", "rated", "casual"]),
      ]),
      h("div", { class: "field" }, [
        h("label", { for: "filter-variant", text: t("lobby.variants") }),
        filterSelect("variant", ["any", "standard", "variants"]),
      ]),
      h("div", { class: "field" }, [h("label", { for: "filter-min", text: t("seeks.filter_min") }), ratingInput("min")]),
      h("div", { class: "field" }, [h("label", { for: "filter-max", text: t("seeks.filter_max") }), ratingInput("max")]),
    ]),
    filterCount,
  ]);

  function setFilter(key, value) {
    filters[key] = value;
    setPreference("seek_filters", JSON.stringify(filters));
    render();
  }

  /** A seek's button: play it, cancel one's own, or, for a guest and a rated seek, sign in first. */
  function seekButton(seek) {
    if (mine.has(seek.seek_id))
      return h("button", { type: "button", class: "btn", onclick: () => cancel(seek.seek_id), text: t("seeks.cancel") });
    if (seek.rated && !me)
      return h("a", { class: "btn needs-account", href: "/signin", text: t("seeks.needs_account") });
    return h("button", { type: "button", class: "btn primary", onclick: () => accept(seek.seek_id), text: t("seeks.accept") });
  }

  /** Rated or casual; a rated offer that would start casual today says so, and why. */
  function ratedLabel(offer, casualToday) {
    if (offer.rated && casualToday)
      return h("span", {
        class: "seek-rated casual-today",
        title: t("seeks.casual_today_why", limitWords),
        text: t("seeks.casual_today"),
      });
    return h("span", { class: "seek-rated", text: offer.rated ? t("seeks.rated") : t("seeks.casual") });
  }

  function render() {
    const shown = [...seeks.values()].filter((seek) => mine.has(seek.seek_id) || shownBy(filters, seek));
    const items = shown.map((seek) => {
      const rating = seek.rating === null ? "" : ` (${seek.rating})`;
      return h("li", { class: "seek", "data-seek": seek.seek_id }, [
        h("span", { class: "seek-who" }, [
          seek.account ? onlineDot(onlineNames.has(seek.username)) : null,
          seek.account ? h("a", { href: `/users/${encodeURIComponent(seek.username)}`, text: seek.username }) : seek.username,
          rating,
        ]),
        h("span", { class: "seek-clock", text: clockLabel(seek.clock) }),
        ratedLabel(seek, seek.account && limited.has(seek.username)),
        (seek.variant || []).length
          ? h("span", { class: "seek-variant", text: seek.variant.map((v) => t(`variant.${v}`)).join(", ") })
          : null,
        seekButton(seek),
      ]);
    });
    const hidden = seeks.size - shown.length;
    filterCount.textContent = hidden ? t("seeks.filtered", { hidden, n: seeks.size }) : "";
    fill(list, items.length ? items : [h("li", { class: "seek-empty", text: t(hidden ? "seeks.none_shown" : "seeks.none") })]);
    fill(
      challenges,
      [...incoming.values()].map((c) =>
        h("li", { class: "seek", "data-seek": c.seek_id }, [
          h("span", { class: "seek-who" }, [
            c.account ? onlineDot(onlineNames.has(c.username)) : null,
            c.account ? h("a", { href: `/users/${encodeURIComponent(c.username)}`, text: c.username }) : c.username,
          ]),
          h("span", { class: "seek-clock", text: clockLabel(c.clock) }),
          ratedLabel(c, c.casual_reason === "pair_limit"),
          h("button", { type: "button", class: "btn primary", onclick: () => answer(c.seek_id, true), text: t("seeks.accept") }),
          h("button", { type: "button", class: "btn", onclick: () => answer(c.seek_id, false), text: t("seeks.decline") }),
        ]),
      ),
    );
    challengesBox.hidden = incoming.size === 0;
  }

  function own(seekId, token) {
    mine.set(seekId, token);
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "own", seek_id: seekId, token }));
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${location.host}/ws/lobby`);
    const ping = setInterval(() => socket.readyState === WebSocket.OPEN && socket.send('{"type":"ping"}'), PING_MS);
    socket.onopen = () => {
      for (const [seekId, token] of mine) socket.send(JSON.stringify({ type: "own", seek_id: seekId, token }));
    };
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "seeks") {
        seeks.clear();
        for (const seek of message.seeks) seeks.set(seek.seek_id, seek);
      } else if (message.type === "seek_added") {
        seeks.set(message.seek.seek_id, message.seek);
        if (message.seek.account) lookDots();
      }
      else if (message.type === "challenges") {
        for (const c of message.challenges) incoming.set(c.seek_id, c);
      } else if (message.type === "challenge") incoming.set(message.challenge.seek_id, message.challenge);
      else if (message.type === "account_closed") status.textContent = t("account.closed"); // then a guest's connection
      else if (message.type === "declined") {
        mine.delete(message.seek_id);
        status.textContent = t("seeks.declined");
      } else if (message.type === "seek_removed") {
        seeks.delete(message.seek_id);
        incoming.delete(message.seek_id);
        if (mine.has(message.seek_id) && message.reason !== "accepted") mine.delete(message.seek_id);
      } else if (message.type === "accepted" && message.token) {
        mine.delete(message.seek_id);
        takeSeat(message);
        return;
      }
      render();
    };
    socket.onclose = () => {
      clearInterval(ping);
      setTimeout(connect, 2000);
    };
  }

  async function create(kind) {
    status.textContent = "";
    const clock = chosenClock();
    if (!clock) return;
    const body = { clock, rated: rated.checked, name: nameOf() };
    try {
      const made =
        kind === "pool" ? await api.playNow(body) : kind === "challenge" ? await api.challenge({ ...body, opponent }) : await api.seek(body);
      if (made.game_id) return takeSeat(made);
      own(made.seek_id, made.token);
      status.textContent =
        kind === "pool" ? t("seeks.waiting_pairing") : kind === "challenge" ? t("seeks.waiting_challenge", { name: opponent }) : t("seeks.waiting");
      if (made.casual_reason === "pair_limit") status.textContent += ` ${t("seeks.casual_today_why", limitWords)}`;
      render();
    } catch (err) {
      status.textContent = errorText(err);
    }
  }

  async function accept(seekId) {
    status.textContent = "";
    try {
      takeSeat(await api.acceptSeek(seekId, nameOf()));
    } catch (err) {
      status.textContent = err instanceof ApiError && err.code === "gone" ? t("seeks.gone") : errorText(err);
    }
  }

  async function answer(seekId, yes) {
    status.textContent = "";
    incoming.delete(seekId);
    render();
    try {
      if (yes) takeSeat(await api.acceptChallenge(seekId));
      else await api.declineChallenge(seekId);
    } catch (err) {
      status.textContent = err instanceof ApiError && err.code === "gone" ? t("seeks.gone") : errorText(err);
    }
  }

  async function cancel(seekId) {
    const token = mine.get(seekId);
    mine.delete(seekId);
    await api.cancelSeek(seekId, token).catch(() => {});
  }

  async function challenge(level) {
    status.textContent = "";
    const clock = chosenClock();
    if (!clock) return;
    try {
      const body = { opponent: `ai-${level}`, clock, rated: rated.checked, name: nameOf() };
      takeSeat(await api.challenge(body));
    } catch (err) {
      status.textContent = errorText(err);
    }
  }

  const bots = levels.filter((level) => level !== "random");
  const challengesBox = h("div", { class: "challenges", hidden: true }, [h("h2", { text: t("seeks.challenges") }), challenges]);
  const challengeButton = opponent
    ? h("button", { type: "button", id: "challenge", class: "btn primary", onclick: () => create("challenge"), text: t("seeks.challenge", { name: opponent }) })
    : null;
  fill(root, [
    h("section", { class: "community" }, [
      h("h1", { text: t("seeks.title") }),
      h("p", { class: "lede", text: me ? t("seeks.signed_in", { name: me.username }) : t("seeks.guest") }),
      onlineCounts(),
      h("div", { class: "seek-form card-panel" }, [
        h("div", { class: "field" }, [h("label", { for: "seek-clock", text: t("lobby.clock") }), clockSelect]),
        customBox,
        h("div", { class: "field" }, [h("label", { for: "seek-name", text: t("lobby.name") }), nameInput]),
        h("div", { class: "choice" }, [rated, h("label", { for: "seek-rated", text: t("seeks.rated_game") })]),
        h("div", { class: "actions" }, [
          h("button", { type: "button", id: "play-now", class: "btn primary", onclick: () => create("pool"), text: t("seeks.play_now") }),
          h("button", { type: "button", id: "new-seek", class: "btn", onclick: () => create("seek"), text: t("seeks.create") }),
          challengeButton,
        ]),
        status,
      ]),
      challengesBox,
      h("h2", { text: t("seeks.open") }),
      filterBox,
      list,
      h("h2", { text: t("seeks.bots") }),
      h("p", { text: t("seeks.bots_help") }),
      h(
        "div",
        { class: "actions bot-levels" },
        bots.map((level) => h("button", { type: "button", class: "btn", onclick: () => challenge(level), text: levelName(level) })),
      ),
      h("p", {}, [h("a", { href: "/leaderboard", text: t("leaderboard.title") })]),
    ]),
  ]);
  render();
  connect();
  setTimeout(refreshDots, 1000);
}

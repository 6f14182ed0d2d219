// The moderators' page /mod (issue 48, docs/moderation.md): the queue of open reports, grouped by
// the player reported (the most reported first, as the server orders them), each with its context
// (the chat lines around a reported line, the game's replay) and its actions (warn, mute in chat
// for some minutes, shadow-mute, hide the reported line, rename, close with no sanction); the players' open appeals of sanctions, each upheld or
// overturned (the sanction undone) with a reason; and the moderation log, where a sanction is undone
// (and the whole log downloaded as JSON lines). Everything comes from /api/mod/*, which answers a
// moderator only: anyone else gets its 404, and this page then says "not found" as for a page that
// does not exist. An admin also has the moderators' tab: the moderators, each revoked, and a player
// made one. Names and texts go on the page as text only.

import { h, fill, scrollBox } from "./dom.js";
import { t } from "./i18n.js";
import { api, ApiError } from "./api.js";
import { when } from "./report.js";

const REFUSALS = [
  "not_found",
  "own_account",
  "target_is_admin",
  "invalid",
  "no_such_report",
  "not_that_report",
  "report_not_open",
  "no_such_sanction",
  "already_undone",
  "no_such_appeal",
  "appeal_decided",
  "own_sanction",
  "admin_only",
  "command_line_only",
  "already_held",
  "not_held",
  "already_marked",
  "already_closed",
  "already_renamed",
  "no_such_line",
  "not_their_line",
  "already_hidden",
];

/** The sanctions on the account itself (docs/moderation.md, *Account sanctions*): a mark from the
 * page covers the account's whole history; block_signups takes the minutes field. */
const ACCOUNT_KINDS = ["mark_cheating", "mark_rating_manipulation", "close", "block_signups"];

/** Say on the page's status line what came of an action: done (`ok`), or refused in words. */
function say(status, text, ok) {
  status.textContent = text;
  status.classList.toggle("ok", ok);
}

function modRefusal(err) {
  if (!(err instanceof ApiError) || err.code === "offline") return t("lobby.offline");
  return REFUSALS.includes(err.code) ? t(`mod.err_${err.code}`) : err.message;
}

/** The chat lines around a reported line (that line marked), each with its account's name. */
function contextLines(context) {
  if (!context.lines) return null;
  return h(
    "ol",
    { class: "mod-lines", "data-testid": "mod-lines" },
    context.lines.map((line) =>
      h("li", { class: line.line_id === context.line_id ? "reported" : null, "aria-current": line.line_id === context.line_id ? "true" : null }, [
        h("span", { class: "who", text: `${line.username ?? t("chat.spectator")}: ` }),
        h("span", { class: "chat-text", text: line.text }),
      ]),
    ),
  );
}

/** One report: who reported why, its context, and the moderator's three actions on it. */
function reportItem(report, reload, status) {
  const id = report.report_id;
  const why = h("input", { id: `why-${id}`, type: "text", maxlength: 500, required: true, class: "mod-why" });
  const minutes = h("input", { id: `minutes-${id}`, type: "number", min: 1, max: 525600, value: 60, required: true, class: "mod-minutes" });
  const kinds = h(
    "select",
    { id: `kind-${id}`, class: "mod-kind" },
    ACCOUNT_KINDS.map((kind) => h("option", { value: kind, text: t(`mod.kind_${kind}`) })),
  );
  const act = (call) => async () => {
    status.textContent = "";
    if (!why.reportValidity()) return;
    try {
      await call();
      say(status, t("mod.done"), true);
      reload();
    } catch (err) {
      say(status, modRefusal(err), false);
    }
  };
  const sanction = (kind, extra = {}) => () =>
    api.sanction({ username: report.username, kind, reason: why.value.trim(), report_id: id, ...extra });
  const context = report.context || {};
  return h("li", { class: "mod-report card-panel", dataset: { report: String(id) } }, [
    h("p", {}, [
      h("strong", { text: t(`report.reason_${report.reason}`) }),
      " · ",
      t("mod.by", { name: report.reporter }),
      ` · ${when(report.created)}`,
    ]),
    report.note ? h("blockquote", { class: "mod-note", text: report.note }) : null,
    contextLines(context),
    context.fair_play ? fairPlay(context.fair_play) : null,
    context.game_id
      ? h("p", {}, [h("a", { href: `/replay/${encodeURIComponent(context.game_id)}`, class: "mod-replay", text: t("mod.replay") })])
      : null,
    h("form", { class: "mod-actions", onsubmit: (e) => e.preventDefault() }, [
      h("div", { class: "field" }, [h("label", { for: `why-${id}`, text: t("mod.why") }), why]),
      h("button", { type: "button", class: "btn", "data-action": "warn", onclick: act(sanction("warn")), text: t("mod.warn") }),
      h("div", { class: "field" }, [h("label", { for: `minutes-${id}`, text: t("mod.minutes") }), minutes]),
      h("button", {
        type: "button",
        class: "btn",
        "data-action": "chat_mute",
        onclick: (e) => minutes.reportValidity() && act(sanction("chat_mute", { minutes: Number(minutes.value) }))(e),
        text: t("mod.mute"),
      }),
      h("button", {
        type: "button",
        class: "btn",
        "data-action": "shadow_mute",
        onclick: (e) => minutes.reportValidity() && act(sanction("shadow_mute", { minutes: Number(minutes.value) }))(e),
        text: t("mod.shadow_mute"),
      }),
      context.line_id !== undefined && context.game_id
        ? h("button", {
            type: "button",
            class: "btn",
            "data-action": "hide_line",
            onclick: act(sanction("hide_line", { game_id: context.game_id, line_id: context.line_id })),
            text: t("mod.hide_line"),
          })
        : null,
      h("button", { type: "button", class: "btn", "data-action": "rename", onclick: act(sanction("rename")), text: t("mod.rename") }),
      h("div", { class: "field" }, [h("label", { for: `kind-${id}`, text: t("mod.account_kind") }), kinds]),
      h("button", {
        type: "button",
        class: "btn",
        "data-action": "account",
        onclick: (e) =>
          (kinds.value !== "block_signups" || minutes.reportValidity()) &&
          act(sanction(kinds.value, kinds.value === "block_signups" ? { minutes: Number(minutes.value) } : {}))(e),
        text: t("mod.apply"),
      }),
      h("button", { type: "button", class: "btn", "data-action": "close", onclick: act(() => api.closeReport(id, why.value.trim())), text: t("mod.close") }),
    ]),
  ]);
}

/** What the server read of a reported player: its account's age, its reports in all, its
 * sanctions (undone ones said so) and its latest finished games (links to their replays). */
function targetHistory(target) {
  if (!target) return null;
  const since = new Date(target.created).toLocaleDateString(document.documentElement.lang || undefined);
  const kinds = target.sanctions.map((s) => (s.undone ? t("mod.sanction_undone", { kind: t(`mod.kind_${s.kind}`) }) : t(`mod.kind_${s.kind}`)));
  const games = target.games.map((id) => h("a", { href: `/replay/${encodeURIComponent(id)}`, class: "mod-game", text: id }));
  return h("div", { class: "mod-history", "data-testid": "mod-history" }, [
    h("p", { text: `${t("mod.account_since", { when: since })} · ${t("mod.reports_total", { n: target.reports })}` }),
    h("p", { text: kinds.length ? t("mod.sanctions", { list: kinds.join(", ") }) : t("mod.no_sanctions") }),
    h("p", {}, games.length ? [t("mod.games"), ...games.flatMap((a) => [" ", a])] : [t("mod.no_games")]),
    ratingChanges(target.rating_history || []),
    alternates(target.alternates || []),
    target.fair_play && target.fair_play.games ? fairPlay(target.fair_play) : null,
  ]);
}

/** A player's fair-play figures (docs/fair-play.md): its screened games, the real choices made as
 * the AI's first choice with their interval, the mean loss, the time per decision, and its most
 * suspicious games (links to their replays). Moderators only: the player never sees them. */
function fairPlay(f) {
  const pct = (x) => `${Math.round(100 * x)} %`;
  const summary = t("mod.fair_play", {
    games: f.games,
    matched: f.matched,
    choices: f.choices,
    rate: f.match_rate == null ? "–" : pct(f.match_rate),
    low: pct(f.interval[0]),
    high: pct(f.interval[1]),
    loss: f.mean_loss == null ? "–" : f.mean_loss.toFixed(3),
  });
  const seconds = f.seconds_median == null ? "" : ` ${t("mod.fair_play_seconds", { s: f.seconds_median, ratio: f.hard_easy_seconds ?? "–" })}`;
  const games = (f.by_game || []).slice(0, 5).map((g) => [
    " ",
    h("a", { href: `/replay/${encodeURIComponent(g.game_id)}`, text: `${g.matched}/${g.choices}` }),
  ]);
  return h("div", { class: "mod-fair-play", "data-testid": "mod-fair-play" }, [
    h("p", { text: summary + seconds }),
    games.length ? h("p", {}, [t("mod.fair_play_games"), ...games.flat()]) : null,
  ]);
}

/** The target's latest rating changes, the newest first (a refund said so). */
function ratingChanges(changes) {
  const list = changes.map((c) => {
    const change = `${c.before} → ${c.after}`;
    return c.kind === "refund" ? t("mod.refunded", { change }) : change;
  });
  return h("p", { "data-testid": "mod-ratings", text: list.length ? t("mod.rating_history", { list: list.join(", ") }) : t("mod.no_rating_history") });
}

/** The other accounts seen on the target's browsers or addresses (links to their profiles). */
function alternates(others) {
  if (!others.length) return h("p", { "data-testid": "mod-alternates", text: t("mod.no_alternates") });
  const links = others.map((other) => [
    " ",
    h("a", { href: `/users/${encodeURIComponent(other.username)}`, text: other.username }),
    ` (${other.via.map((via) => t(`mod.via_${via}`)).join(", ")})`,
  ]);
  return h("p", { "data-testid": "mod-alternates" }, [t("mod.alternates"), ...links.flat()]);
}

/** The open reports, one group per player reported, in the server's order (the most reported first). */
function queuePanel(reports, reload, status) {
  if (!reports.length) return [h("p", { class: "hint", "data-testid": "mod-empty", text: t("mod.empty") })];
  const groups = new Map();
  for (const report of reports) {
    if (!groups.has(report.username)) groups.set(report.username, []);
    groups.get(report.username).push(report);
  }
  return [...groups].map(([username, list]) =>
    h("section", { class: "mod-target", dataset: { target: username } }, [
      h("h2", {}, [
        h("a", { href: `/users/${encodeURIComponent(username)}`, text: username }),
        ` · ${t("mod.reports", { n: list.length })}`,
      ]),
      targetHistory(list[0].target),
      h("ul", { class: "mod-reports" }, list.map((report) => reportItem(report, reload, status))),
    ]),
  );
}

/** One open appeal: the player's note, the sanction appealed (its kind, moderator, date and
 * reason), and the decision with its reason (the player reads it). */
function appealItem(appeal, reload, status) {
  const id = appeal.appeal_id;
  const sanction = appeal.sanction;
  const why = h("input", { id: `decision-${id}`, type: "text", maxlength: 500, required: true, class: "mod-why" });
  const decide = (decision) => async () => {
    status.textContent = "";
    if (!why.reportValidity()) return;
    try {
      await api.decideAppeal(id, decision, why.value.trim());
      say(status, t("mod.done"), true);
      reload();
    } catch (err) {
      say(status, modRefusal(err), false);
    }
  };
  return h("li", { class: "mod-appeal card-panel", dataset: { appeal: String(id) } }, [
    h("h2", {}, [h("a", { href: `/users/${encodeURIComponent(appeal.username)}`, text: appeal.username }), ` · ${when(appeal.created)}`]),
    h("p", {}, [
      h("strong", { text: t(`mod.kind_${sanction.kind}`) }),
      " · ",
      t("mod.sanctioned_by", { name: sanction.moderator }),
      ` · ${when(sanction.created)}`,
    ]),
    h("p", { class: "mod-sanction-reason", text: t("mod.sanction_reason", { reason: sanction.reason }) }),
    h("blockquote", { class: "mod-note", text: appeal.note }),
    h("form", { class: "mod-actions", onsubmit: (e) => e.preventDefault() }, [
      h("div", { class: "field" }, [h("label", { for: `decision-${id}`, text: t("mod.why") }), why]),
      h("button", { type: "button", class: "btn", "data-action": "upheld", onclick: decide("upheld"), text: t("mod.uphold") }),
      h("button", { type: "button", class: "btn", "data-action": "overturned", onclick: decide("overturned"), text: t("mod.overturn") }),
    ]),
  ]);
}

function appealsPanel(appeals, reload, status) {
  if (!appeals.length) return [h("p", { class: "hint", "data-testid": "mod-no-appeals", text: t("mod.no_appeals") })];
  return [h("ul", { class: "mod-reports", "data-testid": "mod-appeals" }, appeals.map((a) => appealItem(a, reload, status)))];
}

/** What a log entry's particulars say: the role, the sanction's kind and minutes, the report, the
 * hidden line, the names of a rename. */
function detailText(entry) {
  const d = entry.detail || {};
  const parts = [];
  if (d.role) parts.push(d.role);
  if (d.kind) parts.push(t(`mod.kind_${d.kind}`));
  if (d.minutes) parts.push(t("mod.for_minutes", { n: d.minutes }));
  if (d.report_id) parts.push(t("mod.report_n", { n: d.report_id }));
  if (d.game_id) parts.push(t("mod.line_n", { n: d.line_id, game: d.game_id }));
  if (d.old_name) parts.push(`${d.old_name} → ${d.new_name}`);
  else if (d.new_name) parts.push(d.new_name);
  if (d.appeal_id) parts.push(t("mod.appeal_n", { n: d.appeal_id }));
  if (d.decision) parts.push(t(`mod.decision_${d.decision}`));
  return parts.join(" · ");
}

/** The log, the newest first; a sanction not undone yet has its "Undo"; the whole log's download. */
function logPanel(entries, reload, status) {
  const undone = new Set(entries.filter((e) => e.action === "undo").map((e) => e.detail?.sanction_id));
  const undo = (sanctionId) => async () => {
    status.textContent = "";
    try {
      await api.undoSanction(sanctionId);
      say(status, t("mod.done"), true);
      reload();
    } catch (err) {
      say(status, modRefusal(err), false);
    }
  };
  const row = (entry) => {
    const sanctionId = entry.action === "sanction" ? entry.detail?.sanction_id : undefined;
    return h("tr", { dataset: { entry: String(entry.entry_id) } }, [
      h("td", { text: when(entry.at) }),
      h("td", { text: entry.actor ?? t("mod.command_line") }),
      h("td", { text: t(`mod.action_${entry.action}`) }),
      h("td", { text: entry.target ?? "" }),
      h("td", { text: entry.reason }),
      h("td", { text: detailText(entry) }),
      h("td", {}, [
        sanctionId !== undefined && !undone.has(sanctionId)
          ? h("button", { type: "button", class: "btn", "data-action": "undo", onclick: undo(sanctionId), text: t("mod.undo") })
          : null,
      ]),
    ]);
  };
  const heads = ["mod.at", "mod.actor", "mod.action", "mod.target", "mod.why", "mod.detail", "mod.undo"]; // the last column's buttons are read "Undo": named, not shown
  return [
    h("p", {}, [
      h("a", {
        href: "/api/mod/log.jsonl",
        download: "kahuna-moderation-log.jsonl",
        class: "btn download",
        "data-testid": "mod-log-download",
        text: t("mod.download_log"),
      }),
    ]),
    scrollBox(t("mod.tab_log"), [
      h("table", { class: "games-table mod-log", "data-testid": "mod-log" }, [
        h("thead", {}, [h("tr", {}, heads.map((k) => h("th", { scope: "col" }, [h("span", { class: k === "mod.undo" ? "visually-hidden" : null, text: t(k) })])))]),
        h("tbody", {}, entries.map(row)),
      ]),
    ]),
  ];
}

/** An admin's list of the moderators, each with its "Revoke", and the form making a player one. */
function moderatorsPanel(moderators, reload, status) {
  const act = (call) => async () => {
    status.textContent = "";
    try {
      await call();
      say(status, t("mod.done"), true);
      reload();
    } catch (err) {
      say(status, modRefusal(err), false);
    }
  };
  const name = h("input", { id: "mod-grant-name", type: "text", maxlength: 20, required: true, autocomplete: "off" });
  const grant = (e) => {
    e.preventDefault();
    if (name.reportValidity()) act(() => api.grantModerator(name.value.trim()))();
  };
  return [
    moderators.length
      ? h(
          "ul",
          { class: "mod-moderators", "data-testid": "mod-moderators" },
          moderators.map((m) =>
            h("li", { dataset: { moderator: m.username } }, [
              h("a", { href: `/users/${encodeURIComponent(m.username)}`, text: m.username }),
              ` · ${t("mod.since", { when: when(m.granted) })} `,
              h("button", { type: "button", class: "btn", "data-action": "revoke", onclick: act(() => api.revokeModerator(m.username)), text: t("mod.revoke") }),
            ]),
          ),
        )
      : h("p", { class: "hint", "data-testid": "mod-no-moderators", text: t("mod.no_moderators") }),
    h("form", { class: "mod-actions", "data-testid": "mod-grant", onsubmit: grant }, [
      h("div", { class: "field" }, [h("label", { for: "mod-grant-name", text: t("mod.grant_name") }), name]),
      h("button", { type: "submit", class: "btn", text: t("mod.grant") }),
    ]),
  ];
}

export async function mountMod(root) {
  document.title = `${t("mod.title")} — Kahuna`;
  let reports;
  try {
    ({ reports } = await api.modReports());
  } catch (err) {
    const text = err instanceof ApiError && err.status === 404 ? t("mod.not_found") : t("lobby.offline");
    fill(root, [h("p", { class: "message", "data-testid": "mod-not-found", text })]);
    return;
  }
  const status = h("p", { class: "message", role: "status", "data-testid": "mod-status" });
  const panels = {
    queue: h("div", { id: "mod-panel-queue", role: "tabpanel", "aria-labelledby": "mod-tab-queue", "data-testid": "mod-queue" }),
    appeals: h("div", { id: "mod-panel-appeals", role: "tabpanel", "aria-labelledby": "mod-tab-appeals", hidden: true }),
    log: h("div", { id: "mod-panel-log", role: "tabpanel", "aria-labelledby": "mod-tab-log", hidden: true }),
  };
  let moderators = null; // an admin's only (`admin` of GET /api/me)
  try {
    if ((await api.me()).admin) {
      ({ moderators } = await api.moderators());
      panels.moderators = h("div", { id: "mod-panel-moderators", role: "tabpanel", "aria-labelledby": "mod-tab-moderators", hidden: true });
    }
  } catch (err) {
    say(status, modRefusal(err), false);
  }
  const tabs = Object.keys(panels).map((name) =>
    h("button", {
      type: "button",
      role: "tab",
      id: `mod-tab-${name}`,
      class: "btn",
      "aria-controls": `mod-panel-${name}`,
      "aria-selected": String(name === "queue"),
      onclick: () => show(name),
      text: t(`mod.tab_${name}`),
    }),
  );
  // Each tab's panel is fetched and drawn again when it is shown and after each of its actions; a
  // refusal is said in words above the panels.
  const drawers = {
    queue: async (reload) => queuePanel((await api.modReports()).reports, reload, status),
    appeals: async (reload) => appealsPanel((await api.modAppeals()).appeals, reload, status),
    log: async (reload) => logPanel((await api.modLog()).entries, reload, status),
    moderators: async (reload) => moderatorsPanel((await api.moderators()).moderators, reload, status),
  };
  // aria-busy while a panel is fetched: what it shows (and any field in it) is about to be replaced.
  const load = async (name) => {
    panels[name].setAttribute("aria-busy", "true");
    try {
      fill(panels[name], await drawers[name](() => load(name)));
    } catch (err) {
      say(status, modRefusal(err), false);
    } finally {
      panels[name].setAttribute("aria-busy", "false");
    }
  };
  const show = (name) => {
    say(status, "", false);
    for (const tab of tabs) tab.setAttribute("aria-selected", String(tab.id === `mod-tab-${name}`));
    for (const [key, panel] of Object.entries(panels)) panel.hidden = key !== name;
    load(name);
  };
  fill(panels.queue, queuePanel(reports, () => load("queue"), status));
  if (moderators) fill(panels.moderators, moderatorsPanel(moderators, () => load("moderators"), status));
  fill(root, [
    h("section", { class: "mod-page" }, [
      h("h1", { text: t("mod.title") }),
      h("div", { role: "tablist", class: "mod-tabs", "aria-label": t("mod.title") }, tabs),
      status,
      panels.queue,
      panels.appeals,
      panels.log,
      panels.moderators ?? null,
    ]),
  ]);
}

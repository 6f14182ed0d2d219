// The header's player search: names starting with what is typed (GET /api/users?prefix=, compared
// as sign-up compares names), each a link to the player's profile. Keyboard: type, ArrowDown into
// the list, ArrowUp/ArrowDown through it, Escape back to the field; Enter opens the first player.
// On a phone the field hides behind a magnifier button and opens below the header when pressed, so
// that it takes no room from the page (a game's board and buttons stay where they were).

import { h, s, fill } from "./dom.js";
import { t } from "./i18n.js";

const WAIT_MS = 200; // typing pauses this long before the server is asked
const NAME_PART = /^[A-Za-z0-9_-]{1,20}$/;

export function userSearch() {
  const input = h("input", {
    type: "search",
    id: "user-search",
    name: "prefix",
    maxlength: 20,
    autocomplete: "off",
    spellcheck: "false",
    placeholder: t("search.placeholder"),
    "aria-controls": "user-search-results",
  });
  const results = h("ul", { id: "user-search-results", class: "user-search-results", "aria-label": t("search.results") });
  const status = h("p", { class: "user-search-status", role: "status", "aria-live": "polite" });
  const toggle = h(
    "button",
    {
      type: "button",
      class: "user-search-toggle",
      "aria-label": t("search.label"),
      "aria-expanded": "false",
      "aria-controls": "user-search-field",
      title: t("search.label"),
    },
    [magnifier()],
  );
  const form = h("form", { role: "search", class: "user-search" }, [
    toggle,
    h("div", { id: "user-search-field", class: "user-search-field" }, [
      h("label", { for: "user-search", class: "visually-hidden", text: t("search.label") }),
      input,
      status,
      results,
    ]),
  ]);
  const expand = (open) => {
    form.classList.toggle("expanded", open);
    toggle.setAttribute("aria-expanded", String(open));
  };
  toggle.addEventListener("click", () => {
    const open = !form.classList.contains("expanded");
    expand(open);
    if (open) input.focus();
  });
  let timer = null;
  let asked = 0; // the latest request: an older answer arriving late is dropped
  let found = [];

  const clear = () => {
    found = [];
    results.replaceChildren();
    status.textContent = "";
    form.classList.remove("open");
  };
  const show = (users, message) => {
    found = users;
    fill(
      results,
      users.map((user) =>
        h("li", {}, [h("a", { href: `/users/${encodeURIComponent(user.username)}`, text: user.username })]),
      ),
    );
    status.textContent = message;
    form.classList.toggle("open", users.length > 0 || message !== "");
  };
  const search = async () => {
    const prefix = input.value.trim();
    const mine = ++asked;
    if (!prefix) return clear();
    if (!NAME_PART.test(prefix)) return show([], t("search.invalid"));
    let users = [];
    try {
      const response = await fetch(`/api/users?prefix=${encodeURIComponent(prefix)}`);
      if (!response.ok) throw new Error(String(response.status));
      users = (await response.json()).users;
    } catch {
      if (mine === asked) show([], t("search.failed"));
      return;
    }
    if (mine === asked) show(users, users.length ? "" : t("search.none"));
  };
  const links = () => [...results.querySelectorAll("a")];

  input.addEventListener("input", () => {
    clearTimeout(timer);
    if (input.value.trim()) timer = setTimeout(search, WAIT_MS);
    else search(); // an emptied field closes its list at once
  });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (found.length) location.href = `/users/${encodeURIComponent(found[0].username)}`;
    else search();
  });
  form.addEventListener("keydown", (e) => {
    const list = links();
    const at = list.indexOf(document.activeElement);
    if (e.key === "Escape") {
      const wasEmpty = !results.children.length && !status.textContent;
      clear();
      if (wasEmpty && form.classList.contains("expanded")) {
        expand(false);
        toggle.focus();
      } else input.focus();
    } else if (e.key === "ArrowDown" && list.length) {
      e.preventDefault();
      list[Math.min(at + 1, list.length - 1)].focus();
    } else if (e.key === "ArrowUp" && at >= 0) {
      e.preventDefault();
      (at === 0 ? input : list[at - 1]).focus();
    }
  });
  form.addEventListener("focusout", (e) => {
    if (form.contains(e.relatedTarget)) return;
    form.classList.remove("open");
    if (!input.value) expand(false);
  });
  input.addEventListener("focus", () => {
    if (results.children.length || status.textContent) form.classList.add("open");
  });
  return form;
}

/** A magnifying glass (the phone's search button). */
function magnifier() {
  return s("svg", { class: "search-icon", viewBox: "0 0 16 16", width: 16, height: 16, "aria-hidden": "true" }, [
    s("circle", { cx: 6.5, cy: 6.5, r: 4.5 }),
    s("path", { d: "M10 10l4.5 4.5" }),
  ]);
}

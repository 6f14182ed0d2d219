// Tiny DOM helpers: build elements declaratively without a framework or a build step.

const SVG_NS = "http://www.w3.org/2000/svg";

function apply(el, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "text") el.textContent = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  el.append(...nodes(children));
  return el;
}

/** The nodes of a list of children: null, undefined and false left out, anything else not a node as text. */
function nodes(children) {
  return [].concat(children || [])
    .filter((child) => child !== null && child !== undefined && child !== false)
    .map((child) => (child instanceof Node ? child : document.createTextNode(String(child))));
}

/** An HTML element: h("button", {class: "x", onclick: f}, ["label"]). */
export function h(tag, attrs, children) {
  return apply(document.createElement(tag), attrs, children);
}

/** An SVG element, same calling convention as h(). */
export function s(tag, attrs, children) {
  return apply(document.createElementNS(SVG_NS, tag), attrs, children);
}

/**
 * The box a wide table scrolls sideways in on a narrow screen: a named region one can Tab to, so
 * that the keyboard's arrow keys scroll it too (a table of text has nothing else to focus), and a
 * screen reader names it (axe-core's scrollable-region-focusable; docs/web.md, *Accessibility*).
 */
export function scrollBox(label, children, attrs = {}) {
  return h("div", { class: "table-scroll", role: "region", tabindex: "0", "aria-label": label, ...attrs }, children);
}

/** Replace all children of el. */
export function fill(el, children) {
  el.replaceChildren();
  return apply(el, {}, children);
}

/**
 * Replace all children of el as a page's redraw does. A new child that is among el's children
 * already stays where it is, never taken out of the page: a list its user has open stays open (a
 * list taken out and put back closes), with its choice. And the keyboard focus is kept: if a control
 * inside el had the focus, it gets it back when it is among the new children, else the new control
 * that is the same one (the same tag, id, data-testid, link, name and label; a link's or button's
 * words) does. A page that redraws itself on a timer (a tournament's standings, the Watch page's
 * boards) would otherwise throw a keyboard or screen-reader user back to the top of the page at
 * each redraw.
 */
export function refill(el, children) {
  const focused = document.activeElement;
  if (!focused || focused === el || !el.contains(focused)) return place(el, children);
  const key = focusKey(focused);
  const nth = [...el.querySelectorAll(focused.tagName)].filter((e) => focusKey(e) === key).indexOf(focused);
  place(el, children);
  if (el.contains(focused)) {
    focused.focus({ preventScroll: true });
    return el;
  }
  const same = [...el.querySelectorAll(focused.tagName)].filter((e) => focusKey(e) === key);
  (same[nth] ?? same[0])?.focus({ preventScroll: true });
  return el;
}

/** el's children made the given ones, those among them there already left in place (refill). */
function place(el, children) {
  const next = nodes(children);
  const kept = new Set(next);
  for (const child of [...el.childNodes]) if (!kept.has(child)) child.remove();
  next.forEach((child, i) => {
    if (el.childNodes[i] !== child) el.insertBefore(child, el.childNodes[i] ?? null); // a kept one moves only to change places
  });
  return el;
}

function focusKey(e) {
  const words = e.tagName === "A" || e.tagName === "BUTTON" ? e.textContent.trim() : "";
  const attrs = ["id", "data-testid", "href", "name", "aria-label"].map((name) => e.getAttribute(name) ?? "");
  return [e.tagName, ...attrs, words].join("|");
}

/** Copy text to the clipboard, falling back to selecting it for a manual copy. */
export async function copyText(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (input) {
      input.select();
      return document.execCommand && document.execCommand("copy");
    }
    return false;
  }
}

/** Resolves after ms milliseconds. */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

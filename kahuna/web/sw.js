// The service worker (served as /sw.js, scope /): the game's shell from a cache when the network
// fails, and Web Push notifications. The server fills in VERSION (a digest of every static file)
// and SHELL (their URLs), so a deploy that changes any file installs a new worker, whose cache
// replaces the old one. API requests and WebSockets never pass through a cache: they are not
// answered here at all.
const VERSION = "__KAHUNA_VERSION__";
const SHELL = __KAHUNA_SHELL__;
const CACHE = `kahuna-shell-${VERSION}`;
const TEXTS = "/__kahuna/push-texts"; // the page's language's notification texts (a cache entry, never fetched)
const ENGLISH = {
  title: "Kahuna",
  your_turn: "Your turn against {opponent}.",
  deadline: "Your clock is running low against {opponent}.",
  challenge: "{opponent} challenges you.",
  tournament: "Your tournament game against {opponent} is starting.",
  someone: "your opponent",
};

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL.map((url) => new Request(url, { cache: "reload" }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n.startsWith("kahuna-shell-") && n !== CACHE).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/api/") || url.pathname.startsWith("/ws/")) return; // always the network
  if (request.mode === "navigate") {
    // every page is the one index.html: the network's (it is never stale), else the cached shell
    event.respondWith(fetch(request).catch(() => caches.match("/", { cacheName: CACHE })));
    return;
  }
  if (url.pathname.startsWith("/static/")) {
    // a static file of this version: the cache holds exactly it
    event.respondWith(caches.match(request, { cacheName: CACHE, ignoreSearch: true }).then((hit) => hit || fetch(request)));
  }
});

// ------------------------------------------------------------------ notifications

self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (data.type === "push-texts" && data.texts && typeof data.texts === "object") {
    event.waitUntil(caches.open("kahuna-texts").then((cache) => cache.put(TEXTS, new Response(JSON.stringify(data.texts)))));
  }
});

async function texts() {
  const cache = await caches.open("kahuna-texts");
  const stored = await cache.match(TEXTS);
  return { ...ENGLISH, ...(stored ? await stored.json() : {}) };
}

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = {};
  }
  event.waitUntil(
    texts().then((words) => {
      const kind = ENGLISH[data.kind] ? data.kind : "your_turn";
      const opponent = typeof data.opponent === "string" && data.opponent ? data.opponent : words.someone;
      return self.registration.showNotification(words.title, {
        body: words[kind].replace("{opponent}", opponent),
        tag: data.game ? `kahuna-${data.game}` : `kahuna-${kind}`,
        icon: "/static/icons/icon-192.png",
        data: { url: typeof data.url === "string" && data.url.startsWith("/") ? data.url : "/" },
      });
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL(event.notification.data && event.notification.data.url ? event.notification.data.url : "/", self.location.origin);
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((open) => {
      for (const client of open) {
        if (new URL(client.url).pathname === target.pathname && "focus" in client) return client.focus();
      }
      return self.clients.openWindow(target.href);
    }),
  );
});

// The server's HTTP API (docs/protocol.md, docs/accounts.md). Errors become ApiError with the
// server's message. Every state-changing request echoes the csrf cookie in X-CSRF-Token: a signed-in
// browser's session cookie alone is refused for changes (the server's CSRF protection); a guest has
// no csrf cookie and sends nothing.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The value of the readable csrf cookie (set at sign-in), or null. */
export function csrfToken() {
  const found = document.cookie.split("; ").find((c) => c.startsWith("csrf="));
  return found ? decodeURIComponent(found.slice(5)) : null;
}

async function call(method, path, body, extra = {}) {
  const headers = body === undefined ? { ...extra } : { "Content-Type": "application/json", ...extra };
  const csrf = UNSAFE.has(method) ? csrfToken() : null;
  if (csrf) headers["X-CSRF-Token"] = csrf;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "offline", "");
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const error = new ApiError(response.status, data?.error || "error", data?.message || response.statusText);
    error.retryAfter = Number(response.headers.get("Retry-After")) || null;
    error.reason = data?.reason || null; // a refusal's code and parameters, worded by the page
    throw error;
  }
  return data;
}

export const api = {
  dailyPuzzle: () => call("GET", "/api/puzzles/daily"),
  nextPuzzle: (above) => call("GET", above === null ? "/api/puzzles/next" : `/api/puzzles/next?above=${above}`),
  attemptPuzzle: (id, actions) => call("POST", `/api/puzzles/${encodeURIComponent(id)}/attempt`, { actions }),
  puzzleHistory: (name) => call("GET", `/api/puzzles/history/${encodeURIComponent(name)}`),
  createGame: (options) => call("POST", "/api/games", options),
  join: (invite, name) => call("POST", `/api/join/${encodeURIComponent(invite)}`, { name }),
  summary: (gameId) => call("GET", `/api/games/${encodeURIComponent(gameId)}`),
  myGames: (tokens) => call("POST", "/api/my-games", { tokens }),
  replay: (gameId) => call("GET", `/api/games/${encodeURIComponent(gameId)}/replay`),
  analysis: (gameId) => call("GET", `/api/games/${encodeURIComponent(gameId)}/analysis`),
  requestAnalysis: (gameId, token) => call("POST", `/api/games/${encodeURIComponent(gameId)}/analysis`, { token }),
  hint: (gameId, tokens) => call("POST", `/api/games/${encodeURIComponent(gameId)}/hint`, { tokens }),
  signUp: (username, password) => call("POST", "/api/accounts", { username, password }),
  signIn: (username, password, tokens) => call("POST", "/api/session", { username, password, tokens }),
  signOut: () => call("DELETE", "/api/session"),
  me: () => call("GET", "/api/me"),
  deleteAccount: (password) => call("DELETE", "/api/me", { password }),
  accountGames: () => call("GET", "/api/me/games"),
  adopt: (tokens) => call("POST", "/api/me/games/adopt", { tokens }),
  tokens: () => call("GET", "/api/tokens"),
  createToken: (name, password, scopes) => call("POST", "/api/tokens", { name, password, scopes }),
  revokeToken: (id) => call("DELETE", `/api/tokens/${encodeURIComponent(id)}`),
  sessions: () => call("GET", "/api/sessions"),
  endSession: (id) => call("DELETE", `/api/sessions/${encodeURIComponent(id)}`),
  signOutEverywhere: () => call("DELETE", "/api/sessions"),
  changePassword: (password, newPassword) => call("POST", "/api/me/password", { password, new_password: newPassword }),
  seek: (body) => call("POST", "/api/seeks", body),
  playNow: (body) => call("POST", "/api/pairing", body),
  acceptSeek: (seekId, name) => call("POST", `/api/seeks/${encodeURIComponent(seekId)}/accept`, { name }),
  cancelSeek: (seekId, token) =>
    call("DELETE", `/api/seeks/${encodeURIComponent(seekId)}`, undefined, token ? { "X-Seek-Token": token } : {}),
  challenge: (body) => call("POST", "/api/challenges", body),
  pairLimits: () => call("GET", "/api/me/pair-limits"),
  acceptChallenge: (seekId) => call("POST", `/api/challenges/${encodeURIComponent(seekId)}/accept`),
  declineChallenge: (seekId) => call("POST", `/api/challenges/${encodeURIComponent(seekId)}/decline`),
  user: (name) => call("GET", `/api/users/${encodeURIComponent(name)}`),
  leaderboard: (pool) => call("GET", `/api/leaderboard?pool=${encodeURIComponent(pool)}`),
  online: () => call("GET", "/api/online"),
  onlineUsers: (names) => call("GET", `/api/online/users?${new URLSearchParams({ names: names.join(",") })}`),
  following: () => call("GET", "/api/me/following"),
  blocks: () => call("GET", "/api/me/blocks"),
  follows: (name) => call("GET", `/api/users/${encodeURIComponent(name)}/follows`),
  follow: (name) => call("POST", `/api/users/${encodeURIComponent(name)}/follow`),
  unfollow: (name) => call("DELETE", `/api/users/${encodeURIComponent(name)}/follow`),
  block: (name) => call("POST", `/api/users/${encodeURIComponent(name)}/block`),
  unblock: (name) => call("DELETE", `/api/users/${encodeURIComponent(name)}/block`),
  userGames: (name, query) => call("GET", `/api/users/${encodeURIComponent(name)}/games?${new URLSearchParams(query)}`),
  // moderation (docs/moderation.md)
  report: (body) => call("POST", "/api/reports", body),
  myReports: () => call("GET", "/api/me/reports"),
  modReports: () => call("GET", "/api/mod/reports"),
  closeReport: (id, reason) => call("POST", `/api/mod/reports/${encodeURIComponent(id)}/close`, { reason }),
  sanction: (body) => call("POST", "/api/mod/sanctions", body),
  undoSanction: (id) => call("DELETE", `/api/mod/sanctions/${encodeURIComponent(id)}`),
  modLog: () => call("GET", "/api/mod/log"),
  moderators: () => call("GET", "/api/mod/roles"),
  grantModerator: (username) => call("POST", "/api/mod/roles", { username, role: "moderator" }),
  revokeModerator: (username) => call("DELETE", `/api/mod/roles/${encodeURIComponent(username)}/moderator`),
  mySanctions: () => call("GET", "/api/me/sanctions"),
  chooseName: (username) => call("POST", "/api/me/name", { username }),
  sanctionSeen: (id) => call("POST", `/api/me/sanctions/${encodeURIComponent(id)}/seen`),
  appeal: (id, note) => call("POST", `/api/me/sanctions/${encodeURIComponent(id)}/appeal`, { note }),
  modAppeals: () => call("GET", "/api/mod/appeals"),
  decideAppeal: (id, decision, reason) => call("POST", `/api/mod/appeals/${encodeURIComponent(id)}`, { decision, reason }),
  // mail
  email: () => call("GET", "/api/me/email"),
  setEmail: (email, lang) => call("PUT", "/api/me/email", { email, lang }),
  removeEmail: () => call("DELETE", "/api/me/email"),
  verifyEmail: (token) => call("POST", "/api/email/verify", { token }),
  resetAvailable: () => call("GET", "/api/password-reset"),
  askReset: (email, lang) => call("POST", "/api/password-reset", { email, lang }),
  resetPassword: (token, password) => call("POST", `/api/password-reset/${encodeURIComponent(token)}`, { password }),
  // notifications
  notifications: () => call("GET", "/api/me/notifications"),
  setNotifications: (kinds) => call("PUT", "/api/me/notifications", { kinds }),
  unsubscribeLink: (token) => call("GET", `/api/unsubscribe/${encodeURIComponent(token)}`),
  unsubscribe: (token) => call("POST", `/unsubscribe/${encodeURIComponent(token)}`),
  // webpush
  pushKey: () => call("GET", "/api/push/key"),
  pushDevices: () => call("GET", "/api/me/push"),
  subscribePush: (subscription) => call("POST", "/api/me/push", { subscription }),
  unsubscribePush: (endpoint) => call("DELETE", "/api/me/push", { endpoint }),
};

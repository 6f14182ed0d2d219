// The server's HTTP API (docs/protocol.md). Errors become ApiError with the server's message.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function call(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "offline", "");
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data?.error || "error", data?.message || response.statusText);
  return data;
}

export const api = {
  createGame: (options) => call("POST", "/api/games", options),
  join: (invite, name) => call("POST", `/api/join/${encodeURIComponent(invite)}`, { name }),
  summary: (gameId) => call("GET", `/api/games/${encodeURIComponent(gameId)}`),
  myGames: (tokens) => call("POST", "/api/my-games", { tokens }),
  replay: (gameId) => call("GET", `/api/games/${encodeURIComponent(gameId)}/replay`),
  analysis: (gameId) => call("GET", `/api/games/${encodeURIComponent(gameId)}/analysis`),
  requestAnalysis: (gameId, token) => call("POST", `/api/games/${encodeURIComponent(gameId)}/analysis`, { token }),
  hint: (gameId, tokens) => call("POST", `/api/games/${encodeURIComponent(gameId)}/hint`, { tokens }),
};

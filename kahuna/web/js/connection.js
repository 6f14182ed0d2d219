// One WebSocket to a game, for a seat (with its token) or as a spectator. Reconnects on its own
// and says hello with the last version seen, so the server can send just what was missed. It speaks
// protocol 3 and hands on every update with its whole view, rebuilt from the last one (delta.js).

import { PROTOCOL, wholeUpdate } from "./delta.js";

const PING_MS = 25000;

export class GameConnection {
  /**
   * onMessage(msg) gets every server message; onState(state) gets "open", "closed" (reconnecting),
   * "forbidden" (the token is not a seat of this game) or "gone" (no such game).
   */
  constructor(gameId, token, onMessage, onState) {
    this.gameId = gameId;
    this.token = token;
    this.onMessage = onMessage;
    this.onState = onState;
    this.version = null;
    this.view = null;
    this.resyncing = false;
    this.nextId = 1;
    this.retry = 500;
    this.stopped = false;
    this.open();
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    // The URL names only the game: the seat token goes in the first message, never in a URL that
    // a proxy might log.
    const ws = new WebSocket(`${scheme}://${location.host}/ws/${encodeURIComponent(this.gameId)}`);
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 500;
      this.resyncing = false;
      const hello = { type: "hello", protocol: PROTOCOL, version: this.version };
      // "seat:N" stands for a seat of the signed-in account (its session cookie goes with the
      // handshake); anything else is a seat token.
      if (this.token?.startsWith("seat:")) hello.seat = Number(this.token.slice(5));
      else if (this.token) hello.token = this.token;
      ws.send(JSON.stringify(hello));
      this.pinger = setInterval(() => this.send({ type: "ping" }), PING_MS);
      this.onState("open");
    };
    ws.onmessage = (e) => {
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      if (msg.type === "update" && !("view" in msg)) {
        if (this.view === null || msg.version > this.version + 1) {
          // Versions missed: this view cannot be brought up to date; a sync replaces it (asked once).
          if (!this.resyncing) this.send({ type: "hello", protocol: PROTOCOL, version: null });
          this.resyncing = true;
          return;
        }
        if (msg.version <= this.version) return; // a catch-up repeats an update that came meanwhile
        msg = wholeUpdate(this.view, msg);
      }
      if ((msg.type === "sync" || msg.type === "update") && typeof msg.version === "number") {
        this.version = msg.version;
        this.view = msg.view;
        if (msg.type === "sync") this.resyncing = false;
      }
      this.onMessage(msg);
    };
    ws.onclose = (e) => {
      clearInterval(this.pinger);
      if (this.stopped) return;
      if (e.code === 4403 || e.code === 4404) {
        this.stopped = true;
        this.onState(e.code === 4403 ? "forbidden" : "gone");
        return;
      }
      this.onState("closed");
      setTimeout(() => this.stopped || this.open(), this.retry);
      this.retry = Math.min(this.retry * 2, 8000);
    };
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
      return true;
    }
    return false;
  }

  /** Send an action at the version last seen; returns the message id (or null if offline). */
  act(token) {
    const id = `a${this.nextId++}`;
    return this.send({ type: "action", action: token, version: this.version, id }) ? id : null;
  }
}

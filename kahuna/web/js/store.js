// The seats this browser holds, kept in localStorage so that "my games" can list and resume them.

const KEY = "kahuna.seats";

export function loadSeats() {
  try {
    const seats = JSON.parse(localStorage.getItem(KEY) || "[]");
    return Array.isArray(seats) ? seats : [];
  } catch {
    return [];
  }
}

/** Remember a seat: {game_id, seat, token, invite_url?, hotseat?}. */
export function rememberSeat(entry) {
  const seats = loadSeats().filter((s) => s.token !== entry.token);
  seats.unshift({ ...entry, saved: Date.now() });
  localStorage.setItem(KEY, JSON.stringify(seats.slice(0, 200)));
}

export function seatsOf(gameId) {
  return loadSeats().filter((s) => s.game_id === gameId);
}

export function preference(name, fallback) {
  return localStorage.getItem(`kahuna.${name}`) ?? fallback;
}

export function setPreference(name, value) {
  localStorage.setItem(`kahuna.${name}`, value);
}

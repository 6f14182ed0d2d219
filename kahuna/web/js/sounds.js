// Sounds for build, claim, sweep and "your turn", synthesised with the Web Audio API (nothing to
// download, no file to ship). Off by default; one toggle, kept in localStorage.

import { preference, setPreference } from "./store.js";

/** Each sound: a few notes [frequency Hz, start s, length s], with a wave shape. */
const SOUNDS = {
  build: { wave: "triangle", notes: [[392, 0, 0.09]] },
  claim: { wave: "triangle", notes: [[523, 0, 0.1], [659, 0.09, 0.1], [784, 0.18, 0.18]] },
  sweep: { wave: "sawtooth", notes: [[330, 0, 0.07], [247, 0.06, 0.12]] },
  turn: { wave: "sine", notes: [[660, 0, 0.12], [880, 0.13, 0.16]] },
};

let context = null;

export function soundOn() {
  return preference("sound", "off") === "on";
}

export function setSoundOn(on) {
  setPreference("sound", on ? "on" : "off");
  if (on) playSound("turn");
}

/** Play a named sound if sounds are on (and the browser lets the page make sound). */
export function playSound(name) {
  const sound = SOUNDS[name];
  if (!sound || !soundOn()) return;
  try {
    context = context || new AudioContext();
    const now = context.currentTime;
    for (const [freq, start, length] of sound.notes) {
      const osc = context.createOscillator();
      const gain = context.createGain();
      osc.type = sound.wave;
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + start);
      gain.gain.exponentialRampToValueAtTime(0.15, now + start + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
      osc.connect(gain).connect(context.destination);
      osc.start(now + start);
      osc.stop(now + start + length + 0.02);
    }
  } catch {
    // No audio device or no permission yet: sounds are a nicety, the game goes on silently.
  }
}

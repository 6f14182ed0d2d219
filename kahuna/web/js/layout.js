// Where the browser draws each island. board.json's `layout` is the printed board's geometry,
// which the terminal map uses as is; a drawing with big organic islands, labels and 44 px tap
// targets needs more room: here COCO–KAHU must pass clear of GOLA, ALOA–HUNA clear of DUDA, and
// no label may sit on a line (DUDA stands a little to the right and JOJO a little higher, so that
// their names fit beside them at the phone's size, clear of ALOA–HUNA and IFFI–KAHU). Same islands, same lines (the topology is board.json's); only the
// positions differ, and a test checks that no line passes over a third island.

/** Island centres as fractions of a 1000 × 1000 drawing (x left to right, y top to bottom). */
export const DRAWING_LAYOUT = {
  A: { x: 0.15, y: 0.29 },
  B: { x: 0.47, y: 0.25 },
  C: { x: 0.91, y: 0.3 },
  D: { x: 0.34, y: 0.44 },
  E: { x: 0.49, y: 0.5 },
  F: { x: 0.69, y: 0.42 },
  G: { x: 0.75, y: 0.55 },
  H: { x: 0.22, y: 0.67 },
  I: { x: 0.45, y: 0.7 },
  J: { x: 0.61, y: 0.62 },
  K: { x: 0.9, y: 0.77 },
  L: { x: 0.47, y: 0.9 },
};

/** The drawn radius of an island: bigger islands have more lines. */
export function islandRadius(island) {
  return 27 + 3 * island.lines;
}

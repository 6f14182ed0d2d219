// Island outlines: one deterministic organic blob per island, seeded by its name, so the twelve
// shapes are distinct, stable across reloads and need no hand-drawn artwork.

function seededRandom(text) {
  let seed = 2166136261;
  for (const ch of text) seed = Math.imul(seed ^ ch.charCodeAt(0), 16777619) >>> 0;
  return () => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let x = seed;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** Outline points (relative to the centre) of an island of nominal radius r. */
export function islandOutline(name, r) {
  const rand = seededRandom(name);
  const count = 9 + Math.floor(rand() * 4);
  const stretch = 0.78 + rand() * 0.5;
  const turn = rand() * Math.PI;
  const bay = Math.floor(rand() * count);
  const points = [];
  for (let i = 0; i < count; i++) {
    const angle = ((i + (rand() - 0.5) * 0.5) / count) * 2 * Math.PI;
    let radius = r * (0.74 + rand() * 0.4);
    if (i === bay) radius *= 0.66;
    const x = Math.cos(angle) * radius * stretch;
    const y = (Math.sin(angle) * radius) / stretch;
    points.push([x * Math.cos(turn) - y * Math.sin(turn), x * Math.sin(turn) + y * Math.cos(turn)]);
  }
  return points;
}

/** A closed smooth SVG path through points scaled by k around (cx, cy) (Catmull-Rom → Bézier). */
export function smoothPath(points, cx, cy, k = 1) {
  const p = points.map(([x, y]) => [cx + x * k, cy + y * k]);
  const n = p.length;
  const fmt = (v) => v.toFixed(1);
  let d = `M${fmt(p[0][0])},${fmt(p[0][1])}`;
  for (let i = 0; i < n; i++) {
    const [p0, p1, p2, p3] = [p[(i - 1 + n) % n], p[i], p[(i + 1) % n], p[(i + 2) % n]];
    const c1 = [p1[0] + (p2[0] - p0[0]) / 6, p1[1] + (p2[1] - p0[1]) / 6];
    const c2 = [p2[0] - (p3[0] - p1[0]) / 6, p2[1] - (p3[1] - p1[1]) / 6];
    d += `C${fmt(c1[0])},${fmt(c1[1])} ${fmt(c2[0])},${fmt(c2[1])} ${fmt(p2[0])},${fmt(p2[1])}`;
  }
  return d + "Z";
}

"""Draw the web app's icons (kahuna/web/icons/*.png) from the page's own look, with no image library.

The favicon's island (a sand disc on the sea, ``index.html``) with the two sorcerers' marks on it,
Black's ◆ and White's ●: ``icon-192.png`` and ``icon-512.png`` are a round sea on transparency
(purpose ``any``), ``maskable-512.png`` fills the square with sea and keeps the island inside the
centre circle of 80 % that every mask leaves visible (purpose ``maskable``). Each pixel's colour is
the exact coverage of the shapes (a half-pixel ramp at every edge), so the files are the same on
every machine: ``python tools/make_icons.py`` rewrites them, ``--check`` fails if they differ.
"""

from __future__ import annotations

import struct
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

ICONS = Path(__file__).resolve().parents[1] / "kahuna" / "web" / "icons"
SEA = (0x17, 0x56, 0x6F)  # --teal
SAND = (0xE8, 0xD7, 0xA0)  # the favicon's island
BLACK = (0x1D, 0x2A, 0x31)  # --ink
WHITE = (0xFF, 0xFD, 0xF7)  # --panel
Shape = Callable[[float, float], float]
"""Signed distance in pixels from a point to a shape's edge: negative inside."""


def disc(cx: float, cy: float, r: float) -> Shape:
    return lambda x, y: ((x - cx) ** 2 + (y - cy) ** 2) ** 0.5 - r


def diamond(cx: float, cy: float, r: float) -> Shape:
    return lambda x, y: (abs(x - cx) + abs(y - cy) - r) / 2**0.5


def everywhere() -> Shape:
    return lambda x, y: -1.0


def coverage(shape: Shape, x: float, y: float) -> float:
    return min(1.0, max(0.0, 0.5 - shape(x, y)))


def draw(size: int, maskable: bool) -> bytes:
    """The icon's RGBA rows: the sea, the island, ◆ and ● (scaled into the safe circle if maskable)."""
    c = size / 2
    scale = 0.8 if maskable else 1.0
    sea = everywhere() if maskable else disc(c, c, c)
    island = disc(c, c, c * 0.72 * scale)
    marks = [
        (diamond(c - c * 0.27 * scale, c, c * 0.22 * scale), BLACK),
        (disc(c + c * 0.27 * scale, c, c * 0.17 * scale), WHITE),
    ]
    rows = bytearray()
    for j in range(size):
        rows.append(0)  # filter: none
        for i in range(size):
            x, y = i + 0.5, j + 0.5
            alpha = coverage(sea, x, y)
            colour = SEA
            for shape, fill in [(island, SAND), *marks]:
                a = coverage(shape, x, y)
                if a:
                    colour = tuple(round(f * a + b * (1 - a)) for f, b in zip(fill, colour, strict=True))  # type: ignore[assignment]
            rows += bytes((*colour, round(255 * alpha)))
    return bytes(rows)


def png(size: int, rows: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack("!I", len(data)) + kind + data + struct.pack("!I", zlib.crc32(kind + data))

    header = struct.pack("!IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def icons() -> dict[str, bytes]:
    return {
        "icon-192.png": png(192, draw(192, maskable=False)),
        "icon-512.png": png(512, draw(512, maskable=False)),
        "maskable-512.png": png(512, draw(512, maskable=True)),
    }


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for name, data in icons().items():
        path = ICONS / name
        if check:
            if not path.exists() or path.read_bytes() != data:
                stale.append(name)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    if stale:
        print(f"stale icons (run python tools/make_icons.py): {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

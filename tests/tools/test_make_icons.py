"""The web app's icons are what ``tools/make_icons.py`` draws (a change to the drawing is committed
with its icons), and they are PNGs of the sizes the manifest names."""

from __future__ import annotations

import json
import struct

import make_icons


def test_the_committed_icons_are_the_drawn_ones() -> None:
    assert make_icons.main(["--check"]) == 0


def test_the_manifest_names_each_icon_at_its_size() -> None:
    manifest = json.loads((make_icons.ICONS.parent / "manifest.webmanifest").read_text())
    purposes = set()
    for icon in manifest["icons"]:
        data = (make_icons.ICONS / icon["src"].rsplit("/", 1)[1]).read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
        width, height = struct.unpack("!II", data[16:24])
        assert icon["sizes"] == f"{width}x{height}"
        purposes.add(icon["purpose"])
    assert purposes == {"any", "maskable"}
    assert {icon["sizes"] for icon in manifest["icons"]} >= {"192x192", "512x512"}

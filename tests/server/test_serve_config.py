"""``kahuna serve --config FILE`` and ``--print-config``: the file's options and limits, flags over
them, and clear errors naming the line."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import loopback
import pytest
from server_harness import ROOT, Server, free_port

from kahuna.cli import main
from kahuna.server.serve_config import OPTIONS

FILE = """\
# a deployment's settings
host = "127.0.0.1"
ai-workers = 2
smtp = "smtps://me:secret@mail.example:465"
public-url = "https://kahuna.example/"
push-insecure-host = ["push.test"]

[limits]
max_connections = 500
games_burst = 7
"""


def serve(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["serve", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_file_sets_options_and_limits_and_flags_win(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "kahuna.toml"
    config.write_text(FILE)
    code, out, err = serve(capsys, "--config", str(config), "--print-config", "--ai-workers", "3",
                           "--limit", "games_burst=9")  # fmt: skip
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert "ai-workers = 3" in lines  # the flag
    assert 'push-insecure-host = ["push.test"]' in lines  # the file
    assert 'smtp = "smtps://me:***@mail.example:465"' in lines and "secret" not in out
    assert "max_connections = 500" in lines and "games_burst = 9" in lines
    assert "port = 8000" in lines  # neither: the default
    # what it prints is a configuration file giving the same configuration
    again = tmp_path / "again.toml"
    again.write_text(out.replace("me:***@", "me:secret@"))
    assert serve(capsys, "--config", str(again), "--print-config") == (0, out, "")


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("port = 8000\nai_workers = 2\n", "line 2: unknown key 'ai_workers' (keys: host, port,"),
        ('port = "8000"\n', "line 1: port must be an integer, not '8000'"),
        ("local-ai = 1\n", "line 1: local-ai must be true or false, not 1"),
        ("push-insecure-host = [1]\n", "line 1: push-insecure-host must be a list of strings, not [1]"),
        (
            "port = 1\n\n[limits]\ngames_burst = 2\nmax_connections = 0\n",
            "line 5: limit max_connections must be positive",
        ),
        ("[limits]\nmax_connection = 5\n", "line 2: unknown limit 'max_connection' (limits: "),
        ('[limits]\ngames_burst = "many"\n', "line 2: limit games_burst needs a number, not 'many'"),
        ("port = \n", ": Invalid value (at line 1, column 8)"),
    ],
)
def test_a_wrong_key_or_value_is_an_error_naming_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, error: str
) -> None:
    config = tmp_path / "kahuna.toml"
    config.write_text(text)
    code, out, err = serve(capsys, "--config", str(config), "--print-config")
    assert (code, out) == (2, "")
    assert err.startswith(f"kahuna serve: --config {config}")
    assert error in err, err


def test_every_option_of_serve_can_be_in_the_file() -> None:
    done = subprocess.run([sys.executable, "-m", "kahuna", "serve", "--help"], capture_output=True, text=True,
                          cwd=ROOT, check=True)  # fmt: skip
    flags = set(re.findall(r"--([a-z][a-z-]+)", done.stdout))
    assert flags - {"help", "config", "print-config", "limit"} == set(OPTIONS)


def test_a_server_runs_with_its_configuration_file(tmp_path: Path) -> None:
    metrics = free_port()
    config = tmp_path / "kahuna.toml"
    config.write_text(f'metrics-listen = "127.0.0.1:{metrics}"\n\n[limits]\ngames_burst = 1\n')
    server = Server(tmp_path, args=("--config", str(config)))
    try:
        server.start()
        server.create(opponent="hotseat", seat="first")
        assert server.post("/api/games", {"opponent": "hotseat", "seat": "first"}).status_code == 429
        assert "kahuna_actions_total" in loopback.get(f"http://127.0.0.1:{metrics}/metrics", timeout=10).text
    finally:
        server.stop()

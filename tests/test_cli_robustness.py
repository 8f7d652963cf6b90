"""The CLI refuses a user's mistake in one line naming the flag or file, exit status 2,
before any model loads and never with a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeline import cli


@pytest.mark.parametrize("port", ["99999", "65536", "-1", "eighty"])
def test_serve_refuses_a_port_out_of_range_before_starting(port: str, tmp_path: Path, capsys):
    # uvicorn took any int and failed in bind() with an OverflowError traceback, after
    # the app (and its model) had loaded
    with pytest.raises(SystemExit) as exc:
        cli.main(["serve", "--index", str(tmp_path / "ix"), "--port", port])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"--port: must be a whole number within 0..65535, got '{port}'" in err
    assert "Traceback" not in err
    assert not (tmp_path / "ix").exists()

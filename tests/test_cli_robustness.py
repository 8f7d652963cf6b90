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


@pytest.mark.parametrize("argv", [
    ["serve", "--data", "{f}"],
    ["keys", "create", "--index", "{f}", "--collections", "*", "--scope", "read"],
    ["keys", "list", "--data", "{f}"],
])
def test_a_folder_flag_naming_a_file_is_refused_naming_it(argv: list[str], tmp_path: Path,
                                                          capsys):
    # the folder was made with mkdir(exist_ok=True), whose FileExistsError came out as a
    # traceback (serve --data, keys create); keys list read no keys and said "no keys"
    f = tmp_path / "notes.md"
    f.write_text("# Notes\n")
    argv = [a.format(f=f) for a in argv]
    flag = argv[argv.index(str(f)) - 1]
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    assert err.strip() == (f"citeline: error: {flag} {f}: not a folder ({flag} names a "
                           "folder; it is created if it does not exist)")
    assert out == "" and f.read_text() == "# Notes\n"

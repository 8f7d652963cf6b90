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
    assert err.splitlines()[-1] == ("citeline serve: error: argument --port: must be a whole "
                                    f"number within 0..65535, got '{port}'")
    assert "Traceback" not in err
    assert not (tmp_path / "ix").exists()


@pytest.mark.parametrize("argv, flag, said", [
    (["serve", "--index", "ix", "--port", "99999"], "--port",
     "must be a whole number within 0..65535, got '99999'"),
    (["search", "q", "--rerank-candidates", "0"], "--rerank-candidates",
     "must be a whole number of at least 1, got '0'"),
    (["eval", "gt", "--rerank-candidates", "many"], "--rerank-candidates",
     "must be a whole number of at least 1, got 'many'"),
    # nan passed every check (a server with no request timeout); inf and nan as sizes
    # failed converting to bytes, a traceback after the model had loaded
    (["serve", "--index", "ix", "--timeout", "nan"], "--timeout",
     "must be a finite number above 0, got 'nan'"),
    (["serve", "--index", "ix", "--max-upload-mb", "inf"], "--max-upload-mb",
     "must be a finite number above 0, got 'inf'"),
    (["serve", "--index", "ix", "--min-free-mb", "nan"], "--min-free-mb",
     "must be a finite number of at least 0, got 'nan'"),
    (["serve", "--index", "ix", "--min-free-mb", "-1"], "--min-free-mb",
     "must be a finite number of at least 0, got '-1'"),
])
def test_a_bad_flag_value_names_the_flag_once(argv: list[str], flag: str, said: str, capsys):
    # argparse puts "argument --port: " before a type's message, which named the flag
    # too: "argument --port: --port: must be ..."
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last == f"citeline {argv[0]}: error: argument {flag}: {said}"
    assert last.count(flag) == 1


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


def test_config_paths_expand_home_and_are_relative_to_the_file(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch):
    # "~/..." in a config file was kept as written and read against the working
    # directory: `store = "~/ix"` made a folder named "~" there; a relative store or
    # rerank_model was relative to wherever citeline ran
    from citeline.config import load_settings

    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    cfg = tmp_path / "conf" / "config.toml"
    cfg.parent.mkdir()
    cfg.write_text('store = "~/indexes/team"\nmodel_path = "~/models/mini"\n'
                   'rerank_model = "ce"\nlocal_model_path = "smollm2"\n')
    s = load_settings(cfg, env={})
    assert s.store == str(home / "indexes" / "team")
    assert s.model_path == str(home / "models" / "mini")
    assert s.rerank_model == str(cfg.parent / "ce")
    cfg.write_text('store = "postgresql://u@h/db"\nrerank_model = "smollm2"\n'
                   'model_path = "default"\n')
    s = load_settings(cfg, env={"CITELINE_LOCAL_MODEL_PATH": "~/m.gguf"})
    assert (s.store, s.rerank_model, s.model_path) == ("postgresql://u@h/db", "smollm2",
                                                       "default")
    assert s.local_model_path == str(home / "m.gguf")


@pytest.mark.parametrize("argv", [
    ["search", "kettle", "--index", "{ix}"],
    ["ask", "how do I descale the kettle?", "--index", "{ix}"],
    ["status", "--index", "{ix}"],
    # a network address with no key: were the check gone, serve would stop at that
    # refusal (another message) instead of serving until killed
    ["serve", "--index", "{ix}", "--host", "0.0.0.0"],
])
@pytest.mark.parametrize("there", ["nothing", "documents"])
def test_an_index_flag_naming_no_index_is_refused_and_creates_nothing(
        argv: list[str], there: str, tmp_path: Path, capsys):
    # serve --index opened its folder with create=True: a mistyped folder became a new,
    # empty index, served as the real one, and a documents folder got an index inside
    ix = tmp_path / "ix-typo"
    if there == "documents":
        ix.mkdir()
        (ix / "notes.md").write_text("# Notes\n")
    assert cli.main([a.format(ix=ix) for a in argv]) == 2
    out, err = capsys.readouterr()
    assert f"{ix}: no citeline index here" in err and err.count("\n") == 1, err
    assert out == ""
    if there == "nothing":
        assert not ix.exists()
    else:
        assert sorted(p.name for p in ix.iterdir()) == ["notes.md"]


GT = str(Path(__file__).parent / "fixtures" / "gt")


@pytest.mark.parametrize("argv, said", [
    (["search", "q", "--mode", "bm25", "--fusion", "rrf"],
     "--fusion rrf: --mode bm25 ranks one list, so there is nothing to fuse "
     "(--fusion goes with --mode hybrid or rerank)"),
    (["search", "q", "--mode", "dense", "--fusion", "late"],
     "--fusion late: --mode dense ranks one list"),
    (["eval", GT, "--modes", "dense,bm25", "--fusion", "convex"],
     "--fusion convex: --modes dense,bm25 ranks one list per run, so there is nothing to "
     "fuse (--fusion goes with a hybrid or rerank mode)"),
    (["eval", GT, "--modes", "dense", "--fusions", "rrf"],
     "--fusions rrf: these are runs E/hybrid+NAME, and --strategies ABCDEF --modes dense "
     "has no E/hybrid to run them on"),
    (["eval", GT, "--strategies", "A", "--fusions", "rrf,late"],
     "--fusions rrf,late: these are runs E/hybrid+NAME, and --strategies A"),
])
def test_a_fusion_no_run_would_use_is_refused_naming_both_flags(argv: list[str], said: str,
                                                                tmp_path: Path, capsys):
    # taken and ignored: `search --mode bm25 --fusion rrf` ranked as without it, and eval
    # wrote a report whose runs never fused
    where = ["--index", str(tmp_path / "ix")] if argv[0] == "search" else [
        "--out", str(tmp_path / "out"), "-q"]
    assert cli.main([*argv, *where]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"citeline: error: {said}") and err.count("\n") == 1, err
    assert not (tmp_path / "ix").exists() and not (tmp_path / "out").exists()


def test_a_fusion_is_refused_with_a_one_list_mode_from_the_settings(
        tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("CITELINE_MODE", "bm25")
    assert cli.main(["search", "q", "--index", str(tmp_path / "ix"), "--fusion", "rrf"]) == 2
    assert "--fusion rrf: mode bm25 (the mode setting) ranks one list" in capsys.readouterr().err
    # a mode that fuses takes it: what stops this search is the missing index
    assert cli.main(["search", "q", "--index", str(tmp_path / "ix"), "--fusion", "rrf",
                     "--mode", "hybrid"]) == 2
    assert "no citeline index here" in capsys.readouterr().err


@pytest.mark.parametrize("setting, value, expected", [
    ("k", "abc", "a whole number"),
    ("k", "2.5", "a whole number"),
    ("generator_timeout", "soon", "a number"),
    ("rerank_candidates", "", "a whole number"),
])
@pytest.mark.parametrize("source", ["file", "env"])
def test_a_setting_of_the_wrong_type_reads_alike_from_the_file_and_the_environment(
        setting: str, value: str, expected: str, source: str, tmp_path: Path, capsys,
        monkeypatch: pytest.MonkeyPatch):
    # the variable's said "setting 'CITELINE_K': expected int, got 'abc'", naming the
    # variable as the setting and the type by Python's name, where the file's said
    # "config.toml: setting 'k': expected a whole number, got 'abc'"
    if source == "file":
        cfg = tmp_path / "config.toml"
        cfg.write_text(f'{setting} = "{value}"\n')
        monkeypatch.setenv("CITELINE_CONFIG", str(cfg))
        where = str(cfg)
    else:
        where = f"CITELINE_{setting.upper()}"
        monkeypatch.setenv(where, value)
    assert cli.main(["search", "q", "--index", str(tmp_path / "ix")]) == 2
    assert capsys.readouterr().err == (f"citeline: error: {where}: setting '{setting}': "
                                       f"expected {expected}, got '{value}'\n")


def test_a_misspelt_variable_is_named_with_the_setting_it_is_closest_to(
        tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch):
    # CITELINE_MDOE=dense was ignored in silence: the search ran hybrid, and nothing
    # said why the variable had no effect
    monkeypatch.setenv("CITELINE_MDOE", "dense")
    monkeypatch.setenv("CITELINE_COLOUR", "blue")
    cli.main(["search", "q", "--index", str(tmp_path / "ix")])
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert warnings == [
        "citeline: warning: CITELINE_COLOUR is not a citeline setting; it is ignored",
        "citeline: warning: CITELINE_MDOE is not a citeline setting (did you mean "
        "CITELINE_MODE?); it is ignored",
    ]


def test_the_config_variable_and_the_api_keys_variable_are_not_called_unknown(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from citeline.config import unknown_variables

    cfg = tmp_path / "config.toml"
    cfg.write_text('openai_api_key_env = "CITELINE_LLM_KEY"\n')
    env = {"CITELINE_CONFIG": str(cfg), "CITELINE_LLM_KEY": "sk-x", "CITELINE_K": "5",
           "HOME": str(tmp_path)}
    assert unknown_variables(env) == []
    # named by the variable instead of the file: known too
    env = {"CITELINE_OPENAI_API_KEY_ENV": "CITELINE_TOKEN", "CITELINE_TOKEN": "sk-x"}
    assert unknown_variables(env) == []
    # a broken config file is the settings' error to report, not this warning's
    cfg.write_text("k = [\n")
    assert unknown_variables({"CITELINE_CONFIG": str(cfg), "CITELINE_KK": "1"}) == [
        "CITELINE_KK is not a citeline setting (did you mean CITELINE_K?); it is ignored"]

"""The CLI: help text for every command, JSON shapes, exit statuses."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from citeline import cli


def test_every_command_has_help_text():
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert set(sub.choices) == set(cli.COMMANDS)
    for name, sp in sub.choices.items():
        assert sp.description, name
        for action in sp._actions:
            if action.dest != "help":
                assert action.help, f"{name} {action.dest}"


def test_index_search_ask_status_json(run, corpus: Path, tmp_path: Path):
    ix = str(tmp_path / "ix")
    code, out, _ = run("index", str(corpus), "--index", ix, "-q")
    assert code == 1  # some documents failed
    assert "3 indexed" in out and "3 failed" in out and "FAILED  empty.md: empty file" in out
    assert "over the encoder window: 0" in out

    code, out, _ = run("search", "descaling vinegar", "--index", ix, "-k", "3", "--json")
    data = json.loads(out)
    assert code == 0 and data["query"] == "descaling vinegar" and data["mode"] == "hybrid"
    assert len(data["hits"]) == 3 and data["hits"][0]["document"] == "kettle.md"
    assert data["hits"][0]["locator"].startswith("#char=")

    code, out, _ = run("ask", "How long is the kettle warranty?", "--index", ix, "--json")
    data = json.loads(out)
    assert set(data) >= {"question", "refused", "reason", "answer", "citations"}
    assert not data["refused"]
    c = data["citations"][0]
    assert set(c) >= {"index", "document", "title", "section", "locator", "quote", "distance"}
    text = (corpus / c["document"]).read_text()
    start, end = map(int, c["locator"].removeprefix("#char=").split(","))
    assert text[start:end] == c["quote"]

    code, out, _ = run("ask", "what is the capital of mongolia", "--index", ix)
    assert out.startswith('NO ANSWER: nothing under cosine distance 0.675 for "what is the capital of mongolia"')

    code, out, _ = run("status", "--index", ix, "--json")
    st = json.loads(out)
    assert st["sentence_vectors"] is True and st["hybrid_fusion"] == "late"
    docs = {d["document"]: d for d in st["documents"]}
    assert docs["cyrillic.txt"]["state"] == "failed" and "UTF-8" in docs["cyrillic.txt"]["reason"]
    assert docs["kettle.md"]["state"] == "indexed" and docs["kettle.md"]["chunks"] > 0
    code, out, _ = run("status", "--index", ix)
    lines = out.splitlines()
    failed = next(i for i, line in enumerate(lines) if "cyrillic.txt" in line)
    assert not lines[failed + 1].strip().startswith("hash")  # never indexed: no empty fields
    kettle = next(i for i, line in enumerate(lines) if "kettle.md" in line)
    assert lines[kettle + 1].strip().startswith("hash ")

    (corpus / "empty.md").write_text("# Now\n\nIt has text.\n")
    (corpus / "cyrillic.txt").unlink()
    (corpus / "image.md").unlink()
    code, out, _ = run("retry", "--index", ix, "-q", "--json")
    data = json.loads(out)
    assert data["indexed"] == 1 and len(data["failed"]) == 2  # the deleted files fail clearly
    assert all("cannot read file" in f["reason"] for f in data["failed"])


def test_errors_are_clear(run, tmp_path: Path):
    code, _, err = run("search", "x", "--index", str(tmp_path / "nothing"))
    assert code == 2 and "no citeline index here" in err
    code, _, err = run("index", str(tmp_path / "missing"), "--index", str(tmp_path / "ix"))
    assert code == 2 and "no such file or folder" in err
    Path(tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nSome text about anything.\n")
    assert run("index", str(tmp_path / "docs"), "--index", str(tmp_path / "ix"), "-q")[0] == 0
    for cmd, what in (("search", "query"), ("ask", "question")):
        code, _, err = run(cmd, "  ", "--index", str(tmp_path / "ix"))
        assert code == 2 and f"{what}: must not be empty" in err
        # bytes that are not UTF-8 reach Python as lone surrogates: a usage error
        code, _, err = run(cmd, "battery \udcff", "--index", str(tmp_path / "ix"))
        assert code == 2 and f"{what}: holds bytes that are not valid UTF-8" in err
    code, _, err = run("remove", "no\udcffdoc", "--index", str(tmp_path / "ix"))
    assert code == 1 and "not in the index: no\\udcffdoc" in err
    odd = tmp_path / "dir\udcff"
    odd.mkdir()
    (odd / "b.md").write_text("# B\n\nText.\n")
    code, _, err = run("index", str(odd), "--index", str(tmp_path / "ix2"))
    assert code == 2 and "the path is not valid UTF-8" in err
    # a run refused before any document creates no index (a typo'd option, a model folder
    # that is not there)
    for flags in (("--budget", "50"), ("--model", str(tmp_path / "no-model"))):
        code, _, err = run("index", str(tmp_path / "docs"), "--index", str(tmp_path / "ix3"),
                           "-q", *flags)
        assert code == 2 and (flags[0] in err or "no-model" in err), err
        assert not (tmp_path / "ix3").exists()
    code, _, err = run("adapt", "--index", str(tmp_path / "ix"), "--out",
                       str(tmp_path / "docs" / "a.md"))
    assert code == 2 and "a.md is a file" in err
    # an index folder that cannot be made: a message naming it, not a traceback
    docs = str(tmp_path / "docs")
    code, _, err = run("index", docs, "--index", str(tmp_path / "docs" / "a.md" / "ix"))
    assert code == 2 and "a.md/ix: cannot create the index folder: Not a directory" in err
    gt = str(Path(__file__).parent / "fixtures" / "gt")
    code, _, err = run("eval", gt, "--out", str(tmp_path / "docs" / "a.md"), "-q")
    assert code == 2 and "a.md: cannot create the report folder" in err
    # a text file with a NUL byte anywhere is binary, not only in its first 8 KiB
    (tmp_path / "docs" / "late.md").write_bytes(b"# Late\n\n" + b"text " * 3000 + b"\0 end\n")
    code, out, _ = run("index", docs, "--index", str(tmp_path / "ix"), "-q")
    assert code == 1 and "FAILED  late.md: binary file (contains NUL bytes), not text" in out
    # the index file damaged past its first page (its header still reads): said so
    db = tmp_path / "ix" / "citeline.sqlite3"
    import sqlite3

    con = sqlite3.connect(db)  # every page into the file itself, none left in the WAL
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    with db.open("r+b") as fh:
        fh.seek(4096)
        fh.write(b"\xa5" * (db.stat().st_size - 4096))
    code, _, err = run("search", "anything", "--index", str(tmp_path / "ix"))
    assert code == 2 and f"{db}: the index file is damaged" in err, err
    assert "Traceback" not in err and err.count("\n") == 1


@pytest.mark.slow
def test_module_and_console_script_entry_points(tmp_path: Path):
    for argv in ([sys.executable, "-m", "citeline", "--help"],
                 [str(Path(sys.executable).parent / "citeline"), "--help"]):
        res = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        assert res.returncode == 0 and "index" in res.stdout


def test_remove_named_documents_and_those_whose_files_are_gone(run, tmp_path: Path):
    top = tmp_path / "kitchen"
    sub = top / "appliances"
    sub.mkdir(parents=True)
    (top / "knives.md").write_text("# Knives\n\nHone the blade before every use.\n")
    (top / "pans.md").write_text("# Pans\n\nSeason cast iron with oil.\n")
    (sub / "kettle.md").write_text("# Kettle\n\nDescale it with vinegar.\n")
    ix = str(tmp_path / "ix")
    assert run("index", str(sub), "--index", ix, "-q")[0] == 0
    assert run("index", str(top / "knives.md"), "--index", ix, "-q")[0] == 0
    assert run("index", str(top / "pans.md"), "--index", ix, "-q")[0] == 0
    assert run("remove", "--index", ix)[0] == 2  # nothing named
    code, out, err = run("remove", "pans.md", "nosuch.md", "--index", ix)
    assert code == 1 and out == "removed pans.md\n" and "not in the index: nosuch.md" in err
    code, out, _ = run("remove", "--missing", "--index", ix)
    assert code == 0 and out == "nothing to remove: every document's file is there\n"
    (sub / "kettle.md").unlink()
    sub.rmdir()  # the folder indexed on its own is gone: only --missing can reach it
    code, out, _ = run("remove", "--missing", "--index", ix)
    assert code == 0 and out == "removed kettle.md\n"
    code, out, _ = run("status", "--index", ix, "--json")
    assert [d["document"] for d in json.loads(out)["documents"]] == ["knives.md"]


def test_search_and_ask_in_some_documents(run, clean_corpus: Path, tmp_path: Path):
    ix = str(tmp_path / "ix")
    assert run("index", str(clean_corpus), "--index", ix, "-q")[0] == 0
    code, out, _ = run("search", "warranty chain kettle", "--index", ix, "--json",
                       "--in", "guides/**", "--in", "notes.txt")
    data = json.loads(out)
    assert code == 0 and data["documents"] == ["guides/bicycle.md", "notes.txt"]
    assert data["hits"] and {h["document"] for h in data["hits"]} <= set(data["documents"])
    code, out, _ = run("search", "warranty", "--index", ix, "--json")
    assert "documents" not in json.loads(out)  # no --in: the object as it always was
    code, out, _ = run("search", "zzzqqq", "--index", ix, "--mode", "bm25", "--in", "*.md")
    assert code == 0 and out.startswith(
        "no hits (bm25): nothing in the 1 document(s) matching --in matches the query")

    code, out, _ = run("ask", "How long is the kettle warranty?", "--index", ix, "--in", "kettle.md")
    assert code == 0 and "kettle.md" in out
    assert re.match(r"\(extractive; \d source\(s\) of the 1 document\(s\) matching --in; ",
                    out.rstrip().splitlines()[-1])
    code, out, _ = run("ask", "How long is the kettle warranty?", "--index", ix, "--in", "guides/")
    assert code == 0 and out.startswith('NO ANSWER: nothing under cosine distance 0.675 for "How '
                                        "long is the kettle warranty?\" in the 1 document matching "
                                        "'guides/'")
    assert "searched only 1 document matching 'guides/': guides/bicycle.md" in out
    code, out, _ = run("ask", "How long is the kettle warranty?", "--index", ix, "--json",
                       "--in", "guides/")
    assert json.loads(out)["documents"] == ["guides/bicycle.md"]

    # an entry that matches nothing names the flag and the entry; a folder, how to say it
    code, out, err = run("search", "kettle", "--index", ix, "--in", "kettle.md", "--in", "*.pdf")
    assert code == 2 and not out and err.strip() == (
        "citeline: error: --in: no indexed document matches '*.pdf'")
    code, _, err = run("ask", "kettle?", "--index", ix, "--in", "guides")
    assert code == 2 and "--in: no indexed document matches 'guides' ('guides' is a folder" in err


def test_many_files_skipped_for_one_reason_are_counted_not_listed(run, tmp_path: Path):
    """A folder of thousands of photographs or build outputs must not bury the run's
    summary: a reason's first files are listed, the rest counted (reasons that differ in
    their numbers alone are one); --json lists every one."""
    import doctest

    from citeline import cli

    assert doctest.testmod(cli).failed == 0
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "note.md").write_text("# Note\n\nThe ferry leaves at nine.\n")
    for i in range(8):
        (docs / f"build-{i}.o").write_bytes(b"\x7fELF")
    (docs / "data.xyz").write_text("x")
    ix = str(tmp_path / "ix")
    code, out, _ = run("index", str(docs), "--index", ix, "-q")
    assert code == 0
    listed = [ln for ln in out.splitlines() if ln.startswith("skipped build-")]
    assert len(listed) == cli.SKIPS_SHOWN
    assert "skipped 3 more for the same reason (build-5.o, build-6.o, build-7.o)" in out
    assert "skipped data.xyz: unsupported file type '.xyz'" in out
    code, out, _ = run("index", str(docs), "--index", ix, "-q", "--json")
    assert len(json.loads(out)["skipped"]) == 9

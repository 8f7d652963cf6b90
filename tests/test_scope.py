"""Document filters: which indexed paths a user's paths, folders and globs name."""

from __future__ import annotations

import fnmatch

from hypothesis import given
from hypothesis import strategies as st

from citeline.retrieve.scope import folder_hint, match_documents, pattern_regex

PATHS = [
    "a.md", "top.pdf", "handbook/leave.md", "handbook/x/deep.md", "contracts/2024-a.pdf",
    "contracts/2023-b.pdf", "notes[1].md", "notes1.md", "handbooks/other.md",
]


def matched(*patterns: str) -> list[str]:
    return match_documents(patterns, PATHS)[0]


def test_star_stays_within_a_folder_and_double_star_crosses_them():
    assert matched("*.md") == ["a.md", "notes[1].md", "notes1.md"]
    assert matched("*.pdf") == ["top.pdf"]
    assert matched("**/*.pdf") == ["top.pdf", "contracts/2024-a.pdf", "contracts/2023-b.pdf"]
    assert matched("contracts/2024-*") == ["contracts/2024-a.pdf"]
    assert matched("contracts/202?-*.pdf") == ["contracts/2024-a.pdf", "contracts/2023-b.pdf"]
    assert matched("contracts/202[!3]-*") == ["contracts/2024-a.pdf"]
    assert matched("handbook/**/deep.md") == ["handbook/x/deep.md"]
    assert matched("**") == PATHS
    assert matched("*") == ["a.md", "top.pdf", "notes[1].md", "notes1.md"]
    # a class never matches the separator, even through a range that holds it
    assert not pattern_regex("handbook[!a]leave.md").fullmatch("handbook/leave.md")
    assert not pattern_regex("handbook[.-0]leave.md").fullmatch("handbook/leave.md")


def test_a_folder_is_named_with_a_slash_or_double_star_not_as_a_prefix():
    below = ["handbook/leave.md", "handbook/x/deep.md"]
    assert matched("handbook/") == matched("handbook/**") == matched("./handbook/") == below
    # "handbook" is no document, and "handbooks/" is not inside it
    docs, unmatched = match_documents(["handbook"], PATHS)
    assert docs == [] and unmatched == ["handbook"]
    assert "'handbook/'" in folder_hint("handbook", PATHS)
    assert folder_hint("hand", PATHS) == "" and folder_hint("*.txt", PATHS) == ""


def test_an_exact_path_names_that_document_even_with_glob_characters():
    assert matched("notes[1].md") == ["notes[1].md"]  # not also notes1.md
    assert matched("notes[0-9].md") == ["notes1.md"]  # no such document: the glob
    assert matched("./a.md", "a.md") == ["a.md"]
    # the union of the entries, in the index's order; each entry that matched nothing, as given
    docs, unmatched = match_documents(["top.pdf", "nope/*", "a.md", "gone.md"], PATHS)
    assert docs == ["a.md", "top.pdf"] and unmatched == ["nope/*", "gone.md"]


_name = st.text(alphabet="ab.-x", min_size=0, max_size=6)
_glob = st.lists(st.sampled_from(["a", "b", ".", "*", "?", "x", "-"]), max_size=6).map("".join)


@given(pattern=_glob, name=_name.filter(bool))
def test_within_one_folder_a_glob_is_fnmatch(pattern: str, name: str):
    """Against an independent reference: with no "/" in play, the module's globs are
    fnmatch's (case-sensitive), for every name a document can have (not "")."""
    assert bool(pattern_regex(pattern).fullmatch(name)) == fnmatch.fnmatchcase(name, pattern)


@given(pattern=_glob.filter(lambda p: p != "**"),
       folder=st.sampled_from(["d", "d/e", "dd", "dd/d"]), name=_name.filter(bool))
def test_star_and_question_mark_never_cross_a_slash(pattern: str, folder: str, name: str):
    """A pattern without "/" (but "**", any depth) names documents of the top folder
    only; "d/**" every document below d/, at any depth, and nothing else (not dd/'s)."""
    path = f"{folder}/{name}"
    assert not pattern_regex(pattern).fullmatch(path)
    assert bool(pattern_regex("d/**").fullmatch(path)) == (folder in ("d", "d/e"))

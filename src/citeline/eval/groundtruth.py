"""Load and validate a ground-truth folder (format: ``eval/rustbook/README.md``).

A ground-truth folder holds::

    docs/               the documents: text in UTF-8, or any format citeline reads
    MANIFEST.json       {"source", "commit", "license", "attribution", "documents": [...], ...}
    questions.jsonl     {"id", "doc", "needle", "queries": {"course": ..., "ticket": ...}}
    unanswerable.jsonl  {"id", "query", "kind": "near" | "off"}

Everything a program can check for any document format is checked here,
*before* any indexing starts (a Markdown corpus's titles and ``##`` section
counts in the manifest are its own ``check_gt.py``'s to check), and the first
broken line is reported as ``file:line: reason``
(:class:`~citeline.errors.GroundTruthError`; every further problem is listed
in the same message). The rules that matter for honest scores:

* the needle is a verbatim substring of its document's canonical text (the
  text the chunker sees: what the extractor returns);
* it occurs exactly once in the whole corpus, so "a chunk contains the needle"
  can only mean the right place;
* it touches no heading line, else a chunker that copies headings into every
  chunk (strategy E's header is embedded, not quoted, but C/D/F content
  starting at a heading would) would score itself;
* it neither starts nor ends with whitespace: a chunk's content is trimmed, so a
  needle ending in a line break is lost whenever a chunk ends with its sentence,
  and the chunker would be blamed for it;
* no JSON object names a key twice (JSON readers keep the last: a second
  ``needle`` or phrasing would silently replace the first).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from citeline.chunk import headings
from citeline.errors import ExtractionError, GroundTruthError
from citeline.extract import extractor_for, supported
from citeline.types import Heading

Kind = Literal["near", "off"]
KINDS: tuple[Kind, ...] = ("near", "off")
MANIFEST_KEYS = ("source", "commit", "license", "attribution", "documents",
                 "total_chars", "total_sections")
QUESTION_KEYS = ("id", "doc", "needle", "queries")
UNANSWERABLE_KEYS = ("id", "query", "kind")


@dataclass(frozen=True)
class GroundTruth:
    """One needle and the phrasings that ask for it."""

    id: str
    doc: str  # path relative to docs/
    needle: str
    queries: tuple[tuple[str, str], ...]  # (phrasing, query text), in file order
    start: int  # the needle's offset in the document's canonical text
    line: int  # line in questions.jsonl

    @property
    def end(self) -> int:
        return self.start + len(self.needle)


@dataclass(frozen=True)
class Unanswerable:
    id: str
    query: str
    kind: Kind
    line: int


@dataclass(frozen=True)
class Query:
    """One in-domain query: a ground truth asked in one phrasing."""

    qid: str  # "q01/course"
    gt: GroundTruth
    phrasing: str
    text: str


@dataclass(frozen=True)
class GroundTruthSet:
    root: Path
    manifest: dict[str, Any]
    texts: dict[str, str]  # document path -> canonical text
    questions: tuple[GroundTruth, ...]
    unanswerable: tuple[Unanswerable, ...]

    @property
    def docs_dir(self) -> Path:
        return self.root / "docs"

    def queries(self) -> list[Query]:
        return [
            Query(f"{gt.id}/{ph}", gt, ph, text) for gt in self.questions for ph, text in gt.queries
        ]

    @property
    def phrasings(self) -> list[str]:
        return list(dict.fromkeys(ph for gt in self.questions for ph, _ in gt.queries))


@dataclass
class _Problems:
    items: list[tuple[str, int | None, str]] = field(default_factory=list)

    def add(self, file: Path | str, line: int | None, reason: str) -> None:
        self.items.append((str(file), line, reason))

    def raise_if_any(self) -> None:
        if not self.items:
            return
        file, line, reason = self.items[0]
        exc = GroundTruthError(file, line, reason)
        if len(self.items) > 1:
            more = "\n".join(
                f"  {f}:{n}: {r}" if n is not None else f"  {f}: {r}" for f, n, r in self.items[1:]
            )
            exc.args = (f"{exc.args[0]}\n{len(self.items) - 1} more problem(s):\n{more}",)
        raise exc


def load_ground_truth(root: str | Path) -> GroundTruthSet:
    """Read and validate the ground-truth folder ``root``; raise on any broken rule."""
    root = Path(root).expanduser()
    if not root.is_dir():
        raise GroundTruthError(str(root), None, "no such ground-truth folder")
    problems = _Problems()
    for name in ("docs", "MANIFEST.json", "questions.jsonl", "unanswerable.jsonl"):
        if not (root / name).exists():
            problems.add(root / name, None, "missing (a ground-truth folder needs docs/, "
                         "MANIFEST.json, questions.jsonl and unanswerable.jsonl)")
    problems.raise_if_any()

    texts, raw_lengths, heading_lists = _read_docs(root / "docs", problems)
    manifest = _read_manifest(root / "MANIFEST.json", raw_lengths, problems)
    problems.raise_if_any()  # needles are checked against documents that loaded

    seen_ids: dict[str, tuple[str, int]] = {}
    questions = [
        gt
        for gt in (
            _question(root / "questions.jsonl", n, obj, texts, heading_lists, seen_ids, problems)
            for n, obj in _jsonl(root / "questions.jsonl", problems)
        )
        if gt is not None
    ]
    unanswerable = [
        u
        for u in (
            _unanswerable(root / "unanswerable.jsonl", n, obj, seen_ids, problems)
            for n, obj in _jsonl(root / "unanswerable.jsonl", problems)
        )
        if u is not None
    ]
    if not questions and not problems.items:
        problems.add(root / "questions.jsonl", None, "no ground truth (the file is empty)")
    problems.raise_if_any()
    return GroundTruthSet(root, manifest, texts, tuple(questions), tuple(unanswerable))


# --- documents and manifest --------------------------------------------------------------


def _read_docs(
    docs: Path, problems: _Problems
) -> tuple[dict[str, str], dict[str, int], dict[str, list[Heading]]]:
    """(canonical texts, raw character counts, the headings of each document that
    has them: as the chunker reads them, or the extractor's outline)."""
    texts: dict[str, str] = {}
    heading_lists: dict[str, list[Heading]] = {}
    raw_lengths: dict[str, int] = {}
    if not docs.is_dir():
        problems.add(docs, None, "not a folder")
        return texts, raw_lengths, heading_lists
    for f in sorted(p for p in docs.rglob("*") if p.is_file()):
        rel = f.relative_to(docs).as_posix()
        if any(part.startswith(".") for part in f.relative_to(docs).parts):
            continue  # the indexer skips hidden files too
        if not supported(f):
            problems.add(f, None, f"unsupported document type '{f.suffix or f.name}'")
            continue
        try:
            doc = extractor_for(f).extract(f, rel)
            texts[rel] = doc.text
            try:  # a text file's characters as written; a PDF's or an Office file's text
                raw_lengths[rel] = len(f.read_bytes().decode("utf-8"))
            except UnicodeDecodeError:
                raw_lengths[rel] = len(doc.text)
            if doc.headings == "outline":
                heading_lists[rel] = list(doc.outline)
            elif doc.headings != "none":
                heading_lists[rel] = headings(doc.text, doc.headings)
        except ExtractionError as exc:
            problems.add(f, None, exc.reason)
    if not texts and not problems.items:
        problems.add(docs, None, "no documents")
    return texts, raw_lengths, heading_lists


def _read_manifest(path: Path, raw_lengths: dict[str, int], problems: _Problems) -> dict[str, Any]:
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=_object)
    except (OSError, UnicodeDecodeError) as exc:
        problems.add(path, None, f"cannot read: {exc}")
        return {}
    except _DuplicateKey as exc:
        problems.add(path, None, str(exc))
        return {}
    except json.JSONDecodeError as exc:
        problems.add(path, exc.lineno, f"bad JSON: {exc.msg}")
        return {}
    if not isinstance(manifest, dict):
        problems.add(path, 1, "must be a JSON object")
        return {}
    missing = [k for k in MANIFEST_KEYS if k not in manifest]
    if missing:
        problems.add(path, None, f"missing field(s): {', '.join(missing)}")
    listed = manifest.get("documents")
    if not isinstance(listed, list):
        problems.add(path, None, "field 'documents': must be a list")
        return manifest
    names = []
    for i, d in enumerate(listed):
        if not isinstance(d, dict) or not isinstance(d.get("file"), str):
            problems.add(path, None, f"documents[{i}]: needs a 'file' string")
            continue
        if d["file"] in names:
            problems.add(path, None, f"documents[{i}]: {d['file']} is listed twice")
        names.append(d["file"])
        chars = d.get("chars")
        if "chars" in d and (not isinstance(chars, int) or isinstance(chars, bool)):
            problems.add(path, None, f"documents[{i}]: 'chars' must be a whole number, "
                         f"got {chars!r}")
        elif d["file"] not in raw_lengths:
            problems.add(path, None, f"documents[{i}]: {d['file']} is not in docs/")
        elif chars is not None and chars != raw_lengths[d["file"]]:
            problems.add(path, None, f"documents[{i}]: {d['file']} has {raw_lengths[d['file']]} "
                         f"characters, the manifest says {chars}")
    for rel in raw_lengths:
        if rel not in names:
            problems.add(path, None, f"docs/{rel} is not listed in 'documents'")
    total = manifest.get("total_chars")
    if "total_chars" in manifest and total != sum(raw_lengths.values()):
        problems.add(path, None, f"field 'total_chars': the documents have "
                     f"{sum(raw_lengths.values())} characters, the manifest says {total!r}")
    return manifest


# --- jsonl lines -------------------------------------------------------------------------


def _jsonl(path: Path, problems: _Problems) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError) as exc:
        problems.add(path, None, f"cannot read: {exc}")
        return
    if lines and lines[-1] == "":
        lines.pop()  # the final newline
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            problems.add(path, n, "blank line")
            continue
        try:
            obj = json.loads(line, object_pairs_hook=_object)
        except _DuplicateKey as exc:
            problems.add(path, n, str(exc))
            continue
        except json.JSONDecodeError as exc:
            problems.add(path, n, f"bad JSON: {exc.msg} (column {exc.colno})")
            continue
        if not isinstance(obj, dict):
            problems.add(path, n, "must be a JSON object")
            continue
        yield n, obj


class _DuplicateKey(ValueError):
    pass


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused when it names a key twice (``json`` keeps the last)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(f"key {key!r} appears twice in one object (only the last "
                                "would count)")
        out[key] = value
    return out


def _fields(path: Path, n: int, obj: dict[str, Any], keys: tuple[str, ...],
            problems: _Problems) -> bool:
    missing = [k for k in keys if k not in obj]
    unknown = sorted(set(obj) - set(keys))
    if missing:
        problems.add(path, n, f"missing field(s): {', '.join(missing)}")
    if unknown:
        problems.add(path, n, f"unknown field(s): {', '.join(unknown)}")
    if missing or unknown:
        return False
    bad = [k for k in keys if k not in ("queries",) and not (isinstance(obj[k], str) and obj[k].strip())]
    if bad:
        problems.add(path, n, f"field(s) {', '.join(bad)}: must be non-empty strings")
        return False
    return True


def _unique_id(path: Path, n: int, gid: str, seen: dict[str, tuple[str, int]],
               problems: _Problems) -> bool:
    if gid in seen:
        f, line = seen[gid]
        problems.add(path, n, f"duplicate id {gid!r} (first at {f}:{line})")
        return False
    seen[gid] = (path.name, n)
    return True


def _question(
    path: Path, n: int, obj: dict[str, Any], texts: dict[str, str],
    heading_lists: dict[str, list[Heading]],
    seen: dict[str, tuple[str, int]], problems: _Problems,
) -> GroundTruth | None:
    if not _fields(path, n, obj, QUESTION_KEYS, problems):
        return None
    gid, doc, needle, queries = obj["id"], obj["doc"], obj["needle"], obj["queries"]
    if not _unique_id(path, n, gid, seen, problems):
        return None
    if (
        not isinstance(queries, dict) or not queries
        or not all(isinstance(q, str) and q.strip() for q in queries.values())
    ):
        problems.add(path, n, f"{gid}: 'queries' must map each phrasing to a non-empty string")
        return None
    bad_names = [ph for ph in queries if not ph.strip() or ph != ph.strip() or "/" in ph]
    if bad_names:
        problems.add(path, n, f"{gid}: phrasing name {bad_names[0]!r} must be a word such as "
                     "'course' (not empty, no surrounding spaces, no '/')")
        return None
    if needle != needle.strip():
        problems.add(path, n, f"{gid}: needle starts or ends with whitespace; trim it (a "
                     "chunk's content is trimmed, so such a needle is lost whenever a chunk "
                     "ends at its sentence)")
        return None
    text = texts.get(doc)
    if text is None:
        hidden = any(part.startswith(".") for part in str(doc).split("/"))
        problems.add(path, n, f"{gid}: document {doc!r} is not in docs/" + (
            " (hidden names, starting with '.', are not indexed)" if hidden else ""))
        return None
    if "\r" in needle:  # the document's CRLF or CR line ends are read as "\n", as citeline reads them
        needle = needle.replace("\r\n", "\n").replace("\r", "\n")
    start = text.find(needle)
    if start < 0:
        problems.add(path, n, f"{gid}: needle is not a verbatim substring of {doc}")
        return None
    count = sum(_count_overlapping(t, needle) for t in texts.values())
    if count != 1:
        problems.add(path, n, f"{gid}: needle occurs {count} times in the corpus, must be unique")
        return None
    heading = _touched_heading(text, start, start + len(needle), heading_lists.get(doc, []))
    if heading is not None:
        problems.add(path, n, f"{gid}: needle touches heading line {heading!r} (a needle "
                     "must never be a heading)")
        return None
    return GroundTruth(gid, doc, needle, tuple(queries.items()), start, n)


def _unanswerable(
    path: Path, n: int, obj: dict[str, Any], seen: dict[str, tuple[str, int]], problems: _Problems
) -> Unanswerable | None:
    if not _fields(path, n, obj, UNANSWERABLE_KEYS, problems):
        return None
    if not _unique_id(path, n, obj["id"], seen, problems):
        return None
    if obj["kind"] not in KINDS:
        problems.add(path, n, f"{obj['id']}: kind must be one of {', '.join(KINDS)}, "
                     f"got {obj['kind']!r}")
        return None
    return Unanswerable(obj["id"], obj["query"], obj["kind"], n)


def _count_overlapping(text: str, needle: str) -> int:
    count, at = 0, text.find(needle)
    while at >= 0:
        count += 1
        at = text.find(needle, at + 1)
    return count


def _touched_heading(text: str, start: int, end: int, heads: list[Heading]) -> str | None:
    """The first of ``heads`` (its lines, underline included) overlapping [start, end)."""
    for h in heads:
        if h.start < end and start < h.end:
            return text[h.start : h.end]
    return None

"""Transcripts: WebVTT and SRT subtitles, and audio/video files that have one beside them.

Canonical text: one line per cue, its payload lines joined by a space, markup
removed (``<i>``, ``<c.x>``, karaoke timestamps, SRT's ``{\\an8}``), entities
decoded. A WebVTT voice span ``<v Maria>`` becomes ``Maria: `` in front of
what Maria says, so speaker labels stay in the quoted content (SRT has no
voice markup; a label typed into the text, ``NARRATOR: ...``, is kept as is).
Each cue is a CUE :class:`Region` with its start and end time; the chunker
packs whole cues and the locator ``#t=start,end`` (W3C Media Fragments, in
seconds) spans exactly the cues a chunk holds.

**Media with a sidecar.** An audio or video file (``talk.mp4``) whose
transcript sits beside it with the same base name (``talk.vtt`` or
``talk.srt``, else a language-tagged ``talk.en.vtt``) is indexed as *that
media file*: the document path is ``talk.mp4``, so ``talk.mp4#t=12,30`` opens
the recording at the quoted moment. A media file without one is skipped
("no transcript"), not failed. To avoid indexing the same words twice, the
sidecar that a present media file uses is itself skipped (listed as
"transcript of talk.mp4"); a transcript with no media beside it is indexed on
its own. The media file's fingerprint for change detection is its sidecar's
bytes, so editing the transcript re-indexes the recording, and a multi-GB
video is never read.

Malformed cues (a bad timing line) are skipped with a warning naming their
line; a file with no valid cue fails.
"""

from __future__ import annotations

import functools
import hashlib
import html
import mimetypes
import re
import time
from dataclasses import dataclass
from pathlib import Path

from citeline.errors import ExtractionError, UnsupportedFormat
from citeline.extract import register
from citeline.extract.blocks import TextBuilder
from citeline.extract.text import decode
from citeline.types import Document, Region, RegionKind

TRANSCRIPT_SUFFIXES = (".vtt", ".srt")
MEDIA_SUFFIXES = (
    ".mp3", ".wav", ".m4a", ".aac", ".flac", ".ogg", ".oga", ".opus", ".weba",
    ".mp4", ".m4v", ".webm", ".ogv", ".mkv", ".mov", ".avi",
)
# "talk.en.vtt", "talk.pt-BR.srt": a BCP 47-ish language tag before the suffix.
_LANG_TAG = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*")
_TIME = r"(?:(\d+):)?(\d{1,2}):(\d{1,2})[.,](\d{1,3})"
_TIMING = re.compile(rf"^\s*{_TIME}\s*-->\s*{_TIME}(?:\s.*)?$")
_TIME_LIKE = re.compile(r"\d:\d\d")
_VOICE = re.compile(r"<v(?:\.[^\s>]*)?\s+([^>]*)>")
# The markup WebVTT and SRT players know (WebVTT's c, i, b, u, v, lang, ruby, rt; SRT's
# font and s): only these are tags, so a "<" in the text ("x<y and z>w") stays.
_TAG = re.compile(r"</?(?:[ibuvs]|c|lang|ruby|rt|font|span)(?:[.\s][^>]*)?>|<\d[\d:.]*>", re.I)
_ASS = re.compile(r"\{\\[^}]*\}")
_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class Cue:
    start: float
    end: float
    text: str
    line: int  # 1-based line of the timing line, for messages


def parse_time(h: str | None, m: str, s: str, frac: str) -> float:
    """("01", "02", "03", "5") -> 3723.5 seconds; hours are optional in WebVTT.
    Minutes or seconds over 59 are no time (ValueError), as both formats define them."""
    if int(m) > 59 or int(s) > 59:
        raise ValueError(f"{m}:{s}: minutes and seconds run from 00 to 59")
    return int(h or 0) * 3600 + int(m) * 60 + int(s) + int(frac.ljust(3, "0")) / 1000


def clean_payload(lines: list[str]) -> str:
    """Cue payload lines -> one line of text, voice spans turned into "Name: " labels."""
    out: list[str] = []
    for line in lines:
        line = _VOICE.sub(lambda m: f"{m.group(1).strip()}: " if m.group(1).strip() else "", line)
        line = _ASS.sub("", _TAG.sub("", line))
        line = html.unescape(line).replace("\u200e", "").replace("\u200f", "")
        line = _WS.sub(" ", line).strip()
        if line:
            out.append(line)
    return " ".join(out)


def parse_cues(text: str, vtt: bool) -> tuple[list[Cue], list[int], str]:
    """(cues, line numbers of malformed timing lines, VTT header title).

    Blocks are separated by blank lines. A block's timing line is its first or
    second line (the optional cue identifier / SRT counter comes first);
    WebVTT ``NOTE``, ``STYLE`` and ``REGION`` blocks are skipped.
    """
    lines = text.split("\n")
    title = ""
    i = 0
    if vtt:
        first = lines[0].lstrip("\ufeff") if lines else ""
        if not re.match(r"WEBVTT(\s|$)", first):
            raise ValueError("not a WebVTT file: the first line must be 'WEBVTT'")
        title = first[6:].strip(" \t-")
        i = 1
        # the header block; a timing line right under it (no blank line) opens the first cue
        while i < len(lines) and lines[i].strip() and "-->" not in lines[i]:
            i += 1
    cues: list[Cue] = []
    bad: list[int] = []
    while i < len(lines):
        while i < len(lines) and not lines[i].strip():
            i += 1
        block_start = i
        while i < len(lines) and lines[i].strip():
            i += 1
        if block_start == i:
            continue
        if vtt and re.match(r"(NOTE|STYLE|REGION)(\s|$)", lines[block_start]):
            continue
        for s, e in _cue_blocks(lines, block_start, i):
            _read_cue(lines[s:e], s, cues, bad)
    return cues, bad, title


def _cue_blocks(lines: list[str], start: int, end: int) -> list[tuple[int, int]]:
    """``lines[start:end]`` (one block between blank lines) cut before each timing
    line after its first cue's: a cue whose blank line is missing does not swallow
    the next one (its SRT counter, a bare number, goes with the next cue)."""
    cuts = [start]
    timings = [j for j in range(start, end) if _TIMING.match(lines[j])]
    for j in timings[1:]:
        cut = j - 1 if j - 1 > timings[0] and lines[j - 1].strip().isdigit() else j
        if cut > cuts[-1]:
            cuts.append(cut)
    return list(zip(cuts, [*cuts[1:], end], strict=True))


def _read_cue(block: list[str], block_start: int, cues: list[Cue], bad: list[int]) -> None:
    """One cue block: its timing line is its first or second line (after an identifier
    or SRT counter); a block without one, or with an impossible time, is bad."""
    for k in (0, 1):
        if k < len(block) and (m := _TIMING.match(block[k])):
            g = m.groups()
            try:
                start, end = parse_time(*g[:4]), parse_time(*g[4:])
            except ValueError:
                bad.append(block_start + k + 1)
                return
            payload = clean_payload(block[k + 1 :])
            if end < start:
                bad.append(block_start + k + 1)
            elif payload:
                cues.append(Cue(start, end, payload, block_start + k + 1))
            return
    # the line meant as the timing line: one with an arrow, else one with a time in it
    # (an SRT counter above "00:00:01,000 -> 00:00:02,000" is not the bad line)
    arrow = next((j for j, ln in enumerate(block[:2]) if "-->" in ln), None)
    if arrow is None:
        arrow = next((j for j, ln in enumerate(block[:2]) if _TIME_LIKE.search(ln)), 0)
    bad.append(block_start + 1 + arrow)


# A folder modified this recently is listed afresh: its mtime has coarse
# granularity, so a later change within the same tick would not alter the key
# (git's "racy clean" problem).
RACY_MTIME_NS = 2_000_000_000


def _siblings(path: Path) -> tuple[Path, ...]:
    """The other entries of ``path``'s folder, sorted; cached while the folder is unchanged,
    so a folder of N recordings is listed once, not N times."""
    folder = path.parent
    try:
        mtime = folder.stat().st_mtime_ns
        if time.time_ns() - mtime < RACY_MTIME_NS:  # may change again within the same tick
            return _listing.__wrapped__(folder, mtime)
        return _listing(folder, mtime)
    except OSError:
        return ()


@functools.lru_cache(maxsize=64)
def _listing(folder: Path, mtime_ns: int) -> tuple[Path, ...]:
    return tuple(sorted(p for p in folder.iterdir() if not p.name.startswith(".")))


# The skip reason of a transcript indexed as its media file: a caller that lists
# documents (the server) shows such a file as part of the media, not as a failure.
SIDECAR_SKIP = "transcript of "


def is_sidecar_skip(reason: str) -> bool:
    return reason.startswith(SIDECAR_SKIP)


def sidecar_for(media: Path) -> Path | None:
    """The transcript beside ``media``: same base name, .vtt before .srt, then language-tagged."""
    exact: list[Path] = []
    tagged: list[Path] = []
    stem = media.stem.casefold()
    for p in _siblings(media):
        if p.suffix.lower() not in TRANSCRIPT_SUFFIXES or not p.is_file():
            continue
        base = p.stem.casefold()
        if base == stem:
            exact.append(p)
        elif base.startswith(stem + ".") and _LANG_TAG.fullmatch(p.stem[len(stem) + 1 :]):
            tagged.append(p)
    order = {".vtt": 0, ".srt": 1}
    for group in (exact, tagged):
        if group:
            return min(group, key=lambda p: (order[p.suffix.lower()], p.name))
    return None


def media_for(transcript: Path) -> Path | None:
    """The media file that uses ``transcript`` as its sidecar, if one is present."""
    stems = {transcript.stem.casefold()}
    head, _, tag = transcript.stem.rpartition(".")
    if head and _LANG_TAG.fullmatch(tag):
        stems.add(head.casefold())
    for p in _siblings(transcript):
        if p.suffix.lower() in MEDIA_SUFFIXES and p.stem.casefold() in stems and sidecar_for(p) == transcript:
            return p
    return None


def companion(path: Path) -> Path | None:
    """The file whose indexing depends on ``path``'s: a media file's sidecar, or the
    media file a transcript is the sidecar of. Indexing either file alone must index
    the other too, or a transcript that arrives after its recording (an upload, a
    single file named on the command line) leaves the recording unindexed, and a
    recording that arrives after its transcript leaves the words indexed twice."""
    suffix = path.suffix.lower()
    if suffix in MEDIA_SUFFIXES:
        return sidecar_for(path)
    if suffix in TRANSCRIPT_SUFFIXES:
        return media_for(path)
    return None


class TranscriptExtractor:
    name = "transcript"
    version = "3"  # 2: a cue whose blank line is missing ends at the next timing line, a
    # WebVTT header runs up to the first timing line, minutes and seconds over 59 are
    # malformed, only the formats' own tags are markup ("x<y and z>w" stays); 3: a file
    # that is not UTF-8 is read as Windows-1252 when it is Western European text
    suffixes = TRANSCRIPT_SUFFIXES + MEDIA_SUFFIXES

    def fingerprint(self, path: Path) -> str:
        """Content hash for change detection: a media file is its sidecar's bytes."""
        h = hashlib.sha256()
        if path.suffix.lower() in MEDIA_SUFFIXES:
            side = sidecar_for(path)
            h.update(b"media-sidecar:")
            if side is not None:
                h.update(side.name.encode() + b"\0" + side.read_bytes())
        else:
            # A transcript's role depends on whether its media is present.
            media = media_for(path)
            h.update(b"transcript:" + (media.name.encode() if media else b"") + b"\0")
            h.update(path.read_bytes())
        return h.hexdigest()

    def extract(self, path: Path, rel: str) -> Document:
        suffix = path.suffix.lower()
        if suffix in MEDIA_SUFFIXES:
            side = sidecar_for(path)
            if side is None:
                raise UnsupportedFormat(
                    rel, f"no transcript (put {path.stem}.vtt or {path.stem}.srt beside it to index it)"
                )
            media_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            return self._read(side, rel, media_type, path.stem)
        media = media_for(path)
        if media is not None:
            raise UnsupportedFormat(rel, f"{SIDECAR_SKIP}{media.name}; indexed as that media file")
        media_type = "text/vtt" if suffix == ".vtt" else "application/x-subrip"
        return self._read(path, rel, media_type, path.stem)

    def _read(self, source: Path, rel: str, media_type: str, stem: str) -> Document:
        try:
            data = source.read_bytes()
        except OSError as exc:
            raise ExtractionError(rel, f"cannot read {source.name}: {exc.strerror or exc}") from exc
        who = "" if source.name == Path(rel).name else f"{source.name}: "  # a media file's sidecar
        try:  # as a text file is read: Windows-1252 when it is Western text, with a warning
            text, legacy = decode(rel, data, western=True)
        except ExtractionError as exc:  # name the sidecar when the document is the media file
            raise ExtractionError(rel, f"{who}{exc.reason}") from exc
        try:
            cues, bad, title = parse_cues(text, vtt=source.suffix.lower() == ".vtt")
        except ValueError as exc:
            raise ExtractionError(rel, f"{who}{exc}") from exc
        if not cues:
            why = f"{who}no valid cue (timing line 'start --> end') found"
            if not bad and any(_TIMING.match(ln) for ln in text.split("\n")):
                why = f"{who}every cue is empty: no text under its timing line"
            if bad:
                line = text.split("\n")[bad[0] - 1].strip()
                why += (f"; {len(bad)} malformed, the first at line {bad[0]}: {line[:80]!r} "
                        "(times are HH:MM:SS,mmm in SRT, HH:MM:SS.mmm in WebVTT)")
            raise ExtractionError(rel, why)
        out = TextBuilder()
        regions = []
        for cue in cues:
            start, end = out.add(cue.text, sep="\n")
            regions.append(Region(RegionKind.CUE, start, end, t_start=cue.start, t_end=cue.end))
        warnings = [f"{who}{legacy}"] if legacy else []
        if bad:
            shown_lines = ", ".join(str(n) for n in bad[:10]) + (" ..." if len(bad) > 10 else "")
            warnings.append(f"{who}skipped {len(bad)} malformed cue(s) at line(s) {shown_lines}")
        return Document(
            path=rel,
            title=title or stem,
            text=out.text(),
            media_type=media_type,
            extractor=self.name,
            extractor_version=self.version,
            regions=tuple(regions),
            warnings=tuple(warnings),
            headings="none",
        )


register(TranscriptExtractor())

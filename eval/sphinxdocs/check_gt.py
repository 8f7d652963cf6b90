#!/usr/bin/env python3
"""Check the Sphinx documentation corpus (30 reStructuredText pages of the Sphinx 5.3
documentation, from Debian's sphinx-doc package) and its needle-style ground truth against
the format in the eval README (adapted from pytestdocs/check_gt.py: paths, the source
(the sphinx-doc package's html/_sources/ tree instead of pytest's sdist), the file names,
the MANIFEST commit and license strings and this corpus's unanswerable key terms; every
document is read with citeline's own extractor, `citeline.extract.extractor_for(path)
.extract(path, rel).text`, and needles, offsets and positions refer to that canonical
text; section titles are read with reStructuredText's adornment rules, and "inside code"
means inside a literal block).

Usage: python3 check_gt.py [--no-rebuild] [-v]
  If the unpacked package is present ($SPHINX_DOC_ROOT, default /tmp/sphinxdoc; get it with
  `cd /tmp && apt-get download sphinx-doc && dpkg-deb -x sphinx-doc_*.deb sphinxdoc`),
  every document is copied again from it with build/copy.py (which checks the .deb's
  SHA-256 when the .deb is at $SPHINX_DOC_DEB) into a temporary folder and compared
  byte-for-byte.
  Exit status 0 = all checks pass, 1 = at least one failure.
"""
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "src"))
from citeline.extract import extractor_for  # noqa: E402

DOCS_DIR = os.path.join(HERE, "docs")
# build/copy.py holds the page list and the source location; load it by path (its name
# would shadow the standard library's `copy`)
_spec = importlib.util.spec_from_file_location("sphinxdocs_copy", os.path.join(HERE, "build", "copy.py"))
_copy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_copy)
SRC_DIR = os.path.join(_copy.ROOT, _copy.SOURCES)

N_GT, MIN_NON_CODE, MIN_DOCS = 32, 24, 10
NEEDLE_MIN, NEEDLE_MAX = 40, 220
N_NEAR, N_OFF = 21, 9
MIN_PER_BUCKET = 5          # needles required in each of early / middle / late
MAX_SHARED_RUN = {"course": 4, "ticket": 3}   # longest copied word run (with a content word)
MAX_CONTENT_SHARE = {"course": 0.6, "ticket": 0.5}

# Key terms that must NOT occur anywhere in the corpus for each unanswerable query
# (regexes, case-insensitive unless wrapped in (?-i:...)).
UNANSWERABLE_TERMS = {
    "u01": [r"copybutton", r"clipboard", r"copy button"],
    "u02": [r"sphinx-tabs", r"sphinx.design", r"tabbed", r"tab-set", r"tab-item"],
    "u03": [r"pydata", r"dark.?mode", r"toggle"],
    "u04": [r"autobuild", r"live.?reload", r"reloads? automatically"],
    "u05": [r"nbsphinx", r"jupyter", r"notebook", r"myst-nb"],
    "u06": [r"mermaid", r"flowchart"],
    "u07": [r"sphinx.gallery", r"example gallery"],
    "u08": [r"multiversion", r"version switcher", r"git tags?\b"],
    "u09": [r"algolia", r"docsearch"],
    "u10": [r"sitemap\.xml", r"sphinx-sitemap", r"search engines?"],
    "u11": [r"openapi", r"swagger", r"rest api"],
    "u12": [r"argparse"],
    "u13": [r"spelling", r"spell.?check", r"enchant"],
    "u14": [r"readthedocs\.ya?ml", r"build\.os", r"pin the python"],
    "u15": [r"bibtex", r"\bbibliography\b", r"\bcit(e|ation) entr"],
    "u16": [r"reveal\.?js", r"\bslides?\b", r"presentation slides", r"hieroglyph"],
    "u17": [r"autoapi"],
    "u18": [r"plotly", r"interactive chart"],
    "u19": [r"cloudflare", r"vercel"],
    "u20": [r"sphinx-needs", r"traceab", r"test cases?\b"],
    "u21": [r"\bvale\b", r"prose lint", r"\blinting prose"],
    "u22": [r"upholster", r"\bchairs?\b", r"fabric"],
    "u23": [r"windscreen", r"windshield", r"\bfrost", r"de-ice"],
    "u24": [r"kombucha", r"\bscoby\b"],
    "u25": [r"toddler", r"balance bike", r"\bbikes?\b"],
    "u26": [r"\btyres?\b", r"\btires?\b"],
    "u27": [r"handstand"],
    "u28": [r"mushrooms?", r"coffee grounds"],
    "u29": [r"climbing shoes?", r"boulder"],
    "u30": [r"hedgehog"],
}

STOP = set("""a an the and or but if of to in on at by for with from as is are was were be been being
it its this that these those there their them they we you your i me my our he she his her
do does did doing done have has had not no so than then too very can could will would should
shall may might must what which who whom whose when where why how all any both each few more
most other some such only own same just also into out up down over under again once here
about after before because while until between through during above below off further
s t d ll re ve m""".split())

# reStructuredText section adornment (the rule citeline's loader uses)
ADORN = re.compile(r"([!-/:-@\[-`{-~])\1+[ \t]*")
# directives whose content is a literal (code) block
CODE_DIRECTIVES = {"code-block", "code", "sourcecode", "parsed-literal", "literalinclude",
                   "productionlist", "raw"}
DIRECTIVE = re.compile(r"^(\s*)\.\. ([A-Za-z][\w:-]*)::")
LIST_ITEM = re.compile(r"^\s*(?:[*+-]|\d+\.|#\.)\s")

errors, notes = [], []


def fail(msg):
    errors.append(msg)


def tokens(text):
    text = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    return re.findall(r"[a-z0-9_]+", text)


def longest_shared_run(q, n):
    """Longest run of consecutive words shared by q and n that contains a content word."""
    qt, nt = tokens(q), tokens(n)
    best = 0
    for i in range(len(qt)):
        for j in range(len(nt)):
            k = 0
            while i + k < len(qt) and j + k < len(nt) and qt[i + k] == nt[j + k]:
                k += 1
            if k > best and any(w not in STOP for w in qt[i:i + k]):
                best = k
    return best


def content_share(q, n):
    qc = [w for w in tokens(q) if w not in STOP and len(w) > 1]
    nset = set(tokens(n))
    return (sum(w in nset for w in qc) / len(qc)) if qc else 0.0


def read_jsonl(path):
    rows = []
    with open(path, encoding="utf-8") as fh:
        for no, line in enumerate(fh, 1):
            if not line.strip():
                fail(f"{os.path.basename(path)}:{no}: blank line")
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                fail(f"{os.path.basename(path)}:{no}: bad JSON ({e})")
    return rows


def rst_headings(text):
    """[(first line, last line, level, title)] of every section title, in order: an
    underline (optionally with an identical overline) at least as long as the title
    (or 4), a blank line above, one level per adornment style in order of first use."""
    lines = text.split("\n")
    out, styles, i = [], [], 0
    while i + 1 < len(lines):
        title = lines[i]
        under = ADORN.fullmatch(lines[i + 1])
        over = ADORN.fullmatch(lines[i - 1]) if i else None
        overlined = bool(over and under and over.group(1) == under.group(1))
        above_ok = i == 0 or not lines[i - 1].strip() or (
            overlined and (i == 1 or not lines[i - 2].strip()))
        name = title.strip()
        if (under and name and above_ok and not ADORN.fullmatch(title)
                and (overlined or not title[0].isspace()) and not title.startswith(".. ")
                and len(under.group().rstrip()) >= min(len(name), 4)):
            style = (under.group(1), overlined)
            if style not in styles:
                styles.append(style)
            out.append((i - 1 if overlined else i, i + 1, styles.index(style) + 1, name))
            i += 2
            continue
        i += 1
    return out


def indent(line):
    return len(line) - len(line.lstrip(" "))


def literal_map(text):
    """For each line index: True if the line is inside a literal block - the indented
    block after a paragraph ending in '::' (or a lone '::'), or the content of a
    code-like directive (code-block, code, parsed-literal, productionlist, raw, ...)."""
    lines = text.split("\n")
    out = [False] * len(lines)
    base = None          # indentation of the line that opened the current literal block
    for i, line in enumerate(lines):
        if base is not None:
            if not line.strip() or indent(line) > base:
                out[i] = True
                continue
            base = None
        m = DIRECTIVE.match(line)
        if m:
            if m.group(2) in CODE_DIRECTIVES:
                base, out[i] = indent(line), True
            continue
        if line.rstrip().endswith("::"):
            base = indent(line)
    return out


def context_of(lines, first):
    """'list' if the needle's paragraph is a list item, 'directive:<name>' if it sits in
    the body of a directive, 'definition' if in a definition-list body or option
    description, else 'paragraph'."""
    start = first
    while start > 0 and lines[start - 1].strip() and indent(lines[start - 1]) >= indent(lines[first]) \
            and not LIST_ITEM.match(lines[start]):
        start -= 1
    if LIST_ITEM.match(lines[start]):
        return "list"
    ind = indent(lines[start])
    if ind == 0:
        return "paragraph"
    for k in range(start - 1, -1, -1):
        if lines[k].strip() and indent(lines[k]) < ind:
            if LIST_ITEM.match(lines[k]):
                return "list"
            m = DIRECTIVE.match(lines[k])
            return f"directive:{m.group(2)}" if m else "definition"
    return "paragraph"


# ---------------------------------------------------------------- manifest + docs
with open(os.path.join(HERE, "MANIFEST.json"), encoding="utf-8") as fh:
    manifest = json.load(fh)
want_keys = {"source", "commit", "license", "attribution", "documents", "total_chars", "total_sections"}
if set(manifest) != want_keys:
    fail(f"MANIFEST keys {sorted(manifest)} != {sorted(want_keys)}")
if not re.fullmatch(r"[0-9][0-9A-Za-z.+~:-]*", manifest.get("commit", "")):
    fail("MANIFEST commit is not a Debian package version string")
if manifest.get("license") != "BSD-2-Clause":
    fail("MANIFEST license should be 'BSD-2-Clause' (Sphinx's license)")

files = sorted(f for f in os.listdir(DOCS_DIR) if not f.startswith("."))
docs = {}          # citeline's canonical text of each document (what the chunker sees)
raw_chars = {}     # the file's characters as written (what the loader compares with 'chars')
for f in files:
    path = Path(DOCS_DIR) / f
    raw = path.read_bytes()
    try:
        raw_text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(f"{f}: not valid UTF-8 ({e})")
        raw_text = raw.decode("utf-8", "replace")
    raw_chars[f] = len(raw_text)
    docs[f] = extractor_for(path).extract(path, f).text
    if docs[f] != raw_text:
        fail(f"{f}: citeline's canonical text differs from the file's text "
             "(offsets and 'chars' would disagree)")
    if "\r" in raw_text:
        fail(f"{f}: contains carriage returns (offsets would not match the loader's text)")
    if not re.fullmatch(r"\d\d-[a-z0-9]+(?:-[a-z0-9]+)*\.rst", f):
        fail(f"bad document file name {f}")
for i, f in enumerate(files, 1):
    if not f.startswith(f"{i:02d}-"):
        fail(f"document numbering not consecutive at {f}")

heads = {f: rst_headings(t) for f, t in docs.items()}
mdocs = manifest.get("documents", [])
if [d.get("file") for d in mdocs] != files:
    fail("MANIFEST documents do not list exactly the files in docs/ (in order)")
tot_c = tot_s = 0
for d in mdocs:
    if set(d) != {"file", "title", "chars", "sections"}:
        fail(f"MANIFEST document entry keys {sorted(d)}")
    text = docs.get(d.get("file"))
    if text is None:
        continue
    hs = heads[d["file"]]
    secs = sum(1 for h in hs if h[2] == 2)
    if d.get("chars") != raw_chars[d["file"]]:
        fail(f"{d['file']}: chars {d.get('chars')} != {raw_chars[d['file']]}")
    if d.get("sections") != secs:
        fail(f"{d['file']}: sections {d.get('sections')} != {secs}")
    first_title = next((h[3] for h in hs if h[2] == 1), None)
    if d.get("title") != first_title:
        fail(f"{d['file']}: title {d.get('title')!r} != first section title {first_title!r}")
    tot_c += raw_chars[d["file"]]
    tot_s += secs
if manifest.get("total_chars") != tot_c or manifest.get("total_sections") != tot_s:
    fail(f"MANIFEST totals ({manifest.get('total_chars')}, {manifest.get('total_sections')}) != ({tot_c}, {tot_s})")

# optional: copy every doc again from the unpacked sphinx-doc package and compare byte-exact
source_check = f"skipped (no {SRC_DIR})"
if "--no-rebuild" not in sys.argv and os.path.isdir(SRC_DIR):
    with tempfile.TemporaryDirectory() as tmp:
        try:
            subprocess.run([sys.executable, os.path.join(HERE, "build", "copy.py"), tmp],
                           check=True, capture_output=True)
            mismatched = 0
            rebuilt_files = sorted(os.listdir(tmp))
            if rebuilt_files != files:
                fail(f"rebuild produced {rebuilt_files}, docs/ has {files}")
            for f in files:
                p = os.path.join(tmp, f)
                with open(os.path.join(DOCS_DIR, f), "rb") as fa:
                    mine = fa.read()
                same = False
                if os.path.exists(p):
                    with open(p, "rb") as fb:
                        same = fb.read() == mine
                if not same:
                    mismatched += 1
                    fail(f"{f}: differs from the package page it was copied from")
            source_check = (f"{len(files) - mismatched}/{len(files)} docs byte-identical to "
                            f"{SRC_DIR}*.rst.txt")
        except subprocess.CalledProcessError as e:
            fail(f"build/copy.py failed: {e.stderr.decode(errors='replace').strip()}")
            source_check = f"copy failed ({e})"

order = files
corpus = "".join(docs[f] for f in order)
literal = {f: literal_map(t) for f, t in docs.items()}
heading_lines = {f: {ln for h in hs for ln in range(h[0], h[1] + 1)} for f, hs in heads.items()}
line_starts = {}
for f, t in docs.items():
    starts, pos = [], 0
    for line in t.split("\n"):
        starts.append(pos)
        pos += len(line) + 1
    line_starts[f] = starts


def line_of(f, offset):
    starts = line_starts[f]
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo


# ---------------------------------------------------------------- questions
gts = read_jsonl(os.path.join(HERE, "questions.jsonl"))
if len(gts) != N_GT:
    fail(f"questions.jsonl has {len(gts)} entries, want {N_GT}")
buckets = {"early": 0, "middle": 0, "late": 0}
per_doc, in_code, lengths, all_queries = {}, 0, [], []
contexts = {}
max_run = {"course": (0, ""), "ticket": (0, "")}
max_share = {"course": (0.0, ""), "ticket": (0.0, "")}
sentence_break = re.compile(r"[.!?][)\]\"\u201d\u2019`_*]*\s+(?:>\s+)?[A-Z\u201c\"(`]")
for n, g in enumerate(gts, 1):
    gid = g.get("id")
    tag = gid or f"line {n}"
    if gid != f"q{n:02d}":
        fail(f"{tag}: id should be q{n:02d}")
    if set(g) != {"id", "doc", "needle", "queries"}:
        fail(f"{tag}: keys {sorted(g)}")
        continue
    q = g["queries"]
    if not isinstance(q, dict) or set(q) != {"course", "ticket"}:
        fail(f"{tag}: queries must have exactly 'course' and 'ticket'")
        continue
    f, needle = g["doc"], g["needle"]
    if f not in docs:
        fail(f"{tag}: unknown doc {f}")
        continue
    text = docs[f]
    off = text.find(needle)
    if off < 0:
        fail(f"{tag}: needle not a verbatim substring of {f}")
        continue
    hits = corpus.count(needle)
    hits_docs = sum(t.count(needle) for t in docs.values())
    if hits != 1 or hits_docs != 1:
        fail(f"{tag}: needle occurs {hits} times in corpus ({hits_docs} by document), want exactly 1")
    L = len(needle)
    lengths.append(L)
    if not NEEDLE_MIN <= L <= NEEDLE_MAX:
        fail(f"{tag}: needle length {L} outside {NEEDLE_MIN}..{NEEDLE_MAX}")
    first, last = line_of(f, off), line_of(f, off + L - 1)
    doc_lines = text.split("\n")
    # a needle must not touch a section title, its underline or its overline
    for ln in range(first, last + 1):
        if ln in heading_lines[f]:
            fail(f"{tag}: needle touches heading line {ln + 1}: {doc_lines[ln][:60]!r}")
    for part in needle.split("\n"):
        if ADORN.fullmatch(part.strip() or "x"):
            fail(f"{tag}: a line of the needle is a section adornment")
        if not part.strip():
            fail(f"{tag}: needle spans a blank line (more than one paragraph)")
    code = any(literal[f][ln] for ln in range(first, last + 1))
    in_code += code
    ctx = "literal" if code else context_of(doc_lines, first)
    contexts[gid] = ctx
    if not code:
        inner = needle.rstrip()
        if sentence_break.search(inner[:-1] if inner[-1:] in ".!?:" else inner):
            fail(f"{tag}: needle looks like more than one sentence")
    rel = off / len(text)
    bucket = "early" if rel < 1 / 3 else "middle" if rel < 2 / 3 else "late"
    buckets[bucket] += 1
    per_doc[f] = per_doc.get(f, 0) + 1
    for kind in ("course", "ticket"):
        qs = q[kind]
        if not isinstance(qs, str) or len(qs.strip()) < 15:
            fail(f"{tag}: {kind} query missing or too short")
            continue
        all_queries.append(qs.strip().lower())
        if needle.strip().lower() in qs.lower():
            fail(f"{tag}: {kind} query contains the needle")
        run = longest_shared_run(qs, needle)
        share = content_share(qs, needle)
        if run > max_run[kind][0]:
            max_run[kind] = (run, gid)
        if share > max_share[kind][0]:
            max_share[kind] = (share, gid)
        if run > MAX_SHARED_RUN[kind]:
            fail(f"{tag}: {kind} query copies a {run}-word run from the needle")
        if share > MAX_CONTENT_SHARE[kind]:
            fail(f"{tag}: {kind} query reuses {share:.0%} of its content words from the needle")
    if q["course"].strip().lower() == q["ticket"].strip().lower():
        fail(f"{tag}: course and ticket queries are identical")

if len(gts) - in_code < MIN_NON_CODE:
    fail(f"only {len(gts) - in_code} needles outside literal blocks, want >= {MIN_NON_CODE}")
if len(per_doc) < MIN_DOCS:
    fail(f"needles cover {len(per_doc)} documents, want >= {MIN_DOCS}")
for b, c in buckets.items():
    if c < MIN_PER_BUCKET:
        fail(f"only {c} needles in the {b} third of their documents, want >= {MIN_PER_BUCKET}")

# ---------------------------------------------------------------- unanswerable
uns = read_jsonl(os.path.join(HERE, "unanswerable.jsonl"))
kinds = {"near": 0, "off": 0}
term_hits = 0
for n, u in enumerate(uns, 1):
    uid = u.get("id")
    tag = uid or f"line {n}"
    if uid != f"u{n:02d}":
        fail(f"{tag}: id should be u{n:02d}")
    if set(u) != {"id", "query", "kind"}:
        fail(f"{tag}: keys {sorted(u)}")
        continue
    if u["kind"] not in kinds:
        fail(f"{tag}: kind {u['kind']!r} not near/off")
        continue
    kinds[u["kind"]] += 1
    qs = u["query"]
    if not isinstance(qs, str) or len(qs.strip()) < 15:
        fail(f"{tag}: query missing or too short")
        continue
    all_queries.append(qs.strip().lower())
    terms = UNANSWERABLE_TERMS.get(uid)
    if not terms:
        fail(f"{tag}: no key terms registered to verify absence")
        continue
    for t in terms:
        m = re.search(t, corpus, re.IGNORECASE)
        if m:
            term_hits += 1
            ctx = corpus[max(0, m.start() - 30): m.end() + 30].replace("\n", " ")
            fail(f"{tag}: key term /{t}/ occurs in corpus: ...{ctx}...")
if kinds != {"near": N_NEAR, "off": N_OFF}:
    fail(f"unanswerable kinds {kinds}, want near={N_NEAR} off={N_OFF}")
dups = {q for q in all_queries if all_queries.count(q) > 1}
if dups:
    fail(f"duplicate queries: {sorted(dups)}")

# ---------------------------------------------------------------- summary
ctx_count = {}
for c in contexts.values():
    key = "directive" if c.startswith("directive:") else c
    ctx_count[key] = ctx_count.get(key, 0) + 1
print(f"corpus   : {len(files)} docs, {tot_c:,} chars, {tot_s} level-2 sections; "
      f"source sphinx-doc {manifest.get('commit', '')}")
print(f"source   : {source_check}")
print(f"GT       : {len(gts)} needles in {len(per_doc)} docs; "
      f"{len(gts) - in_code} outside literal blocks, {in_code} inside")
print("context  : " + ", ".join(f"{k} {v}" for k, v in sorted(ctx_count.items())))
print("per doc  : " + ", ".join(f"{f[:2]}:{c}" for f, c in sorted(per_doc.items())))
print(f"position : early {buckets['early']}, middle {buckets['middle']}, late {buckets['late']}")
if lengths:
    print(f"length   : {min(lengths)}..{max(lengths)} chars (limit {NEEDLE_MIN}..{NEEDLE_MAX})")
print("uniqueness: every needle occurs exactly once in the concatenated corpus"
      if not any('occurs' in e and e.startswith('q') for e in errors) else "uniqueness: FAILURES")
print(f"copying  : longest shared word run course={max_run['course'][0]} ({max_run['course'][1]}), "
      f"ticket={max_run['ticket'][0]} ({max_run['ticket'][1]}); "
      f"max content-word reuse course={max_share['course'][0]:.0%}, ticket={max_share['ticket'][0]:.0%}")
print(f"unanswer.: {kinds['near']} near + {kinds['off']} off; "
      f"{sum(len(UNANSWERABLE_TERMS.get(u.get('id'), [])) for u in uns)} key-term regexes grepped, {term_hits} hits")
print(f"queries  : {len(all_queries)} total, {len(set(all_queries))} distinct")
if "-v" in sys.argv:
    for gid, c in contexts.items():
        print(f"  {gid}: {c}")
if errors:
    print(f"\nFAIL: {len(errors)} problem(s)")
    for e in errors:
        print("  - " + e)
    sys.exit(1)
print("\nPASS: all programmatic checks passed "
      "(not checkable by program: that each needle truly answers its queries - reviewed by hand)")

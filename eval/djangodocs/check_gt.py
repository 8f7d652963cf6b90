#!/usr/bin/env python3
"""Check the Django documentation corpus and its needle-style ground truth against the
format in the eval README (adapted from pgdocs/check_gt.py, with these changes: the source
is Debian's python-django-doc package (Sphinx HTML pages of the topic guides); title is the
page's <title> without Sphinx's " \u2014 Django 3.2.25 documentation" suffix; sections are the
page's <h2> elements (its top-level sections), cross-checked with the '## ' lines of the
extracted text, less the <h2>s inside an element citeline's extractor drops; each page must
have exactly two '# ' lines (the site header and the page title); the <pre>-locating walker
follows citeline's current _Walker signature; the unanswerable key terms are this corpus's.
As in pgdocs, every text check runs on citeline's canonical text (its HTML extraction,
imported from ../../src), and "inside code" means inside a <pre> block of that text).

Usage: /work/main/.venv/bin/python check_gt.py [--no-rebuild]
  If the python-django-doc HTML is available (installed under /usr/share/doc, unpacked
  under /tmp/djangodoc, or named by $DJANGODOC_HTML; see build/copy.py), every document is
  copied afresh with build/copy.py into a temporary folder and compared byte-for-byte, and
  the package version is compared with MANIFEST's "commit".
  Exit status 0 = all checks pass, 1 = at least one failure.
"""
import gzip
import html
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
from citeline.extract import html as citeline_html  # noqa: E402

DOCS_DIR = os.path.join(HERE, "docs")
# build/copy.py holds the page list and finds the package's HTML (load it by path: its
# name would shadow the standard library's `copy`)
_spec = importlib.util.spec_from_file_location("djangodocs_copy", os.path.join(HERE, "build", "copy.py"))
_copy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_copy)
SRC_DIR = _copy.source_dir()
PACKAGE = "python-django-doc"
TITLE_SUFFIX = " \u2014 Django 3.2.25 documentation"
SITE_HEADER = "# Django 3.2.25 documentation"

N_GT, MIN_NON_CODE, MIN_DOCS = 32, 24, 10
NEEDLE_MIN, NEEDLE_MAX = 40, 220
N_NEAR, N_OFF = 21, 9
MIN_PER_BUCKET = 5          # needles required in each of early / middle / late
MAX_SHARED_RUN = {"course": 4, "ticket": 3}   # longest copied word run (with a content word)
MAX_CONTENT_SHARE = {"course": 0.6, "ticket": 0.5}

# Key terms that must NOT occur anywhere in the corpus (canonical texts) for each
# unanswerable query (regexes, case-insensitive unless wrapped in (?-i:...)).
UNANSWERABLE_TERMS = {
    "u01": [r"argon2"],
    "u02": [r"makemessages", r"compilemessages", r"\.po\b"],
    "u03": [r"rest framework", r"rest_framework", r"apiview"],
    "u04": [r"simple_tag", r"templatetags", r"inclusion_tag"],
    "u05": [r"websocket", r"\bchannels\b"],
    "u06": [r"whitenoise"],
    "u07": [r"searchvector", r"searchrank", r"full.text"],
    "u08": [r"basecommand", r"add_arguments", r"management/commands"],
    "u09": [r"gunicorn", r"nginx"],
    "u10": [r"geodjango", r"postgis", r"contrib\.gis", r"pointfield"],
    "u11": [r"genericforeignkey", r"genericrelation"],
    "u12": [r"sitemap"],
    "u13": [r"rownumber", r"window\(", r"window function", r"partition_by"],
    "u14": [r"from_db_value", r"db_type", r"get_prep_value"],
    "u15": [r"\bcors\b", r"access-control", r"react"],
    "u16": [r"timestampsigner", r"signing\.dumps"],
    "u17": [r"two-factor", r"\btotp\b", r"authenticator app"],
    "u18": [r"graphql", r"graphene"],
    "u19": [r"get_context_data", r"detailview"],
    "u20": [r"manifeststaticfilesstorage", r"staticfilesstorage"],
    "u21": [r"content.security.policy", r"\bcsp\b"],
    "u22": [r"bowline", r"\bknot", r"dinghy"],
    "u23": [r"tennis", r"tie-break"],
    "u24": [r"orchid"],
    "u25": [r"pumpkin", r"\broast"],
    "u26": [r"rooster", r"crowing"],
    "u27": [r"wetsuit", r"cornwall"],
    "u28": [r"whistle"],
    "u29": [r"\byoga\b", r"hamstring"],
    "u30": [r"\bteak\b", r"\bbench\b", r"garden"],
}

STOP = set("""a an the and or but if of to in on at by for with from as is are was were be been being
it its this that these those there their them they we you your i me my our he she his her
do does did doing done have has had not no so than then too very can could will would should
shall may might must what which who whom whose when where why how all any both each few more
most other some such only own same just also into out up down over under again once here
about after before because while until between through during above below off further
s t d ll re ve m""".split())

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


def page_title(raw):
    """The page's <title> without Sphinx's " \u2014 Django 3.2.25 documentation" suffix."""
    m = re.search(r"<title>(.*?)</title>", raw, re.S)
    if not m:
        return None
    t = html.unescape(m.group(1)).strip()
    return t[: -len(TITLE_SUFFIX)] if t.endswith(TITLE_SUFFIX) else t


def h2_count(raw):
    """<h2> elements: the page's top-level sections (Sphinx writes the page title as an <h1>,
    after the site header's <h1>; the top-level sections' titles are <h2>)."""
    return len(re.findall(r"<h2[ >]", raw))


def shown_h2_count(raw):
    """<h2> elements that citeline's extractor keeps: those not inside an element it drops
    (its own _dropped rule, e.g. a Sphinx section whose id names a "cookie")."""
    tree = citeline_html.LexborHTMLParser(raw)
    top = tree.body
    page_chars = len(citeline_html.squash(top.text()))
    n = 0
    for h in tree.css("h2"):
        up, dropped = h, False
        while up is not None and up.tag not in ("body", "html"):
            if citeline_html._dropped(up, False, page_chars):
                dropped = True
                break
            up = up.parent
        n += not dropped
    return n


def package_version():
    """Debian version of python-django-doc: dpkg's record if installed, else the first line
    of the unpacked package's changelog.Debian.gz."""
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", PACKAGE], capture_output=True, text=True)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except OSError:
        pass
    with gzip.open(os.path.join(os.path.dirname(SRC_DIR), "changelog.Debian.gz"), "rt") as fh:
        return re.match(r"\S+ \(([^)]+)\)", fh.readline()).group(1)


class _PreWalker(citeline_html._Walker):
    """citeline's own HTML walker, noting which of its blocks come from a <pre> element.
    Every branch of the walker flushes before it appends a block, except the <pre> branch,
    which appends the block right after reading the element with inline(pre=True).
    (The walker's own `mark` is an ordered list item's number, so this one is `pre_mark`.)"""

    def __init__(self, page_chars):
        super().__init__(page_chars)
        self.pre_mark = None
        self.pre_blocks = set()
        walker = self

        class Blocks(list):
            def append(self, item):
                if walker.pre_mark is not None and walker.pre_mark == len(self):
                    walker.pre_blocks.add(len(self))
                walker.pre_mark = None
                super().append(item)

        self.blocks = Blocks()

    def flush(self):
        self.pre_mark = None
        super().flush()

    def inline(self, node, in_section, pre=False):
        if pre and node.tag == "pre":
            self.pre_mark = len(self.blocks)
        return super().inline(node, in_section, pre)


def canonical_and_pre_spans(path, rel):
    """(citeline's canonical text of the page, [(start, end)] of its <pre> blocks).
    The root and the walk are read_page's (citeline.extract.html)."""
    text = extractor_for(path).extract(path, rel).text
    decoded, _ = citeline_html.decode_html(path.read_bytes(), rel)
    tree = citeline_html.LexborHTMLParser(decoded)
    root = citeline_html._main(tree) or tree.body or tree.root
    w = _PreWalker(len(citeline_html.squash(root.text())))
    w.walk(root, in_section=root.tag in citeline_html.SECTIONING
           or (root.attributes.get("role") or "").strip().lower() == "main")
    w.flush()
    spans, pos = [], 0
    for i, b in enumerate(w.blocks):
        if i:
            pos += 2
        if i in w.pre_blocks:
            spans.append((pos, pos + len(b)))
        pos += len(b)
    if "\n\n".join(w.blocks) != text:
        fail(f"{rel}: could not reproduce citeline's extraction to locate <pre> blocks")
    return text, spans


# ---------------------------------------------------------------- manifest + docs
with open(os.path.join(HERE, "MANIFEST.json"), encoding="utf-8") as fh:
    manifest = json.load(fh)
want_keys = {"source", "commit", "license", "attribution", "documents", "total_chars", "total_sections"}
if set(manifest) != want_keys:
    fail(f"MANIFEST keys {sorted(manifest)} != {sorted(want_keys)}")
if not re.fullmatch(r"[0-9][0-9A-Za-z.+~:-]*", manifest.get("commit", "")):
    fail("MANIFEST commit is not a version string")

files = sorted(f for f in os.listdir(DOCS_DIR) if not f.startswith("."))
raws, docs, pres = {}, {}, {}
for f in files:
    with open(os.path.join(DOCS_DIR, f), "rb") as fh:
        raw = fh.read()
    try:
        raws[f] = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(f"{f}: not valid UTF-8 ({e})")
        raws[f] = raw.decode("utf-8", "replace")
    if not re.fullmatch(r"\d\d-[a-z0-9]+(?:-[a-z0-9]+)*\.html", f):
        fail(f"bad document file name {f}")
    docs[f], pres[f] = canonical_and_pre_spans(Path(DOCS_DIR, f), f)
for i, f in enumerate(files, 1):
    if not f.startswith(f"{i:02d}-"):
        fail(f"document numbering not consecutive at {f}")

mdocs = manifest.get("documents", [])
if [d.get("file") for d in mdocs] != files:
    fail("MANIFEST documents do not list exactly the files in docs/ (in order)")
tot_c = tot_s = 0
for d in mdocs:
    if set(d) != {"file", "title", "chars", "sections"}:
        fail(f"MANIFEST document entry keys {sorted(d)}")
    raw = raws.get(d.get("file"))
    if raw is None:
        continue
    secs = h2_count(raw)
    if d.get("chars") != len(raw):
        fail(f"{d['file']}: chars {d.get('chars')} != {len(raw)} (raw characters, what the loader compares)")
    if d.get("sections") != secs:
        fail(f"{d['file']}: sections {d.get('sections')} != {secs}")
    heads = len(re.findall(r"^## ", docs[d["file"]], re.M))
    shown = shown_h2_count(raw)
    if heads != shown:
        fail(f"{d['file']}: {shown} <h2> elements kept by the extractor but {heads} '## ' lines")
    if shown != secs:
        notes.append(f"{d['file']}: {secs - shown} of its {secs} <h2> sections dropped by citeline's extractor")
    h1 = re.findall(r"^# .*", docs[d["file"]], re.M)
    if len(h1) != 2 or h1[0] != SITE_HEADER:
        fail(f"{d['file']}: the extracted text should have two '# ' lines, the site header and the page title: {h1}")
    elif h1[1] != "# " + (page_title(raw) or ""):
        fail(f"{d['file']}: page heading {h1[1]!r} is not the <title> {page_title(raw)!r}")
    title = page_title(raw)
    if d.get("title") != title:
        fail(f"{d['file']}: title {d.get('title')!r} != page title {title!r}")
    tot_c += len(raw)
    tot_s += secs or 0
if manifest.get("total_chars") != tot_c or manifest.get("total_sections") != tot_s:
    fail(f"MANIFEST totals ({manifest.get('total_chars')}, {manifest.get('total_sections')}) != ({tot_c}, {tot_s})")
extracted_total = sum(len(t) for t in docs.values())

# optional: copy every doc afresh from the package's HTML and compare byte-exact
source_check = "skipped (python-django-doc HTML not found)"
if "--no-rebuild" not in sys.argv and SRC_DIR is not None:
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
                if not os.path.exists(p) or open(p, "rb").read() != open(os.path.join(DOCS_DIR, f), "rb").read():
                    mismatched += 1
                    fail(f"{f}: differs from a fresh copy of the python-django-doc HTML")
            installed = package_version()
            if installed != manifest.get("commit"):
                fail(f"{PACKAGE} is {installed}, MANIFEST commit is {manifest.get('commit')}")
            source_check = (f"{len(files) - mismatched}/{len(files)} docs byte-identical to a fresh copy "
                            f"from {SRC_DIR} ({PACKAGE} {installed})")
        except (subprocess.CalledProcessError, OSError) as e:
            source_check = f"rebuild failed ({e})"

order = files
corpus = "".join(docs[f] for f in order)

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
        fail(f"{tag}: needle not a verbatim substring of the extracted text of {f}")
        continue
    hits = corpus.count(needle)
    hits_docs = sum(t.count(needle) for t in docs.values())
    if hits != 1 or hits_docs != 1:
        fail(f"{tag}: needle occurs {hits} times in corpus ({hits_docs} by document), want exactly 1")
    if needle in raws[f] and raws[f].count(needle) != 1:
        notes.append(f"{tag}: needle occurs {raws[f].count(needle)} times in the raw HTML")
    L = len(needle)
    lengths.append(L)
    if not NEEDLE_MIN <= L <= NEEDLE_MAX:
        fail(f"{tag}: needle length {L} outside {NEEDLE_MIN}..{NEEDLE_MAX}")
    first, last = line_of(f, off), line_of(f, off + L - 1)
    doc_lines = text.split("\n")
    for ln in range(first, last + 1):
        if doc_lines[ln].startswith("#"):
            fail(f"{tag}: needle touches heading line {ln + 1}: {doc_lines[ln][:60]!r}")
    for part in needle.split("\n"):
        if part.startswith("#"):
            fail(f"{tag}: a line of the needle starts with '#'")
        if not part.strip():
            fail(f"{tag}: needle spans a blank line (more than one block)")
    code = any(a < off + L and off < b for a, b in pres[f])
    in_code += code
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
    fail(f"only {len(gts) - in_code} needles outside <pre> blocks, want >= {MIN_NON_CODE}")
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
print(f"corpus   : {len(files)} docs, {tot_c:,} raw chars, {extracted_total:,} extracted chars, "
      f"{tot_s} sections (<h2>); source {PACKAGE} {manifest.get('commit', '')}")
print(f"code     : {sum(len(s) for s in pres.values())} <pre> blocks, "
      f"{sum(b - a for s in pres.values() for a, b in s):,} extracted chars")
print(f"source   : {source_check}")
print(f"GT       : {len(gts)} needles in {len(per_doc)} docs; "
      f"{len(gts) - in_code} outside <pre> blocks, {in_code} inside")
print("per doc  : " + ", ".join(f"{f[:2]}:{c}" for f, c in sorted(per_doc.items())))
print(f"position : early {buckets['early']}, middle {buckets['middle']}, late {buckets['late']}")
if lengths:
    print(f"length   : {min(lengths)}..{max(lengths)} chars (limit {NEEDLE_MIN}..{NEEDLE_MAX})")
print("uniqueness: every needle occurs exactly once in the concatenated extracted corpus"
      if not any('occurs' in e and e.startswith('q') for e in errors) else "uniqueness: FAILURES")
print(f"copying  : longest shared word run course={max_run['course'][0]} ({max_run['course'][1]}), "
      f"ticket={max_run['ticket'][0]} ({max_run['ticket'][1]}); "
      f"max content-word reuse course={max_share['course'][0]:.0%}, ticket={max_share['ticket'][0]:.0%}")
print(f"unanswer.: {kinds['near']} near + {kinds['off']} off; "
      f"{sum(len(UNANSWERABLE_TERMS.get(u.get('id'), [])) for u in uns)} key-term regexes grepped, {term_hits} hits")
print(f"queries  : {len(all_queries)} total, {len(set(all_queries))} distinct")
for n in notes:
    print("note     : " + n)
if errors:
    print(f"\nFAIL: {len(errors)} problem(s)")
    for e in errors:
        print("  - " + e)
    sys.exit(1)
print("\nPASS: all programmatic checks passed "
      "(not checkable by program: that each needle truly answers its queries - reviewed by hand)")

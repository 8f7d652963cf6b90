#!/usr/bin/env python3
"""Check the Node.js API documentation corpus and its needle-style ground truth against
the format in the eval README (copied from npmdocs/check_gt.py: the source (Debian's
nodejs-doc package, whose pages are gunzipped by build/copy.py), the title and section
counts of these Markdown pages (a '# ' title, '## ' top-level sections) and this corpus's
unanswerable key terms changed).

Usage: python3 check_gt.py [--no-rebuild]
  If the Node.js API pages of Debian's nodejs-doc package are available (installed as
  /usr/share/doc/nodejs/api/*.md.gz, or extracted from the .deb with dpkg-deb -x and
  pointed to by NODEJS_DOC_API=<root>/usr/share/doc/nodejs/api), every document is
  copied afresh with build/copy.py into a temporary folder and compared byte-for-byte;
  when the package is installed, its version is compared with MANIFEST's "commit".
  Exit status 0 = all checks pass, 1 = at least one failure.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS_DIR = os.path.join(HERE, "docs")
SRC_DIR = os.environ.get("NODEJS_DOC_API", "/usr/share/doc/nodejs/api")

N_GT, MIN_NON_CODE, MIN_DOCS = 32, 24, 10
NEEDLE_MIN, NEEDLE_MAX = 40, 220
N_NEAR, N_OFF = 21, 9
MIN_PER_BUCKET = 5          # needles required in each of early / middle / late
MAX_SHARED_RUN = {"course": 4, "ticket": 3}   # longest copied word run (with a content word)
MAX_CONTENT_SHARE = {"course": 0.6, "ticket": 0.5}

# Key terms that must NOT occur anywhere in the corpus for each unanswerable query
# (regexes, case-insensitive unless wrapped in (?-i:...)).
UNANSWERABLE_TERMS = {
    "u01": [r"line by line", r"createInterface", r"crlfDelay", r"one line at a time"],
    "u02": [r"maxSockets", r"keep-?alive", r"\bagent\b"],
    "u03": [r"backpressure", r"highWaterMark", r"stream\.pipeline"],
    "u04": [r"brotli", r"gzip", r"deflate"],
    "u05": [r"randomUUID", r"\buuid v?4", r"version.4", r"RFC ?4122"],
    "u06": [r"mkdir", r"recursive: ?true", r"mkdirp"],
    "u07": [r"\bmock", r"fake timers"],
    "u08": [r"checkServerIdentity", r"pinning", r"fingerprint"],
    "u09": [r"URLSearchParams", r"searchParams"],
    "u10": [r"AsyncLocalStorage", r"request context", r"getStore", r"request id"],
    "u11": [r"pushStream", r"server push", r"PUSH_PROMISE"],
    "u12": [r"server-sent", r"EventSource", r"event-stream"],
    "u13": [r"node-gyp", r"binding\.gyp", r"\bgyp\b"],
    "u14": [r"createReadStream", r"byte range", r"range request"],
    "u15": [r"defineCommand", r"dot-command", r"\.reload\b"],
    "u16": [r"runInNewContext", r"microtaskMode", r"untrusted code"],
    "u17": [r"performance\.mark", r"PerformanceObserver", r"user timing"],
    "u18": [r"StringDecoder", r"split across", r"partial character"],
    "u19": [r"setNoDelay", r"Nagle", r"TCP_NODELAY"],
    "u20": [r"setRawMode", r"raw ?mode", r"password"],
    "u21": [r"resolveSrv", r"\bSRV\b"],
    "u22": [r"\btent", r"guy ?lines?"],
    "u23": [r"press(ed|ing)? flowers", r"petal"],
    "u24": [r"bonsai", r"juniper"],
    "u25": [r"\biron(ing)?\b", r"dress shirt", r"wrinkle"],
    "u26": [r"turkey", r"\bthaw"],
    "u27": [r"\bwick\b", r"candle", r"\bsoy\b"],
    "u28": [r"kilimanjaro", r"acclimati"],
    "u29": [r"raised (garden )?bed", r"timber", r"planter"],
    "u30": [r"\bhorse", r"horsebox"],
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


def strip_quote(line):
    """Drop leading blockquote markers ('>') and indentation."""
    return re.sub(r"^(?:\s*>)*\s*", "", line)


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


def first_h1(text):
    """The first '# ' heading (each page's first line is its title)."""
    return next((ln[2:].strip() for ln in text.split("\n") if ln.startswith("# ")), None)


def top_sections(text):
    """Top-level section headings: lines outside fenced code that start with '## '."""
    inside, n = False, 0
    for line in text.split("\n"):
        s = line.lstrip()
        if s.startswith("```") or s.startswith("~~~"):
            inside = not inside
        elif not inside and line.startswith("## "):
            n += 1
    return n


# ---------------------------------------------------------------- manifest + docs
with open(os.path.join(HERE, "MANIFEST.json"), encoding="utf-8") as fh:
    manifest = json.load(fh)
want_keys = {"source", "commit", "license", "attribution", "documents", "total_chars", "total_sections"}
if set(manifest) != want_keys:
    fail(f"MANIFEST keys {sorted(manifest)} != {sorted(want_keys)}")
if not re.fullmatch(r"[0-9][0-9A-Za-z.+~:-]*", manifest.get("commit", "")):
    fail("MANIFEST commit is not a version string")

files = sorted(f for f in os.listdir(DOCS_DIR) if not f.startswith("."))
docs = {}
for f in files:
    with open(os.path.join(DOCS_DIR, f), "rb") as fh:
        raw = fh.read()
    try:
        docs[f] = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(f"{f}: not valid UTF-8 ({e})")
        docs[f] = raw.decode("utf-8", "replace")
    if not re.fullmatch(r"\d\d-[a-z0-9]+(?:-[a-z0-9]+)*\.md", f):
        fail(f"bad document file name {f}")
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
    text = docs.get(d.get("file"))
    if text is None:
        continue
    secs = top_sections(text)
    if d.get("chars") != len(text):
        fail(f"{d['file']}: chars {d.get('chars')} != {len(text)}")
    if d.get("sections") != secs:
        fail(f"{d['file']}: sections {d.get('sections')} != {secs}")
    h1 = first_h1(text)
    if d.get("title") != h1:
        fail(f"{d['file']}: title {d.get('title')!r} != first '# ' heading {h1!r}")
    tot_c += len(text)
    tot_s += secs
if manifest.get("total_chars") != tot_c or manifest.get("total_sections") != tot_s:
    fail(f"MANIFEST totals ({manifest.get('total_chars')}, {manifest.get('total_sections')}) != ({tot_c}, {tot_s})")

# optional: copy every doc afresh from the nodejs-doc pages and compare byte-exact
source_check = f"skipped (no {SRC_DIR}; set NODEJS_DOC_API, see the docstring)"
if "--no-rebuild" not in sys.argv and os.path.isfile(os.path.join(SRC_DIR, "cli.md.gz")):
    with tempfile.TemporaryDirectory() as tmp:
        try:
            subprocess.run([sys.executable, os.path.join(HERE, "build", "copy.py"), tmp],
                           check=True, capture_output=True, env={**os.environ, "NODEJS_DOC_API": SRC_DIR})
            mismatched = 0
            rebuilt_files = sorted(os.listdir(tmp))
            if rebuilt_files != files:
                fail(f"rebuild produced {rebuilt_files}, docs/ has {files}")
            for f in files:
                p = os.path.join(tmp, f)
                if not os.path.exists(p) or open(p, "rb").read() != open(os.path.join(DOCS_DIR, f), "rb").read():
                    mismatched += 1
                    fail(f"{f}: differs from a fresh copy of the nodejs-doc pages")
            installed = "not installed as a package, version not compared"
            q = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "nodejs-doc"],
                               capture_output=True, text=True) if shutil.which("dpkg-query") else None
            if q is not None and q.returncode == 0 and q.stdout.strip():
                installed = f"nodejs-doc {q.stdout.strip()}"
                if q.stdout.strip() != manifest.get("commit"):
                    fail(f"installed nodejs-doc is {q.stdout.strip()}, MANIFEST commit is {manifest.get('commit')}")
            source_check = (f"{len(files) - mismatched}/{len(files)} docs byte-identical to a fresh copy "
                            f"from {SRC_DIR} ({installed})")
        except subprocess.CalledProcessError as e:
            source_check = f"rebuild failed ({e})"

order = files
corpus = "".join(docs[f] for f in order)


def fence_map(text):
    """For each line index: True if the line is inside (or is) a fenced code block."""
    inside, out = False, []
    for line in text.split("\n"):
        s = strip_quote(line)
        if s.startswith("```") or s.startswith("~~~"):
            out.append(True)
            inside = not inside
        else:
            out.append(inside)
    return out


fences = {f: fence_map(t) for f, t in docs.items()}
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
    for ln in range(first, last + 1):
        if strip_quote(doc_lines[ln]).startswith("#"):
            fail(f"{tag}: needle touches heading line {ln + 1}: {doc_lines[ln][:60]!r}")
    for part in needle.split("\n"):
        if part.startswith("#") or strip_quote(part).startswith("#"):
            fail(f"{tag}: a line of the needle starts with '#'")
        if not strip_quote(part):
            fail(f"{tag}: needle spans a blank line (more than one paragraph)")
    code = any(fences[f][ln] for ln in range(first, last + 1))
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
    fail(f"only {len(gts) - in_code} needles outside fenced code, want >= {MIN_NON_CODE}")
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
print(f"corpus   : {len(files)} docs, {tot_c:,} chars, {tot_s} top-level sections; "
      f"source nodejs-doc {manifest.get('commit', '')}")
print(f"source   : {source_check}")
print(f"GT       : {len(gts)} needles in {len(per_doc)} docs; "
      f"{len(gts) - in_code} outside fenced code, {in_code} inside")
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
if errors:
    print(f"\nFAIL: {len(errors)} problem(s)")
    for e in errors:
        print("  - " + e)
    sys.exit(1)
print("\nPASS: all programmatic checks passed "
      "(not checkable by program: that each needle truly answers its queries - reviewed by hand)")

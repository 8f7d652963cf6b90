"""The ground-truth check every eval corpus runs: eval/NAME/check_gt.py describes its corpus
(a subclass of one of the classes below) and calls its run().

What is checked, for every corpus (the format is the one in the eval READMEs):
  MANIFEST.json   its keys; "commit" in the corpus's form; one entry per file of docs/, in
                  order, whose chars, sections and title are those of the file today; totals
  docs/           valid UTF-8, file names in the corpus's form, numbered in reading order
  questions.jsonl 32 needles, each a verbatim substring of its document's text (citeline's
                  extraction where the corpus is read through it) occurring once in the
                  corpus, 40..220 characters, one sentence unless in code, touching no
                  heading; at least 24 outside code, 10 documents covered, 5 in each third
                  of their documents; two phrasings a needle, neither copying it
  unanswerable    21 near + 9 off questions, none of whose key terms occurs in the corpus
  source          optionally, docs/ rebuilt from the installed source byte for byte

Why one module: the sixteen scripts were copies of one another; a check fixed in one copy
was left stale in the others. What differs from corpus to corpus (the document format, the
source, the key terms) is a subclass's; the classes for a format shared by several corpora
(Markdown, reStructuredText, Vim help, HTML) are here.

Each script imports this module by putting its folder's parent (eval/) on sys.path, so it
still runs as `python eval/NAME/check_gt.py [--no-rebuild]` from anywhere. The corpus's
build/manifest.py imports it the same way and writes MANIFEST.json's documents with the
check's own class (load_check, manifest_documents, write_manifest): the titles, characters
and sections it writes are measured by the code that checks them. The module is not
part of the citeline package: it checks the eval corpora, and nothing in citeline uses it.
"""
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

EVAL_DIR = os.path.dirname(os.path.abspath(__file__))
# the checkout's citeline, not an installed one, so a corpus is checked against the
# extractors it will be evaluated with
sys.path.insert(0, os.path.join(EVAL_DIR, "..", "src"))

N_GT, MIN_NON_CODE, MIN_DOCS = 32, 24, 10
NEEDLE_MIN, NEEDLE_MAX = 40, 220
N_NEAR, N_OFF = 21, 9
MIN_PER_BUCKET = 5          # needles required in each of early / middle / late
MAX_SHARED_RUN = {"course": 4, "ticket": 3}   # longest copied word run (with a content word)
MAX_CONTENT_SHARE = {"course": 0.6, "ticket": 0.5}

STOP = set("""a an the and or but if of to in on at by for with from as is are was were be been being
it its this that these those there their them they we you your i me my our he she his her
do does did doing done have has had not no so than then too very can could will would should
shall may might must what which who whom whose when where why how all any both each few more
most other some such only own same just also into out up down over under again once here
about after before because while until between through during above below off further
s t d ll re ve m""".split())

MANIFEST_KEYS = {"source", "commit", "license", "attribution", "documents", "total_chars", "total_sections"}
DEBIAN_VERSION = r"[0-9][0-9A-Za-z.+~:-]*"
# a line of check_gt.py's summary, as a README quotes it
SUMMARY_LINE = re.compile(r"^(corpus|code|source|GT|context|per doc|position|length|uniqueness|copying"
                          r"|unanswer\.|queries) *:")
# a number in a summary line, with the words after it ("388,963 extracted chars")
FIGURE = re.compile(r"(\d(?:[\d,.]*\d)?)([^\d,;()=]*)")
# the README key-figures table's rows that state a measured figure: (row name, the value's
# pattern, what each group is)
KEY_FIGURES = [
    ("raw HTML", r"([\d,]+) bytes \(([\d,]+) characters.*", ("bytes", "characters")),
    ("characters", r"([\d,]+)(?: \(([\d,]+) bytes.*)?", ("characters", "bytes")),
    ("extracted characters", r"([\d,]+)(?: \(.*)?", ("extracted characters",)),
    ("`<pre>` blocks", r"([\d,]+) \(([\d,]+) extracted characters.*", ("<pre> blocks", "<pre> characters")),
]
SENTENCE_BREAK = re.compile(r"[.!?][)\]\"\u201d\u2019`_*]*\s+(?:>\s+)?[A-Z\u201c\"(`]")


def number(text):
    """'388,963' -> 388963."""
    return int(text.replace(",", ""))


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


def dpkg_version(package):
    """The installed Debian package's version (dpkg's record), or None."""
    if not shutil.which("dpkg-query"):
        return None
    out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


def changelog_version(changelog, package=r"\S+"):
    """The Debian version on the first line of a package's changelog.Debian.gz."""
    import gzip

    with gzip.open(changelog, "rt", encoding="utf-8") as fh:
        m = re.match(package + r" \(([^)]+)\)", fh.readline())
    return m.group(1) if m else None


def installed_version(package, src_dir):
    """A Debian package's version: dpkg's record if it is installed, else the first line
    of the changelog beside its unpacked HTML folder src_dir."""
    return dpkg_version(package) or changelog_version(
        os.path.join(os.path.dirname(src_dir), "changelog.Debian.gz"))


def load_build_module(here, name):
    """A corpus's build/copy.py, loaded by path (its name would shadow the standard
    library's `copy`): it holds the page list and finds the source."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, os.path.join(here, "build", "copy.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_check(here, name):
    """A corpus's check_gt.py, loaded by path as module `name` (its corpus class is what
    build/manifest.py measures the documents with; its run() is not called)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, os.path.join(here, "check_gt.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def manifest_documents(corpus_class, here):
    """MANIFEST.json's "documents" for the corpus in folder `here`, measured by its check's
    own class (corpus_class, from its check_gt.py): the files of docs/ read as the check
    reads them, each entry Corpus.document_entry's. build/manifest.py writes what
    check_gt.py checks, with the same code, so the two cannot disagree.

    Raises ValueError naming the problems when the check could not read the documents
    (not UTF-8, a bad file name, an extraction that fails) or finds no title or no
    section count for one: a MANIFEST of documents its check rejects is not written."""
    corpus = corpus_class(os.path.join(here, "check_gt.py"), {})
    corpus.docs_dir = os.path.join(here, "docs")
    corpus.read_docs()
    documents = [corpus.document_entry(f) for f in corpus.files]
    problems = corpus.errors + [f"{d['file']}: no {what}" for d in documents
                                for what in ("title", "sections") if d[what] is None]
    if problems:
        raise ValueError(f"{os.path.basename(here)}: documents not measurable: " + "; ".join(problems))
    return documents


def write_manifest(here, documents, source, commit, license, attribution):
    """Write the corpus's MANIFEST.json (keys in the eval READMEs' order, totals summed from
    `documents`, JSON indented by 2 with non-ASCII characters as they are, a final newline)
    and return it."""
    manifest = {
        "source": source,
        "commit": commit,
        "license": license,
        "attribution": attribution,
        "documents": documents,
        "total_chars": sum(d["chars"] for d in documents),
        "total_sections": sum(d["sections"] for d in documents),
    }
    with open(os.path.join(here, "MANIFEST.json"), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, ensure_ascii=False, indent=2)
        fh.write("\n")
    return manifest


class Corpus:
    """One corpus's check. A subclass names its file names and commit form and overrides
    the methods its format or source needs: extract, title, sections, is_heading,
    code_lines, rebuild."""

    FILE_NAME = r"\d\d-[a-z0-9]+(?:-[a-z0-9]+)*\.md"
    COMMIT = DEBIAN_VERSION
    COMMIT_IS = "a Debian package version string"
    SOURCE = ""                  # the source's name in the summary's corpus line
    SECTIONS = "'## ' sections"  # what the sections counted are, in the corpus line
    TITLE_IS = "first '# ' heading"
    CODE = "fenced code"         # what "inside code" means
    EXTRACTED = False            # needles refer to citeline's extraction, not the raw file
    UNIT = "paragraph"           # what a blank line in a needle would join two of
    SKIPPED = "skipped"          # the source line when there is no rebuild

    def __init__(self, script, unanswerable_terms):
        """script: the corpus's check_gt.py (its folder is the corpus); unanswerable_terms:
        for each unanswerable question's id, regexes of key terms that must NOT occur in
        the corpus (case-insensitive unless wrapped in (?-i:...))."""
        self.here = os.path.dirname(os.path.abspath(script))
        self.unanswerable_terms = unanswerable_terms
        self.errors, self.notes = [], []
        self.raws, self.docs = {}, {}

    def fail(self, msg):
        self.errors.append(msg)

    # -------------------------------------------------------------- hooks
    def extract(self, f, raw):
        """The text needles are found in: the file's own text unless the corpus is read
        through citeline's extractor."""
        return raw

    def check_manifest(self, manifest):
        """Checks of MANIFEST's other fields (a corpus's license)."""

    def check_files(self, files):
        for i, f in enumerate(files, 1):
            if not f.startswith(f"{i:02d}-"):
                self.fail(f"document numbering not consecutive at {f}")

    def title(self, f):
        return next((ln[2:].strip() for ln in self.docs[f].split("\n") if ln.startswith("# ")), None)

    def sections(self, f):
        return sum(1 for line in self.docs[f].split("\n") if line.startswith("## "))

    def check_doc(self, f):
        """Checks of one document beyond its MANIFEST entry."""

    def read_docs(self):
        """Read every file of docs_dir: its raw text (raws, UTF-8 decoded as it is, carriage
        returns kept) and the text needles are found in (docs, extract's), failing on a file
        that is not UTF-8 or not named in the corpus's form; the sorted file names."""
        self.files = files = sorted(f for f in os.listdir(self.docs_dir) if not f.startswith("."))
        for f in files:
            raw = Path(self.docs_dir, f).read_bytes()
            try:
                self.raws[f] = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                self.fail(f"{f}: not valid UTF-8 ({e})")
                self.raws[f] = raw.decode("utf-8", "replace")
            if not re.fullmatch(self.FILE_NAME, f):
                self.fail(f"bad document file name {f}")
            self.docs[f] = self.extract(f, self.raws[f])
        self.check_files(files)
        return files

    def document_entry(self, f):
        """Document f's MANIFEST entry as measured today: its title, its raw characters (what
        citeline's loader compares) and its sections. The check compares MANIFEST with it and
        build/manifest.py writes it (through manifest_documents)."""
        return {"file": f, "title": self.title(f), "chars": len(self.raws[f]), "sections": self.sections(f)}

    def rebuild(self):
        """Rebuild docs/ from the source and compare; the source line, or None when the
        source is not here."""
        return None

    def code_lines(self, f):
        """For each line of the document: True if it is code."""
        return [False] * len(self.docs[f].split("\n"))

    def in_code(self, f, off, end, first, last):
        return any(self._code[f][ln] for ln in range(first, last + 1))

    def is_heading(self, f, ln, line):
        return line.startswith("#")

    def part_problems(self, part):
        """Problems of one line of a needle."""
        if part.startswith("#"):
            yield "a line of the needle starts with '#'"

    def is_blank(self, part):
        return not part.strip()

    def check_needle(self, tag, gid, f, needle, first, code):
        """Checks of a needle beyond the common ones."""

    def corpus_lines(self, tot_c, tot_s):
        source = " ".join(s for s in (self.SOURCE, self.manifest.get("commit", "")) if s)
        return [f"corpus   : {len(self.files)} docs, {tot_c:,} chars, {tot_s} {self.SECTIONS}; source {source}"]

    def gt_lines(self):
        """Summary lines after the GT line."""
        return []

    def doc_label(self, f):
        return f[:2]

    def verbose_lines(self):
        return []

    # -------------------------------------------------------------- helpers
    def fresh_copy(self, script, differs, env=None):
        """Run build/<script> into a temporary folder and compare each document with its
        fresh copy byte for byte, failing '<file>: <differs>' for each that differs; the
        number identical. A failed script raises subprocess.CalledProcessError."""
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, os.path.join(self.here, "build", script), tmp],
                           check=True, capture_output=True, env=env)
            rebuilt_files = sorted(os.listdir(tmp))
            if rebuilt_files != self.files:
                self.fail(f"rebuild produced {rebuilt_files}, docs/ has {self.files}")
            mismatched = 0
            for f in self.files:
                p = os.path.join(tmp, f)
                same = False
                if os.path.exists(p):
                    same = Path(p).read_bytes() == Path(self.docs_dir, f).read_bytes()
                if not same:
                    mismatched += 1
                    self.fail(f"{f}: {differs}")
        return len(self.files) - mismatched

    def check_version(self, installed, what):
        if installed != self.manifest.get("commit"):
            self.fail(f"{what} is {installed}, MANIFEST commit is {self.manifest.get('commit')}")

    def read_jsonl(self, name):
        rows = []
        with open(os.path.join(self.here, name), encoding="utf-8") as fh:
            for no, line in enumerate(fh, 1):
                if not line.strip():
                    self.fail(f"{name}:{no}: blank line")
                    continue
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    self.fail(f"{name}:{no}: bad JSON ({e})")
        return rows

    def line_of(self, f, offset):
        starts = self._line_starts[f]
        lo, hi = 0, len(starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo

    # -------------------------------------------------------------- the check
    def run(self):
        self.docs_dir = os.path.join(self.here, "docs")
        tot_c, tot_s = self._check_manifest_and_docs()
        source_check = None if "--no-rebuild" in sys.argv else self.rebuild()
        self.corpus = "".join(self.docs[f] for f in self.files)
        self._line_starts = {}
        for f, t in self.docs.items():
            starts, pos = [], 0
            for line in t.split("\n"):
                starts.append(pos)
                pos += len(line) + 1
            self._line_starts[f] = starts
        self._code = {f: self.code_lines(f) for f in self.files}
        self.all_queries = []
        self._check_questions()
        uns, kinds, term_hits = self._check_unanswerable()

        summary = [*self.corpus_lines(tot_c, tot_s), f"source   : {source_check or self.SKIPPED}"]
        gts, per_doc, in_code = self.gts, self.per_doc, self.in_code_count
        summary.append(f"GT       : {len(gts)} needles in {len(per_doc)} docs; "
                       f"{len(gts) - in_code} outside {self.CODE}, {in_code} inside")
        summary += self.gt_lines()
        summary.append("per doc  : " + ", ".join(f"{self.doc_label(f)}:{c}" for f, c in sorted(per_doc.items())))
        b = self.buckets
        summary.append(f"position : early {b['early']}, middle {b['middle']}, late {b['late']}")
        if self.lengths:
            summary.append(f"length   : {min(self.lengths)}..{max(self.lengths)} chars "
                           f"(limit {NEEDLE_MIN}..{NEEDLE_MAX})")
        extracted = "extracted " if self.EXTRACTED else ""
        summary.append(f"uniqueness: every needle occurs exactly once in the concatenated {extracted}corpus"
                       if not any('occurs' in e and e.startswith('q') for e in self.errors)
                       else "uniqueness: FAILURES")
        run, share = self.max_run, self.max_share
        summary.append(f"copying  : longest shared word run course={run['course'][0]} ({run['course'][1]}), "
                       f"ticket={run['ticket'][0]} ({run['ticket'][1]}); "
                       f"max content-word reuse course={share['course'][0]:.0%}, ticket={share['ticket'][0]:.0%}")
        summary.append(f"unanswer.: {kinds['near']} near + {kinds['off']} off; "
                       f"{sum(len(self.unanswerable_terms.get(u.get('id'), [])) for u in uns)} "
                       f"key-term regexes grepped, {term_hits} hits")
        summary.append(f"queries  : {len(self.all_queries)} total, {len(set(self.all_queries))} distinct")
        summary.append(f"README   : {self._check_readme(summary, tot_c)}")
        for line in summary:
            print(line)
        for line in self.verbose_lines() if "-v" in sys.argv else []:
            print(line)
        for n in self.notes:
            print("note     : " + n)
        if self.errors:
            print(f"\nFAIL: {len(self.errors)} problem(s)")
            for e in self.errors:
                print("  - " + e)
            sys.exit(1)
        print("\nPASS: all programmatic checks passed "
              "(not checkable by program: that each needle truly answers its queries - reviewed by hand)")

    def figures(self, tot_c):
        """What the README's key-figures table may state about the whole corpus, measured
        today: name -> value."""
        return {"bytes": sum(len(Path(self.docs_dir, f).read_bytes()) for f in self.files),
                "characters": tot_c,
                "extracted characters": sum(len(t) for t in self.docs.values())}

    def _check_readme(self, summary, tot_c):
        """Compare every figure README.md states about the corpus with today's measure, and
        fail naming both: the check output it quotes (every line but source, which says
        where the source was found), its key-figures table (characters, bytes, extracted
        characters, <pre> blocks) and its table of documents (raw bytes, extracted chars,
        chars, sections) and the total of extracted characters where its prose repeats it.
        An extractor change moves the extracted figures; nothing else
        would catch a README still quoting the old ones. The summary of what was compared."""
        path = os.path.join(self.here, "README.md")
        self.readme = readme = f"eval/{os.path.basename(self.here)}/README.md"
        if not os.path.exists(path):
            return "none"
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        n = 0

        def compare(where, stated, measured):
            nonlocal n
            n += 1
            if stated != measured:
                self.fail(f"{readme} {where} states {stated:,}, measured today {measured:,}")

        today = {SUMMARY_LINE.match(line).group(1): line for line in summary if SUMMARY_LINE.match(line)}
        measures = self.figures(tot_c)
        header = None
        for no, line in enumerate(lines, 1):
            m = SUMMARY_LINE.match(line)
            if m and m.group(1) != "source":
                n += 1
                self._compare_line(f"(line {no}, quoted '{m.group(1)}' output)", line, today.get(m.group(1), ""))
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
            if not cells:
                header = None
                continue
            if cells[0] == "file":
                header = cells
                continue
            for name, pattern, keys in KEY_FIGURES:
                m = re.fullmatch(pattern, cells[1]) if cells[0] == name and len(cells) == 2 else None
                for key, stated in zip(keys, m.groups() if m else ()):
                    if stated is not None and key in measures:
                        what = name if key == name else f"{name}: {key}"
                        compare(f"(line {no}, {what})", number(stated), measures[key])
            f = cells[0].strip("`").removeprefix("docs/")
            if header and f in self.docs and len(cells) == len(header):
                for column, stated in zip(header, cells):
                    measure = self.doc_figure(f, column)
                    if measure is not None and re.fullmatch(r"[\d,]+", stated):
                        compare(f"(line {no}, {f}: {column})", number(stated), measure)
        # the total repeated in prose ("388,963 extracted characters, in the ... target"): a
        # figure of extracted characters within 10% of today's total is read as the total
        # (the pages left out of a corpus are quoted the same way, and are far from it)
        total, text = measures["extracted characters"], "\n".join(lines)
        for m in re.finditer(r"(\d{1,3}(?:,\d{3})+)\s+extracted\s+characters"
                             r"|extracted\s+characters,\s+(\d{1,3}(?:,\d{3})+)", text):
            stated = number(m.group(1) or m.group(2))
            no = text.count("\n", 0, m.start()) + 1
            if abs(stated - total) <= total / 10 and not lines[no - 1].startswith("|"):
                compare(f"(line {no}, prose: extracted characters)", stated, total)
        return f"{n} figures compared with today's" if n else "no figures stated"

    def doc_figure(self, f, column):
        """Today's measure of one document for a column of the README's table of documents."""
        if column == "raw bytes":
            return len(Path(self.docs_dir, f).read_bytes())
        if column == "extracted chars":
            return len(self.docs[f])
        if column == "chars":
            return len(self.raws[f])
        if column in ("sections", "`## `"):
            return self.sections(f)
        return None

    def _compare_line(self, where, stated, measured):
        """A quoted line of check output against today's: number by number when only the
        numbers differ, else the two lines."""
        if stated == measured:
            return
        old, new = FIGURE.findall(stated), FIGURE.findall(measured)
        if FIGURE.sub("#", stated) != FIGURE.sub("#", measured):
            self.fail(f"{self.readme} {where} reads {stated!r}, today's is {measured!r}")
            return
        for (a, unit), (b, _) in zip(old, new):
            if a != b:
                self.fail(f"{self.readme} {where} states {a}{unit.rstrip()}, measured today {b}")

    def _check_manifest_and_docs(self):
        with open(os.path.join(self.here, "MANIFEST.json"), encoding="utf-8") as fh:
            self.manifest = manifest = json.load(fh)
        if set(manifest) != MANIFEST_KEYS:
            self.fail(f"MANIFEST keys {sorted(manifest)} != {sorted(MANIFEST_KEYS)}")
        if not re.fullmatch(self.COMMIT, manifest.get("commit", "")):
            self.fail(f"MANIFEST commit is not {self.COMMIT_IS}")
        self.check_manifest(manifest)
        files = self.read_docs()

        mdocs = manifest.get("documents", [])
        if [d.get("file") for d in mdocs] != files:
            self.fail("MANIFEST documents do not list exactly the files in docs/ (in order)")
        tot_c = tot_s = 0
        for d in mdocs:
            if set(d) != {"file", "title", "chars", "sections"}:
                self.fail(f"MANIFEST document entry keys {sorted(d)}")
            f = d.get("file")
            if f not in self.docs:
                continue
            entry = self.document_entry(f)
            chars, secs = entry["chars"], entry["sections"]
            if d.get("chars") != chars:
                self.fail(f"{f}: chars {d.get('chars')} != {chars} (raw characters, what the loader compares)")
            if d.get("sections") != secs:
                self.fail(f"{f}: sections {d.get('sections')} != {secs}")
            self.check_doc(f)
            title = entry["title"]
            if d.get("title") != title:
                self.fail(f"{f}: title {d.get('title')!r} != {self.TITLE_IS} {title!r}")
            tot_c += chars
            tot_s += secs or 0
        if manifest.get("total_chars") != tot_c or manifest.get("total_sections") != tot_s:
            self.fail(f"MANIFEST totals ({manifest.get('total_chars')}, {manifest.get('total_sections')}) "
                      f"!= ({tot_c}, {tot_s})")
        return tot_c, tot_s

    def _check_questions(self):
        fail, docs, corpus = self.fail, self.docs, self.corpus
        self.gts = gts = self.read_jsonl("questions.jsonl")
        if len(gts) != N_GT:
            fail(f"questions.jsonl has {len(gts)} entries, want {N_GT}")
        self.buckets = buckets = {"early": 0, "middle": 0, "late": 0}
        self.per_doc, self.lengths, in_code = {}, [], 0
        self.max_run = max_run = {"course": (0, ""), "ticket": (0, "")}
        self.max_share = max_share = {"course": (0.0, ""), "ticket": (0.0, "")}
        text_of = "the extracted text of " if self.EXTRACTED else ""
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
                fail(f"{tag}: needle not a verbatim substring of {text_of}{f}")
                continue
            hits = corpus.count(needle)
            hits_docs = sum(t.count(needle) for t in docs.values())
            if hits != 1 or hits_docs != 1:
                fail(f"{tag}: needle occurs {hits} times in corpus ({hits_docs} by document), want exactly 1")
            raw = self.raws[f]
            if self.EXTRACTED and needle in raw and raw.count(needle) != 1:
                self.notes.append(f"{tag}: needle occurs {raw.count(needle)} times in the raw HTML")
            L = len(needle)
            self.lengths.append(L)
            if not NEEDLE_MIN <= L <= NEEDLE_MAX:
                fail(f"{tag}: needle length {L} outside {NEEDLE_MIN}..{NEEDLE_MAX}")
            first, last = self.line_of(f, off), self.line_of(f, off + L - 1)
            doc_lines = text.split("\n")
            for ln in range(first, last + 1):
                if self.is_heading(f, ln, doc_lines[ln]):
                    fail(f"{tag}: needle touches heading line {ln + 1}: {doc_lines[ln][:60]!r}")
            for part in needle.split("\n"):
                for problem in self.part_problems(part):
                    fail(f"{tag}: {problem}")
                if self.is_blank(part):
                    fail(f"{tag}: needle spans a blank line (more than one {self.UNIT})")
            code = self.in_code(f, off, off + L, first, last)
            in_code += code
            self.check_needle(tag, gid, f, needle, first, code)
            if not code:
                inner = needle.rstrip()
                if SENTENCE_BREAK.search(inner[:-1] if inner[-1:] in ".!?:" else inner):
                    fail(f"{tag}: needle looks like more than one sentence")
            rel = off / len(text)
            bucket = "early" if rel < 1 / 3 else "middle" if rel < 2 / 3 else "late"
            buckets[bucket] += 1
            self.per_doc[f] = self.per_doc.get(f, 0) + 1
            for kind in ("course", "ticket"):
                qs = q[kind]
                if not isinstance(qs, str) or len(qs.strip()) < 15:
                    fail(f"{tag}: {kind} query missing or too short")
                    continue
                self.all_queries.append(qs.strip().lower())
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
        self.in_code_count = in_code

        if len(gts) - in_code < MIN_NON_CODE:
            fail(f"only {len(gts) - in_code} needles outside {self.CODE}, want >= {MIN_NON_CODE}")
        if len(self.per_doc) < MIN_DOCS:
            fail(f"needles cover {len(self.per_doc)} documents, want >= {MIN_DOCS}")
        for b, c in buckets.items():
            if c < MIN_PER_BUCKET:
                fail(f"only {c} needles in the {b} third of their documents, want >= {MIN_PER_BUCKET}")

    def _check_unanswerable(self):
        fail, corpus = self.fail, self.corpus
        uns = self.read_jsonl("unanswerable.jsonl")
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
            self.all_queries.append(qs.strip().lower())
            terms = self.unanswerable_terms.get(uid)
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
        dups = {q for q in self.all_queries if self.all_queries.count(q) > 1}
        if dups:
            fail(f"duplicate queries: {sorted(dups)}")
        return uns, kinds, term_hits


# ------------------------------------------------------------------ Markdown
def strip_quote(line):
    """Drop leading blockquote markers ('>') and indentation."""
    return re.sub(r"^(?:\s*>)*\s*", "", line)


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


class MarkdownCorpus(Corpus):
    """Markdown pages read as they are: "inside code" is inside a fenced block; headings
    and blank lines are looked for under blockquote markers too."""

    def code_lines(self, f):
        return fence_map(self.docs[f])

    def is_heading(self, f, ln, line):
        return strip_quote(line).startswith("#")

    def part_problems(self, part):
        if part.startswith("#") or strip_quote(part).startswith("#"):
            yield "a line of the needle starts with '#'"

    def is_blank(self, part):
        return not strip_quote(part)

    def headings_outside_fences(self, f, heading):
        """Lines outside fenced code that match `heading` (a regex, at the line's start)."""
        inside, n = False, 0
        for line in self.docs[f].split("\n"):
            s = line.lstrip()
            if s.startswith("```") or s.startswith("~~~"):
                inside = not inside
            elif not inside and re.match(heading, line):
                n += 1
        return n


class PandocCorpus(MarkdownCorpus):
    """Markdown converted with pandoc by build/convert.py from the pages of a Debian
    package (SOURCE) installed in SRC_DIR; PAGES names them in the messages."""

    SRC_DIR = ""
    PAGES = ""

    @property
    def SKIPPED(self):
        return f"skipped (no {self.PAGES} or no pandoc)"

    def rebuild(self):
        if not (os.path.isdir(self.SRC_DIR) and shutil.which("pandoc")):
            return None
        try:
            same = self.fresh_copy("convert.py", f"differs from a fresh rebuild of the Debian {self.PAGES}")
        except subprocess.CalledProcessError as e:
            return f"rebuild failed ({e})"
        return f"{same}/{len(self.files)} docs byte-identical to a fresh rebuild from {self.SRC_DIR}"


# ------------------------------------------------------------------ reStructuredText
# reStructuredText section adornment (the rule citeline's loader uses)
ADORN = re.compile(r"([!-/:-@\[-`{-~])\1+[ \t]*")
# directives whose content is a literal (code) block
CODE_DIRECTIVES = {"code-block", "code", "sourcecode", "parsed-literal", "literalinclude",
                   "productionlist", "raw"}
DIRECTIVE = re.compile(r"^(\s*)\.\. ([A-Za-z][\w:-]*)::")
LIST_ITEM = re.compile(r"^\s*(?:[*+-]|\d+\.|#\.)\s")


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


class RstCorpus(Corpus):
    """reStructuredText pages: section titles by reStructuredText's adornment rules (the
    first level-1 title is the page's, level-2 titles are its sections), "inside code" is
    inside a literal block, and each needle's context (list, directive, definition,
    paragraph) is counted (-v lists them)."""

    SECTIONS = "level-2 sections"
    TITLE_IS = "first section title"
    CODE = "literal blocks"

    def __init__(self, script, unanswerable_terms):
        super().__init__(script, unanswerable_terms)
        self.heads, self.contexts = {}, {}

    def extract(self, f, raw):
        if "\r" in raw:
            self.fail(f"{f}: contains carriage returns (offsets would not match the loader's text)")
        return raw

    def _heads(self, f):
        if f not in self.heads:
            self.heads[f] = rst_headings(self.docs[f])
        return self.heads[f]

    def title(self, f):
        return next((h[3] for h in self._heads(f) if h[2] == 1), None)

    def sections(self, f):
        return sum(1 for h in self._heads(f) if h[2] == 2)

    def code_lines(self, f):
        return literal_map(self.docs[f])

    def is_heading(self, f, ln, line):
        # a needle must not touch a section title, its underline or its overline
        return any(h[0] <= ln <= h[1] for h in self._heads(f))

    def part_problems(self, part):
        if ADORN.fullmatch(part.strip() or "x"):
            yield "a line of the needle is a section adornment"

    def check_needle(self, tag, gid, f, needle, first, code):
        self.contexts[gid] = "literal" if code else context_of(self.docs[f].split("\n"), first)

    def gt_lines(self):
        count = {}
        for c in self.contexts.values():
            key = "directive" if c.startswith("directive:") else c
            count[key] = count.get(key, 0) + 1
        return ["context  : " + ", ".join(f"{k} {v}" for k, v in sorted(count.items()))]

    def verbose_lines(self):
        return [f"  {gid}: {c}" for gid, c in self.contexts.items()]

    def copy_rebuild(self, source, differs):
        """docs/ copied again by build/copy.py from `source`, compared byte for byte."""
        try:
            same = self.fresh_copy("copy.py", differs)
        except subprocess.CalledProcessError as e:
            self.fail(f"build/copy.py failed: {e.stderr.decode(errors='replace').strip()}")
            return f"copy failed ({e})"
        return f"{same}/{len(self.files)} docs byte-identical to {source}"


# ------------------------------------------------------------------ Vim help
class VimHelpCorpus(Corpus):
    """Vim help files (.txt, kept as shipped, the chapters CHAPTERS): "inside code" is
    inside a help example block, and a needle must not be mostly *tags* and |links|. The
    source is the installed Vim runtime, whose version is compared with MANIFEST's."""

    SRC_DIR = "/usr/share/vim/vim90/doc"
    CHAPTERS = []
    MAX_TAG_SHARE = 0.3      # at most this share of a needle's characters inside *tags* / |links|
    COMMIT_IS = "a version string"
    SOURCE = "vim-runtime"
    CODE = "help example blocks"

    @property
    def SKIPPED(self):
        return f"skipped (no {self.SRC_DIR})"

    def check_files(self, files):
        if files != self.CHAPTERS:
            self.fail(f"docs/ holds {files}, want the chapters {self.CHAPTERS}")

    def code_lines(self, f):
        """For each line index: True if the line is inside a Vim help example block: the
        lines after a line ending in " >" (or a lone ">"), up to a line starting with "<"
        or a non-indented non-blank line (either of which ends the block)."""
        inside, out = False, []
        for line in self.docs[f].split("\n"):
            if inside and (line.startswith("<") or (line[:1] not in ("", " ", "\t"))):
                inside = False
            out.append(inside)
            if not inside and (line.endswith(" >") or line.endswith("\t>") or line == ">"):
                inside = True
        return out

    def part_problems(self, part):
        return ()

    def check_needle(self, tag, gid, f, needle, first, code):
        marked = sum(len(m.group()) for m in re.finditer(r"\*[^*\s]+\*|\|[^|\s]+\|", needle))
        share = marked / len(needle) if needle else 0.0
        if share > self.MAX_TAG_SHARE:
            self.fail(f"{tag}: needle is mostly tags and links ({share:.0%})")

    def rebuild(self):
        if not os.path.isdir(self.SRC_DIR):
            return None
        try:
            same = self.fresh_copy("copy.py", "differs from a fresh copy of the installed help file")
            installed = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "vim-runtime"],
                                       check=True, capture_output=True, text=True).stdout.strip()
            self.check_version(installed, "installed vim-runtime")
        except (subprocess.CalledProcessError, FileNotFoundError) as e:
            return f"rebuild failed ({e})"
        return (f"{same}/{len(self.files)} docs byte-identical to a fresh copy "
                f"from {self.SRC_DIR} (vim-runtime {installed})")


# ------------------------------------------------------------------ HTML
def atx_lines(text, level):
    """The level-`level` '#' heading lines of a text citeline extracted (HTML, EPUB), each as
    written, as citeline's chunker reads them (citeline.chunk.headings): outside fenced code,
    where a <pre>'s '# comment' line is (html 21 writes a <pre> as a fenced block, unescaped)."""
    from citeline.chunk import headings

    return [text[h.start:h.end] for h in headings(text, "atx") if h.level == level]


def heading_line_numbers(text):
    """The line indices of a text's '#' headings, as citeline's chunker reads them."""
    from citeline.chunk import headings

    return {text.count("\n", 0, h.start) for h in headings(text, "atx")}


class HtmlCorpus(Corpus):
    """HTML pages: every text check runs on citeline's canonical text (its HTML extraction),
    "inside code" means inside a <pre> block of that text, a heading is a '#' line citeline's
    chunker reads as one (none inside a <pre>'s fence), and the title is the page's <title>
    less TITLE_SUFFIX. MANIFEST's chars are the file's raw characters."""

    FILE_NAME = r"\d\d-[a-z0-9]+(?:-[a-z0-9]+)*\.html"
    COMMIT_IS = "a version string"
    TITLE_IS = "page title"
    TITLE_SUFFIX = ""
    SECTIONS = "top-level sections (<h2>)"
    CODE = "<pre> blocks"
    EXTRACTED = True
    UNIT = "block"

    def __init__(self, script, unanswerable_terms):
        super().__init__(script, unanswerable_terms)
        self.pres = {}
        self.heading_lines = {}

    def extract(self, f, raw):
        text, self.pres[f] = canonical_and_pre_spans(Path(self.docs_dir, f), f, self.fail)
        return text

    def title(self, f):
        m = re.search(r"<title>(.*?)</title>", self.raws[f], re.S)
        if not m:
            return None
        t = html.unescape(m.group(1)).strip()
        return t[: -len(self.TITLE_SUFFIX)] if self.TITLE_SUFFIX and t.endswith(self.TITLE_SUFFIX) else t

    def in_code(self, f, off, end, first, last):
        return any(a < end and off < b for a, b in self.pres[f])

    def code_lines(self, f):
        return []

    def is_heading(self, f, ln, line):
        if f not in self.heading_lines:
            self.heading_lines[f] = heading_line_numbers(self.docs[f])
        return ln in self.heading_lines[f]

    def part_problems(self, part):
        """None: a needle's line starting with '#' is a heading only outside a <pre>'s
        fence, and is_heading, which reads headings as citeline does, finds those."""
        return ()

    def corpus_lines(self, tot_c, tot_s):
        extracted = sum(len(t) for t in self.docs.values())
        spans = [s for ss in self.pres.values() for s in ss]
        return [f"corpus   : {len(self.files)} docs, {tot_c:,} raw chars, {extracted:,} extracted chars, "
                f"{tot_s} {self.SECTIONS}; source {self.SOURCE} {self.manifest.get('commit', '')}",
                f"code     : {len(spans)} <pre> blocks, {sum(b - a for a, b in spans):,} extracted chars"]

    def figures(self, tot_c):
        spans = [s for ss in self.pres.values() for s in ss]
        return {**super().figures(tot_c), "<pre> blocks": len(spans),
                "<pre> characters": sum(b - a for a, b in spans)}

    def copy_rebuild(self, differs, installed, what, label, env=None):
        """docs/ copied afresh by build/copy.py from SRC_DIR and compared byte for byte;
        installed() is the source's version, compared with MANIFEST's commit."""
        try:
            same = self.fresh_copy("copy.py", differs, env)
            version = installed()
            self.check_version(version, what)
        except (subprocess.CalledProcessError, OSError) as e:
            return f"rebuild failed ({e})"
        return (f"{same}/{len(self.files)} docs byte-identical to a fresh copy "
                f"from {self.SRC_DIR} ({label} {version})")


def canonical_and_pre_spans(path, rel, fail):
    """(citeline's canonical text of the page, [(start, end)] of its <pre> blocks).
    The page is read by citeline's public read_page (citeline.extract.html: its root, its
    walk), with _PreWalker standing in for its walker, so the blocks are read_page's own."""
    from citeline.extract import extractor_for
    from citeline.extract import html as citeline_html

    walker_class = citeline_html._Walker
    _PreWalker = pre_walker(walker_class)
    text = extractor_for(path).extract(path, rel).text
    decoded, _ = citeline_html.decode_html(path.read_bytes(), rel)
    citeline_html._Walker = _PreWalker
    try:
        page = citeline_html.read_page(decoded, rel)
    finally:
        citeline_html._Walker = walker_class
    if len(_PreWalker.made) != 1 or page.blocks is not _PreWalker.made[0].blocks:
        fail(f"{rel}: read_page no longer reads the page with one _Walker; <pre> blocks not located")
        return text, []
    pre_blocks = _PreWalker.made[0].pre_blocks
    spans, pos = [], 0
    for i, b in enumerate(page.blocks):
        if i:
            pos += 2
        if i in pre_blocks:
            spans.append((pos, pos + len(b)))
        pos += len(b)
    if "\n\n".join(page.blocks) != text:
        fail(f"{rel}: could not reproduce citeline's extraction to locate <pre> blocks")
    return text, spans


def pre_walker(walker_class):
    """A subclass of citeline's own HTML walker that notes which of its blocks come from a
    <pre> element. Every branch of the walker flushes before it appends a block, except the
    <pre> branch, which appends the block right after reading the element with
    inline(pre=True). (The walker's own `mark` is an ordered list item's number, so this one
    is `pre_mark`.) It is made by citeline's read_page, with read_page's own arguments
    (passed through); `made` lists each one made."""

    class _PreWalker(walker_class):
        made = []

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
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
            _PreWalker.made.append(self)

        def flush(self):
            self.pre_mark = None
            super().flush()

        def inline(self, node, in_section, pre=False):
            if pre and node.tag == "pre":
                self.pre_mark = len(self.blocks)
            return super().inline(node, in_section, pre)

    return _PreWalker

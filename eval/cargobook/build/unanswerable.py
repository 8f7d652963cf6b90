#!/usr/bin/env python3
"""Write unanswerable.jsonl.  check_gt.py holds, for each question, key-term regexes
(UNANSWERABLE_TERMS) that must not occur anywhere in the corpus (the canonical texts), as
evidence the pages do not answer it.  `near` questions are Cargo and Rust-tooling topics
that the chosen pages do not cover: some are documented on Cargo Book pages left out of
this corpus (cargo fix, cargo miri, the unstable -Z build-std and cargo script), the
others in other tools' documentation (Clippy, cargo-nextest, RustSec, coverage, fuzzing,
sanitizers, profile-guided optimization, rust-analyzer, ...); `off` questions are
off-topic."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
U = [
    ("near", "How do I let cargo fix rewrite my code automatically when moving the crate to a newer edition?"),
    ("near", "Where does a clippy.toml file go, and how do I raise the cognitive complexity threshold in it?"),
    ("near", "How do I run the test suite with cargo-nextest so that each test runs in its own process?"),
    ("near", "How do I run my unit tests under Miri to catch memory errors in unsafe code?"),
    ("near", "How do I set up trusted publishing to crates.io from GitHub Actions with OIDC, without storing an API token?"),
    ("near", "How do I check my Cargo.lock against the RustSec advisory database for known vulnerabilities?"),
    ("near", "How do I rebuild the standard library from source for a custom target with -Z build-std and the rust-src component?"),
    ("near", "How do I write a single-file Rust script with its dependencies declared in a frontmatter block and run it directly?"),
    ("near", "How do I produce a line-coverage report for my tests with cargo llvm-cov or tarpaulin?"),
    ("near", "How do I set up cargo-fuzz with libFuzzer to fuzz a parsing function?"),
    ("near", "Can cargo-binstall download a prebuilt release binary instead of compiling the tool from source?"),
    ("near", "Two branches both changed Cargo.lock and git reports a merge conflict in it; how should I resolve that?"),
    ("near", "How do I see the code a derive or macro_rules macro generates, for example with cargo expand?"),
    ("near", "On Windows the build fails because link.exe cannot be found; which Visual Studio Build Tools components do I need?"),
    ("near", "How do I run cargo-semver-checks in CI to detect an accidental breaking API change before I release?"),
    ("near", "How do I make my binary use jemalloc as its global allocator?"),
    ("near", "How do I apply profile-guided optimization to a release binary using llvm-profdata?"),
    ("near", "How do I build and run my tests with AddressSanitizer enabled to find out-of-bounds accesses?"),
    ("near", "How do I build a fully static Linux executable with the musl target and crt-static?"),
    ("near", "Why does rust-analyzer in my editor not pick up code behind a feature flag, and how do I configure it?"),
    ("near", "How do I use cargo-bisect-rustc to find the nightly that introduced a compiler regression?"),
    ("off", "What is the best way to store fresh basil so it doesn't wilt?"),
    ("off", "How do I bleed the air out of a radiator that is cold at the top?"),
    ("off", "Which chords should a complete beginner learn first on the ukulele?"),
    ("off", "How do I get candle wax out of a cotton tablecloth?"),
    ("off", "How many eggs a week does a backyard chicken usually lay?"),
    ("off", "What should I know before adopting a retired racing greyhound?"),
    ("off", "How do I clean and re-season a cast iron skillet after cooking?"),
    ("off", "When should garlic cloves be planted for a summer harvest?"),
    ("off", "What can I do to help a newborn baby with hiccups?"),
]
with open(os.path.join(HERE, "unanswerable.jsonl"), "w", encoding="utf-8") as fh:
    for n, (kind, q) in enumerate(U, 1):
        fh.write(json.dumps({"id": f"u{n:02d}", "query": q, "kind": kind}, ensure_ascii=False) + "\n")

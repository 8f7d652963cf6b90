#!/usr/bin/env python3
"""Write unanswerable.jsonl.  check_gt.py holds, for each question, key-term regexes
(UNANSWERABLE_TERMS) that must not occur anywhere in the corpus, as evidence the manual
does not answer it.  `near` questions are Debian-packaging topics the Policy Manual leaves
to other documents and tools; `off` questions are off-topic."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
U = [
    ("near", "How do I set up a git-buildpackage workflow with pristine-tar for my package repository?"),
    ("near", "How do I build my package in a clean chroot with sbuild or pbuilder before uploading?"),
    ("near", "How do I sign the .changes file with debsign and push the upload with dput?"),
    ("near", "How do I add a lintian-overrides file to silence a lintian tag I disagree with?"),
    ("near", "How do I package a Python library with pybuild and dh-python?"),
    ("near", "How do I file an ITP bug against wnpp before packaging new software?"),
    ("near", "How do I package a Rust crate for Debian with debcargo?"),
    ("near", "How do I package a Go program with dh-golang and vendored modules?"),
    ("near", "How do I package a Node.js library from npm for Debian?"),
    ("near", "How do I skip the upstream test suite with override_dh_auto_test in a dh-style rules file?"),
    ("near", "How do I host my own APT repository for my built packages with reprepro?"),
    ("near", "How do I pin a package from backports with an apt preferences file so it is preferred?"),
    ("near", "Should my package ship a systemd timer unit instead of a cron job, and how do I install it?"),
    ("near", "Why is my package not migrating to testing, and how do I read the britney excuses?"),
    ("near", "How do I ship and load an AppArmor profile for the daemon in my package?"),
    ("near", "How do I package an out-of-tree kernel module so it rebuilds with DKMS?"),
    ("near", "How do I enable the Salsa CI pipeline for my packaging repository on GitLab?"),
    ("near", "How do I turn on hardening build flags such as PIE and stack protector with DEB_BUILD_MAINT_OPTIONS?"),
    ("near", "Which DEP-3 header fields should a patch in debian/patches carry, such as Forwarded and Origin?"),
    ("near", "When should a library package be marked Multi-Arch: same rather than Multi-Arch: foreign?"),
    ("near", "How do I test installation, upgrade and purge of my package with piuparts?"),
    ("off", "What is a good recipe for a vegetarian lasagna for eight people?"),
    ("off", "How many hours of sleep does a teenager need each night?"),
    ("off", "When is the best time of year to see the northern lights in Norway?"),
    ("off", "How do I get a red wine stain out of a wool carpet?"),
    ("off", "Which chess opening should a beginner learn first, the Italian or the Sicilian?"),
    ("off", "How do I change the engine oil on a 2015 Honda Civic?"),
    ("off", "Can someone explain the offside rule in football in simple terms?"),
    ("off", "How long should I steep green tea so that it does not turn bitter?"),
    ("off", "How do I teach my dog to stop pulling on the leash during walks?"),
]
with open(os.path.join(HERE, "unanswerable.jsonl"), "w", encoding="utf-8") as fh:
    for n, (kind, q) in enumerate(U, 1):
        fh.write(json.dumps({"id": f"u{n:02d}", "query": q, "kind": kind}, ensure_ascii=False) + "\n")

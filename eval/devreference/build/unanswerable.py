#!/usr/bin/env python3
"""Write unanswerable.jsonl.  check_gt.py holds, for each question, key-term regexes
(UNANSWERABLE_TERMS) that must not occur anywhere in the corpus (the book's canonical text),
as evidence the book does not answer it.  `near` questions are Debian packaging and
contribution tasks that the Developer's Reference does not treat (reproducible builds, a
language team's packaging tools, Salsa CI, AppStream, multiarch, symbols files, DKMS, dgit,
popularity contest, xvfb, ...); `off` questions are off-topic, none of them another corpus's."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
U = [
    ("near", "How do I check that my package builds reproducibly by running reprotest on it?"),
    ("near", "How do I package a Rust crate for Debian with debcargo?"),
    ("near", "How do I turn on the Salsa CI pipeline for my packaging repository by adding a .gitlab-ci.yml?"),
    ("near", "How do I add an AppStream metainfo file so my application shows up in software centres?"),
    ("near", "How do I package a Python module with pybuild and dh-python?"),
    ("near", "How do I make my package install and enable its systemd unit with dh_installsystemd?"),
    ("near", "How do I start packaging a Go program with dh-make-golang?"),
    ("near", "How do I ship bash completion for my command and install it with dh_bash-completion?"),
    ("near", "How do I mark a library package Multi-Arch: same so that its i386 and amd64 versions can be installed together?"),
    ("near", "How do I update the symbols file of a shared library after upstream adds new functions, with dpkg-gensymbols?"),
    ("near", "How do I ship an out-of-tree kernel module that is rebuilt automatically with DKMS?"),
    ("near", "How do I upload a package straight from my git repository with dgit push?"),
    ("near", "How do I find out how many people have my package installed from popularity-contest statistics?"),
    ("near", "How do I package a Node.js module from npm with npm2deb?"),
    ("near", "How do I add an initramfs hook so my package's binary is available in early boot?"),
    ("near", "How do I enable the hardening build flags such as PIE and fortify with dpkg-buildflags?"),
    ("near", "How do I set up a local partial mirror of the archive with debmirror?"),
    ("near", "How do I search the source code of every package in the archive with Debian Code Search?"),
    ("near", "How do I get Debian to reimburse my travel to a DebConf through SPI?"),
    ("near", "How do I sign my uploads with an OpenPGP key stored on a YubiKey smartcard?"),
    ("near", "How do I run my package's graphical test suite headless under xvfb-run during the build?"),
    ("off", "How many stitches should I cast on for a knitted baby hat?"),
    ("off", "What is the difference between a latte and a flat white?"),
    ("off", "How do I get a new puppy used to sleeping in a crate at night?"),
    ("off", "How do I repair a puncture in an inflatable paddleboard?"),
    ("off", "Which constellations can I see with the naked eye on a winter night?"),
    ("off", "How long should a sponge cake bake at 180 degrees?"),
    ("off", "What should I pack for a week of hill walking in the Scottish Highlands?"),
    ("off", "How do I get rid of greenfly on my rose bushes without spraying chemicals?"),
    ("off", "How does scoring work in ten-pin bowling, strikes and spares included?"),
]
with open(os.path.join(HERE, "unanswerable.jsonl"), "w", encoding="utf-8") as fh:
    for n, (kind, q) in enumerate(U, 1):
        fh.write(json.dumps({"id": f"u{n:02d}", "query": q, "kind": kind}, ensure_ascii=False) + "\n")

#!/usr/bin/env python3
"""Write unanswerable.jsonl.  check_gt.py holds, for each question, key-term regexes
(UNANSWERABLE_TERMS) that must not occur anywhere in the corpus, as evidence the pages
do not answer it.  `near` questions are npm and Node.js packaging topics that npm's
documentation covers on pages left out of this corpus (unpublish policy, access tokens,
trusted publishing, the cache, npm doctor, SBOMs, proxies, 2FA, webhooks, ...) or that it
does not cover at all (TypeScript declarations, dual CommonJS/ESM packages, rate limits,
name disputes, download counts); `off` questions are off-topic."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
U = [
    ("near", "Within how many hours of publishing may I still take a package off the public registry, and what rules apply after that?"),
    ("near", "How do I create a granular access token for CI that only works from our build servers' CIDR range?"),
    ("near", "How do I set up trusted publishing from GitHub Actions with OIDC so that no long-lived npm token is stored?"),
    ("near", "How do I check the integrity of npm's local cache and garbage-collect data it no longer needs?"),
    ("near", "What does npm doctor check about my environment, and how do I read its output?"),
    ("near", "How do I generate a CycloneDX or SPDX software bill of materials (SBOM) for my project with npm?"),
    ("near", "How do I make npm go through our corporate HTTP proxy, and which hosts can bypass it?"),
    ("near", "Which package.json field tells TypeScript where my bundled .d.ts declaration files are?"),
    ("near", "How do I publish a package that works with both require and import without running into the dual package hazard?"),
    ("near", "My CI gets HTTP 429 Too Many Requests from the registry; what are the rate limits and how do I stay under them?"),
    ("near", "Someone is squatting on the package name I want; how do I file a name dispute?"),
    ("near", "How do I turn on two-factor authentication for my account so that it is required for both login and writes?"),
    ("near", "How do I enable shell tab completion for npm commands in bash or zsh?"),
    ("near", "Can the registry call a webhook on my server every time a package I follow publishes a new version?"),
    ("near", "How do I stage a release so that a second maintainer has to approve it before it goes live?"),
    ("near", "Where can I see how many times my package was downloaded last week?"),
    ("near", "How do I enforce SAML single sign-on for the members of our npm organization?"),
    ("near", "How do I star a package I like and list the packages I have starred?"),
    ("near", "How do I check which account I'm currently logged in as on the command line?"),
    ("near", "How do I change or reset my npm account password from the terminal?"),
    ("near", "How do I test whether npm can reach the configured registry at all before debugging an install?"),
    ("off", "How often should the filter of a window air conditioner be cleaned?"),
    ("off", "What is the easiest way to learn to juggle three balls?"),
    ("off", "How do I safely remove a splinter from a child's finger?"),
    ("off", "How do I sharpen a kitchen knife on a whetstone?"),
    ("off", "What should a pet rabbit eat every day?"),
    ("off", "How do I fold a fitted sheet neatly?"),
    ("off", "How long does it take an adult beginner to learn to swim freestyle?"),
    ("off", "Which beginner telescope is good enough to see the rings of Saturn?"),
    ("off", "How do I patch a small hole in drywall before painting?"),
]
with open(os.path.join(HERE, "unanswerable.jsonl"), "w", encoding="utf-8") as fh:
    for n, (kind, q) in enumerate(U, 1):
        fh.write(json.dumps({"id": f"u{n:02d}", "query": q, "kind": kind}, ensure_ascii=False) + "\n")

#!/usr/bin/env python3
"""Write questions.jsonl: each needle is cut verbatim from the book's canonical text
(citeline's EPUB extraction of docs/01-developers-reference.epub, not the XHTML) between a
start marker and an end marker (both included), so nothing is retyped by hand.
The queries were written by hand from the text alone (no retrieval was run).

None is in a footnote: the book's eight footnotes (Sphinx's <aside class="footnote">) are
dropped by the extractor today (see README.md), and a needle is not taken next to one.

Run with citeline's interpreter: /work/main/.venv/bin/python build/make_gt.py"""
import json
import os
import sys
from pathlib import Path

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# build/ holds copy.py, which would shadow the standard library's `copy`
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.join(HERE, "build")]
sys.path.insert(0, os.path.join(HERE, "..", "..", "src"))
from citeline.extract import extractor_for  # noqa: E402

DOC = "01-developers-reference.epub"


def canonical(name):
    p = Path(HERE, "docs", name)
    return extractor_for(p).extract(p, name).text


# (start marker, end marker, course, ticket), in the book's order
GT = [
    # 1. Scope of This Document
    ("It should be clear that this reference does not discuss the technical details", "nor how to generate them.",
     "Does this manual teach the technical side of building .deb files?",
     "I opened the developer's reference hoping to learn how to make my first .deb, but I can't find any build instructions in it. Am I looking in the wrong place?"),
    # 2. Applying to Become a Member
    ("Your key length must be greater than 2048 bits", "(4096 bits is preferred)",
     "What size of OpenPGP key is required to register as a Debian member?",
     "I still have an old 1024-bit gpg key from university, can I use that for my new member application or do I need a new one?"),
    ("One pitfall could be a too-generic local part in your email address", "should be avoided",
     "Which kinds of email address are discouraged when subscribing to the Debian lists?",
     "tried to subscribe to debian-devel from admin@mycompany.example and it just never worked, is something wrong with that address?"),
    # 3. Debian Developer's Duties
    ("you should mention it clearly in the bug report and you should tag the bug help", "to chime in",
     "What should a maintainer do when a release-critical bug in their package cannot be fixed quickly?",
     "there's a serious bug open on my package for ten days now and I honestly don't know how to fix it; what am I expected to do so it doesn't look like I ignored it?"),
    ("Generate and make a copy (best also in paper form) of your revocation certificate", "if your key is lost.",
     "How should a developer prepare for losing access to their signing key?",
     "paranoid about my laptop dying and taking my only gpg key with it. What should I have put aside in advance?"),
    ("First send a mail to debian-private@lists.debian.org with [VAC]", "to the subject of your message",
     "How do developers announce an upcoming absence to the rest of the project?",
     "going offline for three weeks on a trek next month, who do I tell and is there some special format for the email?"),
    ("Retired developers with a \"removed\" account", "full NM again.",
     "What must a former developer whose account was removed, not made emeritus, do to return?",
     "I just disappeared from Debian years ago without doing the proper goodbye steps; now I want back in. Do I have to redo the whole application?"),
    # 4. Resources for Debian Members
    ("When replying to messages on the mailing list, please do not send a carbon copy", "explicitly request to be copied.",
     "Should replies on the Debian mailing lists also be sent directly to the person who wrote the message?",
     "someone got annoyed at me for hitting reply-all on a debian-devel thread. What's the etiquette there?"),
    ("The update to testing is launched twice each day", "have been installed.",
     "How often are packages moved from unstable into the testing distribution?",
     "my upload got accepted into sid this morning, how many times a day does the migration to testing actually run?"),
    ("the experimental packages are periodically removed once you upload the package in unstable", "with a higher version number.",
     "What happens to a package in experimental once a newer version reaches unstable?",
     "do I have to ask the ftp team to clean up my old experimental upload now that the final version is in sid?"),
    # 5. Managing Packages
    ("You should set the subject of the bug to ITP: foo -- short description", "for foo.",
     "How should the title of a bug announcing the intent to package new software be written?",
     "want to tell everyone I'm packaging a new tool before I start, what do I put as the title of the wnpp report?"),
    ("Normally, a package should not be uploaded if it causes lintian to emit errors", "(they will start with E).",
     "Can a package be uploaded while the lintian checker still reports errors about it?",
     "lintian shows a couple of 'E:' lines on my package but the thing builds and runs fine, is it ok to upload anyway?"),
    ("Please note that you should transfer the changes file last.", "the changes file last.",
     "In which order should the files of an upload be sent to the upload queue?",
     "uploading by plain ftp and my upload got rejected saying files were missing, though they all arrived in the end"),
    ("This is done through automatic uploading to ftp.upload.debian.org in upload-directory DELAYED", "(X between 0 and 15).",
     "What range of waiting periods does the deferred upload queue allow?",
     "can I park an upload in the delayed queue for three weeks so it lands after my vacation?"),
    ("You should never close bugs via the bug server close command", "control@bugs.debian.org.",
     "Is it acceptable to mark a report done through the BTS's command mail address?",
     "I've been closing fixed bugs by mailing 'close 12345' to the control address, a colleague says that's wrong; why?"),
    ("Security advisories are only issued for the current, released stable distribution", "not for testing or unstable.",
     "For which Debian distributions does the security team publish advisories?",
     "a vulnerability got fixed in my package in sid, why is there no DSA announcement for it?"),
    ("If you just intend to give the package away, but you can keep maintainership for the moment", "RFA: package -- short description.",
     "How does a maintainer signal that they want someone else to take over a package they still look after?",
     "no time for my package anymore but I can keep it alive a few more months until someone takes it; what kind of wnpp bug is that?"),
    ("It is not OK to simply take over a package without assent of the current maintainer", "package hijacking.",
     "May a developer start maintaining someone else's package without asking them?",
     "the maintainer of a tool I use hasn't replied in weeks, can I just upload a new version with my name in Maintainer?"),
    ("Upload fixing only release-critical and important bugs: 5 days", "important bugs: 5 days",
     "How long should a non-maintainer upload that fixes RC and important bugs wait in the deferred queue?",
     "doing an NMU that fixes one serious and two important bugs, what DELAYED/N should I pick?"),
    ("In case you uploaded foo_1.2-1.1_all.changes to a DELAYED queue", "to cancel your upload.",
     "How can a non-maintainer upload waiting in the deferred queue be withdrawn?",
     "oops, I sent an NMU to the delayed queue and the maintainer just fixed it themselves; how do I pull mine back out?"),
    ("you may upload the new release of the package into the DELAYED queue", "with a minimum delay of seven days.",
     "After the waiting period of a salvaging request passes without reply, how is the new version uploaded?",
     "filed an ITS bug three weeks ago and nobody answered. Can I upload straight to unstable now?"),
    ("Therefore, an upload to stable-backports, implies a willingness to maintain", "from its initial release.",
     "How long is someone who backports a package to stable-backports committed to looking after it?",
     "I'd like to put a newer version of our tool into bullseye-backports for a customer, but how long am I signing up to keep that working?"),
    # 6. Best Packaging Practices
    ("Policy says the synopsis line (the short description) must be concise", "but also informative.",
     "What rules apply to the one-line summary of a package in debian/control?",
     "is it fine if the short Description line starts with the package's own name, like 'foo - foo is a tool for...'?"),
    ("The delays are currently 2, 5 or 10 days", "(high, medium or low).",
     "How does the urgency field of a changelog entry change how fast a package reaches testing?",
     "set my upload to urgency=high, how much sooner will it show up in testing than a normal one?"),
    ("The news will be displayed by tools like apt-listchanges", "all the rest of the changelogs.",
     "How are users shown the contents of a package's NEWS.Debian file?",
     "I put an important warning about a config change in NEWS.Debian; will anyone actually see it when they upgrade?"),
    ("Please remember that some translation teams have a formalized translate/review process", "considered as unreasonable.",
     "How much time should translators be given when their debconf translations are requested before an upload?",
     "I want to call for updated template translations and upload in three days, is that too short for the language teams?"),
    ("The package name for a automatic generated debug symbol package ends in -dbgsym.", "ends in -dbgsym.",
     "What are the automatically built debugging symbol packages called?",
     "where do I get gdb symbols for a Debian binary? I searched for a -dbg package and there isn't one"),
    # 7. Beyond Packaging
    ("Reporting a great number of bugs for the same problem on a great number of different packages", "is a deprecated practice.",
     "Is it acceptable to file the same bug against many packages at once?",
     "our checker found the same mistake in about 40 packages, should I just open a report on each one?"),
    ("they can NMU without prior notice if they upload their NMU to DELAYED/3-day at least", "DELAYED/3-day at least.",
     "What special rule for non-maintainer uploads applies at a bug squashing party?",
     "joining a BSP this weekend; do I really have to wait for the maintainer's OK before uploading fixes?"),
    # 8. Internationalization and Translations
    ("Keep in mind that this task takes time; at least one week", "reviewed and all.",
     "How long should a maintainer expect an update of an existing translation to take?",
     "I changed a few template strings and pinged the old translator yesterday; when can I reasonably expect the updated file back?"),
    # Appendix 1. Overview of Debian Maintainer Tools
    ("lintian-brush contains a set of scripts that can automatically fix", "common lintian issues in Debian packages.",
     "Is there a tool that repairs common packaging problems found by lintian by itself?",
     "lintian gives me a wall of warnings on an old package, is there something that can just fix the boring ones for me?"),
    ("In the past the compatibility level was defined in debian/compat", "like debhelper-compat (=12).",
     "How is the required debhelper version expressed in a modern source package?",
     "the package I adopted has a debian/compat file with 9 in it, is that still how you set the debhelper level?"),
]


def main():
    text = canonical(DOC)
    rows = []
    for n, (start, end, course, ticket) in enumerate(GT, 1):
        assert text.count(start) == 1, (n, "start marker not unique", start, text.count(start))
        a = text.index(start)
        b = text.find(end, a)
        assert b >= 0, (n, "end marker not found", end)
        needle = text[a:b + len(end)]
        rows.append({"id": f"q{n:02d}", "doc": DOC, "needle": needle,
                     "queries": {"course": course, "ticket": ticket}})
    with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    for r in rows:
        print(r["id"], len(r["needle"]), f"{text.index(r['needle']) / len(text):.2f}", repr(r["needle"])[:150])


if __name__ == "__main__":
    main()

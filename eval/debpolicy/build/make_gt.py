#!/usr/bin/env python3
"""Write questions.jsonl: each needle is cut verbatim from its document between a
start marker and an end marker (both included), so nothing is retyped by hand.
The queries were written by hand from the text alone (no retrieval was run)."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

GT = [
    ("01-about.md", "When translations of this document", "the English text takes precedence.",
     "If a translated version of the Policy Manual contradicts the original, which version is authoritative?",
     "the french version of debian policy says something different from what my sponsor quotes, which one counts?"),
    ("02-archive.md", "Programs whose authors encourage the user to make donations", "or something similar",
     "Can software that asks its users for donations be included in main?",
     "upstream shows a 'please donate' nag in the about box, does that stop my package from going into main?"),
    ("02-archive.md", "Two packages that both have a priority of `standard`", "not conflict with each other.",
     "Is it allowed for a pair of standard-priority (or more important) packages to be mutually exclusive?",
     "my package is Priority: standard and declares Conflicts with another standard one, the archive folks say that's not allowed?"),
    ("03-binary.md", "the\ndate-based portion of any upstream", "followed by a two-digit numeric date",
     "How should upstream versions built from dates be written so that they sort in the right order?",
     "upstream tags releases like 03Mar2024 and dpkg thinks an older snapshot is newer, how should I rewrite the version?"),
    ("03-binary.md", "The single line synopsis should be kept brief", "characters.",
     "What is the maximum length for the one-line short description of a package?",
     "lintian whines that my Description first line is too long, what's the actual limit?"),
    ("04-source.md", "For a package to have an old Standards-Version", "bug, however.",
     "Is a package with an outdated Standards-Version considered buggy for that reason alone?",
     "someone filed a bug saying my package declares policy 3.9.8 which is ancient, is that really a bug by itself?"),
    ("04-source.md", "For simple compound commands, such as changing directory", "separator is sufficient.",
     "In a makefile recipe, how do you make sure a cd followed by another command stops on errors?",
     "my rules file does cd build; make and the build keeps going even when the cd fails, how do I chain these safely?"),
    ("04-source.md", "The `clean` target cannot be used to remove files", "compatible with the DFSG.",
     "Can non-free files in the upstream tarball be dealt with by deleting them in the clean target?",
     "ftp-master rejected my upload because of non-DFSG files even though I rm them in debian/rules clean, why isn't that enough?"),
    ("04-source.md", "Packages in the Debian archive using the 3.0 (quilt)", "non-default series file.",
     "Are vendor-specific quilt series files such as debian/patches/ubuntu.series allowed in Debian?",
     "I keep a separate patch list for our derivative next to the normal one in debian/patches, is that ok in the archive?"),
    ("05-controlfields.md", "Field names are not case-sensitive", "using mixed case as shown below.",
     "Does letter case matter in control field names, and how are they conventionally written?",
     "does it matter if I write 'build-depends:' all lowercase in debian/control or will dpkg ignore it?"),
    ("05-controlfields.md", "They must be at least two characters long", "alphanumeric character.",
     "What minimum length and first character are required for a package name?",
     "tried to name my package 'x' and dpkg-source rejects it, also '-foo' fails, what are the naming rules?"),
    ("05-controlfields.md", "Epochs should not be used when a package", "rolled back.",
     "Which mechanism should be used instead of an epoch when reverting to an older upstream release?",
     "upstream 2.3 turned out broken and I need to go back to 2.2 in unstable, should I bump the epoch to 1:?"),
    ("05-controlfields.md", "A package control file must not have more than one", "field.",
     "Can a source package declare several Vcs-* fields for different version control systems?",
     "we mirror the packaging on both git and bzr, can I list Vcs-Git and Vcs-Bzr together in debian/control?"),
    ("06-maintainerscripts.md", "It is necessary for the error recovery procedures", "idempotent.",
     "Why must maintainer scripts be safe to run more than once?",
     "my postinst creates a user and blows up the second time dpkg runs it after a failed install, is that my bug?"),
    ("06-maintainerscripts.md", "A directory will never be replaced by a symbolic link", "follow the symlink if there is one.",
     "What does dpkg do when a package ships a symlink where the system already has a real directory?",
     "I changed /usr/share/foo from a dir to a symlink in the new version but after upgrade it's still a plain directory??"),
    ("07-relationships.md", "This means that architecture restrictions must", "packages (`Architecture: all`).",
     "Can a package built for Architecture: all use [arch] qualifiers in its Depends?",
     "my arch-indep package has Depends: foo [amd64] and on i386 the dependency vanishes from the built deb, why?"),
    ("07-relationships.md", "Having similar functionality or", "with that package.",
     "Is offering the same features as another package a valid reason to declare a conflict with it?",
     "my new image viewer does basically what eog does, should I add Conflicts: eog so users don't install both?"),
    ("07-relationships.md", "To specify which of a set of real packages", "before the virtual one.",
     "How do you choose which concrete provider is preferred when depending on a virtual package?",
     "I depend on mail-transport-agent and apt keeps pulling in some random MTA instead of postfix, how do I pick the default?"),
    ("08-sharedlibs.md", "Shared libraries should not be installed executable", "results in a core dump.",
     "Which file mode should shared library files be installed with, and why not the execute bit?",
     "lintian says shlib-with-executable-bit on my libfoo.so.1, does a .so really need chmod +x or not?"),
    ("08-sharedlibs.md", "If the package provides Ada Library Information", "attempt to recompile them.",
     "What mode must Ada compiler metadata from a -dev package be shipped with?",
     "users of my Ada binding see gnatmake trying to rebuild my library's .ali files and failing with permission denied, what should they be?"),
    ("08-sharedlibs.md", "A package should\ndepend on the libraries it directly uses", "uses indirectly.",
     "Should a binary declare dependencies on libraries it only pulls in transitively through another library?",
     "my program links libpng which links zlib, do I have to add zlib1g to Depends by hand too?"),
    ("08-sharedlibs.md", "Previously, `${Source-Version}` was used", "deprecated since dpkg 1.13.19.",
     "Which older substitution variable did ${binary:Version} replace, and since when is it deprecated?",
     "dpkg-gencontrol warns that a variable in my -dev package's Depends is obsolete, it's the one with Source in the name, what do I use now?"),
    ("09-opersys.md", "Packages for 64-bit architectures must not install files", "or in a subdirectory of it.",
     "Is the lib64 directory under /usr a valid install location on amd64 and similar ports?",
     "upstream's cmake puts everything into /usr/lib64 on my amd64 build, is that acceptable or must I move it?"),
    ("09-opersys.md", "When maintainers choose a new hardcoded", "with an underscore.",
     "What naming convention applies to new system user accounts created for a package?",
     "my daemon's postinst does adduser --system myservice, someone told me the name is wrong, what's the convention?"),
    ("09-opersys.md", "Instead, they should be placed in a file in `/etc/default`", "same base name as the `init.d` script.",
     "Where should tunable settings for an init script live so admins do not need to edit the script itself?",
     "admins keep losing their changes to variables at the top of /etc/init.d/mydaemon on every upgrade, where should those go?"),
    ("09-opersys.md", "A cron job file name must not include", "cause cron to ignore the file.",
     "Which characters are forbidden in the names of files dropped into /etc/cron.d and why?",
     "I installed /etc/cron.d/foo.daily and the job never runs, no errors in syslog, what's wrong?"),
    ("10-files.md", "When scripts are installed into a directory in the system PATH", "currently used to implement it.",
     "Should a program installed in /usr/bin keep a language suffix such as .py in its name?",
     "lintian flags my /usr/bin/backup-tool.sh, why does it care what the script is called?"),
    ("10-files.md", "A symbolic link pointing to a compressed file", "as the referenced file.",
     "What naming rule applies to a symlink whose target is a gzip-compressed file?",
     "I linked README.gz to docs/manual.txt.gz as /usr/share/doc/foo/README and zless shows garbage, what's the rule?"),
    ("10-files.md", "They should not be made\nunreadable", "achieves no\nextra security",
     "Is it worthwhile to remove read permission from setuid binaries for security?",
     "our security audit wants the suid helper chmod 4711 so nobody can copy it, will the maintainer accept that patch?"),
    ("11-customized-programs.md", "A program may also use the VISUAL", "user's choice of editor.",
     "Apart from EDITOR, what else can tell a program which editor someone prefers?",
     "my tool ignores that I set VISUAL=vim and opens nano, is it supposed to look at that?"),
    ("11-customized-programs.md", "They must not be made\nset-*user*-id", "causes security problems.",
     "Why may games that write high-score files not be installed setuid?",
     "my game needs to write a shared scores file, can I just make the binary suid root?"),
    ("12-docs.md", "This file must neither be compressed", "nor be a symbolic link.",
     "Are there restrictions on compressing or symlinking the copyright file in /usr/share/doc?",
     "dh_compress gzipped my copyright and I also tried linking it to the -common package's one, lintian hates both, why?"),
]


def main():
    rows = []
    for n, (doc, start, end, course, ticket) in enumerate(GT, 1):
        text = open(os.path.join(HERE, "docs", doc), encoding="utf-8").read()
        assert text.count(start) == 1, (n, "start marker not unique", start)
        a = text.index(start)
        b = text.index(end, a) + len(end)
        rows.append({"id": f"q{n:02d}", "doc": doc, "needle": text[a:b],
                     "queries": {"course": course, "ticket": ticket}})
    with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    for r in rows:
        print(r["id"], r["doc"], len(r["needle"]), repr(r["needle"])[:300])


if __name__ == "__main__":
    main()

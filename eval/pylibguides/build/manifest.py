#!/usr/bin/env python3
"""Write MANIFEST.json from docs/ (versions read from the vendored projects' version
files), each document measured by check_gt.py's PyLibGuides (through
gtcheck.manifest_documents), the code that checks it: chars = len(text); title = the
document's first level-1 reStructuredText section title; sections = its level-2 section
titles (the top-level sections under the title).  Levels follow reStructuredText: one level
per adornment style (underline character, with or without overline) in order of first use,
read as citeline's loader reads them (gtcheck.rst_headings)."""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(HERE))
import gtcheck  # noqa: E402

CHECK = gtcheck.load_check(HERE, "pylibguides_check")

SRC_ROOT = "/usr/lib/google-cloud-sdk/platform/gsutil/third_party"


def _version(path, pattern):
    with open(os.path.join(SRC_ROOT, path), encoding="utf-8") as fh:
        return ".".join(re.search(pattern, fh.read()).groups())


def versions():
    """The vendored versions, read from each project's version file."""
    return {
        "requests": _version("requests/src/requests/__version__.py", r'__version__ = "([\d.]+)"'),
        "urllib3": _version("urllib3/src/urllib3/_version.py", r'__version__ = "([\d.]+)"'),
        "google-auth": _version("google-auth-library-python/google/auth/version.py",
                                r'__version__ = "([\d.]+)"'),
        "pyparsing": _version("pyparsing/pyparsing/__init__.py",
                              r"__version_info__ = version_info\((\d+), (\d+), (\d+)"),
    }


def main():
    v = versions()
    manifest = gtcheck.write_manifest(
        HERE, gtcheck.manifest_documents(CHECK.PyLibGuides, HERE),
        source="The reStructuredText user-guide sources of four Python libraries, as vendored "
               "by the Google Cloud SDK's gsutil (/usr/lib/google-cloud-sdk/platform/gsutil/"
               "third_party/): requests docs/user/quickstart.rst, advanced.rst, "
               "authentication.rst, docs/community/faq.rst, recommended.rst; urllib3 "
               "docs/user-guide.rst, advanced-usage.rst, v2-migration-guide.rst; "
               "google-auth-library-python docs/user-guide.rst, oauth2client-deprecation.rst; "
               "pyparsing docs/HowToUsePyparsing.rst, whats_new_in_3_0_0.rst; copied "
               "byte-for-byte; https://github.com/psf/requests, "
               "https://github.com/urllib3/urllib3, "
               "https://github.com/googleapis/google-auth-library-python, "
               "https://github.com/pyparsing/pyparsing",
        commit=", ".join(f"{k} {x}" for k, x in v.items()),
        license=["Apache-2.0 (requests)", "MIT (urllib3)", "Apache-2.0 (google-auth)",
                 "MIT (pyparsing)"],
        attribution="requests documentation, Copyright 2019 Kenneth Reitz (Apache-2.0, NOTICE "
                    "reproduced in LICENSE); urllib3 documentation, Copyright (c) 2008-2020 "
                    "Andrey Petrov and contributors (MIT); google-auth documentation, "
                    "Copyright 2016 Google, Inc. (Apache-2.0); pyparsing documentation, "
                    "Copyright 2003-2023 Paul McGuire (MIT); unmodified .rst sources, see "
                    "LICENSE")
    print(json.dumps(manifest, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()

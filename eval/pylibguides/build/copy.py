#!/usr/bin/env python3
"""Copy the chosen user-guide pages of four Python libraries byte-for-byte into docs/
(or into the folder given as the first argument), renamed with a numeric prefix and the
project name.  No conversion: citeline reads reStructuredText, so the raw .rst file is
the canonical text.  Sources: the libraries as vendored by the Google Cloud SDK's gsutil
(/usr/lib/google-cloud-sdk/platform/gsutil/third_party/)."""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC_ROOT = "/usr/lib/google-cloud-sdk/platform/gsutil/third_party"
PAGES = [
    ("requests/docs/user/quickstart.rst", "requests-quickstart"),
    ("requests/docs/user/advanced.rst", "requests-advanced"),
    ("requests/docs/user/authentication.rst", "requests-authentication"),
    ("requests/docs/community/faq.rst", "requests-faq"),
    ("requests/docs/community/recommended.rst", "requests-recommended"),
    ("urllib3/docs/user-guide.rst", "urllib3-user-guide"),
    ("urllib3/docs/advanced-usage.rst", "urllib3-advanced-usage"),
    ("urllib3/docs/v2-migration-guide.rst", "urllib3-v2-migration-guide"),
    ("google-auth-library-python/docs/user-guide.rst", "google-auth-user-guide"),
    ("google-auth-library-python/docs/oauth2client-deprecation.rst",
     "google-auth-oauth2client-deprecation"),
    ("pyparsing/docs/HowToUsePyparsing.rst", "pyparsing-how-to-use-pyparsing"),
    ("pyparsing/docs/whats_new_in_3_0_0.rst", "pyparsing-whats-new-in-3-0-0"),
]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "docs")
    os.makedirs(out, exist_ok=True)
    for n, (src, name) in enumerate(PAGES, 1):
        dest = os.path.join(out, f"{n:02d}-{name}.rst")
        shutil.copyfile(os.path.join(SRC_ROOT, src), dest)
        print(dest, os.path.getsize(dest))


if __name__ == "__main__":
    main()

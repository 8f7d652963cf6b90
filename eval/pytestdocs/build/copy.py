#!/usr/bin/env python3
"""Copy the chosen pytest documentation pages byte-for-byte into docs/ (or into the
folder given as the first argument), renamed with a numeric prefix for reading order.
No conversion: citeline reads reStructuredText, so the raw .rst file is the canonical
text.  Source: pytest's sdist from PyPI (``pip download --no-binary :all: --no-deps
pytest==9.2.0``), read straight from the tarball; its path is $PYTEST_SDIST or
/tmp/rstsrc/pytest-9.2.0.tar.gz, and its SHA-256 is checked first."""
import hashlib
import os
import sys
import tarfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SDIST = os.environ.get("PYTEST_SDIST", "/tmp/rstsrc/pytest-9.2.0.tar.gz")
SDIST_SHA256 = "97c4f3b1f3c7414aa36465e09b8220f1d03627993bd51b1282e193753c80557b"
ROOT = "pytest-9.2.0/doc/en/"
PAGES = [
    ("getting-started.rst", "getting-started"),
    ("how-to/usage.rst", "how-to-usage"),
    ("how-to/assert.rst", "how-to-assert"),
    ("how-to/fixtures.rst", "how-to-fixtures"),
    ("how-to/mark.rst", "how-to-mark"),
    ("how-to/parametrize.rst", "how-to-parametrize"),
    ("how-to/skipping.rst", "how-to-skipping"),
    ("how-to/tmp_path.rst", "how-to-tmp-path"),
    ("how-to/monkeypatch.rst", "how-to-monkeypatch"),
    ("how-to/capture-stdout-stderr.rst", "how-to-capture-stdout-stderr"),
    ("how-to/capture-warnings.rst", "how-to-capture-warnings"),
    ("how-to/logging.rst", "how-to-logging"),
    ("how-to/doctest.rst", "how-to-doctest"),
    ("how-to/cache.rst", "how-to-cache"),
    ("how-to/output.rst", "how-to-output"),
    ("how-to/failures.rst", "how-to-failures"),
    ("how-to/subtests.rst", "how-to-subtests"),
    ("how-to/unittest.rst", "how-to-unittest"),
    ("how-to/xunit_setup.rst", "how-to-xunit-setup"),
    ("how-to/existingtestsuite.rst", "how-to-existingtestsuite"),
    ("how-to/plugins.rst", "how-to-plugins"),
    ("how-to/writing_plugins.rst", "how-to-writing-plugins"),
    ("how-to/writing_hook_functions.rst", "how-to-writing-hook-functions"),
    ("explanation/anatomy.rst", "explanation-anatomy"),
    ("explanation/fixtures.rst", "explanation-fixtures"),
    ("explanation/goodpractices.rst", "explanation-goodpractices"),
    ("explanation/pythonpath.rst", "explanation-pythonpath"),
    ("explanation/types.rst", "explanation-types"),
    ("explanation/flaky.rst", "explanation-flaky"),
    ("explanation/ci.rst", "explanation-ci"),
    ("backwards-compatibility.rst", "backwards-compatibility"),
]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "docs")
    with open(SDIST, "rb") as fh:
        digest = hashlib.sha256(fh.read()).hexdigest()
    if digest != SDIST_SHA256:
        sys.exit(f"{SDIST}: sha256 {digest} != {SDIST_SHA256}")
    os.makedirs(out, exist_ok=True)
    with tarfile.open(SDIST, "r:gz") as tar:
        for n, (src, name) in enumerate(PAGES, 1):
            data = tar.extractfile(ROOT + src).read()
            dest = os.path.join(out, f"{n:02d}-{name}.rst")
            with open(dest, "wb") as fh:
                fh.write(data)
            print(dest, len(data))


if __name__ == "__main__":
    main()

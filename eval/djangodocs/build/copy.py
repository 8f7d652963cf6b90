#!/usr/bin/env python3
"""Copy the selected Django 3.2 topic-guide pages byte-for-byte into docs/ (or into the folder
given as the first argument), renamed with a numeric prefix in reading order.

Source: the Sphinx HTML of Debian's python-django-doc package (bookworm,
3:3.2.25-0+deb12u3), installed at /usr/share/doc/python-django-doc/html/ or unpacked with
  cd /tmp && apt-get download python-django-doc && dpkg-deb -x python-django-doc_*.deb djangodoc
(then under /tmp/djangodoc/usr/share/doc/python-django-doc/html/). The environment variable
DJANGODOC_HTML overrides the location. Nothing is converted and no asset (_static/, images)
is copied."""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CANDIDATES = [
    os.environ.get("DJANGODOC_HTML", ""),
    "/usr/share/doc/python-django-doc/html",
    "/tmp/djangodoc/usr/share/doc/python-django-doc/html",
]

# (target name, source file under html/), in the order of topics/index.html
PAGES = [
    ("01-db-queries.html", "topics/db/queries.html"),
    ("02-db-aggregation.html", "topics/db/aggregation.html"),
    ("03-db-managers.html", "topics/db/managers.html"),
    ("04-db-transactions.html", "topics/db/transactions.html"),
    ("05-db-optimization.html", "topics/db/optimization.html"),
    ("06-http-file-uploads.html", "topics/http/file-uploads.html"),
    ("07-http-sessions.html", "topics/http/sessions.html"),
    ("08-forms-index.html", "topics/forms/index.html"),
    ("09-forms-modelforms.html", "topics/forms/modelforms.html"),
    ("10-migrations.html", "topics/migrations.html"),
    ("11-testing-overview.html", "topics/testing/overview.html"),
    ("12-testing-tools.html", "topics/testing/tools.html"),
    ("13-auth-default.html", "topics/auth/default.html"),
    ("14-auth-customizing.html", "topics/auth/customizing.html"),
    ("15-cache.html", "topics/cache.html"),
    ("16-conditional-view-processing.html", "topics/conditional-view-processing.html"),
    ("17-email.html", "topics/email.html"),
    ("18-i18n-timezones.html", "topics/i18n/timezones.html"),
    ("19-logging.html", "topics/logging.html"),
    ("20-pagination.html", "topics/pagination.html"),
    ("21-security.html", "topics/security.html"),
    ("22-signals.html", "topics/signals.html"),
    ("23-async.html", "topics/async.html"),
]


def source_dir():
    for d in CANDIDATES:
        if d and os.path.isfile(os.path.join(d, "topics", "index.html")) and os.path.isfile(
                os.path.join(d, "contents.html")):
            return d
    return None


def main():
    src = source_dir()
    if src is None:
        sys.exit("python-django-doc HTML not found (set DJANGODOC_HTML)")
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "docs")
    os.makedirs(out, exist_ok=True)
    for name, page in PAGES:
        shutil.copyfile(os.path.join(src, page), os.path.join(out, name))


if __name__ == "__main__":
    main()

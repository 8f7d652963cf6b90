#!/usr/bin/env python3
"""Copy the selected PostgreSQL 15 documentation pages byte-for-byte into docs/ (or into
the folder given as the first argument), renamed with a numeric prefix in reading order.

Source: the DocBook HTML of Debian's postgresql-doc-15 package (bookworm-security,
15.20-0+deb12u1), installed at /usr/share/doc/postgresql-doc-15/html/ or unpacked with
  cd /tmp && apt-get download postgresql-doc-15 && dpkg-deb -x postgresql-doc-15_*.deb pgdoc
(then under /tmp/pgdoc/usr/share/doc/postgresql-doc-15/html/). The environment variable
PGDOC_HTML overrides the location. Nothing is converted and no asset (stylesheet.css,
images) is copied."""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CANDIDATES = [
    os.environ.get("PGDOC_HTML", ""),
    "/usr/share/doc/postgresql-doc-15/html",
    "/tmp/pgdoc/usr/share/doc/postgresql-doc-15/html",
]

# (target name, source file under html/), in the manual's reading order
PAGES = [
    ("01-ddl-constraints.html", "ddl-constraints.html"),
    ("02-ddl-priv.html", "ddl-priv.html"),
    ("03-ddl-partitioning.html", "ddl-partitioning.html"),
    ("04-queries-with.html", "queries-with.html"),
    ("05-indexes-types.html", "indexes-types.html"),
    ("06-indexes-partial.html", "indexes-partial.html"),
    ("07-indexes-index-only-scans.html", "indexes-index-only-scans.html"),
    ("08-transaction-iso.html", "transaction-iso.html"),
    ("09-explicit-locking.html", "explicit-locking.html"),
    ("10-using-explain.html", "using-explain.html"),
    ("11-planner-stats.html", "planner-stats.html"),
    ("12-populate.html", "populate.html"),
    ("13-kernel-resources.html", "kernel-resources.html"),
    ("14-upgrading.html", "upgrading.html"),
    ("15-ssl-tcp.html", "ssl-tcp.html"),
    ("16-runtime-config-resource.html", "runtime-config-resource.html"),
    ("17-runtime-config-wal.html", "runtime-config-wal.html"),
    ("18-runtime-config-autovacuum.html", "runtime-config-autovacuum.html"),
    ("19-auth-pg-hba-conf.html", "auth-pg-hba-conf.html"),
    ("20-role-attributes.html", "role-attributes.html"),
    ("21-routine-vacuuming.html", "routine-vacuuming.html"),
    ("22-backup-dump.html", "backup-dump.html"),
    ("23-continuous-archiving.html", "continuous-archiving.html"),
    ("24-warm-standby.html", "warm-standby.html"),
    ("25-hot-standby.html", "hot-standby.html"),
    ("26-wal-async-commit.html", "wal-async-commit.html"),
    ("27-wal-configuration.html", "wal-configuration.html"),
]


def source_dir():
    for d in CANDIDATES:
        if d and os.path.isfile(os.path.join(d, "legalnotice.html")):
            return d
    return None


def main():
    src = source_dir()
    if src is None:
        sys.exit("postgresql-doc-15 HTML not found (set PGDOC_HTML)")
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "docs")
    os.makedirs(out, exist_ok=True)
    for name, page in PAGES:
        shutil.copyfile(os.path.join(src, page), os.path.join(out, name))


if __name__ == "__main__":
    main()

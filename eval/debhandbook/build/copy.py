#!/usr/bin/env python3
"""Copy the selected pages of The Debian Administrator's Handbook byte-for-byte into docs/ (or
into the folder given as the first argument), renamed with a numeric prefix in reading order.

Source: the English HTML of Debian's debian-handbook package (bookworm, 11.20220922; the book's
edition for Debian 11 "bullseye", built with Publican from DocBook), installed at
/usr/share/doc/debian-handbook/html/en-US/ (apt-get install debian-handbook) or unpacked with
  cd /tmp && apt-get download debian-handbook && dpkg-deb -x debian-handbook_*.deb debhandbook
(then under /tmp/debhandbook/usr/share/doc/debian-handbook/html/en-US/). The environment
variable DEBHANDBOOK_HTML overrides the location. Nothing is converted and no asset
(Common_Content/, images/) is copied."""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CANDIDATES = [
    os.environ.get("DEBHANDBOOK_HTML", ""),
    "/usr/share/doc/debian-handbook/html/en-US",
    "/tmp/debhandbook/usr/share/doc/debian-handbook/html/en-US",
]

# (target name, source file under html/en-US/), in the book's order (index.html's table of
# contents): a chapter's own page holds its introduction and its first section (X.1), a
# sect.* page one section (X.Y)
PAGES = [
    ("01-manipulating-packages-with-dpkg.html", "sect.manipulating-packages-with-dpkg.html"),
    ("02-apt.html", "apt.html"),
    ("03-apt-get.html", "sect.apt-get.html"),
    ("04-dist-upgrade.html", "sect.dist-upgrade.html"),
    ("05-common-procedures.html", "sect.common-procedures.html"),
    ("06-network-config.html", "sect.network-config.html"),
    ("07-user-group-databases.html", "sect.user-group-databases.html"),
    ("08-config-bootloader.html", "sect.config-bootloader.html"),
    ("09-config-misc.html", "sect.config-misc.html"),
    ("10-kernel-compilation.html", "sect.kernel-compilation.html"),
    ("11-unix-services.html", "unix-services.html"),
    ("12-remote-login.html", "sect.remote-login.html"),
    ("13-rights-management.html", "sect.rights-management.html"),
    ("14-syslog.html", "sect.syslog.html"),
    ("15-task-scheduling-cron-atd.html", "sect.task-scheduling-cron-atd.html"),
    ("16-backup.html", "sect.backup.html"),
    ("17-hotplug.html", "sect.hotplug.html"),
    ("18-virtual-private-network.html", "sect.virtual-private-network.html"),
    ("19-domain-name-servers.html", "sect.domain-name-servers.html"),
    ("20-network-diagnosis-tools.html", "sect.network-diagnosis-tools.html"),
    ("21-network-services.html", "network-services.html"),
    ("22-http-web-server.html", "sect.http-web-server.html"),
    ("23-advanced-administration.html", "advanced-administration.html"),
    ("24-virtualization.html", "sect.virtualization.html"),
    ("25-monitoring.html", "sect.monitoring.html"),
    ("26-firewall-packet-filtering.html", "sect.firewall-packet-filtering.html"),
    ("27-supervision.html", "sect.supervision.html"),
    ("28-dealing-with-compromised-machine.html", "sect.dealing-with-compromised-machine.html"),
]


def source_dir():
    for d in CANDIDATES:
        if d and os.path.isfile(os.path.join(d, "index.html")) and os.path.isfile(
                os.path.join(d, "sect.apt-get.html")):
            return d
    return None


def main():
    src = source_dir()
    if src is None:
        sys.exit("debian-handbook HTML not found (set DEBHANDBOOK_HTML)")
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "docs")
    os.makedirs(out, exist_ok=True)
    for name, page in PAGES:
        shutil.copyfile(os.path.join(src, page), os.path.join(out, name))


if __name__ == "__main__":
    main()

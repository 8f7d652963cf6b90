#!/usr/bin/env python3
"""Copy the selected pages of the Apache HTTP Server 2.4 documentation byte-for-byte into
docs/ (or into the folder given as the first argument), renamed with a numeric prefix in the
manual's order.

Source: the English HTML of Debian's apache2-doc package (bookworm-security,
2.4.71-1~deb12u1), installed at /usr/share/doc/apache2-doc/manual/en/
(apt-get install --no-install-recommends apache2-doc) or unpacked with
  cd /tmp && apt-get download apache2-doc && dpkg-deb -x apache2-doc_*.deb apachedoc
(then under /tmp/apachedoc/usr/share/doc/apache2-doc/manual/en/). The environment variable
APACHEDOC_HTML overrides the location. Debian ships each language in its own folder with plain
.html names (upstream's tree names them bind.html.en, bind.html.fr, ... beside a type map);
nothing is converted and no asset (style/, images/) is copied."""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CANDIDATES = [
    os.environ.get("APACHEDOC_HTML", ""),
    "/usr/share/doc/apache2-doc/manual/en",
    "/tmp/apachedoc/usr/share/doc/apache2-doc/manual/en",
]

# (target name, source file under manual/en/), in the manual's order (sitemap.html; the
# "Getting Started" page, which the sitemap does not list, first, as index.html puts it)
PAGES = [
    ("01-getting-started.html", "getting-started.html"),
    ("02-stopping.html", "stopping.html"),
    ("03-configuring.html", "configuring.html"),
    ("04-sections.html", "sections.html"),
    ("05-caching.html", "caching.html"),
    ("06-logs.html", "logs.html"),
    ("07-urlmapping.html", "urlmapping.html"),
    ("08-dso.html", "dso.html"),
    ("09-content-negotiation.html", "content-negotiation.html"),
    ("10-env.html", "env.html"),
    ("11-suexec.html", "suexec.html"),
    ("12-vhosts-name-based.html", "vhosts/name-based.html"),
    ("13-vhosts-examples.html", "vhosts/examples.html"),
    ("14-vhosts-details.html", "vhosts/details.html"),
    ("15-rewrite-intro.html", "rewrite/intro.html"),
    ("16-rewrite-remapping.html", "rewrite/remapping.html"),
    ("17-rewrite-avoid.html", "rewrite/avoid.html"),
    ("18-ssl-intro.html", "ssl/ssl_intro.html"),
    ("19-ssl-howto.html", "ssl/ssl_howto.html"),
    ("20-howto-auth.html", "howto/auth.html"),
    ("21-howto-access.html", "howto/access.html"),
    ("22-howto-cgi.html", "howto/cgi.html"),
    ("23-howto-ssi.html", "howto/ssi.html"),
    ("24-howto-htaccess.html", "howto/htaccess.html"),
    ("25-howto-reverse-proxy.html", "howto/reverse_proxy.html"),
    ("26-howto-http2.html", "howto/http2.html"),
    ("27-perf-tuning.html", "misc/perf-tuning.html"),
    ("28-security-tips.html", "misc/security_tips.html"),
]


def source_dir():
    for d in CANDIDATES:
        if d and os.path.isfile(os.path.join(d, "sitemap.html")) and os.path.isfile(
                os.path.join(d, "howto", "reverse_proxy.html")):
            return d
    return None


def main():
    src = source_dir()
    if src is None:
        sys.exit("apache2-doc HTML not found (set APACHEDOC_HTML)")
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "docs")
    os.makedirs(out, exist_ok=True)
    for name, page in PAGES:
        shutil.copyfile(os.path.join(src, page), os.path.join(out, name))


if __name__ == "__main__":
    main()

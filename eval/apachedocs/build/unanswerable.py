#!/usr/bin/env python3
"""Write unanswerable.jsonl.  check_gt.py holds, for each question, key-term regexes
(UNANSWERABLE_TERMS) that must not occur anywhere in the corpus (the canonical texts), as
evidence the pages do not answer it.  `near` questions are web-server and HTTP tasks that the
28 chosen pages do not cover (other servers and proxies, protocols and headers the manual
does not treat, application deployment, platform security); `off` questions are off-topic."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
U = [
    ("near", "How do I configure HAProxy to health-check three backend web servers and take a dead one out of rotation?"),
    ("near", "How do I write a Varnish VCL rule that strips cookies from requests for images?"),
    ("near", "How do I translate my rewrite rules into an nginx server block that uses try_files?"),
    ("near", "How do I enable HTTP/3 over QUIC on my web server?"),
    ("near", "How do I serve Brotli-compressed responses and fall back to gzip for older browsers?"),
    ("near", "How do I let a single-page app on another domain call my API, including the CORS preflight requests?"),
    ("near", "How do I send an HSTS header and get my domain onto the browsers' preload list?"),
    ("near", "How do I write a Content-Security-Policy header that blocks inline scripts?"),
    ("near", "How do I proxy WebSocket connections to a chat backend?"),
    ("near", "How do I connect the web server to a Tomcat application server over AJP?"),
    ("near", "How many PHP-FPM child processes should I allow on a server with 4 GB of RAM?"),
    ("near", "How do I block visitors from certain countries with a GeoIP database?"),
    ("near", "How do I rate-limit each client address to ten requests a second to stop scrapers?"),
    ("near", "How do I add the SameSite and HttpOnly attributes to the cookies my backend sets?"),
    ("near", "How do I put single sign-on with OpenID Connect in front of an internal web application?"),
    ("near", "How do I let domain users into an intranet site with their Windows Kerberos ticket, without a password prompt?"),
    ("near", "How do I deploy a Django application with mod_wsgi in daemon mode?"),
    ("near", "How do I run the web server in a Docker container with my site's files mounted into it?"),
    ("near", "How do I produce visitor statistics reports from my access logs with AWStats or GoAccess?"),
    ("near", "Which SELinux boolean lets the web server open outgoing connections to a backend?"),
    ("near", "How do I deploy a Ruby on Rails application with Phusion Passenger?"),
    ("off", "How do I open a jar whose lid is stuck tight?"),
    ("off", "How should homemade strawberry jam be stored once it has been opened?"),
    ("off", "How long should a new kitten be kept apart from my older dog after I bring it home?"),
    ("off", "How do I replace the inner tube of a bicycle's rear wheel?"),
    ("off", "How do I work out how much mulch a flower bed needs?"),
    ("off", "Which knot should I use to hang a hammock between two trees?"),
    ("off", "How do I remove rust stains from a porcelain bathtub?"),
    ("off", "When is castling not allowed in a game of chess?"),
    ("off", "How often should a wooden chopping board be oiled?"),
]
with open(os.path.join(HERE, "unanswerable.jsonl"), "w", encoding="utf-8") as fh:
    for n, (kind, q) in enumerate(U, 1):
        fh.write(json.dumps({"id": f"u{n:02d}", "query": q, "kind": kind}, ensure_ascii=False) + "\n")

#!/usr/bin/env python3
"""Write questions.jsonl: each needle is cut verbatim from its document's canonical text
(citeline's HTML extraction of the page, not the raw HTML) between a start marker and an
end marker (both included), so nothing is retyped by hand.
The queries were written by hand from the text alone (no retrieval was run).

Run with citeline's interpreter: /work/main/.venv/bin/python build/make_gt.py"""
import json
import os
import sys
from pathlib import Path

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(HERE, "..", "..", "src"))
from citeline.extract import extractor_for  # noqa: E402


def canonical(name):
    p = Path(HERE, "docs", name)
    return extractor_for(p).extract(p, name).text


GT = [
    ("01-getting-started.html", "If you are testing a server that is not Internet-accessible", "in order to do local resolution.",
     "How can a web server that is not reachable from the Internet be tried out under its real host name?",
     "our new site isn't in DNS yet but I'd like to open it in my browser as www.ourshop.com from my own PC to check it"),
    ("02-stopping.html", "We suggest that you use a suitable delay after sending the USR1 signal", "before you do anything with the old log.",
     "After a graceful restart, how soon may a rotation script process the previous log file?",
     "my nightly job renames access_log, runs apachectl graceful and gzips the renamed file right away; sometimes the last few requests are missing from the archive"),
    ("02-stopping.html", "Users of mod_status will notice that the server statistics are set to zero when a HUP is sent.", "when a HUP is sent.",
     "Does a full restart reset the counters that the status page reports?",
     "every morning the totals on /server-status start again from nothing, is something bouncing apache overnight?"),
    ("03-configuring.html", "Comments may not be included on the same line as a configuration directive", "described in the preceding paragraph.",
     "Can a remark be written at the end of a line that holds a directive?",
     "I added '# was 8080' after my Listen line as a reminder and now the server won't start, it complains about the arguments"),
    ("04-sections.html", "It is important to never use <Location> when trying to restrict access to objects in the filesystem.", "objects in the filesystem.",
     "Which kind of configuration container should not be relied on to lock down files on disk?",
     "I blocked /private/ with a URL-based block but on our Windows box someone still got the files by typing the folder name in capitals"),
    ("04-sections.html", "Sections inside <VirtualHost> sections are applied after the corresponding sections", "outside the virtual host definition.",
     "How are directory sections inside a virtual host ordered against the same kind of sections in the main configuration?",
     "a Directory block for /var/www inside my vhost seems to beat the identical block in apache2.conf, is that intended?"),
    ("05-caching.html", "The default freshness lifetime for cached entities is one hour", "using the CacheDefaultExpire directive.",
     "How long does mod_cache treat a response as fresh when neither side states an expiry?",
     "our backend app sends no Expires or max-age at all and visitors keep seeing pages that are up to an hour old"),
    ("05-caching.html", "If, for example, your configuration permits access to a resource by IP address", "this content is not cached.",
     "What must be done with address-restricted content when the quick handler cache is enabled?",
     "the staff-only page that only opens from office IPs became visible from home right after we switched on caching"),
    ("06-logs.html", "For example, \"File does not exist\" messages for 404 responses", "default LogLevel of warn.",
     "Why are requests for missing documents no longer recorded in the error log in 2.4?",
     "since moving to 2.4 the error log stays quiet when people hit broken links, we used to see every 404 there"),
    ("06-logs.html", "Piped log processes are spawned by the parent httpd process and inherit its userid.", "inherit its userid.",
     "Under which account do programs that receive logs through a pipe run?",
     "our log shipper reading from the CustomLog pipe shows up as root in ps, I expected www-data"),
    ("07-urlmapping.html", "It is important to note, however, that links inside the documents will not be rewritten.", "will not be rewritten.",
     "Does ProxyPassReverse also correct absolute links written inside proxied HTML pages?",
     "behind the reverse proxy the app's pages still point at http://internal-app:8080/... and those links fail from outside"),
    ("08-dso.html", "The server is approximately 20% slower at startup time", "the Unix loader now has to do.",
     "What does building modules as shared objects cost when the server starts?",
     "does compiling everything as loadable .so modules instead of static ones make apache slower to come up?"),
    ("09-content-negotiation.html", "Note that Options All does not set MultiViews", "you have to ask for it by name.",
     "Does enabling every option turn on MultiViews?",
     "I set Options All on the docs folder but /docs/page is still a 404 unless I type page.html"),
    ("10-env.html", "The SetEnv directive runs late during request processing", "will not see the variables set with it.",
     "Can a rewrite condition test a variable set with SetEnv?",
     "I set a flag with SetEnv in the vhost and my RewriteCond %{ENV:flag} never matches, what gives?"),
    ("11-suexec.html", "If you want to enable the suEXEC mechanism for the first time", "you must kill and restart httpd.",
     "Is a graceful reload enough to activate a newly installed suEXEC wrapper?",
     "installed the suexec binary setuid, did a reload, but the startup notice about the wrapper never shows up"),
    ("12-vhosts-name-based.html", "If you omit the ServerName directive from any name-based virtual host", "derived from the system hostname.",
     "If a vhost selected by name lacks its own hostname setting, what does it fall back to?",
     "one of our vhosts has no ServerName line at all and requests for it end up on the wrong site"),
    ("13-vhosts-examples.html", "Any use of * in a virtual host declaration will have higher precedence than _default_.", "higher precedence than _default_.",
     "Which wins for a request, a virtual host declared with an asterisk or one declared with the default keyword?",
     "I added a catch-all <VirtualHost _default_:*> page but it never shows, everything goes to my *:80 site instead"),
    ("14-vhosts-details.html", "A Host: header field can contain a port number, but Apache always ignores it", "to which the client sent the request.",
     "Is the port given in the Host header used when choosing a virtual host?",
     "behind our NAT the browser sends site.example:8443 as host but apache listens on 443; will it still pick the right vhost?"),
    ("15-rewrite-intro.html", "Captures in the RewriteRule patterns are (counterintuitively) available", "evaluated before the individual conditions.",
     "Can a rewrite condition use the groups captured by the rule that follows it?",
     "is it possible to reference $1 from my RewriteRule inside the RewriteCond lines written above it? seems backwards"),
    ("16-rewrite-remapping.html", "If SSL/TLS is terminated at an upstream load balancer", "even when the original client connected over HTTPS.",
     "Why does the HTTPS variable read off when encryption ends at a balancer in front of the server?",
     "since we put the cloud load balancer in front, our http to https rewrite redirects forever"),
    ("17-rewrite-avoid.html", "In server/virtual-host context, mod_rewrite runs first;", "mod_alias runs first.",
     "Which is applied first, mod_alias or mod_rewrite, and does it depend on where the directives are?",
     "in my .htaccess a Redirect line fires before my RewriteRule even though the rule is written above it"),
    ("18-ssl-intro.html", "To guard against interception and reuse of the signature", "contains a unique sequence number.",
     "How is a digital signature kept from being replayed later?",
     "could someone capture a signed message and simply resend it next week to repeat the bank transfer?"),
    ("19-ssl-howto.html", "With more than a few certificates, the stapling cache size", "may need to be increased.",
     "When does the OCSP stapling cache have to be made larger?",
     "we host about 200 TLS sites on one box and the error log keeps showing AH01929"),
    ("20-howto-auth.html", "Therefore, you can prevent a user from being prompted more than once", "share the same realm.",
     "How can visitors avoid typing their password again for each protected area of one site?",
     "/reports and /admin both use the same htpasswd file and people complain they have to log in twice"),
    ("21-howto-access.html", "Since a not is a negation of a value", "as not true does not constitute false.",
     "Can a negated Require line be used on its own to block an address?",
     "I put only one line excluding the spammer's IP in the Directory block and it doesn't behave, what's missing?"),
    ("22-howto-cgi.html", "mod_cgid uses a dedicated external daemon to manage CGI processes", "(such as event or worker).",
     "Which CGI module is needed when the server runs a threaded multi-processing module?",
     "switched to mpm_event and now all .cgi scripts get downloaded as text instead of running, though mod_cgi is enabled"),
    ("23-howto-ssi.html", "By default, httpd does not send the last-modified date or content-length headers on SSI pages", "difficult to calculate for dynamic content.",
     "Why do server-parsed pages come without a modification date header?",
     "our .shtml pages never get cached by browsers and curl -I shows no Last-Modified line"),
    ("24-howto-htaccess.html", "In .htaccess context, regular expressions are recompiled on every request", "compiled once and cached.",
     "Why are rewrite rules slower in per-directory files than in the main configuration?",
     "moving our 300 RewriteRules from the vhost into .htaccess made the site noticeably slower, why?"),
    ("25-howto-reverse-proxy.html", "Hot standbys activate only when all workers and spares in a set are unavailable.", "in a set are unavailable.",
     "When does a balancer member marked as hot standby start to receive traffic?",
     "I flagged one backend with status=+H and it never gets a single request, is it broken?"),
    ("26-howto-http2.html", "In prefork, mod_http2 will only process one request at a time per connection.", "one request at a time per connection.",
     "What limits HTTP/2 when the prefork MPM is in use?",
     "with h2 switched on our pages load slower than before, images seem to come one after another; we still run prefork for mod_php"),
    ("27-perf-tuning.html", "In no event should you raise this above about 60 seconds", "most of the benefits are lost.",
     "How high may the keep-alive timeout sensibly be set?",
     "we set KeepAliveTimeout 300 so clients reuse connections and now all workers sit idle holding them"),
    ("28-security-tips.html", "Note that users may still use <--#include virtual=", "designated by a ScriptAlias directive.",
     "Does IncludesNOEXEC stop server-parsed pages from running CGI scripts altogether?",
     "we set IncludesNOEXEC for customer pages but someone's .shtml still runs our cgi-bin counter"),
]


def main():
    rows = []
    texts = {}
    for n, (doc, start, end, course, ticket) in enumerate(GT, 1):
        text = texts.setdefault(doc, canonical(doc))
        assert text.count(start) == 1, (n, "start marker not unique", start)
        a = text.index(start)
        assert text.find(end, a) >= 0, (n, "end marker not found", end)
        b = text.index(end, a) + len(end)
        needle = text[a:b]
        rows.append({"id": f"q{n:02d}", "doc": doc, "needle": needle,
                     "queries": {"course": course, "ticket": ticket}})
    with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    for r in rows:
        t = texts[r["doc"]]
        print(r["id"], r["doc"][:2], len(r["needle"]), f"{t.index(r['needle']) / len(t):.2f}", repr(r["needle"])[:200])


if __name__ == "__main__":
    main()

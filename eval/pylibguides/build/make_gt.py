#!/usr/bin/env python3
"""Write questions.jsonl: each needle is cut verbatim from its document between a
start marker and an end marker (both included), so nothing is retyped by hand.
The queries were written by hand from the text alone (no retrieval was run)."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

RQ, RA, RU, RF = ("01-requests-quickstart.rst", "02-requests-advanced.rst",
                  "03-requests-authentication.rst", "04-requests-faq.rst")
UG, UA, UM = ("06-urllib3-user-guide.rst", "07-urllib3-advanced-usage.rst",
              "08-urllib3-v2-migration-guide.rst")
GA, GD = "09-google-auth-user-guide.rst", "10-google-auth-oauth2client-deprecation.rst"
PH, PN = "11-pyparsing-how-to-use-pyparsing.rst", "12-pyparsing-whats-new-in-3-0-0.rst"

GT = [
    # --- requests: quickstart
    (RQ, "Note that any dictionary key whose value is ``None`` will not be added", "query string.",
     "What happens to a params entry whose value is None when Requests builds the URL?",
     "passing params={'page': None, 'q': 'x'} and the server never receives a page argument at all, is that expected?"),
    (RQ, "rather, an exception is raised if the server has not issued a",
     "received on the underlying socket for ``timeout`` seconds)",
     "Does the timeout argument in Requests cap the total time spent downloading a response body?",
     "set timeout=10 but a slow streaming endpoint keeps one call running for 3 minutes without raising, how?"),
    # --- requests: advanced usage
    (RA, "For example: Self-signed SSL certificates specified in", "will not be taken into account.",
     "Do environment settings such as a custom CA bundle apply when I send a prepared request myself?",
     "after refactoring to Request(...).prepare() and session.send(), calls to our internal host fail with "
     "CERTIFICATE_VERIFY_FAILED even though the CA env var is exported"),
    (RA, "The private key to your local certificate *must* be unencrypted.", "unencrypted.",
     "Can Requests use a client certificate whose private key is protected by a passphrase?",
     "cert=('client.crt', 'client.key') with our password-protected key just errors out; is there a key password argument in requests?"),
    (RA, "Using the scheme ``socks5`` causes the DNS resolution", "rather than on the proxy server.",
     "With a socks5:// proxy URL in Requests, which side performs the DNS lookup?",
     "internal hostnames only resolvable behind the SOCKS gateway fail with name resolution errors when I use "
     "proxies={'https': 'socks5://gw:1080'}"),
    (RA, "By default, Requests does not retry failed connections.", "connections.",
     "Does a Requests session automatically try again when establishing a connection fails?",
     "a flaky upstream drops the TCP connect now and then and we get ConnectionError immediately, no second attempt; I assumed it had retries built in"),
    (RA, "an unresponsive server having both IPv4 and IPv6", "*doubled*",
     "Why might the connect timeout take roughly twice as long as configured for a host that publishes both A and AAAA records?",
     "timeout=(5, 30) but the connect phase against a dead box gives up only after ~10 s; the name resolves to a v4 and a v6 address"),
    # --- requests: authentication
    (RU, "If no authentication method is given with the ``auth`` argument", "user's netrc file.",
     "If I call Requests without passing any login details, can it still pick some up on its own, and from where?",
     "on one dev laptop, requests sends basic auth to our artifact server although the code passes no credentials anywhere"),
    # --- requests: FAQ
    (RF, "Users who\nhave been unable to migrate", "`requests<2.28`.",
     "Which Requests release line should a project stuck on Python 2.7 stay on?",
     "pip install requests on an old python2.7 box pulls a version that breaks at import; what version constraint should the legacy job use?"),
    # --- urllib3: user guide
    (UG, "Note that the ``Cookie`` header will be stripped", "different host.",
     "Does urllib3 keep a Cookie header I set when the server redirects to another host?",
     "session cookie passed via headers={'Cookie': ...} works for the first hop, but after the 302 to auth.example.com "
     "the login page says I'm logged out (urllib3)"),
    (UG, "By default, urllib3 will retry", "up to 3 redirects.",
     "How many retries and redirects does urllib3 perform when none are configured?",
     "our urllib3-based client took ages to report a dead backend; logs show the same call attempted several times though we never set any retry policy"),
    # --- urllib3: advanced usage
    (UA, "This means that ``maxsize`` does not", "to keep in the pool.",
     "Does a urllib3 pool's maxsize cap the number of simultaneous connections to one host?",
     "ConnectionPool(maxsize=4) but with 20 threads I see 20 sockets to the API host and warnings about discarded connections; how do I really cap it?"),
    (UA, "If you have an encrypted client certificate private key", "to decrypt the key.",
     "How do I give urllib3 the passphrase of an encrypted client-certificate key?",
     "mutual TLS with urllib3: our client key is passphrase protected and loading it keeps failing; where does the passphrase go?"),
    (UA, "However, if that server presents a certificate that is in the system", "the connection will succeed.",
     "Why might a urllib3 HTTPS connection on macOS succeed even though the server's certificate does not chain to the CA file I supplied?",
     "test that expects a TLS failure against a host with the wrong cert passes on my MacBook but fails as intended on Linux CI"),
    # --- urllib3: v2 migration guide
    (UM, "Removed support for verifying certificate hostnames via", "is used.",
     "Which certificate field does urllib3 2.x rely on when checking the hostname?",
     "after bumping urllib3 to 2.0 our internal service fails with hostname mismatch; its old self-made cert only has CN=api.internal and no SAN"),
    (UM, "Please do **not** specify", "1.26.x updates!",
     "How should I constrain urllib3 to stay on the 1.26 series while still receiving its fixes?",
     "we froze urllib3 to exactly the 1.26.15 release after the 2.0 breakage; a colleague says that exact pin is a mistake - why?"),
    # --- google-auth: user guide
    (GA, ":func:`default` checks for the ``GOOGLE_APPLICATION_CREDENTIALS``", "before all other checks",
     "In what order does google.auth.default() consider the GOOGLE_APPLICATION_CREDENTIALS variable relative to other credential sources?",
     "on a GCE VM our service authenticates as an old key-file account instead of the VM's service account; someone left an env var in the systemd unit"),
    (GA, "If the output file does not contain the\n``expiration_time``", "executable will be called.",
     "For executable-sourced credentials, what happens when the cached output file lacks an expiration_time?",
     "our token script runs on every single auth call even though we configured --executable-output-file for caching; the JSON it writes has no expiry field"),
    (GA, "Otherwise, the project ID will resolve to ``None``.", "``None``.",
     "With workload identity federation through application default credentials, what project ID is returned if it cannot be auto-discovered?",
     "google.auth.default() with an AWS credential config returns credentials fine but the project comes back empty"),
    (GA, "However, ES256 algorithm won't be available unless", "is installed.",
     "What is required for google-auth to verify ID tokens signed with ES256?",
     "verify_oauth2_token works for RS256 tokens but an ES256-signed token from our IdP blows up; pip freeze shows no crypto library"),
    (GA, "The reason is that most credential", "refresh their access token.",
     "Why does using google-auth with gRPC still require an HTTP transport such as Requests?",
     "creating a secure gRPC channel via google.auth.transport.grpc - why do I have to pass a requests Request object when all traffic is gRPC?"),
    # --- google-auth: oauth2client deprecation
    (GD, "It is important to note that we will not be adding any features", "sending a pull request.",
     "Will the maintainers merge new functionality into oauth2client if someone contributes the code?",
     "we wrote a patch adding a capability to oauth2client; is it worth opening a PR upstream or will it be turned down?"),
    # --- pyparsing: how to use
    (PH, "Note that ``expr[..., n]`` does not raise an exception if", "occurrences.",
     "In pyparsing, does expr[..., 3] fail when the input contains more than three matches?",
     "pyparsing: I wrote item[..., 3] to allow at most three items but a line with five parses without complaint"),
    (PH, "In case of a tie, the", "list will win.",
     "When two alternatives of a pyparsing Or match text of the same length, which one is chosen?",
     "pyparsing a ^ b where both match the same number of characters - results seem to always come from a; is that guaranteed?"),
    (PH, "a repetition group (such as ZeroOrMore_ or DelimitedList_) the", "only the last matching token",
     "When a results name is set on an expression repeated with ZeroOrMore, what does the name give back by default if several tokens match?",
     "pyparsing: name('val') inside OneOrMore and res['val'] gives me only the final value, I expected all of them"),
    (PH, "``enable_left_recursion()`` uses a separate packrat cache", "``enable_packrat()``.",
     "Can memoization and left-recursion support be switched on together in pyparsing?",
     "calling ParserElement.enable_packrat() right after enable_left_recursion() at startup breaks things; can't I have both?"),
    (PH, "parse action will only\n  be called if a match is found", "if a default is specified.",
     "Is a parse action attached to a pyparsing Opt element run when the optional part is absent?",
     "my parse action on Opt(suffix) never fires for inputs without the suffix, so my counter is off; I need it to run every time"),
    (PH, "The values are sorted so that longer", "starts with the same characters.",
     "How does pyparsing's one_of order the given strings so that a short choice does not hide a longer one?",
     "one_of('< <=') correctly matches <= even though I listed < first; a MatchFirst of Literals in that order breaks - why the difference?"),
    (PH, "If an expression is not provided for the content argument, the nested", "as a list of separate values.",
     "What does nested_expr return for the inside of the brackets when no content expression is given?",
     "nested_expr('(', ')').parse_string('(a b (c d))') gives me split words rather than the raw text inside the parens"),
    # --- pyparsing: what's new in 3.0.0
    (PN, "Previously, given a left-recursive parser, pyparsing would", "the Python recursion limit.",
     "How did pyparsing versions before 3.0 behave with a left-recursive grammar?",
     "expr <<= expr + '+' + term dies with RecursionError: maximum recursion depth exceeded on pyparsing 2.4.7"),
    (PN, "The ``ParseResults`` class now uses ``__slots__``", "instance attributes.",
     "Can arbitrary attributes be assigned on a ParseResults object in pyparsing 3?",
     "after upgrading pyparsing, `result.extra = 1` in our parse action raises AttributeError; worked on 2.4.7"),
    (PN, "Code that tested\n  for the presence of any expressions", "will now always return ``True``.",
     "After pyparsing 3.0, how should code test whether a named ZeroOrMore matched anything?",
     "since pyparsing 3 our `if 'opts' in res:` branch is always taken even when the optional list is absent"),
]


def main():
    rows = []
    for n, (doc, start, end, course, ticket) in enumerate(GT, 1):
        with open(os.path.join(HERE, "docs", doc), encoding="utf-8", newline="") as fh:
            text = fh.read()
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

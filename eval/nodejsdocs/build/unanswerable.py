#!/usr/bin/env python3
"""Write unanswerable.jsonl.  check_gt.py holds, for each question, key-term regexes
(UNANSWERABLE_TERMS) that must not occur anywhere in the corpus, as evidence the pages
do not answer it.  `near` questions are Node.js topics documented on API pages left out of
this corpus (readline, http, stream, zlib, crypto, fs, test, tls, url, async_context,
http2, repl, vm, perf_hooks, string_decoder, net, tty, dns) or by third-party tools (node-gyp,
EventSource); `off` questions are off-topic."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
U = [
    ("near", "How do I read a large text file one line at a time without loading it all into memory, handling Windows CRLF endings?"),
    ("near", "How do I reuse TCP connections for outgoing HTTP requests and cap how many sockets are open per host?"),
    ("near", "How should I handle backpressure when piping a fast readable stream into a slow writable one?"),
    ("near", "How do I compress a file with Brotli using the built-in compression module, and how do I set the quality level?"),
    ("near", "How do I generate a random version 4 UUID with the built-in crypto module?"),
    ("near", "How do I create a nested directory path in one call, without failing if parts of it already exist?"),
    ("near", "How can a test written with node:test fake setTimeout so it doesn't actually wait for the delay?"),
    ("near", "How do I pin a server's certificate fingerprint when making TLS connections from Node.js?"),
    ("near", "What is the easiest way to build or parse the key=value pairs after the question mark in a URL?"),
    ("near", "How can I keep a per-request context, like a request ID, available across async calls without passing it everywhere?"),
    ("near", "How do I push additional resources to the browser from an HTTP/2 server before it asks for them?"),
    ("near", "How do I implement server-sent events so the browser receives a live feed over a long-lived response?"),
    ("near", "Why does npm install fail while compiling a native addon with node-gyp, and which build tools do I need on Windows?"),
    ("near", "How do I stream only bytes 1000 to 1999 of a file to the client, for example to answer a range request?"),
    ("near", "How do I add a custom dot-command such as .reload to a REPL I start from my own program?"),
    ("near", "How do I run untrusted code in a sandboxed context with a time limit so an endless loop can't hang my process?"),
    ("near", "How do I record named performance marks, measure the time between two of them, and get notified of new entries through an observer?"),
    ("near", "How do I decode UTF-8 text from a sequence of Buffer chunks without corrupting characters split across chunk boundaries?"),
    ("near", "How do I turn off Nagle's algorithm on a TCP socket to reduce latency for small writes?"),
    ("near", "How do I prompt for a password in the terminal without showing the characters as they are typed?"),
    ("near", "How do I look up the SRV records of a domain to find which host and port a service runs on?"),
    ("off", "How do I pitch a dome tent so it stays up in strong wind?"),
    ("off", "What is the best way to press flowers so they keep their colour?"),
    ("off", "How should I look after a juniper bonsai during a cold winter?"),
    ("off", "How do I iron a dress shirt without leaving wrinkles on the sleeves?"),
    ("off", "What is the safest way to thaw a frozen turkey before roasting it?"),
    ("off", "Which wick size should I use for homemade soy wax candles in a jar?"),
    ("off", "How many days should I plan to acclimatise when climbing Kilimanjaro?"),
    ("off", "How do I build a raised garden bed from untreated timber?"),
    ("off", "How can I calm a horse that refuses to walk into a horsebox?"),
]
with open(os.path.join(HERE, "unanswerable.jsonl"), "w", encoding="utf-8") as fh:
    for n, (kind, q) in enumerate(U, 1):
        fh.write(json.dumps({"id": f"u{n:02d}", "query": q, "kind": kind}, ensure_ascii=False) + "\n")

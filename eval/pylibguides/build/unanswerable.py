#!/usr/bin/env python3
"""Write unanswerable.jsonl.  check_gt.py holds, for each question, key-term regexes
(UNANSWERABLE_TERMS) that must not occur anywhere in the corpus, as evidence the
documents do not answer it.  `near` questions are topics of Python HTTP clients,
parsing and authentication that the twelve chosen user-guide pages do not cover;
`off` questions are off-topic (none of them one of the off questions of the other
folders under eval/)."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
U = [
    ("near", "How do I make concurrent HTTP calls with aiohttp's ClientSession inside an asyncio event loop?"),
    ("near", "How do I enable HTTP/2 with connection multiplexing for a Python client through the hyper-h2 stack?"),
    ("near", "How do I open a WebSocket connection from Python and send ping frames to keep it alive?"),
    ("near", "How do I mock outgoing HTTP calls in unit tests with the responses library or requests-mock?"),
    ("near", "How do I run an OAuth 2.0 authorization code flow with PKCE and generate the code_verifier?"),
    ("near", "How do I sign and decode a JWT with a shared HS256 secret using PyJWT?"),
    ("near", "How do I sign HTTP requests to an AWS API with Signature Version 4?"),
    ("near", "How can I parse a multi-gigabyte JSON array incrementally with ijson instead of loading it whole?"),
    ("near", "How do I write an LALR grammar with the Lark parser and transform the resulting parse tree?"),
    ("near", "How do I pull all links out of an HTML page with BeautifulSoup and the lxml parser?"),
    ("near", "How do I select XML nodes with XPath expressions using ElementTree?"),
    ("near", "How do I define subcommands for a command-line tool with argparse subparsers?"),
    ("near", "How do I parse dates written in arbitrary formats with dateutil or datetime.strptime?"),
    ("near", "How do I read a secret from Google Cloud Secret Manager in Python?"),
    ("near", "How do I generate a V4 signed URL for a Cloud Storage object so that someone can download it without credentials?"),
    ("near", "How do I call a Google API with a plain API key instead of OAuth credentials?"),
    ("near", "How do I upload a large file to Google Drive in resumable chunks with MediaFileUpload?"),
    ("near", "How do I show a tqdm progress bar while uploading a large file over HTTP?"),
    ("near", "How do I send HTTP requests to the Docker daemon over a Unix domain socket?"),
    ("near", "How do I send a GraphQL query with variables and handle the errors array in the reply?"),
    ("near", "How do I call a SOAP web service from Python with zeep and a WSDL file?"),
    ("off", "How do I get a stripped screw out of a piece of flat-pack furniture?"),
    ("off", "What is the best way to keep fresh basil from wilting on the windowsill?"),
    ("off", "How do I stop my glasses fogging up when I wear a face mask?"),
    ("off", "How long should a steak rest after it comes off the grill?"),
    ("off", "How do I clean a cast iron skillet without ruining its seasoning?"),
    ("off", "Which board games work well for a family with young children?"),
    ("off", "What is the difference between a latte and a flat white?"),
    ("off", "How do I fix a dripping kitchen tap?"),
    ("off", "How often should I replace my toothbrush?"),
]
with open(os.path.join(HERE, "unanswerable.jsonl"), "w", encoding="utf-8") as fh:
    for n, (kind, q) in enumerate(U, 1):
        fh.write(json.dumps({"id": f"u{n:02d}", "query": q, "kind": kind}, ensure_ascii=False) + "\n")

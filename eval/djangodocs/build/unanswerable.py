#!/usr/bin/env python3
"""Write unanswerable.jsonl.  check_gt.py holds, for each question, key-term regexes
(UNANSWERABLE_TERMS) that must not occur anywhere in the corpus (the canonical texts), as
evidence the pages do not answer it.  `near` questions are Django topics that the 23 chosen
topic guides do not cover: some are documented elsewhere in the Django documentation
(Argon2 password hashing, makemessages, custom template tags, PostgreSQL full-text search,
custom management commands, GeoDjango, generic relations, sitemaps, window expressions,
custom model fields, cryptographic signing, class-based DetailView, ManifestStaticFilesStorage),
the others belong to third-party packages or deployment (Django REST framework, Channels,
WhiteNoise, Gunicorn/nginx, CORS headers, two-factor authentication, GraphQL/Graphene,
Content-Security-Policy); `off` questions are off-topic."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
U = [
    ("near", "How do I make Django hash new passwords with Argon2 instead of its default algorithm?"),
    ("near", "How do I extract translatable strings into .po files with makemessages and compile them?"),
    ("near", "How do I write a serializer and a class-based API view with Django REST framework?"),
    ("near", "How do I write my own template tag with simple_tag in an app's templatetags package?"),
    ("near", "How do I push live updates to the browser over WebSockets with Django Channels?"),
    ("near", "How do I serve static files from the application server in production with WhiteNoise?"),
    ("near", "How do I rank PostgreSQL full-text search results with SearchVector and SearchRank?"),
    ("near", "How do I write a custom manage.py command that accepts its own command-line arguments?"),
    ("near", "How do I run a Django project with Gunicorn worker processes and nginx in front of them?"),
    ("near", "How do I find all shops within five kilometres of a point with GeoDjango?"),
    ("near", "How do I let a comment model point at an object of any other model with a GenericForeignKey?"),
    ("near", "How do I generate a sitemap.xml file for search engines from my models?"),
    ("near", "How do I number the rows within each group of a queryset with a Window expression and RowNumber?"),
    ("near", "How do I write a custom model field that converts values coming from the database with from_db_value?"),
    ("near", "How do I let a React front end on another domain call my views by sending CORS headers?"),
    ("near", "How do I create a signed token that expires after an hour with TimestampSigner?"),
    ("near", "How do I add two-factor authentication with TOTP codes from an authenticator app to the login?"),
    ("near", "How do I expose my models through a GraphQL API with Graphene?"),
    ("near", "How do I add extra variables to the template context of a DetailView by overriding get_context_data?"),
    ("near", "How do I make collected static file names carry a content hash with ManifestStaticFilesStorage?"),
    ("near", "How do I send a Content-Security-Policy header that restricts where scripts may load from?"),
    ("off", "How do I tie a bowline knot to moor a small sailing dinghy?"),
    ("off", "How is a tie-break scored in a tennis set?"),
    ("off", "Why does my orchid drop its flower buds before they open?"),
    ("off", "At what temperature and for how long should I roast pumpkin seeds?"),
    ("off", "How can I stop a neighbour's rooster from crowing at four in the morning?"),
    ("off", "Which wetsuit thickness do I need for a spring weekend in Cornwall?"),
    ("off", "How do I learn to whistle loudly with two fingers?"),
    ("off", "Which yoga poses loosen tight hamstrings for a beginner?"),
    ("off", "How do I restore a teak garden bench that has weathered to grey?"),
]
with open(os.path.join(HERE, "unanswerable.jsonl"), "w", encoding="utf-8") as fh:
    for n, (kind, q) in enumerate(U, 1):
        fh.write(json.dumps({"id": f"u{n:02d}", "query": q, "kind": kind}, ensure_ascii=False) + "\n")

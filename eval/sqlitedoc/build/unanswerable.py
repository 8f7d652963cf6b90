#!/usr/bin/env python3
"""Write unanswerable.jsonl.  check_gt.py holds, for each question, key-term regexes
(UNANSWERABLE_TERMS) that must not occur anywhere in the corpus, as evidence the pages
do not answer it.  `near` questions are SQLite topics documented on other pages of the
SQLite site (FTS5, window functions, ALTER TABLE, backups, UPSERT, recursive CTEs,
date functions, R*Tree, the shell, limits, pragmas, extensions...) but not on the 14
pages of this corpus; `off` questions are off-topic."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
U = [
    ("near", "How do I build a full-text search index with FTS5 and rank the matches by bm25?"),
    ("near", "How do I number rows within each group using ROW_NUMBER() OVER (PARTITION BY ...)?"),
    ("near", "How do I rename a column of an existing table with ALTER TABLE RENAME COLUMN?"),
    ("near", "How do I make a consistent copy of a live database with VACUUM INTO or the online backup API?"),
    ("near", "How do I write an upsert that updates the existing row with INSERT ... ON CONFLICT DO UPDATE?"),
    ("near", "How do I walk a parent/child hierarchy with a WITH RECURSIVE common table expression?"),
    ("near", "How do I format a timestamp with strftime() and convert it to local time?"),
    ("near", "How do I create an R*Tree index for fast bounding-box queries on spatial data?"),
    ("near", "How can I password-protect my database file, for example with SQLCipher?"),
    ("near", "How do I load a compiled extension at run time with load_extension()?"),
    ("near", "How do I shrink the database file after deleting many rows, and should I turn on auto_vacuum?"),
    ("near", "How do I set a busy timeout so that a locked database is retried instead of failing at once?"),
    ("near", "How do I see which indexes a query will use with EXPLAIN QUERY PLAN?"),
    ("near", "How do I import a CSV file into a table using the sqlite3 command-line shell?"),
    ("near", "What is the largest database file size SQLite can handle, in terabytes?"),
    ("near", "Should my application run PRAGMA optimize before it closes its connections?"),
    ("near", "How do I record the changes to a database as a changeset with the session extension so that I can sync them elsewhere?"),
    ("near", "Can I share one connection between threads, and which threading mode must the library be compiled with?"),
    ("near", "How do I open an in-memory database with :memory: and share it between two connections?"),
    ("near", "How do I remove a column from a table with ALTER TABLE DROP COLUMN?"),
    ("near", "How do I compute the median or a percentile of a column in SQLite?"),
    ("off", "How do I repot an overgrown monstera without damaging its roots?"),
    ("off", "Which muscles does a barbell deadlift mainly work?"),
    ("off", "How many minutes should I boil an egg to get a runny yolk?"),
    ("off", "How do I get rust off a bicycle chain and keep it from coming back?"),
    ("off", "What should I pack for a week of hut-to-hut hiking in the Alps?"),
    ("off", "How do I knit a simple scarf as a complete beginner?"),
    ("off", "When can tomato seedlings be moved outdoors without risk of frost?"),
    ("off", "What is the right ratio of coffee to water for cold brew?"),
    ("off", "Which stretches help with lower back pain after sitting all day?"),
]
with open(os.path.join(HERE, "unanswerable.jsonl"), "w", encoding="utf-8") as fh:
    for n, (kind, q) in enumerate(U, 1):
        fh.write(json.dumps({"id": f"u{n:02d}", "query": q, "kind": kind}, ensure_ascii=False) + "\n")

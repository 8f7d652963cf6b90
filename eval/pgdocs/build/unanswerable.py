#!/usr/bin/env python3
"""Write unanswerable.jsonl.  check_gt.py holds, for each question, key-term regexes
(UNANSWERABLE_TERMS) that must not occur anywhere in the corpus (the canonical texts), as
evidence the pages do not answer it.  `near` questions are PostgreSQL topics that the 27
chosen pages do not cover: some are documented elsewhere in the PostgreSQL manual (full
text search, AT TIME ZONE, PL/pgSQL set-returning functions, event triggers, log
rotation, window functions, pg_checksums, jsonb, auto_explain, pgbench, GSSAPI/Kerberos
setup, plan_cache_mode, JIT, fillfactor and HOT updates, pgstattuple), the others belong
to third-party tools (PgBouncer, pg_repack, Patroni, PostGIS, pg_cron, pg_hint_plan);
`off` questions are off-topic."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
U = [
    ("near", "How do I configure PgBouncer in transaction pooling mode in front of the database?"),
    ("near", "How do I rank full-text search results by relevance with ts_rank?"),
    ("near", "How do I measure how much dead space a table has with the pgstattuple extension?"),
    ("near", "How do I convert a timestamp stored without time zone into another region's local time using AT TIME ZONE?"),
    ("near", "How do I write a PL/pgSQL function that returns a set of rows with RETURN QUERY?"),
    ("near", "How do I use pg_repack to shrink a bloated table without holding an exclusive lock for the whole run?"),
    ("near", "How do I set up Patroni with etcd so that a failed primary is replaced automatically?"),
    ("near", "How do I upgrade the PostGIS extension in a database to a newer version?"),
    ("near", "How do I schedule a nightly job inside the database with the pg_cron extension?"),
    ("near", "How do I create an event trigger that records every DDL command executed in a database?"),
    ("near", "How do I make the server start a new log file every day and keep only a week of logs?"),
    ("near", "How do I compute a running total per customer with a window function?"),
    ("near", "How do I turn on data checksums for an existing cluster with pg_checksums?"),
    ("near", "How do I store JSON documents in a jsonb column and query a nested key efficiently?"),
    ("near", "How do I load auto_explain so that plans of slow queries are written to the log automatically?"),
    ("near", "How do I benchmark my server's transaction throughput with pgbench?"),
    ("near", "How do I set up Kerberos authentication for the server with a keytab file?"),
    ("near", "How do I force the planner to use a particular index with a pg_hint_plan comment?"),
    ("near", "When should I set plan_cache_mode to force custom plans instead of a generic plan for prepared statements?"),
    ("near", "How do I enable JIT compilation, and when is it worth it for analytic queries?"),
    ("near", "What fillfactor should I choose for a heavily updated table so that updates can be HOT updates?"),
    ("off", "What is the best way to wax cross-country skis for icy snow?"),
    ("off", "How do I keep a cut Christmas tree from dropping its needles so early?"),
    ("off", "How long should a newly plastered wall dry before I paint it?"),
    ("off", "Which fish are good beginner choices for a small tropical aquarium?"),
    ("off", "How do I get chewing gum out of my child's hair?"),
    ("off", "What counts as a hat-trick in cricket?"),
    ("off", "How should I train for my first 100-kilometre cycling sportive?"),
    ("off", "How do I stop deer from eating the hostas in my front garden?"),
    ("off", "What is the difference between baking soda and baking powder in a recipe?"),
]
with open(os.path.join(HERE, "unanswerable.jsonl"), "w", encoding="utf-8") as fh:
    for n, (kind, q) in enumerate(U, 1):
        fh.write(json.dumps({"id": f"u{n:02d}", "query": q, "kind": kind}, ensure_ascii=False) + "\n")

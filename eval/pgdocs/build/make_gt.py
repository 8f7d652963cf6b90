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
    ("01-ddl-constraints.html", "It should be noted that a check constraint is satisfied", "true or the null value.",
     "Will a CHECK rule block a row when its condition comes out NULL?",
     "we have CHECK (price > 0) on products but rows with an empty price keep getting inserted without any error; why isn't the constraint catching them?"),
    ("01-ddl-constraints.html", "Because this is not always needed, and there are many choices", "an index on the referencing columns.",
     "When a foreign key is declared, is an index created automatically for the child table's columns?",
     "deleting one customer takes 30 seconds; orders has an FK to customers(id) and the plan shows a seq scan over orders during the delete"),
    ("02-ddl-priv.html", "The right to modify or destroy an object", "granted or revoked in itself.",
     "Can permission to ALTER or DROP a table be handed to another role with GRANT?",
     "I ran GRANT ALL ON TABLE invoices TO app_rw but app_rw still gets 'must be owner of table invoices' when it tries ALTER TABLE"),
    ("03-ddl-partitioning.html", "To create a unique or primary key constraint on a partitioned table", "all of the partition key columns.",
     "What restrictions apply to a primary key declared on a table that is split into partitions?",
     "ALTER TABLE events ADD PRIMARY KEY (id) fails on our events table, which is range partitioned by created_at; the error talks about the partitioning column"),
    ("03-ddl-partitioning.html", "Note that partition pruning is driven only by the constraints", "not by the presence of indexes.",
     "Do I need indexes on the partitioning column for the planner to skip irrelevant partitions?",
     "before we rely on the planner skipping months, should we build an index on logdate in every monthly child table so queries only touch the right months?"),
    ("04-queries-with.html", "All the statements are executed with the same snapshot", "effects on the target tables.",
     "Can one data-modifying sub-statement in a WITH clause observe rows changed by another sub-statement of the same query?",
     "in a single query I delete from staging in one CTE and insert into staging in another, and the final SELECT from staging still shows the old rows; why?"),
    ("05-indexes-types.html", "However, if your database does not use the C locale", "indexing of pattern-matching queries",
     "Why might a B-tree index be ignored for prefix searches like LIKE 'abc%', and what is needed to fix that?",
     "index on users(email) is used for equality, but WHERE email LIKE 'john%' does a seq scan; the database was created with en_US.UTF-8"),
    ("06-indexes-partial.html", "It is also possible to allow only one null in a column", "with an IS NULL restriction.",
     "How can I make sure at most a single row has NULL in a given column?",
     "need a rule that only one row in settings may have tenant_id empty (the global default row); a regular UNIQUE constraint happily accepts several such rows"),
    ("07-indexes-index-only-scans.html", "As a counterexample, GIN indexes cannot support", "part of the original data value.",
     "Why can't an inverted index on an array column answer a query without visiting the table?",
     "queries on tags @> '{x}' never show Index Only Scan, just Bitmap Heap Scan, even right after VACUUM; the only index is USING gin (tags)"),
    ("08-transaction-iso.html", "changes made to a sequence (and therefore", "if the transaction that made the changes aborts.",
     "Are numbers drawn from a sequence given back when the transaction that used them is rolled back?",
     "our invoice numbers come from a serial column and have holes after some failed inserts; accounting wants gapless numbering"),
    ("09-explicit-locking.html", "But if a lock is acquired after establishing a savepoint", "if the savepoint is rolled back to.",
     "What happens to a table lock taken after a SAVEPOINT when I roll back to that savepoint?",
     "inside one transaction I do SAVEPOINT s1, LOCK TABLE accounts, then ROLLBACK TO s1, and other sessions can write to accounts again while my transaction is still open; expected?"),
    ("09-explicit-locking.html", "Unlike standard lock requests, session-level advisory lock requests", "will still be held following the rollback",
     "Does aborting a transaction release an application-defined lock that was obtained at session scope inside it?",
     "a worker calls pg_advisory_lock(42) inside a transaction that errors out, and the next job then waits forever on that key until we kill the connection"),
    ("10-using-explain.html", "In such cases, the loops value reports", "averages per-execution.",
     "In EXPLAIN ANALYZE output, how should actual time and row counts be read for a node executed several times?",
     "EXPLAIN ANALYZE shows the inner Index Scan at actual time=0.005 rows=1 but loops=50000 and the whole query takes 4s; the numbers don't add up for me"),
    ("11-planner-stats.html", "Functional dependencies are currently only applied", "IN clauses with constant values.",
     "Which kinds of WHERE conditions can benefit from a statistics object built with the dependencies option?",
     "CREATE STATISTICS on (city, zip) fixed the estimate for city = 'X' AND zip = '1', but estimates stay way off for zip BETWEEN and zip LIKE filters"),
    ("12-populate.html", "Loading many millions of rows can cause the trigger event queue", "outright failure of the command.",
     "What memory problem can occur when bulk loading into a table that has foreign keys?",
     "COPY of 200M rows into line_items (FK to orders) gets the box swapping hard and finally dies out of memory; the same load without the FK is fine"),
    ("13-kernel-resources.html", "The setting RemoveIPC in logind.conf", "when a user fully logs out.",
     "Which systemd option can delete the database's shared memory segments when the account logs out?",
     "since we built postgres from source on a new box, parallel queries randomly error with 'could not open shared memory segment', seemingly right after someone ends an ssh session as postgres"),
    ("14-upgrading.html", "Current releases of the dump programs can read data", "back to 9.2.",
     "How old a server can the current pg_dump export data from?",
     "we still run a 9.1 instance; can I just use pg_dump from the 15 packages to pull the data out for the migration?"),
    ("15-ssl-tcp.html", "But if an error is detected during a configuration reload", "continues to be used.",
     "What does the server do if its certificate or key files are broken at the time the configuration is re-read?",
     "renewed our TLS cert, copied it over and ran pg_ctl reload; the log complains about the key, and clients still get the expired certificate"),
    ("16-runtime-config-resource.html", "For the collection of dead tuple identifiers", "maximum of 1GB of memory",
     "Is there a cap on how much memory an autovacuum worker can use for remembering dead rows?",
     "set autovacuum_work_mem = 8GB hoping vacuum of our 2TB table would need fewer index passes, but it's not making any difference"),
    ("17-runtime-config-wal.html", "In fact, the server will not even start in this mode", "if max_wal_senders is non-zero.",
     "Which replication-related setting prevents startup when only minimal WAL logging is configured?",
     "changed wal_level to minimal for a bulk load and now postgres refuses to come up; we didn't touch anything else"),
    ("17-runtime-config-wal.html", "except that you cannot use a time zone abbreviation", "set earlier in the configuration file)",
     "What restrictions apply to the timestamp format when specifying where a point-in-time restore should stop?",
     "PITR restore fails to parse '2024-03-10 14:05:00 CEST' as the target; the same string works fine in a SELECT"),
    ("18-runtime-config-autovacuum.html", "Note that even when this parameter is disabled", "prevent transaction ID wraparound.",
     "If automatic vacuuming is switched off server-wide, can vacuum workers still appear?",
     "we set autovacuum = off during the migration but pg_stat_activity shows 'autovacuum: VACUUM public.big_table' running anyway"),
    ("19-auth-pg-hba-conf.html", "There is no “fall-through” or “backup”", "subsequent records are not considered.",
     "If authentication fails against the first matching pg_hba.conf line, does PostgreSQL try later lines?",
     "first hba line for 10.0.0.0/8 uses ldap and a later one for the same network allows scram; when LDAP rejects a user it never falls back to the password line"),
    ("20-role-attributes.html", "Note that role-specific defaults attached to roles without LOGIN", "will never be invoked.",
     "Do per-role configuration defaults set on a group role apply to the members of that group?",
     "ALTER ROLE reporting SET statement_timeout = '5min'; reporting is a NOLOGIN group, yet analysts who belong to it still run without any timeout"),
    ("21-routine-vacuuming.html", "The autovacuum daemon does not issue ANALYZE commands for foreign tables", "how often that might be useful.",
     "Will background auto-analyze keep statistics fresh for tables accessed through a foreign data wrapper?",
     "queries joining to postgres_fdw tables get terrible row estimates; pg_stats has nothing for the remote tables even though autovacuum is on"),
    ("21-routine-vacuuming.html", "XID exhaustion will block all write transactions", "row locks that require an MXID.",
     "Does running out of multixact IDs stop every write transaction the way transaction ID exhaustion does?",
     "during our multixact wraparound emergency plain inserts still worked but SELECT ... FOR SHARE and inserts checking FKs failed; why only those?"),
    ("22-backup-dump.html", "Parallel dumps are only supported for the", "archive format.",
     "Which output format must be chosen to dump several tables at once with pg_dump -j?",
     "pg_dump -Fc -j 8 > db.dump refuses to run; I want a faster dump but still a single file"),
    ("23-continuous-archiving.html", "The connection calling pg_backup_start must be maintained", "automatically aborted.",
     "What happens to a low-level base backup if the session that started it disconnects?",
     "our backup script runs SELECT pg_backup_start('nightly') in one psql call, does the rsync, then calls pg_backup_stop in a second psql call, which errors that no backup is in progress"),
    ("24-warm-standby.html", "Synchronous replication (see Section 27.2.8) settings", "cascading replication at present.",
     "Can a relay standby that forwards WAL to downstream standbys make them synchronous?",
     "standby B streams from standby A; I listed B in synchronous_standby_names on A, but B still lags and nothing ever waits on it"),
    ("25-hot-standby.html", "The Serializable transaction isolation level is not yet available", "in hot standby.",
     "Can read-only queries on a hot standby use the strictest isolation level?",
     "report job against the read replica fails as soon as it does SET TRANSACTION ISOLATION LEVEL SERIALIZABLE; works fine on the primary"),
    ("26-wal-async-commit.html", "Certain utility commands, for instance DROP TABLE", "setting of synchronous_commit.",
     "Are there statements that ignore an asynchronous commit setting?",
     "synchronous_commit=off for our ETL role, but the DROP TABLE steps are still slow waiting on fsync"),
    ("27-wal-configuration.html", "Also, if WAL archiving is used, old segments cannot", "until they are archived.",
     "Why might pg_wal grow beyond max_wal_size when archiving is turned on?",
     "pg_wal filled the disk overnight; logs show the archive command failing with 'permission denied' on the NFS share since yesterday"),
]


def main():
    rows = []
    texts = {}
    for n, (doc, start, end, course, ticket) in enumerate(GT, 1):
        text = texts.setdefault(doc, canonical(doc))
        assert text.count(start) == 1, (n, "start marker not unique", start)
        a = text.index(start)
        b = text.index(end, a) + len(end)
        rows.append({"id": f"q{n:02d}", "doc": doc, "needle": text[a:b],
                     "queries": {"course": course, "ticket": ticket}})
    with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    for r in rows:
        t = texts[r["doc"]]
        print(r["id"], r["doc"][:2], len(r["needle"]), f"{t.index(r['needle']) / len(t):.2f}", repr(r["needle"])[:200])


if __name__ == "__main__":
    main()

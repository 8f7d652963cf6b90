#!/usr/bin/env python3
"""Write questions.jsonl: each needle is cut verbatim from its document between a
start marker and an end marker (both included), so nothing is retyped by hand.
The queries were written by hand from the text alone (no retrieval was run)."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

GT = [
    ("01-datatypes.md", "Instead, Boolean values are stored", "1 (true).",
     "How does SQLite represent true and false in a table when it has no dedicated type for them?",
     "I created a column as BOOL and typeof() shows integer for all my flags, where did my booleans go?"),
    ("01-datatypes.md", 'Note that a declared type of "FLOATING POINT"', 'the end of "POINT".',
     "Why does a column typed as FLOATING POINT behave like an integer column instead of a real one?",
     "my measurements column is declared 'FLOATING POINT' and 2.0 comes back as 2, typeof says integer, why??"),
    ("01-datatypes.md", "SQLite does not attempt to do full", "size of the tables required.",
     "Does the built-in NOCASE collation fold accented and other non-ASCII letters?",
     "WHERE name = 'émile' COLLATE NOCASE doesn't match 'Émile' in my table, is that a bug?"),
    ("02-createtable.md", "then the value used in the new row is a text", "date and/or time.",
     "Which time zone is used for the value a CURRENT_TIMESTAMP column default stores?",
     "created_at DEFAULT CURRENT_TIMESTAMP is always a few hours off from my local clock, what's going on"),
    ("02-createtable.md", "A PRIMARY KEY column\nonly becomes", "\"INTEGER\".",
     "Does declaring a primary key as BIGINT make it an alias for the rowid the way INTEGER does?",
     "my table has id BIGINT PRIMARY KEY and inserting without an id leaves it NULL instead of auto-numbering"),
    ("03-withoutrowid.md", "A good rule-of-thumb is that the average", "a database page.",
     "How big may records get before a clustered-index (WITHOUT ROWID) table stops being a good fit?",
     "thinking of switching my blob-heavy table (each record ~5KB) to without rowid, is that a bad idea?"),
    ("04-autoincrement.md", "AUTOINCREMENT guarantees that", "sequential.",
     "Does AUTOINCREMENT promise that generated ids have no gaps between them?",
     "ids in my AUTOINCREMENT table jumped from 41 to 43 after a failed insert, is the db broken?"),
    ("05-foreignkeys.md", "Foreign key constraints are disabled by default", "each database connection.",
     "Why might the foreign keys declared in a schema go unenforced, and how often must checking be switched on?",
     "ON DELETE CASCADE does nothing, child rows stay behind after I delete the parent (python sqlite3 module)"),
    ("05-foreignkeys.md", "So, in most real systems, an index should", "foreign key constraint.",
     "Which columns should be indexed so that checks on the referencing side of a relationship stay fast?",
     "deleting one row from customers takes seconds now that orders has a REFERENCES to it, 2M orders"),
    ("05-foreignkeys.md", "SQLite parses MATCH clauses", "does not enforce them.",
     "Are MATCH FULL or MATCH PARTIAL options on composite foreign keys honoured by SQLite?",
     "declared my two-column FK with MATCH FULL but a row with one NULL and one non-NULL value got inserted fine"),
    ("06-partialindex.md", "The WHERE clause may *not* contain", "or bound parameters.",
     "What kinds of expressions are disallowed in the condition of a partial index?",
     "CREATE INDEX ... WHERE created > date('now','-30 days') is rejected, how do I index just recent rows?"),
    ("07-expressions.md", "A single quote within the string can", "as in Pascal.",
     "How do you include an apostrophe inside a string literal in SQLite's SQL?",
     "INSERT of the name O'Brien breaks my statement with a syntax error, tried \\' and that fails too"),
    ("07-expressions.md", "No regexp() user function is defined by default", "error message.",
     "Why does using the REGEXP operator fail unless the application provides something extra?",
     "error 'no such function: REGEXP' on WHERE email REGEXP '^[a-z]+@', the same query runs fine on MySQL"),
    ("07-expressions.md", "For example, the values NULL, 0.0, 0, 'english'", "to be false.",
     "Which values count as false when an expression is evaluated in a boolean context such as WHERE?",
     "WHERE active returns nothing even though that column contains the text 'yes' in every row"),
    ("08-select.md", "In a LEFT JOIN,\nthe extra NULL row", "WHERE clause processing.",
     "Why does a filter on the optional table behave differently in the ON clause than in WHERE for an outer join?",
     "my outer join loses customers without orders once I add AND orders.status='paid' to the WHERE, why?"),
    ("08-select.md", "An aggregate query without a\n", "zero rows of input data.",
     "What does SELECT count(*) or max(x) return over an empty table when there is no GROUP BY?",
     "SELECT max(price) FROM items WHERE 0 gives me one row with NULL instead of no rows, why not empty?"),
    ("08-select.md", "In this case, the first expression\nis used", "the LIMIT expression.",
     "In the comma form of LIMIT, which of the two numbers is the offset?",
     "LIMIT 20, 10 returns different rows than I expected from LIMIT 20 OFFSET 10, are they not the same?"),
    ("09-json.md", "any JSON input that has\nmore than 2000", "considered invalid.",
     "Is there a limit on how deeply nested a document can be for SQLite's JSON functions?",
     "json_valid() returns 0 for a big generated tree structure that python's json module parses fine"),
    ("09-json.md", "The MySQL version\nof json_extract()", "always returns JSON.",
     "How does json_extract differ between SQLite and MySQL when the selected value is a plain string?",
     "porting from MySQL: json_extract(doc,'$.name') now gives me Bob without the double quotes around it"),
    ("09-json.md", "The json_each(X) function only walks the immediate children", "top-level array or object",
     "Does json_each descend into nested arrays and objects or stay at the first level?",
     "json_each on my config blob only returns the outer keys, the nested settings don't show up as rows"),
    ("10-transactions.md", "An attempt to invoke the BEGIN command within", "or a prior BEGIN.",
     "What happens if BEGIN is issued while a transaction is already open?",
     "getting 'cannot start a transaction within a transaction' when my helper function opens its own BEGIN"),
    ("11-isolation.md", "fails with an\nSQLITE_BUSY_SNAPSHOT error", "latest version of the database.",
     "Why can a connection that has been reading in WAL mode be refused when it later tries to write after another connection committed?",
     "WAL mode: I BEGIN, SELECT, then UPDATE and get SQLITE_BUSY_SNAPSHOT even with a busy timeout set"),
    ("12-atomiccommit.md", "Hence, the lock will instantly vanish", "there is a power loss.",
     "After a crash or power cut, does a lock held on the database file remain in place?",
     "server rebooted hard in the middle of a write, will the db stay locked forever now?"),
    ("12-atomiccommit.md", "The idea\nbehind a pending lock", "by a large pool of readers.",
     "What keeps a writer from waiting forever when a steady stream of readers keeps acquiring shared locks?",
     "dozens of processes read the db constantly, will my one writer ever get a chance to commit?"),
    ("12-atomiccommit.md", "Instead, the super-journal contains", "participating in the transaction.",
     "What is recorded in the super-journal file used for commits that span several databases?",
     "a file named mydb.db-mj5A3C91F2 briefly appears next to my database, what's inside it?"),
    ("12-atomiccommit.md", "A cache spill causes the lock on the database file to", "reserved to exclusive.",
     "How does a transaction that overflows the page cache before commit affect other connections that want to read?",
     "huge import transaction: other processes get 'database is locked' on reads long before I COMMIT, why?"),
    ("12-atomiccommit.md", "If either the original database file or the\nhot journal", "will not be rolled back.",
     "Why must a leftover journal keep its name and location after a crash for recovery to work?",
     "after the power cut I moved app.db to a new folder and the data looks half-updated, what did I do wrong?"),
    ("13-wal.md", "Transactions that involve changes against multiple ATTACHed", "as a set.",
     "In WAL mode, is a transaction that modifies several attached databases atomic as a whole?",
     "switched to journal_mode=WAL and after a crash only one of my two attached files had the update"),
    ("13-wal.md", "The WAL file is part of the persistent state", "or moved.",
     "Is it safe to back up only the main .db file of a database running in WAL mode?",
     "I rsync'd just app.sqlite to the new server and the last day of changes is missing"),
    ("13-wal.md", "Both Chrome and Firefox open their", "exclusive locking mode",
     "Why do queries fail with a busy error when reading the database of a running web browser?",
     "trying to read places.sqlite while Firefox is open always says database is locked, even in WAL"),
    ("14-queryplanner.md", "Hence, a good rule of thumb is that your database schema", "prefix of the other.",
     "Is there any point in keeping an index on one column when another index starts with that same column?",
     "our schema has idx_user(user_id) and idx_user_date(user_id, created), can I drop one of them?"),
    ("14-queryplanner.md", "When this occurs, SQLite\ndoes many small sorts", "than one large sort.",
     "What does SQLite do when an index supplies only the leading part of the requested sort order?",
     "ORDER BY category, price with an index only on category, is it sorting the whole table in one go?"),
]


def main():
    rows = []
    for n, (doc, start, end, course, ticket) in enumerate(GT, 1):
        text = open(os.path.join(HERE, "docs", doc), encoding="utf-8").read()
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

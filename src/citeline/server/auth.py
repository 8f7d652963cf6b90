"""API keys: created by the CLI, shown once, stored hashed, scoped to collections.

A key looks like ``cl_<id>_<secret>``: ``id`` (8 hex digits) finds the row,
``secret`` (32 random bytes, URL-safe base64) is checked against
``sha256(salt || secret)`` with a constant-time compare. The secret is 256
random bits, so a slow password KDF (scrypt, bcrypt) would add nothing against
brute force and would cost every request milliseconds; a salted SHA-256 is the
usual choice for high-entropy API tokens.

Keys live in ``keys.sqlite3`` in the data folder (multi-collection mode) or in
the index folder (single-index mode), or in the ``api_keys`` table of a
PostgreSQL store (``serve --store``: shared by every server process). The server reads the file on every
request, so ``citeline keys create`` / ``revoke`` take effect without a restart.

Scopes: ``read`` (list, search, ask, read documents) and ``write`` (everything
``read`` can do, plus uploads, retries, deletes); collections are a list of
names or ``*`` for all (creating and deleting collections needs ``*`` + write).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from citeline.errors import ConfigError, StoreUnavailable

KEYS_FILE = "keys.sqlite3"
Scope = Literal["read", "write"]
SCOPES: tuple[Scope, ...] = ("read", "write")
ALL_COLLECTIONS = "*"
_KEY_RE = re.compile(r"cl_([0-9a-f]{8})_([A-Za-z0-9_-]{43})")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS keys (
    id TEXT PRIMARY KEY,
    salt BLOB NOT NULL,
    hash BLOB NOT NULL,
    collections TEXT NOT NULL,
    scope TEXT NOT NULL,
    label TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    revoked_at TEXT
)
"""


@dataclass(frozen=True)
class ApiKey:
    """A key's record (never its secret)."""

    id: str
    collections: tuple[str, ...]
    scope: Scope
    label: str
    created_at: str
    revoked_at: str | None

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    def allows(self, collection: str | None, scope: Scope) -> bool:
        """May this key do ``scope`` on ``collection`` (None = on every collection)?"""
        if scope == "write" and self.scope != "write":
            return False
        if ALL_COLLECTIONS in self.collections:
            return True
        return collection is not None and collection in self.collections

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id, "collections": list(self.collections), "scope": self.scope,
            "label": self.label, "created_at": self.created_at, "revoked_at": self.revoked_at,
        }


def _digest(salt: bytes, secret: str) -> bytes:
    return hashlib.sha256(salt + secret.encode("ascii")).digest()


def parse_collections(raw: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in raw.split(",") if n.strip())
    if not names:
        raise ConfigError("--collections: give at least one collection name, or '*' for all")
    return names


class KeyStore:
    """The keys file. Opened per use (short-lived connections): it is tiny.

    The key logic (ids, secrets, hashing, verification) is here; where the rows
    live is the five ``_``-methods, which :class:`PgKeyStore` implements again."""

    def __init__(self, folder: str | Path) -> None:
        self.path = Path(folder) / KEYS_FILE

    # --- the key logic ------------------------------------------------------------------

    def create(self, collections: tuple[str, ...], scope: str, label: str = "") -> tuple[str, ApiKey]:
        """Create a key; returns (the full key, shown once, and its record)."""
        if scope not in SCOPES:
            raise ConfigError(f"--scope: must be read or write, got {scope!r}")
        secret = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip("=")
        salt = secrets.token_bytes(16)
        now = datetime.now(UTC).isoformat(timespec="seconds")
        while True:  # a fresh id until one is free (2^32 ids: a clash is rare)
            kid = secrets.token_hex(4)
            if self._insert((kid, salt, _digest(salt, secret), json.dumps(list(collections)),
                             scope, label, now)):
                break
        return f"cl_{kid}_{secret}", ApiKey(kid, collections, scope, label, now, None)  # type: ignore[arg-type]

    @staticmethod
    def _row(row: tuple) -> ApiKey:
        kid, cols, scope, label, created, revoked = row
        cols = json.loads(cols) if isinstance(cols, str) else cols  # text here, jsonb in PG
        return ApiKey(kid, tuple(cols), scope, label, created, revoked)

    def list(self) -> list[ApiKey]:
        return [self._row(r) for r in self._rows()]

    def revoke(self, key_id: str) -> bool:
        """Revoke by id (or by the full key); False when no active key matched."""
        m = _KEY_RE.fullmatch(key_id)
        return self._revoke(m.group(1) if m else key_id,
                            datetime.now(UTC).isoformat(timespec="seconds"))

    def any_active(self) -> bool:
        return self._any("WHERE revoked_at IS NULL")

    def any_created(self) -> bool:
        """Whether a key was ever created here, revoked or not: such a server stays
        keyed, so revoking the last key locks it rather than opening it."""
        return self._any("")

    def verify(self, key: str) -> ApiKey | None:
        """The active key's record if ``key`` is valid, else None."""
        m = _KEY_RE.fullmatch(key.strip())
        if m is None:
            return None
        kid, secret = m.groups()
        row = self._fetch(kid)
        if row is None:
            return None
        rec = self._row(row[:6])
        if not hmac.compare_digest(_digest(bytes(row[6]), secret), bytes(row[7])) or not rec.active:
            return None
        return rec

    # --- where the rows live: the keys file -------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        try:
            c = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
            c.execute(_SCHEMA)
        except sqlite3.Error as exc:
            raise ConfigError(f"{self.path}: cannot open the keys file: {exc}") from exc
        return c

    def _insert(self, row: tuple) -> bool:
        """Insert (id, salt, hash, collections JSON, scope, label, created_at); False if
        the id is taken."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        c = self._connect()
        try:
            cur = c.execute(
                "INSERT OR IGNORE INTO keys (id, salt, hash, collections, scope, label, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", row,
            )
            return cur.rowcount == 1
        finally:
            c.close()

    def _rows(self) -> list[tuple]:
        if not self.path.exists():
            return []
        c = self._connect()
        try:
            return c.execute(
                "SELECT id, collections, scope, label, created_at, revoked_at FROM keys "
                "ORDER BY created_at, id"
            ).fetchall()
        finally:
            c.close()

    def _revoke(self, kid: str, now: str) -> bool:
        if not self.path.exists():
            return False
        c = self._connect()
        try:
            cur = c.execute(
                "UPDATE keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", (now, kid)
            )
            return cur.rowcount > 0
        finally:
            c.close()

    def _any(self, where: str) -> bool:
        """Whether a key row matches ``where`` (a fixed clause, never user input)."""
        if not self.path.exists():
            return False
        c = self._connect()
        try:
            return c.execute(f"SELECT 1 FROM keys {where} LIMIT 1").fetchone() is not None
        finally:
            c.close()

    def _fetch(self, kid: str) -> tuple | None:
        """(id, collections, scope, label, created_at, revoked_at, salt, hash) or None."""
        if not self.path.exists():
            return None
        c = self._connect()
        try:
            return c.execute(
                "SELECT id, collections, scope, label, created_at, revoked_at, salt, hash "
                "FROM keys WHERE id = ?",
                (kid,),
            ).fetchone()
        finally:
            c.close()


class PgKeyStore(KeyStore):
    """The keys of a PostgreSQL store (table ``api_keys``): every ``serve --store``
    process over one database sees the same keys, and a revoke takes effect on all
    of them at their next request."""

    def __init__(self, url: str) -> None:
        from citeline.store.postgres import PostgresStore, redact

        self.url = url
        self.shown = redact(url)  # for messages (a Path would fold its "//")
        self._store = PostgresStore(url, create=True)  # migrations create api_keys

    def close(self) -> None:
        self._store.close()

    def _run(self, query: str, params: tuple = ()) -> list[tuple]:
        import psycopg

        def run() -> list[tuple]:
            cur = self._store.conn.execute(query, params)
            return cur.fetchall() if cur.description else [(cur.rowcount,)]

        try:
            try:
                return run()
            except psycopg.OperationalError:
                if not self._store.drop_broken_connection():
                    raise
                return run()  # the connection died with a restarted server: a new one
        except psycopg.Error as exc:  # the database is down: 503, as for the documents
            raise StoreUnavailable(f"{self.shown}: cannot read or write the API keys: "
                                   f"{exc}") from exc

    def _insert(self, row: tuple) -> bool:
        n = self._run(
            "INSERT INTO api_keys (id, salt, hash, collections, scope, label, created_at) "
            "VALUES (%s, %s, %s, %s::jsonb, %s, %s, %s) ON CONFLICT (id) DO NOTHING", row,
        )
        return n[0][0] == 1

    def _rows(self) -> list[tuple]:
        return self._run(
            "SELECT id, collections, scope, label, created_at, revoked_at FROM api_keys "
            "ORDER BY created_at, id"
        )

    def _revoke(self, kid: str, now: str) -> bool:
        n = self._run(
            "UPDATE api_keys SET revoked_at = %s WHERE id = %s AND revoked_at IS NULL", (now, kid)
        )
        return n[0][0] > 0

    def _any(self, where: str) -> bool:
        return bool(self._run(f"SELECT 1 FROM api_keys {where} LIMIT 1"))

    def _fetch(self, kid: str) -> tuple | None:
        rows = self._run(
            "SELECT id, collections, scope, label, created_at, revoked_at, salt, hash "
            "FROM api_keys WHERE id = %s",
            (kid,),
        )
        return rows[0] if rows else None


def open_keys(*, folder: str | Path | None = None, store_url: str | None = None) -> KeyStore:
    """The keys of a data/index folder, or of a PostgreSQL store."""
    if store_url is not None:
        return PgKeyStore(store_url)
    if folder is None:
        raise ConfigError("keys: give --data DIR, --index DIR or --store URL")
    return KeyStore(folder)

"""Creating the store's tables when several processes open a new store at once.

``create_all`` looks before it creates, and two processes can both look,
both see nothing and both create: the second failed with "table … already
exists" (eight parallel ``sources add`` on a fresh SQLite file lost one).
Schema work therefore runs in one transaction that first takes a lock every
other creator waits for: SQLite's write lock (``BEGIN IMMEDIATE``, waiting up
to the busy timeout) or a PostgreSQL transaction-scoped advisory lock.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, Engine, text

__all__ = ["schema_lock"]

# Any fixed number: every citeaudit process asks for the same one.
_ADVISORY_KEY = 0x43_49_54_45  # "CITE"


@contextmanager
def schema_lock(engine: Engine) -> Iterator[Connection]:
    """A connection in a transaction that no other schema change runs beside; commits on exit."""
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            # The driver only opens transactions before data changes; DDL needs one opened by hand.
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        elif engine.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _ADVISORY_KEY})
        try:
            yield conn
        except BaseException:
            conn.rollback()
            raise
        conn.commit()

"""The operations the project store needs from its database, named, so a second backend (Postgres) has a contract
to meet. Today SQLite through sqlite-utils meets it (`connect` returns one); tests/test_store_interface.py checks
that, and that the store, the reports and the callers use nothing beyond it. What a Postgres backend would change
besides (SQL dialect, locking, the writer) is written down in docs/decisions.md ("A Postgres store")."""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Protocol, Sequence, runtime_checkable


@runtime_checkable
class StoreConnection(Protocol):
    """The DB-API connection under a store database: statements with `?` parameters inside transactions the store
    opens itself (`write(db)`: BEGIN IMMEDIATE ... COMMIT; autocommit otherwise)."""

    @property
    def in_transaction(self) -> bool: ...

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Any: ...

    def executemany(self, sql: str, seq_of_parameters: Iterable[Sequence[Any]], /) -> Any: ...

    def close(self) -> None: ...


@runtime_checkable
class StoreDatabase(Protocol):
    """A unit of work's database: `execute` returns a cursor (fetchone / fetchall / iteration over tuples), `query`
    yields rows as dicts, `conn` is the connection for executemany and transaction state."""

    @property
    def conn(self) -> StoreConnection: ...

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] | None = None) -> Any: ...

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] | None = None) -> Iterator[dict[str, Any]]: ...

    def table_names(self) -> list[str]: ...

    def close(self) -> None: ...


STORE_DATABASE_OPERATIONS = ("conn", "execute", "query", "table_names", "close")
STORE_CONNECTION_OPERATIONS = ("in_transaction", "execute", "executemany", "close")

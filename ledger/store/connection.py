"""Where a ledger lives: a SQLite file path or a PostgreSQL URL, turned into the
``eventsourcing`` settings, with the checks and messages that keep a user's mistake (a
wrong path, a refused connection, a read-only file) to one line and never print a
password."""

from __future__ import annotations

import getpass
import os
from typing import Any
from urllib.parse import unquote, urlparse

from ..errors import StoreError

#: how long a writer waits for the ledger (the lock, PostgreSQL's lock_timeout)
RETRY_SECONDS = 60.0


def default_user() -> str:
    """``$LEDGER_USER``, else the OS user, else ``uid:N`` (no passwd entry)."""
    from_env = os.environ.get("LEDGER_USER")
    if from_env and from_env.strip():
        return from_env
    try:
        name = getpass.getuser()
    except Exception:  # no passwd entry in some containers
        name = ""
    return name if name.strip() else f"uid:{os.getuid()}"


def is_postgres_url(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


def no_password() -> None:
    """The password function when the URL has none: ``None`` leaves it to libpq, which
    reads ``$PGPASSWORD``, then ``$PGPASSFILE`` or ``~/.pgpass``. (An empty string would
    be a password given: libpq then ignores ``$PGPASSWORD``.)"""
    return None


def env_for(url: str, create: bool) -> dict[str, str]:
    if is_postgres_url(url):
        return _postgres_env(url, create)
    return {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": url,
        "SQLITE_LOCK_TIMEOUT": "30",
        "CREATE_TABLE": "y" if create else "n",
    }


SHAPE = "postgresql://user[:password]@host[:port]/dbname"


def postgres_parts(url: str) -> tuple[Any, int, str]:
    """The parsed URL, its port and its database name; ``StoreError`` (exit 5, one line)
    for a URL that cannot be a ledger's: an unreadable host or port, port 0, no database
    name, options. Every use of a PostgreSQL ``--db`` goes through here first."""
    try:
        parts = urlparse(url)
        port = parts.port
        parts.hostname  # noqa: B018 - raises for a malformed [IPv6] host
    except ValueError as err:
        what = "bad port" if "port" in str(err).lower() else "its host cannot be read"
        raise StoreError(f"not a PostgreSQL URL of the form {SHAPE} ({what})",
                         field="--db") from None
    if port == 0:  # ``port or 5432`` once read 0 as "no port": connect where asked or not
        raise StoreError(f"not a PostgreSQL URL of the form {SHAPE} (bad port: 0 is not "
                         "a port a server listens on)", field="--db")
    dbname = unquote(parts.path.lstrip("/"))
    if not dbname or "/" in dbname:
        raise StoreError(f"a PostgreSQL URL needs a database name: {SHAPE}", field="--db")
    if parts.query or parts.fragment or parts.params:
        # silently dropping ?sslmode=require would connect without what was asked for
        raise StoreError("URL options (?...) are not supported; set libpq's environment "
                         "variables instead (PGSSLMODE, PGPASSFILE, ...)", field="--db")
    return parts, (5432 if port is None else port), dbname


def _postgres_env(url: str, create: bool) -> dict[str, str]:
    parts, port, dbname = postgres_parts(url)
    env = {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_DBNAME": dbname,
        "POSTGRES_HOST": parts.hostname or "127.0.0.1",
        "POSTGRES_PORT": str(port),
        "POSTGRES_USER": unquote(parts.username or default_user()),
        "POSTGRES_CONNECT_TIMEOUT": "10",
        "POSTGRES_LOCK_TIMEOUT": "30",
        "POSTGRES_POOL_SIZE": "2",
        "POSTGRES_MAX_OVERFLOW": "2",
        # one INSERT ... FROM unnest(array) per batch, not a pipelined executemany: with
        # the pure-Python psycopg, a pipeline of some thousands of rows can deadlock
        # (both ends waiting to read; psycopg issue #685), leaving the writer hung
        "POSTGRES_ENABLE_DB_FUNCTIONS": "y",
        "CREATE_TABLE": "y" if create else "n",
    }
    if parts.password is not None:
        env["POSTGRES_PASSWORD"] = unquote(parts.password)
    else:
        env["POSTGRES_GET_PASSWORD_TOPIC"] = f"{__name__}:no_password"
    return env


def redact(url: str) -> str:
    """The URL with any password hidden, for messages."""
    try:
        parts = urlparse(url)
        password = parts.password
    except ValueError:
        return url.split("@")[-1] if "@" in url else url
    if password:
        netloc = parts.netloc.replace(f":{password}@", ":***@")
        return parts._replace(netloc=netloc).geturl()
    return url


def _secrets(url: str) -> list[str]:
    """Every password a message about ``url`` might carry, to be masked."""
    found = []
    if is_postgres_url(url):
        try:
            password = urlparse(url).password
        except ValueError:
            password = None
        if password:
            found += [password, unquote(password)]
        if os.environ.get("PGPASSWORD"):
            found.append(os.environ["PGPASSWORD"])
    return sorted({s for s in found if s}, key=len, reverse=True)


def create_private_file(path: str) -> None:
    """A new SQLite ledger is readable and writable by its owner only."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise StoreError(f"no such directory for the ledger: {directory}", field="--db")
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        os.close(fd)
    except FileExistsError:
        pass
    except OSError as err:
        raise StoreError(f"cannot create the ledger at {path}: {err.strerror}",
                         field="--db") from None


def pg_connect(env: dict[str, str], url: str) -> Any:
    """A direct connection with the ledger's settings (the password from the URL, else
    libpq's own lookup), set up for the writer lock."""
    import psycopg

    try:
        conn = psycopg.connect(
            host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"], dbname=env["POSTGRES_DBNAME"],
            user=env["POSTGRES_USER"], password=env.get("POSTGRES_PASSWORD"),
            connect_timeout=int(env["POSTGRES_CONNECT_TIMEOUT"]), autocommit=True)
        conn.execute(f"SET lock_timeout = '{int(RETRY_SECONDS * 1000)}ms'")
        conn.execute("SET idle_in_transaction_session_timeout = '60s'")
        return conn
    except psycopg.Error as err:
        raise StoreError(f"cannot open the ledger at {redact(url)}: {one_line(err, url)}",
                         field="--db") from None


def read_only_place(path: str) -> bool:
    """The SQLite file or its directory cannot be written by this process."""
    directory = os.path.dirname(os.path.abspath(path))
    return not os.access(path, os.W_OK) or not os.access(directory, os.W_OK)


def immutable_uri(path: str) -> str:
    from urllib.parse import quote

    return f"file:{quote(os.path.abspath(path))}?mode=ro&immutable=1"


def check_regular_file(path: str) -> None:
    """Refuse a ``--db`` that is not a regular file (a FIFO, a socket, a device) before
    anything opens it: opening a FIFO for reading waits for a writer, forever. A
    symbolic link is judged by what it points to."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return  # a new ledger: created as a regular file
    except OSError as err:
        raise StoreError(f"cannot read the ledger at {path}: {err.strerror}",
                         field="--db") from None
    if stat.S_ISREG(mode):
        return
    kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a device" if stat.S_ISCHR(mode)
            or stat.S_ISBLK(mode) else "not a regular file")
    raise StoreError(f"{path} is {kind}, not a ledger file", field="--db")


def check_sqlite_header(path: str) -> None:
    """Refuse a file that is not a ledger before the library trips on it (or, worse,
    adds a ledger's tables to another program's database)."""
    check_regular_file(path)
    try:
        with open(path, "rb") as fh:
            head = fh.read(16)
    except OSError as err:
        raise StoreError(f"cannot read the ledger at {path}: {err.strerror}",
                         field="--db") from None
    if not head:
        return  # a new, empty file: the ledger's to set up
    if head != b"SQLite format 3\x00":
        raise StoreError(f"{path} is not a ledger (not a SQLite database)", field="--db")
    import sqlite3
    from urllib.parse import quote

    try:
        conn = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True,
                               timeout=5)
        try:
            tables = {r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except sqlite3.Error:
        return  # unreadable here (a read-only directory...): opening will say more
    if tables and "stored_events" not in tables:
        raise StoreError(f"{path} is a SQLite database but not a ledger (it holds "
                         f"{', '.join(sorted(tables)[:3])}...)", field="--db")


def is_read_only(err: Exception) -> bool:
    text = str(err).lower()
    return "readonly" in text or "read-only" in text or "permission denied" in text


def one_line(err: Exception, url: str) -> str:
    """An exception's text on one line, without any password, at most 300 characters."""
    text = " ".join(str(err).split()) or type(err).__name__
    for secret in _secrets(url):
        text = text.replace(secret, "***")
    return text[:300]


# What a writer may wait out: another writer holding the lock or winning the race for
# the chain head. Anything else (a full disk, an I/O error, a damaged file, a lost
# server) does not get better by retrying for a minute, and must be said at once.
_TRANSIENT = ("database is locked", "database table is locked", "database is busy",
              "lock timeout", "could not obtain lock", "deadlock detected",
              "could not serialize access")
_DISK_FULL = ("database or disk is full", "no space left on device", "disk full",
              "could not extend file", "sqlite_full")


def is_transient(err: Exception) -> bool:
    """A write that failed for a reason retrying can cure: a conflict on the chain head
    (the library's ``IntegrityError``) or a lock held by another writer."""
    from eventsourcing.persistence import IntegrityError

    if isinstance(err, IntegrityError):
        text = str(err).lower()
        # a conflict is a unique/primary key violation; an integrity error that is not
        # one (a NOT NULL constraint after an edit of the schema...) is not transient
        return "unique" in text or "duplicate key" in text or "primary key" in text \
            or not text
    text = str(err).lower()
    return any(t in text for t in _TRANSIENT)


def is_disk_full(err: Exception) -> bool:
    text = str(err).lower()
    return any(t in text for t in _DISK_FULL)


def cannot_write(err: Exception, url: str) -> str:
    """The one line for a write that failed for good; nothing was written (the batch is
    one transaction)."""
    if is_disk_full(err):
        return (f"the disk holding the ledger at {redact(url)} is full: nothing was "
                "written; free some space and append again")
    return f"cannot write the ledger: {one_line(err, url)}; nothing was written"

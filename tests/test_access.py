"""Access: who may read and write a ledger, and what is never shown.

* A new SQLite ledger (and its lock, WAL and shared-memory files) is private: 0600.
* ``recorded_by`` is always set: ``--user``, else ``$LEDGER_USER``, else the OS user,
  else ``uid:N``.
* A PostgreSQL password comes from the URL, ``$PGPASSWORD`` or the password file
  (``$PGPASSFILE``, ``~/.pgpass``): with none in the URL the store passes none, so libpq
  looks it up (an empty string would count as given and hide ``$PGPASSWORD``). The
  throwaway test cluster trusts every local login, so a wrong password is accepted
  there: these tests read the password each connection actually used
  (``conn.info.password``) and check that no output, error or log line ever contains it.
* A read-only ledger still serves ``log``, ``verify`` and ``report``, and refuses
  ``append`` with one line and exit 5, changing nothing: a SQLite file made read-only
  (0444, and a read-only directory) and a PostgreSQL role with only SELECT.

Running as root: root ignores file modes through its DAC capabilities, so the readers
run under ``setpriv --bounding-set=-dac_override,-dac_read_search,-fowner`` (still uid 0,
but now bound by the mode bits like any owner). Where that is not possible the
read-only SQLite cases skip and say why.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import uuid
from urllib.parse import quote

import pytest

from ledger.events import parse_event
from ledger.store import Ledger
from tests.cli_support import PASSWORD_WARNING, error_lines
from tests.db_access import store_rows
from tests.support import ev, opened
from tests.test_bad_inputs import invoke

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PG = os.environ.get("DEAL_LEDGER_TEST_PG")
SECRET = "Sekr3t-" + uuid.uuid4().hex[:10]
ODD_SECRET = "p@ss:w/rd%" + uuid.uuid4().hex[:6]  # needs percent-encoding in a URL
GOOD_LINE = json.dumps(ev("TrusteeNotified", "2004-07-20")) + "\n"


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def seed(url: str) -> None:
    with Ledger(url) as ledger:
        ledger.append([parse_event(opened("rra")),
                       parse_event(ev("NotesIssued", "2004-06-30", holder="L",
                                      principal="1000"))], user="seed")


# ------------------------------------------------------------------ private files


def test_new_sqlite_ledger_and_its_files_are_private(tmp_path):
    old = os.umask(0)  # even with the most permissive umask
    try:
        db = tmp_path / "ledger.db"
        result = invoke(["init", "rra", "--template", "infocrossing-rra-2004", "--db", str(db)])
        assert result.exit_code == 0, result.output
        assert mode(db) == 0o600
        assert mode(str(db) + ".lock") == 0o600
        with Ledger(str(db), create=False) as ledger:
            ledger.append([parse_event(ev("ShelfFiled", "2004-07-13"))])
            for suffix in ("-wal", "-shm"):  # SQLite gives them the database's mode
                if os.path.exists(str(db) + suffix):
                    assert mode(str(db) + suffix) == 0o600, suffix
    finally:
        os.umask(old)


def test_an_existing_file_keeps_its_mode(tmp_path):
    db = tmp_path / "ledger.db"
    seed(str(db))
    os.chmod(db, 0o640)
    with Ledger(str(db), create=True) as ledger:
        ledger.append([parse_event(ev("ShelfFiled", "2004-07-13"))])
    assert mode(db) == 0o640


# ------------------------------------------------------------------ recorded_by


def _record(db: str, *args: str, env: dict | None = None):
    return invoke(["record", "TrusteeNotified", "--deal", "rra", "--date", "2004-07-20",
                   "--db", db, *args], env=env)


def _last_by(db: str) -> str:
    with Ledger(db, create=False) as ledger:
        return list(ledger.records())[-1]["recorded_by"]


def test_recorded_by_from_the_option(tmp_path):
    db = str(tmp_path / "l.db")
    seed(db)
    assert _record(db, "--user", "alice", env={"LEDGER_USER": "bob"}).exit_code == 0
    assert _last_by(db) == "alice"


def test_recorded_by_from_ledger_user(tmp_path):
    db = str(tmp_path / "l.db")
    seed(db)
    assert _record(db, env={"LEDGER_USER": "bob"}).exit_code == 0
    assert _last_by(db) == "bob"


def test_recorded_by_from_the_os_user(tmp_path):
    db = str(tmp_path / "l.db")
    seed(db)
    env = {"LEDGER_USER": None, "LOGNAME": "carol", "USER": "carol"}
    assert _record(db, env=env).exit_code == 0
    assert _last_by(db) == "carol"
    # an empty --user is no user: the fallback applies
    assert _record(db, "--user", "", env=env).exit_code == 0
    assert _last_by(db) == "carol"


def test_recorded_by_without_any_user_name(tmp_path, monkeypatch):
    import getpass

    db = str(tmp_path / "l.db")
    seed(db)

    def no_user() -> str:
        raise KeyError("getpwuid(): uid not found")

    monkeypatch.setattr(getpass, "getuser", no_user)
    assert _record(db, env={"LEDGER_USER": None}).exit_code == 0
    assert _last_by(db) == f"uid:{os.getuid()}"


@pytest.mark.parametrize("user", ["two\nlines", "x" * 201, "\t"])
def test_a_bad_user_name_is_a_usage_error(tmp_path, user):
    db = str(tmp_path / "l.db")
    seed(db)
    before = store_rows(db)
    result = _record(db, "--user", user, env={"LEDGER_USER": None, "LOGNAME": "carol"})
    if user == "\t":  # blank: the fallback applies
        assert result.exit_code == 0 and _last_by(db) == "carol"
        return
    assert result.exit_code == 2, result.output
    assert "field '--user'" in result.stderr
    assert store_rows(db) == before


def test_every_stored_event_names_its_operator(tmp_path):
    db = str(tmp_path / "l.db")
    seed(db)
    _record(db, env={"LEDGER_USER": "bob"})
    with Ledger(db, create=False) as ledger:
        assert all(r["recorded_by"].strip() for r in ledger.records())


# ------------------------------------------------------------------ PostgreSQL passwords


@pytest.fixture
def pg_role():
    """A login role with a password, owning a fresh database: ``(url without the
    password, the password)``."""
    from tests.conftest import _pg_admin, drop_pg, fresh_pg_url

    url = fresh_pg_url()
    role = f"ledger_pw_{uuid.uuid4().hex[:8]}"
    name = url.rsplit("/", 1)[1]
    _pg_admin(f"CREATE ROLE {role} LOGIN PASSWORD '{SECRET}'")
    _pg_admin(f"ALTER DATABASE {name} OWNER TO {role}")
    host_port = url.split("@", 1)[1].rsplit("/", 1)[0]
    yield f"postgresql://{role}@{host_port}/{name}", role
    drop_pg(url)
    _pg_admin(f"DROP ROLE IF EXISTS {role}")


def with_password(url: str, password: str) -> str:
    scheme, rest = url.split("://", 1)
    user, tail = rest.split("@", 1)
    return f"{scheme}://{user}:{quote(password, safe='')}@{tail}"


def used_passwords(ledger: Ledger) -> tuple[str | None, str | None]:
    """The password each of the ledger's connections actually used."""
    with ledger.app.recorder.datastore.get_connection() as conn:
        pooled = conn.info.password
    return ledger._lock_conn.info.password, pooled


@pytest.mark.postgres
def test_password_from_the_url(pg_role, monkeypatch):
    url, _role = pg_role
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", "/nonexistent")
    with Ledger(with_password(url, SECRET)) as ledger:
        assert used_passwords(ledger) == (SECRET, SECRET)


@pytest.mark.postgres
def test_percent_encoded_password_from_the_url(pg_role, monkeypatch):
    url, role = pg_role
    from tests.conftest import _pg_admin

    _pg_admin(f"ALTER ROLE {role} PASSWORD '{ODD_SECRET}'")
    monkeypatch.delenv("PGPASSWORD", raising=False)
    with Ledger(with_password(url, ODD_SECRET)) as ledger:
        assert used_passwords(ledger) == (ODD_SECRET, ODD_SECRET)


@pytest.mark.postgres
def test_password_from_pgpassword(pg_role, monkeypatch):
    url, _role = pg_role
    monkeypatch.setenv("PGPASSWORD", SECRET)
    monkeypatch.setenv("PGPASSFILE", "/nonexistent")
    with Ledger(url) as ledger:
        assert used_passwords(ledger) == (SECRET, SECRET)


@pytest.mark.postgres
@pytest.mark.parametrize("how", ["PGPASSFILE", "HOME"])
def test_password_from_the_password_file(pg_role, monkeypatch, tmp_path, how):
    url, role = pg_role
    host_port = url.split("@", 1)[1].rsplit("/", 1)[0]
    host, port = host_port.rsplit(":", 1)
    passfile = tmp_path / ".pgpass"
    passfile.write_text(f"{host}:{port}:*:{role}:{SECRET}\n")
    passfile.chmod(0o600)
    monkeypatch.delenv("PGPASSWORD", raising=False)
    if how == "PGPASSFILE":
        monkeypatch.setenv("PGPASSFILE", str(passfile))
    else:
        monkeypatch.delenv("PGPASSFILE", raising=False)
        monkeypatch.setenv("HOME", str(tmp_path))
    with Ledger(url) as ledger:
        assert used_passwords(ledger) == (SECRET, SECRET)


def _all_output(result) -> str:
    return (result.output or "") + (result.stderr or "")


@pytest.mark.postgres
def test_the_password_is_never_printed(pg_role, tmp_path, monkeypatch):
    url, role = pg_role
    from tests.conftest import _pg_admin

    _pg_admin(f"ALTER ROLE {role} PASSWORD '{ODD_SECRET}'")
    monkeypatch.delenv("PGPASSWORD", raising=False)
    secrets = [ODD_SECRET, quote(ODD_SECRET, safe="")]
    db = with_password(url, ODD_SECRET)
    good = tmp_path / "good.jsonl"
    good.write_text(GOOD_LINE)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(ev("ShelfFiled", "2004-06-01")) + "\n")
    host_port = url.split("@", 1)[1].rsplit("/", 1)[0]
    closed = with_password(f"postgresql://{role}@127.0.0.1:1/ledger", ODD_SECRET)
    runs = [
        ["init", "rra", "--template", "infocrossing-rra-2004", "--db", db],
        ["append", str(good), "--db", db],
        ["append", str(bad), "--db", db],  # refused: the deal's rule
        ["record", "NoSuchType", "--deal", "rra", "--date", "2005-01-01", "--db", db],
        ["log", "--db", db], ["log", "--json", "--db", db], ["verify", "--db", db],
        ["verify", "--expect", "f" * 64, "--db", db],
        ["report", "rra", "--json", "--as-of", "2005-01-18", "--db", db],
        ["report", "nope", "--db", db],
        ["log", "--db", closed],  # connection refused
        ["append", str(good), "--db", closed],
        ["log", "--db", with_password(f"postgresql://{role}@{host_port}/no_such_db",
                                      ODD_SECRET)],
        ["log", "--db", db + "?sslmode=require"],
        ["log", "--db", with_password(f"postgresql://{role}@127.0.0.1:notaport/x",
                                      ODD_SECRET)],
    ]
    codes = []
    for args in runs:
        result = invoke(args)
        codes.append(result.exit_code)
        text = _all_output(result)
        for secret in secrets:
            assert secret not in text, (args[0], text)
    assert codes[:3] == [0, 0, 3] and codes[4:9] == [0, 0, 0, 1, 0]
    assert all(c == 5 for c in codes[10:]), codes
    # and the password from the environment, on a refused connection
    monkeypatch.setenv("PGPASSWORD", ODD_SECRET)
    for args in (["log", "--db", f"postgresql://{role}@127.0.0.1:1/ledger"],
                 ["append", str(good), "--db", f"postgresql://{role}@127.0.0.1:1/ledger"]):
        result = invoke(args)
        assert result.exit_code == 5
        assert ODD_SECRET not in _all_output(result)


# ------------------------------------------------------------------ read-only ledgers


def _reader_prefix() -> list[str] | None:
    """How to run a process that file modes bind: as is for a normal user; for root,
    without the capabilities that bypass them (``None`` if that cannot be done)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if not setpriv:
        return None
    import tempfile

    prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner"]
    probe = os.path.join(tempfile.mkdtemp(prefix="deal-ledger-access-"), "probe")
    try:
        with open(probe, "w") as fh:
            fh.write("x")
        os.chmod(probe, 0o444)
        proc = subprocess.run(prefix + [sys.executable, "-c",
                                        f"open({probe!r}, 'a')"], capture_output=True)
        return prefix if proc.returncode != 0 else None
    finally:
        os.remove(probe)
        os.rmdir(os.path.dirname(probe))


READER = _reader_prefix()
needs_reader = pytest.mark.skipif(READER is None, reason="running as root and cannot drop "
                                  "CAP_DAC_OVERRIDE (no setpriv): file modes would not bind")


def run_reader(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("DEAL_LEDGER_DEBUG", "LEDGER_DB")}
    return subprocess.run([*READER, sys.executable, "-c", "from cli.main import main; main()",
                           *args], cwd=ROOT, capture_output=True, text=True, env=env,
                          timeout=120)


def read_only_checks(db: str, tmp_path) -> None:
    before = store_rows_ro(db)
    for args in (["log", "--db", db], ["log", "--json", "--db", db], ["verify", "--db", db],
                 ["report", "rra", "--as-of", "2005-01-18", "--json", "--db", db]):
        proc = run_reader(*args)
        assert proc.returncode == 0, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
    batch = tmp_path / "batch.jsonl"
    batch.write_text(GOOD_LINE)
    for args in (["append", str(batch), "--db", db],
                 ["record", "TrusteeNotified", "--deal", "rra", "--date", "2004-07-20",
                  "--db", db]):
        proc = run_reader(*args)
        assert proc.returncode == 5, (args, proc.stderr)
        lines = proc.stderr.strip().split("\n")
        assert len(lines) == 1 and "read-only" in lines[0], proc.stderr
        assert proc.stdout == ""
    assert store_rows_ro(db) == before


def store_rows_ro(db: str) -> list:
    """The rows, read without creating anything beside the file."""
    import sqlite3

    c = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    try:
        return list(c.execute("SELECT rowid, * FROM stored_events ORDER BY rowid"))
    finally:
        c.close()


@pytest.fixture
def ro_dir(tmp_path):
    d = tmp_path / "ro"
    d.mkdir()
    yield d
    d.chmod(0o755)


@needs_reader
def test_read_only_sqlite_file(ro_dir, tmp_path):
    db = str(ro_dir / "ledger.db")
    seed(db)
    os.chmod(db, 0o444)
    read_only_checks(db, tmp_path)


@needs_reader
def test_read_only_sqlite_directory(ro_dir, tmp_path):
    db = str(ro_dir / "ledger.db")
    seed(db)  # closed cleanly: no -wal or -shm is left
    assert not os.path.exists(db + "-wal")
    os.chmod(db, 0o444)
    os.remove(db + ".lock")
    ro_dir.chmod(0o555)
    read_only_checks(db, tmp_path)
    assert sorted(os.listdir(ro_dir)) == ["ledger.db"]


@needs_reader
def test_read_only_directory_with_an_unmerged_log_is_refused_not_misread(ro_dir, tmp_path):
    """Committed events still in the write-ahead log must not be skipped: with the
    directory read-only, SQLite cannot read them, so the ledger says so (exit 5)."""
    live = str(tmp_path / "live.db")
    seed(live)
    with Ledger(live, create=False) as ledger:  # copy while it is open: WAL not merged
        ledger.append([parse_event(ev("ShelfFiled", "2004-07-13"))])
        for suffix in ("", "-wal"):
            shutil.copyfile(live + suffix, str(ro_dir / "ledger.db") + suffix)
    db = str(ro_dir / "ledger.db")
    assert os.path.getsize(db + "-wal") > 0
    ro_dir.chmod(0o555)
    proc = run_reader("log", "--db", db)
    assert proc.returncode == 5
    assert "write-ahead log" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.postgres
def test_read_only_postgres_role(tmp_path, monkeypatch):
    from tests.conftest import _pg_admin, drop_pg, fresh_pg_url

    url = fresh_pg_url()
    role = f"ledger_ro_{uuid.uuid4().hex[:8]}"
    try:
        seed(url)
        name = url.rsplit("/", 1)[1]
        host_port = url.split("@", 1)[1].rsplit("/", 1)[0]
        _pg_admin(f"CREATE ROLE {role} LOGIN PASSWORD '{SECRET}'")
        import psycopg

        with psycopg.connect(url, autocommit=True) as c:
            c.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}")
        reader = f"postgresql://{role}:{SECRET}@{host_port}/{name}"
        monkeypatch.delenv("PGPASSWORD", raising=False)
        before = store_rows(url)
        for args in (["log", "--db", reader], ["verify", "--db", reader],
                     ["report", "rra", "--as-of", "2005-01-18", "--json", "--db", reader]):
            result = invoke(args)
            assert result.exit_code == 0, (args, result.output)
        batch = tmp_path / "batch.jsonl"
        batch.write_text(GOOD_LINE)
        for args in (["append", str(batch), "--db", reader],
                     ["record", "TrusteeNotified", "--deal", "rra", "--date", "2004-07-20",
                      "--db", reader],
                     ["init", "x", "--template", "infocrossing-rra-2004", "--db", reader]):
            result = invoke(args)
            assert result.exit_code == 5, (args, result.output)
            lines = error_lines(result.stderr)
            assert len(lines) == 1 and "read-only" in lines[0], result.stderr
            assert SECRET not in result.stderr
        assert store_rows(url) == before
    finally:
        drop_pg(url)
        _pg_admin(f"DROP ROLE IF EXISTS {role}")


# -- a password on the command line (issue 29, item 11) ---------------------------------


def test_a_password_in_a_command_line_url_is_warned_of_once(monkeypatch):
    """``ps`` shows a process's arguments to every user of the machine: a password in a
    ``--db`` URL given there is said once on standard error (the command goes on: here it
    finds no server, exit 5); the password itself is never printed."""
    monkeypatch.delenv("LEDGER_DB", raising=False)
    url = "postgresql://someone:s3cr3t-pw@127.0.0.1:1/ledger"
    for args in (["log", "--db", url], ["--db", url, "log"]):
        result = invoke(args)
        lines = result.stderr.splitlines()
        assert result.exit_code == 5
        assert lines[0] == PASSWORD_WARNING
        assert len(lines) == 2 and lines[1].startswith("error: ")
        assert "s3cr3t-pw" not in result.output


def test_no_warning_without_a_password_or_from_the_environment(monkeypatch):
    monkeypatch.setenv("LEDGER_DB", "postgresql://someone:s3cr3t-pw@127.0.0.1:1/ledger")
    for args in (["log"], ["log", "--db", "postgresql://someone@127.0.0.1:1/ledger"]):
        result = invoke(args)
        assert result.exit_code == 5 and "warning" not in result.stderr, args


def test_the_db_help_says_where_a_password_goes():
    text = " ".join(invoke(["log", "--help"]).output.split())
    assert "$PGPASSWORD, ~/.pgpass or a service file" in text

"""Every command that writes a file for people (issue 29, items 2, 8 and 9): never over the
ledger or one of its files (by inode, not by name), never through a link planted at a
name it writes, and private to its user (0600) whatever the umask.

The commands that write a file, and the option naming it: ``agenda --cache``,
``calendar --out``, ``views --out`` (and its metadata and lock beside it), ``export
--out`` (a new folder), ``whatif --save`` (the scenarios file beside the ledger). The
ledger itself is written only by the commands that append (``tests/test_nothing_lost.py``).
"""

from __future__ import annotations

import os
import stat

import pytest

from tests.cli_support import ok, refused, run, store_bytes

RRA = "infocrossing-rra-2004"


@pytest.fixture
def ledger(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DEAL_LEDGER_CACHE", str(tmp_path / "cache"))
    db = str(tmp_path / "d.db")
    ok(run("init", "rra", "--template", RRA, "--db", db))
    ok(run("record", "NotesIssued", "--deal", "rra", "--date", "2004-06-30",
           "holder=Lehman Brothers Inc.", "principal=60000000", "--db", db))
    ok(run("record", "ShelfFiled", "--deal", "rra", "--date", "2004-07-13", "--db", db))
    return db


def writing_commands(db: str, path: str) -> list[list[str]]:
    """Each command that writes a file, told to write it at ``path``."""
    return [
        ["agenda", "--as-of", "2004-07-14", "--cache", path, "--db", db],
        ["calendar", "--as-of", "2004-07-14", "--out", path, "--db", db],
        ["views", "--as-of", "2004-07-14", "--out", path, "--db", db],
    ]


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm", "-journal", ".lock"])
def test_no_command_writes_over_the_ledger_or_its_files(ledger, suffix):
    before = store_bytes(ledger)
    for args in writing_commands(ledger, ledger + suffix):
        message = refused(run(*args), 2)
        assert "choose another path" in message, (args, message)
        assert store_bytes(ledger) == before, args
    assert os.path.getsize(ledger) > 0


def test_a_link_to_the_ledger_is_the_ledger(ledger, tmp_path):
    """By inode, not by name: a link (hard or symbolic) whose name looks like an output."""
    before = store_bytes(ledger)
    os.symlink(ledger, tmp_path / "alias.ics")
    os.link(ledger, tmp_path / "hard.json")
    for path in (str(tmp_path / "alias.ics"), str(tmp_path / "hard.json")):
        for args in writing_commands(ledger, path):
            assert "is the ledger itself" in refused(run(*args), 2), args
    assert store_bytes(ledger) == before
    # a pack over the ledger is refused too (it writes a new folder, never over a file)
    assert run("export", "rra", "--as-of", "2004-07-14", "--out", ledger,
               "--db", ledger).exit_code == 2
    assert store_bytes(ledger) == before


def test_the_cache_of_the_ledger_is_the_ledger_s_too(ledger, tmp_path):
    ok(run("report", "rra", "--as-of", "2004-07-14", "--db", ledger))  # writes a cache file
    [folder] = [p for p in (tmp_path / "cache").iterdir() if p.is_dir()]
    [cached] = list(folder.iterdir())
    kept = cached.read_bytes()
    message = refused(run("calendar", "--as-of", "2004-07-14", "--out", str(cached),
                          "--db", ledger), 2)
    assert "is a cache file of the ledger" in message
    assert cached.read_bytes() == kept


def test_no_command_writes_through_a_link_planted_at_a_name_it_uses(ledger, tmp_path):
    """Item 8: ``views`` wrote its metadata through ``views.metadata.json.part`` as it
    found it: a link there made it write into the link's target. Every name a writing
    command uses beside its output (a ``.part``, a ``.lock``, a ``.records``, the
    metadata) is planted with a link to a victim file; none is written through."""
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious\n")
    outputs = {"agenda": tmp_path / "a.json", "calendar": tmp_path / "c.ics",
               "views": tmp_path / "v.db"}
    planted = []
    for out in outputs.values():
        for extra in (".part", ".lock", ".records", ".records.part", ".tmp"):
            planted.append(str(out) + extra)
    planted += [str(tmp_path / "v.metadata.json.part"), str(tmp_path / "v.db-wal"),
                str(tmp_path / "d.db.scenarios.json.part")]
    for name in planted:
        os.symlink(victim, name)
    for args in (["agenda", "--as-of", "2004-07-14", "--cache", str(outputs["agenda"])],
                 ["calendar", "--as-of", "2004-07-14", "--out", str(outputs["calendar"])],
                 ["whatif", "rra", "--as-of", "2004-07-14", "--interpret",
                  "default_date=first_breach_day", "--save", "s1"]):
        ok(run(*args, "--db", ledger))
    # views: its lock is a link: refused in one line, nothing written through it
    message = refused(run("views", "--as-of", "2004-07-14", "--out", str(outputs["views"]),
                          "--db", ledger), 5)
    assert "symbolic link" in message
    os.remove(str(outputs["views"]) + ".lock")
    # SQLite's write-ahead log beside the views file is a link: refused too
    message = refused(run("views", "--as-of", "2004-07-14", "--out", str(outputs["views"]),
                          "--db", ledger), 2)
    assert "v.db-wal is a symbolic link" in message
    os.remove(str(tmp_path / "v.db-wal"))
    ok(run("views", "--as-of", "2004-07-14", "--out", str(outputs["views"]), "--db", ledger))
    assert victim.read_bytes() == b"precious\n"
    # an output's own name that is a link (the agenda's FILE.records) is replaced by the
    # file, never written through; every other planted name is left as it was
    replaced = {str(outputs["agenda"]) + ".records", str(outputs["views"]) + ".lock",
                str(tmp_path / "v.db-wal")}   # the last two removed above
    assert not os.path.islink(str(outputs["agenda"]) + ".records")
    assert [p for p in planted if os.path.lexists(p) and p not in replaced
            and not os.path.islink(p)] == []


def test_every_file_written_for_people_is_private(ledger, tmp_path):
    """Item 9: under umask 022 the views file was 0644, though it holds every event with
    who recorded it; the ledger, cache, calendar and scenarios were 0600. All are now, and
    the pack (its folder 0700)."""
    old = os.umask(0o022)
    try:
        ok(run("agenda", "--as-of", "2004-07-14", "--cache", "a.json", "--db", ledger))
        ok(run("calendar", "--as-of", "2004-07-14", "--out", "c.ics", "--db", ledger))
        ok(run("views", "--as-of", "2004-07-14", "--out", "v.db", "--db", ledger))
        ok(run("whatif", "rra", "--as-of", "2004-07-14", "--interpret",
               "default_date=first_breach_day", "--save", "s1", "--db", ledger))
        ok(run("export", "rra", "--as-of", "2004-07-14", "--out", "pack", "--db", ledger))
    finally:
        os.umask(old)

    def mode(path):
        return stat.S_IMODE(os.stat(tmp_path / path).st_mode)

    for path in ("a.json", "a.json.records", "c.ics", "v.db", "v.metadata.json",
                 "d.db.scenarios.json"):
        assert mode(path) == 0o600, path
    assert mode("pack") == 0o700
    assert {mode(f"pack/{name}") for name in os.listdir(tmp_path / "pack")} == {0o600}

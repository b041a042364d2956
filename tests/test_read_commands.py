"""Every command that reads a ledger, on a ledger of several deals, on SQLite and on
PostgreSQL (issue 29, item 5: ``agenda`` ended in ``internal error: KeyError: 0`` on
every PostgreSQL ledger, because one reader took the rows by position where PostgreSQL's
are dicts; no test ran the agenda there). Each command answers as on SQLite: the same
exit code and, where the output names no event id or recording time, the same text."""

from __future__ import annotations

import re

import pytest

from publishing.demo import LETTER, RRA, build_demo
from tests.cli_support import ok, run

AS_OF = "2005-12-31"
IDS = re.compile(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}|\b[0-9a-f]{8}\b|[0-9a-f]{64}"
                 r"|\d{4}-\d{2}-\d{2}T[0-9:.]+Z")


def _ledger(url: str) -> str:
    build_demo(url)          # the two demo deals, recorded in 25 batches
    ok(run("init", "second-rra", "--template", RRA, "--db", url))
    ok(run("record", "NotesIssued", "--deal", "second-rra", "--date", "2004-06-30",
           "holder=Alpha Fund", "principal=10000000", "--db", url))
    return url


def read_commands(url: str, tmp) -> list[tuple[list[str], set[int]]]:
    """Each reading command with the exit codes it may give here (``agenda`` exits 1
    when something is overdue)."""
    d = ["--db", url]
    return [
        (["log", *d], {0}), (["log", "--deal", RRA, "--json", *d], {0}),
        (["verify", *d], {0}),
        (["report", RRA, "--as-of", AS_OF, "--json", *d], {0}),
        (["report", LETTER, "--as-of", AS_OF, "--json", *d], {0}),
        (["status", RRA, "--as-of", AS_OF, *d], {0}),
        (["interest", RRA, "--as-of", AS_OF, *d], {0}),
        (["suspensions", RRA, "--as-of", AS_OF, *d], {0}),
        (["deadlines", RRA, "--as-of", AS_OF, *d], {0}),
        (["consents", RRA, "--as-of", AS_OF, *d], {0}),
        (["obligations", RRA, "--as-of", AS_OF, *d], {0}),
        (["trueup", LETTER, "--as-of", AS_OF, *d], {0}),
        (["instruments", LETTER, "--as-of", AS_OF, *d], {0}),
        (["explain", RRA, "additional_interest.accrued_to_as_of", "--as-of", AS_OF, *d], {0}),
        (["history", RRA, "additional_interest.accrued_to_as_of", "--as-of", AS_OF, *d], {0}),
        (["whatif", RRA, "--as-of", AS_OF, "--interpret", "default_date=first_breach_day",
          *d], {0}),
        (["agenda", "--as-of", AS_OF, *d], {0, 1}),
        (["agenda", "--as-of", AS_OF, "--json", *d], {0, 1}),
        (["agenda", "--as-of", AS_OF, "--deal", RRA, *d], {0, 1}),
        (["agenda", "--as-of", AS_OF, "--cache", str(tmp / "agenda.json"), *d], {0, 1}),
        (["calendar", "--as-of", AS_OF, "--out", str(tmp / "c.ics"), *d], {0}),
        (["views", "--as-of", AS_OF, "--out", str(tmp / "views.db"), *d], {0}),
        (["export", RRA, "--as-of", AS_OF, "--out", str(tmp / "pack"), *d], {0}),
        (["scenarios", *d], {0}),
    ]


def _answers(url: str, tmp) -> list[tuple[list[str], int, str]]:
    out = []
    for args, codes in read_commands(url, tmp):
        result = run(*args)
        assert result.exit_code in codes, (args, result.exit_code, result.output)
        assert "internal error" not in result.output and "Traceback" not in result.output
        out.append((args[:2], result.exit_code, IDS.sub("<id>", result.stdout)))
    return out


@pytest.mark.postgres
def test_every_read_command_answers_on_postgresql_as_on_sqlite(tmp_path):
    from tests.conftest import drop_pg, fresh_pg_url

    (tmp_path / "s").mkdir()
    (tmp_path / "p").mkdir()
    sqlite = _answers(_ledger(str(tmp_path / "s" / "ledger.db")), tmp_path / "s")
    url = fresh_pg_url()
    try:
        postgres = _answers(_ledger(url), tmp_path / "p")
    finally:
        drop_pg(url)
    for (args, code_s, text_s), (_, code_p, text_p) in zip(sqlite, postgres):
        assert code_s == code_p, args
        if args[0] in ("agenda", "report", "status", "interest", "suspensions", "deadlines",
                       "obligations", "trueup", "instruments", "consents"):
            # the paths of the files differ (s/ and p/), nothing else may
            assert text_s.replace("/s/", "/p/") == text_p, args


def test_every_read_command_answers_on_sqlite(tmp_path):
    _answers(_ledger(str(tmp_path / "ledger.db")), tmp_path)

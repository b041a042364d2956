"""``deal-ledger demo``: an illustrative ledger for both agreements, then its reports."""

from __future__ import annotations

import os
import shlex

import click

from .common import console, db_from_group, guarded, load_report, open_ledger
from .main import cli


@cli.command()
@click.option("--db", default=None, callback=db_from_group,
              help="Where to build the demo ledger (default: a new temp file).")
@guarded
def demo(db: str | None) -> None:
    """Build an illustrative ledger (illustrative numbers, labelled as such) and show every
    view of both deals as of a fixed date, then verify the hash chain."""
    from ledger.store.chain import verify
    from publishing.demo import AS_OF, KNOWN_AT_EXAMPLE, RRA, build_demo, recording_batches

    from .reports import interpretation_defaults
    from rich.text import Text

    from .views import money, show_report

    temporary = db is None
    if db is None:
        import tempfile

        db = os.path.join(tempfile.mkdtemp(prefix="deal-ledger-demo-"), "demo.db")
    summary = build_demo(db)
    out = console()
    out.print(f"[bold]deal-ledger demo[/bold]: ILLUSTRATIVE events (not the real deals' "
              f"history) in {db}")
    for deal, count in summary.items():
        out.print(f"  {deal}: {count} events")
    out.print(f"Every view below is as of {AS_OF}.")
    for deal in summary:
        out.print()
        out.rule(f"{deal} (ILLUSTRATIVE) as of {AS_OF}")
        show_report(load_report(db, deal, AS_OF, None, ()), out, interpretation_defaults())
    out.print()
    with open_ledger(db) as ledger:
        verdict = verify(ledger)
    out.print(f"chain: {verdict.line()}", soft_wrap=True)  # the head hash on one line
    out.print()
    batches = recording_batches()
    out.rule("as known at: the history as it was recorded")
    out.print(f"The events were recorded in {len(batches)} batches from {batches[0][0][:10]} "
              f"to {batches[-1][0][:10]}: a stop order of 2005-06-01 was recorded late, on "
              "2005-07-08, and a payment recorded wrong was retracted and corrected "
              "(`deal-ledger log` shows it struck through).")
    as_of, known_at = KNOWN_AT_EXAMPLE["as_of"], KNOWN_AT_EXAMPLE["known_at"]
    now = load_report(db, RRA, as_of, None, ())["additional_interest"]["accrued_to_as_of"]
    then = load_report(db, RRA, as_of, known_at, ())["additional_interest"]["accrued_to_as_of"]
    where = (f" (the demo ledger is a temporary file: `{program()} demo --db demo.db` builds "
             "one where you choose)" if temporary else "")
    out.print(f"Additional Interest accrued as of {as_of}: {money(now)} with everything "
              f"recorded, {money(then)} as known at {known_at}. Try{where}:")
    # commands that work as printed (issue 31, item 16): the program as it was run (a
    # `deal-ledger` not on PATH is `.venv/bin/deal-ledger`), the ledger's path quoted
    me, at = program(), shlex.quote(db)
    for line in (f"{me} report {RRA} --db {at} --as-of {as_of} --known-at {known_at}",
                 f"{me} history {RRA} --db {at} --as-of {as_of} "
                 "additional_interest.accrued_to_as_of",
                 f"{me} log --db {at} --deal {RRA}"):
        out.print(Text("  " + line), soft_wrap=True)  # one line, to copy and paste


def program() -> str:
    """The command as it can be typed again: ``deal-ledger`` if that name on PATH runs
    this program (or it was not run as the console script), else the path it was run
    by, as typed (``.venv/bin/deal-ledger``, after the README's set-up)."""
    import shutil
    import sys

    ran = sys.argv[0] if sys.argv else ""
    if os.path.basename(ran) != "deal-ledger":
        return "deal-ledger"
    found = shutil.which("deal-ledger")
    if found and os.path.realpath(found) == os.path.realpath(ran):
        return "deal-ledger"
    return shlex.quote(ran)

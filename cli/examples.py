"""One example per command, shown at the end of its ``--help`` (as git and ruff do), and
a one-line summary for the command list that is a whole phrase, never cut off. Kept in
one table so that every command reads alike; each example runs on the demo ledger
(``deal-ledger demo --db ledger.db``)."""

from __future__ import annotations

import click

RRA = "infocrossing-rra-2004"
LETTER = "infocrossing-letter-2002"

# name: (summary for `deal-ledger --help`, example)
COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("Open a deal from a template or a terms file.",
             "deal-ledger init my-rra --template infocrossing-rra-2004"),
    "append": ("Append a JSON Lines batch, all or nothing.",
               "deal-ledger append events.jsonl"),
    "record": ("Append one event given as name=value fields.",
               "deal-ledger record ShelfFiled --deal my-rra --date 2004-07-13 \\\n"
               "      file_number=333-117340"),
    "retract": ("Retract an event (it stays in the log, marked).",
                "deal-ledger retract seq:17 --reason 'entered twice'"),
    "correct": ("Retract an event and append its replacement at once.",
                "deal-ledger correct seq:17 fixed.jsonl --reason 'wrong date'"),
    "reinstate": ("Withdraw a retraction made in error: the event counts again.",
                  "deal-ledger reinstate seq:18 --reason 'retracted the wrong payment'"),
    "log": ("Show the log in seq order, filtered, streamed.",
            f"deal-ledger log --deal {RRA} --limit 20"),
    "types": ("List the event types, their fields and an example.",
              "deal-ledger types SuspensionStarted"),
    "verify": ("Walk the hash chain (or check an auditor pack).",
               "deal-ledger verify --expect HEAD_HASH"),
    "export": ("Write an auditor pack of a deal to a new directory.",
               f"deal-ledger export {RRA} --out pack --as-of 2006-12-31"),
    "keygen": ("Make a key pair for signing checkpoints and packs.",
               "deal-ledger keygen --name ledger.example.com/deals --out ledger.key"),
    "checkpoint": ("Verify, then sign the log's size and Merkle root.",
                   "deal-ledger checkpoint --key ledger.key --out today.checkpoint"),
    "statement": ("A Holder's own figures, proved, for it alone to check.",
                  f"deal-ledger statement {RRA} \\\n"
                  "      --holder 'Lehman Brothers Inc.' --key ledger.key --out lehman"),
    "restatements": ("Figures that changed between two states, and why.",
                     f"deal-ledger restatements {RRA} --from pack-2006 --json"),
    "views": ("Materialise the log and schedules as SQLite tables.",
              "deal-ledger views --out views.db --as-of 2006-12-31"),
    "report": ("The whole report of a deal as of a date.",
               f"deal-ledger report {RRA} --as-of 2006-12-31 --json"),
    "status": ("Shelf deadlines, dates and Registration Defaults.",
               f"deal-ledger status {RRA} --as-of 2006-12-31"),
    "interest": ("Additional Interest per payment date and Holder.",
                 f"deal-ledger interest {RRA} --as-of 2006-12-31 --csv"),
    "suspensions": ("Suspension Periods and what remains of the limits.",
                    f"deal-ledger suspensions {RRA} --as-of 2006-12-31"),
    "deadlines": ("Every obligation with its due date and status.",
                  f"deal-ledger deadlines {RRA} --as-of 2006-12-31"),
    "consents": ("Consents per matter and whether they are a majority.",
                 f"deal-ledger consents {RRA} --as-of 2006-12-31"),
    "trueup": ("True-up shares per holder and per exercise.",
               f"deal-ledger trueup {LETTER} --as-of 2006-12-31"),
    "instruments": ("Warrants and Preferred: price, shares, deferral.",
                    f"deal-ledger instruments {LETTER} --as-of 2006-12-31"),
    "interpretations": ("List the named readings of ambiguous clauses.",
                        "deal-ledger interpretations --csv"),
    "explain": ("How one figure of a report was computed.",
                f"deal-ledger explain {RRA} registration.in_default --as-of 2006-12-31"),
    "history": ("How one figure changed as events were recorded.",
                f"deal-ledger history {RRA} registration.in_default --as-of 2006-12-31"),
    "whatif": ("A report with events added, dropped or replaced.",
               f"deal-ledger whatif {RRA} \\\n      --interpret rate_clock=once_per_deal"),
    "scenarios": ("List the saved what-if scenarios.", "deal-ledger scenarios --json"),
    "agenda": ("What falls due, is overdue or at risk, every deal.",
               "deal-ledger agenda --as-of 2005-03-01 --days 60"),
    "obligations": ("A deal's obligations and their states on a date.",
                    "deal-ledger obligations infocrossing-rra-2004 --as-of 2005-03-01"),
    "calendar": ("Write every dated obligation to an iCalendar file.",
                 "deal-ledger calendar --out obligations.ics --remind 10,5,1"),
    "clause": ("A clause's text, statement, rules and readings.",
               'deal-ledger clause "RRA §2(b)"'),
    "demo": ("Build an illustrative ledger and show its reports.",
             "deal-ledger demo --db ledger.db"),
    "terms": ("A deal's terms in words, their schema, a file checked.",
              f"deal-ledger terms show {RRA}"),
}


def annotate(group: click.Group) -> None:
    """``annotate_command`` of each command of ``group``."""
    for name, cmd in group.commands.items():
        annotate_command(name, cmd)


def annotate_command(name: str | None, cmd: click.Command) -> None:
    """Give the command its summary from the table and, unless its help already shows
    one, its example."""
    if name not in COMMANDS:
        return
    summary, example = COMMANDS[name]
    cmd.short_help = summary
    if "Example" in (cmd.epilog or "") or "Example" in (cmd.help or ""):
        return
    block = f"\b\nExample:\n  {example}"
    cmd.epilog = f"{cmd.epilog}\n\n{block}" if cmd.epilog else block

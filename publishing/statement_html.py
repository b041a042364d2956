"""``index.html`` of a Holder statement: one self-contained page (the auditor pack's
styles, no script, no link, no image), made from ``statement.json`` and the events alone
so that ``verify --statement`` makes it again and compares the bytes."""

from __future__ import annotations

from html import escape
from typing import Any, Mapping, Sequence

from .pack_cells import keep_dates_whole, table
from .pack_html import CSS, event_data


def render(statement: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> str:
    holder, deal = statement["holder"], statement["deal"]
    cp = statement["checkpoint"]
    rows = []
    for path, value in statement["figures"].items():
        node = statement["explanations"].get(path) or {}
        rows.append({"figure": path, "value": value if isinstance(value, (str, int))
                     else str(value), "clause": node.get("clause") or "",
                     "rule": node.get("rule") or "", "arithmetic": node.get("arithmetic") or "",
                     "events": [e.get("id", "")[:8] for e in node.get("events") or []
                                if isinstance(e, dict)]})
    others = [{"holder": h, "up_to": v["notes_events_up_to"], "why": v["why"]}
              for h, v in statement["other_holders"].items()]
    events = [{"seq": r["seq"], "date": r["date"], "type": r["type"],
               "data": event_data(r), "recorded_at": r.get("recorded_at"),
               "recorded_by": r.get("recorded_by"), "hash": r["hash"][:16]}
              for r in records]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(holder)}: statement in {escape(deal)} as of "
        f"{escape(statement['as_of'])}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>{escape(holder)}</h1>",
        f'<p class="sub">its statement in <b>{escape(deal)}</b> ({escape(statement["kind"])}) '
        f"as of <b>{escape(statement['as_of'])}</b></p>",
        "<h2>Its figures</h2>",
        table(rows, ["figure", "value", "clause", "rule", "arithmetic", "events"]),
        "<h2>Other Holders' events kept, and why</h2>",
        table(others, ["holder", "up_to", "why"],
              headers={"up_to": "their Notes' events up to"}) if others
        else "<p>None: its figures rest on the deal's events and its own.</p>",
        f"<p>{statement['events_left_out']} event(s) of the deal concern other Holders "
        "only and are left out."
        + (f" {statement['other_holders_events_kept']} other Holders' event(s) are kept: "
           "under the readings in force its figures differ without them."
           if statement["other_holders_events_kept"] else "") + "</p>",
        f"<h2>The {len(records)} events they rest on</h2>",
        table(events, ["seq", "date", "type", "data", "recorded_at", "recorded_by", "hash"]),
        "<h2>Checking this statement</h2>",
        f"<p>Each event is proved to be in the ledger's log by an inclusion proof "
        f"(proofs.json) in its Merkle tree of {cp['size']} events, whose root "
        f"<code>{escape(cp['root'])}</code> the checkpoint (checkpoint) signs, as "
        f"{escape(cp['origin'])}. The manifest and its signature (manifest.json, "
        "manifest.sig) seal every file. Check it with no ledger and no network: "
        "<code>deal-ledger verify --statement DIR --pubkey KEY.pub</code> recomputes the "
        "figures from these events alone.</p>",
        "</body></html>\n",
    ]
    return keep_dates_whole("\n".join(parts))

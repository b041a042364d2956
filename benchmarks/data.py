"""Generated ledgers for the benchmarks: realistic, valid Registration Rights deals.

Every deal is opened from the ``infocrossing-rra-2004`` template (SPEC §4.1), its Notes
are issued at closing to a few Holders, the shelf is filed and declared effective (late,
so that a Registration Default (ii) accrues Additional Interest), and then the deal lives
for twenty years: Holders sell Notes to each other (sometimes under the shelf), consent
to amendments, the company sends notices, notifies the Trustee, advises Holders and pays
Additional Interest. Each event is dated on or after the deal's opening, and a Holder
never sells more Notes than it holds, so every event passes the write-side rules
(``ledger.guards``).

Generation is deterministic (a seeded ``random.Random``) and cheap: plain dicts in the
public event format (SPEC §3), turned into JSON Lines or into ``NewEvent`` values.
"""

from __future__ import annotations

import json
import random
from datetime import date, timedelta
from typing import Any, Iterator

TEMPLATE = "infocrossing-rra-2004"
OPENED = date(2004, 6, 30)
FILED = date(2004, 7, 13)
EFFECTIVE = date(2004, 11, 15)     # after the 2004-10-28 deadline: default (ii) accrues
LAST_DAY = date(2024, 6, 30)       # before maturity (2024-07-15)
PRINCIPAL_CENTS = 60_000_000_00
METHODS = ("hand", "mail", "courier", "fax", "telex")
MATTERS = ("waiver of RRA §2(a)(ii)", "amendment of RRA §3(a)", "waiver of RRA §4(b)(i)")

Obj = dict[str, Any]


def opening(deal: str) -> Obj:
    """``DealOpened`` from the template, as ``tests/support.opened`` builds it."""
    from ledger.terms import TEMPLATES

    t = TEMPLATES[TEMPLATE]
    return {"type": "DealOpened", "deal": deal, "date": t["date"].isoformat(),
            "data": {"kind": t["kind"], "name": t["name"], "terms": dict(t["terms"])},
            "source": f"template {TEMPLATE}"}


def _money(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


def holder_name(i: int) -> str:
    return f"Holder {i:04d}"


def _payment_date_before(day: date) -> date | None:
    """The latest Interest Payment Date (Jan 15, Jul 15, from 2005-01-15) on or before day."""
    candidates = [date(day.year, 7, 15), date(day.year, 1, 15), date(day.year - 1, 7, 15)]
    for c in candidates:
        if c <= day and c >= date(2005, 1, 15):
            return c
    return None


def deal_events(deal: str, n: int, *, holders: int = 10, seed: int = 0,
                last_day: date = LAST_DAY) -> list[Obj]:
    """``n`` valid events of one deal (at least the opening ones), in date order."""
    rng = random.Random(f"{deal}:{seed}")
    src = "benchmark generator"
    ev: list[Obj] = [opening(deal)]

    def add(type_: str, day: date, **data: Any) -> None:
        ev.append({"type": type_, "deal": deal, "date": day.isoformat(), "data": data,
                   "source": src})

    balances: dict[str, int] = {}
    share = PRINCIPAL_CENTS // holders
    for i in range(holders):
        name = holder_name(i)
        cents = share if i < holders - 1 else PRINCIPAL_CENTS - share * (holders - 1)
        balances[name] = cents
        add("NotesIssued", OPENED, holder=name, principal=_money(cents))
    fixed = [("ShelfFiled", FILED, {"file_number": "333-117340"}),
             ("HoldersAdvised", FILED + timedelta(days=1), {}),
             ("ShelfEffective", EFFECTIVE, {}),
             ("TrusteeNotified", EFFECTIVE + timedelta(days=1), {}),
             ("HoldersAdvised", EFFECTIVE + timedelta(days=2), {})]
    for type_, day, data in fixed:
        if len(ev) >= n:
            break
        add(type_, day, **data)
    rest = n - len(ev)
    if rest <= 0:
        return ev[:n]
    first = EFFECTIVE + timedelta(days=3)
    span = (last_day - first).days
    pool = [holder_name(i) for i in range(holders * 3)]  # Notes change hands to new Holders
    for k in range(rest):
        day = first + timedelta(days=(k * span) // rest)
        roll = rng.random()
        sellers = [h for h, c in balances.items() if c >= 100_000]
        if roll < 0.40 and sellers:
            seller = rng.choice(sellers)
            buyer = rng.choice([h for h in pool if h != seller])
            cents = rng.randrange(1, max(2, balances[seller] // 10_000_000)) * 100_000
            cents = min(cents, balances[seller])
            balances[seller] -= cents
            balances[buyer] = balances.get(buyer, 0) + cents
            add("NotesTransferred", day, from_holder=seller, to_holder=buyer,
                principal=_money(cents), under_shelf=rng.random() < 0.05)
        elif roll < 0.55:
            add("ConsentGiven", day, holder=rng.choice(list(balances)), matter=rng.choice(MATTERS))
        elif roll < 0.70:
            add("NoticeSent", day, to="The Bank of New York, as Trustee",
                subject=f"notice under RRA §10(E) no. {k}", method=rng.choice(METHODS))
        elif roll < 0.77:
            add("TrusteeNotified", day)
        elif roll < 0.84:
            add("HoldersAdvised", day)
        else:
            paid_for = _payment_date_before(day)
            if paid_for is None:
                add("HoldersAdvised", day)
            else:
                add("AdditionalInterestPaid", day, payment_date=paid_for.isoformat(),
                    holder=rng.choice(list(balances)), amount=_money(rng.randrange(100, 1_000_000)))
    return ev


def interleaved(deals: int, per_deal: int, *, first: int = 0, seed: int = 0) -> list[Obj]:
    """Deals ``deal-{first}`` onwards, ``per_deal`` events each, merged round-robin: a
    feed in which every deal advances together, each deal's own events in order."""
    streams = [deal_events(f"deal-{d:04d}", per_deal, seed=seed)
               for d in range(first, first + deals)]
    out: list[Obj] = []
    for i in range(per_deal):
        for s in streams:
            if i < len(s):
                out.append(s[i])
    return out


def jsonl(objs: list[Obj]) -> bytes:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs).encode("utf-8")


def late_events(deals: int, n: int) -> list[Obj]:
    """``n`` new events for the existing deals ``deal-0000`` onwards (round-robin over
    ``deals`` of them), dated on the last generated day: what a day of operators' work
    adds to a big ledger, each event changing its deal's report as of that day."""
    out: list[Obj] = []
    day = LAST_DAY.isoformat()
    for i in range(n):
        deal = f"deal-{i % deals:04d}"
        if i % 3 == 0:
            obj = {"type": "ConsentGiven", "deal": deal, "date": day,
                   "data": {"holder": holder_name(i % 10), "matter": MATTERS[i % len(MATTERS)]}}
        elif i % 3 == 1:
            obj = {"type": "NoticeSent", "deal": deal, "date": day,
                   "data": {"to": "The Bank of New York, as Trustee",
                            "subject": f"late notice {i}", "method": "courier"}}
        else:
            obj = {"type": "HoldersAdvised", "deal": deal, "date": day, "data": {}}
        out.append({**obj, "source": "benchmark generator"})
    return out


def many_holders_default(deal: str, holders: int) -> list[Obj]:
    """SPEC §4.2 (i) for twenty years: Notes issued to ``holders`` Holders, the shelf
    never filed, so one Registration Default accrues from 2004-07-16 to maturity."""
    ev = [opening(deal)]
    cents = PRINCIPAL_CENTS // holders
    for i in range(holders):
        ev.append({"type": "NotesIssued", "deal": deal, "date": OPENED.isoformat(),
                   "data": {"holder": holder_name(i), "principal": _money(cents)}})
    return ev


def new_events(objs: list[Obj]) -> Iterator[Any]:
    """The objects validated as ``append`` validates them (``ledger.events.parse_event``)."""
    from ledger.events import parse_event

    for line, obj in enumerate(objs, start=1):
        yield parse_event(obj, line=line)

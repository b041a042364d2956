"""The agenda (issue 16): across the deals of a ledger, what falls due in a window, what
is overdue and what is at risk, one line each with its clause, sorted by date.

``agenda(ledger, ...)`` reads the store once (every record, grouped by deal), computes
each deal's ``projections.obligations.outlook`` and returns a plain dict: ``items``
(each with ``date, deal, category, due, kind, key, state, clause, text, holder,
amount``: ``date`` is the day a line is sorted by, which for an overdue obligation is the
first day it was violated, ``due`` its due day under the clause),
the window, and ``overdue`` (how many), which the CLI turns into its exit code.

Categories: ``overdue`` (an obligation violated and not cured on ``as_of``), ``due``
(pending, its due day in the window), ``at_risk`` (``outlook.Risk``: a default if
nothing is done by a day, suspension room, the next payment). Freshness: everything
is computed from the store as known at ``known_at``; the materialised views are not
read (a follow-up could read them when their recorded head equals the log's).
"""

from __future__ import annotations

import json
import os
from datetime import date, datetime, timedelta
from operator import itemgetter
from typing import Any, Callable, Iterable, Mapping

from ledger.collector import paused
from ledger.stored import REGISTRATION_RIGHTS, Event

CATEGORY_ORDER = {"overdue": 0, "due": 1, "at_risk": 2}
POOL_MIN_DEALS = 200
"""Below this many deals to compute, one process (a pool costs more than it saves)."""


def parts(workers: int) -> int:
    """Into how many chunks the deals are cut for ``workers`` processes: many, so that
    they end together (a chunk of the stream ranges costs one indexed query, ~0.02 ms),
    at most 256 (a chunk's number is one byte of a pipe)."""
    return min(256, workers * 64)


def window_end(start: date, days: int | None, business_days: int | None, calendar) -> date:
    """``--days N``: ``start`` + N calendar days; ``--business-days N``: the N-th Business
    Day after ``start`` (RRA §1 Business Day, with the deal's overrides)."""
    if business_days is not None:
        return calendar.add_business_days(start, business_days)
    return start + timedelta(days=30 if days is None else days)


def deal_histories(ledger: Any, deals: Iterable[str] | None = None) -> dict[str, list[Event]]:
    """Every deal's events, read in one pass over the log (``deals``: only those)."""
    return {deal: [Event.from_record(r) for r in records]
            for deal, records in deal_record_lists(ledger, deals).items()}


def deal_record_lists(ledger: Any, deals: Iterable[str] | None = None
                      ) -> dict[str, list[dict[str, Any]]]:
    """Every deal's stored records, read in one pass over the log (``deals``: only
    those): ``compute_entries(..., records=True)`` reads them as events where each deal
    is computed, in the worker processes when there are many."""
    from ledger.store.logread import log_records

    wanted = set(deals) if deals else None
    out: dict[str, list[dict[str, Any]]] = {}
    # plain JSON: read as ``log`` reads (one consistent view, the C JSON decoder alone: a
    # third less CPU than the library's event object per row)
    for record in log_records(ledger) if ledger.plain_json else ledger.records():
        deal = record.get("deal")
        if wanted is None or deal in wanted:
            out.setdefault(deal, []).append(record)
    return out


def deal_agenda(events: list[Event], *, as_of: date, start: date | None = None,
                days: int | None = None, business_days: int | None = None,
                known_at: datetime | None = None,
                interpretations: Mapping[str, str] | None = None
                ) -> tuple[list[dict[str, Any]], date] | None:
    """One deal's agenda lines and the end of its window (``None`` if the deal was not
    opened as known at ``known_at``). Pure."""
    found = _deal_agenda(events, as_of=as_of, start=start, days=days,
                         business_days=business_days, known_at=known_at,
                         interpretations=interpretations)
    return None if found is None else found[:2]


def _deal_agenda(events: list[Event], *, as_of: date, start: date | None = None,
                 days: int | None = None, business_days: int | None = None,
                 known_at: datetime | None = None,
                 interpretations: Mapping[str, str] | None = None
                 ) -> tuple[list[dict[str, Any]], date, str] | None:
    """``deal_agenda`` and the deal's kind."""
    from projections.obligations.outlook import outlook
    from projections.timeline import retracted_ids

    start = start or as_of
    known = events if known_at is None else [e for e in events if e.recorded_at <= known_at]
    dead = retracted_ids(known)
    if not any(e.type == "DealOpened" and e.id not in dead for e in known):
        return None
    o = outlook(events, as_of=as_of, start=start, known_at=known_at,
                interpretations=interpretations, open_only=True)   # only those are lines
    deal = o.deal
    end = window_end(start, days, business_days, o.timeline.calendar)
    items: list[dict[str, Any]] = []
    for d in o.duties:
        if d.state == "violated":
            items.append(_item(deal, "overdue", d.violated_since or d.due, d))
        elif d.state == "unknown":   # owed, to be computed once a fact is recorded
            items.append(_item(deal, "due", d.due, d))
        elif d.state == "due" and (d.due is None or d.due <= end) or (
                d.state == "upcoming" and d.due and start <= d.due <= end):
            items.append(_item(deal, "due", d.due, d))
    for k in o.risks:  # every risk: a default ahead, the room to suspend, the next payment
        items.append({"date": k.day.isoformat(), "deal": deal, "category": "at_risk",
                      "due": k.day.isoformat(),
                      "kind": k.kind, "key": k.key, "state": None, "clause": k.clause,
                      "text": k.text, "holder": k.holder, "amount": k.amount, "days": k.days})
    return items, end, o.kind


def letter_lines_hold(events: list[Event], *, as_of: date,
                      known_at: datetime | None = None) -> tuple[str | None, str | None]:
    """The as-of days ``[lo, hi)`` on which a Letter deal's agenda lines are the ones
    computed on ``as_of`` (ISO dates, ``None``: unbounded): the days with the same live
    events dated on or before them. The Letter's obligations are read from the true-up
    replay of those events alone (Letter ¶3 sets no day to perform, so nothing falls due
    or is violated by the passing of days, and the Letter has no at-risk lines); only the
    window's end moves, and it is not in a Letter deal's lines."""
    from projections.timeline import CORRECTIONS, retracted_ids

    known = [e for e in events if known_at is None or e.recorded_at <= known_at]
    dead = retracted_ids(known)
    days = [e.date for e in known if e.id not in dead and e.type not in CORRECTIONS]
    lo = max((day for day in days if day <= as_of), default=None)
    hi = min((day for day in days if day > as_of), default=None)
    return (lo and lo.isoformat(), hi and hi.isoformat())


def deal_entry(events: list[Event], *, holds: bool = True, **options: Any
               ) -> tuple[list[dict[str, Any]], date, tuple[str | None, str | None] | None] | None:
    """``deal_agenda`` and, for a Letter deal, the as-of days its lines hold for
    (``letter_lines_hold``; ``None`` for a Registration Rights deal, whose lines move
    with the day: accruals, deadlines, suspension room; and ``None`` for every deal
    without ``holds``: only the cache reads them)."""
    found = _deal_agenda(events, **options)
    if found is None:
        return None
    holds = None if not holds or found[2] == REGISTRATION_RIGHTS else letter_lines_hold(
        events, as_of=options["as_of"], known_at=options.get("known_at"))
    return found[0], found[1], holds


Render = Callable[[dict[str, Any]], str]
"""How a caller prints one agenda line (``agenda(..., render=...)``): called where the
deal is computed, in the forked workers when there are many."""


def _order(item: Mapping[str, Any]) -> tuple[str, int, str, str]:
    """The agenda's order: by date, then overdue, due, at risk, then deal and key."""
    return (item["date"] or "", CATEGORY_ORDER[item["category"]], item["deal"], item["key"])


def rendered(entry: tuple[list[dict[str, Any]], date, Any], render: Render
             ) -> tuple[list[tuple[tuple[str, int, str, str], str]], date, Any]:
    """A deal's entry with each line as ``(its place in the order, render(line))``."""
    return [(_order(i), render(i)) for i in entry[0]], entry[1], entry[2]


_WORK: tuple[Any, ...] | None = None   # what the forked workers inherit (_in_pool)


def _entries_of(keys: list[Any]) -> list[tuple[str, Any]]:
    histories, options, given, holds, parent, render = _WORK  # type: ignore[misc]
    # in a forked child, its own copy of the records: made into events in place
    # (events_of); in this process they are the caller's (the cache keeps them)
    return _entries(histories, keys, options, given, own=os.getpid() != parent,
                    holds=holds, render=render)


def _entries(histories: Mapping[Any, list[Any]], keys: list[Any],
             options: Mapping[str, Any], given: str = "events",
             own: bool = False, holds: bool = True,
             render: Render | None = None) -> list[tuple[str, Any]]:
    """``(deal, deal_entry)`` of each of ``keys`` of ``histories``, which hold each
    deal's ``given``: ``events`` (keyed by deal); ``records``, stored records (keyed by
    deal), made into events here; ``states``, a deal stream's undecoded rows
    (``ledger.store.logread.deal_states``, keyed by anything), decoded here; ``texts``, the
    JSON text of a deal's stored records (``publishing.agenda_cache``'s kept records,
    keyed by deal) or, for some, the records themselves, decoded here. With ``own``,
    records nobody reads afterwards (``ledger.stored.events_of`` types their data in
    place). With ``render``, each entry ``rendered``."""
    from ledger.store.logread import records_of_states
    from ledger.stored import events_of

    def events(key: Any) -> tuple[str, list[Event]]:
        if given == "events":
            return key, histories[key]
        if given == "states":
            found = events_of(records_of_states(histories[key]))
            return found[0].deal, found
        if given == "texts" and isinstance(histories[key], str):
            # records decoded just now are nobody else's: typed in place, in any process
            # (Event.from_record copies each, five times the work of events_of)
            return key, events_of(json.loads(histories[key]))
        if own:
            return key, events_of(histories[key])
        return key, [Event.from_record(r) for r in histories[key]]

    def entry(key: Any) -> tuple[str, Any]:
        deal, found = events(key)
        made = deal_entry(found, holds=holds, **options)
        return deal, made if render is None or made is None else rendered(made, render)

    with paused():   # short-lived acyclic objects: as in projections.report
        return [entry(key) for key in keys]


def _preload(day: date) -> None:
    """Import the engines and load the Fed holiday tables once, in the parent, so the
    forked workers inherit them instead of each paying for them (about 0.2 s)."""
    import projections.obligations.outlook  # noqa: F401
    import projections.registration.engine  # noqa: F401
    import projections.trueup.replay  # noqa: F401
    from ledger.calendar import FED

    for year in range(day.year - 3, day.year + 2):   # one of three days is a weekday
        for d in (1, 2, 3):
            FED.is_business_day(date(year, 1, d))


def _pool_size(deals: int) -> int:
    """How many processes share the deals: 1 (this one alone) below ``POOL_MIN_DEALS``,
    on one core, or where processes cannot be forked."""
    workers = min(os.cpu_count() or 1, 8)
    if deals < POOL_MIN_DEALS or workers < 2 or not hasattr(os, "fork"):
        return 1
    return workers


def _in_pool(task: Any, chunks: list[Any], work: tuple[Any, ...], workers: int,
             day: date) -> list[tuple[str, Any]]:
    """``task`` of each chunk, shared between this process and ``workers - 1`` forked
    children, which inherit ``work``; the ``(deal, entry)`` pairs in chunk order.

    Each process takes the next chunk nobody has taken (one byte read from a pipe that
    holds every chunk's number), so one that is ahead takes more and all end together;
    this process works too instead of waiting (on two cores: itself and one child, with
    no pool, queue or thread to start). A child sends back its chunks' pairs pickled
    (``ledger.forked.Child``); a child that fails only means no result, and its chunks
    are done here, where an error in them is raised as it would be in one process."""
    from ledger.forked import Child

    global _WORK
    _preload(day)
    _WORK = work
    taken, offered = os.pipe()
    children: list[Any] = []
    try:
        offer(offered, len(chunks))
        offered = -1
        for _ in range(workers - 1):
            try:
                children.append(Child(lambda: share(task, chunks, taken), collect=False))
            except OSError:   # no more processes to be had: fewer share the chunks
                break
        found = gather(task, chunks, share(task, chunks, taken), children)
        children = []
        return found
    finally:
        for child in children:   # this process failed: the children are not waited for
            child.stop()
        for end in (taken, offered):
            if end >= 0:
                os.close(end)
        _WORK = None


def offer(offered: int, chunks: int) -> None:
    """Every chunk's number into the pipe ``offered``, which is then closed."""
    assert chunks <= 256   # a chunk's number is one byte
    try:
        os.write(offered, bytes(range(chunks)))   # a pipe holds 64 KiB: never blocks
    finally:
        os.close(offered)


def share(task: Any, chunks: list[Any], taken: int) -> dict[int, list[tuple[str, Any]]]:
    """``task`` of each chunk this process takes from the pipe ``taken``, by number."""
    done = {}
    while number := os.read(taken, 1):
        done[number[0]] = task(chunks[number[0]])
    return done


def gather(task: Any, chunks: list[Any], done: dict[int, list[tuple[str, Any]]],
           children: list[Any]) -> list[tuple[str, Any]]:
    """What this process did and what ``children`` (``ledger.forked.Child``) send back,
    in chunk order; the chunks of a child that failed done here."""
    for child in children:
        done.update(child.result() or {})
    return [x for n in range(len(chunks)) for x in (done[n] if n in done else task(chunks[n]))]


def compute_entries(histories: Mapping[Any, list[Any]], options: Mapping[str, Any],
                    *, records: bool = False, given: str | None = None, holds: bool = True,
                    render: Render | None = None
                    ) -> dict[str, tuple[list[Any], date, Any]]:
    """``deal_entry`` of every deal in ``histories`` (deals not opened left out), which
    hold each deal's events, or with ``records`` its stored records, read as events
    where the deal is computed, or with ``given="states"`` its stored rows undecoded,
    or with ``given="texts"`` their JSON text (``_entries``). From ``POOL_MIN_DEALS`` deals on, on a machine with more than one
    core, the deals are shared out between this process and forked ones (each inherits
    the histories; only their keys go out and lines come back, ``_in_pool``); the
    result is the same either way. ``holds``: the Letter deals' ``letter_lines_hold``
    too (the cache's). ``render``: each entry ``rendered``."""
    given = given or ("records" if records else "events")
    keys = sorted(histories)
    workers = _pool_size(len(keys))
    if workers > 1:
        size = -(-len(keys) // parts(workers))
        chunks = [keys[i:i + size] for i in range(0, len(keys), size)]
        found = _in_pool(_entries_of, chunks,
                         (histories, options, given, holds, os.getpid(), render), workers,
                         options["as_of"])
    else:
        found = _entries(histories, keys, options, given, holds=holds, render=render)
    return {deal: entry for deal, entry in found if entry is not None}


def _range_entries(span: tuple[str, str | None]) -> list[tuple[str, Any]]:
    """In a worker: ``deal_entry`` of the deal streams whose ids are in ``span``, read
    from the store here (``ledger.store.logread.states_in_range``)."""
    from ledger.store.logread import states_in_range

    split, options, render = _WORK  # type: ignore[misc]   # inherited by the fork
    states = dict(enumerate(states_in_range(split, *span)))
    return _entries(states, list(states), options, "states", holds=False, render=render)


def every_deal_entries(ledger: Any, options: Mapping[str, Any],
                       render: Render | None = None, helpers: Any = None
                       ) -> dict[str, tuple[list[Any], date, Any]]:
    """``compute_entries`` of every deal of a ledger whose states are plain JSON (without
    the Letter deals' ``holds``, which only the cache reads): with more than one
    process, each reads its share of the deal streams itself, as of one moment
    (``ledger.store.logread.stream_split``: the parent reads nothing else before sharing
    out); else the rows are read undecoded here and decoded deal by deal. ``render``:
    each entry ``rendered``. ``helpers``: the other processes, forked already
    (``publishing.agenda_helpers``), stopped if not needed."""
    from ledger.store.logread import close_reader, deal_states, split_spans, stream_split

    split = stream_split(ledger)
    workers = _pool_size(split.streams) if split is not None else 1
    if workers > 1:
        try:
            if helpers is not None:
                found = helpers.run(split, options, render)
            else:
                found = _in_pool(_range_entries, split_spans(parts(workers)),
                                 (split, options, render), workers, options["as_of"])
        finally:
            close_reader()
        return {deal: entry for deal, entry in found if entry is not None}
    if helpers is not None:
        helpers.dismiss()
    return compute_entries(dict(enumerate(deal_states(ledger))), options, given="states",
                           holds=False, render=render)


def assemble(per_deal: Mapping[str, tuple[list[Any], date]], *, as_of: date,
             start: date | None, days: int | None, business_days: int | None,
             known_at: datetime | None, render: bool = False) -> dict[str, Any]:
    """The agenda of several deals' lines: sorted by date, then overdue, due, at risk
    (``_order``). With ``render``, the entries are ``rendered`` and the agenda has the
    texts in that order as ``lines`` instead of ``items``."""
    start = start or as_of
    items = [i for lines, *_ in per_deal.values() for i in lines]
    if render:
        items.sort(key=itemgetter(0))
        overdue = sum(1 for order, _ in items if order[1] == 0)
    else:
        items.sort(key=_order)
        overdue = sum(1 for i in items if i["category"] == "overdue")
    ends = [entry[1] for entry in per_deal.values()]
    return {"as_of": as_of.isoformat(), "from": start.isoformat(),
            "to": (max(ends) if ends else window_end(start, days, business_days, _fed())
                   ).isoformat(),
            "known_at": None if known_at is None else known_at.isoformat(),
            "deals": sorted(per_deal), "overdue": overdue,
            **({"lines": [text for _, text in items]} if render else {"items": items})}


def agenda_of(histories: Mapping[str, list[Event]], *, as_of: date, start: date | None = None,
              days: int | None = None, business_days: int | None = None,
              known_at: datetime | None = None,
              interpretations: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The agenda of the deals in ``histories`` (pure: no store)."""
    per_deal = compute_entries(histories, dict(
        as_of=as_of, start=start, days=days, business_days=business_days,
        known_at=known_at, interpretations=interpretations), holds=False)
    return assemble(per_deal, as_of=as_of, start=start, days=days,
                    business_days=business_days, known_at=known_at)


def _fed():
    from ledger.calendar import FED

    return FED


def _item(deal: str, category: str, day: date | None, d) -> dict[str, Any]:
    text = d.obligation + (f" ({d.amount})" if d.amount is not None else "") + (
        f" ({d.shares} shares)" if d.shares else "") + (
        f": {'; '.join(d.triggered)}" if category == "overdue" and d.triggered else "")
    return {"date": day.isoformat() if day else None, "deal": deal, "category": category,
            "due": d.due.isoformat() if d.due else None,
            "kind": d.kind, "key": d.key, "state": d.state, "clause": d.clause, "text": text,
            "holder": d.holder, "amount": None if d.amount is None else format(d.amount, "f"),
            "days": None}


def agenda(ledger: Any, *, deals: Iterable[str] | None = None, cache: str | None = None,
           render: Render | None = None, helpers: Any = None, **options: Any
           ) -> dict[str, Any]:
    """``agenda_of`` over the ledger's deals (or ``deals``); ``UsageError`` naming an
    unknown deal. With ``cache`` (a file path), each deal's lines are kept there and
    reused while fresh (``publishing.agenda_cache``). With ``render``, the agenda has
    ``lines``, each item as ``render`` prints it, instead of ``items`` (``assemble``):
    each rendered where its deal is computed, in parallel when there are many.
    ``helpers`` (``publishing.agenda_helpers.start_helpers`` of the same options and
    render): the processes to share every deal with, forked before the ledger was
    opened; stopped here if not needed."""
    # the rows read and the lines that come back are acyclic and kept to the end: the
    # collector's passes would only walk them again and again (ledger.collector)
    try:
        with paused():
            return _agenda(ledger, deals, cache, options, render, helpers)
    finally:
        if helpers is not None:
            helpers.dismiss()


def _agenda(ledger: Any, deals: Iterable[str] | None, cache: str | None,
            options: dict[str, Any], render: Render | None = None,
            helpers: Any = None) -> dict[str, Any]:
    from ledger.errors import UsageError

    if cache is not None:
        from .agenda_cache import cached_lines

        per_deal = cached_lines(ledger, cache, options, compute_entries, window_end)
        if render is not None:
            per_deal = {deal: rendered(entry, render) for deal, entry in per_deal.items()}
    elif deals is None and ledger.plain_json:
        # every deal, its rows decoded where it is computed (in the forked workers when
        # there are many, which read their share themselves: the read is theirs)
        per_deal = every_deal_entries(ledger, options, render, helpers)
    else:
        per_deal = compute_entries(deal_record_lists(ledger, deals), options, records=True,
                                   holds=False, render=render)
    wanted = set(deals or ())
    missing = sorted(wanted - set(per_deal))
    if missing:
        known = ", ".join(sorted(per_deal if cache is not None else deal_record_lists(ledger)))
        raise UsageError(f"no deal {missing[0]!r} in the ledger; known: {known or 'none'}",
                         field="--deal")
    if wanted:
        per_deal = {k: v for k, v in per_deal.items() if k in wanted}
    return assemble(per_deal, as_of=options["as_of"], start=options.get("start"),
                    days=options.get("days"), business_days=options.get("business_days"),
                    known_at=options.get("known_at"), render=render is not None)


CSV_FIELDS = ("date", "deal", "category", "due", "kind", "state", "clause", "text", "holder",
              "amount", "key")

"""What if: the report of a changed history beside the real one, figure by figure.

``whatif(events, changes, as_of=...)`` is pure. ``Changes`` adds events, drops events,
replaces events, and switches interpretations. The changed history is checked by the
same write-side rules the store applies (``ledger.guards``), in recorded order, so an
added event that the store would refuse, or a drop that leaves a later event breaking a
rule, is refused with one line naming where it came from, the field and the rule.

* An added event gets the id ``whatif-N``, a ``seq`` after the deal's last and a
  ``recorded_at`` one microsecond apart after the last real one; it always counts, even
  with ``known_at`` (which limits only the real history).
* A replacement takes the place of the event it replaces: same ``seq`` and
  ``recorded_at`` (so ``known_at`` treats it as the original), id ``whatif-rN``.
* A dropped event is as if never recorded.
* The baseline is the real history under the default interpretations; the scenario is
  the changed history under the interpretations of ``changes``.

The result holds both reports, ``impact`` (what differs, money first:
``projections.impact``) and ``diff``: one row per figure that differs
(``figure`` path as ``projections.figures.figure_paths`` names it, ``baseline``,
``scenario``, ``change``: changed, added, removed), leaving out ``basis`` trees and
event-id lists, which are provenance rather than figures.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from types import MappingProxyType
from decimal import Decimal
from typing import Any, Iterable, Mapping, Sequence

from ledger import guards
from ledger.errors import LedgerError, UsageError
from ledger.events import Event, NewEvent, format_timestamp
from ledger.references import parse_reference

from .figures import NOISE, dotted_prefixes, entry_selectors, quote_key, strip_basis
from .impact import impact
from .interpretations import resolve
from .report import report



class ScenarioError(LedgerError):
    """A change the store would refuse, naming where it came from (a file and line, or a
    real event the change now breaks), the field and the rule."""

    exit_code = 3

    def __init__(self, message: str, *, origin: str | None = None, line: int | None = None,
                 field: str | None = None, rule: str | None = None):
        self.origin = origin
        super().__init__(message, line=line, field=field, rule=rule)

    def render(self) -> str:
        head = " ".join(p for p in (getattr(self, "origin", None),
                                    f"line {self.line}" if self.line is not None else None) if p)
        if self.field:
            head = f"{head}, field '{self.field}'" if head else f"field '{self.field}'"
        text = f"{head}: {self.message}" if head else self.message
        if self.rule:
            text += f" [{self.rule}]"
        return text.replace("\n", " ")


@dataclass(frozen=True)
class Addition:
    """One event of a change, with where it came from (``add.jsonl``, ``scenario 'x'``)."""

    event: NewEvent
    origin: str


@dataclass(frozen=True)
class Changes:
    add: tuple[Addition, ...] = ()
    drop: tuple[str, ...] = ()
    replace: tuple[tuple[str, Addition], ...] = ()
    interpretations: Mapping[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.add or self.drop or self.replace or self.interpretations)

    def merged(self, other: "Changes") -> "Changes":
        """These changes, then ``other``'s (its interpretations win)."""
        return Changes(self.add + other.add, self.drop + other.drop,
                       self.replace + other.replace,
                       {**self.interpretations, **other.interpretations})

    def describe(self) -> dict[str, Any]:
        """The changes as data (events in the public format, SPEC §3)."""
        return {"add": [a.event.envelope() for a in self.add], "drop": list(self.drop),
                "replace": {i: a.event.envelope() for i, a in self.replace},
                "interpretations": dict(self.interpretations)}


# ----------------------------------------------------------------- the changed history


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, (dict, MappingProxyType)):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _record(e: Event) -> dict[str, Any]:
    """A stored event in the record form the write-side rules read (``ledger.guards``:
    type, deal, date, data, id, seq, key)."""
    return {"id": e.id, "seq": e.seq, "type": e.type, "deal": e.deal, "date": e.date.isoformat(),
            "data": _plain(e.data), "key": e.key}


def _stored(new: NewEvent, *, id: str, seq: int, at: datetime) -> Event:
    record = {**new.envelope(), "id": id, "seq": seq, "recorded_at": format_timestamp(at),
              "recorded_by": "whatif", "prev_hash": "", "hash": ""}
    return Event.from_record(record)


def resolve_id(text: str, by_id: Mapping[str, Event], option: str, deal: str) -> str:
    """The id of the event of the deal ``text`` names: ``seq:N``, or its id or the start
    of it, at least 6 characters (``ledger.references``; the 8 characters ``log`` shows
    always do); ``UsageError`` naming ``option`` and, for an ambiguous prefix, the
    candidates."""
    if text in by_id:
        return text
    ref = parse_reference(text, field=option)
    found = [i for i, e in by_id.items() if ref.names(i, getattr(e, "seq", -1))]
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        shown = ", ".join(f"{i[:12]} (seq {getattr(by_id[i], 'seq', '?')} "
                          f"{getattr(by_id[i], 'type', 'event')})" for i in found[:5])
        more = f" and {len(found) - 5} more" if len(found) > 5 else ""
        raise UsageError(f"{text!r} is the start of {len(found)} event ids of deal {deal}: "
                         f"{shown}{more}; give more of it, or seq:N", field=option)
    raise UsageError(f"no event {text!r} in deal {deal}", field=option)


def _check_ids(events: Sequence[Event], changes: Changes, deal: str
               ) -> tuple[list[str], dict[str, Addition]]:
    by_id = {e.id: e for e in events}
    drops: list[str] = []
    for text in changes.drop:
        i = resolve_id(text, by_id, "--drop", deal)
        if by_id[i].type == "DealOpened":
            raise UsageError("the DealOpened event cannot be dropped: a deal's history starts "
                             "with it", field="--drop")
        if i in drops:
            raise UsageError(f"event {i} is dropped twice", field="--drop")
        drops.append(i)
    replaced: dict[str, Addition] = {}
    for text, addition in changes.replace:
        i = resolve_id(text, by_id, "--replace", deal)
        if by_id[i].type == "DealOpened":
            raise UsageError("the DealOpened event cannot be replaced", field="--replace")
        if i in replaced or i in drops:
            raise UsageError(f"event {i} is dropped or replaced twice", field="--replace")
        replaced[i] = addition
    return drops, replaced


def resolve_changes(events: Sequence[Event], changes: Changes) -> Changes:
    """``changes`` with every id prefix spelled out in full (what a saved scenario keeps);
    ``UsageError`` for an unknown, ambiguous or unchangeable id."""
    ordered = sorted(events, key=lambda e: e.seq)
    if not ordered:
        raise UsageError("the deal has no events", field="DEAL")
    drops, replaced = _check_ids(ordered, changes, ordered[0].deal)
    return Changes(changes.add, tuple(drops), tuple(replaced.items()),
                   dict(changes.interpretations))


def changed_history(events: Sequence[Event], changes: Changes
                    ) -> tuple[list[Event], list[Event]]:
    """The deal's events with ``changes`` applied: ``(kept and replaced, added)``, each in
    recorded order, checked by the store's write-side rules. Raises ``UsageError`` for an
    unknown or unchangeable id and ``ScenarioError`` for a refused change."""
    ordered = sorted(events, key=lambda e: e.seq)
    if not ordered:
        raise UsageError("the deal has no events", field="DEAL")
    deal = ordered[0].deal
    drops, replaced = _check_ids(ordered, changes, deal)
    for a in [*changes.add, *replaced.values()]:
        if a.event.deal != deal:
            raise ScenarioError(f"what-if events must be for deal {deal}, not {a.event.deal}",
                                origin=a.origin, line=a.event.line, field="deal")
    kept: list[Event] = []
    sources: dict[str, tuple[str, int | None]] = {}   # changed event id: (origin, line)
    for e in (e for e in ordered if e.id not in drops):
        if e.id in replaced:
            a = replaced[e.id]
            new = _stored(a.event, id=f"whatif-r{len(sources) + 1}", seq=e.seq, at=e.recorded_at)
            line = f" line {a.event.line}" if a.event.line is not None else ""
            sources[new.id] = (f"{a.origin}{line} (replacing {e.id})", None)
            kept.append(new)
        else:
            kept.append(e)
    last_seq, last_at = ordered[-1].seq, max(e.recorded_at for e in ordered)
    added = []
    for k, a in enumerate(changes.add, start=1):
        new = _stored(a.event, id=f"whatif-{k}", seq=last_seq + k,
                      at=last_at + timedelta(microseconds=k))
        sources[new.id] = (a.origin, a.event.line)
        added.append(new)
    seq_of = {e.id: e.seq for e in ordered}
    first = min([seq_of[i] for i in [*drops, *replaced]] + [e.seq for e in added],
                default=None)
    _check_rules([*kept, *added], first, sources)
    return kept, added


def _check_rules(history: list[Event], first: int | None,
                 sources: Mapping[str, tuple[str, int | None]]) -> None:
    """Fold the changed history through ``ledger.guards`` as the store would append it,
    checking every event from ``first`` (the first changed seq) on; the real events
    before it are folded without a check (the store checked them). Nothing changed in
    the events (interpretations only): nothing to check."""
    if first is None:
        return
    state = guards.new_state()
    records = [_record(e) for e in history]
    batch = guards.Batch(records)   # a later event may take effect first (ledger.dayorder)
    for i, (e, record) in enumerate(zip(history, records)):
        if first is not None and e.seq >= first:
            try:
                guards.check(state, record, batch, i)
            except LedgerError as err:
                if e.id in sources:
                    origin, line = sources[e.id]
                    raise ScenarioError(err.message, origin=origin, line=line,
                                        field=err.field, rule=err.rule) from None
                raise ScenarioError(f"{err.message} (after the changes asked for)",
                                    origin=f"event {e.id} ({e.type} of {e.date}, seq {e.seq})",
                                    field=err.field, rule=err.rule) from None
        guards.fold(state, record)


# --------------------------------------------------------------------------- reports


def _known(events: Iterable[Event], known_at: datetime | None) -> list[Event]:
    return [e for e in events if known_at is None or e.recorded_at <= known_at]


#: An obligation's provenance, not its figures: how its due day was worked out, the
#: readings in force, the event that met it. Switching an interpretation changed these on
#: every obligation it touches (22 rows on the demo for a questionnaire_deadline that
#: changed no state, day or amount); its due day, state, since, by and amount still show.
OBLIGATION_PROVENANCE = frozenset({"explanation", "interpretations", "by_event"})


def diff(baseline: Mapping[str, Any], scenario: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The figures that differ between two reports, in report order. List entries are
    matched by the selectors ``figure_paths`` gives them; an entry on one side only is one
    row (its figures as the value), as is a key on one side only."""
    rows: list[dict[str, Any]] = []

    def row(path: str, a: Any, b: Any, change: str) -> None:
        rows.append({"figure": path, "baseline": a, "scenario": b, "change": change})

    def walk(a: Any, b: Any, path: str, key: str | None) -> None:
        if a == b:  # most of a report is unchanged: compared at C speed, not walked
            return
        if isinstance(a, dict) and isinstance(b, dict):
            keys = [*a, *(k for k in b if k not in a)]
            dotted = dotted_prefixes(keys)
            for k in keys:
                if k in NOISE or (k in OBLIGATION_PROVENANCE and path.startswith("obligations[")):
                    continue
                sub = (path + "." if path else "") + quote_key(k, keys, dotted)
                if k not in b:
                    row(sub, strip_basis(a[k]), None, "removed")
                elif k not in a:
                    row(sub, None, strip_basis(b[k]), "added")
                else:
                    walk(a[k], b[k], sub, k)
            return
        if (isinstance(a, list) and isinstance(b, list)
                and any(isinstance(e, (dict, list)) for e in [*a, *b])):
            left_sel, right_sel = paired_selectors(key, a, b)
            left = dict(zip(left_sel, a))
            right = dict(zip(right_sel, b))
            for sel in [*left, *(s for s in right if s not in left)]:
                if sel not in right:
                    row(path + sel, strip_basis(left[sel]), None, "removed")
                elif sel not in left:
                    row(path + sel, None, strip_basis(right[sel]), "added")
                else:
                    walk(left[sel], right[sel], path + sel, None)
            return
        if strip_basis(a) != strip_basis(b):
            row(path, strip_basis(a), strip_basis(b), "changed")

    walk(baseline, scenario, "", None)
    return rows


def paired_selectors(key: str | None, a: list, b: list) -> tuple[list[str], list[str]]:
    """The entries' selectors on both sides, an ordinal added on both where a name is
    shared on either: a deal with one (iv)(A) default gains a second in the scenario, and
    ``[kind=(iv)(A)]`` against ``[kind=(iv)(A)][0]`` read as the first one removed and two
    added; ``[kind=(iv)(A)][0]`` now meets itself (unchanged) and ``[1]`` is added."""
    import re

    left, right = entry_selectors(key, a), entry_selectors(key, b)
    named = re.compile(r"^(\[[^\]]*=.*?\])(?:\[\d+\])?$")

    def names(selectors: list[str]) -> list[str | None]:
        return [m.group(1) if (m := named.match(s)) else None for s in selectors]

    ln, rn = names(left), names(right)
    shared = {n for side in (ln, rn) for n, times in Counter(side).items()
              if n is not None and times > 1}

    def indexed(selectors: list[str], ns: list[str | None]) -> list[str]:
        seen: dict[str, int] = {}
        out = []
        for s, n in zip(selectors, ns):
            if n in shared:
                out.append(f"{n}[{seen.get(n, 0)}]")
                seen[n] = seen.get(n, 0) + 1
            else:
                out.append(s)
        return out

    return indexed(left, ln), indexed(right, rn)


def obligation_changes(baseline: Mapping[str, Any], scenario: Mapping[str, Any]
                       ) -> list[dict[str, Any]]:
    """The obligations (report key ``obligations``, by their stable ``key``) whose due day
    or state differ, or that one side only has: the agenda's difference."""
    a = {o["key"]: o for o in baseline.get("obligations", ())}
    b = {o["key"]: o for o in scenario.get("obligations", ())}
    rows = []
    for key in [*a, *(k for k in b if k not in a)]:
        x, y = a.get(key), b.get(key)
        pick = (lambda o: None if o is None else
                {"due": o["due"], "state": o["state"], "amount": o.get("amount")})
        if pick(x) != pick(y):
            rows.append({"key": key, "clause": (y or x)["clause"],
                         "obligation": (y or x)["obligation"],
                         "baseline": pick(x), "scenario": pick(y)})
    return rows


def forward(events: Sequence[Event], kept: list[Event], added: list[Event],
            changes: Changes, *, as_of: date, through: date | None,
            known_at: datetime | None) -> dict[str, Any] | None:
    """Issue 16, what-if forward: changed events dated after ``as_of`` do not count on
    ``as_of``; both histories are judged again on ``through`` (default: the latest such
    date), so "if we file on D, or start a suspension on D" shows the obligations and the
    money differ. ``None`` when no change is dated after ``as_of`` and no ``through``."""
    later = [e.date for e in [*added, *kept] if e.id.startswith("whatif") and e.date > as_of]
    day = through or (max(later) if later else None)
    if day is None or day <= as_of:
        return None
    baseline = report(_known(events, known_at), as_of=day, bases=False)
    scenario = report(_known(kept, known_at) + added, as_of=day,
                      interpretations=changes.interpretations, bases=False)
    rows, moved = diff(baseline, scenario), obligation_changes(baseline, scenario)
    return {"judged_on": day.isoformat(), "later_changes": sorted({d.isoformat() for d in later}),
            "diff": rows, "obligations": moved,
            "impact": impact(baseline, scenario, rows, moved)}


def whatif(events: Sequence[Event], changes: Changes, *, as_of: date,
           known_at: datetime | None = None, bases: bool = False,
           through: date | None = None) -> dict[str, Any]:
    """The report of the real history (default interpretations) and of the changed one,
    and the figures that differ (module doc). The diff compares figures, not their
    explanations, so each Holder's payment explanation is built only with ``bases``
    (for callers that show the two reports whole). ``obligations``: the obligations that
    differ on ``as_of``; ``forward``: the same comparison on a later day when changes
    are dated after ``as_of`` (``forward``), else ``None``."""
    resolve(changes.interpretations)  # ValueError for an unknown name or value
    # the changes are made to, and checked against, the history known at ``known_at``: a
    # later-recorded event could neither refuse them nor make them valid (a review of
    # stop 19 found both: a SuspensionEnded refused for one recorded after known_at, and
    # one accepted with no period open at known_at)
    events = _known(events, known_at)
    changes = resolve_changes(events, changes)
    kept, added = changed_history(events, changes)
    head_known = format_timestamp(known_at) if known_at else None
    baseline = report(_known(events, known_at), as_of=as_of, bases=bases)
    scenario = report(_known(kept, known_at) + added, as_of=as_of,
                      interpretations=changes.interpretations, bases=bases)
    baseline["known_at"] = scenario["known_at"] = head_known
    rows, moved = diff(baseline, scenario), obligation_changes(baseline, scenario)
    return {"deal": baseline["deal"], "as_of": as_of.isoformat(), "known_at": head_known,
            "changes": changes.describe(),
            "added_ids": {e.id: a.origin for e, a in zip(added, changes.add)},
            "baseline": baseline, "scenario": scenario, "diff": rows, "obligations": moved,
            "impact": impact(baseline, scenario, rows, moved),
            "forward": forward(events, kept, added, changes, as_of=as_of, through=through,
                               known_at=known_at)}

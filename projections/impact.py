"""What a change does to a deal, money first (issue 31): the answer of ``whatif`` and of
``append --dry-run``, read from the two reports (SPEC §7) before and after.

1. **money**: each Holder's Additional Interest owed and paid per Interest Payment Date
   (RRA §3(a), §3(b)), the amount accrued to the day, and each Holder's true-up shares
   owed, issued and outstanding (Letter ¶3);
2. **defaults**: the Registration Defaults that appear, disappear or move (RRA §3(a));
3. **obligations** whose state, due day or amount moved (``whatif.obligation_changes``,
   given);
4. **other**: every other figure that differs, by its path (``whatif.diff``, given), for
   those who ask (``--verbose``, ``--json``).

A report that does not exist (a deal the change opens) is ``None``: everything in the
other one appears. Pure: no I/O.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

#: the report paths the first three parts read (the rest of the diff is "other")
SHOWN = ("additional_interest.payments", "additional_interest.by_holder",
         "additional_interest.accrued_to_as_of", "additional_interest.paid_to_as_of",
         "true_up.holders", "registration.defaults", "obligations")


def _payments(report: Mapping[str, Any] | None) -> dict[tuple[str, str], dict[str, Any]]:
    """``(payment date, Holder)``: what is owed and what was paid (RRA §3(b))."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for p in ((report or {}).get("additional_interest") or {}).get("payments", ()):
        for holder in sorted({*p.get("amounts", {}), *p.get("paid", {})}):
            out[(p["payment_date"], holder)] = {"owed": p.get("amounts", {}).get(holder),
                                                "paid": p.get("paid", {}).get(holder)}
    return out


def _true_ups(report: Mapping[str, Any] | None) -> dict[str, Mapping[str, Any]]:
    return dict(((report or {}).get("true_up") or {}).get("holders", {}))


def _defaults(report: Mapping[str, Any] | None) -> dict[tuple[str, int], Mapping[str, Any]]:
    """Each Registration Default by its kind and its place among those of its kind (a
    change that moves a default date moves the default, it does not make another)."""
    out: dict[tuple[str, int], Mapping[str, Any]] = {}
    for d in ((report or {}).get("registration") or {}).get("defaults", ()):
        n = sum(1 for kind, _ in out if kind == d["kind"])
        out[(d["kind"], n)] = d
    return out


def money_changes(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None
                  ) -> list[dict[str, Any]]:
    """Rows ``{holder, payment_date, figure, clause, before, after}`` for each amount that
    differs: owed and paid per Holder and Interest Payment Date, then the totals accrued
    to the day, then true-up shares per Holder. ``None``: the figure is not there."""
    rows: list[dict[str, Any]] = []
    a, b = _payments(before), _payments(after)
    for key in sorted({*a, *b}):
        day, holder = key
        for figure in ("owed", "paid"):
            x, y = (a.get(key) or {}).get(figure), (b.get(key) or {}).get(figure)
            if x != y:
                rows.append({"holder": holder, "payment_date": day,
                             "figure": f"Additional Interest {figure}",
                             "clause": "RRA §3(a)" if figure == "owed" else "RRA §3(b)",
                             "before": x, "after": y})
    for name, label, clause in (
            ("accrued_to_as_of", "Additional Interest accrued to the day", "RRA §3(a)"),
            ("paid_to_as_of", "Additional Interest paid to the day", "RRA §3(b)")):
        x = ((before or {}).get("additional_interest") or {}).get(name)
        y = ((after or {}).get("additional_interest") or {}).get(name)
        if x != y:
            rows.append({"holder": None, "payment_date": None, "figure": label,
                         "clause": clause, "before": x, "after": y})
    t, u = _true_ups(before), _true_ups(after)
    for holder in sorted({*t, *u}):
        for figure in ("owed", "issued", "outstanding"):
            x, y = (t.get(holder) or {}).get(figure), (u.get(holder) or {}).get(figure)
            if x != y:
                rows.append({"holder": holder, "payment_date": None,
                             "figure": f"true-up shares {figure}", "clause": "Letter ¶3",
                             "before": x, "after": y})
    return rows


def _accrues(d: Mapping[str, Any] | None) -> str | None:
    if d is None:
        return None
    until = d.get("accrual_until") or d.get("cured_on")
    return (f"default date {d['default_date']}, accrues from {d['accrual_from']}"
            + (f" to {until} (exclusive)" if until else ", not cured"))


def default_changes(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None
                    ) -> list[dict[str, Any]]:
    """Rows ``{default, clause, before, after}`` for each Registration Default that
    appears, disappears or accrues over other days (RRA §3(a))."""
    a, b = _defaults(before), _defaults(after)
    rows = []
    for key in [*a, *(k for k in b if k not in a)]:
        x, y = _accrues(a.get(key)), _accrues(b.get(key))
        if x != y:
            kind, n = key
            many = (kind, 1) in a or (kind, 1) in b
            rows.append({"default": f"Registration Default {kind}"
                                    + (f" (the {_ORDINALS.get(n, f'{n + 1}th')})" if many
                                       else ""),
                         "clause": (b.get(key) or a.get(key) or {}).get("clause"),
                         "before": x, "after": y})
    return rows


_ORDINALS = {0: "first", 1: "second", 2: "third"}


def impact(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None,
           rows: Sequence[Mapping[str, Any]], obligations: Sequence[Mapping[str, Any]]
           ) -> dict[str, list[Any]]:
    """What differs between two reports of one deal, money first (module doc); ``rows``
    and ``obligations``: their ``whatif.diff`` and ``whatif.obligation_changes``."""
    other = [dict(r) for r in rows if not any(r["figure"] == p or r["figure"].startswith(
        (p + ".", p + "[")) for p in SHOWN)]
    return {"money": money_changes(before, after),
            "defaults": default_changes(before, after),
            "obligations": [dict(o) for o in obligations],
            "other": other}

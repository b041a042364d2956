"""Write-side rules a registration rights deal's own terms set (``ledger.guards`` calls them).

The guard state keeps the deal's terms in force (``state["terms"]``: the ``DealOpened``
terms as stored, without the quotations, with every live ``TermsAmended`` applied in the
order recorded; ``state["base_terms"]`` the terms it opened with), so that an event the
agreement does not allow is refused before it is written: a notice by a method the
agreement does not name, an acknowledgment of a notice its method does not need, a
payment in cash where the agreement pays in shares (or the other way), a Questionnaire
request where there is no Questionnaire, a Suspension Period where there is no right to
suspend or after the Effectiveness Period has ended by an anniversary or the Rule 144(k)
date, and an amendment that the consents recorded do not carry by the majority its
amendment clause asks for.

A Majority of Holders on a day (RRA §1, §10(D), §10(H)) is read here from the guard
state's timelines as ``projections.registration.majority`` reads it from the events: the
principal of Notes outstanding held (restricted or not), plus restricted Conversion Shares
at the prevailing conversion price where the terms count them, the Company's affiliates
left out where the terms say so; a consent counts from a Holder (a Person owning restricted
Notes or Conversion Shares), its first to the matter, given on or before the day.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any, Mapping

from .errors import RuleViolation
from .registration_terms import merge_patch
from .resales import Positions

SALES = {"shelf_sale": "shelf", "rule_144_sale": "rule_144"}

#: what an amendment may not change, and why (``projections.registration.amended``
#: splices the figures of each version by date; these would move figures before the
#: effective date, or are not the agreement's to change)
FIXED: dict[tuple[str, ...], str] = {
    ("version",): "the schema version of the terms",
    ("text",): "the agreement's text",
    ("agreement_date",): "the agreement's date",
    ("closing_date",): "the closing",
    ("issue_date",): "the Issue Date",
    ("maturity",): "the Notes' own terms (the Indenture)",
    ("conversion_price",): "record a ConversionPriceAdjusted",
    ("payment",): "how and when Additional Interest is paid would move the amounts of "
                  "periods before it",
    ("transfer_restricted",): "which securities are restricted would move the amounts "
                              "before it",
    ("damages", "base"): "what damages accrue on would move the amounts before it",
    ("damages", "conversion_shares"): "what damages accrue on would move the amounts "
                                      "before it",
    ("readings",): "a reading is switched with --interpret, or fixed when the deal is opened",
}


def guard_terms(terms: Mapping[str, Any]) -> Any:
    """The terms as the guard state keeps them: without the quotations (not a rule)."""
    if isinstance(terms, Mapping):
        return {k: guard_terms(v) for k, v in terms.items() if k != "quote"}
    if isinstance(terms, list):
        return [guard_terms(v) for v in terms]
    return terms


def frees(terms: Mapping[str, Any]) -> frozenset[str]:
    """The sales (``under``) that end a security's restriction."""
    until = terms.get("transfer_restricted", {}).get("until", ["shelf_sale"])
    return frozenset(SALES[x] for x in until if x in SALES)


def _years_after(day: date, years: int) -> date:
    try:
        return day.replace(year=day.year + years)
    except ValueError:  # 29 February
        return day.replace(year=day.year + years, day=28)


def period_end(state: dict[str, Any], shelf: Mapping[str, Any]) -> tuple[date, str] | None:
    """RRA §2(a)(iii): the end of the Effectiveness Period fixed by a day (an anniversary
    of effectiveness, the Issue Date, the closing or the last issue of Notes; the Rule
    144(k) date), as known now, and the clause; (y) and (z) are
    ``guards._check_period_end``'s. ``None`` when none is known."""
    terms = state["terms"]
    period = terms.get("effectiveness_period", {})
    found: list[tuple[date, str]] = []
    effective = shelf.get("effective")
    for end in period.get("ends", ()):
        if end["end"] == "anniversary":
            of = end.get("of")
            if of == "effective":
                start = date.fromisoformat(effective) if effective else None
            elif of == "last_option_issue":
                start = max([_issued(terms), *_issue_days(state)])
            else:
                start = (_issued(terms) if of == "issue_date"
                         else date.fromisoformat(terms["closing_date"]))
            if start is not None:
                found.append((_years_after(start, end["years"]), end["section"]))
        elif end["end"] == "rule_144k" and shelf.get("rule_144k"):
            found.append((date.fromisoformat(shelf["rule_144k"]), end["section"]))
    return min(found) if found else None


def _issued(terms: Mapping[str, Any]) -> date:
    return date.fromisoformat(terms.get("issue_date") or terms["closing_date"])


def _issue_days(state: dict[str, Any]) -> list[date]:
    retracted = state["retracted"]
    return [date.fromisoformat(e[0]) for e in
            state["timelines"].get("positions", {}).get("entries", ())
            if e[3] == "NotesIssued" and e[2] not in retracted and e[4][2:] != ["other"]]


# -------------------------------------------------------------- what the agreement allows


def check_allowed(state: dict[str, Any], record: dict[str, Any], method: str | None) -> None:
    """Refuse what the deal's agreement does not provide for (module doc). ``method``:
    for a ``NoticeAcknowledged``, the method of the notice it names."""
    terms = state["terms"]
    if state["kind"] != "registration_rights" or not terms:
        return
    t, data = record["type"], record["data"]
    notices = terms["notices"]
    methods = {m["method"]: m for m in notices["methods"]}
    if t == "NoticeSent" and data["method"] not in methods:
        raise RuleViolation(f"the agreement gives notice only by {', '.join(methods)}, not by "
                            f"{data['method']}", field="data.method", rule=notices["section"])
    if t == "NoticeAcknowledged":
        how = methods.get(method)
        if how is None or how["deemed"] != "when_acknowledged":
            acknowledged = [m for m, h in methods.items() if h["deemed"] == "when_acknowledged"]
            raise RuleViolation(f"a notice sent by {method} is not acknowledged; only "
                                f"{' and '.join(acknowledged) or 'no'} notices are",
                                field="data.notice", rule=notices["section"])
    if t == "AdditionalInterestPaid":
        payment = terms["payment"]
        paid_in = payment.get("paid_in", "cash")
        if paid_in == "cash" and (data.get("shares") is not None or data.get("amount") is None):
            raise RuleViolation("the agreement pays Additional Interest in cash: give the "
                                "amount paid (no shares)", field="data.amount"
                                if data.get("amount") is None else "data.shares",
                                rule=payment["section"])
        if paid_in == "shares" and data.get("shares") is None:
            raise RuleViolation("the agreement pays Additional Interest in shares: give the "
                                "shares delivered (and any cash in lieu of a fraction as "
                                "amount)", field="data.shares", rule=payment["section"])
    if t == "QuestionnaireRequested" and terms.get("questionnaire") is None:
        raise RuleViolation("the agreement has no Selling Securityholder Questionnaire",
                            field="type", rule=terms["damages"]["section"])
    if t in ("SuspensionStarted", "SuspensionExtended") and terms.get("suspensions") is None:
        raise RuleViolation("the agreement gives the Company no right to suspend the use of "
                            "the shelf", field="type",
                            rule=terms["effectiveness_period"]["section"])
    if t == "SuspensionExtended":
        single = terms["suspensions"].get("single") or {}
        windows = terms["suspensions"].get("windows", ())
        if single.get("material_days") is None and all(
                w.get("material_days") is None for w in windows):
            raise RuleViolation("the agreement has no material-transaction extension",
                                field="type", rule=terms["suspensions"]["section"])


# ------------------------------------------------------------------- amendments


def amended_terms(state: dict[str, Any]) -> dict[str, Any]:
    """The terms in force: the deal's own with every live amendment applied in the order
    recorded (``amendments`` timeline)."""
    terms = state["base_terms"]
    retracted = state["retracted"]
    for e in sorted(state["timelines"].get("amendments", {}).get("entries", ()),
                    key=lambda e: e[1]):
        if e[3] == "TermsAmended" and e[2] not in retracted:
            terms = merge_patch(terms, e[4][2])
    return terms


def majority_on(state: dict[str, Any], day: str, matter: str, retracted: Mapping[str, Any]
                ) -> tuple[Decimal, Decimal, Decimal]:
    """(consenting, total, the share that must be exceeded) of the consents to ``matter``
    on ``day`` (module doc), in cents."""
    terms = state["terms"]
    majority = terms["amendments"]["majority"]
    timelines = state["timelines"]
    positions = sorted((e for e in timelines.get("positions", {}).get("entries", ())
                        if e[0] <= day and e[2] not in retracted), key=lambda e: (e[0], e[1]))
    held = Positions(frees(terms))
    for _day, _seq, _id, op, v in positions:
        held.apply(op, v)
    trs, other, shares = held.trs, held.other, held.shares
    events = sorted((e for e in timelines.get("amendments", {}).get("entries", ())
                     if e[0] <= day and e[2] not in retracted), key=lambda e: (e[0], e[1]))
    price = Decimal(terms["conversion_price"])
    affiliate: dict[str, bool] = {}
    consents: dict[str, None] = {}
    for _day, _seq, _id, op, v in events:
        if op == "ConversionPriceAdjusted":
            price = Decimal(v)
        elif op == "HolderAffiliation":
            affiliate[v[0]] = v[1]
        elif op == "ConsentGiven" and v[1] == matter:
            consents.setdefault(v[0], None)
    counted = majority.get("conversion_shares", True)
    weight: dict[str, Decimal] = {}
    for h in set(trs) | set(other) | set(shares):
        w = Decimal(trs.get(h, 0) + other.get(h, 0))
        if counted and shares.get(h, 0) > 0:
            w += shares[h] * price * 100
        if w > 0 and not (majority.get("affiliates") and affiliate.get(h)):
            weight[h] = w
    total = sum(weight.values(), Decimal(0))
    consenting = sum((weight[h] for h in consents if h in weight
                      and (trs.get(h, 0) > 0 or shares.get(h, 0) > 0)), Decimal(0))
    return consenting, total, Decimal(majority["more_than"])


def check_amendment(state: dict[str, Any], record: dict[str, Any]) -> None:
    """A ``TermsAmended``: the terms it makes are terms the schema accepts, it takes effect
    no earlier than the amendment before it, and the consents to its matter recorded by
    its day carry the majority the amendment clause asks for."""
    from .terms import registration_problems

    data, day = record["data"], record["date"]
    clause = state["terms"]["amendments"]["section"]
    effective = data.get("effective") or day
    before = [e for e in state["timelines"].get("amendments", {}).get("entries", ())
              if e[3] == "TermsAmended" and e[2] not in state["retracted"]]
    if before:
        last = max(before, key=lambda e: e[1])
        if effective < last[4][1]:
            raise RuleViolation(f"takes effect on {effective}, before the amendment "
                                f"recorded before it ({last[2]}, effective {last[4][1]})",
                                field="data.effective", rule=clause)
    for path in FIXED:
        node: Any = data["changes"]
        for name in path:
            node = node.get(name) if isinstance(node, Mapping) else None
        if node is not None:
            raise RuleViolation(f"an amendment here cannot change {'.'.join(path)}: "
                                f"{FIXED[path]}", field=f"data.changes.{'.'.join(path)}",
                                rule=clause)
    merged = merge_patch(amended_terms(state), data["changes"])
    _, problems = registration_problems(merged)
    if problems:
        where, what = problems[0]
        raise RuleViolation(what, field=f"data.changes.{where}" if where else "data.changes",
                            rule="the terms schema (deal-ledger terms schema)")
    refuse_short(state, day, data["matter"], state["retracted"])


def refuse_short(state: dict[str, Any], day: str, matter: str, retracted: Mapping[str, Any],
                 field: str = "data.matter", because: str = "") -> None:
    """Refuse an amendment whose consents fall short of the majority on its day
    (``because``: what else makes it fall short, naming ``field``)."""
    consenting, total, needed = majority_on(state, day, matter, retracted)
    if total and consenting > total * needed:
        return
    terms = state["terms"]
    share = (consenting / total * 100).quantize(Decimal("0.01")) if total else Decimal(0)
    clause = terms["amendments"]["section"]
    text = (f"the consents to {matter!r} recorded by {day} are {share}% of the principal "
            f"counted ({consenting / 100:,.2f} of {total / 100:,.2f}); {clause} asks for "
            f"more than {Decimal(needed) * 100:.0f}%")
    raise RuleViolation(f"{because}{text}", field=field, rule=clause)


def check_amendments_hold(state: dict[str, Any], retracted: Mapping[str, Any],
                          because: str, field: str, since: str | None = None,
                          extra: list[Any] = ()) -> None:
    """Every live amendment (dated on or after ``since``) still carried by its consents
    after a retraction, or with ``extra`` (a new event's timeline entries) counted."""
    found = state["timelines"].get("amendments", {}).get("entries", ())
    if not any(e[3] == "TermsAmended" for e in found):
        return
    trial = state
    if extra:
        trial = {**state, "timelines": dict(state["timelines"])}
        for name, entry in extra:
            if name in ("positions", "amendments"):
                old = trial["timelines"].get(name, {"entries": []})
                trial["timelines"][name] = {**old, "entries": [*old["entries"], entry]}
    for e in found:
        if e[3] == "TermsAmended" and e[2] not in retracted and (since is None or e[0] >= since):
            refuse_short(trial, e[0], e[4][0], retracted, field,
                         f"{because}: the amendment {e[2]} of {e[0]} would no longer be "
                         f"carried: ")

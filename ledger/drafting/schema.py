"""What was read from an agreement, as terms of the schema (``ledger.registration_terms``,
version 2): the one module of the drafting that knows the schema, so that a change to it
touches this module only.

``draft(text)`` gives a ``Draft``: the terms (JSON, as a terms file holds them), every term
found (``Term``: its path in the terms, value, section, quotation), every term not found
(``Missing``: its path, why, and the readings when the sentence has two), and the named
readings the text leaves open (``Reading``). A term not found is left out of the terms and
listed as missing: nothing is guessed. ``draft(text, template=NAME)`` fills the missing
terms from the template ``NAME`` and lists each as filled (``Draft.filled``).

Where the text states that a limit is absent (a right to suspend with no limit on the
number of periods, a ladder that rises without a maximum), the term is ``null``, found, with
the sentence it was read from and a note.
"""

from __future__ import annotations

import copy
import re
import typing
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

from ..registration_terms import INFOCROSSING_TEXT, SCHEMA_VERSION, Readings
from . import read_agreement
from .findings import Days, Findings, Found, PeriodEnd, RateStep
from .layout import flat, plain_text

_ANCHORS = {"date hereof": "date_hereof", "Closing Date": "closing", "Issue Date": "issue_date"}
_ENDS_OF = {"effective date": "effective", "Issue Date": "issue_date",
            "last option issue": "last_option_issue", "Closing Date": "closing"}
_ENDS = {"rule 144(k)": "rule_144k", "all sold": "all_sold", "none outstanding": "none_outstanding"}
_UNTIL = {"shelf sale": "shelf_sale", "Rule 144 sale": "rule_144_sale", "rule 144(k)": "rule_144k",
          "not outstanding": "not_outstanding"}
_EXCUSED = {"suspension": "suspension", "selling holder information": "selling_holder_information"}
_PAID_TO = {"Record Holders of Transfer Restricted Securities": "record_holders_of_trs",
            "record Holders": "record_holders"}
_BASE = {"Transfer Restricted": "transfer_restricted", "outstanding": "outstanding"}
_CONVERSION = {"none": "none", "Applicable Conversion Price": "applicable_conversion_price"}
#: the sentences other rules rest on, as ``citations`` names them
_DEFINITIONS = {"record holder": "record_dates", "business day": "business_day",
                "suspension notice": "suspension_notice", "shelf sale": "shelf_sale",
                "named selling holder": "named_selling_holder"}


@dataclass(frozen=True)
class Term:
    """A term of the draft: ``path`` in the terms ("filing", "damages.cap"), its ``value``
    (as written), the ``section`` and ``quote`` it was read from, a ``note`` on how, and
    where it came from (``source``: "text" or "template NAME")."""

    path: str
    value: Any
    section: str | None
    quote: str | None
    note: str | None = None
    source: str = "text"


@dataclass(frozen=True)
class Missing:
    """A term not found: ``why``; ``readings``: the values the sentence can be read as."""

    path: str
    why: str
    section: str | None = None
    quote: str | None = None
    readings: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Reading:
    """A sentence the named reading ``readings.NAME`` reads more than one way: the
    ``values`` it may take (the ledger's default applies unless the terms pin one)."""

    name: str
    values: tuple[str, ...]
    section: str
    quote: str
    why: str


@dataclass
class Draft:
    name: str
    date: str | None
    terms: dict[str, Any]
    found: list[Term] = field(default_factory=list)
    missing: list[Missing] = field(default_factory=list)
    filled: list[Term] = field(default_factory=list)
    readings: list[Reading] = field(default_factory=list)
    template: str | None = None
    shipped_text: str | None = None

    def still_missing(self) -> list[str]:
        """The paths a person must still fill in, as a terms file lists them."""
        done = {t.path for t in self.filled}
        return [("" if m.path == "date" else "terms.") + m.path
                for m in self.missing if m.path not in done]


def draft(text: str, *, template: str | None = None, cite_as: str = "RRA",
          file_name: str | None = None) -> Draft:
    """The terms ``text`` states (module doc); ``template`` fills the missing ones."""
    agreement, findings = read_agreement(text, cite_as=cite_as)
    b = _Builder(findings)
    b.build()
    out = Draft(name=_name(agreement.text, file_name), date=b.deal_date, terms=b.terms,
                found=b.found, missing=b.missing, readings=_readings(findings))
    out.shipped_text = _shipped(text)
    if out.shipped_text:
        out.terms = {"version": SCHEMA_VERSION, "text": out.shipped_text,
                     **{k: v for k, v in out.terms.items() if k != "version"}}
    if template is not None:
        _fill(out, template)
    return out


# ------------------------------------------------------------------------- building


class _Builder:
    def __init__(self, f: Findings):
        self.f = f
        self.terms: dict[str, Any] = {"version": SCHEMA_VERSION}
        self.found: list[Term] = []
        self.missing: list[Missing] = []
        self.deal_date: str | None = None

    # -- bookkeeping ---------------------------------------------------------------

    def put(self, path: str, value: Any, found: Found | None, note: str | None = None) -> None:
        _set(self.terms, path, value)
        self.found.append(Term(path, value, found.section if found else None,
                               found.quote if found else None,
                               note or (found.note if found else None)))

    def clause(self, path: str, found: Found, note: str | None = None) -> None:
        """The clause of an object of the terms (``damages``, ``payment``...): its
        section and quotation, found."""
        _set(self.terms, f"{path}.section", found.section)
        _set(self.terms, f"{path}.quote", found.quote)
        self.found.append(Term(path, None, found.section, found.quote, note or "the clause"))

    def miss(self, path: str, why: str, term: str | None = None) -> None:
        unread = self.f.unread_of(term) if term else None
        if unread is not None:
            self.missing.append(Missing(path, unread.why, unread.section, unread.quote,
                                        tuple(_json(v) for v in unread.readings)))
        else:
            self.missing.append(Missing(path, why))

    def take(self, term: str, path: str, convert, why: str) -> Any:
        """The term ``term`` read, written at ``path`` as ``convert`` makes it; else
        listed as missing (``why``)."""
        found = self.f.get(term)
        if found is None:
            self.miss(path, why, term)
            return None
        value = convert(found.value)
        self.put(path, value, found)
        return value

    # -- the terms -------------------------------------------------------------------

    def build(self) -> None:
        self._dates()
        self._deadlines()
        self._period()
        self._defaults()
        self._damages()
        self._payment()
        self._suspensions()
        self._duties()
        self._amendments()
        self._citations()

    def _dates(self) -> None:
        f = self.f
        dated, closing = f.get("agreement date"), f.get("closing date")
        if closing is not None:
            self.put("closing_date", closing.value.isoformat(), closing)
            self._cite("closing_date", closing)
            self.deal_date = closing.value.isoformat()
        else:
            self.miss("closing_date", "the Closing Date is not stated"
                      + (f" (the agreement is dated {dated.value.isoformat()})" if dated else ""))
        if dated is not None and (closing is None or dated.value != closing.value):
            self.put("agreement_date", dated.value.isoformat(), dated)
            self.deal_date = self.deal_date or dated.value.isoformat()
        if self.deal_date is None:
            self.miss("date", "the deal's date: the text states neither the agreement's "
                      "date nor the Closing Date", "agreement date")
        issue = f.get("issue date")
        if issue is not None:
            self.put("issue_date", issue.value.isoformat(), issue)
            self._cite("issue_date", issue)
        elif any(getattr(x.value, "anchor", None) == "Issue Date" for x in f.found) or any(
                isinstance(x.value, list) and any(getattr(e, "of", None) == "Issue Date"
                                                  for e in x.value) for x in f.found):
            self.miss("issue_date", "the text counts from the Issue Date but does not state it")
        if self.take("maturity", "maturity", lambda d: d.isoformat(),
                     "the maturity date is not stated") is not None:
            self._cite("maturity", f.get("maturity"))
        if self.take("conversion price", "conversion_price", str,
                     "the conversion price is not stated") is not None:
            self._cite("conversion_price", f.get("conversion price"))
        principal = f.get("maximum principal")        # optional: none stated, none checked
        if principal is not None:
            self.put("maximum_principal", str(principal.value), principal)
            self._cite("maximum_principal", principal)

    def _cite(self, name: str, found: Found) -> None:
        self.terms.setdefault("citations", {})[name] = {"section": found.section,
                                                        "quote": found.quote}
        if name in _DEFINITIONS.values():
            self.found.append(Term(f"citations.{name}", None, found.section, found.quote,
                                   "the definition other rules cite"))

    def _deadlines(self) -> None:
        for term, path in (("filing deadline", "filing"), ("effectiveness deadline",
                                                            "effectiveness")):
            self.take(term, path, lambda d, t=term: {
                "anchor": _ANCHORS[d.anchor], "count": d.days.count, "unit": d.days.unit,
                "roll": "following" if d.rolls else "none", **self._clause(t)},
                f"no {path} deadline found")

    def _clause(self, term: str) -> dict[str, str]:
        found = self.f.get(term)
        return {"section": found.section, "quote": found.quote}

    def _period(self) -> None:
        ends = self.take("effectiveness period", "effectiveness_period", lambda ends: {
            "ends": [_end(e) for e in ends], **self._clause("effectiveness period")},
            "the Effectiveness Period's ends are not stated")
        if ends is not None and self.f.unread_of("effectiveness period"):
            self.miss("effectiveness_period", "", "effectiveness period")
        self.take("transfer restricted", "transfer_restricted", lambda until: {
            "until": [_UNTIL[u] for u in until], **self._clause("transfer restricted")},
            "the definition of Transfer Restricted (Registrable) Securities is not found")

    def _defaults(self) -> None:
        for kind in ("filing", "effectiveness", "unusable", "suspension"):
            term = f"default: {kind}"
            found = self.f.get(term)
            path = f"defaults.{kind}"
            if found is None:
                self.miss(path, f"no Registration Default of this kind found ({kind})", term)
                continue
            value = {"label": found.value.label}
            if kind == "unusable":
                if found.value.cure is None:
                    self.miss(path, "a lapse of the shelf is a default, but its cure period "
                              "is not read", term)
                    continue
                value["cure"] = _days(found.value.cure)
                value["excused"] = [_EXCUSED[e] for e in found.value.excused]
            self.put(path, {**value, "section": found.section, "quote": found.quote}, found)

    def _damages(self) -> None:
        f = self.f
        clause, ladder = f.get("damages"), f.get("damages ladder")
        if clause is None and ladder is None:
            self.miss("damages", "no damages clause (Additional Interest, Liquidated "
                      "Damages...) found", "damages ladder")
            return
        head = clause or ladder
        self.clause("damages", head)
        self.take("damages ladder", "damages.steps", lambda steps: [_step(s) for s in steps],
                  "no rate of damages found")
        self.take("damages cap", "damages.cap", lambda cap: None if cap is None else str(cap),
                  "no maximum rate found")
        self.take("damages base", "damages.base", _BASE.get,
                  "the principal the rate applies to is not stated")
        self.take("damages on conversion shares", "damages.conversion_shares", _CONVERSION.get,
                  "what converted Notes (or Conversion Shares) earn is not stated")

    def _payment(self) -> None:
        f = self.f
        heads = [f.get(t) for t in ("payment", "paid in", "paid to", "payment dates")]
        head = next((h for h in heads if h is not None), None)
        if head is None:
            self.miss("payment", "how and when damages are paid is not stated", "payment dates")
            return
        self.clause("payment", head)
        self.take("payment dates", "payment.interest_payment_dates", list,
                  "the Interest Payment Dates are not stated")
        self.take("first payment date", "payment.first_interest_payment_date",
                  lambda d: d.isoformat(), "the first Interest Payment Date is not stated")
        self.take("record dates", "payment.record_dates", list,
                  "the record dates are not stated")
        self.take("payment roll", "payment.roll", lambda rolls: "following" if rolls else "none",
                  "what happens to a payment date that is not a Business Day is not stated")
        self.take("day count", "payment.day_count", str, "the day count is not stated")
        self.take("paid to", "payment.paid_to", _PAID_TO.get, "who is paid is not stated")
        self.take("paid in", "payment.paid_in", str, "what damages are paid in is not stated")

    def _suspensions(self) -> None:
        f = self.f
        windows, single, count = (f.get("suspension windows"), f.get("suspension single"),
                                  f.get("suspension count"))
        if windows is None and single is None and count is None:
            self.miss("suspensions", "no right to suspend (Suspension or Deferral Period) "
                      "found: null if the agreement gives none", "suspension windows")
            return
        head = windows or single or count
        self.clause("suspensions", head)
        self.take("suspension single", "suspensions.single", lambda s: None if s is None else {
            "days": s.days, "material_days": s.material_days, **self._clause("suspension single")},
            "how long one period may last is not stated")
        self.take("suspension windows", "suspensions.windows",
                  lambda ws: [_window(w) for w in ws], "no window of suspended days found")
        self.take("suspension count", "suspensions.max_periods", lambda c: None if c is None else {
            "periods": c.periods, **_in(c), **self._clause("suspension count")},
            "the number of periods allowed is not stated")
        if f.unread_of("suspension windows") and windows is not None:
            self.miss("suspensions.windows", "", "suspension windows")

    def _duties(self) -> None:
        f = self.f
        deadline = f.get("questionnaire deadline")
        if deadline is None:
            self.miss("questionnaire", "no Questionnaire deadline found (null if the "
                      "agreement has no Questionnaire)", "questionnaire deadline")
        else:
            self.put("questionnaire.deadline", _days(deadline.value), deadline)
            _set(self.terms, "questionnaire.section", deadline.section)
            _set(self.terms, "questionnaire.quote", deadline.quote)
            self.take("questionnaire form deadline", "questionnaire.form_deadline", _days,
                      "no deadline in a Questionnaire form (an exhibit) found: null if the "
                      "form states none")
            self.take("late questionnaire amendment", "questionnaire.late_amendment",
                      lambda v: {"within": _days(v[0]), "min_principal": str(v[1] or 0),
                                 **self._clause("late questionnaire amendment")},
                      "no amendment for a late Questionnaire found: null if none is owed")
        for term, path in (("trustee notice", "trustee_notice"),
                           ("advise holders", "advise_holders")):
            self.take(term, path, lambda d, t=term: {"within": _days(d), **self._clause(t)},
                      f"no such duty found ({term}): null if the agreement has none")
        self.take("notices", "notices", lambda ms: {
            "methods": [{"method": m.method, "deemed": m.deemed,
                         **({"count": m.count} if m.count is not None else {})} for m in ms],
            **self._clause("notices")}, "the notice clause is not found")

    def _amendments(self) -> None:
        clause = self.f.get("amendments")
        if clause is None:
            self.miss("amendments", "the amendment clause is not found")
            return
        self.clause("amendments", clause)
        majority = self.f.get("majority")
        if majority is None:
            self.miss("amendments.majority", "who must consent is not read")
            return
        m = majority.value
        affiliates = ({"section": m.affiliates[0], "quote": m.affiliates[1]}
                      if m.affiliates else None)
        self.put("amendments.majority", {
            "more_than": str(m.more_than.normalize()), "conversion_shares": bool(
                m.conversion_shares), "affiliates": affiliates,
            "section": majority.section, "quote": majority.quote}, majority)

    def _citations(self) -> None:
        for term, name in _DEFINITIONS.items():
            found = self.f.get(term)
            if found is not None:
                self._cite(name, found)


# ------------------------------------------------------------------------- values


def _days(d: Days) -> dict[str, Any]:
    return {"count": d.count, "unit": d.unit}


def _end(e: PeriodEnd) -> dict[str, Any]:
    if e.kind == "anniversary":
        return {"end": "anniversary", "years": e.years, "of": _ENDS_OF[e.of],
                "section": e.section, "quote": e.quote}
    return {"end": _ENDS[e.kind], "section": e.section, "quote": e.quote}


def _step(s: RateStep) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if s.anniversary is not None:
        out["anniversary"] = s.anniversary
        if s.of != "Closing Date":
            out["of"] = _ANCHORS[s.of]
        if s.every_year:
            out["every_year"] = True
    else:
        out["after_days"] = s.after_days
        if s.every_days:
            out["every_days"] = s.every_days
    out["set" if s.set is not None else "add"] = str(s.set if s.set is not None else s.add)
    return {**out, "section": s.section, "quote": s.quote}


def _in(x: Any) -> dict[str, int]:
    return {"in_days": x.in_days} if x.in_days is not None else {"in_months": x.in_months}


def _window(w: Any) -> dict[str, Any]:
    default = ({"label": w.default[0], "section": w.default[1], "quote": w.default[2]}
               if w.default else None)
    return {"days": w.days, "material_days": w.material_days, **_in(w), "default": default,
            "section": w.section, "quote": w.quote}


def _json(value: Any) -> Any:
    """A reading's value as the terms would write it."""
    if isinstance(value, Days):
        return _days(value)
    if isinstance(value, (Decimal, date)):
        return str(value)
    if isinstance(value, tuple):
        return [_json(v) for v in value]
    if isinstance(value, RateStep):
        return _step(value)
    if hasattr(value, "__dataclass_fields__"):
        return {k: _json(getattr(value, k)) for k in value.__dataclass_fields__}
    return value


def _set(terms: dict[str, Any], path: str, value: Any) -> None:
    node = terms
    parts = path.split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value


def _get(terms: Any, path: str) -> tuple[bool, Any]:
    node = terms
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return False, None
        node = node[part]
    return True, node


# ------------------------------------------------------------------------- readings


def _readings(f: Findings) -> list[Reading]:
    hints = typing.get_type_hints(Readings)
    out = []
    for a in f.ambiguous:
        hint = hints.get(a.name)
        if hint is None:
            continue
        literal = next(arg for arg in typing.get_args(hint) if arg is not type(None))
        out.append(Reading(a.name, typing.get_args(literal), a.section, a.quote, a.why))
    return out


# ------------------------------------------------------------------------- templates


def _fill(out: Draft, name: str) -> None:
    """Each missing term from the template ``name``, when it has it (``Draft.filled``);
    a term partly read from the text is left to a person."""
    from ..terms import template

    t = template(name)
    if t["kind"] != "registration_rights":
        raise KeyError(f"template {name!r} is not a registration rights agreement")
    out.template = name
    source = f"template {name}"
    written = {m.path for m in out.missing if _get(out.terms, m.path)[0]}
    for m in out.missing:
        if m.path in written or m.path == "date":
            continue
        has, value = _get(t["terms"], m.path)
        if not has:
            continue
        _set(out.terms, m.path, copy.deepcopy(value))
        cited = t["terms"].get("citations", {}).get(m.path)
        if cited is not None and "." not in m.path:
            out.terms.setdefault("citations", {})[m.path] = copy.deepcopy(cited)
        section = (value.get("section") if isinstance(value, dict) else
                   cited.get("section") if cited else None)
        out.filled.append(Term(m.path, value, section, None,
                               (t.get("market_practice") or {}).get(m.path), source))
    if t["terms"].get("readings") and "readings" not in out.terms:
        out.terms["readings"] = copy.deepcopy(t["terms"]["readings"])
        out.filled.append(Term("readings", out.terms["readings"], None, None,
                               "the readings the template fixes", source))
    if out.date is None:
        out.date = t["date"].isoformat()
        out.filled.append(Term("date", out.date, None, None, "the template's date", source))


# ------------------------------------------------------------------------- naming


def _name(text: str, file_name: str | None) -> str:
    """The deal's name: the agreement's title, date and first party as the text gives
    them, else the file it was drafted from."""
    m = re.search(r"((?:RESALE\s+|Resale\s+)?REGISTRATION\s+(?:RIGHTS\s+)?AGREEMENT|"
                  r"(?:Resale\s+)?Registration\s+(?:Rights\s+)?Agreement)[,\s]+(?:dated|made)"
                  r"[^,]*?(?P<d>(?:January|February|March|April|May|June|July|August|"
                  r"September|October|November|December)\s+\d{1,2},\s+\d{4})"
                  r"(?:,?\s+(?:by\s+and\s+)?between\s+(?P<a>[^,(;\"\n]+(?:,\s*Inc\.)?))?",
                  text, re.I)
    if m:
        title = " ".join(w.capitalize() if w.isupper() else w for w in m.group(1).split())
        party = (m.group("a") or "").strip()
        who = f"{party}: " if party and not party.lower().startswith("the ") else ""
        return f"{who}{title} of {m.group('d')} (drafted from its text)"
    return f"drafted from {file_name or 'the agreement text'}"


def _shipped(text: str) -> str | None:
    """The name of the agreement text shipped with deal-ledger that ``text`` is, if any:
    its clauses are then stated by ``deal-ledger clause``."""
    from importlib.resources import files

    shipped = (files("ledger") / "contracts" / INFOCROSSING_TEXT).read_text("utf-8")
    return INFOCROSSING_TEXT if flat(plain_text(text)) == flat(plain_text(shipped)) else None

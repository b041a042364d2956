# Over 600 lines: the whole terms schema of a registration rights agreement, one class per clause kind, is read as one.
"""The terms of a registration rights agreement, stated clause by clause (schema version 2).

A market-standard resale registration rights agreement for 144A convertible notes
(2002-2007) is read into these classes: its deadlines, its Registration Defaults, its
damages ladder, who is paid and when, its suspension limits, how its Effectiveness
Period ends, its notices, the duties it has or has not, its amendment clause, and the
readings the deal fixes. Every rule carries the agreement's own clause (``section``, as
the deal cites it: ``RRA §3(a)(ii)``) and, when it was read from the text, the sentence
(``quote``); a plain term (a date, a price) has its clause in ``citations``.

These dataclasses are the one definition of the schema: ``ledger.terms`` validates a
deal's terms against them with pydantic (and checks what crosses fields), and the
projections read the stored JSON back into them here, without pydantic (issue 17: a
report does not import it). ``read`` converts by the annotations, refusing an unknown
term or a missing required one as the validation does.

Version 1 (the terms of deals opened before this schema: Infocrossing's shape with its
numbers as parameters) is restated in version 2 by ``ledger.terms_v1``.

Each class's docstring lists its fields as ``name``: meaning (``terms schema`` shows
them as descriptions).
"""

from __future__ import annotations

import dataclasses
import sys
import typing
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any, Callable, Literal, Mapping

SCHEMA_VERSION = 2
#: the text of the one agreement shipped with deal-ledger (``ledger/contracts/``): a deal
#: whose terms name it has its clauses stated by ``projections.clauses``
INFOCROSSING_TEXT = "registration-rights-agreement-2004-06-30.txt"

#: pydantic reads this on every class (``ledger.terms``): an unknown key is refused
_STRICT = {"extra": "forbid"}

Anchor = Literal["date_hereof", "closing", "issue_date", "last_option_issue", "effective",
                 "request", "receipt", "default_date", "event"]
Unit = Literal["calendar", "business"]
Roll = Literal["none", "following"]
DayCount = Literal["30/360", "ACT/360", "ACT/365F", "ACT/ACT-ISDA"]
Method = Literal["hand", "mail", "telex", "fax", "courier", "email"]
Deemed = Literal["on_delivery", "business_days_after", "days_after", "next_business_day",
                 "when_acknowledged"]


def _terms(cls):
    """A class of the schema: frozen, slotted, keyword-only, unknown keys refused."""
    cls.__pydantic_config__ = _STRICT
    return dataclass(frozen=True, slots=True, kw_only=True)(cls)


@_terms
class Citation:
    """Where a term comes from in the agreement.

    * ``section``: the agreement's own clause, as the deal cites it (``RRA §1 Closing Date``)
    * ``quote``: the sentence the term was read from, if it was read from the text
    """

    section: str
    quote: str | None = None


@_terms
class Period:
    """A length of time: ``count`` days of ``unit`` (``calendar`` or ``business`` days)."""

    count: int
    unit: Unit


@_terms
class Deadline:
    """A deadline: ``count`` days of ``unit`` after its ``anchor``, rolled or not.

    * ``anchor``: the day it counts from: ``date_hereof`` (the agreement's date), ``closing``,
      ``issue_date``, ``last_option_issue`` (the last day Notes were issued), ``effective``,
      ``request``, ``receipt``, ``default_date``, ``event``
    * ``count``: how many days after it ("within 90 days after the Issue Date": 90)
    * ``unit``: ``calendar`` or ``business`` days
    * ``roll``: ``following``: a due day that is not a Business Day moves to the next; ``none``
    * ``section``, ``quote``: the clause
    """

    anchor: Anchor
    count: int
    unit: Unit
    roll: Roll
    section: str
    quote: str | None = None


@_terms
class DefaultKind:
    """A kind of Registration Default the agreement has.

    * ``label``: its number in the agreement (``(ii)``, ``(b)``)
    * ``section``, ``quote``: the clause
    """

    label: str
    section: str
    quote: str | None = None


@_terms
class UnusableDefault:
    """The Registration Default of a shelf that, once effective, ceases to be effective or
    usable during the Effectiveness Period and is not cured in time.

    * ``label``: its number in the agreement
    * ``cure``: the time the Company has to cure it (5 Business Days)
    * ``excused``: causes that are no default: ``suspension`` (days inside a permitted
      Suspension or Deferral Period), ``selling_holder_information`` (an amendment or
      supplement for selling securityholders' information or the plan of distribution)
    * ``section``, ``quote``: the clause
    """

    label: str
    cure: Period
    excused: list[Literal["suspension", "selling_holder_information"]]
    section: str
    quote: str | None = None


@_terms
class RegistrationDefaults:
    """The Registration Defaults, each present (its clause) or absent (``null``).

    * ``filing``: the shelf not filed by the filing deadline
    * ``effectiveness``: the shelf not effective by the effectiveness deadline
    * ``unusable``: the shelf unusable during the Effectiveness Period, not cured in time
    * ``suspension``: a Suspension Period not ended by its own limit (``suspensions.single``)
    * (a suspension window whose excess is a default of its own says so on the window)
    """

    filing: DefaultKind | None
    effectiveness: DefaultKind | None
    unusable: UnusableDefault | None
    suspension: DefaultKind | None


@_terms
class Step:
    """One step of the damages ladder, applied in order on each day of a default.

    * ``after_days``: from the day after this many days of the default's rate clock (0:
      from its first day); or
    * ``anniversary``: from this anniversary of ``of`` (``closing`` or ``issue_date``)
    * ``every_days``: with ``after_days``, again after each further this many days;
      ``every_year``: with ``anniversary``, again on each later anniversary
    * ``set``: the rate becomes this (per cent per annum); ``add``: this is added to it
      (each time the step recurs)
    * ``section``, ``quote``: the clause
    """

    after_days: int | None = None
    anniversary: int | None = None
    of: Literal["closing", "issue_date"] = "closing"
    every_days: int | None = None
    every_year: bool = False
    set: Decimal | None = None
    add: Decimal | None = None
    section: str
    quote: str | None = None


@_terms
class Damages:
    """Liquidated damages (Additional Interest) while a Registration Default runs.

    * ``steps``: the ladder, in order (the first from day 1 of a default)
    * ``cap``: the most, per cent per annum, whatever the steps and the defaults running
    * ``base``: what the rate is a percentage of: ``transfer_restricted`` (the principal of
      Notes that are Transfer Restricted Securities) or ``outstanding`` (all Notes outstanding)
    * ``conversion_shares``: ``none`` (no damages on Conversion Shares) or
      ``applicable_conversion_price`` (on shares x the Applicable Conversion Price)
    * ``section``, ``quote``: the clause
    (How overlapping defaults combine and whether the clock restarts after a cure are the
    readings ``overlapping_defaults`` and ``rate_clock``: ``readings`` fixes them for a deal.)
    """

    steps: list[Step]
    cap: Decimal | None
    base: Literal["transfer_restricted", "outstanding"]
    conversion_shares: Literal["none", "applicable_conversion_price"]
    section: str
    quote: str | None = None


@_terms
class Payment:
    """When and to whom damages are paid.

    * ``interest_payment_dates``: days of every year, ``MM-DD``
    * ``first_interest_payment_date``: the first (the first interest period runs from the
      closing date to it)
    * ``record_dates``: days of every year, ``MM-DD``: the record date of a payment date is
      the latest on or before it
    * ``roll``: ``following``: a payment date that is not a Business Day pays on the next
    * ``day_count``: ``30/360`` (US), ``ACT/360``, ``ACT/365F``, ``ACT/ACT-ISDA``
    * ``paid_to``: ``record_holders_of_trs`` (Record Holders of Transfer Restricted
      Securities), ``record_holders`` (all record Holders), ``questionnaire_holders``
      (only Holders that delivered a Questionnaire), ``questionnaire_holders_from_delivery``
      (those, for the days from their delivery)
    * ``paid_in``: ``cash`` or ``shares`` (at the Applicable Conversion Price on the
      Interest Payment Date)
    * ``section``, ``quote``: the clause
    """

    interest_payment_dates: list[str]
    first_interest_payment_date: date
    record_dates: list[str]
    roll: Roll
    day_count: DayCount
    paid_to: Literal["record_holders_of_trs", "record_holders", "questionnaire_holders",
                     "questionnaire_holders_from_delivery"]
    paid_in: Literal["cash", "shares"]
    section: str
    quote: str | None = None


@_terms
class SingleLimit:
    """How long one Suspension Period may last (a consecutive-day limit).

    * ``days``: its last permitted day is its ``days``-th
    * ``material_days``: with the material-transaction extension (``null``: none)
    * ``section``, ``quote``: the clause
    """

    days: int
    material_days: int | None
    section: str
    quote: str | None = None


@_terms
class Window:
    """At most ``days`` suspended days in any window of ``in_days`` days (or ``in_months``
    months) ending on a day.

    * ``material_days``: with the material-transaction extension (``null``: none)
    * ``default``: exceeding it is a Registration Default of its own (its label and
      clause); ``null``: it exceeds the Company's right to suspend, and the reading
      ``window_breach`` says what that costs
    * ``section``, ``quote``: the clause
    """

    days: int
    material_days: int | None
    in_days: int | None = None
    in_months: int | None = None
    default: DefaultKind | None
    section: str
    quote: str | None = None


@_terms
class PeriodCount:
    """At most ``periods`` Suspension Periods starting in any window of ``in_days`` days
    (or ``in_months`` months); a period beyond it exceeds the right to suspend.

    * ``section``, ``quote``: the clause
    """

    periods: int
    in_days: int | None = None
    in_months: int | None = None
    section: str
    quote: str | None = None


@_terms
class Suspensions:
    """The Company's right to suspend the use of the shelf (Suspension or Deferral Periods).

    * ``single``: how long one period may last (``null``: no limit of its own)
    * ``windows``: limits on the suspended days in any window
    * ``max_periods``: a limit on the number of periods in a window (``null``: none)
    * ``section``, ``quote``: the clause giving the right
    """

    single: SingleLimit | None
    windows: list[Window]
    max_periods: PeriodCount | None
    section: str
    quote: str | None = None


@_terms
class PeriodEnd:
    """One of the ends of the Effectiveness Period (it ends at the earliest).

    * ``end``: ``anniversary`` (the ``years``-th anniversary of ``of``: ``effective``,
      ``issue_date``, ``last_option_issue``, ``closing``), ``rule_144k`` (the day all may be
      sold under Rule 144(k): a ``Rule144kDate`` event), ``all_sold`` (every Transfer
      Restricted Security sold), ``none_outstanding`` (none outstanding any more)
    * ``section``, ``quote``: the clause
    """

    end: Literal["anniversary", "rule_144k", "all_sold", "none_outstanding"]
    years: int | None = None
    of: Literal["effective", "issue_date", "last_option_issue", "closing"] | None = None
    section: str
    quote: str | None = None


@_terms
class EffectivenessPeriod:
    """How long the shelf must be kept effective: until the earliest of ``ends``.

    * ``section``, ``quote``: the clause
    """

    ends: list[PeriodEnd]
    section: str
    quote: str | None = None


@_terms
class TransferRestricted:
    """When a Note or a Conversion Share stops being a Transfer Restricted Security.

    * ``until``: ``shelf_sale`` (sold under the shelf), ``rule_144_sale`` (sold under Rule
      144), ``rule_144k`` (the Rule 144(k) date), ``not_outstanding`` (converted, redeemed,
      repurchased, cancelled)
    * ``section``, ``quote``: the clause
    """

    until: list[Literal["shelf_sale", "rule_144_sale", "rule_144k", "not_outstanding"]]
    section: str
    quote: str | None = None


@_terms
class NoticeMethod:
    """A way of giving notice and when a notice so given is deemed given.

    * ``method``: ``hand``, ``mail``, ``telex``, ``fax``, ``courier``, ``email``
    * ``deemed``: ``on_delivery``, ``business_days_after`` / ``days_after`` (``count``),
      ``next_business_day``, ``when_acknowledged`` (answered back, receipt acknowledged)
    """

    method: Method
    deemed: Deemed
    count: int | None = None


@_terms
class Notices:
    """Notices under the agreement: the methods it allows.

    * ``section``, ``quote``: the clause
    """

    methods: list[NoticeMethod]
    section: str
    quote: str | None = None


@_terms
class Duty:
    """A duty of the Company with a period to perform it (``within``).

    * ``section``, ``quote``: the clause
    """

    within: Period
    section: str
    quote: str | None = None


@_terms
class LateAmendment:
    """After a Questionnaire received late: an amendment naming the Holder ``within`` a
    period, if more than ``min_principal`` of Notes is to be included (at most one
    pre-effective amendment a fiscal quarter and one post-effective amendment a half year).

    * ``section``, ``quote``: the clause
    """

    within: Period
    min_principal: Decimal
    section: str
    quote: str | None = None


@_terms
class Questionnaire:
    """The Selling Securityholder Questionnaire.

    * ``deadline``: to deliver it after a written request (the Questionnaire Deadline)
    * ``form_deadline``: the deadline the form itself states (``null``: none), for the
      reading ``questionnaire_deadline``
    * ``late_amendment``: the amendment owed for a late Questionnaire (``null``: none)
    * ``section``, ``quote``: the clause
    """

    deadline: Period
    form_deadline: Period | None
    late_amendment: LateAmendment | None
    section: str
    quote: str | None = None


@_terms
class Majority:
    """Who decides an amendment or waiver.

    * ``more_than``: the share of the principal counted that must consent, exceeded (0.5)
    * ``conversion_shares``: whether Conversion Shares count, at the prevailing conversion
      price
    * ``affiliates``: the clause leaving out securities of the Company and its affiliates
      (``null``: they count)
    * ``section``, ``quote``: the clause defining it
    """

    more_than: Decimal
    conversion_shares: bool
    affiliates: Citation | None
    section: str
    quote: str | None = None


@_terms
class Amendments:
    """The amendment clause: the agreement is amended or waived with ``majority``'s consent.

    * ``section``, ``quote``: the clause
    """

    majority: Majority
    section: str
    quote: str | None = None


@_terms
class Readings:
    """Readings of ambiguous clauses this deal fixes (SPEC §6); ``null``: the default.
    A command's ``--interpret`` still switches one, for a what-if."""

    default_date: Literal["last_compliant_day", "first_breach_day"] | None = None
    rate_after_second_anniversary: Literal[
        "calendar", "first_90_days_always_quarter_point"] | None = None
    overlapping_defaults: Literal["episode", "additive", "highest"] | None = None
    conversion_forfeits: Literal["unpaid", "all_unpaid", "future_only"] | None = None
    no_questionnaire_request: Literal["entitled", "not_entitled"] | None = None
    questionnaire_deadline: Literal["questionnaire_form",
                                    "section_2b_business_days"] | None = None
    questionnaire_entitlement_judged_on: Literal["payment_date", "record_date"] | None = None
    window_breach: Literal["usability_default", "report_only",
                           "suspension_default"] | None = None
    window_material_allowance: Literal["period", "any_in_window"] | None = None
    rate_clock: Literal["per_episode", "once_per_deal"] | None = None
    registered_securities: Literal["all_notes", "named_selling_holders"] | None = None
    default_after_effectiveness_period: Literal["ends", "continues"] | None = None
    conversion_judged_on: Literal["interest_payment_date", "payment_day"] | None = None
    shelf_buyer_paid: Literal["accrued_days", "not_record_holder"] | None = None


@_terms
class RegistrationTerms:
    """The terms of a registration rights agreement (schema version 2).

    * ``version``: 2
    * ``text``: the agreement's own text, shipped with deal-ledger (``ledger/contracts/``,
      its file name), whose words ``clause`` shows; ``null``: none shipped
    * ``agreement_date``: the agreement's date ("the date hereof"; ``null``: the closing date)
    * ``closing_date``, ``issue_date`` (``null``: the closing date), ``maturity``
    * ``conversion_price``: the conversion price at issue (``ConversionPriceAdjusted``
      events change it)
    * ``maximum_principal``: the most Notes the agreement covers (the Infocrossing
      preamble: $72,000,000 with the option in full); no ``NotesIssued`` past it
      (``null``: none stated, none checked)
    * ``citations``: the clause of each plain term above, by name, and of the definitions
      other rules rest on: ``record_dates`` (the Record Holder), ``business_day``,
      ``suspension_notice`` (Holders discontinue sales under the shelf while it is
      suspended), ``shelf_sale`` (a security sold under the shelf is no longer restricted:
      not before it is effective, nor while unusable), ``named_selling_holder`` (a Holder
      asked for its Questionnaire sells under the shelf only once named)
    * ``filing``, ``effectiveness``: the shelf's deadlines (``null``: none)
    * ``effectiveness_period``, ``transfer_restricted``, ``defaults``, ``damages``,
      ``payment``, ``suspensions`` (``null``: no right to suspend), ``questionnaire``,
      ``trustee_notice``, ``advise_holders`` (``null``: no such duty), ``notices``,
      ``amendments``, ``readings``
    """

    version: Literal[2]
    text: str | None = None
    agreement_date: date | None = None
    closing_date: date
    issue_date: date | None = None
    maturity: date
    conversion_price: Decimal
    maximum_principal: Decimal | None = None
    citations: dict[str, Citation] = field(default_factory=dict)
    filing: Deadline | None
    effectiveness: Deadline | None
    effectiveness_period: EffectivenessPeriod
    transfer_restricted: TransferRestricted
    defaults: RegistrationDefaults
    damages: Damages
    payment: Payment
    suspensions: Suspensions | None
    questionnaire: Questionnaire | None
    trustee_notice: Duty | None
    advise_holders: Duty | None
    notices: Notices
    amendments: Amendments
    readings: Readings = Readings()

    @property
    def issued(self) -> date:
        """The Issue Date (the closing date unless the terms name another)."""
        return self.issue_date or self.closing_date

    @property
    def dated(self) -> date:
        """The date of the agreement ("the date hereof")."""
        return self.agreement_date or self.closing_date

    @property
    def day_count(self) -> str:
        return self.payment.day_count

    @property
    def frees(self) -> frozenset[str]:
        """The sales (an event's ``under``) that end a security's restriction (RRA §1
        Transfer Restricted Securities (A), and Rule 144 where ``until`` says so)."""
        until = self.transfer_restricted.until
        return frozenset(x for x, why in (("shelf", "shelf_sale"),
                                          ("rule_144", "rule_144_sale")) if why in until)

    def pinned(self) -> dict[str, str]:
        """The readings this deal fixes, by name."""
        return {f.name: getattr(self.readings, f.name)
                for f in dataclasses.fields(Readings)
                if getattr(self.readings, f.name) is not None}


# ------------------------------------------------------------------ reading stored terms


_day = date.fromisoformat
_PLANS: dict[type, dict[str, tuple[Callable[[Any], Any], bool]]] = {}


def _converter(hint: Any) -> Callable[[Any], Any] | None:
    """How a stored JSON value of type ``hint`` becomes its value (``None``: as it is)."""
    origin = typing.get_origin(hint)
    if hint is date:
        return _day
    if hint is Decimal:
        return Decimal
    if dataclasses.is_dataclass(hint):
        return lambda value: read(hint, value)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType")):
        inner = [a for a in typing.get_args(hint) if a is not type(None)]
        conv = _converter(inner[0]) if len(inner) == 1 else None
        return (lambda value: None if value is None else conv(value)) if conv else None
    if origin is list:
        conv = _converter(typing.get_args(hint)[0])
        return (lambda value: [conv(v) for v in value]) if conv else list
    if origin is dict:
        conv = _converter(typing.get_args(hint)[1])
        return (lambda value: {k: conv(v) for k, v in value.items()}) if conv else dict
    return None


def _plan(cls: type) -> dict[str, tuple[Callable[[Any], Any], bool]]:
    """Per field of ``cls``: its converter and whether it is required."""
    found = _PLANS.get(cls)
    if found is None:
        hints = typing.get_type_hints(cls, vars(sys.modules[cls.__module__]))
        found = {}
        for f in dataclasses.fields(cls):
            required = f.default is dataclasses.MISSING and \
                f.default_factory is dataclasses.MISSING
            found[f.name] = (_converter(hints[f.name]) or (lambda value: value), required)
        _PLANS[cls] = found
    return found


def read(cls: type, values: Any, path: str = "") -> Any:
    """``cls`` from the stored JSON object ``values`` (validated when it was written):
    each value converted by its annotation. ``ValueError`` names an unknown term or a
    missing required one, as the validation would."""
    if not isinstance(values, Mapping):
        raise ValueError(f"{path or cls.__name__}: must be a JSON object")
    plan = _plan(cls)
    kwargs: dict[str, Any] = {}
    for name, value in values.items():
        found = plan.get(name)
        if found is None:
            raise ValueError(f"{path}{name}: unknown term")
        kwargs[name] = found[0](value)
    missing = [n for n, (_, required) in plan.items() if required and n not in kwargs]
    if missing:
        raise ValueError(f"{', '.join(path + m for m in missing)}: is required")
    return cls(**kwargs)


def registration_terms(terms: Mapping[str, Any]) -> RegistrationTerms:
    """The stored terms of a registration rights deal (schema version 2)."""
    return read(RegistrationTerms, terms)


# ------------------------------------------------------------------ citations in words


def cite(*sections: str) -> str:
    """Sections cited together, the agreement's name said once: ``cite("RRA §2(b)",
    "RRA §4(d)")`` is ``RRA §2(b), §4(d)``; ``None`` and repeats are left out."""
    seen = list(dict.fromkeys(s for s in sections if s))
    if not seen:
        return ""
    head = seen[0]
    prefix = head.split("§", 1)[0] if "§" in head else ""
    out = [head]
    for s in seen[1:]:
        out.append(s[len(prefix):] if prefix and s.startswith(prefix + "§") else s)
    return ", ".join(out)


def cite_parts(first: str, *more: str) -> str:
    """Sub-clauses of one clause cited together: ``RRA §2(a)(iii)(y)`` and
    ``RRA §2(a)(iii)(z)`` are ``RRA §2(a)(iii)(y),(z)``; sections that are not siblings
    are cited as ``cite`` cites them."""
    stem = first[:first.rfind("(")] if first.endswith(")") else None
    if stem and all(s.startswith(stem + "(") and s.endswith(")") and s.count("(") ==
                    first.count("(") for s in more):
        return first + "".join("," + s[len(stem):] for s in more)
    return cite(first, *more)


def section_prefix(terms: RegistrationTerms) -> str:
    """How the deal's agreement is named in its citations (``RRA``), from its damages'
    clause; ``""`` when its sections carry no such name."""
    section = terms.damages.section
    return section.split("§", 1)[0].strip() if "§" in section else ""


def short_section(section: str) -> str:
    """A section without the agreement's name: ``RRA §10(E)`` is ``§10(E)``."""
    head, sep, rest = section.partition(" §")
    return "§" + rest if sep and " " not in head else section


def parent_section(sections: list[str]) -> str:
    """The clause the ``sections`` are all inside: ``RRA §3(a)(iv)(A)`` and
    ``RRA §3(a)(iv)(B)`` are inside ``RRA §3(a)(iv)``; one section is its own; none, ``""``."""
    found = list(dict.fromkeys(sections))
    if len(found) <= 1:
        return found[0] if found else ""
    common = found[0]
    for s in found[1:]:
        while common and not s.startswith(common):
            common = common[:common.rfind("(")] if "(" in common else ""
    return common.rstrip() or cite(*found)


# ------------------------------------------------------------------ amendments


def merge_patch(target: Any, patch: Any) -> Any:
    """``patch`` applied to ``target`` (a new value; neither is changed), as RFC 7386 merges
    but for ``null``: an object's members are merged member by member, anything else
    replaces the whole, and ``null`` sets the term to null (a duty or a default the terms
    allow to be absent, switched off), for the terms state an absent rule as null."""
    if not isinstance(patch, Mapping):
        return patch
    out = dict(target) if isinstance(target, Mapping) else {}
    for key, value in patch.items():
        out[key] = None if value is None else merge_patch(out.get(key), value)
    return out


def amended(terms: Mapping[str, Any], amendments: Any) -> list[tuple[date, Mapping[str, Any], str | None]]:
    """The terms in force over time: ``(from, terms JSON, the TermsAmended id)``, the first
    the deal's own from the beginning (``date.min``), then one per amendment (``TermsAmended``
    events, in the order recorded) from its effective date."""
    out: list[tuple[date, Mapping[str, Any], str | None]] = [(date.min, terms, None)]
    for e in amendments:
        effective = e.data.get("effective") or e.date
        if isinstance(effective, str):
            effective = date.fromisoformat(effective)
        out.append((effective, merge_patch(out[-1][1], e.data["changes"]), e.id))
    return out

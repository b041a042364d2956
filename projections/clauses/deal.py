"""A registration rights deal's own clauses, in words, from its terms
(``ledger.registration_terms``): every rule with the agreement's section and the sentence
it was read from. ``terms show`` prints them (the terms in words, "damages: 0.25% a year
for the first 90 days of a default, then 0.50%; cap 0.50%"), ``terms check`` sums a valid
file up with them, and an explanation states a clause of a deal whose agreement is not
the one shipped with the package by them (``statements``): the quotation where the terms
carry one, else these words.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable

from ledger.registration_terms import (INFOCROSSING_TEXT, Deadline, Period, RegistrationTerms,
                                       Step, short_section)

from ..registration.clock import number_word, ordinal, ordinal_word, unit_words
from ..registration.money import dollars, plain


@dataclass(frozen=True)
class Rule:
    """One rule of the terms: its path in the terms, its section, what it says."""

    path: str
    section: str
    words: str
    quote: str | None = None


ANCHOR = {"date_hereof": "the date hereof", "closing": "the Closing Date",
          "issue_date": "the Issue Date", "last_option_issue": "the last issue of Notes",
          "effective": "the effective date"}
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")


def _days(p: Period | Deadline) -> str:
    return f"{p.count} {unit_words(p.unit)}"


def _day_of_year(md: str) -> str:
    return f"{MONTHS[int(md[:2]) - 1]} {int(md[3:])}"


def _rate(value: Decimal) -> str:
    return f"{value}%"


def _step(i: int, s: Step, steps: list[Step]) -> str:
    """One step in words, as it reads after the one before it."""
    nxt = steps[i + 1] if i + 1 < len(steps) else None
    of = "the Closing Date" if s.of == "closing" else "the Issue Date"
    if s.after_days is not None:
        if s.add is not None:
            every = (f" for each further {s.every_days} days" if s.every_days else "")
            return f"{s.add} points more{every} from day {s.after_days + 1}"
        if s.after_days == 0:
            until = (f" for the first {nxt.after_days} days of a default"
                     if nxt is not None and nxt.after_days is not None else
                     f" from the first day of a default")
            return f"{_rate(s.set)} a year{until}"
        to = (f" to the {ordinal(nxt.anniversary)} anniversary of "
              f"{'the Closing Date' if nxt.of == 'closing' else 'the Issue Date'}"
              if nxt is not None and nxt.anniversary is not None else "")
        return f"{_rate(s.set)} from day {s.after_days + 1}{to}"
    if s.add is not None:
        each = "each anniversary" if s.every_year else "the anniversary"
        return (f"{s.add} points more on {each} of {of} from the "
                f"{ordinal(s.anniversary)}")
    return f"{_rate(s.set)} from the {ordinal(s.anniversary)} anniversary of {of}"


def damages_words(t: RegistrationTerms) -> str:
    """"0.25% a year for the first 90 days of a default, then 0.50%; cap 0.50%"."""
    d = t.damages
    steps = [_step(i, s, d.steps) for i, s in enumerate(d.steps)]
    text = steps[0] + "".join(f", then {s}" for s in steps[1:])
    if len(d.steps) == 2 and d.steps[1].after_days is not None and d.steps[1].set is not None:
        text = f"{steps[0]}, then {_rate(d.steps[1].set)}"    # the common two-step form
    text += f"; cap {_rate(d.cap)}" if d.cap is not None else "; no cap"
    base = ("the principal of Notes that are Transfer Restricted Securities"
            if d.base == "transfer_restricted" else "the principal of all Notes outstanding")
    shares = ("; Conversion Shares earn it too, as shares x the Applicable Conversion Price"
              if d.conversion_shares == "applicable_conversion_price"
              else "; converted Notes earn none")
    return f"{text}; on {base}{shares}"


def rules_in_words(t: RegistrationTerms) -> list[Rule]:
    """Every rule of the terms, in the order of an agreement: the shelf, the defaults,
    the damages and their payment, the suspensions, the duties, notices, amendments."""
    out: list[Rule] = []
    add = out.append
    for name in ("filing", "effectiveness"):
        d = getattr(t, name)
        if d is None:
            add(Rule(name, "", f"no {name} deadline"))
            continue
        what = "filed" if name == "filing" else "declared effective"
        roll = ", rolled to a Business Day" if d.roll == "following" else ""
        add(Rule(name, d.section, f"the shelf is {what} not later than {_days(d)} after "
                                  f"{ANCHOR[d.anchor]}{roll}", d.quote))
    ends = []
    for e in t.effectiveness_period.ends:
        words = {"anniversary": lambda e: f"on the {ordinal_word(e.years)} anniversary of "
                                          f"{ANCHOR[e.of]}",
                 "rule_144k": lambda e: "on the Rule 144(k) date",
                 "all_sold": lambda e: "when every Transfer Restricted Security is sold",
                 "none_outstanding": lambda e: "when none is outstanding"}[e.end](e)
        ends.append(words)
        add(Rule(f"effectiveness_period.{e.end}", e.section, f"the Effectiveness Period "
                                                            f"ends {words}", e.quote))
    add(Rule("effectiveness_period", t.effectiveness_period.section,
             "the shelf is kept effective until the earliest of: " + "; ".join(ends),
             t.effectiveness_period.quote))
    until = {"shelf_sale": "sold under the shelf", "rule_144_sale": "sold under Rule 144",
             "rule_144k": "the Rule 144(k) date", "not_outstanding": "no longer outstanding"}
    add(Rule("transfer_restricted", t.transfer_restricted.section,
             "a Note or Conversion Share is restricted until "
             + " or ".join(until[x] for x in t.transfer_restricted.until),
             t.transfer_restricted.quote))
    kinds = t.defaults
    for name, what in (("filing", "the shelf not filed by the filing deadline"),
                       ("effectiveness", "the shelf not effective by the effectiveness "
                                         "deadline")):
        k = getattr(kinds, name)
        if k is not None:
            add(Rule(f"defaults.{name}", k.section, f"Registration Default {k.label}: {what}",
                     k.quote))
    if kinds.unusable is not None:
        u = kinds.unusable
        excused = {"suspension": "days of a permitted Suspension Period",
                   "selling_holder_information": "amendments for selling securityholders' "
                                                 "information"}
        more = (f" ({' and '.join(excused[x] for x in u.excused)} excused)" if u.excused
                else "")
        add(Rule("defaults.unusable", u.section, f"Registration Default {u.label}: the shelf "
                 f"unusable during the Effectiveness Period and not cured within "
                 f"{_days(u.cure)}{more}", u.quote))
    s = t.suspensions
    if kinds.suspension is not None and s is not None and s.single is not None:
        k = kinds.suspension
        add(Rule("defaults.suspension", k.section, f"Registration Default {k.label}: a "
                 f"Suspension Period not ended by its {ordinal(s.single.days)} day"
                 + (f" ({ordinal(s.single.material_days)} with a material transaction)"
                    if s.single.material_days is not None else ""), k.quote))
    if s is not None:
        for i, w in enumerate(s.windows):
            if w.default is not None:
                add(Rule(f"suspensions.windows.{i}.default", w.default.section,
                         f"Registration Default {w.default.label}: more than {w.days} "
                         f"suspended days in any {_window(w)}", w.default.quote))
    add(Rule("damages", t.damages.section, f"damages: {damages_words(t)}", t.damages.quote))
    for i, step in enumerate(t.damages.steps):
        add(Rule(f"damages.steps.{i}", step.section, f"damages step: {_step(i, step, t.damages.steps)}",
                 step.quote))
    p = t.payment
    paid_to = {"record_holders_of_trs": "the Record Holders of Transfer Restricted "
                                        "Securities",
               "record_holders": "the record Holders",
               "questionnaire_holders": "only Holders that delivered a Questionnaire",
               "questionnaire_holders_from_delivery": "only Holders that delivered a "
                                                      "Questionnaire, from its delivery"}
    add(Rule("payment", p.section,
             f"paid in {p.paid_in} on each "
             f"{' and '.join(_day_of_year(x) for x in p.interest_payment_dates)} (the first "
             f"{p.first_interest_payment_date}"
             + ("; a day that is not a Business Day pays on the next" if p.roll == "following"
                else "") + f"), to {paid_to[p.paid_to]} on "
             f"{' and '.join(_day_of_year(x) for x in p.record_dates)}; day count "
             f"{p.day_count}", p.quote))
    if s is None:
        add(Rule("suspensions", "", "no right to suspend the use of the shelf"))
    else:
        parts = []
        if s.single is not None:
            parts.append(f"a period lasts at most {s.single.days} days"
                         + (f" ({s.single.material_days} with a material transaction)"
                            if s.single.material_days is not None else ""))
        for w in s.windows:
            parts.append(f"at most {w.days}"
                         + (f" ({w.material_days})" if w.material_days is not None else "")
                         + f" suspended days in any {_window(w)}")
        if s.max_periods is not None:
            parts.append(f"at most {s.max_periods.periods} periods in any "
                         f"{_window(s.max_periods)}")
        add(Rule("suspensions", s.section, "the Company may suspend the use of the shelf: "
                 + "; ".join(parts), s.quote))
    q = t.questionnaire
    if q is None:
        add(Rule("questionnaire", "", "no Selling Securityholder Questionnaire"))
    else:
        text = f"Holders deliver the Questionnaire within {_days(q.deadline)} of a request"
        if q.form_deadline is not None:
            text += f" (the form says {_days(q.form_deadline)})"
        if q.late_amendment is not None:
            a = q.late_amendment
            text += (f"; a late one gets an amendment within {_days(a.within)}, if more "
                     f"than {dollars(a.min_principal)} of Notes is to be included")
        add(Rule("questionnaire", q.section, text, q.quote))
    for name, text in (("trustee_notice", "the Company notifies the Trustee within {} after "
                                          "each default date"),
                       ("advise_holders", "the Company advises the selling Holders within {} "
                                          "of a filing, effectiveness, stop order or "
                                          "material misstatement")):
        duty = getattr(t, name)
        if duty is None:
            add(Rule(name, "", f"no such duty ({name.replace('_', ' ')})"))
        else:
            n, unit = duty.within.count, duty.within.unit
            add(Rule(name, duty.section, text.format(f"{number_word(n)} {unit_words(unit)}"),
                     duty.quote))
    add(Rule("notices", t.notices.section, "notices by " + "; ".join(
        f"{m.method} ({_given(m)})" for m in t.notices.methods), t.notices.quote))
    m = t.amendments.majority
    add(Rule("amendments", t.amendments.section,
             f"amended or waived with the consent of Holders of more than "
             f"{plain(m.more_than * 100)}% of the principal counted"
             + ("; Conversion Shares at the conversion price" if m.conversion_shares else "")
             + ("; the Company's affiliates not counted" if m.affiliates is not None else ""),
             t.amendments.quote))
    add(Rule("amendments.majority", m.section, "a Majority of Holders: more than "
             f"{plain(m.more_than * 100)}% of the principal of Notes outstanding", m.quote))
    for name, c in t.citations.items():
        add(Rule(f"citations.{name}", c.section, f"{name.replace('_', ' ')}: "
                 f"{getattr(t, name, None) or ''}".rstrip(": "), c.quote))
    return out


def _given(m: Any) -> str:
    """When a notice by method ``m`` is deemed given, in words."""
    if m.deemed in ("business_days_after", "days_after"):
        unit = "Business Days" if m.deemed == "business_days_after" else "days"
        return f"{m.count} {unit} after"
    return {"on_delivery": "on delivery", "next_business_day": "the next Business Day",
            "when_acknowledged": "when acknowledged"}[m.deemed]


def _window(w: Any) -> str:
    return (f"{w.in_days} days" if w.in_days is not None else
            f"{w.in_months} months" if w.in_months != 12 else "12 months")


def statements(t: RegistrationTerms) -> Callable[[str | None, str | None], list[dict]] | None:
    """How an explanation states the clauses a text cites, for a deal whose agreement is
    not the one shipped (``None`` for that one: ``projections.clauses`` states it): each
    section of the terms the text names (``RRA §3(a), §3(b)`` names ``RRA §3(a)`` and
    ``RRA §3(b)``), with its quotation, else its rule in words."""
    if t.text == INFOCROSSING_TEXT:
        return None
    table: dict[str, str] = {}
    for rule in rules_in_words(t):
        if rule.section and rule.section not in table:
            table[rule.section] = rule.quote or rule.words
    ordered = sorted(table, key=len, reverse=True)

    def state(clause: str | None, topic: str | None = None) -> list[dict]:
        if not clause:
            return []
        found: list[tuple[int, str]] = []
        taken: list[tuple[int, int]] = []
        for section in ordered:
            for form in dict.fromkeys((section, short_section(section))):
                at = clause.find(form)
                while at >= 0:
                    span = (at, at + len(form))
                    if not any(a < span[1] and span[0] < b for a, b in taken):
                        taken.append(span)
                        found.append((at, section))
                    at = clause.find(form, at + 1)
        return [{"clause": s, "statement": table[s]} for _, s in sorted(found)]

    return state

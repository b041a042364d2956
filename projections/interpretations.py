"""Named interpretations of ambiguous clauses (SPEC §6).

Each reading has a name, a default, its alternatives and the clause it reads. A
computation takes the set in force as a plain ``{name: value}`` mapping; reports show
it, and ``--interpret NAME=VALUE`` switches one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping


@dataclass(frozen=True)
class Interpretation:
    name: str
    default: str
    alternatives: tuple[str, ...]
    clause: str
    question: str
    readings: Mapping[str, str]
    #: a worked example of each value: one history, and what each reading makes of it
    #: (tests/test_interpretation_examples.py computes each figure with the engine)
    examples: Mapping[str, str] = field(default_factory=dict)

    @property
    def values(self) -> tuple[str, ...]:
        return (self.default, *self.alternatives)


REGISTRY: dict[str, Interpretation] = {i.name: i for i in (
    Interpretation(
        "default_date", "last_compliant_day", ("first_breach_day",), "RRA §3(a)",
        "Which day is 'the day following the Registration Default'?",
        {"last_compliant_day": "the default date is the last day the company could still "
                               "comply; accrual starts the day after it",
         "first_breach_day": "the default occurs on the first day of breach; accrual starts "
                             "the day after that, one day later"}),
    Interpretation(
        "rate_after_second_anniversary", "calendar", ("first_90_days_always_quarter_point",),
        "RRA §3(a)(i)-(iv)",
        "Inside an episode's first 90 days, do the anniversary rates apply?",
        {"calendar": "from 2006-06-30 on, the anniversary rates apply even within an "
                     "episode's first 90 days",
         "first_90_days_always_quarter_point": "an episode's first 90 days always accrue "
                                                "at 0.25%"}),
    Interpretation(
        "overlapping_defaults", "episode", ("additive",), "RRA §3(a)",
        "When Registration Defaults overlap, do their rates add up?",
        {"episode": "one rate clock per continuous episode; rates never add up",
         "additive": "each default accrues its own rate from its own start"}),
    Interpretation(
        "conversion_forfeits", "unpaid", ("all_unpaid", "future_only"), "RRA §3(a)",
        "Which Additional Interest do converted Notes lose ('No Additional Interest shall "
        "be payable on any Notes that have been converted')?",
        {"unpaid": "Notes converted before an Interest Payment Date get nothing on that "
                   "date, for its whole period; an amount that fell due before the "
                   "conversion stays owed",
         "all_unpaid": "as unpaid, and also amounts that fell due before the conversion "
                       "and were still unpaid on the conversion day are lost (what was "
                       "paid stays paid)",
         "future_only": "accrual stops at conversion; what accrued before stays owed to "
                        "the converting holder"}),
    Interpretation(
        "no_questionnaire_request", "entitled", ("not_entitled",), "RRA §3(a), §2(b)",
        "Is a holder never asked for a Questionnaire entitled?",
        {"entitled": "a holder never asked is entitled",
         "not_entitled": "a holder is entitled only after delivering a Questionnaire"}),
    Interpretation(
        "questionnaire_deadline", "questionnaire_form", ("section_2b_business_days",),
        "RRA §3(a), §2(b), Exhibit A",
        "Which deadline decides a Holder's entitlement to Additional Interest?",
        {"questionnaire_form": "the deadline specified in the Questionnaire itself (RRA §3(a) "
                               "'the deadline specified therein'; Exhibit A: 'on or before "
                               "the 20th date following delivery'): 20 calendar days after "
                               "the request",
         "section_2b_business_days": "the Questionnaire Deadline of RRA §2(b): the 20th "
                                     "Business Day after the written request"}),
    Interpretation(
        "window_breach", "usability_default", ("report_only", "suspension_default"),
        "RRA §4(b)(i), §3(a)(iii), §3(a)(iv)",
        "Suspension days beyond 45 (60) in a 90-day window, each period within its limit?",
        {"usability_default": "days past the 45 (60)-in-90 right count as the shelf being "
                              "unusable outside a permitted suspension: default (iii)",
         "report_only": "the breach is reported but accrues nothing",
         "suspension_default": "the excess days are default (iv)(A) at once, with no five "
                               "Business Days of grace"}),
    Interpretation(
        "window_material_allowance", "period", ("any_in_window",), "RRA §4(b)(i)",
        "When does the 60-in-90 allowance (material business transaction) apply?",
        {"period": "to the days of a Suspension Period flagged material (or extended)",
         "any_in_window": "on every day whose 90-day window holds a day of a material "
                          "Suspension Period"}),
    Interpretation(
        "rate_clock", "per_episode", ("once_per_deal",), "RRA §3(a) \"the first 90-day "
        "period\"",
        "Does a new default episode after a cure start again at 0.25%?",
        {"per_episode": "a new episode after a cure starts again at 0.25% for its first "
                        "90 days",
         "once_per_deal": "only the deal's first 90 days of default, counted across "
                          "episodes, are at 0.25%"}),
    Interpretation(
        "questionnaire_entitlement_judged_on", "payment_date", ("record_date",),
        "RRA §3(a) last paragraph",
        "On which day is a Holder's entitlement (Questionnaire delivered before its "
        "deadline) judged for one Interest Payment Date?",
        {"payment_date": "a Holder whose Questionnaire deadline passed, without delivery, "
                         "before the payment date gets nothing on it",
         "record_date": "only a deadline passed before the record date disentitles"}),
    Interpretation(
        "registered_securities", "all_notes", ("named_selling_holders",),
        "RRA §2(a)(iii)(y)",
        "Which Transfer Restricted Securities are 'registered under the Shelf Registration "
        "Statement' for the end of the Effectiveness Period under (y)?",
        {"all_notes": "every Transfer Restricted Security: (y) ends the Effectiveness Period "
                      "when all of them are sold under the shelf",
         "named_selling_holders": "only those of Holders named in the Prospectus (a "
                                  "Questionnaire delivered on or before effectiveness, or "
                                  "an AmendmentFiled adding them): (y) ends it when the "
                                  "named Holders hold no Transfer Restricted Security, "
                                  "once at least one is named"}),
    Interpretation(
        "conversion_judged_on", "interest_payment_date", ("payment_day",),
        "RRA §3(a), §3(b)",
        "Notes converted after an Interest Payment Date but before the rolled day it is "
        "paid on: converted before the payment ('No Additional Interest shall be payable "
        "on any Notes that have been converted')?",
        {"interest_payment_date": "no: the amount fell due on the Interest Payment Date, and "
                                  "a payment made on the next Business Day is a payment on "
                                  "that date; it stays owed",
         "payment_day": "yes: judged by the day the payment is actually made, the converted "
                        "Notes get nothing on it"},
        {"interest_payment_date": "Alpha holds 20,000,000 of Notes on the record date "
                                  "2005-01-01; default (ii) accrued 2004-10-29 to 2004-11-15, "
                                  "16 days (30/360); Alpha converts them on Mon 2005-01-17 "
                                  "(01-15 is a Saturday, 01-17 Martin Luther King Day: paid "
                                  "01-18). Converted after the Interest Payment Date 01-15: "
                                  "owed 20,000,000 x 0.25% x 16/360 = 2,222.22",
         "payment_day": "the same history: converted before 01-18, the day of payment: "
                        "forfeited, 0.00"}),
    Interpretation(
        "shelf_buyer_paid", "accrued_days", ("not_record_holder",),
        "RRA §3(a), §3(b), §1 Record Holder",
        "Is a buyer of Notes sold under the shelf before the record date paid, as Record "
        "Holder, what they accrued while Transfer Restricted?",
        {"accrued_days": "yes: the holder of record is paid for the days its Notes were "
                         "Transfer Restricted Securities (SPEC §4.4)",
         "not_record_holder": "no: it holds no Transfer Restricted Securities on the record "
                              "date ('Record Holders of Transfer Restricted Securities'): "
                              "nothing for that date"},
        {"accrued_days": "Lehman holds 60,000,000; default (ii) accrued 2004-10-29 to "
                         "2004-11-15, 16 days (30/360); Lehman sells all of it under the "
                         "shelf to Buyer on 2004-12-01, before the record date 2005-01-01: "
                         "Buyer is owed 60,000,000 x 0.25% x 16/360 = 6,666.67 on 2005-01-18",
         "not_record_holder": "the same history: Buyer holds no Transfer Restricted "
                              "Securities on 2005-01-01 and Lehman holds no Notes: nobody is "
                              "owed anything for 2005-01-15 (0.00)"}),
    Interpretation(
        "default_after_effectiveness_period", "ends", ("continues",),
        "RRA §2(a)(iii), §3(a)",
        "Do (iii) and (iv) defaults accrue after the Effectiveness Period ends?",
        {"ends": "(iii) and (iv) defaults stop at the end of the Effectiveness Period",
         "continues": "they accrue until cured"}),
    Interpretation(
        "trueup_dividends", "frozen", ("to_vesting_date",), "Letter ¶3",
        "Does a true-up count dividends accrued after the actual conversion?",
        {"frozen": "a true-up counts anti-dilution only, not dividends accrued after the "
                   "actual conversion",
         "to_vesting_date": "for preferred, x also converts the dividends the Shares would "
                            "have accrued from the conversion to the vesting date (the "
                            "deal's preferred_dividends terms)"}),
    Interpretation(
        "trueup_adjustments", "all", ("camden_only",), "Letter ¶3",
        "Which adjustments does x, the shares 'after giving effect to all anti-dilution "
        "adjustments', count?",
        {"all": "x uses every anti-dilution adjustment in effect on the vesting date, "
                "AdjustmentRecorded included (the words of ¶3); a split after the exercise "
                "then counts against a y that is not restated",
         "camden_only": "x uses only the deferred Camden adjustments, applied on top of the "
                        "price at the exercise (x and y in the same shares)"}),
    Interpretation(
        "camden_tranche_order", "earliest_first", ("latest_first",),
        "Letter ¶2, Camden Warrant Agreement",
        "Which of a Camden Entity's issuances does a vesting (a cancellation) draw on?",
        {"earliest_first": "a vesting takes the earliest-issued unvested Camden Warrants of "
                           "that holder; a cancellation the latest",
         "latest_first": "a vesting takes the latest-issued; a cancellation the earliest"}),
    Interpretation(
        "same_day_vesting_and_exercise", "vesting_first", ("exercise_first",), "Letter ¶3",
        "Is a Camden vesting on the date of an exercise in force at the exercise?",
        {"vesting_first": "a vesting on the exercise date is already in the exercise price: "
                          "no true-up for it",
         "exercise_first": "the exercise is priced before the same-day vesting, and the "
                           "vesting earns it a true-up"}),
    Interpretation(
        "same_day_adjustment", "as_recorded", ("before_others",), "Letter ¶3",
        "Where does an AdjustmentRecorded take effect among the same day's exercises, "
        "conversions and vestings?",
        {"as_recorded": "in the order recorded (SPEC §1: a day's events count in the order "
                        "they were recorded); only what SPEC asks is moved: the day's "
                        "vestings together, exercises by same_day_vesting_and_exercise",
         "before_others": "before them, whatever the order recorded (the kind order)"},
        {"as_recorded": "10,000,000 shares outstanding; W: 100,000 at 3.00; 1,000,000 Camden "
                        "Warrants at 2.00 vest on 2003-01-01, and W is adjusted to 2.70 that "
                        "day, recorded after the vesting: the vesting takes W to 3.00 x "
                        "(10,000,000 + 666,666.67) / 11,000,000 = 2.9091, then the adjustment "
                        "sets 2.70: W ends the day at 2.70",
         "before_others": "the same history: the adjustment first (2.70), then the vesting: "
                          "2.70 x (10,000,000 + 740,740.74) / 11,000,000 = 29,000,000 / "
                          "11,000,000 = 2.6364"}),
    Interpretation(
        "later_camden_issuance", "not_deferred", ("deferred",), "Letter ¶2, ¶5",
        "Are Camden Warrants issued after February 1, 2002 Camden Warrants of the letter, "
        "whose anti-dilution is deferred?",
        {"not_deferred": "no: a 'further issuance of securities' (¶5), outside the letter; "
                         "their vesting adjusts nothing here (record what they trigger as "
                         "AdjustmentRecorded)",
         "deferred": "yes: warrants issued later pursuant to the Camden Warrant Agreement "
                     "'dated as of February 1, 2002' are Camden Warrants by ¶2's definition; "
                     "their vesting applies the deferred adjustment"},
        {"not_deferred": "10,000,000 shares outstanding; W: 100,000 at 3.00; 1,000,000 Camden "
                         "Warrants at 2.00 issued 2002-06-01, vesting 2003-01-01: not "
                         "deferred, W stays at 3.00",
         "deferred": "the same history: the vesting adjusts W to 3.00 x (10,000,000 + "
                     "666,666.67) / 11,000,000 = 2.9091 (shares 100,000 x 3.00 / 2.9091 = "
                     "103,124)"}),
)}

DEFAULTS: dict[str, str] = {name: i.default for name, i in REGISTRY.items()}


def resolve(overrides: Mapping[str, str] | None = None) -> dict[str, str]:
    """The full set in force: defaults with ``overrides`` applied; ``ValueError`` if unknown."""
    out = dict(DEFAULTS)
    for name, value in (overrides or {}).items():
        if name not in REGISTRY:
            import difflib

            close = difflib.get_close_matches(name, list(REGISTRY), n=3)
            raise ValueError(f"unknown interpretation {name!r}; " + (
                "did you mean " + " or ".join(repr(c) for c in close) + "?" if close
                else f"known: {', '.join(REGISTRY)}"))
        if value not in REGISTRY[name].values:
            raise ValueError(f"interpretation {name} has no value {value!r}; choose one of "
                             f"{', '.join(REGISTRY[name].values)}")
        out[name] = value
    return out

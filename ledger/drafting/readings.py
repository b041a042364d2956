"""Sentences the ledger reads more than one way (its named readings, SPEC §6), found in an
agreement's text so that the draft names both readings beside the sentence.

Each is recognised by the words that make it ambiguous:

* ``default_date``: damages "from and including the day following the Registration
  Default", or "from and including the date the Registration Default occurs" (which day
  is the default's?);
* ``rate_clock``: "the first 90-day period during which a Registration Default shall have
  occurred" (each episode's first 90 days, or the deal's?);
* ``overlapping_defaults``: a ladder stated for more than one kind of default, and nothing
  said of defaults that overlap;
* ``rate_after_second_anniversary``: a ladder counted both from the default and from the
  anniversaries of the closing;
* ``conversion_forfeits``, ``conversion_judged_on``: "No Additional Interest shall be
  payable on any Notes that have been converted" (which amounts; converted before a payment
  made on a rolled day?);
* ``shelf_buyer_paid``: paid "to Record Holders of Transfer Restricted Securities" (a buyer
  under the shelf before the record date?);
* ``no_questionnaire_request``, ``questionnaire_entitlement_judged_on``: "A Holder will not
  be entitled to Additional Interest unless it has provided ... the Questionnaire prior to
  the deadline specified therein";
* ``questionnaire_deadline``: a deadline in the agreement and another in the form;
* ``window_breach``: a window of the right to suspend whose excess the text makes no
  default;
* ``window_material_allowance``: the material-transaction extension "during any 90-day
  period";
* ``registered_securities``: the period ends when all securities "registered under the
  Shelf Registration Statement have been sold";
* ``default_after_effectiveness_period``: a lapse is a default "during the Effectiveness
  Period".
"""

from __future__ import annotations

import re

from .findings import Phrases


def read(p: Phrases) -> None:
    def where(pattern: str) -> tuple[str, str] | None:
        m = next(iter(p.finditer(pattern)), None)
        if m is None:
            return None
        s0, s1 = p.a.clause(m.start(), m.end())
        return p.a.section(m.start()), p.a.quote(s0, s1)

    def note(name: str, found: tuple[str, str] | None, why: str) -> None:
        if found is not None:
            p.ambiguous(name, found[0], found[1], why)

    note("default_date", where(r"from\s+and\s+including\s+the\s+day\s+following\s+the\s+"
                               r"Registration\s+Default"),
         "which day is the Registration Default's: the last day the Company could still "
         "comply, or the first day of breach")
    note("default_date", where(r"from\s+and\s+including\s+(?:such\s+date\s*\[the\s+date\s+the"
                               r"\s+event\s+occurs\]|the\s+(?:date|day)\s+(?:on\s+which\s+)?"
                               r"(?:the|a|such)\s+Registration\s+Default\s+(?:occurs|has\s+"
                               r"occurred|shall\s+have\s+occurred))"),
         "damages accrue from and including the day the Registration Default occurs: which "
         "day is the default's, the last day the Company could still comply or the first "
         "day of breach (and the catalog's readings count accrual from the day after it)")
    note("rate_clock", where(r"first\s+\d+[\s-]+day\s+period\s+during\s+which\s+a\s+"
                             r"Registration\s+Default"),
         "'the first 90-day period': each default episode's first days, or the deal's "
         "first days of default counted across episodes")
    ladder = p.out.get("damages ladder")
    kinds = [f for f in p.out.found if f.term.startswith("default: ")]
    if ladder is not None and len(kinds) > 1:
        p.ambiguous("overlapping_defaults", ladder.section, ladder.quote,
                    "the text does not say how the rates of Registration Defaults that "
                    "overlap combine")
    if ladder is not None and any(s.anniversary for s in ladder.value) and \
            any(s.after_days for s in ladder.value):
        p.ambiguous("rate_after_second_anniversary", ladder.section, ladder.quote,
                    "a ladder counted from the default and from the anniversaries: inside a "
                    "default's first days, do the anniversary rates apply")
    note("conversion_forfeits", where(r"shall\s+be\s+payable\s+on\s+any\s+(?:Notes|Debentures)"
                                      r"\s+that\s+have\s+been\s+converted"),
         "which damages converted Notes lose: unpaid ones, or only those after the "
         "conversion")
    note("conversion_judged_on", where(r"shall\s+be\s+payable\s+on\s+any\s+(?:Notes|"
                                       r"Debentures)\s+that\s+have\s+been\s+converted"),
         "Notes converted after an Interest Payment Date but before the day it is paid on: "
         "converted before the payment or not")
    note("shelf_buyer_paid", where(r"to\s+Record\s+Holders\s+of\s+Transfer\s+Restricted\s+"
                                   r"Securities"),
         "is a buyer of Notes sold under the shelf before the record date paid, as Record "
         "Holder, what they accrued while Transfer Restricted")
    entitled = where(r"not\s+be\s+entitled\s+to\s+[^.]{0,60}?unless[^.]{0,120}?Questionnaire")
    note("no_questionnaire_request", entitled,
         "is a Holder never asked for a Questionnaire entitled")
    note("questionnaire_entitlement_judged_on", entitled,
         "on which day a Holder's entitlement is judged: the payment date or the record date")
    deadline = p.out.get("questionnaire deadline")
    form = p.out.get("questionnaire form deadline")
    if deadline is not None and form is not None and deadline.value != form.value:
        p.ambiguous("questionnaire_deadline", f"{deadline.section}; {form.section}",
                    f"{deadline.quote} / {form.quote}",
                    "the agreement's Questionnaire Deadline and the form's own differ: "
                    "which decides a Holder's entitlement")
    windows = p.out.get("suspension windows")
    if windows is not None and any(w.default is None for w in windows.value):
        p.ambiguous("window_breach", windows.section, windows.quote,
                    "suspended days past a window's limit, each period within its own: a "
                    "lapse of the shelf (a default), a breach reported only, or a "
                    "suspension default")
    note("window_material_allowance",
         where(r"extend\s+(?:a|any|such)\s+(?:Suspension|Deferral)\s+Period\s+from\s+[^.]{0,40}"
               r"(?:during|in)\s+any"),
         "which days the longer limit of a material business transaction covers")
    note("registered_securities", where(r"registered\s+under\s+the\s+Shelf\s+Registration\s+"
                                        r"Statement\s+have\s+been\s+sold"),
         "which securities are 'registered under the Shelf Registration Statement': all, or "
         "those of the Holders named in it")
    unusable = p.out.get("default: unusable")
    if unusable is not None and re.search(r"during\s+the\s+(?:Effectiveness|Shelf\s+"
                                          r"Registration)\s+Period", unusable.quote, re.I):
        p.ambiguous("default_after_effectiveness_period", unusable.section, unusable.quote,
                    "does a lapse that began during the Effectiveness Period accrue after "
                    "it ends")

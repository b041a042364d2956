"""Reading the duties and the clauses around them: the Questionnaire (its deadline in the
agreement and in the form, and the amendment owed for a late one), the Trustee notice,
advising the Holders, how notices are given, who may amend the agreement, and the
definitions other rules cite (Record Holder, Business Day, Suspension Notice).

* "complete and deliver the Questionnaire ... prior to or on the 20th Business Day after the
  date of a written request" (the agreement); "ON OR BEFORE THE 20TH DATE FOLLOWING
  DELIVERY OF THE NOTICE AND QUESTIONNAIRE" (the form, an exhibit);
* "Upon receipt of a completed Questionnaire after the Questionnaire Deadline, the Company
  will ... within 10 Business Days of receipt, file any amendments ... more than $1
  million";
* "notify the Trustee within two Business Days after ..."; "Advise the selling Holders
  promptly (but in any event within five Business Days)";
* "deemed to have been duly given: at the time delivered by hand ...; five Business Days
  after being deposited in the mail ...; when answered back, if telexed; ...";
* "may not be amended ... unless the Company has obtained the written consent of a Majority
  of Holders"; "MAJORITY OF HOLDERS: Holders holding over 50% in aggregate principal amount
  ...; provided ... a holder of Conversion Shares ... shall be deemed to hold ...";
  "held by the Company or its Affiliates shall not be counted".
"""

from __future__ import annotations

import re
from decimal import Decimal

from . import numbers as n
from .findings import DAYS, NTH_DAY, Found, Majority, NoticeMethod, Phrases

_BY = (r"(?:prior\s+to\s+or\s+on|on\s+or\s+(?:prior\s+to|before)|within|not\s+later\s+than|"
       r"no\s+later\s+than|by)")
_QUESTIONNAIRE = (rf"{_BY}\s+(?:{NTH_DAY}|{DAYS})\s+(?:after|following|of)\s+[^.;]{{0,60}}?"
                  rf"(?:request|deliver)")


def read(p: Phrases) -> None:
    _questionnaire(p)
    _duty(p, "trustee notice", r"notify\s+the\s+Trustee[^.;]{0,40}?within\s+" + DAYS)
    _duty(p, "advise holders", r"[Aa]dvise\s+(?:the\s+|each\s+)?(?:selling\s+)?Holders?"
          r"[^.;]{0,60}?within\s+" + DAYS)
    _notices(p)
    _amendments(p)
    _citations(p)


def _questionnaire(p: Phrases) -> None:
    agreement, form = [], []
    for m in p.finditer(_QUESTIONNAIRE, parts=("body", "preamble", "exhibit")):
        s0, s1 = p.sentence(m.start())
        sentence = p.text[s0:s1]
        if not re.search(r"Questionnaire", sentence, re.I) or \
                not re.search(r"complete|deliver|return", sentence, re.I) or \
                re.search(r"additional\s+information", p.text[m.start() - 200:m.start()], re.I) \
                and not re.search(r"Questionnaire", p.text[m.start() - 200:m.end()], re.I):
            continue
        days = p.days(m)
        if isinstance(days, n.Conflict):
            continue
        section, quote = p.a.section(m.start()), p.a.quote(s0, s1)
        if len(quote) > 400:
            section, quote = p.clause(m.start(), m.end())
        exhibit = p.a.node_at(m.start()).part.startswith("Exhibit")
        note = (f"'the {m.group('o')} date following': read as a calendar day"
                if (m.group("ounit") or "").lower() == "date" else None)
        (form if exhibit else agreement).append(Found("questionnaire deadline", days,
                                                        section, quote, note))
    p.settle("questionnaire deadline", agreement)
    for f in form:
        p.out.found.append(Found("questionnaire form deadline", f.value, f.section, f.quote,
                                  f.note))
        break
    m = next(iter(p.finditer(rf"receipt\s+of\s+a\s+completed\s+Questionnaire[^.]*?within\s+"
                             rf"{DAYS}\s+of\s+receipt")), None)
    if m is not None:
        candidates = []
        for again in p.finditer(rf"receipt\s+of\s+(?:a\s+completed\s+|such\s+)?Questionnaire"
                                rf"[^.]*?within\s+{DAYS}\s+of\s+receipt"):
            s0, s1 = p.sentence(again.start())
            words = p.text[s0:min(len(p.text), s1 + 600)]
            floor = re.search(r"more\s+than\s+\$\s*(?P<x>\d+(?:\.\d+)?)\s*(?P<u>million|thousand)?",
                              words, re.I)
            amount = None
            if floor:
                amount = Decimal(floor.group("x")) * {"million": 1000000, "thousand": 1000,
                                                     None: 1}[(floor.group("u") or "").lower()
                                                              or None]
            candidates.append(Found("late questionnaire amendment",
                                     (p.days(again), amount), p.a.section(again.start()),
                                     p.a.quote(s0, s1)))
        p.settle("late questionnaire amendment", candidates)


def _duty(p: Phrases, term: str, pattern: str) -> None:
    for m in p.finditer(pattern):
        days = p.days(m)
        s0, s1 = p.sentence(m.start())
        section, quote = p.a.section(m.start()), p.a.quote(s0, s1)
        if isinstance(days, n.Conflict):
            p.unread(term, f"words and figures differ: '{days.text}'", section, quote,
                     (days.words, days.figures))
        else:
            p.found(term, days, section, quote)
        return


_METHODS = (("hand", r"by\s+hand|personally\s+delivered|hand[\s-]deliver"),
            ("mail", r"\bmail(?:ed)?\b"), ("telex", r"telex"),
            ("fax", r"facsimile|telecop|\bfax"), ("courier", r"courier"),
            ("email", r"e-?mail|electronic\s+mail"))


def _notices(p: Phrases) -> None:
    m = next(iter(p.finditer(r"deemed\s+to\s+have\s+been\s+(?:duly\s+)?given\s*:")), None)
    if m is None:
        return
    s0, s1 = p.sentence(m.start())
    methods = []
    for part in re.split(r";", p.text[m.end():s1]):
        method = next((name for name, pattern in _METHODS if re.search(pattern, part, re.I)),
                      None)
        if method is None:
            continue
        count = re.search(rf"(?P<n>{n.NUMBER})\s+(?P<u>Business\s+Days|days)\s+after", part,
                          re.I)
        if count:
            deemed = ("business_days_after" if count.group("u").lower().startswith("business")
                      else "days_after")
            methods.append(NoticeMethod(method, deemed, n.number(count.group("n"))))
        elif re.search(r"next\s+Business\s+Day", part, re.I):
            methods.append(NoticeMethod(method, "next_business_day"))
        elif re.search(r"answered\s+back|acknowledged", part, re.I):
            methods.append(NoticeMethod(method, "when_acknowledged"))
        elif re.search(r"at\s+the\s+time\s+delivered|when\s+delivered|upon\s+delivery|"
                       r"when\s+received", part, re.I):
            methods.append(NoticeMethod(method, "on_delivery"))
    if methods:
        p.found("notices", methods, p.a.section(m.start()), p.a.quote(s0, s1))


def _amendments(p: Phrases) -> None:
    m = next(iter(p.finditer(r"(?:may\s+not\s+be\s+amended|may\s+(?:only\s+)?be\s+amended|"
                             r"no\s+amendment)[^.]{0,300}?consent")), None)
    if m is None:
        return
    s0, s1 = p.sentence(m.start())
    p.found("amendments", "consent", p.a.section(m.start()), p.a.quote(s0, s1))
    words = p.text[s0:s1]
    majority = None
    for term in ("Majority of Holders", "Majority Holders", "Required Holders"):
        if term.lower() in words.lower() and p.a.definition(term) is not None:
            d = p.a.definition(term)
            majority = (d, p.text[d.start:d.end])
            break
    if majority is None:
        return
    d, text = majority
    share = re.search(r"(?:over|more\s+than|in\s+excess\s+of)\s+(?P<x>\d+(?:\.\d+)?)%", text, re.I)
    if share is None:
        return
    conversion = bool(re.search(r"holder\s+of\s+Conversion\s+Shares[^.]*?deemed\s+to\s+hold",
                                text, re.I))
    affiliates = None
    for a in p.finditer(r"held\s+by\s+the\s+Company\s+or\s+its\s+Affiliates\s+shall\s+not\s+be\s+"
                        r"counted"):
        a0, a1 = p.a.clause(a.start(), a.end())
        affiliates = (p.a.section(a.start()), p.a.quote(a0, a1))
        break
    end = d.start + text.find(";") if ";" in text else p.a.sentence(d.start)[1]
    p.found("majority", Majority(Decimal(share.group("x")) / 100, conversion, affiliates),
            d.where, p.a.quote(d.start, end))


def _citations(p: Phrases) -> None:
    for term, name in (("Record Holder", "record holder"), ("Business Day", "business day")):
        d = p.a.definition(term)
        if d is not None:
            p.found(name, term, d.where, p.a.quote(d.start, p.a.sentence(d.start)[1]))
    for m in p.finditer(r"not\s+be\s+permitted\s+to\s+sell[^.]*?pursuant\s+to\s+the\s+Shelf\s+"
                        r"Registration\s+Statement"):
        s0, s1 = p.a.sentence(m.start())
        if re.search(r"Questionnaire", p.text[s0:s1]):
            p.found("named selling holder", "named selling holder", p.a.section(m.start()),
                    p.a.quote(s0, s1))
            break
    d = p.a.definition("Suspension Notice")
    if d is not None and "§1" not in d.where:
        s0, s1 = p.a.sentence(d.start)
        words = p.text[s0:s1]
        cut = re.search(r"\s+until\s*:", words)
        quote = p.a.quote(s0, s0 + cut.end() - 1 if cut else s1)
        p.found("suspension notice", "Suspension Notice", d.where,
                re.sub(r"^\(\w+\)\s+", "", quote))

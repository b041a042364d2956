"""Reading the damages (Additional Interest, Liquidated Damages, Registration Default
Damages, Special Interest) and their payment.

* the clause: where the damages are named ("the Company hereby agrees to pay additional
  interest ("ADDITIONAL INTEREST") with respect to the Transfer Restricted Securities that
  are Notes ...");
* the ladder, rate by rate in the text's order: "0.25% per annum for the first 90 days"
  (from day 1), "commencing on the 91st day following the day the Registration Default
  shall have occurred" (after 90 days), "0.50% per annum thereafter" (after the first
  period), "increase by an additional 0.25% per annum with respect to each subsequent
  90-day period" (0.25 more every 90 days), "commencing on the second anniversary of the
  Closing Date", "increase annually by 2.00 percentage points on each anniversary ...,
  commencing with the third anniversary"; a ladder stated again for another default is
  the same ladder (cited at both) or, if it differs, two readings;
* the cap: "up to a maximum (amount) of 0.50% per annum", "in no event ... exceed"; a ladder
  that rises without end and states none has none; one that ends flat and states none
  leaves the cap to a person (the text does not say how overlapping defaults combine);
* the base ("Transfer Restricted Securities that are Notes"; "the aggregate outstanding
  principal amount"), converted Notes ("No Additional Interest shall be payable on any
  Notes that have been converted"; shares at "the Applicable Conversion Price");
* the payment: in cash or shares, to whom ("Record Holders of Transfer Restricted
  Securities"; "the same persons as ordinary interest"), on which days ("each of June 15
  and December 15"), the record dates, a payment day that is not a Business Day, and the
  day count ("a 360-day year of twelve 30-day months"; "a 360-day year" alone is read two
  ways: 30/360 or actual days over 360).
"""

from __future__ import annotations

import re
from decimal import Decimal

from . import numbers as n
from .findings import Phrases, RateStep, join_sections

DAMAGES_NAMES = ("Additional Interest", "Liquidated Damages", "Registration Default Damages",
                 "Special Interest", "Additional Amounts", "Registration Delay Payments")
_PER_ANNUM = r"(?:\s+per\s+annum|\s+a\s+year)"
_EXCLUDED = (r"(?:Convertible|Senior|Notes?\s+due|Debentures?\s+due|in\s+aggregate\s+principal|"
             r"or\s+more)")


def read(p: Phrases) -> None:
    clause = _clause(p)
    ladders, notes = _ladders(p)
    _settle_ladder(p, ladders, notes)
    _cap(p, ladders)
    _base(p, clause)
    _conversion(p)
    _payment(p)


# -------------------------------------------------------------------- the clause


def _clause(p: Phrases) -> tuple[int, int] | None:
    """The clause naming the damages, found as ``damages``; its span."""
    for name in DAMAGES_NAMES:
        d = p.a.definition(name)
        if d is None or p.a.points_elsewhere(name) or "§1" in d.where and \
                not d.where.endswith(")"):
            continue
        s0, s1 = p.a.clause(d.start, d.end)
        words = p.text[s0:s1]
        lead = re.match(r"\((?:[^()]|\([^()]*\))*\),?\s*", words)
        if lead:
            s0 += lead.end()
        p.found("damages", name, p.a.section(d.start), p.a.quote(s0, s1))
        return s0, s1
    return None


# -------------------------------------------------------------------- the ladder


def _rates(p: Phrases) -> list[tuple[int, int, Decimal | n.Conflict]]:
    """Every rate a damages sentence states: ``(start, end, per cent)``; not one in an
    illustration ("(for purposes of illustration, ... would increase to 9.00% ...)")."""
    out = []
    for m in p.finditer(rf"(?<![\w.])(?P<r>{n.PERCENT})"):
        s0, s1 = p.sentence(m.start())
        sentence = p.text[s0:s1]
        if not re.search(r"per\s+annum|interest|damages|Registration\s+Default|\+\s*\d",
                         sentence, re.I):
            continue
        if re.match(rf"\s*{_EXCLUDED}", p.text[m.end():m.end() + 40], re.I):
            continue
        if re.search(r"over\s*$|more\s+than\s*$|holding\s*$",
                     p.text[max(s0, m.start() - 30):m.start()], re.I):
            continue
        if _in_illustration(p.text, s0, m.start()):
            continue
        out.append((m.start(), m.end(), n.percent(m.group("r"))))
    return out


def _in_illustration(text: str, s0: int, at: int) -> bool:
    depth = 0
    for i in range(at - 1, s0 - 1, -1):
        if text[i] == ")":
            depth += 1
        elif text[i] == "(":
            if depth == 0:
                return bool(re.match(r"\((?:for\s+(?:purposes\s+of\s+)?(?:illustration|"
                                     r"example)|e\.g\.)", text[i:i + 40], re.I))
            depth -= 1
    return False


def _pieces(p: Phrases, rates: list) -> list[tuple[str, str, str, str]]:
    """Each rate's own words: ``(leading, trailing, section, quote)``. The words between
    two rates of one clause are split at their last ";", " and " or "," (outside
    parentheses): before it they qualify the first rate ("0.25% per annum for the first
    90 days ... and"), after it the second ("and 0.50% per annum thereafter")."""
    spans = []
    for start, end, _ in rates:
        spans.append((start, end) + p.a.clause(start, end))
    out = []
    for i, (start, end, c0, c1) in enumerate(spans):
        lo, hi = c0, c1
        if i and spans[i - 1][2:] == (c0, c1):
            lo = _split(p.text, spans[i - 1][1], start)
        if i + 1 < len(spans) and spans[i + 1][2:] == (c0, c1):
            hi = _split(p.text, end, spans[i + 1][0])
        lead = p.text[lo:start]
        own = re.search(r"\bat\s+(?:a|the)\s+rate\s+of\s*$", lead, re.I)
        quote = p.a.quote(lo + own.start() if own else lo, hi)
        quote = re.sub(r"^(?:and|or|;|,)\s+", "", quote)
        out.append((lead, p.text[end:hi], p.a.section(start), quote))
    return out


def _split(text: str, lo: int, hi: int) -> int:
    """Where the words between two rates divide: at their last ";", else at the later of
    their last " and " and last "," ("0.25% from and including the date ..., +0.25% ...")."""
    words = text[lo:hi]

    def last(mark: str) -> int:
        depth, at = 0, -1
        for i, ch in enumerate(words):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and words.startswith(mark, i):
                at = i
        return at

    at = last(";")
    if at < 0:
        at = max(last(" and "), last(", "))
    return lo + at + 1 if at >= 0 else lo


def _ladders(p: Phrases) -> tuple[list[list[RateStep]], list[str]]:
    """The ladders the text states, each a list of steps (a new ladder starts where a rate
    applies from the first day of a default again), and notes on how they were read."""
    ladders: list[list[RateStep]] = []
    notes: list[str] = []
    length = None                        # the first period's length ("first 90 days")
    closes: tuple[str, int, str, str] | None = None  # where the step before says it ends
    rates = _rates(p)
    for (start, end, rate), (lead, trail, section, quote) in zip(rates, _pieces(p, rates)):
        if _is_cap(p, start):
            continue
        if isinstance(rate, n.Conflict):
            p.unread("damages ladder", f"words and figures differ: '{rate.text}'", section,
                     quote, (rate.words, rate.figures))
            continue
        words = lead + " " + trail
        add = bool(re.search(r"increase[sd]?\s+(?:annually\s+)?by\s+(?:an\s+additional\s+)?$|"
                             r"additional\s+$|\+\s*$", lead, re.I))
        step: dict = {"add" if add else "set": rate, "section": section, "quote": quote}
        first = re.search(rf"first\s+(?P<d>{n.NUMBER})[\s-]+(?:calendar\s+)?days?", words, re.I)
        commencing = re.search(rf"commencing\s+on\s+the\s+(?P<o>{n.ORDINAL_NUMBER})\s+day\s+"
                               rf"(?:following|after)\s+the\s+(?:day|date)\s+(?:on\s+which\s+)?"
                               rf"(?:the|such|a)\s+Registration\s+Default", words, re.I)
        anniversary = re.search(rf"commencing\s+(?:on|with)\s+the\s+(?P<o>{n.ORD_WORDS}|"
                                rf"\d+(?:st|nd|rd|th))\s+anniversary(?:\s+of\s+the\s+"
                                rf"(?P<of>Closing\s+Date|Issue\s+Date))?", words, re.I)
        each = re.search(rf"(?:each|every)\s+(?:subsequent\s+)?(?P<d>{n.NUMBER})[\s-]+day\s+"
                         rf"period|per\s+(?P<d2>{n.NUMBER})\s+days", words, re.I)
        yearly = re.search(r"annually|each\s+anniversary", words, re.I)
        of = re.search(r"anniversary\s+of\s+the\s+(Closing\s+Date|Issue\s+Date)", words, re.I)
        if anniversary:
            step["anniversary"] = _num(n.ordinal, anniversary.group("o"))
            step["of"] = " ".join((anniversary.group("of") or (of.group(1) if of else
                                                               "Closing Date")).split())
            step["every_year"] = bool(yearly and add)
        elif commencing:
            step["after_days"] = _num(n.ordinal, commencing.group("o")) - 1
        elif first or not ladders or not re.search(r"thereafter|subsequent|\+|additional|"
                                                   r"increase", words, re.I):
            step["after_days"] = 0
            if first:
                length = _num(n.number, first.group("d"))
        else:
            every = _num(n.number, each.group("d") or each.group("d2")) if each else None
            step["after_days"] = length if length is not None else every
            if length is None and every is not None:
                notes.append(f"the first period read as {every} days: the text "
                             f"counts '{' '.join(each.group(0).split())}'")
            if each and add:
                step["every_days"] = every
        begins = (("anniversary", step["anniversary"]) if "anniversary" in step else
                  ("days", step["after_days"]) if commencing else None)
        if closes is not None and begins is not None and begins[0] == closes[0] \
                and begins[1] != closes[1] and step.get("after_days") != 0:
            p.unread("damages ladder", f"{closes[2]} ends a step at {_at(closes[:2])}; "
                     f"{section} starts the next at {_at(begins)}: \"{closes[3]}\" / "
                     f"\"{quote}\"", join_sections([closes[2], section]), quote,
                     (closes[1], begins[1]))
        upto = re.search(rf"(?<!\w)to\s+the\s+(?P<o>{n.ORD_WORDS}|\d+(?:st|nd|rd|th))\s+"
                         rf"anniversary", words, re.I)
        closes = (("days", length, section, quote) if first and length is not None else
                  ("anniversary", _num(n.ordinal, upto.group("o")), section, quote) if upto
                  else None)
        if step.get("after_days") == 0 or not ladders:
            ladders.append([])
        ladders[-1].append(RateStep(**step))
    return [ladder for ladder in ladders if ladder], notes


def _at(where: tuple[str, int]) -> str:
    kind, value = where
    return f"day {value}" if kind == "days" else f"anniversary {value}"


def _num(read, text: str) -> int:
    value = read(text)
    if isinstance(value, n.Conflict):
        raise ValueError(value.text)
    return value


def _settle_ladder(p: Phrases, ladders: list[list[RateStep]], notes: list[str]) -> None:
    """One ladder, found; none when a number of it is stated two ways (read as two
    readings: the rate in words and figures, a step's end and the next step's start, the
    text's illustration)."""
    if not ladders or p.out.unread_of("damages ladder"):
        return
    first = ladders[0]
    same = [ladder for ladder in ladders
            if len(ladder) == len(first) and all(a.same_rule(b) for a, b in zip(ladder, first))]
    if len(same) != len(ladders):
        p.unread("damages ladder", "the text states different ladders: "
                 + " / ".join("; ".join(s.quote for s in ladder) for ladder in ladders),
                 first[0].section, first[0].quote, tuple(tuple(ladder) for ladder in ladders))
        return
    steps = []
    for i, step in enumerate(first):
        sections = join_sections([ladder[i].section for ladder in ladders])
        steps.append(RateStep(**{**_fields(step), "section": sections}))
    notes = [*notes, _illustration(p, steps)]
    if p.out.unread_of("damages ladder"):
        return
    p.found("damages ladder", steps, join_sections([s.section for s in steps]),
            " ... ".join(dict.fromkeys(s.quote for s in first)),
            "; ".join(dict.fromkeys(x for x in notes if x)) or None)


def _illustration(p: Phrases, steps: list[RateStep]) -> str | None:
    """An illustration the text gives ("the rate ... would increase to 9.00% per annum ...
    on the fifth anniversary of the Closing Date"), checked against the ladder read: a
    note when it agrees; two readings when it does not."""
    m = next(iter(p.finditer(rf"would\s+(?:increase|be)\s+to\s+(?P<r>{n.PERCENT})[^.)]*?\s+"
                             rf"on\s+the\s+(?P<o>{n.ORD_WORDS}|\d+(?:st|nd|rd|th))\s+"
                             rf"anniversary")), None)
    if m is None:
        return None
    said, year = n.percent(m.group("r")), n.ordinal(m.group("o"))
    rate = None
    for step in steps:
        if step.anniversary is None or step.anniversary > year:
            continue
        times = year - step.anniversary + 1 if step.every_year else 1
        rate = step.set if step.set is not None else (rate or Decimal(0)) + step.add * times
    section, quote = p.clause(m.start(), m.end())
    if rate == said:
        return f"the text's illustration agrees: {said}% on the {m.group('o')} anniversary"
    p.unread("damages ladder", f"the text's illustration ({said}% on the {m.group('o')} "
             f"anniversary) does not agree with the ladder read ({rate}%)", section, quote,
             (rate, said))
    return None


def _fields(step: RateStep) -> dict:
    import dataclasses

    return {f.name: getattr(step, f.name) for f in dataclasses.fields(step)}


_CAP = (r"(?:max(?:imum)?(?:\s+(?:amount|rate))?(?:\s+\[\.*\])?\s+(?:of\s+)?|"
        r"(?:shall|will|may)\s+(?:in\s+no\s+event\s+)?(?:not\s+)?exceed\s+(?:a\s+rate\s+of\s+)?|"
        r"in\s+no\s+event\s+[^.;]{0,80}?exceed\s+)$")


def _is_cap(p: Phrases, start: int) -> bool:
    return bool(re.search(_CAP, p.text[max(0, start - 90):start], re.I))


def _cap(p: Phrases, ladders: list[list[RateStep]]) -> None:
    for start, end, rate in _rates(p):
        if _is_cap(p, start):
            section, quote = p.clause(start, end)
            if isinstance(rate, n.Conflict):
                p.unread("damages cap", f"words and figures differ: '{rate.text}'", section,
                         quote, (rate.words, rate.figures))
            else:
                p.found("damages cap", rate, section, quote)
            return
    if not ladders or p.out.get("damages ladder") is None:
        return
    last = ladders[0][-1]
    if last.add is not None and (last.every_days or last.every_year):
        p.found("damages cap", None, last.section, last.quote,
                "no maximum: the rate rises on each step without a limit the text states")
    else:
        rate = last.set if last.set is not None else last.add
        p.unread("damages cap", f"the ladder ends at {rate}% a year; the text states no "
                 "maximum for Registration Defaults that overlap (write the cap, or null "
                 "for none)", last.section, last.quote)


def _base(p: Phrases, clause: tuple[int, int] | None) -> None:
    spans = [clause] if clause else []
    spans += [(p.sentence(s)[0], p.sentence(s)[1]) for s, _, _ in _rates(p)]
    for s0, s1 in spans:
        words = p.text[s0:s1]
        m = re.search(r"Transfer\s+Restricted\s+Securities\s+that\s+are\s+(?:Notes|Debentures)|"
                      r"principal\s+amount\s+of\s+(?:the\s+)?(?:Transfer\s+Restricted|"
                      r"Registrable)\s+Securities", words, re.I)
        if m:
            p.found("damages base", "Transfer Restricted", *p.clause(s0 + m.start(), s0 + m.end()))
            return
        m = re.search(r"(?:aggregate\s+)?outstanding\s+principal\s+amount|all\s+(?:of\s+the\s+)?"
                      r"outstanding\s+(?:Notes|Debentures)", words, re.I)
        if m:
            p.found("damages base", "outstanding", *p.clause(s0 + m.start(), s0 + m.end()))
            return


def _conversion(p: Phrases) -> None:
    names = "|".join(DAMAGES_NAMES)
    for m in p.finditer(rf"No\s+(?:{names})\s+shall\s+(?:be\s+payable|accrue)\s+(?:on|with\s+"
                        rf"respect\s+to)\s+any\s+(?:Notes|Debentures|Securities)\s+that\s+have\s+"
                        rf"been\s+converted"):
        s0, s1 = p.sentence(m.start())
        p.found("damages on conversion shares", "none", p.a.section(m.start()),
                p.a.quote(s0, s1))
        return
    for m in p.finditer(rf"(?:{names})[^.]{{0,200}}?(?:Conversion\s+Shares|shares\s+of\s+Common"
                        rf"\s+Stock\s+issued\s+upon\s+conversion|Underlying\s+Securities)"
                        rf"[^.]{{0,200}}?Applicable\s+Conversion\s+Price"):
        s0, s1 = p.sentence(m.start())
        p.found("damages on conversion shares", "Applicable Conversion Price",
                p.a.section(m.start()), p.a.quote(s0, s1))
        return


# ------------------------------------------------------------------- the payment


def _payment(p: Phrases) -> None:
    names = "|".join(DAMAGES_NAMES)
    for m in p.finditer(rf"(?:{names})[^.]{{0,160}}?(?:shall|will)\s+be\s+(?:payable|paid)"
                        rf"[^.]{{0,200}}?(?:Payment\s+Date|semi-?annually|quarterly|in\s+arrears)"):
        s0, s1 = p.sentence(m.start())
        section, quote = p.a.section(m.start()), p.a.quote(s0, s1)
        p.found("payment", "payable", section, quote)
        break
    for m in p.finditer(r"(?:payable|paid)\s+in\s+(?P<in>cash|shares\s+of\s+(?:the\s+Company's\s+)?"
                        r"Common\s+Stock)"):
        p.found("paid in", "cash" if m.group("in").lower() == "cash" else "shares",
                *p.clause(m.start(), m.end()))
        break
    for pattern, who in ((r"to\s+(?:the\s+)?Record\s+Holders\s+of\s+Transfer\s+Restricted\s+"
                          r"Securities", "Record Holders of Transfer Restricted Securities"),
                         (r"to\s+Holders\s+to\s+whom\s+regular\s+interest\s+is\s+payable[^.;]*?"
                          r"Transfer\s+Restricted\s+Securities",
                          "Record Holders of Transfer Restricted Securities"),
                         (r"to\s+the\s+same\s+persons\s+as\s+(?:ordinary|regular)\s+interest|"
                          r"to\s+the\s+(?:Holders|holders|persons)\s+(?:who\s+are\s+holders\s+)?"
                          r"of\s+record", "record Holders")):
        found = next(iter(p.finditer(pattern)), None)
        if found is not None:
            p.found("paid to", who, *p.clause(found.start(), found.end()))
            break
    _payment_dates(p)
    _day_count(p)


def _payment_dates(p: Phrases) -> None:
    for term in ("Additional Interest Payment Date", "Liquidated Damages Payment Date",
                 "Damages Payment Date", "Interest Payment Date", "Special Interest Payment Date"):
        d = p.a.definition(term)
        if d is None:
            continue
        words = p.text[d.start:d.end]
        days = re.findall(n.MONTH_DAY, words, re.I)
        if days:
            quote = p.a.quote(d.start, p.a.sentence(d.start)[1])
            p.found("payment dates", [n.month_day(x) for x in days], d.where, quote)
            return
        refers = re.search(r"(?:Each|each)\s+((?:[A-Z][a-z]+\s+){1,4}Date)", words)
        if refers and p.a.definition(refers.group(1)) is not None \
                and refers.group(1).lower() != term.lower():
            continue
        if re.search(r"defined\s+in\s+the\s+Indenture", words, re.I):
            words = p.a.quote(d.start, d.end)
            p.unread("payment dates", f"the text defers to the Indenture: \"{words}\"",
                     d.where, words)
            return
    for m in p.finditer(rf"(?:payable|paid)\s+(?:semi-?annually\s+)?(?:in\s+arrears\s+)?on\s+"
                        rf"(?:each\s+)?(?P<a>{n.MONTH_DAY})\s+and\s+(?P<b>{n.MONTH_DAY})"):
        p.found("payment dates", [n.month_day(m.group("a")), n.month_day(m.group("b"))],
                *p.clause(m.start(), m.end()))
        break
    for m in p.finditer(rf"record\s+dates?\b[^.;]{{0,80}}?(?P<a>{n.MONTH_DAY})\s+(?:and|or)\s+"
                        rf"(?P<b>{n.MONTH_DAY})|(?P<c>{n.MONTH_DAY})\s+(?:and|or)\s+"
                        rf"(?P<d>{n.MONTH_DAY})\s+(?:\(whether\s+or\s+not\s+a\s+Business\s+Day\)"
                        rf"\s+)?(?:immediately\s+)?preceding"):
        pair = (m.group("a"), m.group("b")) if m.group("a") else (m.group("c"), m.group("d"))
        p.found("record dates", [n.month_day(x) for x in pair], *p.clause(m.start(), m.end()))
        break
    for m in p.finditer(rf"commencing\s+(?:on\s+)?(?P<d>{n.DATE})"):
        s0, s1 = p.sentence(m.start())
        if re.search(r"Payment\s+Date|payable", p.text[s0:s1], re.I):
            p.found("first payment date", n.calendar_date(m.group("d")),
                    *p.clause(m.start(), m.end()))
            break
    for m in p.finditer(r"Payment\s+Date\s+is\s+not\s+a\s+Business\s+Day[^.]{0,120}?next\s+"
                        r"(?:succeeding\s+)?Business\s+Day"):
        p.found("payment roll", True, *p.clause(m.start(), m.end()))
        break


def _day_count(p: Phrases) -> None:
    forms = ((r"360-day\s+year\s+(?:comprised|consisting|composed|made\s+up)\s+of\s+twelve\s+"
              r"30-day\s+months", "30/360"),
             (r"actual\s+number\s+of\s+days\s+(?:elapsed\s+)?[^.;]{0,60}?360", "ACT/360"),
             (r"actual\s+number\s+of\s+days\s+(?:elapsed\s+)?[^.;]{0,60}?365", "ACT/365F"))
    for pattern, count in forms:
        m = next(iter(p.finditer(pattern)), None)
        if m is not None:
            p.found("day count", count, *p.clause(m.start(), m.end()))
            return
    m = next(iter(p.finditer(r"(?:basis\s+of\s+a\s+)?360-day\s+year|days\s*/\s*360")), None)
    if m is not None:
        section, quote = p.clause(m.start(), m.end())
        p.unread("day count", "'a 360-day year' without more: days counted as twelve 30-day "
                 "months (30/360) or as they fall (ACT/360)", section, quote,
                 ("30/360", "ACT/360"))

"""Reading the shelf's terms: the agreement's dates, the filing and effectiveness
deadlines, the Effectiveness Period's ends and when a security stops being a Transfer
Restricted Security.

* dates: "RESALE REGISTRATION RIGHTS AGREEMENT, dated as of June 30, 2004" (the date
  hereof); "CLOSING DATE: The date of this Agreement."; "Notes due 2024" (a year only:
  the day is the Indenture's, so not read).
* deadlines: "not later than 15 days after the date hereof (the "SHELF FILING
  DEADLINE")", "on or prior to the 270th day following the Closing Date", "within ninety
  (90) days after the Issue Date"; a deadline is the filing's or the effectiveness's by the
  term it defines, else by the nearer of "file(d)" and "effective" in its clause.
* the Effectiveness Period: the list after "earliest of": "(x) the second anniversary of
  the effective date ...", "(b) ... paragraph (k) of Rule 144", "(z) when all ... have
  ceased to be outstanding".
"""

from __future__ import annotations

import re

from . import numbers as n
from .findings import DAYS, NTH_DAY, Deadline, Found, PeriodEnd, Phrases

_ANCHORS = (
    (r"the\s+date\s+hereof|the\s+date\s+of\s+this\s+Agreement", "date hereof"),
    (r"the\s+(?:Original\s+)?Issue\s+Date|the\s+(?:first\s+)?date\s+of\s+(?:the\s+)?original"
     r"\s+issu(?:ance|e)\s+of\s+the\s+\w+", "Issue Date"),
    (r"the\s+Closing(?:\s+Date)?|the\s+closing\s+date", "Closing Date"),
)
ANCHOR = "(?P<anchor>" + "|".join(p for p, _ in _ANCHORS) + ")"
_LEAD = (r"(?:not\s+later\s+than|no\s+later\s+than|within|on\s+or\s+(?:prior\s+to|before)|"
         r"prior\s+to\s+or\s+on|by|before)")
_ROLL = (r"\(?\s*or,?\s+if\s+(?:such|that|the)\s+(?:day|date)\s+is\s+not\s+a\s+Business\s+Day,"
         r"\s+the\s+(?:next|first)\s+(?:succeeding\s+|following\s+)?Business\s+Day")


def anchor_of(text: str) -> str:
    for pattern, name in _ANCHORS:
        if re.fullmatch(pattern, text.strip(), re.I):
            return name
    raise ValueError(text)


def read(p: Phrases) -> None:
    _dates(p)
    _deadlines(p)
    _effectiveness_period(p)
    _transfer_restricted(p)


# ------------------------------------------------------------------------- dates


def _dates(p: Phrases) -> None:
    agreement = []
    for m in p.finditer(rf"Registration(?:\s+Rights)?\s+Agreement\b[^.;]{{0,60}}?"
                        rf"(?:dated|made\s+and\s+entered\s+into|entered\s+into|,)\s+"
                        rf"(?:as\s+of\s+)?(?P<d>{n.DATE})"):
        section, quote = p.clause(m.start(), m.end())
        agreement.append((len(quote), section, quote, n.calendar_date(m.group("d"))))
    if _several_agreements(p, agreement):
        return
    dated = max(agreement, key=lambda t: t[0])[3] if agreement else None
    if agreement:
        _, section, quote, day = max(agreement, key=lambda t: t[0])
        p.found("agreement date", day, section, quote)
    closing = p.a.definition("Closing Date")
    if closing is not None:
        words = p.text[closing.start:closing.end]
        section = closing.where
        quote = p.a.quote(closing.start, p.a.sentence(closing.start)[1])
        m = re.search(n.DATE, words, re.I)
        if m:
            p.found("closing date", n.calendar_date(m.group(0)), section, quote)
        elif re.search(r"the\s+date\s+(?:of\s+this\s+Agreement|hereof)", words, re.I) \
                and dated is not None:
            p.found("closing date", dated, section, quote,
                    "the Closing Date is the date of this Agreement")
    issue = p.a.definition("Issue Date")
    if issue is not None:
        m = re.search(n.DATE, p.text[issue.start:issue.end], re.I)
        if m:
            p.found("issue date", n.calendar_date(m.group(0)), issue.where,
                    p.a.quote(issue.start, issue.end))
    for m in p.finditer(rf"(?:due|maturing\s+on|matures?\s+on|maturity\s+date\s+(?:is|of))\s+"
                        rf"(?P<d>{n.DATE})"):
        p.found("maturity", n.calendar_date(m.group("d")), *p.clause(m.start(), m.end()))
        break
    else:
        for m in p.finditer(r"(?:Notes|Debentures)\s+due\s+(?P<y>\d{4})", flags=re.I):
            section, _ = p.clause(m.start())
            p.unread("maturity", f"the text names only the year of maturity ('due "
                     f"{m.group('y')}'): the day is the Indenture's", section,
                     p.a.quote(max(0, m.start() - 40), m.end()).split(" ", 1)[-1])
            break
    _maximum_principal(p)
    for m in p.finditer(r"(?:initial\s+)?conversion\s+price\s+(?:of|equal\s+to|is)\s+"
                        r"\$\s*(?P<price>\d+(?:\.\d+)?)"):
        from decimal import Decimal

        p.found("conversion price", Decimal(m.group("price")), *p.clause(m.start(), m.end()))
        break


def _several_agreements(p: Phrases, agreement: list[tuple]) -> bool:
    """A text that holds several agreements (a file of excerpts, one agreement pasted after
    another): two different dates of a Registration Agreement, or one term defined twice
    with different words ("'Additional Interest Payment Date' means each of June 15 and
    December 15" / "... means each March 30 and September 30"). Their terms would merge
    into one deal's: the deal's date is left to a person with every date read, and the
    reason names the agreements and the terms defined twice."""
    days = sorted({t[3] for t in agreement})
    defined: dict[str, list[tuple[int, str]]] = {}
    for m in p.finditer(r'"(?P<t>[^"]{2,80})"\s+(?:means|shall\s+mean)\b', flags=0):
        s0, s1 = p.sentence(m.start())
        defined.setdefault(m.group("t"), []).append((m.start(), " ".join(
            p.text[m.end():s1].split())))
    twice = {t: uses for t, uses in defined.items() if len({w for _, w in uses}) > 1}
    if len(days) < 2 and not twice:
        return False
    why = ["the text holds several agreements: draft each on its own"]
    if len(days) > 1:
        why.append("Registration Agreements dated " + ", ".join(d.isoformat() for d in days))
    for term, uses in sorted(twice.items()):
        why.append(f"'{term}' defined {len(uses)} times: "
                   + " / ".join(f"\"{w}\"" for _, w in uses))
    first = min(agreement, key=lambda t: t[3]) if agreement else None
    p.unread("agreement date", "; ".join(why), first[1] if first else None,
             first[2] if first else None, tuple(days))
    return True


def _maximum_principal(p: Phrases) -> None:
    """The most Notes the agreement covers: "$60,000,000 ($72,000,000 if the Initial
    Purchaser exercises its option thereunder in full) in aggregate principal amount" is
    72,000,000; without an option, the amount itself."""
    from decimal import Decimal

    money = r"\$\s*(?P<{}>\d{{1,3}}(?:,\d{{3}})+)"
    m = next(iter(p.finditer(
        money.format("a") + r"\s*\(\s*" + money.format("b") + r"\s+(?:if\s+the\s+Initial\s+"
        r"Purchasers?\s+exercises?\s+(?:its|their)\s+option[^)]*|with\s+the\s+option)\)"
        rf"\s+(?:in\s+aggregate\s+principal\s+amount|{n.PERCENT}\s+[^.;]{{0,60}}?"
        r"(?:Notes|Debentures))")), None) or next(iter(p.finditer(
            money.format("a") + r"\s+(?:in\s+)?aggregate\s+principal\s+amount\s+of\s+"
            r"(?:the\s+Company's\s+)?[^.;]{0,60}?(?:Notes|Debentures)")), None) or next(iter(
            p.finditer(money.format("a") + rf"\s+{n.PERCENT}\s+(?:Convertible|Exchangeable)"
                       r"[^.;]{0,40}?(?:Notes|Debentures)")), None)
    if m is None:
        return
    amount = m.group("b") if "b" in m.re.groupindex and m.group("b") else m.group("a")
    s0, s1 = p.a.clause(m.start(), m.end())
    note = ("the amount with the Initial Purchaser's option exercised in full"
            if "b" in m.re.groupindex and m.group("b") else None)
    p.found("maximum principal", Decimal(amount.replace(",", "")), p.a.section(m.start()),
            p.a.quote(s0, s1), note)


# --------------------------------------------------------------------- deadlines

_DEADLINE = (rf"(?:{_LEAD}\s+(?:the\s+date\s+that\s+is\s+)?|(?<=filed\s))(?:{DAYS}|{NTH_DAY})"
             rf"\s+(?:after|following|from|of)\s+{ANCHOR}")


def _deadlines(p: Phrases) -> None:
    found: dict[str, list] = {"filing deadline": [], "effectiveness deadline": []}
    for m in p.finditer(_DEADLINE):
        which = _which(p, m.start(), m.end())
        if which is None:
            continue
        days = p.days(m)
        section, quote = p.clause(m.start(), m.end())
        if isinstance(days, n.Conflict):
            p.unread(which, f"words and figures differ: '{days.text}'", section, quote,
                     (days.words, days.figures))
            continue
        after = p.text[m.end():m.end() + 160]
        rolls = bool(re.match(rf"\s*(?:\([^)]*\)\s*)?,?\s*{_ROLL}", after, re.I))
        note = ("'days' without more: calendar days" if days.unit == "calendar"
                and not re.search(r"calendar", m.group("unit") or m.group("ounit"), re.I)
                else None)
        if days.unit == "trading":
            p.unread(which, "a deadline in trading days: the terms count calendar or "
                     "Business Days", section, quote)
            continue
        found[which].append(Found(which, Deadline(days, anchor_of(m.group("anchor")),
                                                   rolls), section, quote, note))
    _respectively(p, found)
    for which, candidates in found.items():
        p.settle(which, candidates)


def _respectively(p: Phrases, found: dict[str, list]) -> None:
    """"filed 90 days after the date hereof, effective by 150 days": a deadline without
    its anchor, in the sentence of one with it, counts from the same day (a note says so)."""
    for m in p.finditer(rf"(?:effective|declared\s+effective)\s+{_LEAD}\s+{DAYS}(?!\s+"
                        rf"(?:after|following|from|of))"):
        if found["effectiveness deadline"]:
            continue
        s0, s1 = p.sentence(m.start())
        with_anchor = [f for f in found["filing deadline"]
                       if p.text.find(f.quote[:40], s0, s1) >= 0]
        if not with_anchor:
            continue
        days = p.days(m)
        if isinstance(days, n.Conflict):
            continue
        section, quote = p.clause(m.start(), m.end())
        found["effectiveness deadline"].append(Found(
            "effectiveness deadline", Deadline(days, with_anchor[0].value.anchor), section,
            quote, f"no day named: counted, as the filing deadline of the same sentence, "
                   f"from the {with_anchor[0].value.anchor}"))


def _which(p: Phrases, start: int, end: int) -> str | None:
    """"filing deadline" or "effectiveness deadline" for a deadline phrase, by the term it
    defines or the nearer verb of its clause; ``None`` if the clause is about neither."""
    after = p.text[end:end + 120]
    named = re.match(r'\s*\((?:[^()"]*,\s*)?(?:the\s+)?"([^"]+)"\)', after)
    if named:
        name = named.group(1).lower()
        if "fil" in name:
            return "filing deadline"
        if "effective" in name:
            return "effectiveness deadline"
    c0, c1 = p.a.clause(start, end)
    words = p.text[c0:c1]
    if not re.search(r"registration\s+statement|\bshelf\b", words, re.I):
        return None
    best = None
    for m in re.finditer(r"\b(?P<f>file[ds]?|filing)\b|\b(?P<e>effective(?:ness)?)\b", words,
                         re.I):
        at = c0 + m.start()
        if start <= at < end:
            continue
        kind = "filing deadline" if m.group("f") else "effectiveness deadline"
        # the verb the phrase qualifies: before it with no comma between ("filed 90 days
        # after ..."), else the nearest ("within 90 days after the Issue Date, file ...")
        tied = at < start and "," not in p.text[at:start]
        rank = (0 if tied else 1, start - at if at < start else at - end)
        if best is None or rank < best[0]:
            best = (rank, kind)
    return best[1] if best else None


# ---------------------------------------------------------- the Effectiveness Period

_PERIOD_NAMES = ("Effectiveness Period", "Shelf Registration Period", "Registration Period",
                 "Effective Period")


def _effectiveness_period(p: Phrases) -> None:
    m = None
    for found in p.finditer(r"(?:continuously\s+effective|keep\s+[^.;]{0,80}?effective)"
                            r"[^.;]{0,400}?(?:earlier|earliest)\s+(?:to\s+occur\s+)?of"):
        m = found
        break
    if m is None:
        return
    start, end = m.start(), m.end()
    node = p.a.node_at(end)
    items = [k for k in _descendants(node) if k.start >= end]
    while not items and node.parent is not None:
        node = node.parent
        items = [k for k in node.children if k.start >= end and k.inline]
    if not items:
        return
    owner = items[0].parent
    section = p.a.cite(owner)
    s0, _ = p.a.clause(start, end)
    quote = p.a.quote(s0, end)
    ends: list[PeriodEnd] = []
    notes: list[str | None] = []
    for item in items:
        if item.parent is not owner:
            continue
        words = p.text[item.start:item.end]
        kind = _period_end(words)
        cite = p.a.cite(item)
        quote_item = p.a.quote(item.start, item.end).rstrip(" ,;.")
        quote_item = re.sub(r",?\s+(?:and|or)$", "", quote_item)
        if kind is None:
            p.unread("effectiveness period", f"an end not read: \"{quote_item}\"", cite,
                     quote_item)
            continue
        previous = next((e for e in ends if (e.kind, e.years, e.of) == kind), None)
        if previous is not None:
            from .findings import join_sections

            ends[ends.index(previous)] = PeriodEnd(*kind, section=join_sections(
                [previous.section, cite]), quote=previous.quote + " ... " + quote_item)
            continue
        ends.append(PeriodEnd(*kind, section=cite, quote=quote_item))
        if kind[0] == "all sold" and re.search(r"transferred\s+pursuant\s+to\s+Rule\s+144",
                                              words, re.I):
            notes.append(f"{cite} \"transferred pursuant to Rule 144\" read as all_sold, the "
                         "nearest end the terms have: a transfer of all under Rule 144 is "
                         "not a sale under the shelf; check it")
    if ends:
        named = next((n_ for n_ in _PERIOD_NAMES if n_.lower() in quote.lower()), None)
        notes.insert(0, None if named else "the period the shelf is kept effective")
        p.found("effectiveness period", ends, section, quote,
                "; ".join(x for x in notes if x) or None)


def _descendants(node):
    for k in node.children:
        yield k
        yield from _descendants(k)


def _period_end(words: str) -> tuple[str, int | None, str | None] | None:
    """``(kind, years, of)`` of one end of the Effectiveness Period, ``None`` if unread."""
    if re.search(r"Rule\s+144\s*\(k\)|paragraph\s+\(k\)\s+of\s+Rule\s+144", words, re.I):
        return "rule 144(k)", None, None
    m = re.search(rf"(?P<o>{n.ORD_WORDS}|\d+(?:st|nd|rd|th))\s+anniversary\s+of\s+the\s+"
                  rf"(?P<of>[^,;]*)", words, re.I)
    years_m = re.search(rf"(?P<y>{n.NUMBER})\s+years?\s+(?:after|following|from)\s+the\s+"
                        rf"(?P<of>[^,;]*)", words, re.I)
    if m or years_m:
        years = n.ordinal(m.group("o")) if m else n.number(years_m.group("y"))
        of_words = (m or years_m).group("of")
        if isinstance(years, n.Conflict):
            return None
        if re.search(r"if\s+later", words, re.I) and re.search(r"option", words, re.I):
            return "anniversary", years, "last option issue"
        if re.search(r"effective|effectiveness", of_words, re.I):
            return "anniversary", years, "effective date"
        if re.search(r"Issue\s+Date|original\s+issu", of_words, re.I):
            return "anniversary", years, "Issue Date"
        if re.search(r"Closing|date\s+hereof|this\s+Agreement", of_words, re.I):
            return "anniversary", years, "Closing Date"
        return None
    if re.search(r"(?:ceased?|cease)\s+to\s+be\s+outstanding|no\s+longer\s+outstanding",
                 words, re.I):
        return "none outstanding", None, None
    if re.search(r"(?:have|has)\s+been\s+(?:sold|transferred|disposed\s+of)", words, re.I):
        return "all sold", None, None
    return None


# ------------------------------------------------------ Transfer Restricted Securities


def _transfer_restricted(p: Phrases) -> None:
    for term in ("Transfer Restricted Securities", "Registrable Securities"):
        d = p.a.definition(term)
        if d is None:
            continue
        node = p.a.node_at(d.start)
        words = p.text[node.start:node.end]
        until: list[str] = []
        kids = [k for k in node.children] or [node]
        for k in kids:
            item = p.text[k.start:k.end]
            if re.search(r"Rule\s+144\s*\(k\)|paragraph\s+\(k\)", item, re.I):
                until.append("rule 144(k)")
            elif re.search(r"(?:sold|transferred|distributed)[^.;]{0,60}?(?:pursuant\s+to|"
                           r"under)\s+Rule\s+144\b", item, re.I):
                until.append("Rule 144 sale")
            if re.search(r"registered\s+under\s+the\s+Securities\s+Act\s+and\s+disposed\s+of|"
                         r"(?:sold|disposed\s+of)\s+(?:pursuant\s+to|in\s+accordance\s+with|"
                         r"under)\s+(?:an?\s+effective\s+|the\s+)?(?:Shelf\s+)?Registration"
                         r"\s+Statement", item, re.I):
                until.append("shelf sale")
                if k is not node:
                    p.found("shelf sale", "shelf sale", p.a.cite(k),
                            p.a.quote(k.start, k.end).rstrip(" ;,").removesuffix(" and")
                            .rstrip(" ;,"))
            if re.search(r"ceases?\s+to\s+be\s+outstanding|no\s+longer\s+outstanding", item,
                         re.I):
                until.append("not outstanding")
        if until and re.search(r"until|earliest|earlier", words, re.I):
            p.found("transfer restricted", list(dict.fromkeys(until)), d.where,
                    p.a.quote(node.start, node.end))
            return

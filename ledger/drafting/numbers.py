"""Numbers as these agreements write them: in figures ("90", "90th", "0.25%"), in words
("ninety", "ninetieth", "one-quarter of one percent") or both ("ninety (90) days",
"ninetieth (90th) day", "one-quarter of one percent (0.25%) per annum"), and the dates
and periods they are part of ("June 30, 2004", "each of June 15 and December 15",
"any 90-day period", "any twelve-month period").

Words and figures that say two different numbers ("ninety (60) days") are two readings
of the sentence: ``Conflict`` carries both, and the term is left to a person.

Each pattern here is a regular expression fragment; ``number``, ``ordinal`` and
``percent`` read the text a fragment matched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
          "fourteen fifteen sixteen seventeen eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_ORD_UNITS = ("zeroth first second third fourth fifth sixth seventh eighth ninth tenth "
              "eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth "
              "eighteenth nineteenth").split()
_ORD_TENS = "twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth".split()

CARDINAL = {w: i for i, w in enumerate(_UNITS)} | {w: 20 + 10 * i for i, w in enumerate(_TENS)}
ORDINAL = {w: i for i, w in enumerate(_ORD_UNITS)} | {w: 20 + 10 * i
                                                      for i, w in enumerate(_ORD_TENS)}
MONTHS = ("january february march april may june july august september october november "
          "december").split()


@dataclass(frozen=True)
class Conflict:
    """Words and figures that say different numbers: both readings, as written."""

    words: int | Decimal
    figures: int | Decimal
    text: str


def _alternation(words) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


_WORD = rf"(?:{_alternation(list(CARDINAL) + ['hundred', 'thousand'])})"
_ORD_WORD = rf"(?:{_alternation(ORDINAL)}|hundredth)"
#: a number in words: "ninety", "two hundred seventy", "three hundred and sixty-five"
WORDS = rf"(?:{_WORD}(?:[\s-]+(?:and[\s-]+)?{_WORD})*)"
#: an ordinal in words: "ninetieth", "two hundred seventieth", "one hundred eighty-first"
ORD_WORDS = rf"(?:(?:{_WORD}[\s-]+(?:and[\s-]+)?)*{_ORD_WORD})"
_FIG = r"\d{1,3}(?:,\d{3})*"
_ORD_FIG = r"\d{1,4}(?:st|nd|rd|th|d)"

#: a whole number, in figures, in words, or in words with the figures after them
NUMBER = rf"(?:{WORDS}\s*\(\s*{_FIG}\s*\)|{_FIG}(?![\d.,]\d)|{WORDS})"
#: an ordinal ("270th", "ninetieth (90th)", "ninetieth")
ORDINAL_NUMBER = rf"(?:{ORD_WORDS}\s*\(\s*{_ORD_FIG}\s*\)|{_ORD_FIG}|{ORD_WORDS})"
#: a rate: "0.25%", ".25 percent", "one-quarter of one percent (0.25%)", "25 basis points"
_RATE_FIG = r"\d*\.?\d+\s*(?:%|per\s*cent\b|percent\b|percentage points?\b)"
_FRACTION = r"(?:one[\s-]+(?:quarter|half|fourth)|(?:one|two|three)[\s-]+(?:quarters|fourths))"
_RATE_WORDS = (rf"(?:{_FRACTION}\s+of\s+(?:one\s+)?(?:percent|per\s*cent|1%)|"
               rf"{WORDS}\s+(?:percent|per\s*cent|percentage points?))")
PERCENT = (rf"(?:{_RATE_WORDS}\s*\(\s*{_RATE_FIG}\s*\)|{_RATE_FIG}|{_RATE_WORDS}"
           rf"|{NUMBER}\s+basis\s+points)")
#: a day of the year ("June 15", "the 15th day of June") and a date ("June 30, 2004")
MONTH_DAY = rf"(?:(?:{_alternation(MONTHS)})\s+\d{{1,2}}(?:st|nd|rd|th)?)"
DATE = rf"(?:{MONTH_DAY},?\s+\d{{4}})"


def _words_value(text: str, table: dict[str, int] | None = None) -> int | None:
    """A number in words, or ``None``: "two hundred seventy" is 270; with ``table`` the
    ordinal table, its last word an ordinal ("two hundred seventieth")."""
    words = [w for w in re.split(r"[\s-]+", text.lower()) if w and w != "and"]
    total = current = 0
    for i, w in enumerate(words):
        last = i == len(words) - 1
        if last and table is not None:
            if w == "hundredth":
                current = max(current, 1) * 100
            elif w in table:
                current += table[w]
            else:
                return None
        elif w in CARDINAL:
            current += CARDINAL[w]
        elif w == "hundred":
            current = max(current, 1) * 100
        elif w == "thousand":
            total += max(current, 1) * 1000
            current = 0
        else:
            return None
    return total + current


def _both(words: int | Decimal | None, figures: int | Decimal | None, text: str):
    if words is not None and figures is not None and words != figures:
        return Conflict(words, figures, text)
    return figures if figures is not None else words


def number(text: str) -> int | Conflict:
    """The number ``NUMBER`` matched ("ninety (90)" is 90; "ninety (60)" a ``Conflict``)."""
    m = re.fullmatch(r"\s*(.*?)\s*\(\s*([\d,]+)\s*\)\s*", text)
    if m:
        return _both(_words_value(m.group(1)), int(m.group(2).replace(",", "")), text)
    if re.fullmatch(r"\s*[\d,]+\s*", text):
        return int(text.replace(",", ""))
    found = _words_value(text.strip())
    if found is None:
        raise ValueError(f"not a number: {text!r}")
    return found


def ordinal(text: str) -> int | Conflict:
    """The ordinal ``ORDINAL_NUMBER`` matched ("ninetieth (90th)" is 90)."""
    m = re.fullmatch(r"\s*(.*?)\s*\(\s*(\d+)(?:st|nd|rd|th|d)\s*\)\s*", text, re.I)
    if m:
        return _both(_words_value(m.group(1), ORDINAL), int(m.group(2)), text)
    m = re.fullmatch(r"\s*(\d+)(?:st|nd|rd|th|d)\s*", text, re.I)
    if m:
        return int(m.group(1))
    found = _words_value(text.strip(), ORDINAL)
    if found is None:
        raise ValueError(f"not an ordinal: {text!r}")
    return found


_FRACTIONS = {"one quarter": Decimal("0.25"), "one fourth": Decimal("0.25"),
              "one half": Decimal("0.50"), "three quarters": Decimal("0.75"),
              "three fourths": Decimal("0.75")}


def _rate_figures(text: str) -> Decimal | None:
    m = re.search(r"(\d*\.?\d+)\s*(?:%|per\s*cent|percent|percentage point)", text)
    return Decimal(m.group(1)) if m else None


def _rate_words(text: str) -> Decimal | None:
    t = " ".join(re.split(r"[\s-]+", text.lower()))
    for words, value in _FRACTIONS.items():
        if t.startswith(words + " of"):
            return value
    m = re.match(r"(.*?)\s+(?:percent|per cent|percentage points?)$", t)
    if m:
        found = _words_value(m.group(1))
        return Decimal(found) if found is not None else None
    return None


def percent(text: str) -> Decimal | Conflict:
    """The rate ``PERCENT`` matched, in per cent: "one-quarter of one percent (0.25%)" is
    0.25, "25 basis points" 0.25; the digits as written ("0.50" stays 0.50)."""
    m = re.fullmatch(r"\s*(.*?)\s+basis\s+points\s*", text)
    if m:
        found = number(m.group(1))
        if isinstance(found, Conflict):
            return found
        return (Decimal(found) / 100).quantize(Decimal("0.01"))
    m = re.fullmatch(r"\s*(.*?)\s*\(\s*([^()]*)\)\s*", text)
    if m and _rate_figures(m.group(2)) is not None:
        words = _rate_words(m.group(1))
        figures = _rate_figures(m.group(2))
        if words is not None and figures is not None and words == figures:
            return figures
        return _both(words, figures, text)
    figures = _rate_figures(text) if re.match(r"\s*\d|\s*\.", text) else None
    if figures is not None:
        return figures
    words = _rate_words(text.strip())
    if words is None:
        raise ValueError(f"not a rate: {text!r}")
    return words


def month_day(text: str) -> str:
    """``MM-DD`` of "June 15" / "June 15th"."""
    m = re.fullmatch(r"\s*([A-Za-z]+)\s+(\d{1,2})(?:st|nd|rd|th)?\s*", text)
    if not m or m.group(1).lower() not in MONTHS:
        raise ValueError(f"not a day of the year: {text!r}")
    month = MONTHS.index(m.group(1).lower()) + 1
    date(2000, month, int(m.group(2)))          # a real day (2000 is a leap year)
    return f"{month:02d}-{int(m.group(2)):02d}"


def calendar_date(text: str) -> date:
    """The date "June 30, 2004" names."""
    m = re.fullmatch(r"\s*([A-Za-z]+)\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\s*", text)
    if not m or m.group(1).lower() not in MONTHS:
        raise ValueError(f"not a date: {text!r}")
    return date(int(m.group(3)), MONTHS.index(m.group(1).lower()) + 1, int(m.group(2)))


#: a window: "90-day period", "360 day period", "twelve-month period", "12 month period",
#: "period of 12 months", "calendar year"
WINDOW = (rf"(?:(?P<wn>{NUMBER}|{WORDS})[\s-]+(?:(?P<wd>calendar[\s-]+days?|days?)|"
          rf"(?P<wm>months?))[\s-]+period|period\s+of\s+(?P<pn>{NUMBER})\s+"
          rf"(?:(?P<pd>(?:calendar\s+)?days?)|(?P<pm>months?))|(?P<cy>calendar\s+year))")


def window(match: re.Match) -> tuple[str, int | Conflict]:
    """``("days" | "months" | "calendar_year", n)`` of a ``WINDOW`` match."""
    if match.group("cy"):
        return "calendar_year", 1
    if match.group("wn") is not None:
        return ("days" if match.group("wd") else "months"), number(match.group("wn"))
    return ("days" if match.group("pd") else "months"), number(match.group("pn"))

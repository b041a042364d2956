"""A plain, day-by-day model of the Letter (February 1, 2002), written from SPEC §1, §3.3,
§5 and §6 and the letter's text, to check the engine (``projections.trueup``) against.

It shares no code with the engine: no import from ``projections/``, no helper of the
engine's. It reads the deal's events as public JSON dicts (SPEC §3: ``type``, ``date``,
``data``, and the store's ``id``, ``seq``, ``recorded_at``) and walks them slowly and
obviously: day by day, in recorded order within a day.

What it computes and where each rule comes from:

* **Order** (SPEC §1): events by ``(date, seq)``: the events of one day count in the
  order they were recorded, never in an order derived from their content. Three
  exceptions, each required by a rule of SPEC §5.2 / §6 and nothing else:

  - a ``CapitalizationRecorded`` dated on a vesting day counts for that day's vesting
    ("the latest ``common_outstanding`` recorded on or before the vesting date"): the
    day's capitalizations are taken first;
  - all the ``CamdenWarrantsVested`` of one day are ONE adjustment, "their C and B are
    summed and the price is rounded once": they take effect together, at the place of
    the day's first vesting;
  - exercises and conversions of a vesting day take effect after that adjustment under
    ``same_day_vesting_and_exercise = vesting_first`` (default: the vesting is already in
    the exercise price; no true-up for it) and before it under ``exercise_first`` (the
    vesting earns a true-up).

  An ``AdjustmentRecorded`` keeps its recorded place (``same_day_adjustment =
  as_recorded``, the default); under ``before_others`` the day's adjustments take effect
  before everything else of the day but its capitalizations.

* **Prices** (SPEC §5.2, Letter ¶2): issuing Camden Warrants adjusts nothing; a vesting
  day adjusts every registered position (an exercised part still needs its price for the
  true-up's ``x``) by the deal's ``formula``. Camden Warrants issued after the agreement
  date are not Camden Warrants of the letter (``later_camden_issuance = not_deferred``,
  Letter ¶5): they never enter the book, and vest nothing; under ``deferred`` they do.

  - ``weighted_average_broad``: ``P' = P × (A + B) / (A + C)``, ``A`` = the latest
    capitalization recorded on or before the day plus every Camden Warrant vested after
    that record and before this day (deemed outstanding), ``C`` = the warrants vested that
    day, ``B = Σ (C_i × camden price_i + consideration_i × C_i / warrants issued_i) / P``;
  - ``weighted_average_narrow``: the same with ``A`` = the recorded capitalization alone
    (the deal's terms name the formula; SPEC §5.2 defines only the broad one, and the
    narrow base is the one that does not deem vested Camden Warrants outstanding);
  - ``full_ratchet``: ``P' = min(P, camden price)`` (the lowest of the day's tranches),
    the Camden price rounded to ``price_decimals``.

  "No adjustment if the Camden price is not below P": a tranche whose price is not below
  ``P`` is left out of ``C`` and ``B`` (its warrants still become deemed outstanding). A
  vesting never raises a price. With no capitalization recorded, a weighted average has
  no ``A``: no adjustment, and an eligible exercise's true-up for that day is *unknown*
  when a tranche was below the price it uses (shares are owed; how many is not known).
  Prices round once, half-up, to ``price_decimals``.
  ``AdjustmentRecorded`` sets an absolute ``new_price`` at once (``"all"``: every
  registered position).

* **Camden Warrants** (Letter ¶2; SPEC §6 ``camden_tranche_order``): a vesting draws on
  the holder's issuances in issuance order (``earliest_first``) or the reverse
  (``latest_first``); a cancellation the other way.

* **Share counts** (SPEC §5.2): the aggregate exercise price (warrant: ``shares ×
  exercise price`` at registration) or stated value (preferred: ``quantity × stated
  value``) stays the same; ``portion × aggregate / P``, whole shares rounded down once.

* **True-up** (Letter ¶3, SPEC §5.3): an exercise or conversion dated before
  ``true_up_cutoff`` earns, at each later vesting day, ``x - y``: ``x`` = its portion's
  shares at the price then (``trueup_adjustments = all``), or at its price at exercise
  adjusted by the later vesting days only (``camden_only``); ``y`` = shares issued at the
  exercise plus true-up shares credited to it before. Owed never goes below zero and
  never falls: ``owed = max over its vestings of (x - shares issued at the exercise)``.
  ``TrueUpSharesIssued`` names an instrument: its shares settle that instrument's
  eligible exercises oldest first, each up to what it has outstanding, any excess to the
  latest (or to none, if it has none).

* Live events only: the caller leaves out retracted events and those recorded after
  ``known_at`` (SPEC §1); the model reads no ``EventRetracted``.

* ``trueup_dividends``: only ``frozen`` (anti-dilution only). ``to_vesting_date`` is not
  modelled: SPEC §6 names it but neither SPEC nor the deal's terms give a dividend rate,
  an accrual basis or how accrued dividends convert, so there is nothing to compute.

Arithmetic is ``Decimal`` with 80 significant digits (a rounding boundary of a price
with at most six decimals and share counts below 10^12 cannot be crossed at that
precision); prices round ``ROUND_HALF_UP``; whole shares are ``//`` of positive values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_UP, Context, Decimal, localcontext
from typing import Any, Iterable, Mapping

#: The readings this model implements (SPEC §6), default first.
READINGS: dict[str, tuple[str, ...]] = {
    "trueup_adjustments": ("all", "camden_only"),
    "camden_tranche_order": ("earliest_first", "latest_first"),
    "same_day_vesting_and_exercise": ("vesting_first", "exercise_first"),
    "trueup_dividends": ("frozen",),
    "same_day_adjustment": ("as_recorded", "before_others"),
    "later_camden_issuance": ("not_deferred", "deferred"),
}
DEFAULTS = {name: values[0] for name, values in READINGS.items()}

PRECISION = Context(prec=80)
EXERCISES = ("WarrantsExercised", "PreferredConverted")


def D(value: Any) -> Decimal:
    return value if isinstance(value, Decimal) else Decimal(str(value))


def day_of(value: Any) -> date:
    return value if isinstance(value, date) else date.fromisoformat(value)


def round_price(value: Decimal, decimals: int) -> Decimal:
    """Half-up to ``price_decimals`` (SPEC §5.1)."""
    return value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def whole(value: Decimal) -> int:
    """Whole shares: round down (SPEC §5.2); values here are never negative."""
    return int(value // 1)


# --------------------------------------------------------------------------- state


@dataclass
class Position:
    instrument: str
    holder: str
    kind: str
    aggregate: Decimal          # warrant: shares × exercise price; preferred: quantity × value
    price: Decimal              # exercise or conversion price in force
    remaining: Decimal = Decimal(1)   # part of the registered position not yet exercised

    def shares(self, portion: Decimal, price: Decimal | None = None) -> int:
        return whole(portion * self.aggregate / (self.price if price is None else price))


@dataclass
class Issuance:
    seq: int
    holder: str
    warrants: int
    price: Decimal
    consideration: Decimal
    unvested: int


@dataclass
class Step:
    vesting_day: date
    x: int
    y: int
    owed: int


@dataclass
class Exercise:
    event: str
    instrument: str
    holder: str
    date: date
    portion: Decimal
    shares_issued: int
    price: Decimal              # in force at the exercise
    implied: int                # shares that price gave
    eligible: bool
    camden_price: Decimal       # camden_only: price at exercise + later vesting days only
    earned: int = 0
    issued: int = 0             # true-up shares credited
    steps: list[Step] = field(default_factory=list)
    unknown: list[date] = field(default_factory=list)   # vesting days x is not known for

    @property
    def outstanding(self) -> int:
        return max(0, self.earned - self.issued)


@dataclass
class Letter:
    """What the model knows after a replay."""

    formula: str
    decimals: int
    cutoff: date
    latest_first: bool = False  # camden_tranche_order
    later_issued: date | None = None   # not_deferred: issued after this day, not the letter's
    positions: dict[str, Position] = field(default_factory=dict)
    issuances: list[Issuance] = field(default_factory=list)
    exercises: list[Exercise] = field(default_factory=list)
    cap: int | None = None
    deemed: int = 0
    unallocated: dict[str, int] = field(default_factory=dict)
    prices: list[tuple[str, str, Decimal]] = field(default_factory=list)  # (day, instrument, price)

    # -------------------------------------------------------------- the report's figures

    def holders(self) -> dict[str, dict[str, int]]:
        """SPEC §7 ``holders {holder: {owed, issued, outstanding}}``."""
        out = {p.holder: {"owed": 0, "issued": 0, "outstanding": 0}
               for p in self.positions.values()}
        for e in self.exercises:
            row = out[e.holder]
            row["owed"] += e.earned
            row["issued"] += e.issued
            row["outstanding"] += e.outstanding
        for name, n in self.unallocated.items():
            out[self.positions[name].holder]["issued"] += n
        return out

    def instruments(self) -> dict[str, dict[str, Any]]:
        return {n: {"price": p.price, "shares": p.shares(p.remaining), "holder": p.holder}
                for n, p in self.positions.items()}

    def if_all_vest(self) -> dict[str, tuple[Decimal, int] | None]:
        """Per position still held, its price and shares if every unvested Camden Warrant
        became a Vested Warrant now, all on one day: ONE adjustment (SPEC §5.2, §5.3 "the
        adjustment still deferred"); None when a weighted average of some unvested
        warrants has no capitalization to start from."""
        tranches = [(i, i.unvested) for i in self.issuances if i.unvested]
        a = None if self.cap is None else self.cap + (
            0 if self.formula == "weighted_average_narrow" else self.deemed)
        out: dict[str, tuple[Decimal, int] | None] = {}
        for name, p in self.positions.items():
            if p.remaining == 0:
                continue
            if tranches and a is None and self.formula != "full_ratchet":
                out[name] = None
                continue
            after = adjusted(self.formula, self.decimals, p.price, a, tranches)
            out[name] = (after, p.shares(p.remaining, after))
        return out

    def by_exercise(self) -> dict[str, dict[str, Any]]:
        return {e.event: {"eligible": e.eligible, "shares_issued": e.shares_issued,
                          "implied": e.implied, "owed": e.earned, "issued": e.issued,
                          "outstanding": e.outstanding, "unknown": list(e.unknown),
                          "steps": [(s.vesting_day, s.x, s.y, s.owed) for s in e.steps]}
                for e in self.exercises}


# --------------------------------------------------------------------------- rules


def adjusted(formula: str, decimals: int, price: Decimal, a: int | None,
             tranches: list[tuple[Issuance, int]]) -> Decimal:
    """The price after one vesting day (SPEC §5.2; Letter ¶2)."""
    live = [(i, c) for i, c in tranches if i.price < price]   # "not below P": no adjustment
    if not live:
        return price
    if formula == "full_ratchet":
        return min(price, min(round_price(i.price, decimals) for i, _ in live))
    if a is None:                     # no capitalization: no weighted average
        return price
    with localcontext(PRECISION):
        c = sum(n for _, n in live)
        b = sum((n * i.price + i.consideration * n / i.warrants) for i, n in live) / price
        after = round_price(price * (a + b) / (a + c), decimals)
    return min(price, after)          # a vesting never raises a price


def draw(book: list[Issuance], holder: str, warrants: int, reverse: bool
         ) -> list[tuple[Issuance, int]]:
    """Take ``warrants`` unvested warrants of ``holder``, issuance order or its reverse."""
    mine = sorted((i for i in book if i.holder == holder), key=lambda i: i.seq,
                  reverse=reverse)
    out, left = [], warrants
    for iss in mine:
        take = min(left, iss.unvested)
        if take:
            iss.unvested -= take
            out.append((iss, take))
            left -= take
    return out


def day_plan(events: list[dict[str, Any]], vesting_first: bool,
             adjustments_first: bool = False) -> list[Any]:
    """One day's events in the order they take effect (module doc): seq order; the day's
    capitalizations first (then, ``before_others``, its adjustments); its vestings as one
    item at the first one's place; exercises on the right side of it by the
    interpretation."""
    events = sorted(events, key=lambda e: e["seq"])
    caps = [e for e in events if e["type"] == "CapitalizationRecorded"]
    rest = [e for e in events if e["type"] != "CapitalizationRecorded"]
    if adjustments_first:   # after the day's positions and issuances, before the rest
        early = ("InstrumentRegistered", "CamdenWarrantsIssued")
        rest = ([e for e in rest if e["type"] in early]
                + [e for e in rest if e["type"] == "AdjustmentRecorded"]
                + [e for e in rest if e["type"] not in (*early, "AdjustmentRecorded")])
    vestings = [e for e in rest if e["type"] == "CamdenWarrantsVested"]
    if not vestings:
        return caps + rest
    first = rest.index(vestings[0])
    before = [e for e in rest[:first] if e["type"] != "CamdenWarrantsVested"]
    after = [e for e in rest[first:] if e["type"] != "CamdenWarrantsVested"]
    moved_before = [e for e in before if e["type"] in EXERCISES]
    moved_after = [e for e in after if e["type"] in EXERCISES]
    if vesting_first:
        before = [e for e in before if e["type"] not in EXERCISES]
        after = moved_before + after
    else:
        after = [e for e in after if e["type"] not in EXERCISES]
        before = before + moved_after
    return caps + before + [("vesting day", vestings)] + after


def replay(events: Iterable[Mapping[str, Any]], as_of: date,
           interpretations: Mapping[str, str] | None = None) -> Letter:
    """Replay a letter deal's events dated on or before ``as_of``."""
    readings = {**DEFAULTS, **(interpretations or {})}
    for name, value in readings.items():
        if value not in READINGS.get(name, ()):
            raise ValueError(f"the model has no reading {name}={value}")
    events = [dict(e) for e in events]
    opened = next(e for e in events if e["type"] == "DealOpened")
    terms = opened["data"]["terms"]
    letter = Letter(formula=terms.get("formula", "weighted_average_broad"),
                    decimals=int(terms.get("price_decimals", 4)),
                    cutoff=day_of(terms["true_up_cutoff"]),
                    latest_first=readings["camden_tranche_order"] == "latest_first",
                    later_issued=(None if readings["later_camden_issuance"] == "deferred"
                                  else day_of(terms["agreement_date"])))
    days: dict[date, list[dict[str, Any]]] = {}
    for e in events:
        if e["type"] != "DealOpened" and day_of(e["date"]) <= as_of:
            days.setdefault(day_of(e["date"]), []).append(e)
    vesting_first = readings["same_day_vesting_and_exercise"] == "vesting_first"
    adjustments_first = readings["same_day_adjustment"] == "before_others"
    for day in sorted(days):
        for item in day_plan(days[day], vesting_first, adjustments_first):
            if isinstance(item, tuple):
                _vesting_day(letter, day, item[1], readings)
            else:
                _apply(letter, day, item)
        for name, p in letter.positions.items():
            letter.prices.append((day.isoformat(), name, p.price))
    return letter


def _apply(letter: Letter, day: date, e: dict[str, Any]) -> None:
    t, d = e["type"], e["data"]
    if t == "InstrumentRegistered":
        if d["kind"] == "warrant":
            agg, price = int(d["shares"]) * D(d["exercise_price"]), D(d["exercise_price"])
        else:
            agg, price = int(d["quantity"]) * D(d["stated_value"]), D(d["conversion_price"])
        letter.positions[d["instrument"]] = Position(d["instrument"], d["holder"], d["kind"],
                                                     agg, price)
    elif t == "CapitalizationRecorded":
        letter.cap, letter.deemed = int(d["common_outstanding"]), 0
    elif t == "CamdenWarrantsIssued":
        if letter.later_issued is not None and day > letter.later_issued:
            return   # a further issuance (Letter ¶5): not deferred, not in the book
        letter.issuances.append(Issuance(e["seq"], d["holder"], int(d["warrants"]),
                                         D(d["exercise_price"]),
                                         D(d.get("consideration", 0)), int(d["warrants"])))
    elif t == "CamdenWarrantsCancelled":
        # earliest_first vests the earliest issuance first, so cancels the latest first
        draw(letter.issuances, d["holder"], int(d["warrants"]), reverse=not letter.latest_first)
    elif t == "AdjustmentRecorded":
        names = list(letter.positions) if d["instrument"] == "all" else [d["instrument"]]
        for n in names:
            letter.positions[n].price = D(d["new_price"])
    elif t in EXERCISES:
        p = letter.positions[d["instrument"]]
        with localcontext(PRECISION):
            portion = p.remaining * D(d["fraction"])
            p.remaining -= portion
        letter.exercises.append(Exercise(
            event=e["id"], instrument=p.instrument, holder=p.holder, date=day,
            portion=portion, shares_issued=int(d["shares_issued"]), price=p.price,
            implied=p.shares(portion), eligible=day < letter.cutoff, camden_price=p.price))
    elif t == "TrueUpSharesIssued":
        mine = [x for x in letter.exercises if x.instrument == d["instrument"] and x.eligible]
        left = int(d["shares"])
        for x in mine:
            take = min(left, x.outstanding)
            x.issued += take
            left -= take
        if left and mine:
            mine[-1].issued += left
        elif left:
            letter.unallocated[d["instrument"]] = letter.unallocated.get(d["instrument"], 0) + left
    else:
        raise ValueError(f"not a letter event: {t}")


def _vesting_day(letter: Letter, day: date, vestings: list[dict[str, Any]],
                 readings: Mapping[str, str]) -> None:
    """All of one day's vestings: one adjustment (SPEC §5.2), then the true-ups (¶3)."""
    tranches: list[tuple[Issuance, int]] = []
    for v in vestings:
        tranches += draw(letter.issuances, v["data"]["holder"], int(v["data"]["warrants"]),
                         letter.latest_first)
    if not tranches:   # no Camden Warrant of the letter vested (Letter ¶3: none "become
        return         # Vested Warrants"): no adjustment, no true-up
    if letter.cap is None:
        a = None
    elif letter.formula == "weighted_average_narrow":
        a = letter.cap
    else:
        a = letter.cap + letter.deemed
    blind = a is None and letter.formula != "full_ratchet"   # no A: P' not known
    before = {n: p.price for n, p in letter.positions.items()}
    for p in letter.positions.values():
        p.price = adjusted(letter.formula, letter.decimals, p.price, a, tranches)
    for x in letter.exercises:
        if not x.eligible:
            continue
        all_ = readings["trueup_adjustments"] == "all"
        if blind and any(i.price < (before[x.instrument] if all_ else x.camden_price)
                         for i, _ in tranches):
            x.unknown.append(day)
        x.camden_price = adjusted(letter.formula, letter.decimals, x.camden_price, a, tranches)
        p = letter.positions[x.instrument]
        price = p.price if all_ else x.camden_price
        shares = p.shares(x.portion, price)
        y = x.shares_issued + x.issued
        x.steps.append(Step(day, shares, y, max(0, shares - y)))
        x.earned = max(x.earned, shares - x.shares_issued)
    letter.deemed += sum(n for _, n in tranches)


def public(event: Any) -> dict[str, Any]:
    """A stored event (``ledger.events.Event``) as its public JSON dict (SPEC §3)."""
    return {"type": event.type, "deal": event.deal, "date": event.date.isoformat(),
            "data": dict(event.data), "id": event.id, "seq": event.seq,
            "recorded_at": event.recorded_at.isoformat()}

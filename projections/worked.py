"""Arithmetic as data: how a figure was worked out, step by step, re-checkable.

A rule that computes a figure records each operation it did as a ``Step``: the operation,
its exact operands (numbers, dates, or the ``Step`` that produced them), its result and,
for a rounding, the rounding rule. ``Worked`` is the display text of that arithmetic (a
``str``, so a report's JSON is unchanged) carrying its steps in memory; the text is only
how the steps are printed.

``recheck(steps)`` recomputes every step from its operands, exactly (``Fraction``), the
day-count fractions with ``ledger.daycount``, Business Days by stepping through the very
calendar the rule used, and compares each with the result the rule recorded: one check
per top-level step, which fails if any step under it does not hold. It never reads text.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from fractions import Fraction
from typing import Any, Callable, Iterable, Sequence

#: Operations a step may do, and how each is written.
OPERATIONS = ("sum", "product", "difference", "quotient", "min", "max", "percent",
              "day_count", "days", "plus_days", "plus_business_days", "plus_years", "round")


@dataclass(frozen=True)
class Step:
    """One operation of a computation: ``op`` on ``operands`` gave ``result``.

    ``rounding`` is ``("half_up" | "down", places)`` for ``op="round"``; ``text`` is how
    the step is written where the plain form would not read well (``16/360``)."""

    op: str
    operands: tuple[Any, ...]
    result: Any
    label: str = ""
    rounding: tuple[str, int] | None = None
    text: str | None = None

    def __post_init__(self) -> None:
        if self.op not in OPERATIONS:
            raise ValueError(f"unknown operation {self.op!r}")


class Worked(str):
    """Arithmetic display text that carries its steps (built lazily: a report with a
    thousand Holders writes a thousand texts and seldom explains one of them).

    ``Worked(text, steps)`` or ``Worked(text, build=lambda: steps)``; ``steps == ()``
    says the text states no computation (a date read from an event, a reason)."""

    _steps: tuple[Step, ...] | None
    _build: Callable[[], Sequence[Step]] | None

    def __new__(cls, text: str, steps: Sequence[Step] | None = None, *,
                build: Callable[[], Sequence[Step]] | None = None) -> "Worked":
        self = super().__new__(cls, text)
        self._steps = tuple(steps) if steps is not None else None
        self._build = build
        return self

    @property
    def steps(self) -> tuple[Step, ...]:
        if self._steps is None:
            self._steps = tuple(self._build()) if self._build else ()
            self._build = None
        return self._steps

    def then(self, text: str, steps: Sequence[Step] = ()) -> "Worked":
        """This arithmetic followed by more (``text`` appended as written)."""
        mine = self
        return Worked(str(self) + text, build=lambda: (*mine.steps, *steps))


def steps_of(text: Any) -> tuple[Step, ...] | None:
    """The steps an arithmetic text carries; ``None`` for plain text (no data)."""
    return text.steps if isinstance(text, Worked) else None


# ----------------------------------------------------------------------- re-checking


def _number(x: Any) -> Fraction:
    if isinstance(x, bool):
        raise TypeError("a truth value is not a number")
    if isinstance(x, (int, Fraction)):
        return Fraction(x)
    if isinstance(x, Decimal):
        return Fraction(x)
    if isinstance(x, str):
        return Fraction(Decimal(x))
    raise TypeError(f"not a number: {x!r}")


def round_fraction(value: Fraction, places: int, mode: str) -> Fraction:
    """``value`` to ``places`` decimals: ``half_up`` (away from zero on a half) or
    ``down`` (towards zero)."""
    scaled = abs(value) * 10 ** places
    whole = int(scaled + Fraction(1, 2)) if mode == "half_up" else int(scaled)
    return (whole if value >= 0 else -whole) / Fraction(10 ** places)


def _business_days(start: date, n: int, calendar: Any) -> date:
    day, count = start, 0
    while count < n:
        day += timedelta(days=1)
        if calendar.is_business_day(day):
            count += 1
    return day


def _plus_years(start: date, years: int) -> date:
    try:
        return start.replace(year=start.year + years)
    except ValueError:                       # 29 February: the 28th
        return start.replace(year=start.year + years, day=28)


def evaluate(step: Step, failed: list[Step] | None = None) -> Any:
    """The value of ``step`` recomputed from its operands (sub-steps recomputed first);
    each step whose recorded result differs is added to ``failed``."""
    from ledger.daycount import year_fraction

    failed = [] if failed is None else failed
    args = [evaluate(x, failed) if isinstance(x, Step) else x for x in step.operands]
    op = step.op
    if op == "sum":
        value: Any = sum((_number(a) for a in args), Fraction(0))
    elif op == "product":
        value = Fraction(1)
        for a in args:
            value *= _number(a)
    elif op == "difference":
        value = _number(args[0]) - sum((_number(a) for a in args[1:]), Fraction(0))
    elif op == "quotient":
        value = _number(args[0]) / _number(args[1])
    elif op == "min":
        value = min(_number(a) for a in args)
    elif op == "max":
        value = max(_number(a) for a in args)
    elif op == "percent":
        value = _number(args[0]) / 100
    elif op == "day_count":
        value = year_fraction(args[0], args[1], args[2])
    elif op == "days":
        value = (args[1] - args[0]).days
    elif op == "plus_days":
        value = args[0] + timedelta(days=int(args[1]))
    elif op == "plus_business_days":
        value = _business_days(args[0], int(args[1]), args[2])
    elif op == "plus_years":
        value = _plus_years(args[0], int(args[1]))
    else:  # round
        mode, places = step.rounding or ("half_up", 2)
        value = round_fraction(_number(args[0]), places, mode)
    if not _same(value, step.result):
        failed.append(step)
    return value


def _same(value: Any, stated: Any) -> bool:
    if isinstance(value, date) or isinstance(stated, date):
        return value == stated
    try:
        return _number(value) == _number(stated)
    except (TypeError, ValueError, ArithmeticError):
        return False


def recheck(steps: Iterable[Step]) -> list[dict[str, Any]]:
    """One check per step, recomputed from the data: ``{expression, stated, computed,
    result, ok, steps}`` (``steps``: how many operations it re-did)."""
    out = []
    for step in steps:
        failed: list[Step] = []
        try:
            value = evaluate(step, failed)
            computed = show(value)
        except (TypeError, ValueError, ArithmeticError, IndexError, AttributeError) as err:
            failed.append(step)
            computed = f"not computable: {err}"
        out.append({"expression": written(step), "stated": show(step.result),
                    "computed": computed, "result": show(step.result),
                    "ok": not failed, "operations": count(step)})
    return out


def count(step: Step) -> int:
    """How many operations ``step`` and its sub-steps do."""
    return 1 + sum(count(x) for x in step.operands if isinstance(x, Step))


# --------------------------------------------------------------------------- writing


def show(value: Any) -> str:
    """A value as a check prints it: exact when it ends within ten decimals, else cut
    there with …; dates ISO."""
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        value = Fraction(value)
        cut = round_fraction(value, 10, "down")
        digits = Decimal(cut.numerator) / Decimal(cut.denominator)
        if cut == value:
            return format(digits.normalize(), "f")
        return format(digits.quantize(Decimal("1e-10")), "f") + "…"
    return str(value)


def _operand(x: Any, parent: str) -> str:
    if isinstance(x, Step):
        text = written(x)
        if x.text is None and x.op in ("sum", "difference") and parent in (
                "product", "quotient", "difference"):
            return f"({text})"
        return text
    return show(x)


def written(step: Step) -> str:
    """The step as arithmetic: ``60000000 × 0.25% × 16/360``."""
    if step.text is not None:
        return step.text
    ops = step.operands
    sym = {"sum": " + ", "product": " × ", "difference": " - ", "quotient": " / "}
    if step.op in sym:
        return sym[step.op].join(_operand(x, step.op) for x in ops)
    if step.op in ("min", "max"):
        return f"{step.op}({', '.join(_operand(x, step.op) for x in ops)})"
    if step.op == "percent":
        return f"{_operand(ops[0], 'percent')}%"
    if step.op == "day_count":
        return f"{ops[0]} [{ops[1]}, {ops[2]})"
    if step.op == "days":
        return f"days in [{ops[0]}, {ops[1]})"
    if step.op == "plus_days":
        return f"{show(ops[0])} + {ops[1]} days"
    if step.op == "plus_business_days":
        return f"{show(ops[0])} + {ops[1]} Business Days"
    if step.op == "plus_years":
        return f"{show(ops[0])} + {ops[1]} years"
    mode, places = step.rounding or ("half_up", 2)
    how = "half-up" if mode == "half_up" else "down"
    return f"{_operand(ops[0], 'round')} rounded {how} to {places} decimals"


# ------------------------------------------------------------------ building helpers


def total(values: Sequence[Any], result: Any, label: str = "") -> Step:
    """``a + b + ... = result``."""
    return Step("sum", tuple(values), result, label)

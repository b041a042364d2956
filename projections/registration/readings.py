"""The named interpretations (SPEC §6) as the engine reads them.

Every ambiguous clause is read through :func:`reading`, never through a hidden ``if``:
the value comes from the mapping in force, or the registry's default when the mapping
does not name it.
"""

from __future__ import annotations

from typing import Mapping

from projections.interpretations import REGISTRY

REGISTRATION_READINGS = (
    "default_date",
    "rate_after_second_anniversary",
    "overlapping_defaults",
    "conversion_forfeits",
    "no_questionnaire_request",
    "questionnaire_deadline",
    "window_breach",
    "default_after_effectiveness_period",
    "window_material_allowance",
    "rate_clock",
    "questionnaire_entitlement_judged_on",
    "registered_securities",
    "conversion_judged_on",
    "shelf_buyer_paid",
)


def reading(interpretations: Mapping[str, str], name: str) -> str:
    """The value of interpretation ``name`` in force; ``ValueError`` for an unknown value."""
    spec = REGISTRY[name]
    value = interpretations.get(name, spec.default)
    if value not in spec.values:
        raise ValueError(f"interpretation {name} has no value {value!r}; choose one of "
                         f"{', '.join(spec.values)}")
    return value


def in_force(interpretations: Mapping[str, str]) -> dict[str, str]:
    """Every registration reading with its value (for bases and the report)."""
    return {name: reading(interpretations, name) for name in REGISTRATION_READINGS}

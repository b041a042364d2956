"""Commands for analysts: explain a figure, what-if scenarios, a figure's history."""

from __future__ import annotations

import click  # noqa: F401

from .main import cli  # noqa: F401

"""``deal-ledger types``: every event type with its fields, and the fields of one type in
``deal-ledger record TYPE --help`` (both read from ``ledger.catalog``)."""

from __future__ import annotations

import click

from .common import guarded, print_json
from .formats import csv_option, one_format, write_csv
from .main import cli

CSV_COLUMNS = ("type", "kind", "field", "required", "accepts", "default", "example")


def type_text(info) -> str:
    """One type described in plain text: what it is, each field, an example line."""
    lines = [f"{info.name} ({'any deal' if info.kind == 'any deal' else info.kind + ' deals'})"]
    if info.summary:
        lines.append(f"  {info.summary}")
    if info.fields:
        width = max(len(f.name) for f in info.fields)
        for f in info.fields:
            lines.append(f"  {f.name:<{width}}  {_need(f)}; {f.accepts}")
    else:
        lines.append("  no fields (data is {})")
    if info.note:
        lines.append(f"  note: {info.note}")
    lines.append(f"  example: {info.example_line()}")
    return "\n".join(lines)


def _shown(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@cli.command(epilog="\b\nExamples:\n  deal-ledger types\n  deal-ledger types ShelfFiled "
                    "SuspensionStarted\n  deal-ledger types --json")
@click.argument("names", nargs=-1, metavar="[TYPE]...")
@click.option("--kind", type=click.Choice(["registration_rights", "antidilution_deferral"]),
              default=None, help="Only the types of this deal kind (and those of any deal).")
@click.option("--json", "as_json", is_flag=True,
              help="A list of {type, kind, summary, fields, note, example}.")
@csv_option
@guarded
def types(names: tuple[str, ...], kind: str | None, as_json: bool, as_csv: bool) -> None:
    """List the event types: each one's fields, which are required, what they accept,
    and an example line to append."""
    from ledger.catalog import catalog, describe, unknown_type
    from ledger.errors import UsageError

    fmt = one_format(as_json, as_csv)
    for name in names:
        if (problem := unknown_type(name)) is not None:
            raise UsageError(problem, field="TYPE")
    infos = [describe(n) for n in names] if names else catalog()
    if kind:
        infos = [i for i in infos if i.kind in (kind, "any deal")]
    if fmt == "json":
        print_json([i.as_json() for i in infos])
        return
    if fmt == "csv":
        import json

        write_csv(CSV_COLUMNS, ({"type": i.name, "kind": i.kind, "field": f.name,
                                 "required": f.required, "accepts": f.accepts,
                                 "default": f.default,
                                 "example": json.dumps(f.example, ensure_ascii=False)}
                                for i in infos for f in i.fields))
        return
    click.echo("\n\n".join(type_text(i) for i in infos))
    if not names:
        click.echo("\nRecord one with: deal-ledger record TYPE --deal DEAL --date YYYY-MM-DD "
                   "name=value ...; or append JSON Lines such as the examples.")


class RecordCommand(click.Command):
    """``record``: ``record TYPE --help`` also lists that type's fields and an example."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if any(a in ("-h", "--help") for a in args):
            first = self._first_argument(ctx, args)
            if first is not None:
                ctx.meta["record_type"] = first
        return super().parse_args(ctx, args)

    def _first_argument(self, ctx: click.Context, args: list[str]) -> str | None:
        """The first positional argument (EVENT_TYPE), skipping options and their values."""
        takes_value = {name for p in self.get_params(ctx) if isinstance(p, click.Option)
                       and not p.is_flag for name in p.opts}
        rest = iter(args)
        for arg in rest:
            if arg.startswith("-"):
                if arg in takes_value:
                    next(rest, None)
                continue
            return arg
        return None

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        name = ctx.meta.get("record_type")
        if name is not None:
            from ledger.catalog import describe, unknown_type

            problem = unknown_type(name)
            with formatter.section(f"Fields of {name}" if problem is None else "Event type"):
                if problem is not None:
                    formatter.write_text(problem)
                else:
                    info = describe(name)
                    if info.summary:
                        formatter.write_text(info.summary)
                        formatter.write_paragraph()
                    if info.fields:
                        formatter.write_dl([(f.name, _need(f) + "; " + f.accepts)
                                            for f in info.fields])
                    else:
                        formatter.write_text("no fields: give none")
                    if info.note:
                        formatter.write_paragraph()
                        formatter.write_text(f"note: {info.note}")
                    args = " ".join(f"{k}={_arg(v)}" for k, v in info.example["data"].items())
                    formatter.write_paragraph()
                    formatter.write_text("For example (invented values):")
                    formatter.write(" " * (formatter.current_indent + 2) + (
                        f"deal-ledger record {name} --deal {info.example['deal']} "
                        f"--date {info.example['date']} {args}").rstrip() + "\n")
                    return  # that type's example stands for the command's own
        super().format_epilog(ctx, formatter)


def _need(f) -> str:
    if f.required:
        return "required"
    return "optional" + (f", default {_shown(f.default)}" if f.default is not None else "")


def _arg(value) -> str:
    import json
    import shlex

    if isinstance(value, str):
        return shlex.quote(value)
    return shlex.quote(json.dumps(value, ensure_ascii=False))

"""A terms file drafted from an agreement's text (``deal-ledger terms draft``, issue 35).

``draft_agreement`` reads the agreement (``ledger.drafting``) and gives the draft as data;
``draft_text`` writes it as a terms file: JSON with ``//`` comments (``ledger.termsfile``
reads them), where each term found has above it the section and the quotation it was read
from and the value read, each term filled from a template says so, each term not found is
listed under ``missing`` (the file fails ``terms check`` and opens no deal until a person
fills it in and takes it off the list), and each sentence the ledger reads two ways names
both readings. ``explain_lines`` says the same term by term, for a lawyer checking the
draft against the text in one pass. ``write_draft`` writes the file whole or not at all,
private (``publishing.outputs.replace_whole``), never over the ledger and never over a file
that exists.
"""

from __future__ import annotations

import json
import os
from typing import Any

from ledger.errors import InvalidEvent, UsageError

#: the largest agreement text read (an EDGAR exhibit's HTML is a few hundred kilobytes)
MAX_AGREEMENT = 16 << 20


def read_agreement_text(path: str) -> str:
    """The text of the agreement file at ``path``: UTF-8, or Windows-1252 as older EDGAR
    exhibits are; ``UsageError`` if it cannot be read, ``InvalidEvent`` if it is empty."""
    from ledger.jsonl import read_bounded

    raw = read_bounded(path, MAX_AGREEMENT, "AGREEMENT")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("cp1252", errors="replace")
    if not text.strip():
        raise InvalidEvent(f"{path} is empty: give the agreement's text", field="AGREEMENT")
    return text


def draft_agreement(path: str, *, template: str | None = None, cite_as: str = "RRA") -> Any:
    """The ``ledger.drafting.schema.Draft`` of the agreement at ``path``; ``UsageError``
    for an unknown template, or a text in which no term of a registration rights agreement
    is found."""
    from ledger.drafting.schema import draft

    text = read_agreement_text(path)
    try:
        out = draft(text, template=template, cite_as=cite_as,
                    file_name=os.path.basename(path))
    except KeyError as err:
        raise UsageError(str(err.args[0]), field="--template") from None
    if not out.found:
        raise UsageError(f"{path}: no term of a registration rights agreement found in its "
                         f"text (a filing deadline, a Registration Default, damages...)",
                         field="AGREEMENT")
    return out


def as_data(d: Any, path: str) -> dict[str, Any]:
    """The draft as ``--json`` prints it."""
    def term(t: Any) -> dict[str, Any]:
        return {"path": t.path, "value": t.value, "section": t.section, "quote": t.quote,
                "note": t.note, "source": t.source}

    return {"agreement": path, "name": d.name, "date": d.date, "template": d.template,
            "text": d.shipped_text, "terms": d.terms, "found": [term(t) for t in d.found],
            "missing": [{"path": m.path, "why": m.why, "section": m.section,
                         "quote": m.quote, "readings": list(m.readings)} for m in d.missing],
            "filled": [term(t) for t in d.filled], "still_missing": d.still_missing(),
            "readings": [{"name": r.name, "values": list(r.values), "section": r.section,
                          "quote": r.quote, "why": r.why} for r in d.readings]}


# ------------------------------------------------------------------------- in words


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _default(name: str) -> str | None:
    from projections.interpretations import REGISTRY

    found = REGISTRY.get(name)
    return found.default if found else None


def _reading_words(r: Any) -> str:
    default = _default(r.name)
    values = " | ".join(f"{v} (the ledger's default)" if v == default else v for v in r.values)
    return f"readings.{r.name} ({r.section}): {r.why}: {values}"


def summary(d: Any, path: str) -> str:
    filled = (f", {len(d.filled)} filled from the template {d.template}" if d.template
              else "")
    return (f"{path}: {len(d.found)} terms found, {len(d.still_missing())} missing{filled}, "
            f"{len(d.readings)} sentences read two ways")


def explain_lines(d: Any, path: str) -> list[str]:
    """Term by term: the value read, the section and the quotation; then what is missing,
    what a template filled, and the sentences read two ways."""
    lines = [summary(d, path)]
    if d.shipped_text:
        lines.append(f"the text is {d.shipped_text}, shipped with deal-ledger: `deal-ledger "
                     f"clause` states its clauses")
    for t in d.found:
        value = "(the clause)" if t.value is None and t.note == "the clause" else \
            "(the definition)" if t.path.startswith("citations.") else _value(t.value)
        lines.append(f"{t.path} = {value}")
        lines.append(f"  {t.section}: \"{t.quote}\"")
        if t.note and t.note not in ("the clause", "the definition other rules cite"):
            lines.append(f"  read as: {t.note}")
    for m in d.missing:
        if m.path in {t.path for t in d.filled}:
            continue
        lines.append(f"MISSING {m.path}: {m.why}")
        if m.readings:
            lines.append("  two readings: " + " | ".join(_value(r) for r in m.readings))
    for t in d.filled:
        where = f" ({t.section})" if t.section else ""
        note = f": {t.note}" if t.note else ""
        lines.append(f"FILLED {t.path} from the {t.source}{where}{note} = {_value(t.value)}")
    for r in d.readings:
        lines.append("TWO READINGS " + _reading_words(r))
        lines.append(f"  \"{r.quote}\"")
    return lines


# ------------------------------------------------------------------------- the file


def draft_text(d: Any, path: str) -> str:
    """The draft as a commented terms file (module doc)."""
    head = [f"// Drafted by `deal-ledger terms draft` from {os.path.basename(path)}: each "
            "term below was read from the agreement's text,",
            "// with the section and the sentence it was read from above it: check each "
            "against the text.",
            "// " + summary(d, os.path.basename(path)) + "."]
    still = d.still_missing()
    if still:
        head += ["// Not found (listed under \"missing\": fill each in and take it off the "
                 "list; until then `deal-ledger terms check` refuses the file and `init` "
                 "opens no deal)."]
    if d.template:
        head.append(f"// Filled from the template {d.template}: "
                    + ", ".join(t.path for t in d.filled) + " (check them against your text).")
    for r in d.readings:
        head += _wrapped("Two readings: " + _reading_words(r)
                         + " (pin one under readings, or the default applies).")
    comments: dict[str, list[str]] = {}
    for t in d.found:
        words = [f"{t.section}: \"{t.quote}\""]
        if t.note and t.note not in ("the clause", "the definition other rules cite"):
            words.append(f"read as: {t.note}")
        comments.setdefault(t.path, []).extend(words)
    for t in d.filled:
        note = f" ({t.note})" if t.note else ""
        comments.setdefault(t.path, []).append(f"filled from the {t.source}{note}")
    why = {("" if m.path == "date" else "terms.") + m.path: m for m in d.missing}
    body: dict[str, Any] = {"kind": "registration_rights", "name": d.name, "date": d.date}
    if still:
        body["missing"] = still
    body["terms"] = d.terms
    out = list(head)
    _emit(body, out, 0, "", comments, why)
    return "\n".join(out) + "\n"


def _wrapped(text: str, width: int = 96) -> list[str]:
    from .terms import _wrapped as wrap

    return wrap(text, width)


def _emit(value: Any, out: list[str], depth: int, path: str,
          comments: dict[str, list[str]], why: dict[str, Any], key: str | None = None,
          last: bool = True) -> None:
    """``value`` as indented JSON (two spaces, as ``json.dumps(indent=2)``), each key of
    the terms preceded by its comments, each missing term followed by why."""
    pad = "  " * depth
    comma = "" if last else ","
    lead = f"{pad}{json.dumps(key, ensure_ascii=False)}: " if key is not None else pad
    inner = path.removeprefix("terms.").removeprefix("terms")
    if key is not None and path.startswith("terms.") and inner in comments:
        for line in comments[inner]:
            out += _wrapped_comment(line, pad)
    if isinstance(value, dict) and value:
        out.append(lead + "{")
        items = list(value.items())
        for i, (k, v) in enumerate(items):
            _emit(v, out, depth + 1, f"{path}.{k}" if path else k, comments, why, k,
                  i == len(items) - 1)
        out.append(pad + "}" + comma)
    elif isinstance(value, list) and value and key == "missing" and depth == 1:
        out.append(lead + "[")
        for i, item in enumerate(value):
            reason = why.get(item)
            tail = f"  // {reason.why}" if reason is not None and reason.why else ""
            out.append(f"{pad}  {json.dumps(item)}{',' if i < len(value) - 1 else ''}{tail}")
        out.append(pad + "]" + comma)
    else:
        text = json.dumps(value, ensure_ascii=False, indent=2)
        lines = text.split("\n")
        out.append(lead + lines[0] + ("" if len(lines) > 1 else comma))
        for line in lines[1:-1]:
            out.append(pad + line)
        if len(lines) > 1:
            out.append(pad + lines[-1] + comma)


def _wrapped_comment(text: str, pad: str) -> list[str]:
    from .terms import _wrapped as wrap

    return wrap(text, 100, prefix=f"{pad}// ")


def write_draft(d: Any, agreement: str, out: str, ledger_url: str) -> None:
    """The draft written to ``out`` (a new file), whole or not at all, private."""
    from .outputs import write_new

    write_new(out, draft_text(d, agreement).encode("utf-8"), ledger_url=ledger_url,
              field="--out", prefix=".terms-draft-")

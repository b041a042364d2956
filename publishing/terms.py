"""A deal's terms, for people and for editors (``deal-ledger terms``): the library calls.

* ``terms_of_deal``: the terms in force of a registration rights deal (its ``DealOpened``
  as known, every ``TermsAmended`` recorded by the day applied), in words, each rule with
  its clause: "damages: 0.25% a year for the first 90 days of a default, then 0.50%; cap
  0.50%" (``projections.clauses.deal``).
* ``schema``: the JSON Schema of the terms (``ledger.registration_terms``), for an
  editor's completion and checks; each term described by its class's own docstring.
* ``check_file``: every problem of a terms file, each with its path and the rule it
  breaks; the terms in words when there is none.
* ``new_file``: a template as a starting terms file, commented: each rule's clause, its
  words and, for a market template, whether it rests on the excerpt or on market
  practice.
"""

from __future__ import annotations

import dataclasses
import json
import re
from datetime import date
from typing import Any, Iterable

from ledger.errors import UsageError


def _rules(terms: Any) -> list[dict[str, Any]]:
    from projections.clauses.deal import rules_in_words

    return [{"path": r.path, "section": r.section, "words": r.words,
             **({"quote": r.quote} if r.quote else {})} for r in rules_in_words(terms)]


def terms_of_deal(events: Iterable[Any], as_of: date) -> dict[str, Any]:
    """The deal's terms in force on ``as_of`` in words (``UsageError`` for a letter
    deal, whose terms have no clauses of this kind)."""
    from ledger.dealterms import registration_terms
    from ledger.registration_terms import amended
    from projections.timeline import build_timeline

    timeline = build_timeline(list(events), as_of)
    if timeline.kind != "registration_rights":
        raise UsageError(f"deal {timeline.deal} is an anti-dilution deferral: its terms are "
                         f"shown by `deal-ledger report` (terms show reads a registration "
                         f"rights agreement)", field="DEAL")
    versions = [v for v in amended(timeline.terms, timeline.of_type("TermsAmended"))
                if v[0] <= as_of]
    terms = registration_terms(versions[-1][1])
    return {"deal": timeline.deal, "as_of": as_of.isoformat(),
            "opened": timeline.opened.id,
            "amendments": [{"event": i, "effective": f.isoformat()}
                           for f, _, i in versions[1:]],
            "readings": terms.pinned(), "rules": _rules(terms)}


# ------------------------------------------------------------------------- the schema


def _field_docs(cls: type) -> dict[str, str]:
    """``name -> description`` from a class docstring's ``* ``name``: text`` bullets."""
    out: dict[str, str] = {}
    current: list[str] | None = None
    for line in (cls.__doc__ or "").split("\n"):
        m = re.match(r"^\s*\* ((?:``[a-z_]+``(?:, |/| or )?)+)(?::| \(|,)?\s*(.*)$", line)
        if m:
            names = re.findall(r"``([a-z_]+)``", m.group(1))
            current = [m.group(2).strip()]
            for n in names:
                out[n] = current  # type: ignore[assignment]
            continue
        if current is not None and line.strip() and not line.strip().startswith("*"):
            current.append(line.strip())
        elif not line.strip():
            current = None
    return {k: " ".join(v) for k, v in out.items()}  # type: ignore[arg-type]


def schema() -> dict[str, Any]:
    """The JSON Schema of a registration rights deal's terms (version 2), each class and
    term described as the schema's code describes it."""
    from pydantic import TypeAdapter

    from ledger import registration_terms as rt

    out = TypeAdapter(rt.RegistrationTerms).json_schema()
    out["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    out["title"] = "deal-ledger registration rights terms, version 2"
    classes = {name: obj for name, obj in vars(rt).items()
               if isinstance(obj, type) and dataclasses.is_dataclass(obj)}
    for name, node in [("RegistrationTerms", out), *out.get("$defs", {}).items()]:
        cls = classes.get(name)
        if cls is None:
            continue
        docs = _field_docs(cls)
        node["description"] = " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())
        for field, prop in node.get("properties", {}).items():
            if field in docs and docs[field]:
                prop["description"] = docs[field]
    return out


# ------------------------------------------------------------------------- checking


def check_file(path: str) -> dict[str, Any]:
    """Every problem of the terms file at ``path``: ``{ok, kind, problems: [{path,
    problem, rule}], rules}`` (``rules``: the terms in words, when it has none).
    ``LedgerError`` when the file cannot be read as a terms file at all."""
    from ledger.termsfile import read_terms_file
    from ledger.terms import registration_problems, validate_terms

    spec = read_terms_file(path, field="FILE", unfilled=True)
    kind = spec["kind"]
    out: dict[str, Any] = {"file": path, "kind": kind, "name": spec["name"], "problems": []}
    unfilled = [{"path": m, "problem": "not found in the agreement's text: fill it in, then "
                 "take it off \"missing\"", "rule": "terms draft"}
                for m in spec.get("missing", [])]
    if kind == "registration_rights":
        parsed, problems = registration_problems(spec["terms"])
        out["problems"] = unfilled + [
            {"path": f"terms.{p}" if p else "terms", "problem": what, "rule": _rule_of(what)}
            for p, what in problems if not _under(f"terms.{p}", spec.get("missing", []))]
        if unfilled:
            parsed = None
        if parsed is not None and not problems:
            out["rules"] = _rules(parsed)
            from ledger.terms_v1 import is_v1

            if is_v1(spec["terms"]):
                out["note"] = ("version 1 terms (no version): read as version 2; `terms new "
                               "--from infocrossing-rra-2004` writes version 2")
    elif kind == "antidilution_deferral":
        try:
            validate_terms(kind, spec["terms"])
        except ValueError as err:
            where, _, what = str(err).partition(": ")
            out["problems"] = [{"path": where, "problem": what, "rule": _rule_of(what)}]
    else:
        out["problems"] = [{"path": "kind", "problem": f"not a deal kind: {kind!r}",
                            "rule": "registration_rights or antidilution_deferral"}]
    if kind != "registration_rights":
        out["problems"] = unfilled + out["problems"]
    out["ok"] = not out["problems"]
    return out


def _under(path: str, missing: list[str]) -> bool:
    """``path`` is a term listed as missing, or inside one (its problem is said once)."""
    return any(path == m or path.startswith(m + ".") for m in missing)


def _rule_of(problem: str) -> str:
    """The rule a problem breaks, in a word: the schema's (a type, a key) or a check
    across terms (a bound, an order)."""
    if problem in ("unknown term", "is required") or problem.startswith("Input should"):
        return "the terms schema (deal-ledger terms schema)"
    return "a check across terms (ledger/terms_checks.py)"


# ------------------------------------------------------------------------- starting


def new_file(template_name: str) -> str:
    """The template ``template_name`` as a starting terms file: ``{kind, name, date,
    terms}`` as JSON, with ``//`` comments: where the template comes from, what in it is
    a placeholder or market practice, and beside each rule its clause and its words."""
    from ledger.terms import registration_terms, template

    try:
        t = template(template_name)
    except KeyError as err:
        raise UsageError(str(err.args[0]), field="--from") from None
    body = {"kind": t["kind"], "name": t["name"], "date": t["date"].isoformat(),
            "terms": t["terms"]}
    lines = [f"// A terms file for `deal-ledger init DEAL --terms FILE`, from the template "
             f"{template_name}.", "// Check it with `deal-ledger terms check FILE`; the "
             "schema: `deal-ledger terms schema`.", "// Every rule names the agreement's "
             "own clause (section) and, read from the text, its sentence (quote)."]
    for key in ("source", "illustrative"):
        if t.get(key):
            lines += _wrapped(f"{key}: {t[key]}")
    for what, why in (t.get("market_practice") or {}).items():
        lines += _wrapped(f"market practice, {what}: {why}")
    words: dict[str, str] = {}
    if t["kind"] == "registration_rights":
        for rule in _rules(registration_terms(t["terms"])):
            if not rule["path"].startswith("citations."):
                words.setdefault(rule["path"].split(".")[0], rule["words"])
    text = json.dumps(body, indent=2, ensure_ascii=False)
    out = []
    for line in text.split("\n"):
        m = re.match(r'^    "([a-z_]+)": ', line)
        if m and m.group(1) in words:
            out += [f"    // {w}" for w in _wrapped(words[m.group(1)], prefix="")]
        out.append(line)
    return "\n".join(lines + out) + "\n"


def _wrapped(text: str, width: int = 88, prefix: str = "// ") -> list[str]:
    out, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width - len(prefix):
            out.append(prefix + line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        out.append(prefix + line)
    return out


def template_names() -> list[str]:
    from ledger.terms import TEMPLATES

    return list(TEMPLATES)



# ------------------------------------------------------------------- in the headings

#: the headings of a deal whose terms cannot be read (and the Infocrossing RRA's own)
INFOCROSSING_HEADINGS = {
    "shelf": "RRA §2(a)", "filing": "RRA §2(a)(i)", "effectiveness": "RRA §2(a)(ii)",
    "period": "RRA §2(a)(iii)", "damages": "RRA §3(a)", "payment": "RRA §3(b)",
    "interest": "RRA §3(a), §3(b)", "suspensions": "RRA §4(b)(i)",
    "limits": "RRA §4(b)(i), §3(a)(iv)", "limit_defaults": "RRA §3(a)(iv)",
    "duties": "RRA §2, §3(b), §4", "consents": "RRA §1, §10(D)", "amendments": "RRA §10(D)",
    "notices": "RRA §10(E)", "windows": "90-day, 360-day"}


def headings(terms: Any) -> dict[str, str]:
    """The clauses a view, the pack or a timeline names in its headings, from a
    registration rights deal's terms: its own sections (the Infocrossing RRA's give
    "RRA §2(a)", "RRA §3(a)", ...). ``terms`` may be ``None`` (then the Infocrossing
    RRA's headings, as for a letter deal nothing of this is shown)."""
    from ledger.registration_terms import INFOCROSSING_TEXT, cite, parent_section
    from projections.registration.suspensions import window_words

    if terms is None or terms.text == INFOCROSSING_TEXT:
        return dict(INFOCROSSING_HEADINGS)
    shelf = [d.section for d in (terms.filing, terms.effectiveness) if d is not None]
    s = terms.suspensions
    defaults = ([terms.defaults.suspension.section] if terms.defaults.suspension else []) + [
        w.default.section for w in (s.windows if s else ()) if w.default is not None]
    duties = [*shelf, *(d.section for d in (terms.trustee_notice, terms.advise_holders,
                                            terms.questionnaire) if d is not None)]
    m = terms.amendments.majority
    return {"shelf": parent_section(shelf), "filing": shelf[0] if terms.filing else "",
            "effectiveness": terms.effectiveness.section if terms.effectiveness else "",
            "period": terms.effectiveness_period.section,
            "damages": terms.damages.section, "payment": terms.payment.section,
            "interest": cite(terms.damages.section, terms.payment.section),
            "suspensions": s.section if s else "",
            "limits": cite(s.section, parent_section(defaults)) if s else "",
            "limit_defaults": parent_section(defaults),
            "duties": cite(*duties), "consents": cite(m.section, terms.amendments.section),
            "amendments": terms.amendments.section, "notices": terms.notices.section,
            "windows": ", ".join(window_words(w) for w in (s.windows if s else ()))}


def deal_headings(events: Iterable[Any]) -> dict[str, str]:
    """``headings`` of the deal's terms (its latest ``DealOpened`` known)."""
    from ledger.dealterms import deal_registration_terms

    return headings(deal_registration_terms(events))


# ------------------------------------------------------------ the agreement's own words


def split_sections(section: str) -> list[str]:
    """A citation of several clauses as its clauses: "RRA §2(b), §4(d)" is "RRA §2(b)" and
    "RRA §4(d)"; "Registration Defaults (a),(b)" is "Registration Defaults (a)" and
    "Registration Defaults (b)"."""
    out: list[str] = []
    pieces = [p.strip() for p in section.split(", ") if p.strip()]
    prefix = pieces[0].split("§", 1)[0] if pieces and "§" in pieces[0] else ""
    for piece in pieces:
        if piece.startswith("§") and prefix:
            piece = prefix + piece
        head, *siblings = piece.split(",(")
        out.append(head)
        stem = head[:head.rfind("(")] if head.endswith(")") else head
        out += [f"{stem}({s}" for s in siblings]
    return out


def cited_clauses(report: Any) -> list[str]:
    """Every clause a report (or an explanation) cites, one by one, in order."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "clause" and isinstance(value, str):
                    found.extend(split_sections(value))
                else:
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(report)
    return list(dict.fromkeys(found))


def agreement_words(terms: Any, cited: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """The agreement's own sentences for each clause of the deal's terms (the quotations
    a template or ``terms draft`` put beside its rules), ``[{clause, quotes}]`` in the order
    of the agreement, a sentence inside another of the same clause said once; with
    ``cited``, only the clauses cited there."""
    from projections.clauses.deal import rules_in_words

    wanted = set(cited) if cited is not None else None
    quotes: dict[str, list[str]] = {}
    for rule in rules_in_words(terms):
        if not rule.quote:
            continue
        for section in split_sections(rule.section):
            if wanted is None or section in wanted:
                quotes.setdefault(section, []).append(rule.quote)
    out = []
    for section, said in quotes.items():
        kept = [q for q in dict.fromkeys(said)
                if not any(q != other and q in other for other in said)]
        out.append({"clause": section, "quotes": kept})
    return out


def deal_agreement_words(events: Iterable[Any], report: Any) -> list[dict[str, str]]:
    """``agreement_words`` of the deal's terms for the clauses its ``report`` cites
    (``[]`` for a deal of another kind)."""
    from ledger.dealterms import deal_registration_terms

    terms = deal_registration_terms(events)
    return [] if terms is None else agreement_words(terms, cited_clauses(report))

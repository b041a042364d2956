"""``deal-ledger terms draft`` on an EDGAR exhibit (issue 35): the Infocrossing RRA as
EDGAR files exhibits, each paragraph a ``<p>`` in ``<font>`` with its leading spaces gone,
its lines either run together or kept with ``<br>``. Through the CLI, the draft finds the
same terms with the same sections as the plain text, and lists the same terms missing."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

from tests.cli_support import ok, run

RRA = (Path(__file__).resolve().parent.parent / "ledger" / "contracts"
       / "registration-rights-agreement-2004-06-30.txt")


def _edgar(text: str, *, breaks: bool) -> str:
    out = ['<HTML><HEAD><TITLE>EX-4.2</TITLE></HEAD><BODY BGCOLOR="WHITE">']
    for para in text.split("\n\n"):
        lines = [html.escape(line.strip()) for line in para.splitlines() if line.strip()]
        if lines:
            joined = "<BR>\n".join(lines) if breaks else " ".join(lines)
            out.append(f'<P ALIGN="JUSTIFY"><FONT FACE="Times New Roman" SIZE="2">{joined}'
                       f"</FONT></P>")
    return "\n".join(out + ["</BODY></HTML>"])


def _drafted(path: Path) -> dict:
    data = json.loads(ok(run("terms", "draft", str(path), "--json")))
    found = {t["path"]: (t["value"], t["section"]) for t in data["found"]}
    missing = sorted(m["path"] for m in data["missing"])
    return {"found": found, "missing": missing}


@pytest.mark.parametrize("breaks", [False, True], ids=["lines-run-together", "br-lines"])
def test_an_edgar_exhibit_drafts_as_its_plain_text(tmp_path, breaks):
    page = tmp_path / "ex4-2.htm"
    page.write_text(_edgar(RRA.read_text(encoding="utf-8"), breaks=breaks), encoding="utf-8")
    plain, exhibit = _drafted(RRA), _drafted(page)
    # by hand: "(E) NOTICES. ... All such notices and communications shall be deemed to
    # have been duly given: ..." is §10(E)'s own closing paragraph, after item (ii); "No
    # Additional Interest shall be payable on any Notes that have been converted" is
    # §3(a)'s, after item (iv); the RRA states 35 terms and 7 are missing (Indenture terms)
    assert exhibit["found"]["notices"][1] == "RRA §10(E)"
    assert exhibit["found"]["damages.conversion_shares"][1] == "RRA §3(a)"
    assert exhibit["found"]["damages.steps"][1] == "RRA §3(a)(i),(ii),(iii),(iv)"
    assert exhibit["found"]["suspensions.single"][1] == "RRA §3(a)(iv)(A)"
    assert exhibit == plain
    assert len(exhibit["missing"]) == 7

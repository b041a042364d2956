# Over 600 lines: the pack's writer and its offline checker read one format (files, manifest, chain) and belong together.
"""The auditor pack (``deal-ledger export``, ``deal-ledger verify --pack``): one deal's
events, report and schedules in a directory that can be checked with no ledger and no
network.

What a pack holds (every name below, and nothing else):

* ``events.jsonl``: the deal's events exactly as ``log --json`` prints them, with the
  store's fields (``seq``, ``prev_hash``, ``hash``...);
* ``chain.json``: how those events sit in the ledger's hash chain: the ledger's head
  (seq, hash) when the pack was made and, per event, its seq, id, prev_hash and hash;
* ``head.txt``: the head hash, alone, to compare with a checkpoint kept elsewhere
  (``deal-ledger verify --expect HEAD`` on the ledger);
* ``report.json``: the SPEC §7 report for the pack's as_of, known_at, interpretations;
* the schedules that apply to the deal's kind, as CSV (``publishing.readmodels`` rows):
  ``defaults.csv``, ``suspension_periods.csv``, ``additional_interest.csv`` (one row per
  Holder per Interest Payment Date), ``deadlines.csv``; ``true_ups.csv`` (one row per
  exercise); and for both kinds ``obligations.csv`` (``publishing.pack_obligations``);
* ``interpretations.json``: the readings in force, each with its registry description;
* ``index.html``: one self-contained page (inline CSS and SVG, no script, no link to
  anything) with a timeline and the tables;
* ``manifest.json``: every other file's SHA-256 and size, the as_of/known_at/
  interpretations used, the tool version, and its own SHA-256 (computed with that value
  zeroed), so that a change to ANY byte of ANY file is caught and named.

What ``verify_pack`` proves offline, in this order: the manifest is intact; every file
matches it and no file was added; every event's hash recomputes from its content; the
events and ``chain.json`` agree; every link between events adjacent in the log
(``seq`` n and n+1 both in the deal) holds, and seq 1 starts from the genesis hash; the
deal's own chain holds (each event's ``deal_prev`` is the hash of the deal's event
before it in the pack, so an event of the deal missing from the pack is named); the
head hash is the same in ``chain.json``, ``head.txt`` and the manifest, and equals the
last event's hash when that event is the head; and recomputing the report (and every
derived file) from the pack's events gives exactly what the pack holds. The links to other
deals' events cannot be checked without those events: that the head is the ledger's is
settled by comparing ``head.txt`` with the ledger (``verify --expect``) or a checkpoint;
that no event of the deal after the pack's last one is missing (up to the head), only
with the ledger at hand (``publishing.pack_ledger``, ``verify --pack --against-ledger``).

A pack is a pure function of the deal's records, the head and the arguments: exporting
twice gives the same bytes.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import shutil
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Callable, Iterator, Mapping, Sequence

from ledger.errors import LedgerBusy, LedgerError, StoreError, UsageError
from ledger.store.chainhead import GENESIS
from ledger.store.canonical import record_hash

from .faults import Fault, FileVerdict

FORMAT = "deal-ledger auditor pack 1"
MANIFEST = "manifest.json"
_SELF = "manifest_sha256"
_ZERO = "0" * 64

RESTATEMENTS = "restatements.json"
CSV_NAMES = {"defaults": "defaults.csv", "suspension_periods": "suspension_periods.csv",
             "payments": "additional_interest.csv", "deadlines": "deadlines.csv",
             "true_ups": "true_ups.csv"}


# --------------------------------------------------------------------------- building


def tool_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("deal-ledger")
    except PackageNotFoundError:
        return "unknown"


def log_line(record: Mapping[str, Any]) -> str:
    """One record as ``log --json`` prints it."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def _json(obj: Any) -> bytes:
    return (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


# A text cell a spreadsheet would run as a formula (OWASP, "CSV Injection"): a Holder
# named "=HYPERLINK(...)". Such a cell is written with a leading single quote, which
# spreadsheets show as text. Numbers are never changed: a cell that is wholly a decimal
# number ("-5.00", 12) is a value, not a formula, and an amount must stay exact.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"-?\d+(\.\d+)?", re.ASCII)


def csv_safe(text: str) -> str:
    """``text`` as a CSV cell that no spreadsheet evaluates (see ``FORMULA_STARTS``)."""
    if text.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


BOM = b"\xef\xbb\xbf"


def csv_cell(value: Any) -> Any:
    """One cell of the pack's CSVs: exact, never a Python repr, never a formula; a list
    (event ids) joined with spaces. Sealed in packs: ``verify --pack`` recomputes these
    bytes, so this must not change."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return csv_safe(" ".join(str(v) for v in value))
    if isinstance(value, str):
        return csv_safe(value)
    return value


def _csv(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> bytes:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([csv_cell(row.get(c)) for c in columns])
    # UTF-8 with a byte order mark: without it a spreadsheet takes the file for its
    # locale's code page and shows "Benak\u00e9" and "\u00a7" as mojibake
    return BOM + buf.getvalue().encode("utf-8")


def interpretations_doc(in_force: Mapping[str, str]) -> dict[str, Any]:
    """The readings in force, each with what the registry says about it (SPEC §6)."""
    from projections.interpretations import REGISTRY

    out = {}
    for name, value in in_force.items():
        i = REGISTRY[name]
        out[name] = {"value": value, "is_default": value == i.default,
                     "reading": i.readings.get(value), "default": i.default,
                     "alternatives": list(i.alternatives), "clause": i.clause,
                     "question": i.question, "readings": dict(i.readings)}
    return out


def chain_doc(records: Sequence[Mapping[str, Any]], head: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "hash": "SHA-256 of the canonical JSON (sorted keys, no spaces, UTF-8) of the event "
                "without its 'hash', 'prev_hash' included",
        "genesis": GENESIS,
        "head": dict(head),
        "deal_prev": "each event's 'deal_prev' is the hash of the deal's event before it "
                     "(the genesis hash for its first), so the deal's events form a chain "
                     "of their own; events recorded before deal-ledger kept it have none",
        "events": [_link(r) for r in records],
    }


def _link(record: Mapping[str, Any]) -> dict[str, Any]:
    link = {"seq": record["seq"], "id": record["id"], "prev_hash": record["prev_hash"],
            "hash": record["hash"]}
    if "deal_prev" in record:
        link["deal_prev"] = record["deal_prev"]
    return link


def build_pack(records: Sequence[Mapping[str, Any]], head: Mapping[str, Any], *,
               as_of: date, known_at: datetime | None = None,
               interpretations: Mapping[str, str] | None = None,
               version: str | None = None,
               previous: Mapping[str, Any] | None = None) -> dict[str, bytes]:
    """Every file of the pack, name -> bytes (``manifest.json`` last): a pure function of
    the deal's stored records (in seq order), the ledger's head ``{seq, hash,
    recorded_at}`` and the report's arguments; with ``previous`` (a previous pack's
    head, day and readings, and the consistency proof from its head to this one), its
    restatements too (``restatements.json``: ``publishing.restatements``)."""
    from projections.timeline import retracted_ids

    from . import pack_html, reading
    from ledger.events import Event, format_timestamp
    from .readmodels import KIND_SCHEDULES, SCHEDULES, schedule_rows

    if not records:
        raise UsageError("the deal has no events to export", field="DEAL")
    events = [Event.from_record(r) for r in records]
    report = reading.deal_report(events, as_of=as_of, known_at=known_at,
                                 interpretations=interpretations)
    in_force = report["interpretations"]   # the deal's own readings included
    version = version or tool_version()
    files: dict[str, bytes] = {
        "events.jsonl": "".join(log_line(r) + "\n" for r in records).encode("utf-8"),
        "chain.json": _json(chain_doc(records, head)),
        "head.txt": f"{head['hash']}\n".encode("ascii"),
        "report.json": _json(report),
        "interpretations.json": _json(interpretations_doc(in_force)),
    }
    section = None
    if previous is not None:
        from projections.restatement import pack_section

        section = pack_section(records, previous, head["seq"], known_at)
        files[RESTATEMENTS] = _json(section)
    rows = schedule_rows(report)
    for table in KIND_SCHEDULES.get(report["kind"], ()):
        files[CSV_NAMES[table]] = _csv(rows[table], [c for c, _ in SCHEDULES[table]])
    from .pack_obligations import CSV_NAME, csv_columns, obligation_rows

    files[CSV_NAME] = _csv(obligation_rows(report), csv_columns())
    info = {"deal": report["deal"], "kind": report["kind"], "as_of": as_of.isoformat(),
            "known_at": format_timestamp(known_at) if known_at else None,
            "interpretations": in_force, "head": dict(head), "version": version,
            "files": sorted(files), "retracted": sorted(retracted_ids(events)),
            "restatements": section}
    from .terms import deal_agreement_words, deal_headings

    files["index.html"] = pack_html.render(report, records, rows, info, deal_headings(events),
                                           deal_agreement_words(events, report)).encode("utf-8")
    manifest = {
        "format": FORMAT,
        "deal": report["deal"],
        "kind": report["kind"],
        "as_of": as_of.isoformat(),
        "known_at": format_timestamp(known_at) if known_at else None,
        "interpretations": in_force,
        "tool": {"name": "deal-ledger", "version": version},
        "ledger": {"head_seq": head["seq"], "head_hash": head["hash"],
                   "head_recorded_at": head.get("recorded_at")},
        "events": {"count": len(records), "first_seq": records[0]["seq"],
                   "last_seq": records[-1]["seq"]},
        "files": {name: {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
                  for name, data in sorted(files.items())},
        "verify": "deal-ledger verify --pack DIR; then compare head.txt with the ledger: "
                  "deal-ledger verify --expect HEAD",
        _SELF: _ZERO,
    }
    files[MANIFEST] = _seal(_json(manifest))
    return files


def _seal(body: bytes) -> bytes:
    """The manifest with its own SHA-256 (taken with the value zeroed) filled in."""
    digest = hashlib.sha256(body).hexdigest()
    zeroed = f'"{_SELF}": "{_ZERO}"'.encode()
    assert body.count(zeroed) == 1
    return body.replace(zeroed, f'"{_SELF}": "{digest}"'.encode())


@dataclass(frozen=True)
class Exported:
    out: str
    files: tuple[str, ...]
    events: int
    head_seq: int
    head_hash: str
    manifest_sha256: str

    def line(self) -> str:
        return (f"wrote {len(self.files)} files to {self.out}: {self.events} events, ledger "
                f"head seq {self.head_seq} {self.head_hash}; manifest {self.manifest_sha256}")


def export(ledger: Any, deal: str, out: str, *, as_of: date,
                known_at: datetime | None = None,
                interpretations: Mapping[str, str] | None = None,
                on_progress: Callable[[int], None] | None = None,
                key: Any = None, previous: Callable[[int], Mapping[str, Any]] | None = None
                ) -> Exported:
    """Write the pack of ``deal`` to the new directory ``out``. The directory appears
    whole or not at all (written beside it, then renamed); an existing non-empty
    directory is never written into. ``key`` (``ledger.notes.SignerKey``): the manifest
    signed (``publishing.pack_signature``); ``previous``: given this pack's head seq,
    what a pack of the deal made earlier restates from (``publishing.restatements.
    against``): the figures of its day this one knows otherwise (``restatements.json``)."""
    from . import reading

    from .outputs import new_directory, write_directory

    parent = new_directory(out, "a pack")
    # events after it are left out: the pack is one moment
    head = _verified_head(ledger, on_progress)
    records = [r for r in ledger.deal_records(deal) if r["seq"] <= head.seq]
    if not records:
        reading.deal_events(ledger, deal)  # a UsageError naming the known deals
    since = None if previous is None else previous(head.seq)
    files = build_pack(records, {"seq": head.seq, "hash": head.hash,
                                 "recorded_at": head.recorded_at},
                       as_of=as_of, known_at=known_at, interpretations=interpretations,
                       previous=since)
    if key is not None:
        from . import pack_signature

        files[pack_signature.NAME] = pack_signature.sign(deal, files[MANIFEST], key)
    remove_stale_temporaries(parent)
    # private like everything deal-ledger writes (the pack holds every event of the deal
    # with who recorded it): copy or chmod it to share it
    write_directory(out, files, prefix=f"{TEMP_PREFIX}{os.getpid()}-", what="the pack")
    manifest = json.loads(files[MANIFEST])
    return Exported(out, tuple(files), len(records), head.seq, head.hash, manifest[_SELF])


def _verified_head(ledger: Any, on_progress: Callable[[int], None] | None = None) -> Any:
    """The ledger's head, after ``verify`` has proved the chain up to it and that each
    deal's stream (what the pack reads) is exactly its part of the chain: a pack is
    never made from a ledger that does not verify. A writer appending meanwhile moves
    the head on; the check is then made again (three times at most)."""
    from ledger.store.chain import verify

    for attempt in range(3):
        verdict = verify(ledger, on_progress=on_progress if attempt == 0 else None)
        if not verdict.ok:
            raise StoreError(f"the ledger does not verify ({verdict.line()}): an auditor "
                             "pack is made only from a ledger whose chain verifies; run "
                             "`deal-ledger verify`")
        head = ledger.head()
        if (head.seq, head.hash) == (verdict.count, verdict.head_hash):
            return head
    raise LedgerBusy("the ledger kept changing while its chain was verified for the pack; "
                     "nothing was written; try again")


TEMP_PREFIX = ".pack-"
_TEMP = re.compile(r"\.pack-(\d+)-[A-Za-z0-9_]+")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    except OSError:
        return False
    return True


STALE_SECONDS = 60


def remove_stale_temporaries(parent: str, now: float | None = None) -> list[str]:
    """Remove the half-written packs that an ``export`` killed before its rename (by
    SIGKILL or SIGTERM, which no cleanup code sees) left in ``parent``: hidden
    ``.pack-PID-XXXX`` directories whose process is gone and that nothing has written to
    for ``STALE_SECONDS`` (a directory shared with another machine or container may hold
    one whose pid means nothing here). A live pid's directory is another export still
    writing, and anything not named so is not ours: both are left alone. Returns the
    names removed."""
    import time

    now = time.time() if now is None else now
    removed = []
    try:
        names = os.listdir(parent)
    except OSError:
        return removed
    for name in names:
        found = _TEMP.fullmatch(name)
        if found is None or int(found.group(1)) == os.getpid() or _alive(int(found.group(1))):
            continue
        path = os.path.join(parent, name)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        import stat

        if stat.S_ISDIR(info.st_mode) and now - info.st_mtime >= STALE_SECONDS:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(name)
    return removed


# -------------------------------------------------------------------------- verifying


PackVerdict = FileVerdict   # ``verify_pack``'s outcome (``publishing.faults``)
_Bad = Fault


_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


def verify_pack(path: str, keys: list[Any] | None = None) -> PackVerdict:
    """Check a pack offline (see the module's docstring for what that proves); with
    ``keys`` (``ledger.notes.VerifierKey``), its signature too (``pack_signature``)."""
    if not os.path.isdir(path):
        raise UsageError(f"no pack directory at {path}", field="--pack")
    try:
        return _verify(path, keys)
    except _Bad as bad:
        return PackVerdict(False, bad.reason, bad.file)


def _read(path: str, name: str) -> bytes:
    from .faults import read

    return read(path, name, "pack")


def _verify(path: str, keys: list[Any] | None = None) -> PackVerdict:
    from . import pack_signature

    raw = _read(path, MANIFEST)
    manifest = _check_manifest(raw)
    listed = manifest["files"]
    present = sorted(os.listdir(path))
    signature = _read(path, pack_signature.NAME) if pack_signature.NAME in present else None
    signed, said = pack_signature.check(signature, manifest["deal"], raw, keys)
    if not signed:
        raise _Bad(pack_signature.NAME, said)
    for name in present:
        if name not in (MANIFEST, pack_signature.NAME) and name not in listed:
            raise _Bad(name, "is not listed in the manifest (a file was added)")
    contents: dict[str, bytes] = {}
    for name, entry in sorted(listed.items()):
        if not _NAME.match(name) or name == MANIFEST:
            raise _Bad(MANIFEST, f"lists an unsafe file name {name!r}")
        data = _read(path, name)
        if hashlib.sha256(data).hexdigest() != entry.get("sha256") or len(data) != entry.get(
                "bytes"):
            raise _Bad(name, "does not match its SHA-256 in the manifest (the file was "
                             "changed)")
        contents[name] = data
    for name in ("events.jsonl", "chain.json", "head.txt", "report.json"):
        if name not in contents:
            raise _Bad(name, "is missing from the manifest")
    with _malformed("events.jsonl"):
        records = _check_events(contents["events.jsonl"], manifest)
    with _malformed("chain.json"):
        links = _check_chain(contents["chain.json"], contents["head.txt"], records, manifest)
    with _malformed(MANIFEST):
        _check_derived(contents, records, manifest)
    head = manifest["ledger"]
    return PackVerdict(True, (
        f"pack of {manifest['deal']}: {len(contents) + 1} files match the manifest; "
        f"{len(records)} events unaltered (each hash recomputes); {links} chain link(s) "
        f"checked; ledger head seq {head['head_seq']} {head['head_hash']} (compare with "
        f"the ledger: verify --expect); report.json recomputes as of {manifest['as_of']}; "
        f"{pack_signature.NAME}: {said}"))


@contextmanager
def _malformed(name: str) -> Iterator[None]:
    """A file whose JSON has the wrong shape (a resealed forgery, say) is named too."""
    try:
        yield
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as err:
        raise _Bad(name, f"is malformed ({type(err).__name__}: {err})") from None


def _check_manifest(raw: bytes) -> dict[str, Any]:
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise _Bad(MANIFEST, "is not valid JSON (the file was changed)") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get(_SELF), str):
        raise _Bad(MANIFEST, f"has no {_SELF}")
    claimed = manifest[_SELF]
    sealed = f'"{_SELF}": "{claimed}"'.encode()
    if raw.count(sealed) != 1:
        raise _Bad(MANIFEST, f"its {_SELF} does not match its content (the file was changed)")
    zeroed = raw.replace(sealed, f'"{_SELF}": "{_ZERO}"'.encode())
    if hashlib.sha256(zeroed).hexdigest() != claimed:
        raise _Bad(MANIFEST, f"its {_SELF} does not match its content (the file was changed)")
    if manifest.get("format") != FORMAT:
        raise _Bad(MANIFEST, f"is not a {FORMAT!r} manifest")
    for key, kind in (("deal", str), ("as_of", str), ("interpretations", dict),
                      ("ledger", dict), ("files", dict), ("tool", dict)):
        if not isinstance(manifest.get(key), kind):
            raise _Bad(MANIFEST, f"has no {key!r}")
    if not all(isinstance(e, dict) for e in manifest["files"].values()):
        raise _Bad(MANIFEST, "has a file entry that is not an object")
    return manifest


def _check_events(data: bytes, manifest: Mapping[str, Any]) -> list[dict[str, Any]]:
    name = "events.jsonl"
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        raise _Bad(name, "is not UTF-8 text") from None
    records = []
    last_seq = 0
    for number, text in enumerate(lines, start=1):
        try:
            record = json.loads(text)
        except ValueError:
            raise _Bad(name, f"line {number} is not a JSON object") from None
        if not isinstance(record, dict) or not all(
                k in record for k in ("seq", "id", "deal", "prev_hash", "hash")):
            raise _Bad(name, f"line {number} is not a stored event with its store fields")
        if record_hash(record) != record["hash"]:
            raise _Bad(name, f"line {number} (seq {record['seq']}): the hash does not match "
                             "the event's content (the event was altered)")
        if record["deal"] != manifest["deal"]:
            raise _Bad(name, f"line {number} (seq {record['seq']}) is an event of "
                             f"{record['deal']!r}, not of {manifest['deal']!r}")
        if not isinstance(record["seq"], int) or record["seq"] <= last_seq:
            raise _Bad(name, f"line {number}: seq {record['seq']} is out of order")
        last_seq = record["seq"]
        records.append(record)
    if not records:
        raise _Bad(name, "holds no events")
    return records


def _check_chain(data: bytes, head_txt: bytes, records: Sequence[Mapping[str, Any]],
                 manifest: Mapping[str, Any]) -> int:
    name = "chain.json"
    try:
        chain = json.loads(data.decode("utf-8"))
        head, entries = chain["head"], chain["events"]
        head_seq, head_hash = head["seq"], head["hash"]
    except (UnicodeDecodeError, ValueError, KeyError, TypeError):
        raise _Bad(name, "is not a chain document with a head and events") from None
    if chain.get("genesis") != GENESIS:
        raise _Bad(name, "names another genesis hash")
    if len(entries) != len(records):
        raise _Bad(name, f"lists {len(entries)} events and events.jsonl holds {len(records)}")
    for entry, r in zip(entries, records):
        if entry != _link(r):
            raise _Bad(name, f"does not match events.jsonl at seq {r['seq']}")
    links = 0
    for before, after in zip([None, *records], records):
        if after["seq"] == 1:
            if after["prev_hash"] != GENESIS:
                raise _Bad("events.jsonl", "seq 1 does not start from the genesis hash")
            links += 1
        elif before is not None and after["seq"] == before["seq"] + 1:
            if after["prev_hash"] != before["hash"]:
                raise _Bad("events.jsonl", f"seq {after['seq']}: prev_hash is not the hash "
                                           f"of seq {before['seq']} (the chain is broken)")
            links += 1
        if "deal_prev" in after:
            # the deal's own chain: a gap here is an event of the deal that the pack
            # (the deal's stream) does not hold
            want = GENESIS if before is None else before["hash"]
            if after["deal_prev"] != want:
                raise _Bad("events.jsonl", f"seq {after['seq']}: deal_prev is not the hash "
                                           "of the deal's event before it in the pack (an "
                                           "event of the deal is missing)")
            links += 1
    last = records[-1]
    if not isinstance(head_seq, int) or head_seq < last["seq"]:
        raise _Bad(name, f"the head seq {head_seq} is before the last event "
                         f"(seq {last['seq']})")
    if head_seq == last["seq"] and head_hash != last["hash"]:
        raise _Bad(name, f"the head is seq {head_seq} but its hash is not that event's hash")
    ledger = manifest["ledger"]
    if (ledger.get("head_seq"), ledger.get("head_hash")) != (head_seq, head_hash):
        raise _Bad(name, "its head is not the head named in the manifest")
    if head_txt.decode("ascii", "replace").strip() != head_hash:
        raise _Bad("head.txt", "is not the head hash of chain.json")
    return links


def _check_derived(contents: Mapping[str, bytes], records: Sequence[Mapping[str, Any]],
                   manifest: Mapping[str, Any]) -> None:
    """Recompute the report and every derived file from the pack's events and the
    manifest's arguments. A pack that names another tool version is checked all the same
    (the version is a field of the manifest, which anyone can re-seal: skipping its CSV
    and HTML for it let an edited pack verify); where a file differs, the message says
    which version made the pack."""
    from ledger.events import parse_timestamp

    try:
        as_of = date.fromisoformat(manifest["as_of"])
        known_at = parse_timestamp(manifest["known_at"]) if manifest.get("known_at") else None
    except (TypeError, ValueError):
        raise _Bad(MANIFEST, "has an as_of or known_at that is not a date or time") from None
    chain = json.loads(contents["chain.json"])
    previous = None
    if RESTATEMENTS in contents:
        from projections.restatement import check_previous

        previous = check_previous(contents[RESTATEMENTS], chain["head"])
        if isinstance(previous, str):
            raise _Bad(RESTATEMENTS, previous)
    try:
        rebuilt = build_pack(records, chain["head"], as_of=as_of, known_at=known_at,
                             interpretations=manifest["interpretations"],
                             version=manifest["tool"].get("version"), previous=previous)
    except (LedgerError, ValueError, KeyError, TypeError) as err:
        raise _Bad("events.jsonl", f"the report cannot be recomputed from these events: "
                                   f"{err}") from None
    try:
        held = json.loads(contents["report.json"])
    except ValueError:
        raise _Bad("report.json", "is not valid JSON") from None
    fresh = json.loads(rebuilt["report.json"])
    if held != fresh:
        raise _Bad("report.json", "differs from the report recomputed from events.jsonl at "
                                  f"{_first_difference(held, fresh)}")
    made_by = manifest["tool"].get("version")
    other = ("" if made_by == tool_version() else
             f" (the pack names deal-ledger {made_by}, this is {tool_version()}: if that "
             "version made it, verify it with that version)")
    for name, data in rebuilt.items():
        if name in (MANIFEST, "report.json"):
            continue
        kept = contents.get(name)
        if name.endswith(".csv") and kept is not None:
            # packs written before the CSVs carried a byte order mark still verify (their
            # bytes are covered by the manifest's SHA-256 all the same)
            kept, data = kept.removeprefix(BOM), data.removeprefix(BOM)
        if kept != data:
            raise _Bad(name, "differs from the file recomputed from events.jsonl" + other)
    if set(rebuilt) - {MANIFEST} != set(contents):
        extra = sorted(set(contents) - set(rebuilt)) or sorted(set(rebuilt) - set(contents))
        raise _Bad(extra[0], "is not a file this pack should hold, or is missing")


def _first_difference(a: Any, b: Any, path: str = "$") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                return f"{path}.{key}"
            if a[key] != b[key]:
                return _first_difference(a[key], b[key], f"{path}.{key}")
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
        if len(a) != len(b):
            return f"{path} (length {len(a)} vs {len(b)})"
    return path

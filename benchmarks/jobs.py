"""What runs inside one child process: preparing a ledger, or measuring a case.

Each job takes a dict of parameters and returns a list of result rows::

    {"id", "seconds", "events", "anchor": {"name", "seconds", "events"} | None,
     "status": "ok" | "n/a" | "error", "message", "peak_kib"?}

Memory is per case, never per suite: a command-line case gives ``peak_kib``, the largest
peak RSS of the ``deal-ledger`` processes it measured (each one's own, from
``os.wait4``); for an in-process case the parent adds this child process's own peak
RSS (``ru_maxrss``) after the job returns.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
import uuid
from datetime import date
from typing import Any, Callable

from . import data
from .probe import probe, runs_note

Row = dict[str, Any]
AS_OF = "2024-06-30"


# ------------------------------------------------------------------ helpers


def cli_command() -> list[str]:
    """The installed ``deal-ledger`` console script (what an operator runs), else the
    same entry point through this interpreter."""
    script = os.path.join(os.path.dirname(sys.executable), "deal-ledger")
    if os.path.exists(script):
        return [script]
    return [sys.executable, "-c", "import sys; from cli.main import main; "
            "sys.argv[0] = 'deal-ledger'; main()"]


class Done:
    """A finished ``deal-ledger`` process: exit code, output, and its own peak RSS."""

    def __init__(self, returncode: int, stdout: str, stderr: str, peak_kib: int,
                 cpu: float = 0.0, probe: float = 0.0):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr
        self.peak_kib = peak_kib
        self.cpu = cpu     # user + system CPU seconds, its waited-for workers included
        self.probe = probe  # ``benchmarks.probe.probe()`` just before it ran, seconds


def run_cli(args: list[str], *, check: bool = True) -> tuple[float, Done]:
    """Run ``deal-ledger ARGS``: its wall time, and (``os.wait4``) the peak RSS of that
    one process, not of every child this job ran; the machine probed just before."""
    import tempfile

    speed = probe()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cli_command() + args, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        spent = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        done = Done(proc.returncode, out.read().decode("utf-8", "replace"),
                    err.read().decode("utf-8", "replace"), usage.ru_maxrss,
                    usage.ru_utime + usage.ru_stime, speed)
    if check and done.returncode != 0:
        raise RuntimeError(f"deal-ledger {' '.join(args[:2])} exited {done.returncode}: "
                           f"{(done.stderr or done.stdout).strip()[:300]}")
    return spent, done


def command_exists(name: str) -> bool:
    """Whether ``deal-ledger NAME`` is a command yet (``--help`` exits 0)."""
    done = subprocess.run(cli_command() + [name, "--help"], capture_output=True, text=True)
    return done.returncode == 0


def not_built(row_id: str, what: str) -> Row:
    return {"id": row_id, "status": "n/a", "message": f"n/a (not built yet: {what})"}


def is_pg(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


def remove_sqlite(path: str) -> None:
    for suffix in ("", "-wal", "-shm", ".lock"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)


def checkpoint(path: str) -> None:
    """Fold the WAL into the file, so that a copy of the file alone is the ledger."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def store_records(objs: list[data.Obj]) -> dict[str, list[dict[str, Any]]]:
    """The generated events with store-like fields (ids, seq, hashes), per deal: the
    payload the ledger stores, for the raw-library anchors."""
    by_deal: dict[str, list[dict[str, Any]]] = {}
    for seq, obj in enumerate(objs, start=1):
        record = {**obj, "id": str(uuid.uuid4()), "seq": seq,
                  "recorded_at": "2026-01-01T00:00:00.000000Z", "recorded_by": "bench",
                  "prev_hash": "0" * 64, "hash": uuid.uuid4().hex * 2}
        by_deal.setdefault(obj["deal"], []).append(record)
    return by_deal


def append_objs(url: str, objs: list[data.Obj], batch: int) -> None:
    """Bulk-append through the Ledger API, ``batch`` events per ``append`` call."""
    from ledger.store import Ledger

    with Ledger(url) as ledger:
        for start in range(0, len(objs), batch):
            ledger.append(list(data.new_events(objs[start:start + batch])), user="bench")


# ----------------------------------------------------------------- preparing


def prepare_deals(p: dict[str, Any]) -> list[Row]:
    """One ledger holding the deals the record and report cases use: ``small`` (10
    events), ``big`` (``big`` events) and ``holders`` (1 Note per Holder, 20-year default)."""
    url = p["url"]
    if not is_pg(url):
        remove_sqlite(url)
    objs = (data.deal_events("small", p["small"])
            + data.many_holders_default("holders", p["holders"])
            + data.deal_events("big", p["big"]))
    start = time.perf_counter()
    append_objs(url, objs, 20_000)
    if not is_pg(url):
        checkpoint(url)
    return [{"id": "prepare-deals", "seconds": time.perf_counter() - start,
             "events": len(objs)}]


def prepare_log(p: dict[str, Any]) -> list[Row]:
    """The many-deal ledger for the views cases: ``deals`` deals of ``per_deal`` events,
    appended ``batch_deals`` deals at a time (each batch one ``append``)."""
    url = p["url"]
    if not is_pg(url):
        remove_sqlite(url)
    start, total = time.perf_counter(), 0
    for first in range(0, p["deals"], p["batch_deals"]):
        count = min(p["batch_deals"], p["deals"] - first)
        objs = data.interleaved(count, p["per_deal"], first=first)
        append_objs(url, objs, len(objs))
        total += len(objs)
        print(f"  generated {total:,} events", file=sys.stderr, flush=True)
    if not is_pg(url):
        checkpoint(url)
    return [{"id": "prepare-log", "seconds": time.perf_counter() - start, "events": total}]


# ------------------------------------------------------------ the anchors


def anchor_sqlite_insert(p: dict[str, Any]) -> list[Row]:
    from . import anchors

    objs = data.interleaved(p["deals"], p["per_deal"])
    rows = [json.dumps(r, ensure_ascii=False)
            for rs in store_records(objs).values() for r in rs]
    seconds = anchors.sqlite_insert(p["path"], rows)
    remove_sqlite(p["path"])
    return [{"id": "sqlite-insert", "seconds": seconds, "events": len(rows)}]


def anchor_es_save(p: dict[str, Any]) -> list[Row]:
    from . import anchors

    objs = data.interleaved(p["deals"], p["per_deal"])
    by_deal = store_records(objs)
    seconds = anchors.es_batch_save(p["url"], by_deal)
    if not is_pg(p["url"]):
        remove_sqlite(p["url"])
    return [{"id": "es-save", "seconds": seconds, "events": len(objs)}]


def anchor_es_read(p: dict[str, Any]) -> list[Row]:
    from . import anchors

    cpu = time.process_time()
    seconds, count = anchors.es_read_decode(p["url"], "Ledger")
    cpu = time.process_time() - cpu
    return [{"id": "es-read", "seconds": seconds, "events": count,
             "message": f"CPU {cpu:.2f} s (opening the store included)"}]


def anchor_sqlite_select(p: dict[str, Any]) -> list[Row]:
    from . import anchors

    seconds, count = anchors.sqlite_select(p["url"], "stored_events")
    return [{"id": "sqlite-select", "seconds": seconds, "events": count}]


# ------------------------------------------------------------------ the cases


def case_append(p: dict[str, Any]) -> list[Row]:
    """What ``deal-ledger append FILE`` does after reading the file: parse and check the
    JSONL batch and append it in one atomic call (``Ledger.append_lines``, which a batch
    this large takes in one pass on two processes, ``ledger.store.bulk``); with the log's
    Merkle tree kept (the default) or, ``tree`` false, not (``Ledger.keeps_tree``)."""
    from ledger.store import Ledger

    raw = data.jsonl(data.interleaved(p["deals"], p["per_deal"]))
    url = p["url"]
    if not is_pg(url):
        remove_sqlite(url)
    start = time.perf_counter()
    with Ledger(url) as ledger:
        ledger.keeps_tree = p.get("tree", True)
        result = ledger.append_lines(raw, user="bench")
    end = time.perf_counter()
    if not is_pg(url):
        remove_sqlite(url)
    one_pass = type(result.records).__name__ == "Records"
    return [{"id": p.get("row", "append"), "seconds": end - start, "events": result.count,
             "message": "in one pass on two processes" if one_pass else "parsed, then appended"}]


def case_record(p: dict[str, Any]) -> list[Row]:
    """``deal-ledger record`` in a subprocess, on the 10-event and on the big deal,
    alternately, several times each: the median wall time of each."""
    url = p["url"]
    times: dict[str, list[float]] = {"small": [], "big": []}
    peaks = {"small": 0, "big": 0}
    for rep in range(p["reps"]):
        for deal in ("small", "big"):
            spent, done = run_cli(["record", "NoticeSent", "--deal", deal, "--date", AS_OF,
                                   "--db", url, "--user", "bench", "to=The Trustee",
                                   f"subject=benchmark notice {rep}", "method=hand"])
            times[deal].append(spent)
            peaks[deal] = max(peaks[deal], done.peak_kib)
    small, big = statistics.median(times["small"]), statistics.median(times["big"])
    spread = lambda xs: f"min {min(xs) * 1000:.0f} ms, max {max(xs) * 1000:.0f} ms"  # noqa: E731
    return [
        {"id": "record-small", "seconds": small, "events": 1, "peak_kib": peaks["small"],
         "message": f"median of {p['reps']} ({spread(times['small'])})"},
        {"id": "record-big", "seconds": big, "events": 1, "peak_kib": peaks["big"],
         "anchor": {"name": "record on the 10-event deal", "seconds": small, "events": 1},
         "message": f"median of {p['reps']} ({spread(times['big'])})"},
    ]


def _warm_report(url: str, deal: str, reps: int) -> tuple[float, float, int]:
    """Cold and warm (median of ``reps``) in-process time of reading the deal and
    computing its report, as ``deal-ledger report`` does, in one open ledger."""
    from publishing import reading
    from ledger.store import Ledger

    as_of = date.fromisoformat(AS_OF)
    with Ledger(url, create=False) as ledger:
        start = time.perf_counter()
        events = reading.deal_events(ledger, deal)
        reading.deal_report(events, as_of=as_of)
        cold = time.perf_counter() - start
        warm = []
        for _ in range(reps):
            start = time.perf_counter()
            events = reading.deal_events(ledger, deal)
            reading.deal_report(events, as_of=as_of)
            warm.append(time.perf_counter() - start)
    return cold, statistics.median(warm), len(events)


def _stream_anchor(url: str, deal: str) -> dict[str, Any]:
    """The library's own read-and-decode of the deal's aggregate (every event)."""
    from . import anchors
    from ledger.store.canonical import deal_id

    app = anchors.app_for(url, "Ledger")
    try:
        runs = [anchors.es_read_stream(app, deal_id(deal)) for _ in range(3)]
    finally:
        app.close()
    seconds = statistics.median(r[0] for r in runs)
    return {"name": "es select_events + decode of the deal", "seconds": seconds,
            "events": runs[0][1]}


def case_report(p: dict[str, Any]) -> list[Row]:
    cold, warm, n = _warm_report(p["url"], p["deal"], p["reps"])
    return [{"id": p["row"], "seconds": warm, "events": n,
             "anchor": _stream_anchor(p["url"], p["deal"]),
             "message": f"warm median of {p['reps']}; cold {cold * 1000:.0f} ms"}]


COLD_ANCHOR = """
import sys, uuid
from benchmarks import anchors
app = anchors.app_for(sys.argv[1], "Ledger")
anchors.es_read_stream(app, uuid.UUID(sys.argv[2]))
app.close()
"""


def case_report_cold(p: dict[str, Any]) -> list[Row]:
    """``deal-ledger report DEAL --json`` in a fresh process each time (imports, store
    read, projection, output), median of ``reps``, after one run that leaves the
    bytecode caches written (as any installed deal-ledger has them) and the deal's
    cache file (``ledger.store.dealcache``: the timed runs read the deal through it, after
    checking the stream's last version and hash in the store); anchor: a fresh
    process that imports the library and reads and decodes the deal's events with it."""
    from ledger.store.canonical import deal_id

    def anchor() -> tuple[float, float]:
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", COLD_ANCHOR, p["url"],
                                 str(deal_id(p["deal"]))])
        _, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError("the cold anchor failed")
        return time.perf_counter() - start, usage.ru_utime + usage.ru_stime

    args = ["report", p["deal"], "--as-of", AS_OF, "--json", "--db", p["url"]]
    run_cli(args)
    anchor()
    times, cpus, anchor_times, anchor_cpus, peak = [], [], [], [], 0
    probes = []
    for _ in range(p["reps"]):
        spent, done = run_cli(args)
        times.append(spent)
        cpus.append(done.cpu)
        probes.append(done.probe)
        peak = max(peak, done.peak_kib)
        wall, cpu = anchor()
        anchor_times.append(wall)
        anchor_cpus.append(cpu)
    ms = lambda xs: f"{statistics.median(xs) * 1000:.0f} ms"  # noqa: E731
    return [{"id": "report-cold", "seconds": statistics.median(times), "events": None,
             "peak_kib": peak,
             "anchor": {"name": "cold process: import eventsourcing, read + decode the deal",
                        "seconds": statistics.median(anchor_times), "events": None},
             "message": f"median of {p['reps']} (min {min(times) * 1000:.0f} ms, max "
                        f"{max(times) * 1000:.0f} ms); CPU (user + system) {ms(cpus)}, "
                        f"the anchor's {ms(anchor_cpus)}: on a loaded machine the wall "
                        "time is mostly waiting for a core; "
                        + runs_note(list(zip(times, probes)))}]


def case_report_holders(p: dict[str, Any]) -> list[Row]:
    """The 1,000-Holder, 20-year default: the whole report, and (what the former timed
    unit test measured) the Additional Interest amounts alone."""
    rows = case_report({**p, "row": "report-holders"})
    try:
        amounts = _amounts_only(p["url"], p["deal"], p["reps"])
    except Exception as err:  # the engine's layout moved: say so instead of failing
        rows.append({"id": "amounts-holders", "status": "error",
                     "message": f"cannot hook holder_amounts: {type(err).__name__}: {err}"})
        return rows
    rows.append({"id": "amounts-holders", "seconds": amounts, "events": rows[0]["events"],
                 "message": f"projections.registration.interest.holder_amounts only, "
                            f"median of {p['reps']}"})
    return rows


def _amounts_only(url: str, deal: str, reps: int) -> float:
    from publishing import reading
    from ledger.store import Ledger
    from projections.registration import payments as pay_module

    as_of = date.fromisoformat(AS_OF)
    with Ledger(url, create=False) as ledger:
        events = reading.deal_events(ledger, deal)
    original = pay_module.holder_amounts
    calls: list[float] = []

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            calls.append(time.perf_counter() - start)

    pay_module.holder_amounts = timed
    try:
        totals = []
        for _ in range(reps):
            calls.clear()
            reading.deal_report(events, as_of=as_of)
            totals.append(sum(calls))
    finally:
        pay_module.holder_amounts = original
    if not calls:
        raise LookupError("the report no longer calls payments.holder_amounts")
    return statistics.median(totals)


WHATIF_EVENT = {"type": "ShelfFiled", "deal": "holders", "date": "2005-01-10",
                "data": {"file_number": "333-117340"},
                "source": "what if the shelf had been filed six months late"}


def case_whatif(p: dict[str, Any]) -> list[Row]:
    """``deal-ledger whatif DEAL --add FILE --as-of D --json`` (the shelf filed late,
    curing default (i) in the scenario) against ``deal-ledger report`` of the same deal,
    alternately, in subprocesses: the median of each."""
    if not command_exists("whatif"):
        return [not_built("whatif", "deal-ledger whatif")]
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
        fh.write(json.dumps({**WHATIF_EVENT, "deal": p["deal"]}) + "\n")
        scenario = fh.name
    base = ["--as-of", AS_OF, "--json", "--db", p["url"]]
    whatif, report, peak = [], [], 0
    try:
        for _ in range(p["reps"]):
            spent, done = run_cli(["whatif", p["deal"], "--add", scenario, *base], check=False)
            if done.returncode != 0:
                first = (done.stderr or done.stdout).strip().splitlines()[:1]
                return [{"id": "whatif", "status": "error",
                         "message": f"exit {done.returncode}: {first[0] if first else ''}"[:200]}]
            whatif.append(spent)
            peak = max(peak, done.peak_kib)
            report.append(run_cli(["report", p["deal"], *base])[0])
    finally:
        os.remove(scenario)
    return [{"id": "whatif", "seconds": statistics.median(whatif), "events": None,
             "peak_kib": peak,
             "anchor": {"name": "deal-ledger report, same deal", "events": None,
                        "seconds": statistics.median(report)},
             "message": f"whatif --add (ShelfFiled 2005-01-10) vs report, both commands, "
                        f"median of {p['reps']}"}]


def case_ledger_read(p: dict[str, Any]) -> list[Row]:
    """The ledger's own streamed read of the whole log (``Ledger.records``): the floor
    under any rebuild of the views."""
    from ledger.store import Ledger

    with Ledger(p["url"], create=False) as ledger:
        start = time.perf_counter()
        count = sum(1 for _ in ledger.records())
        seconds = time.perf_counter() - start
    return [{"id": "ledger-read", "seconds": seconds, "events": count}]


def case_views(p: dict[str, Any]) -> list[Row]:
    """``deal-ledger views --rebuild`` over the whole log; then ``deal-ledger views``,
    incremental, after ``new`` more events over ``new_deals`` deals, and again after
    ``new`` more over every deal."""
    if not command_exists("views"):
        return [not_built(i, "deal-ledger views")
                for i in ("views-rebuild", "views-incremental", "views-incremental-wide")]
    url, out = p["url"], p["out"]
    remove_sqlite(out)
    views = ["views", "--db", url, "--out", out, "--as-of", AS_OF]
    rebuild, done = run_cli([*views, "--rebuild"], check=False)
    if done.returncode != 0:
        msg = (done.stderr or done.stdout).strip().splitlines()[:1]
        return [{"id": "views-rebuild", "status": "error",
                 "message": f"exit {done.returncode}: {msg[0] if msg else ''}"[:200]}]
    # CPU seconds beside wall time: on a machine shared with other work, wall time
    # measures the others too; the CPU the command (and its worker pool) spent does not
    rows: list[Row] = [{"id": "views-rebuild", "seconds": rebuild, "events": p["events"],
                        "peak_kib": done.peak_kib,
                        "message": f"CPU {done.cpu:.2f} s (workers included)"}]
    for row_id, deals in (("views-incremental", p["new_deals"]),
                          ("views-incremental-wide", p["deals"])):
        rows.append(_views_after(url, views, row_id, deals, p["new"], p.get("reps", 1)))
    return rows


def _views_after(url: str, views: list[str], row_id: str, deals: int, new: int,
                 reps: int = 1) -> Row:
    """``reps`` times: append ``new`` events over ``deals`` deals, then time ``deal-ledger
    views``; the median run (one run of a few seconds measured the machine's mood of
    that moment as much as the command: run to run it moved by a third)."""
    from . import anchors
    from ledger.store import Ledger

    runs, anchor_s, fresh = [], None, []
    for _ in range(reps):
        with Ledger(url, create=False) as ledger:
            before = ledger.max_position()
        # appended by another process: this one would grow by the 1,000 deals it loads to
        # append to them (1.1 GB), and a command spawned from it reports that as its own
        # peak RSS (Linux keeps the spawning image's high-water mark across exec)
        subprocess.run([sys.executable, "-m", "benchmarks.child", "append-late",
                        json.dumps({"url": url, "deals": deals, "new": new})],
                       check=True, stdout=subprocess.DEVNULL)
        if anchor_s is None:
            app = anchors.app_for(url, "Ledger")
            try:
                start = time.perf_counter()
                fresh = app.recorder.select_notifications(start=before, limit=new * 2,
                                                          inclusive_of_start=False)
                for n in fresh:
                    app.mapper.to_domain_event(n)
                anchor_s = time.perf_counter() - start
            finally:
                app.close()
        spent, done = run_cli(views, check=False)
        if done.returncode != 0:
            msg = (done.stderr or done.stdout).strip().splitlines()[:1]
            return {"id": row_id, "status": "error",
                    "message": f"exit {done.returncode}: {msg[0] if msg else ''}"[:200]}
        runs.append((spent, done))
    spent = statistics.median(t for t, _ in runs)
    cpu = statistics.median(d.cpu for _, d in runs)
    spread = (f"median of {reps}, each after {new:,} more (min {min(t for t, _ in runs):.2f} s, "
              f"max {max(t for t, _ in runs):.2f} s); " if reps > 1 else "")
    return {"id": row_id, "seconds": spent, "events": new,
            "peak_kib": max(d.peak_kib for _, d in runs),
            "anchor": {"name": "es read-and-decode of the new notifications",
                       "seconds": anchor_s, "events": len(fresh)},
            "message": f"{new:,} new events dated {data.LAST_DAY} (<= --as-of) over "
                       f"{deals:,} deals: each touched deal's report is recomputed; "
                       f"{spread}CPU {cpu:.2f} s (workers included); "
                       + runs_note([(t, d.probe) for t, d in runs])}


HEAVY = ("eventsourcing", "pydantic", "pydantic_core", "holidays")


def case_help(p: dict[str, Any]) -> list[Row]:
    """``deal-ledger --help``: which heavy libraries it imports (``-X importtime``), and
    its wall time against ``python -c 'import click'``."""
    cmd = cli_command()
    script = cmd[1:] if cmd[0] == sys.executable else cmd   # run it under -X importtime
    traced = subprocess.run([sys.executable, "-X", "importtime", *script, "--help"],
                            capture_output=True, text=True)
    found = set()
    for line in traced.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            top = line.rsplit("|", 1)[1].strip().split(".")[0]
            if top in HEAVY:
                found.add(top)
    helps, clicks, peak = [], [], 0
    for _ in range(p["reps"]):
        spent, done = run_cli(["--help"])
        helps.append(spent)
        peak = max(peak, done.peak_kib)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import click"], check=True)
        clicks.append(time.perf_counter() - start)
    return [{"id": "help", "seconds": statistics.median(helps), "events": None,
             "peak_kib": peak, "imports": sorted(found),
             "anchor": {"name": "python -c 'import click'", "events": None,
                        "seconds": statistics.median(clicks)},
             "message": ("imports " + ", ".join(sorted(found))) if found
             else "imports none of eventsourcing, pydantic, holidays"}]


def prepare_agenda(p: dict[str, Any]) -> list[Row]:
    """``deals`` deals, each a copy of one of the demo's two histories under its own name
    (half Registration Rights, half Letter), as ``python -m benchmarks.agenda`` builds."""
    from .agenda import build_ledger

    remove_sqlite(p["url"])
    start = time.perf_counter()
    build_ledger(p["url"], p["deals"])
    checkpoint(p["url"])
    return [{"id": "prepare-agenda", "seconds": time.perf_counter() - start, "events": None}]


AGENDA_DAY, AGENDA_NEXT = "2005-10-01", "2005-10-02"


def case_agenda(p: dict[str, Any]) -> list[Row]:
    """``deal-ledger agenda`` over every deal, in a cold process (median of ``reps``):
    computed from the store; then with ``--cache``, a daily run (the next day, nothing
    recorded since), each from a copy of the cache the first day's run left."""
    url, cache = p["url"], p["cache"]
    base = ["agenda", "--db", url, "--days", "90", "--json"]
    runs = [run_cli([*base, "--as-of", AGENDA_DAY], check=False) for _ in range(p["reps"])]
    for _, done in runs:
        if done.returncode not in (0, 1):   # 1: something is overdue
            return [{"id": "agenda", "status": "error",
                     "message": f"exit {done.returncode}: {done.stderr.strip()[:200]}"}]
    spent = statistics.median(t for t, _ in runs)
    cpu = statistics.median(d.cpu for _, d in runs)
    deals = len(json.loads(runs[-1][1].stdout)["deals"])
    rows: list[Row] = [{"id": "agenda", "seconds": spent, "events": None,
                        "peak_kib": max(d.peak_kib for _, d in runs),
                        "message": f"{deals:,} deals; CPU {cpu:.2f} s (workers included); "
                                   + runs_note([(t, d.probe) for t, d in runs])}]
    run_cli([*base, "--as-of", AGENDA_DAY, "--cache", cache], check=False)
    daily = []
    for _ in range(p["reps"]):
        for suffix in ("", ".records"):
            if os.path.exists(cache + suffix):
                shutil.copyfile(cache + suffix, cache + ".day" + suffix)
        daily.append(run_cli([*base, "--as-of", AGENDA_NEXT, "--cache", cache + ".day"],
                             check=False))
    plain = run_cli([*base, "--as-of", AGENDA_NEXT], check=False)[1].stdout
    same = daily[-1][1].stdout == plain
    rows.append({"id": "agenda-daily", "seconds": statistics.median(t for t, _ in daily),
                 "events": None, "peak_kib": max(d.peak_kib for _, d in daily),
                 "status": "ok" if same else "error",
                 "message": ("the next day, nothing recorded since; CPU "
                             f"{statistics.median(d.cpu for _, d in daily):.2f} s; "
                             + runs_note([(t, d.probe) for t, d in daily]))
                 if same else "the cached agenda differs from the one computed afresh"})
    return rows


def append_late(p: dict[str, Any]) -> list[Row]:
    """``new`` late events over ``deals`` deals appended to the ledger (``late_events``)."""
    append_objs(p["url"], data.late_events(p["deals"], p["new"]), p["new"])
    return [{"id": "append-late", "seconds": 0.0, "events": p["new"]}]


def _proof_jobs() -> dict[str, Callable[[dict[str, Any]], list[Row]]]:
    from .proofs import JOBS as found

    return found


JOBS: dict[str, Callable[[dict[str, Any]], list[Row]]] = {
    **_proof_jobs(),
    "append-late": append_late,
    "prepare-agenda": prepare_agenda,
    "agenda": case_agenda,
    "prepare-deals": prepare_deals,
    "prepare-log": prepare_log,
    "sqlite-insert": anchor_sqlite_insert,
    "es-save": anchor_es_save,
    "es-read": anchor_es_read,
    "sqlite-select": anchor_sqlite_select,
    "append": case_append,
    "append-untreed": case_append,   # with {"tree": False, "row": "append-untreed"}
    "record": case_record,
    "report": case_report,
    "report-holders": case_report_holders,
    "report-cold": case_report_cold,
    "whatif": case_whatif,
    "ledger-read": case_ledger_read,
    "views": case_views,
    "help": case_help,
}

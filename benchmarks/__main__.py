"""``python -m benchmarks [--quick] [--postgres URL]``: the ledger against the raw
libraries, measured in the same run, printed as one table of ratios.

The cases (full sizes; ``--quick`` shrinks them so CI can check the suite still runs):

* append: a 100,000-event JSONL batch over 100 new deals, parsed and appended in one
  ``Ledger.append_lines`` (what ``deal-ledger append FILE`` calls), three times in turn
  with its anchor (the median of each); anchor: the library saving the same records as 100 aggregates in one
  ``Application.save`` (and, under it, plain sqlite3 ``executemany``); and the same batch
  appended with the log's Merkle tree not kept, in turn with them: the tree's cost;
* record: ``deal-ledger record`` (a subprocess) on a 10-event and a 10,000-event deal,
  alternately, median of 7 each; the 10-event one is the anchor;
* report: the SPEC §7 report in process, warm, of a 10,000-event deal and of a deal with
  1,000 Holders in a 20-year default (and the Additional Interest amounts alone, which a
  timed unit test used to measure); anchor: the library's read of the deal's events;
  and ``deal-ledger report`` of the 10,000-event deal in a fresh process (cold), against
  a fresh process that imports the library and reads the deal with it;
* whatif: ``deal-ledger whatif --add`` against ``deal-ledger report`` of the same deal;
* views: ``deal-ledger views --rebuild`` over 1,000,000 events in 1,000 deals (100,000
  in 100 on PostgreSQL), then incremental runs after 1,000 more events over 10 deals and
  over every deal; anchor: the library's read-and-decode of the notification log (and,
  under it, plain sqlite3 SELECT with ``json.loads``);
* verify: ``deal-ledger verify`` of the views' ledger (1,000,000 events), its CPU against
  a fresh process walking the same chain in plain Python (``anchors.plain_walk``), and
  ``deal-ledger verify --since`` a checkpoint after 1,000 more events
  (``benchmarks.proofs``);
* ``deal-ledger --help``: which heavy libraries it imports (``-X importtime``).

Every case and every anchor runs in its own child process (``benchmarks.child``), so
that its peak memory is its own. Generated ledgers are cached under ``--cache`` (keyed
by size and by the source of the generator and the store), and copied before a case
writes to them. On PostgreSQL each run creates its own databases on the server named
by ``--postgres`` and drops them at the end.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .child import MARKER
from .probe import note as probe_note, probe

ROOT = Path(__file__).resolve().parent.parent
GIB_KIB = 1024 * 1024

SIZES: dict[str, dict[str, int]] = {
    "full": {"append_deals": 100, "append_per": 1000, "append_reps": 3, "small": 10,
             "big": 10_000,
             "holders": 1000, "record_reps": 7, "report_reps": 7, "whatif_reps": 5,
             "log_deals": 1000, "log_per": 1000, "log_batch_deals": 100,
             "pg_log_deals": 100, "pg_read_reps": 3, "new": 1000, "new_deals": 10,
             "help_reps": 5, "views_reps": 3, "verify_reps": 3,
             "agenda_deals": 1000, "agenda_reps": 5},
    "quick": {"append_deals": 20, "append_per": 100, "append_reps": 1, "small": 10,
              "big": 500,
              "holders": 100, "record_reps": 3, "report_reps": 3, "whatif_reps": 2,
              "log_deals": 20, "log_per": 100, "log_batch_deals": 20,
              "pg_log_deals": 20, "pg_read_reps": 1, "new": 100, "new_deals": 2,
              "help_reps": 2, "views_reps": 1, "verify_reps": 1,
              "agenda_deals": 40, "agenda_reps": 2},
}


@dataclass(frozen=True)
class Target:
    op: str                    # ">=" or "<="
    value: float
    text: str
    absolute: bool = False     # compare seconds, not the ratio
    backends: tuple[str, ...] = ("sqlite",)


@dataclass(frozen=True)
class Spec:
    label: str
    kind: str                  # "rate": ratio of events/s; "time": ratio of seconds
    anchor: str | None = None  # id of the row measured as this row's anchor
    target: Target | None = None


SPECS: dict[str, Spec] = {
    "help": Spec("deal-ledger --help (command)", "time"),
    "sqlite-insert": Spec("anchor: sqlite3 executemany, 1 transaction", "rate"),
    "es-save": Spec("anchor: eventsourcing batch save, 1 save()", "rate", "sqlite-insert"),
    "append": Spec("append JSONL batch (Ledger.append_lines)", "rate", "es-save",
                   Target(">=", 1.0, ">= 1.0x es save", backends=("sqlite", "postgres"))),
    "append-untreed": Spec("  the same, the Merkle tree not kept", "rate"),
    "append-tree-cost": Spec("  appending with the tree kept / without", "time", None,
                             Target("<=", 1.1, "<= 1.1x", backends=("sqlite", "postgres"))),
    "record-small": Spec("record 1 event, 10-event deal (command)", "time"),
    "record-big": Spec("record 1 event, big deal (command)", "time", None,
                       Target("<=", 1.5, "<= 1.5x record on 10")),
    "report-big": Spec("report, big deal (in process, warm)", "time", None,
                       Target("<=", 0.100, "<= 100 ms", absolute=True)),
    "report-cold": Spec("report, big deal (command, cold process)", "time", None,
                        Target("<=", 0.300, "<= 0.3 s", absolute=True)),
    "report-holders": Spec("report, Holders x 20-year default (warm)", "time", None,
                           Target("<=", 0.5, "<= 0.5 s", absolute=True)),
    "amounts-holders": Spec("  of which Additional Interest amounts", "time", None,
                            Target("<=", 0.5, "<= 0.5 s", absolute=True)),
    "whatif": Spec("whatif, Holders deal (command)", "time", None,
                   Target("<=", 2.0, "<= 2x its report")),
    "sqlite-select": Spec("anchor: sqlite3 SELECT + json.loads", "rate"),
    "es-read": Spec("anchor: eventsourcing read-and-decode log", "rate", "sqlite-select"),
    "ledger-read": Spec("ledger read of the whole log (records())", "rate", "es-read"),
    "views-rebuild": Spec("views --rebuild (command)", "rate", "es-read",
                          Target(">=", 0.50, ">= 0.50x es read; <= 1 GiB")),
    "views-incremental": Spec("views after new events (command)", "time", None,
                              Target("<=", 2.0, "<= 2 s", absolute=True)),
    "views-incremental-wide": Spec("views after new events, every deal (command)", "time",
                                   None, Target("<=", 5.0, "<= 5 s", absolute=True)),
    "verify": Spec("verify, whole chain (command, CPU)", "time", None,
                   Target("<=", 1.5, "<= 1.5x CPU; <= 100 MiB",
                          backends=("sqlite", "postgres"))),
    "verify-since": Spec("verify --since, +1,000 events (command)", "time", None,
                         Target("<=", 1.0, "<= 1 s", absolute=True,
                                backends=("sqlite", "postgres"))),
    "agenda": Spec("agenda, every deal (command, from the store)", "time", None,
                   Target("<=", 1.0, "<= 1 s", absolute=True)),
    "agenda-daily": Spec("agenda --cache, the next day (command)", "time", None,
                         Target("<=", 1.0, "<= 1 s", absolute=True)),
}


# ---------------------------------------------------------------- running jobs


class Runner:
    """Runs jobs in child processes and keeps their rows."""

    def __init__(self, args: argparse.Namespace, work: Path):
        self.args, self.work = args, work
        self.size = SIZES["quick" if args.quick else "full"]
        self.groups = {g.strip() for g in args.only.split(",") if g.strip()}
        self.rows: list[dict[str, Any]] = []
        self.timeout = 120 if args.quick else 1800
        self.probes: list[float] = []   # every probe's seconds, in run order

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(
            os.pathsep)
        env.setdefault("LEDGER_USER", "bench")
        # measure deal-ledger as installed: with its bytecode caches (a shell that sets
        # PYTHONDONTWRITEBYTECODE would make every command compile its modules again)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        return env

    def job(self, backend: str, job: str, params: dict[str, Any], ids: list[str],
            sizes: dict[str, str], *, record: bool = True) -> list[dict[str, Any]]:
        print(f"[{backend}] {job} {json.dumps({k: v for k, v in params.items() if k not in ('url', 'path', 'out')})}",
              file=sys.stderr, flush=True)
        cmd = [sys.executable, "-m", "benchmarks.child", job, json.dumps(params)]
        before = probe()   # the machine's speed around the case (``benchmarks.probe``)
        start = time.perf_counter()
        try:
            done = subprocess.run(cmd, cwd=ROOT, env=self.env(), stdout=subprocess.PIPE,
                                  text=True, timeout=self.timeout)
            line = next((x for x in reversed(done.stdout.splitlines()) if x.startswith(MARKER)),
                        None)
            if line is None:
                raise RuntimeError(f"the child exited {done.returncode} without a result")
            out = json.loads(line[len(MARKER):])
        except subprocess.TimeoutExpired:
            out = {"rows": [{"id": i, "status": "error",
                             "message": f"timed out after {self.timeout} s"} for i in ids],
                   "peak_self_kib": None}
        except Exception as err:
            out = {"rows": [{"id": i, "status": "error", "message": str(err)} for i in ids],
                   "peak_self_kib": None}
        print(f"[{backend}] {job}: {time.perf_counter() - start:.1f} s", file=sys.stderr,
              flush=True)
        after = probe()
        self.probes += [before, after]
        rows = []
        for r in out["rows"]:
            r.setdefault("status", "ok")
            r["probe"] = [before, after]
            r["backend"] = backend
            r["size"] = sizes.get(r["id"], "")
            if r["status"] != "ok":
                r["peak_kib"] = None
            elif not r.get("peak_kib"):
                r["peak_kib"] = out["peak_self_kib"]
            rows.append(r)
        if record:
            self.rows.extend(rows)
        return rows

    def failed(self, backend: str, ids: list[str], message: str) -> None:
        wanted = {i for i in ids if i in SPECS and (backend == "sqlite" or i != "sqlite-select")}
        for i in sorted(wanted, key=list(SPECS).index):
            self.rows.append({"id": i, "backend": backend, "size": "", "status": "error",
                              "message": message, "peak_kib": None})


class PrepareFailed(Exception):
    """Generating a ledger failed: the cases that read it are reported as errors."""


def fingerprint() -> str:
    """The cache key part that changes when the generator or the store changes."""
    h = hashlib.sha256()
    for rel in ("benchmarks/data.py", "ledger/store/writing.py", "ledger/store/canonical.py",
                "ledger/store/staging.py", "ledger/store/chainhead.py",
                "ledger/store/merkle.py", "ledger/store/treestore.py",
                "ledger/guards.py", "ledger/events.py", "ledger/terms.py", "ledger/values.py"):
        path = ROOT / rel
        h.update(path.read_bytes() if path.exists() else rel.encode())
    return h.hexdigest()[:12]


def cached_sqlite(runner: Runner, name: str, job: str, params: dict[str, Any]) -> Path:
    """A generated SQLite ledger from the cache, generating it (in a child) if missing."""
    cache = Path(runner.args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    final = cache / f"{name}-{fingerprint()}.db"
    if final.exists():
        print(f"[sqlite] {job}: cached {final}", file=sys.stderr, flush=True)
        return final
    part = cache / f"{name}-{fingerprint()}.part.db"
    rows = runner.job("sqlite", job, {**params, "url": str(part)}, [job], {}, record=False)
    if rows[0]["status"] != "ok":
        raise PrepareFailed(f"{job} failed: {rows[0].get('message')}")
    for suffix in ("-wal", "-shm", ".lock"):
        if os.path.exists(str(part) + suffix):
            os.remove(str(part) + suffix)
    part.rename(final)
    for stale in cache.glob(f"{name}-*.db"):   # older generators' or stores' ledgers
        if stale != final:
            stale.unlink()
    return final


def work_copy(runner: Runner, src: Path, name: str) -> str:
    dst = runner.work / name
    shutil.copyfile(src, dst)
    os.chmod(dst, 0o600)
    return str(dst)


class PgDatabases:
    """Fresh databases on the server, dropped at the end."""

    def __init__(self, url: str):
        self.url, self.names = url, []

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(sql)

    def new(self, tag: str) -> str:
        name = f"dl_bench_{os.getpid()}_{tag}".replace("-", "_")
        self._admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        self._admin(f"CREATE DATABASE {name}")
        self.names.append(name)
        return self.url.rsplit("/", 1)[0] + "/" + name

    def drop_all(self) -> None:
        for name in self.names:
            try:
                self._admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            except Exception as err:  # report, but never hide the table
                print(f"could not drop {name}: {err}", file=sys.stderr)


# ------------------------------------------------------------------ the suite


def alternated(runner: Runner, backend: str, reps: int, sizes: dict[str, str],
               jobs: list[tuple[str, Any]]) -> None:
    """Each one-row job run ``reps`` times, in turn with the others (A B A B ...), each in
    a child process of its own; the row of its median time is kept, with every time."""
    runs: dict[str, list[dict[str, Any]]] = {job: [] for job, _ in jobs}
    for k in range(reps):
        for job, params in jobs:
            runs[job] += runner.job(backend, job, params(k), [job], sizes, record=False)
    for job, _ in jobs:
        ok = sorted((r for r in runs[job] if r["status"] == "ok"), key=lambda r: r["seconds"])
        if len(ok) < len(runs[job]):
            runner.rows.append(next(r for r in runs[job] if r["status"] != "ok"))
            continue
        row = dict(ok[(len(ok) - 1) // 2])
        if reps > 1:
            times = ", ".join(f"{r['seconds']:.2f}" for r in runs[job])
            row["message"] = "; ".join(x for x in (
                row.get("message"), f"median of {reps}, alternated ({times} s)") if x)
        runner.rows.append(row)


def tree_cost(runner: Runner, backend: str) -> None:
    """The row comparing the two appends measured in turn: with the log's Merkle tree
    kept and without (``append`` / ``append-untreed``, each its median)."""
    found = {r["id"]: r for r in runner.rows if r["backend"] == backend}
    kept, bare = found.get("append"), found.get("append-untreed")
    if not kept or not bare or kept["status"] != "ok" or bare["status"] != "ok":
        return
    runner.rows.append({"id": "append-tree-cost", "backend": backend, "status": "ok",
                        "size": kept["size"], "seconds": kept["seconds"],
                        "events": kept["events"], "peak_kib": kept.get("peak_kib"),
                        "anchor": {"name": "append, tree not kept", "events": bare["events"],
                                   "seconds": bare["seconds"]}})


def run_backend(runner: Runner, backend: str, pg: PgDatabases | None) -> None:
    s, groups = runner.size, runner.groups
    n_append = s["append_deals"] * s["append_per"]

    def url_for(tag: str) -> str:
        return pg.new(tag) if pg else str(runner.work / f"{tag}.db")

    if "help" in groups and backend == "sqlite":
        runner.job(backend, "help", {"reps": s["help_reps"]}, ["help"], {"help": ""})

    if "append" in groups:
        sizes = {i: f"{n_append:,} ev / {s['append_deals']} deals"
                 for i in ("sqlite-insert", "es-save", "append")}
        params = {"deals": s["append_deals"], "per_deal": s["append_per"]}
        if backend == "sqlite":
            runner.job(backend, "sqlite-insert", {**params, "path": str(runner.work / "raw.db")},
                       ["sqlite-insert"], sizes)
        # the anchor and the case alternated, each its median: this machine's speed
        # drifts by a quarter within a minute, and one run of each compared two moments
        sizes["append-untreed"] = sizes["append-tree-cost"] = sizes["append"]
        alternated(runner, backend, s["append_reps"], sizes, [
            ("es-save", lambda k: {**params, "url": url_for(f"anchor{k}")}),
            ("append", lambda k: {**params, "url": url_for(f"append{k}")}),
            ("append-untreed", lambda k: {**params, "url": url_for(f"untreed{k}"),
                                          "tree": False, "row": "append-untreed"})])
        tree_cost(runner, backend)

    if groups & {"record", "report", "whatif"}:
        try:
            deal_cases(runner, backend, url_for)
        except PrepareFailed as err:
            runner.failed(backend, ["report-big", "report-holders", "amounts-holders", "whatif",
                                    "record-small", "record-big"], str(err))

    if "agenda" in groups and backend == "sqlite":
        cached = cached_sqlite(runner, f"agenda-{s['agenda_deals']}", "prepare-agenda",
                               {"deals": s["agenda_deals"]})
        sizes = {i: f"{s['agenda_deals']:,} deals (demo copies)" for i in ("agenda", "agenda-daily")}
        runner.job(backend, "agenda", {"url": work_copy(runner, cached, "agenda.db"),
                                       "cache": str(runner.work / "agenda.json"),
                                       "reps": s["agenda_reps"]},
                   ["agenda", "agenda-daily"], sizes)

    if groups & {"views", "verify"}:
        try:
            log_cases(runner, backend, url_for)
        except PrepareFailed as err:
            runner.failed(backend, ["sqlite-select", "es-read", "ledger-read", "views-rebuild",
                                    "views-incremental", "views-incremental-wide"], str(err))


def deal_cases(runner: Runner, backend: str, url_for: Any) -> None:
    """The record, report and whatif cases, on one generated ledger of three deals."""
    s, groups = runner.size, runner.groups
    prep = {"small": s["small"], "big": s["big"], "holders": s["holders"]}
    if backend == "sqlite":
        cached = cached_sqlite(runner, f"deals-s{s['small']}-b{s['big']}-h{s['holders']}",
                               "prepare-deals", prep)
        fresh = lambda tag: work_copy(runner, cached, f"{tag}.db")  # noqa: E731
    else:
        url = url_for("deals")
        rows = runner.job(backend, "prepare-deals", {**prep, "url": url},
                          ["prepare-deals"], {}, record=False)
        if rows[0]["status"] != "ok":
            raise PrepareFailed(f"prepare-deals failed: {rows[0].get('message')}")
        fresh = lambda tag: url  # noqa: E731
    holders = f"{s['holders']:,} Holders, 20-year default"
    if "report" in groups:
        runner.job(backend, "report", {"url": fresh("report"), "deal": "big",
                                       "row": "report-big", "reps": s["report_reps"]},
                   ["report-big"], {"report-big": f"{s['big']:,}-event deal"})
        runner.job(backend, "report-cold", {"url": fresh("report"), "deal": "big",
                                            "reps": s["report_reps"]},
                   ["report-cold"], {"report-cold": f"{s['big']:,}-event deal"})
        runner.job(backend, "report-holders",
                   {"url": fresh("holders"), "deal": "holders", "reps": s["report_reps"]},
                   ["report-holders", "amounts-holders"],
                   {"report-holders": holders, "amounts-holders": holders})
    if "whatif" in groups:
        runner.job(backend, "whatif", {"url": fresh("whatif"), "deal": "holders",
                                       "reps": s["whatif_reps"]},
                   ["whatif"], {"whatif": holders})
    if "record" in groups:   # last: it appends to the deals
        runner.job(backend, "record", {"url": fresh("record"), "reps": s["record_reps"]},
                   ["record-small", "record-big"],
                   {"record-small": f"{s['small']}-event deal",
                    "record-big": f"{s['big']:,}-event deal"})


def log_cases(runner: Runner, backend: str, url_for: Any) -> None:
    """The views cases and the read anchors, on one generated ledger of many deals."""
    s = runner.size
    deals = s["log_deals"] if backend == "sqlite" else s["pg_log_deals"]
    total = deals * s["log_per"]
    prep = {"deals": deals, "per_deal": s["log_per"],
            "batch_deals": min(s["log_batch_deals"], deals)}
    if backend == "sqlite":
        cached = cached_sqlite(runner, f"log-{deals}x{s['log_per']}", "prepare-log", prep)
        url = str(cached)   # read-only cases read the cache itself
    else:
        url = url_for("log")
        rows = runner.job(backend, "prepare-log", {**prep, "url": url}, ["prepare-log"],
                          {}, record=False)
        if rows[0]["status"] != "ok":
            raise PrepareFailed(f"prepare-log failed: {rows[0].get('message')}")
    label = f"{total:,} ev / {deals:,} deals"
    if "views" in runner.groups:
        views_cases(runner, backend, url, label, total, deals)
    if "verify" in runner.groups:   # last: on PostgreSQL it appends to the ledger
        if backend != "sqlite" and "views" in runner.groups:   # which the views grew
            label = f"{total + 2 * s['new']:,} ev / {deals:,} deals"
        verify_cases(runner, backend, url, label, s)


def views_cases(runner: Runner, backend: str, url: str, label: str, total: int,
                deals: int) -> None:
    """The views cases and the read anchors, on the many-deal ledger at ``url``."""
    s = runner.size
    sizes = {i: label for i in ("es-read", "sqlite-select", "ledger-read",
                                "views-rebuild")}
    sizes["views-incremental"] = f"+{s['new']:,} ev / {s['new_deals']} deals"
    sizes["views-incremental-wide"] = f"+{s['new']:,} ev / {deals:,} deals"
    if backend == "sqlite":
        runner.job(backend, "sqlite-select", {"url": url}, ["sqlite-select"], sizes)
        runner.job(backend, "es-read", {"url": url}, ["es-read"], sizes)
        runner.job(backend, "ledger-read", {"url": url}, ["ledger-read"], sizes)
    else:
        # a log just loaded into PostgreSQL reads at a speed that moves from one read to
        # the next (hint bits set by the first reader, autovacuum after a bulk load):
        # the two reads in turn, each its median
        alternated(runner, backend, s["pg_read_reps"], sizes,
                   [("es-read", lambda k: {"url": url}),
                    ("ledger-read", lambda k: {"url": url})])
    views_url = work_copy(runner, Path(url), "views-ledger.db") if backend == "sqlite" else url
    runner.job(backend, "views", {"url": views_url, "out": str(runner.work / f"views-{backend}.db"),
                                  "events": total, "deals": deals, "new": s["new"],
                                  "new_deals": s["new_deals"], "reps": s["views_reps"]},
               ["views-rebuild", "views-incremental", "views-incremental-wide"], sizes)
    if backend == "sqlite":
        os.remove(views_url)


def verify_cases(runner: Runner, backend: str, url: str, label: str,
                 s: dict[str, int]) -> None:
    """``verify`` of the many-deal ledger against the plain walk; ``verify --since`` a
    checkpoint after 1,000 more events, on a copy (SQLite) or the database itself."""
    sizes = {"verify": label, "verify-since": f"+{s['new']:,} ev on {label}"}
    runner.job(backend, "verify", {"url": url, "reps": s["verify_reps"]}, ["verify"], sizes)
    since_url = work_copy(runner, Path(url), "since-ledger.db") if backend == "sqlite" else url
    runner.job(backend, "verify-since", {"url": since_url, "work": str(runner.work),
                                         "deals": s["log_deals"] if backend == "sqlite"
                                         else s["pg_log_deals"], "new": s["new"],
                                         "reps": s["verify_reps"]},
               ["verify-since"], sizes)
    if backend == "sqlite":
        os.remove(since_url)


# ------------------------------------------------------------------ the table


def fmt_time(seconds: float | None) -> str:
    if seconds is None:
        return ""
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def fmt_rate(events: int | None, seconds: float | None) -> str:
    if not events or not seconds:
        return ""
    return f"{events / seconds:,.0f}"


def evaluate(row: dict[str, Any], by_key: dict[tuple[str, str], dict[str, Any]]) -> None:
    """Fill the row's anchor, ratio and verdict."""
    spec = SPECS[row["id"]]
    anchor = row.get("anchor")
    if spec.anchor:
        a = by_key.get((row["backend"], spec.anchor))
        if a and a["status"] == "ok":
            anchor = {"name": SPECS[spec.anchor].label.removeprefix("anchor: "),
                      "seconds": a["seconds"], "events": a["events"]}
    row["anchor"] = anchor
    row["ratio"], row["ratio_text"] = None, ""
    if row["status"] == "ok" and anchor and anchor.get("seconds"):
        if spec.kind == "rate" and row.get("events") and anchor.get("events"):
            ratio = (row["events"] / row["seconds"]) / (anchor["events"] / anchor["seconds"])
            row["ratio"], row["ratio_text"] = ratio, f"{ratio:.2f}x rate"
        else:
            ratio = row["seconds"] / anchor["seconds"]
            row["ratio"], row["ratio_text"] = ratio, f"{ratio:.2f}x time"
    target = spec.target
    row["target_text"], row["met"] = "", ""
    if row["id"] == "help":
        row["target_text"] = "no eventsourcing/pydantic/holidays"
        if row["status"] == "ok":
            row["met"] = "NO" if row.get("imports") else "yes"
        return
    if not target or row["backend"] not in target.backends:
        return
    row["target_text"] = target.text
    if row["status"] != "ok":
        row["met"] = "n/a"
        return
    value = row["seconds"] if target.absolute else row["ratio"]
    if value is None:
        row["met"] = "n/a"
        return
    ok = value >= target.value if target.op == ">=" else value <= target.value
    if row["id"] == "views-rebuild" and row.get("peak_kib"):
        ok = ok and row["peak_kib"] <= GIB_KIB
    if row["id"] == "verify" and row.get("peak_kib"):
        ok = ok and row["peak_kib"] <= 100 * 1024
    row["met"] = "yes" if ok else "NO"


def machine() -> str:
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = ""
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        ram = f", {kib / GIB_KIB:.1f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    import sqlite3
    from importlib.metadata import version

    return (f"{cpu}, {os.cpu_count()} cores{ram}; Python {platform.python_version()}, "
            f"eventsourcing {version('eventsourcing')}, SQLite {sqlite3.sqlite_version}")


def code_revision() -> str:
    """The commit measured, and whether the work tree differs from it."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                              capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=ROOT, capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return "revision unknown"
    if not head:
        return "revision unknown"
    return f"commit {head}" + (" + uncommitted changes" if dirty.strip() else "")


COLUMNS = ("case", "db", "size", "time", "events/s", "peak MiB", "anchor (same run)",
           "anchor time", "ratio", "target", "met")


def table(rows: list[dict[str, Any]]) -> str:
    lines = []
    for r in rows:
        spec = SPECS[r["id"]]
        label = spec.label
        if r["status"] != "ok":
            lines.append((label, r["backend"], r["size"], r.get("message", r["status"])[:60],
                          "", "", "", "", "", r.get("target_text", ""), r.get("met", "")))
            continue
        a = r.get("anchor") or {}
        a_text = ""
        if a:
            a_rate = fmt_rate(a.get("events"), a.get("seconds"))
            a_text = a["name"] + (f" ({a_rate} ev/s)" if a_rate and spec.kind == "rate" else "")
        peak = f"{r['peak_kib'] / 1024:,.0f}" if r.get("peak_kib") else ""
        rate = fmt_rate(r.get("events"), r["seconds"]) if (r.get("events") or 0) > 1 else ""
        lines.append((label, r["backend"], r["size"], fmt_time(r["seconds"]), rate, peak, a_text,
                      fmt_time(a.get("seconds")), r["ratio_text"], r["target_text"], r["met"]))
    widths = [max(len(c), *(len(str(x[i])) for x in lines)) if lines else len(c)
              for i, c in enumerate(COLUMNS)]
    out = [" | ".join(c.ljust(w) for c, w in zip(COLUMNS, widths)),
           "-+-".join("-" * w for w in widths)]
    out += [" | ".join(str(x).ljust(w) for x, w in zip(line, widths)) for line in lines]
    return "\n".join(out)


def notes(rows: list[dict[str, Any]], quickest: float | None = None) -> list[str]:
    """A line for each row with a message, or with probes (``benchmarks.probe``) when
    ``quickest``, the run's quickest probe, is given."""
    out = []
    for r in rows:
        parts = [r["message"]] if r.get("message") else []
        if quickest and r.get("probe") and r["status"] == "ok":
            parts.append(probe_note(*r["probe"], quickest))
        if parts:
            out.append(f"- {SPECS[r['id']].label.strip()} [{r['backend']}]: {'; '.join(parts)}")
    return out


# ------------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes: checks the suite runs")
    ap.add_argument("--postgres", metavar="URL",
                    help="also run every case on PostgreSQL (a server URL; the run creates "
                         "and drops its own databases)")
    ap.add_argument("--cache", default=os.environ.get("DEAL_LEDGER_BENCH_CACHE") or str(
        Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "deal-ledger-bench"),
        help="where generated ledgers are kept between runs ($DEAL_LEDGER_BENCH_CACHE)")
    ap.add_argument("--only", default="help,append,record,report,whatif,views,verify,agenda",
                    help="comma-separated groups: help, append, record, report, whatif, "
                         "views, verify, agenda")
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = ap.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="deal-ledger-bench-"))
    runner = Runner(args, work)
    pg = PgDatabases(args.postgres) if args.postgres else None
    started = time.perf_counter()
    revision = code_revision()
    try:
        run_backend(runner, "sqlite", None)
        if pg:
            run_backend(runner, "postgres", pg)
    finally:
        if pg:
            pg.drop_all()
        shutil.rmtree(work, ignore_errors=True)
    order = list(SPECS)
    runner.rows.sort(key=lambda r: (r["backend"] != "sqlite", order.index(r["id"])))
    by_key = {(r["backend"], r["id"]): r for r in runner.rows}
    for r in runner.rows:
        evaluate(r, by_key)
    mode = "quick sizes (targets are set for the full sizes)" if args.quick else "full sizes"
    print(f"deal-ledger benchmarks, {mode}, {revision}; {machine()}")
    print(table(runner.rows))
    quickest = min(runner.probes, default=None)
    extra = notes(runner.rows, quickest)
    if extra:
        print("\n".join(["", "notes:", *extra]))
    print("\npeak MiB: peak RSS (ru_maxrss), interpreter and imports included: of the child "
          "process that ran the case in process, or for a (command) case the largest of the "
          "deal-ledger processes measured, each its own (os.wait4).")
    if args.postgres:
        print("PostgreSQL: the anchors insert as the ledger's store does, through "
              "eventsourcing's server-side function (POSTGRES_ENABLE_DB_FUNCTIONS=y); the "
              "library's default pipelined insert hangs on batches over ~10 MB.")
    if runner.probes:
        print(f"machine probe (benchmarks/probe.py, a fixed pure-Python loop timed in CPU "
              f"before and after each case): {min(runner.probes) * 1000:.0f} to "
              f"{max(runner.probes) * 1000:.0f} ms over the run, median "
              f"{statistics.median(runner.probes) * 1000:.0f} ms; a case's note gives its "
              f"probes against the quickest. Times, ratios and verdicts are as measured.")
    print(f"total {time.perf_counter() - started:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(runner.rows, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())

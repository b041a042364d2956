"""Signed checkpoints of the ledger (``deal-ledger keygen``, ``checkpoint``, ``verify
--checkpoint`` and ``--since``): the log's size and Merkle root signed in the public
formats (``ledger.notes``: C2SP signed-note and tlog-checkpoint), so that someone who
kept one can prove later that the ledger still extends it, and witnesses can co-sign it.

* ``keygen``: an Ed25519 key pair, the private key in ``PATH`` (mode 0600, never printed,
  never written over, never over the ledger), the verifier key in ``PATH.pub``: both in
  the text forms of Go's ``sumdb/note``.
* ``make_checkpoint``: the chain verified (the whole of it, or only what follows a
  checkpoint signed earlier: ``verify --since``), then the tree head it proved signed:
  origin (the key's name), size, root; signed with Ed25519 and cosigned with its time.
* ``check_checkpoints``: each checkpoint's signature checked, then the ledger walked once
  (``verify``) with the root at each checkpoint's size grown from the events as stored:
  the ledger extends a checkpoint when that root is the signed one (and the consistency
  proof between the checkpoint and the ledger's head, from the tree kept beside the
  log, checks against both roots). Where it does not, the first event that differs is
  named when the tree kept beside the log still holds the signed tree; two checkpoints
  of one key that cannot both be of one log are reported as proof of a forked log.
"""

from __future__ import annotations

import base64
import os
import stat
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ledger import notes, proofs
from ledger.errors import StoreError, Unproved, UsageError
from ledger.store.verdict import Verdict

from .outputs import replace_whole

MAX_KEY_FILE = 4096


# --------------------------------------------------------------------------- keys


def keygen(name: str, out: str, *, ledger_url: str) -> notes.VerifierKey:
    """A new key pair under ``name``: the signer key written to ``out``, the verifier key
    to ``out + ".pub"`` (neither written over an existing file)."""
    if not notes.valid_name(name):
        raise UsageError("a key name is visible text with no spaces and no '+' (a "
                         "schema-less URL such as ledger.example.com/deals is usual)",
                         field="--name")
    for path in (out, out + ".pub"):
        if os.path.lexists(path):
            raise UsageError(f"{path} exists: a key is never written over (nothing was "
                             "written)", field="--out")
    private = notes.signer_text(name, os.urandom(32))
    key = notes.signer_key(private)
    replace_whole(out, (private + "\n").encode("utf-8"), ledger_url=ledger_url,
                  field="--out", prefix=".deal-ledger-key-")
    replace_whole(out + ".pub", (key.verifier.text + "\n").encode("utf-8"),
                  ledger_url=ledger_url, field="--out", prefix=".deal-ledger-key-")
    return key.verifier


def read_signer(path: str, field: str = "--key") -> notes.SignerKey:
    """The signer key in ``path``: a regular file no other user may read (as ssh asks of
    its keys), holding one key."""
    try:
        info = os.stat(path)
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror}", field=field) from None
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_KEY_FILE:
        raise UsageError(f"{path} is not a key file (`deal-ledger keygen` makes one)",
                         field=field)
    if info.st_mode & 0o077:
        raise UsageError(f"{path} may be read by other users (mode "
                         f"{stat.S_IMODE(info.st_mode):04o}): `chmod 600 {path}` first",
                         field=field)
    try:
        with open(path, encoding="utf-8") as fh:
            return notes.signer_key(fh.read())
    except (OSError, UnicodeDecodeError, notes.NoteError):
        raise UsageError(f"{path} does not hold a signer key (PRIVATE+KEY+..., as "
                         "`deal-ledger keygen` writes it)", field=field) from None


def read_verifiers(values: Sequence[str], field: str = "--pubkey") -> list[notes.VerifierKey]:
    """Verifier keys, each given as a file (``KEY.pub``) or as its text."""
    if not values:
        raise UsageError("give the verifier key it was signed with (KEY.pub)", field=field)
    texts = []
    for value in values:
        if os.path.isfile(value):
            try:
                with open(value, "rb") as fh:
                    texts.append(fh.read(MAX_KEY_FILE).decode("utf-8").strip())
            except (OSError, UnicodeDecodeError):
                raise UsageError(f"cannot read {value} as a verifier key", field=field) \
                    from None
        else:
            texts.append(value)
    return notes.keys_of(texts, field)


def read_note(path: str, field: str) -> bytes:
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise UsageError(f"{path} is not a file", field=field)
        with open(path, "rb") as fh:
            data = fh.read(notes.MAX_NOTE + 1)
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror}", field=field) from None
    return data


def open_checkpoint(path: str, keys: Sequence[notes.VerifierKey],
                    field: str = "--checkpoint") -> notes.SignedCheckpoint:
    """The checkpoint in ``path``, its signature checked; ``Unproved`` naming it if it
    does not read as one, or is not signed by one of ``keys``."""
    try:
        return notes.open_checkpoint(read_note(path, field), keys)
    except notes.NoteError as err:
        raise Unproved(f"{path}: {err}", field=field) from None


# --------------------------------------------------------------------- checkpoints


def describe(signed: notes.SignedCheckpoint) -> str:
    from datetime import datetime, timezone

    when = "" if signed.time is None else " at " + datetime.fromtimestamp(
        signed.time, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"size {signed.checkpoint.size}, signed by {signed.key.name}{when}"


def make_checkpoint(ledger: Any, key: notes.SignerKey, *, now: int,
                    since: notes.SignedCheckpoint | None = None,
                    on_progress: Callable[[int], None] | None = None
                    ) -> tuple[str, notes.Checkpoint]:
    """The signed checkpoint of the ledger's head, once its chain verifies (module doc):
    the note's text and the checkpoint."""
    from ledger.store.chain import verify

    verdict = verify(ledger, on_progress=on_progress,
                     since=None if since is None else (since.checkpoint.size,
                                                       since.checkpoint.root))
    if not verdict.ok:
        raise StoreError(f"the ledger does not verify ({verdict.line()}): a checkpoint is "
                         "signed only for a ledger whose chain verifies")
    checkpoint = notes.Checkpoint(key.name, verdict.count, bytes.fromhex(verdict.root or ""))
    return notes.sign(checkpoint.text, key, timestamp=now), checkpoint


def write_checkpoint(text: str, out: str, *, ledger_url: str) -> None:
    replace_whole(out, text.encode("utf-8"), ledger_url=ledger_url, field="--out")


# ------------------------------------------------------------------------ checking


@dataclass
class Checked:
    """``check_checkpoints``' outcome: the chain's verdict, a line per checkpoint, and
    whether every checkpoint is extended (``ok``)."""

    chain: Verdict
    lines: list[tuple[bool, str]] = field(default_factory=list)   # (extended, what)
    ok: bool = True
    forked: list[str] = field(default_factory=list)


def check_checkpoints(ledger: Any, paths: Sequence[str], keys: Sequence[notes.VerifierKey],
                      on_progress: Callable[[int], None] | None = None) -> Checked:
    """Whether the ledger extends each checkpoint in ``paths`` (module doc)."""
    from ledger.store.chain import verify
    from ledger.store.stable import stable_view
    from ledger.store import treeread

    signed = [(path, open_checkpoint(path, keys)) for path in paths]
    sizes = tuple(sorted({s.checkpoint.size for _, s in signed} - {0}))
    treeread.catch_up(ledger)
    verdict = verify(ledger, on_progress=on_progress, roots_at=sizes)
    out = Checked(verdict)
    with stable_view(ledger) as view:
        try:
            tiles = treeread.tiles(view)
        except StoreError:
            tiles = None
        for path, s in signed:
            line, ok = _extends(path, s, verdict, tiles)
            out.lines.append((ok, line))
            out.ok = out.ok and ok
        out.forked = _forks(signed, verdict, tiles)
    out.ok = out.ok and verdict.ok and not out.forked
    return out


def _extends(path: str, signed: notes.SignedCheckpoint, verdict: Verdict,
             tiles: Any) -> tuple[str, bool]:
    """Whether the walked ledger extends one checkpoint, as a line."""
    cp, what = signed.checkpoint, describe(signed)
    if not verdict.ok:
        if verdict.bad_seq is not None and tiles is not None and "its leaf" in str(
                verdict.reason) and verdict.bad_seq <= cp.size and _stored_root(
                    tiles, cp.size) == cp.root:
            # the tree kept beside the log still is the signed one: its leaf is what was
            # signed, and the event is not it
            return (f"{path}: seq {verdict.bad_seq}: the event is not the one this "
                    f"checkpoint ({what}) signed: history was rewritten from there", False)
        return f"{path}: not checked: the chain does not verify", False
    count = verdict.count
    if cp.size > count:
        return (f"{path}: seq {count + 1}: the log ends at seq {count} and this checkpoint "
                f"({what}) signed {cp.size} events: events were removed", False)
    root = bytes.fromhex(verdict.roots.get(cp.size) or verdict.root or "") \
        if cp.size else proofs.root_of([])
    if root != cp.root:
        return (f"{path}: the log's first {cp.size} events are not the ones this checkpoint "
                f"({what}) signed: history up to seq {cp.size} was rewritten, the tree kept "
                "beside the log with it, so no event can be named from the checkpoint alone "
                "(a `log --json` copy kept with it names the first: verify --expect FILE)",
                False)
    new_root = bytes.fromhex(verdict.root or "")
    proof = tiles.consistency(cp.size, count) if tiles is not None and cp.size else []
    why = proofs.verify_consistency(cp.size, count, cp.root, new_root, proof)
    if why is not None:
        return f"{path}: the consistency proof from the tree kept beside the log fails: {why}", \
            False
    return (f"{path}: the log extends it ({what}; root "
            f"{base64.b64encode(cp.root).decode('ascii')}; consistency proof {cp.size} -> "
            f"{count}, {len(proof)} hashes, checked)", True)


def _stored_root(tiles: Any, size: int) -> bytes | None:
    try:
        return tiles.root(size)
    except LookupError:
        return None


def _forks(signed: list[tuple[str, notes.SignedCheckpoint]], verdict: Verdict,
           tiles: Any) -> list[str]:
    """Pairs of checkpoints by one key that cannot both be of one log: two roots for one
    size; or, where the ledger extends the larger, a smaller one the tree's consistency
    proof does not lead to."""
    found = []
    for i, (path_a, a) in enumerate(signed):
        for path_b, b in signed[i + 1:]:
            if a.key != b.key:
                continue
            small, big = (a, b) if a.checkpoint.size <= b.checkpoint.size else (b, a)
            names = (path_a, path_b) if small is a else (path_b, path_a)
            if small.checkpoint.size == big.checkpoint.size:
                if small.checkpoint.root != big.checkpoint.root:
                    found.append(f"proof of a forked log: {names[0]} and {names[1]}, both "
                                 f"signed by {a.key.name}, give two roots for size "
                                 f"{small.checkpoint.size}")
                continue
            if tiles is None or not verdict.ok or big.checkpoint.size > verdict.count:
                continue
            if verdict.roots.get(big.checkpoint.size, verdict.root) != big.checkpoint.root.hex():
                continue
            proof = tiles.consistency(small.checkpoint.size, big.checkpoint.size)
            why = proofs.verify_consistency(small.checkpoint.size, big.checkpoint.size,
                                            small.checkpoint.root, big.checkpoint.root, proof)
            if why is not None:
                found.append(f"proof of a forked log: {names[0]} (size "
                             f"{small.checkpoint.size}) is not a prefix of {names[1]} (size "
                             f"{big.checkpoint.size}), both signed by {a.key.name}: the "
                             f"consistency proof between them fails ({why})")
    return found


def verify_since(ledger: Any, path: str, keys: Sequence[notes.VerifierKey],
                 on_progress: Callable[[int], None] | None = None
                 ) -> tuple[Verdict, notes.SignedCheckpoint]:
    """``verify --since``: the events after the checkpoint in ``path`` (its signature
    checked), from the tree head it signed (``ledger.store.since``)."""
    from ledger.store.chain import verify

    signed = open_checkpoint(path, keys, field="--since")
    verdict = verify(ledger, on_progress=on_progress,
                     since=(signed.checkpoint.size, signed.checkpoint.root))
    return verdict, signed

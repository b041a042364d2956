"""Signed notes and checkpoints in their public formats, so that other tools can read and
co-sign what this ledger signs: C2SP signed-note (the note format of Go's
``golang.org/x/mod/sumdb/note``, its keys included), C2SP tlog-checkpoint (a log's origin,
tree size and root hash as a note's text) and C2SP tlog-cosignature (a timestamped
Ed25519 signature of a checkpoint).

* **Keys** (``golang.org/x/mod/sumdb/note``'s encodings): a signer key is the text
  ``PRIVATE+KEY+<name>+<key id>+<base64(0x01 || 32-byte Ed25519 seed)>``, a verifier key
  ``<name>+<key id>+<base64(0x01 || 32-byte public key)>``; the key id is the first four
  bytes of SHA-256(name || 0x0A || 0x01 || public key), in hexadecimal.
* **A signed note**: the text (ending in a newline), a blank line, then one line per
  signature: an em dash, a space, the key name, a space, and base64(key id || signature).
  Signatures by keys not known are ignored; one by a known key that fails rejects the
  note; a note with no good signature by a known key is rejected.
* **A checkpoint**: a note whose text is the origin, the tree size and the base64 root
  hash, one a line. The log signs it with Ed25519 (type 0x01, what a witness checks),
  and adds a timestamped cosignature of its own (type 0x04: the signed message is
  ``cosignature/v1``, ``time <POSIX seconds>``, then the checkpoint's text; its key id is
  computed with 0x04), which carries the time it was signed.

Only checking lives here, and the signing a key does (``sign``): making and keeping keys
is ``publishing.checkpoints``. Pure: no files, no clock (a time is given).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import struct
from dataclasses import dataclass
from typing import Iterable

from .errors import UsageError

ED25519 = 0x01
COSIGNATURE = 0x04
DASH = "\u2014"
COSIGNED_PREFIX = "cosignature/v1\n"
MAX_SIGNATURES = 16
MAX_NOTE = 64 * 1024
_NAME = re.compile(r"[^\s+]+")
_B64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")


class NoteError(ValueError):
    """A note, key or checkpoint that does not read, or does not verify."""


def key_id(name: str, kind: int, public: bytes) -> bytes:
    """The four bytes naming a key (C2SP signed-note): SHA-256(name || 0x0A || kind ||
    public key)[:4]."""
    return hashlib.sha256(name.encode("utf-8") + b"\n" + bytes([kind]) + public).digest()[:4]


def valid_name(name: str) -> bool:
    """A key name: non-empty, no spaces (Unicode's too), no ``+``, nothing a note may not
    hold (control characters) or a terminal would not show."""
    return (bool(_NAME.fullmatch(name)) and name.isprintable()
            and not any(c.isspace() for c in name))


def _b64(text: str, what: str) -> bytes:
    if not _B64.fullmatch(text):
        raise NoteError(f"{what} is not base64")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise NoteError(f"{what} is not base64") from None


@dataclass(frozen=True)
class VerifierKey:
    """A public key as a verifier key text names it."""

    name: str
    public: bytes

    @property
    def id(self) -> bytes:
        return key_id(self.name, ED25519, self.public)

    @property
    def text(self) -> str:
        data = base64.b64encode(bytes([ED25519]) + self.public).decode("ascii")
        return f"{self.name}+{self.id.hex()}+{data}"

    def verify(self, message: bytes, signature: bytes) -> bool:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(signature, message)
            return True
        except (InvalidSignature, ValueError):
            return False


def verifier_key(text: str) -> VerifierKey:
    """A verifier key from its text (``<name>+<key id>+<base64 key>``)."""
    parts = text.strip().split("+", 2)   # base64 holds "+" too: the rest is the key
    if len(parts) != 3 or not valid_name(parts[0]) or not re.fullmatch(r"[0-9a-f]{8}",
                                                                       parts[1]):
        raise NoteError("not a verifier key (NAME+KEYID+BASE64, as `deal-ledger keygen` "
                        "writes it in KEY.pub)")
    data = _b64(parts[2], "the key")
    if len(data) != 33 or data[0] != ED25519:
        raise NoteError("not an Ed25519 verifier key")
    key = VerifierKey(parts[0], data[1:])
    if key.id.hex() != parts[1]:
        raise NoteError("the verifier key's id does not match its name and key")
    return key


class SignerKey:
    """A private key as a signer key text holds it; never printed (its ``repr`` names
    only the key)."""

    def __init__(self, name: str, seed: bytes):
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        self.name = name
        self._private = Ed25519PrivateKey.from_private_bytes(seed)
        self.public = self._private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    def __repr__(self) -> str:
        return f"SignerKey({self.verifier.text})"

    @property
    def verifier(self) -> VerifierKey:
        return VerifierKey(self.name, self.public)

    def sign(self, message: bytes) -> bytes:
        return self._private.sign(message)


def signer_key(text: str) -> SignerKey:
    """A signer key from its text (``PRIVATE+KEY+<name>+<key id>+<base64 seed>``)."""
    parts = text.strip().split("+", 4)
    if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"] or not valid_name(parts[2]) \
            or not re.fullmatch(r"[0-9a-f]{8}", parts[3]):
        raise NoteError("not a signer key (PRIVATE+KEY+NAME+KEYID+BASE64, as `deal-ledger "
                        "keygen` writes it)")
    data = _b64(parts[4], "the key")
    if len(data) != 33 or data[0] != ED25519:
        raise NoteError("not an Ed25519 signer key")
    key = SignerKey(parts[2], data[1:])
    if key.verifier.id.hex() != parts[3]:
        raise NoteError("the signer key's id does not match its name and key")
    return key


def signer_text(name: str, seed: bytes) -> str:
    """The signer key text of ``seed`` (32 bytes) under ``name``."""
    key = SignerKey(name, seed)
    data = base64.b64encode(bytes([ED25519]) + seed).decode("ascii")
    return f"PRIVATE+KEY+{name}+{key.verifier.id.hex()}+{data}"


# ------------------------------------------------------------------------- notes


def _check_text(text: str) -> None:
    if not text.endswith("\n"):
        raise NoteError("a note's text ends with a newline")
    if any(c < " " and c != "\n" for c in text):
        raise NoteError("a note holds no control characters but newlines")


def sign(text: str, key: SignerKey, *, timestamp: int | None = None) -> str:
    """``text`` as a signed note: signed by ``key`` (Ed25519), and, with ``timestamp``
    (POSIX seconds), cosigned by it with that time (C2SP tlog-cosignature)."""
    _check_text(text)
    lines = [signature_line(key, text)]
    if timestamp is not None:
        lines.append(cosignature_line(key, text, timestamp))
    return text + "\n" + "".join(lines)


def signature_line(key: SignerKey, text: str) -> str:
    sig = key.sign(text.encode("utf-8"))
    data = base64.b64encode(key.verifier.id + sig).decode("ascii")
    return f"{DASH} {key.name} {data}\n"


def cosignature_line(key: SignerKey, text: str, timestamp: int) -> str:
    if not 0 <= timestamp < 2 ** 63:
        raise NoteError("a cosignature's time is a POSIX timestamp")
    message = f"{COSIGNED_PREFIX}time {timestamp}\n{text}".encode("utf-8")
    sig = key.sign(message)
    data = base64.b64encode(key_id(key.name, COSIGNATURE, key.public)
                            + struct.pack(">Q", timestamp) + sig).decode("ascii")
    return f"{DASH} {key.name} {data}\n"


@dataclass(frozen=True)
class Signed:
    """A signature of a note that verified: by which key, and (a cosignature) when."""

    name: str
    key_id: str
    kind: int
    timestamp: int | None = None


@dataclass(frozen=True)
class Note:
    text: str
    signatures: tuple[Signed, ...]

    def signed_by(self, key: VerifierKey) -> bool:
        return any(s.kind == ED25519 and s.key_id == key.id.hex() and s.name == key.name
                   for s in self.signatures)

    def time(self, key: VerifierKey) -> int | None:
        """The time of ``key``'s own cosignature, if it made one."""
        for s in self.signatures:
            if s.kind == COSIGNATURE and s.name == key.name:
                return s.timestamp
        return None


def open_note(data: bytes, keys: Iterable[VerifierKey]) -> Note:
    """Read a signed note and check its signatures by ``keys`` (module doc): those by
    other keys are ignored; ``NoteError`` if one by a known key fails, or none verifies."""
    if len(data) > MAX_NOTE:
        raise NoteError(f"a note is at most {MAX_NOTE} bytes")
    try:
        whole = data.decode("utf-8")
    except UnicodeDecodeError:
        raise NoteError("a note is UTF-8 text") from None
    split = whole.rfind("\n\n")
    if split < 0 or not whole.endswith("\n"):
        raise NoteError("not a signed note (its text, a blank line, then its signatures)")
    text, block = whole[:split + 1], whole[split + 2:]
    _check_text(text)
    lines = block[:-1].split("\n")
    if not lines or len(lines) > MAX_SIGNATURES:
        raise NoteError(f"a note has 1 to {MAX_SIGNATURES} signature lines")
    known: dict[tuple[str, bytes], tuple[VerifierKey, int]] = {}
    for key in keys:
        known[(key.name, key.id)] = (key, ED25519)
        known[(key.name, key_id(key.name, COSIGNATURE, key.public))] = (key, COSIGNATURE)
    good: list[Signed] = []
    for line in lines:
        if not line.startswith(DASH + " "):
            raise NoteError("a signature line starts with an em dash and a space")
        name, _, value = line[2:].partition(" ")
        if not valid_name(name) or not value:
            raise NoteError("a signature line names a key and gives its signature")
        raw = _b64(value, "a signature")
        if len(raw) < 5:
            raise NoteError("a signature is its key id and the signature")
        found = known.get((name, raw[:4]))
        if found is None:
            continue   # another key's: a witness's cosignature, say
        key, kind = found
        if kind == ED25519:
            ok = key.verify(text.encode("utf-8"), raw[4:])
            stamp = None
        else:
            stamp = struct.unpack(">Q", raw[4:12])[0] if len(raw) == 4 + 8 + 64 else None
            ok = stamp is not None and stamp < 2 ** 63 and key.verify(
                f"{COSIGNED_PREFIX}time {stamp}\n{text}".encode("utf-8"), raw[12:])
        if not ok:
            raise NoteError(f"the signature by {name} ({raw[:4].hex()}) does not verify: "
                            "the note was altered, or signed by another key of that name")
        good.append(Signed(name, raw[:4].hex(), kind, stamp))
    if not any(s.kind == ED25519 for s in good):
        raise NoteError("the note is not signed by the key given (--pubkey)")
    return Note(text, tuple(good))


# ------------------------------------------------------------------- checkpoints


@dataclass(frozen=True)
class Checkpoint:
    """A log's tree head as a checkpoint's text holds it (C2SP tlog-checkpoint)."""

    origin: str
    size: int
    root: bytes
    extensions: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        lines = [self.origin, str(self.size), base64.b64encode(self.root).decode("ascii"),
                 *self.extensions]
        return "\n".join(lines) + "\n"


def read_checkpoint(text: str) -> Checkpoint:
    """A checkpoint from a note's text; ``NoteError`` if it is not one."""
    lines = text.split("\n")
    if len(lines) < 4 or lines[-1] != "" or any(not line for line in lines[:-1]):
        raise NoteError("not a checkpoint (origin, tree size and root hash, one a line)")
    origin, size, root = lines[0], lines[1], lines[2]
    if not re.fullmatch(r"0|[1-9][0-9]{0,18}", size):
        raise NoteError("a checkpoint's second line is the tree size, in decimal")
    digest = _b64(root, "a checkpoint's root hash")
    if len(digest) != 32:
        raise NoteError("a checkpoint's root hash is 32 bytes")
    return Checkpoint(origin, int(size), digest, tuple(lines[3:-1]))


@dataclass(frozen=True)
class SignedCheckpoint:
    """A checkpoint whose signature by ``key`` verified, and when it was signed (from the
    key's own cosignature; ``None`` if it made none)."""

    checkpoint: Checkpoint
    key: VerifierKey
    time: int | None
    note: str


def open_checkpoint(data: bytes, keys: Iterable[VerifierKey]) -> SignedCheckpoint:
    """A checkpoint file read and its signature checked by one of ``keys``."""
    keys = list(keys)
    note = open_note(data, keys)
    signer = next(k for k in keys if note.signed_by(k))
    return SignedCheckpoint(read_checkpoint(note.text), signer, note.time(signer),
                            data.decode("utf-8"))


def keys_of(texts: Iterable[str], field: str = "--pubkey") -> list[VerifierKey]:
    """Verifier keys from their texts; a ``UsageError`` naming ``field`` for one that is
    not a key."""
    out = []
    for text in texts:
        try:
            out.append(verifier_key(text))
        except NoteError as err:
            raise UsageError(str(err), field=field) from None
    return out

"""A signed auditor pack (``deal-ledger export --key KEY``; ``verify --pack DIR --pubkey
KEY.pub``): who vouches for a pack.

The signature is ``manifest.sig`` beside the manifest: a signed note (``ledger.notes``,
C2SP signed-note, Ed25519) whose text names the pack format, the deal and the SHA-256
of ``manifest.json`` as written, which seals every other file. It is the one file of a
pack the manifest does not list (it signs the manifest). A pack that has one is checked
against the keys given; a pack checked with a key and without one fails; a pack that
has one, checked with no key, says who signed it without having checked it.
"""

from __future__ import annotations

import hashlib

from ledger import notes

NAME = "manifest.sig"
TITLE = "deal-ledger auditor pack signature 1"


def text_of(deal: str, manifest: bytes) -> str:
    return f"{TITLE}\n{deal}\nmanifest.json sha256 {hashlib.sha256(manifest).hexdigest()}\n"


def sign(deal: str, manifest: bytes, key: notes.SignerKey) -> bytes:
    """The signature file of a pack of ``deal`` whose manifest is ``manifest``."""
    return notes.sign(text_of(deal, manifest), key).encode("utf-8")


def check(signature: bytes | None, deal: str, manifest: bytes,
          keys: list[notes.VerifierKey] | None) -> tuple[bool, str]:
    """``(ok, what)``: whether the pack's signature (``None``: it has none) holds for
    ``keys`` (``None``: none given), and what to say of it."""
    if signature is None:
        if keys:
            return False, "is missing: the pack is not signed"
        return True, "not signed"
    if not keys:
        return True, "signed (not checked: give --pubkey KEY.pub)"
    try:
        note = notes.open_note(signature, keys)
    except notes.NoteError as err:
        return False, str(err)
    if note.text != text_of(deal, manifest):
        return False, "signs another manifest or deal than this pack's (a file was changed)"
    signer = next(k for k in keys if note.signed_by(k))
    return True, f"signed by {signer.name} ({signer.id.hex()}), checked"

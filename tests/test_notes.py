"""Signed notes, keys and checkpoints in their public formats (``ledger.notes``), checked
against the formats' own published examples: Go's ``golang.org/x/mod/sumdb/note`` package
documentation (a signer key, its verifier key, a text and the exact signature line Go
makes: Ed25519 signatures are deterministic, so ours must be byte for byte the same) and
C2SP tlog-checkpoint's example checkpoint text."""

from __future__ import annotations

import base64

import pytest

from ledger import notes

# from golang.org/x/mod/sumdb/note's package documentation
GO_SIGNER = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
GO_VERIFIER = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
GO_TEXT = ("If you think cryptography is the answer to your problem,\n"
           "then you don't know what your problem is.\n")
GO_SIGNED = (GO_TEXT + "\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuG"
             "UgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n")


def test_go_keys_read_and_sign_as_go_does():
    key = notes.signer_key(GO_SIGNER)
    assert key.verifier == notes.verifier_key(GO_VERIFIER)
    assert key.verifier.text == GO_VERIFIER
    assert notes.sign(GO_TEXT, key) == GO_SIGNED
    opened = notes.open_note(GO_SIGNED.encode(), [key.verifier])
    assert opened.text == GO_TEXT
    assert [(s.name, s.key_id, s.kind) for s in opened.signatures] == \
        [("PeterNeumann", "c74f20a3", notes.ED25519)]


def test_a_key_is_never_shown():
    key = notes.signer_key(GO_SIGNER)
    assert "AYEKFALV" not in repr(key) and "AYEKFALV" not in str(key)


def test_a_generated_key_reads_back():
    text = notes.signer_text("ledger.example.com/deals", bytes(range(32)))
    key = notes.signer_key(text)
    assert text.startswith("PRIVATE+KEY+ledger.example.com/deals+")
    assert notes.verifier_key(key.verifier.text) == key.verifier
    # key id: SHA-256(name || 0x0A || 0x01 || public key)[:4]
    import hashlib

    want = hashlib.sha256(b"ledger.example.com/deals\n\x01" + key.public).digest()[:4]
    assert key.verifier.text.split("+")[1] == want.hex()


@pytest.mark.parametrize("bad", ["", "PeterNeumann+c74f20a3", "Peter Neumann+c74f20a3+AA==",
                                 GO_VERIFIER.replace("c74f20a3", "c74f20a4"),
                                 GO_VERIFIER[:-4] + "AAAA"])
def test_bad_verifier_keys_are_refused(bad):
    with pytest.raises(notes.NoteError):
        notes.verifier_key(bad)


def test_an_altered_note_or_another_key_fails():
    key = notes.signer_key(GO_SIGNER)
    other = notes.signer_key(notes.signer_text("PeterNeumann", bytes(32)))
    with pytest.raises(notes.NoteError, match="does not verify"):
        notes.open_note(GO_SIGNED.replace("answer", "answers").encode(), [key.verifier])
    # another key of the same name: its id differs, the signature is not its own
    with pytest.raises(notes.NoteError, match="not signed by the key given"):
        notes.open_note(GO_SIGNED.encode(), [other.verifier])
    # a signature line flipped one bit
    line = GO_SIGNED.split("\n")[-2]
    raw = bytearray(base64.b64decode(line.split(" ")[2]))
    raw[10] ^= 1
    bent = GO_SIGNED.replace(line.split(" ")[2], base64.b64encode(bytes(raw)).decode())
    with pytest.raises(notes.NoteError):
        notes.open_note(bent.encode(), [key.verifier])


def test_signatures_by_unknown_keys_are_ignored():
    key = notes.signer_key(GO_SIGNER)
    witness = notes.signer_key(notes.signer_text("witness.example.com/w1", bytes([7]) * 32))
    cosigned = GO_SIGNED + notes.signature_line(witness, GO_TEXT)
    assert notes.open_note(cosigned.encode(), [key.verifier]).signed_by(key.verifier)
    both = notes.open_note(cosigned.encode(), [key.verifier, witness.verifier])
    assert len(both.signatures) == 2


def test_the_cosignature_carries_the_time():
    """C2SP tlog-cosignature: key id over 0x04, the signed message ``cosignature/v1``,
    ``time T`` and the note's text; the signature is the id, T (8 bytes, big-endian)
    and the Ed25519 signature."""
    key = notes.signer_key(GO_SIGNER)
    signed = notes.sign(GO_TEXT, key, timestamp=1_679_315_147)
    opened = notes.open_note(signed.encode(), [key.verifier])
    assert opened.time(key.verifier) == 1_679_315_147
    line = signed.split("\n")[-2]
    raw = base64.b64decode(line.split(" ")[2])
    assert raw[4:12] == (1_679_315_147).to_bytes(8, "big")
    message = b"cosignature/v1\ntime 1679315147\n" + GO_TEXT.encode()
    assert key.verifier.verify(message, raw[12:])
    # the time cannot be moved: it is signed
    moved = raw[:4] + (1_679_315_148).to_bytes(8, "big") + raw[12:]
    bent = signed.replace(line.split(" ")[2], base64.b64encode(moved).decode())
    with pytest.raises(notes.NoteError):
        notes.open_note(bent.encode(), [key.verifier])


def test_the_c2sp_example_checkpoint_reads():
    text = ("example.com/behind-the-sofa\n20852163\n"
            "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n")
    cp = notes.read_checkpoint(text)
    assert (cp.origin, cp.size) == ("example.com/behind-the-sofa", 20852163)
    assert cp.root == base64.b64decode("CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=")
    assert cp.text == text


@pytest.mark.parametrize("text", ["origin\n12\n", "origin\n012\nAAAA\n", "origin\n12\nAAAA\n",
                                  "origin\n-1\n" + "A" * 43 + "=\n", "\n12\n" + "A" * 43 + "=\n"])
def test_what_is_not_a_checkpoint_is_refused(text):
    with pytest.raises(notes.NoteError):
        notes.read_checkpoint(text)


@pytest.mark.parametrize("name", ["", "a b", "a+b", "\x80", "a\u00a0b", "tab\there"])
def test_what_is_not_a_key_name(name):
    assert not notes.valid_name(name)
    with pytest.raises(notes.NoteError):
        notes.verifier_key(f"{name}+00000000+" + base64.b64encode(bytes(33)).decode())

"""What ``verify`` says (``Verdict``), and what a copy kept elsewhere says the log held
(``Witness``: ``verify --expect``)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Verdict:
    ok: bool
    count: int
    head_hash: str
    bad_seq: int | None = None
    reason: str | None = None
    #: the root of the log's Merkle tree over the events walked (hex), when it was made
    root: str | None = None
    #: the roots at the sizes asked for (``Walk(roots_at=...)``), hex
    roots: dict[int, str] = field(default_factory=dict)

    def line(self) -> str:
        if self.ok:
            # the hash on a line of its own: at 80 columns a terminal broke it mid-line
            return f"ok: {self.count} events\nhead {self.head_hash}"
        if self.bad_seq is None:
            return str(self.reason)
        return f"seq {self.bad_seq}: {self.reason}"


@dataclass(frozen=True)
class Witness:
    """What a copy kept elsewhere says the log held: ``by_seq`` hashes, or a ``head``
    hash somewhere in it."""

    by_seq: dict[int, str]
    head: str | None
    source: str

    @property
    def last_seq(self) -> int:
        return max(self.by_seq, default=0)

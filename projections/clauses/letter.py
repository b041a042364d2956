"""The anti-dilution deferral Letter (2002) paragraph by paragraph, and the two
Transaction Documents it defers: each clause the code cites, stated plainly in our own
words. The Letter's own words ship in ``ledger/contracts/``; tests/test_clauses.py checks
that every citation in the code has a statement here."""

from __future__ import annotations

#: Each Letter paragraph (and deferred Transaction Document) the code cites, stated plainly.
CLAUSES: dict[str, str] = {
    "Letter ¶1":
        "Names the Warrant Agreement, the Series A Preferred Certificate of Designations "
        "and the Warrantholders (DB Capital, the Sandler entities, Price and Benake) whose "
        "rights the letter changes.",
    "Letter ¶2":
        "The Warrantholders put off their anti-dilution protection for the Camden "
        "Warrants: it applies only as, and as far as, Camden Warrants become Vested "
        "Warrants.",
    "Letter ¶3":
        "For an exercise or conversion before February 1, 2004 followed by a Camden "
        "vesting, the company issues (x) the shares that exercise would have given on the "
        "vesting date with every adjustment, less (y) the shares already issued for it.",
    "Letter ¶4":
        "The company makes no anti-dilution adjustment except as the letter allows.",
    "Letter ¶5":
        "The letter changes nothing else in the transaction documents, does not reach "
        "later issuances, and may be signed in counterparts.",
    "Letter ¶6":
        "New York law governs the letter.",
    "Warrant Agreement Art. IV":
        "The Warrants' anti-dilution article (not in the seeds): a dilutive issuance lowers "
        "the exercise price by the formula the deal's terms name, and the share count "
        "rises so that the aggregate exercise price stays the same.",
    "Certificate of Designations §12":
        "The Series A Preferred's anti-dilution section (not in the seeds): the conversion "
        "price adjusts by the formula the deal's terms name; the Shares convert into "
        "stated value / conversion price shares of Common Stock.",
}

"""The Registration Rights Agreement (2004) clause by clause: each clause the code cites,
stated plainly in our own words (not the contract's), and the rate tiers of RRA §3(a).
The contract's own words ship in ``ledger/contracts/rra-2004.txt``; tests/test_clauses.py
checks that every citation in the code has a statement here."""

from __future__ import annotations

#: Each RRA clause the code cites, stated plainly.
CLAUSES: dict[str, str] = {
    "RRA §1 Business Day":
        "A Business Day is a weekday on which New York City banks are neither allowed nor "
        "required by law or executive order to close.",
    "RRA §1 Closing Date":
        "The Closing Date is the date of the agreement, June 30, 2004; the deadlines and "
        "the rate anniversaries count from it.",
    "RRA §1 Holder":
        "A Holder is anyone who owns Transfer Restricted Securities.",
    "RRA §1 Transfer Restricted Securities":
        "A Note, or a share issued on converting one, is restricted until (A) it is sold "
        "under the effective shelf, or (B) it stops being outstanding (redeemed, "
        "repurchased and cancelled, converted or otherwise).",
    "RRA §1 Transfer Restricted Securities (A)":
        "A restricted Note stops being restricted on the day it is sold under the "
        "effective shelf.",
    "RRA §1 Transfer Restricted Securities (B)":
        "A restricted Note stops being restricted on the day it stops being outstanding.",
    "RRA §1 Majority of Holders":
        "Holders of more than half of the principal of the Notes then outstanding; "
        "restricted conversion shares count as shares times the conversion price.",
    "RRA §1 Record Holder":
        "The Additional Interest for a payment date goes to whoever holds restricted Notes "
        "on that payment date's record date.",
    "RRA §1 Interest Payment Date":
        "The Interest Payment Dates are those of the Indenture (January 15 and July 15).",
    "RRA §1 Additional Interest Payment Date":
        "Additional Interest is paid on each Interest Payment Date.",
    "RRA §1":
        "The definitions of the agreement's capitalized terms.",
    "RRA §2(a)":
        "The company must file the resale shelf, get it declared effective and keep it "
        "effective, each by its deadline.",
    "RRA §2(a)(i)":
        "The company must file the resale shelf registration statement within 15 days "
        "after June 30, 2004 (the Shelf Filing Deadline).",
    "RRA §2(a)(ii)":
        "The company must use commercially reasonable efforts to have the shelf declared "
        "effective within 120 days after June 30, 2004 (the Effectiveness Target Date).",
    "RRA §2(a)(iii)":
        "The company must keep the shelf effective and usable for the Effectiveness "
        "Period, which ends at the earliest of (x) two years after it became effective, "
        "(y) the sale under it of everything it registered, and (z) nothing restricted "
        "being outstanding any more.",
    "RRA §2(a)(iii)(x)":
        "The Effectiveness Period ends at the latest on the second anniversary of the day "
        "the shelf became effective.",
    "RRA §2(a)(iii)(y)":
        "The Effectiveness Period ends when everything the shelf registered has been sold "
        "under it.",
    "RRA §2(a)(iii)(z)":
        "The Effectiveness Period ends when no restricted security is outstanding.",
    "RRA §2(b)":
        "A Holder named in the shelf must return the Questionnaire by the 20th Business Day "
        "after the company asks in writing; for a late Questionnaire the company files an "
        "amendment or supplement within 10 Business Days, at most one pre-effective "
        "amendment a fiscal quarter and one post-effective amendment a half year, and only "
        "for more than $1 million of Notes.",
    "RRA §3(a)":
        "If a Registration Default happens, the company pays Additional Interest on the "
        "restricted Notes from the day after the default until the day it is cured, at "
        "stepped rates; converted Notes earn none, and a Holder that did not answer a "
        "requested Questionnaire in time is not entitled to it.",
    "RRA §3(a)(i)":
        "Registration Default (i): the shelf is not filed on or before the Shelf Filing "
        "Deadline.",
    "RRA §3(a)(ii)":
        "Registration Default (ii): the shelf is not declared effective on or before the "
        "Effectiveness Target Date.",
    "RRA §3(a)(iii)":
        "Registration Default (iii): once effective, during the Effectiveness Period, the "
        "shelf stops being effective or usable and is not fixed within five Business Days "
        "(suspensions allowed by §4(b)(i) aside).",
    "RRA §3(a)(iv)":
        "Registration Default (iv): a Suspension Period runs past its 45th (60th) day, or "
        "Suspension Periods add up to more than 90 days in a 360-day period.",
    "RRA §3(a)(iv)(A)":
        "Registration Default (iv)(A): a Suspension Period is not over by its 45th day "
        "(60th with a pending material transaction).",
    "RRA §3(a)(iv)(B)":
        "Registration Default (iv)(B): Suspension Periods add up to more than 90 days in "
        "some 360-day period.",
    "RRA §3(b)":
        "The company tells the Trustee within two Business Days after each default date; "
        "Additional Interest is paid in cash, every six months in arrears, on each "
        "Interest Payment Date, to the Record Holders; what a security earned survives it "
        "ceasing to be restricted.",
    "RRA §4(b)(i)":
        "The company keeps the shelf effective and fixes misstatements promptly, but may "
        "suspend its use by written notice for up to 45 days in any 90-day period (60 for "
        "an undisclosed material transaction), and 90 days in any 360-day period.",
    "RRA §4(b)(iii)":
        "The company must tell the selling Holders within five Business Days when a "
        "prospectus or amendment is filed or becomes effective, of SEC requests, of stop "
        "orders, and of facts that make the prospectus misleading.",
    "RRA §4(c)":
        "On a Suspension Notice the Holders stop selling under the shelf until they get the "
        "amended prospectus or are told in writing they may resume.",
    "RRA §4(d)":
        "The Questionnaire rule again: 20 Business Days to answer a written request; a "
        "late answer gets an amendment within ten Business Days, within the same limits.",
    "RRA §10(D)":
        "The agreement can be amended or waived only with the written consent of a "
        "Majority of Holders.",
    "RRA §10(E)":
        "Notices are in writing and count as given: by hand on delivery; by mail five "
        "Business Days after posting; by telex when answered back; by fax when receipt is "
        "acknowledged; by overnight courier on the next Business Day.",
    "RRA §10(H)":
        "Securities the company or its affiliates hold do not count when deciding whether "
        "enough Holders consented.",
}

#: RRA §3(a) numbers its rate tiers (i)-(iv) as it numbers the defaults; a rate cites these.
RATE_TIERS: dict[str, str] = {
    "RRA §3(a)(i)": "Rate tier (i): 0.25% a year of principal for the first 90 days of a "
                    "Registration Default.",
    "RRA §3(a)(ii)": "Rate tier (ii): 1.00% a year from the 91st day to the second "
                     "anniversary of the Closing Date (June 30, 2006).",
    "RRA §3(a)(iii)": "Rate tier (iii): 3.00% a year from the second to the third "
                      "anniversary of the Closing Date.",
    "RRA §3(a)(iv)": "Rate tier (iv): from the third anniversary of the Closing Date the "
                     "rate rises by 2.00 points on each anniversary (5%, 7%, 9% ...).",
}


"""The Registration Rights engine (RRA, SPEC §4): pure functions from a deal's timeline to
the ``registration_rights`` part of the report.

Modules follow the contract's words: ``holdings`` (Holders, Notes, Transfer Restricted
Securities), ``questionnaire`` (§2(b), §4(d)), ``shelf`` (§2(a)), ``suspensions``
(§4(b)(i)), ``defaults`` (Registration Defaults, §3(a)(i)-(iv)), ``rates`` (episodes and
the §3(a) rate schedule), ``interest`` (Additional Interest and Interest Payment Dates,
§3(a)-(b)), ``deadlines`` (obligations with due dates), ``notices`` (§10(E)),
``majority`` (Majority of Holders, §1, §10(D), §10(H)) and ``report`` (the JSON).
"""

"""``python -m benchmarks.child JOB PARAMS_JSON``: run one job in this fresh process and
print its rows, with this process's own peak RSS (``resource.getrusage(RUSAGE_SELF)
.ru_maxrss``, KiB on Linux), as the last line of stdout."""

from __future__ import annotations

import json
import resource
import sys
import traceback

MARKER = "BENCH-RESULT "


def main() -> None:
    job, params = sys.argv[1], json.loads(sys.argv[2])
    from .jobs import JOBS

    try:
        rows = JOBS[job](params)
    except Exception as err:  # one broken case must not stop the suite
        traceback.print_exc()
        rows = [{"id": params.get("row", job), "status": "error",
                 "message": f"{type(err).__name__}: {' '.join(str(err).split())}"[:300]}]
    peak_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(MARKER + json.dumps({"rows": rows, "peak_self_kib": peak_self}), flush=True)


if __name__ == "__main__":
    main()

"""The files a SQLite ledger is kept in, so that nothing written beside it can take
their place (issue 29: ``agenda --cache d.db`` once turned a 58-event ledger into a
2.5 KB cache, and ``calendar --out d.db`` left an ICS file where the ledger was).

A ledger at ``PATH`` is ``PATH`` itself, SQLite's ``PATH-wal``, ``PATH-shm`` and
``PATH-journal`` (the write-ahead log holds committed events until a checkpoint: writing
a file of that name would be read as the log), the writers' lock ``PATH.lock``
(``ledger.store.locks``), and the per-deal cache files (``ledger.store.dealcache``). A
path is one of them if it names the same file (the same device and inode, whatever
link or name leads there) or, for one not there yet, the same place once links are
resolved. A PostgreSQL ledger keeps no file here but its cache files.
"""

from __future__ import annotations

import os

from . import dealcache
from .connection import is_postgres_url

SIDE_FILES = ("-wal", "-shm", "-journal", ".lock")


def _same(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` name one file: by device and inode where both exist,
    else by the place they lead to once links are resolved."""
    try:
        sa, sb = os.stat(a), os.stat(b)
        return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def own_file(path: str, url: str) -> str | None:
    """What of the ledger at ``url`` the path ``path`` is (``"the ledger"``, ``"the
    write-ahead log"``...), or ``None`` if it is none of its files."""
    if not path:
        return None
    if not is_postgres_url(url):
        names = {"": "the ledger", "-wal": "the write-ahead log", "-shm": "the shared memory",
                 "-journal": "the journal", ".lock": "the writers' lock"}
        for suffix, what in names.items():
            if _same(path, url + suffix):
                return what
    directory = dealcache.cache_dir()
    if directory is not None:
        ledger = url if is_postgres_url(url) else os.path.realpath(url)
        folder = os.path.dirname(dealcache.cache_path(directory, ledger, "x"))
        if os.path.dirname(os.path.realpath(path)) == os.path.realpath(folder):
            return "a cache file"
    return None

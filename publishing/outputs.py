"""Files the commands write for people (a calendar, the agenda's cache, the views'
metadata, saved scenarios, the views file, keys and checkpoints; and whole directories:
auditor packs, Holder statements): never over the ledger, never through a link planted
at a temporary name, private to their user.

* **Not the ledger** (issue 29): a path that is the ledger or one of its files
  (``ledger.store.files``: its write-ahead log, lock, cache...) is refused, by inode, not
  by name, naming the option.
* **Whole or not at all**: written to a temporary file beside it, made with ``mkstemp``
  (``O_CREAT | O_EXCL``: a name that exists, or a link planted there, is never opened),
  then renamed over the path (a rename replaces a link at the path, never what it points
  to).
* **Private**: mode 0600 (a ledger, its views and its scenarios hold every event with
  who recorded it).
"""

from __future__ import annotations

import os
import tempfile

from ledger.errors import UsageError
from ledger.store.connection import redact
from ledger.store.files import own_file


def refuse_ledger(path: str, ledger_url: str, field: str) -> None:
    """``UsageError`` if ``path`` is the ledger at ``ledger_url`` or one of its files."""
    what = own_file(path, ledger_url)
    if what is not None:
        whose = "itself" if what == "the ledger" else f"of the ledger {redact(ledger_url)}"
        raise UsageError(f"{path} is {what} {whose}: choose another path (nothing was "
                         "written)", field=field)


def replace_whole(path: str, data: bytes, *, ledger_url: str, field: str,
                  prefix: str = ".deal-ledger-") -> None:
    """Write ``data`` to ``path``, whole or not at all, private (module doc)."""
    if not path.strip():
        raise UsageError(f"give a file path, not {path!r}", field=field)
    refuse_ledger(path, ledger_url, field)
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path) or not os.path.isdir(folder):
        raise UsageError(f"cannot write {path}: "
                         + ("it is a folder" if os.path.isdir(path) else f"no folder {folder}"),
                         field=field)
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=prefix)   # 0600, O_EXCL
    except OSError as err:
        raise UsageError(f"cannot write in {folder}: {err.strerror}", field=field) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as err:
        _remove(tmp)
        raise UsageError(f"cannot write {path}: {err.strerror}", field=field) from None
    except BaseException:
        _remove(tmp)
        raise


def new_directory(out: str, what: str, field: str = "--out") -> str:
    """Refuse ``out`` unless it is a new directory, or an empty one (``what`` is never
    written over); its parent directory."""
    target = os.path.abspath(out)
    parent = os.path.dirname(target)
    if not os.path.isdir(parent):
        raise UsageError(f"no such directory: {parent}", field=field)
    if os.path.lexists(target) and (not os.path.isdir(target) or os.path.islink(target)
                                    or os.listdir(target)):
        raise UsageError(f"{out} already exists and is not an empty directory; {what} is "
                         "never written over", field=field)
    return parent


def write_directory(out: str, files: dict[str, bytes], *, prefix: str, what: str,
                    field: str = "--out") -> None:
    """``files`` (name -> bytes) as the new directory ``out`` (``new_directory``), whole
    or not at all: written in a private folder beside it (``mkdtemp``: 0700; each file
    0600, ``O_EXCL | O_NOFOLLOW``: never through a link), then renamed into place. A
    Ctrl-C leaves nothing half-written (a SIGKILL may leave the hidden folder, which the
    pack's export clears: ``publishing.pack.remove_stale_temporaries``)."""
    import shutil

    target = os.path.abspath(out)
    parent = new_directory(out, what, field)
    try:
        tmp = tempfile.mkdtemp(prefix=prefix, dir=parent)
    except OSError as err:
        raise UsageError(f"cannot write in {parent}: {err.strerror}", field=field) from None
    try:
        for name, data in files.items():
            fd = os.open(os.path.join(tmp, name),
                         os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        if os.path.isdir(target):
            os.rmdir(target)  # empty, checked above
        os.rename(tmp, target)
    except OSError as err:
        shutil.rmtree(tmp, ignore_errors=True)
        raise UsageError(f"cannot write {what} to {out}: {err.strerror}",
                         field=field) from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def write_new(path: str, data: bytes, *, ledger_url: str, field: str,
              prefix: str = ".deal-ledger-") -> None:
    """``data`` as the new file ``path``, never over a file (a terms file started or
    drafted: what a person fills in is not lost to a second run), whole or not at all,
    private (``replace_whole``)."""
    if os.path.lexists(path):
        raise UsageError(f"{path} exists: give a new file", field=field)
    replace_whole(path, data, ledger_url=ledger_url, field=field, prefix=prefix)


def create_private(path: str, ledger_url: str, field: str) -> None:
    """A file another library will write in place (the views' SQLite file), created empty
    and private if it is not there, without following a link; refused if it is the
    ledger."""
    if not path.strip():
        raise UsageError(f"give a file path, not {path!r}", field=field)
    refuse_ledger(path, ledger_url, field)
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o600)
        os.close(fd)
    except FileExistsError:
        pass
    except OSError as err:
        raise UsageError(f"cannot create {path}: {err.strerror}", field=field) from None


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass

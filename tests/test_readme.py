"""Every shell example of README.md is a tested example (issue 15, item 1): the README's
```bash blocks are run in order, in one fresh temp directory, with the virtual
environment's installed ``deal-ledger`` first on PATH and COLUMNS=80, as a newcomer
following it word for word would. A command that fails fails the test, naming the block,
its README line and the output.

A block is left out only by a marker on the line just above it, visible in the README's
source:

* ``<!-- readme-test: skip (WHY) -->``: never run here (set-up, a server, minutes of work);
* ``<!-- readme-test: needs TOOL -->``: run when TOOL is on PATH (an optional tool);
* ``<!-- readme-test: postgres (...) -->``: run on a fresh database of
  $DEAL_LEDGER_TEST_PG, whose URL replaces the example's ``postgresql://...`` URL, in a
  test of its own that skips with the reason when no server is given.

Blocks share the directory and the exported variables (each block starts from the
variables the one before left), as a reader's shell does. A block fenced as ```sh or
```shell would escape all this: there must be none.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
MARKER = re.compile(r"<!--\s*readme-test:\s*(skip|needs|postgres)\b\s*(.*?)\s*-->")
PG_EXAMPLE = re.compile(r"postgresql://[^\s\"']+")
STEP_SECONDS = 600


@dataclass(frozen=True)
class Block:
    number: int        # 1-based, among the README's bash blocks
    line: int          # README line of its first command
    code: str
    marker: str | None  # skip, needs, postgres or None
    argument: str

    def where(self) -> str:
        return f"README.md block {self.number} (line {self.line})"


def bash_blocks(text: str) -> list[Block]:
    blocks: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        fence = re.fullmatch(r"```(\w*)\s*", lines[i])
        if not fence:
            i += 1
            continue
        start = i + 1
        end = start
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        if fence.group(1) == "bash":
            above = i - 1
            while above >= 0 and not lines[above].strip():
                above -= 1
            found = MARKER.search(lines[above]) if above >= 0 else None
            blocks.append(Block(len(blocks) + 1, start + 1, "\n".join(lines[start:end]) + "\n",
                                found.group(1) if found else None,
                                found.group(2).strip("() ") if found else ""))
        i = end + 1
    return blocks


BLOCKS = bash_blocks(README.read_text(encoding="utf-8"))


def environment(home: Path) -> dict[str, str]:
    """The reader's shell: the venv's console scripts first on PATH, 80 columns, no
    ledger chosen, a home of its own."""
    venv_bin = str(Path(sys.executable).parent)
    assert Path(venv_bin, "deal-ledger").exists(), \
        f"no deal-ledger console script beside {sys.executable}: pip install -e . first"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LEDGER_", "PYTEST", "COV_"))}
    env.update(PATH=venv_bin + os.pathsep + os.environ.get("PATH", ""), COLUMNS="80",
               HOME=str(home), LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8")
    return env


def run_block(block: Block, cwd: Path, env: dict[str, str], state: Path) -> None:
    """Run one block under ``bash -e`` after the variables the last block exported; fail
    naming the block, the README line of the failing command and the output."""
    script = (f"[ -f {state} ] && source {state}\n"
              "set -eo pipefail\n"
              f"trap 'echo \"readme-test: failed at block line $LINENO\" >&2' ERR\n"
              + block.code +
              f"export -p > {state}\n")
    try:
        done = subprocess.run(["bash", "-c", script], cwd=cwd, env=env, text=True,
                              capture_output=True, timeout=STEP_SECONDS)
    except subprocess.TimeoutExpired as err:
        pytest.fail(f"{block.where()} did not finish in {STEP_SECONDS} s:\n{block.code}"
                    f"\n{err.stdout or ''}{err.stderr or ''}")
    if done.returncode == 0:
        return
    failed = re.search(r"readme-test: failed at block line (\d+)", done.stderr)
    line = block.line + int(failed.group(1)) - 4 if failed else block.line  # 3 lines of prelude
    lines = README.read_text(encoding="utf-8").splitlines()
    command = lines[line - 1] if 0 < line <= len(lines) else "?"
    output = (done.stdout[-3000:] + done.stderr[-3000:]).strip()
    pytest.fail(f"{block.where()}: the command at README.md line {line} exited "
                f"{done.returncode}:\n    {command}\n--- its output ---\n{output}")


def test_every_shell_block_is_fenced_as_bash():
    others = [m.group(0) for m in re.finditer(r"^```(sh|shell|console|zsh)\s*$",
                                              README.read_text(encoding="utf-8"), re.M)]
    assert not others, "fence shell examples as ```bash so that they are tested"


def test_markers_are_known_and_used_sparingly():
    marked = [b for b in BLOCKS if b.marker]
    assert all(b.marker != "skip" or b.argument for b in marked), "a skip gives its reason"
    assert len(BLOCKS) - len(marked) >= 4  # the tour, the batch, auditors, analysts run


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """Run every block that runs here, in order; the blocks left out, with why."""
    where = tmp_path_factory.mktemp("readme")
    (where / "home").mkdir()
    env = environment(where / "home")
    state = where / "exported.sh"
    work = where / "work"
    work.mkdir()
    left_out: list[str] = []
    for block in BLOCKS:
        if block.marker in ("skip", "postgres"):
            continue
        if block.marker == "needs" and shutil.which(block.argument, path=env["PATH"]) is None:
            left_out.append(f"{block.where()} needs {block.argument}, which is not installed")
            continue
        run_block(block, work, env, state)
    return work, left_out


def test_the_readme_examples_run_in_order(ran):
    work, _ = ran
    # what the examples leave behind is what they say they make
    assert (work / "ledger.db").exists() and (work / "events.jsonl").exists()
    assert (work / "demo.db").exists() and (work / "pack-rra" / "index.html").exists()
    assert (work / "views.db").exists()


def test_the_readme_examples_that_need_an_optional_tool(ran):
    _, left_out = ran
    if left_out:
        pytest.skip("; ".join(left_out))


def test_the_readme_postgresql_examples(tmp_path):
    from tests.conftest import drop_pg, fresh_pg_url

    blocks = [b for b in BLOCKS if b.marker == "postgres"]
    assert blocks, "the README shows PostgreSQL"
    url = fresh_pg_url()  # skips with its reason when $DEAL_LEDGER_TEST_PG is not set
    try:
        (tmp_path / "home").mkdir()
        env = environment(tmp_path / "home")
        for block in blocks:
            code = PG_EXAMPLE.sub(url, block.code)
            assert code != block.code, f"{block.where()} names no postgresql:// URL"
            run_block(Block(block.number, block.line, code, None, ""), tmp_path, env,
                      tmp_path / "exported.sh")
    finally:
        drop_pg(url)


def test_a_failing_example_is_named_with_its_line(tmp_path):
    block = Block(99, 500, "true\ndeal-ledger no-such-command\ntrue\n", None, "")
    (tmp_path / "home").mkdir()
    with pytest.raises(pytest.fail.Exception) as failed:
        run_block(block, tmp_path, environment(tmp_path / "home"), tmp_path / "x.sh")
    message = str(failed.value)
    assert "README.md block 99 (line 500)" in message
    assert "README.md line 501 exited 2" in message and "No such command" in message

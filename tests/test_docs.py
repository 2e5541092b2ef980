"""The documentation cannot rot: every Python sample in ``docs/*.md`` and ``README.md`` runs.

Conventions for fenced code blocks (```` ```python ````):

* Each block runs in a fresh namespace, in a temporary working directory, after
  ``tf.reset_default_graph()``.
* A block whose first line is ``# continued`` shares the namespace of the block before it
  in the same file (and does not reset the graph): a "chain" of blocks is one test.
* A block whose first line is ``# not run: <reason>`` is shown but not executed (a
  fragment). At most ``MAX_NOT_RUN_FRACTION`` of all Python blocks may be marked so.
* ``bash`` and other blocks are not executed; README's Quick start block must hold exactly
  two commands (the README and ``.ci/run`` promise that).

Also checked: every name in ``docs/api.md`` exists (and every public name is listed there:
regenerate with ``python docs/_gen_api.py``), every name in the tables of
``docs/porting.md`` exists, and every relative link in the docs points at a file.
"""
import importlib
import logging
import pathlib
import re
import runpy
import sys
import tempfile

import pytest

import estimator_npu as tf

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
MAX_NOT_RUN_FRACTION = 0.10

CONTINUED = "# continued"
NOT_RUN = "# not run:"
_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")


def markdown_files():
    return sorted(DOCS.glob("*.md")) + [ROOT / "README.md"]


def _rel(path):
    return path.relative_to(ROOT).as_posix()


def fenced_blocks(path, text=None):
    """``[(language, first line number of the code, code)]`` of the fenced blocks of the
    file ``path`` (or of ``text``, a part of it)."""
    if text is None:
        text = path.read_text(encoding="utf-8")
    blocks, lines = [], text.splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        fence, language = m.group("fence"), m.group("info").strip().split(" ")[0].lower()
        indent = len(m.group("indent"))
        start, i = i + 1, i + 1
        while i < len(lines) and not (lines[i].strip().startswith(fence)
                                      and lines[i].strip().strip(fence[0]) == ""):
            i += 1
        if i == len(lines):
            raise ValueError(f"{_rel(path)}:{start}: unterminated code fence")
        # as CommonMark: a fence indented by n spaces (in a list item) removes up to n
        # spaces from each line of its content
        code = [line[min(indent, len(line) - len(line.lstrip(" "))):]
                for line in lines[start:i]]
        blocks.append((language, start + 1, "\n".join(code) + "\n"))
        i += 1
    return blocks


def _first_line(code):
    return code.lstrip("\n").split("\n", 1)[0].strip()


def python_blocks(path):
    return [(line, code) for language, line, code in fenced_blocks(path)
            if language in ("python", "py", "python3")]


def chains():
    """Per file, the runnable chains: ``(path, [(line, code), ...])``."""
    out = []
    for path in markdown_files():
        current = None
        for line, code in python_blocks(path):
            first = _first_line(code)
            if first.startswith(NOT_RUN):
                current = None
            elif first == CONTINUED and current is not None:
                current[1].append((line, code))
            else:
                current = (path, [(line, code)])
                out.append(current)
    return out


CHAINS = chains()


@pytest.fixture
def clean_state(tmp_path, monkeypatch):
    """A temporary working directory (also for ``tempfile.mkdtemp()``), a new default
    graph, the library logger restored afterwards."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    logger = logging.getLogger("estimator_npu")
    level, handlers = logger.level, list(logger.handlers)
    tf.reset_default_graph()
    yield tmp_path
    logger.setLevel(level)
    logger.handlers[:] = handlers
    tf.reset_default_graph()


@pytest.mark.parametrize("path,blocks", CHAINS,
                         ids=[f"{_rel(p)}:{b[0][0]}" for p, b in CHAINS])
def test_code_block_runs(path, blocks, clean_state):
    namespace = {"__name__": "__docs__"}
    for line, code in blocks:
        # Pad with newlines so that tracebacks show the line numbers of the markdown file.
        compiled = compile("\n" * (line - 1) + code, str(path), "exec")
        exec(compiled, namespace)  # noqa: S102 - the point of this test


def test_block_markers_are_well_formed():
    problems = []
    for path in markdown_files():
        previous = None
        for line, code in python_blocks(path):
            first = _first_line(code)
            where = f"{_rel(path)}:{line}"
            if first == CONTINUED and (previous is None or previous.startswith(NOT_RUN)):
                problems.append(f"{where}: '# continued' needs a run block before it")
            if first.startswith(NOT_RUN) and not first[len(NOT_RUN):].strip():
                problems.append(f"{where}: '# not run:' needs a reason")
            if first.startswith("#") and first.lower().startswith(("# continue", "# not run"))\
                    and first != CONTINUED and not first.startswith(NOT_RUN):
                problems.append(f"{where}: misspelt marker {first!r}")
            previous = first
    assert not problems, "\n".join(problems)


def test_few_blocks_are_not_run():
    total, skipped = 0, []
    for path in markdown_files():
        for line, code in python_blocks(path):
            total += 1
            if _first_line(code).startswith(NOT_RUN):
                skipped.append(f"{_rel(path)}:{line}")
    assert total > 0
    assert len(skipped) <= MAX_NOT_RUN_FRACTION * total, (
        f"{len(skipped)} of {total} python blocks are marked '# not run' (at most "
        f"{MAX_NOT_RUN_FRACTION:.0%} may be): {skipped}")


def _shell_commands(code):
    """Logical command lines: comments and blank lines dropped, ``\\`` continuations joined."""
    commands, pending = [], ""
    for raw in code.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        commands.append(pending + line)
        pending = ""
    if pending:
        commands.append(pending)
    return commands


def test_readme_quick_start_holds_two_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^## Quick start\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert section is not None, "README.md has no '## Quick start' section"
    bash = [code for language, _, code in fenced_blocks(ROOT / "README.md", section.group(1))
            if language in ("bash", "sh", "shell", "console")]
    assert len(bash) == 1, f"expected one bash block in Quick start, found {len(bash)}"
    commands = _shell_commands(bash[0])
    assert len(commands) == 2, f"Quick start must hold exactly two commands: {commands}"


# ------------------------------------------------------------------ names in the docs
def _resolve(dotted):
    """The object at ``dotted`` (``estimator_npu.train.Saver``), importing modules."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def _api_entries():
    """``[(module, name)]`` of ``docs/api.md``: ``## `module` `` headings, ``| `name` |`` rows."""
    entries, module = [], None
    for line in (DOCS / "api.md").read_text(encoding="utf-8").splitlines():
        m = re.match(r"^##+ `([\w.]+)`", line)
        if m:
            module = m.group(1)
            continue
        m = re.match(r"^\| `([\w]+)`", line)
        if m and module is not None:
            entries.append((module, m.group(1)))
    return entries


def test_api_reference_names_exist():
    entries = _api_entries()
    assert len(entries) > 100
    missing = []
    for module, name in entries:
        try:
            _resolve(f"{module}.{name}")
        except (ImportError, AttributeError):
            missing.append(f"{module}.{name}")
    assert not missing, f"docs/api.md documents names that do not exist: {missing}"


def test_api_reference_lists_every_public_name():
    generator = runpy.run_path(str(DOCS / "_gen_api.py"))
    documented = set(_api_entries())
    public = set(generator["public_entries"]())
    assert not public - documented, (
        "public names missing from docs/api.md (run `python docs/_gen_api.py`): "
        f"{sorted('.'.join(e) for e in public - documented)}")


def _porting_entries():
    """``[(module, name)]`` from the rows of ``docs/porting.md`` tables that read
    ``| TF1 | `estimator_npu.xxx` | `name`, `name`, ... |``."""
    entries = []
    for line in (DOCS / "porting.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not re.fullmatch(r"`estimator_npu[\w.]*`", cells[1]):
            continue
        module = cells[1].strip("`")
        for name in re.findall(r"`([A-Za-z_]\w*)`", cells[2]):
            entries.append((module, name))
    return entries


def test_porting_table_names_exist():
    entries = _porting_entries()
    assert len(entries) > 100
    missing = []
    for module, name in entries:
        try:
            _resolve(f"{module}.{name}")
        except (ImportError, AttributeError):
            missing.append(f"{module}.{name}")
    assert not missing, f"docs/porting.md lists names that do not exist: {missing}"


def test_relative_links_resolve():
    broken = []
    for path in markdown_files():
        text = path.read_text(encoding="utf-8")
        text = re.sub(r"^(`{3,}|~{3,}).*?^\1", "", text, flags=re.M | re.S)  # no code
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            file_part = target.split("#", 1)[0]
            if not (path.parent / file_part).exists():
                broken.append(f"{_rel(path)}: {target}")
    assert not broken, f"links to missing files: {broken}"


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))

"""The documentation's examples run (the README and docs/): every `$ kiosk …` line, and the
Python example's commented values."""

from __future__ import annotations

import re
import shlex

import pytest

from .helpers import ROOT, kiosk

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TEXT = "\n".join(page.read_text(encoding="utf-8") for page in PAGES)


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", TEXT, flags=re.S)


@pytest.mark.process
def test_every_console_line_runs():
    commands = [line[2:] for block in blocks("console") for line in block.splitlines()
                if line.startswith("$ kiosk ")]
    assert len(commands) >= 5
    for command in commands:
        done = kiosk(*shlex.split(command)[1:])
        assert done.returncode == 0, (command, done.stderr)
        assert done.stdout.strip(), command


@pytest.mark.unit
def test_python_example_gives_the_values_in_its_comments():
    (code,) = blocks("python")
    namespace: dict = {}
    checked = 0
    for line in code.splitlines():
        statement, _, comment = line.partition("  # ")
        if "=" not in statement and comment.startswith("("):
            assert repr(eval(statement, namespace)) == comment.strip()
            checked += 1
        else:
            exec(statement, namespace)
    assert checked == 1


@pytest.mark.unit
def test_the_readme_is_a_front_page_and_its_links_lead_somewhere():
    """At most 200 lines (the detail lives in docs/), and every page it links to is there."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    assert "make demo" in readme and "make test" in readme
    links = re.findall(r"\]\(([^)#]+)\)", readme)
    assert links and [link for link in links if not (ROOT / link).exists()] == []
    assert "../shared" not in TEXT  # nothing points outside the repository


@pytest.mark.unit
def test_every_link_in_the_docs_leads_somewhere():
    """A link in docs/ is relative to its page (docs/screenshots/…, not docs/docs/…)."""
    broken = [(page.name, link) for page in PAGES[1:]
              for link in re.findall(r"\]\(([^)#:]+)\)", page.read_text(encoding="utf-8"))
              if not (page.parent / link).exists()]
    assert broken == []

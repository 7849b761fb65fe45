"""What the project installs is what it was tested with."""

from __future__ import annotations

import tomllib
from importlib import metadata

import pytest
from packaging.requirements import Requirement

from .helpers import ROOT

pytestmark = pytest.mark.unit


def constraints() -> dict[str, str]:
    lines = (ROOT / "deploy" / "constraints.txt").read_text(encoding="utf-8").splitlines()
    pins = (line.split("==") for line in lines if "==" in line and not line.startswith("#"))
    return {name.lower().replace("_", "-"): version for name, version in pins}


def requirement(name: str) -> Requirement:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [*project["dependencies"], *(r for extra in project["optional-dependencies"].values()
                                          for r in extra)]
    return next(r for r in map(Requirement, wanted) if r.name == name)


def test_the_test_machine_runs_the_constraints_versions():
    """`make test` installs with deploy/constraints.txt, as every kiosk and the scorer do."""
    pinned = constraints()
    installed = {d.metadata["Name"].lower().replace("_", "-"): d.version
                 for d in metadata.distributions()}
    differ = {name: (version, installed[name]) for name, version in pinned.items()
              if name in installed and installed[name] != version}
    assert differ == {}
    assert {"pytest-xdist", "uvicorn", "starlette", "kivy"} <= set(pinned)


def test_uvicorn_is_pinned_to_the_release_the_connection_guard_was_written_for():
    """The guard builds on uvicorn's httptools protocol (not a public API): the project pins
    uvicorn's minor release, the constraints name a version inside it, and the names the guard
    uses are there."""
    pin = requirement("uvicorn")
    assert any(spec.operator == "<" for spec in pin.specifier)  # a ceiling, not only a floor
    assert pin.specifier.contains(constraints()["uvicorn"])
    from uvicorn.protocols.http import httptools_impl

    assert hasattr(httptools_impl, "STATUS_LINE")
    assert {"connection_made", "data_received", "send_400_response"} <= set(
        vars(httptools_impl.HttpToolsProtocol))


def test_the_package_says_one_version():
    """The release in pyproject.toml is the one the code reports and the changelog names."""
    import kiosk

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert kiosk.__version__ == project["version"]
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"\n## {project['version']} (" in changelog


def test_the_extras_docs_deployment_names_are_the_projects():
    """docs/deployment.md says what each extra brings: each library it names is in that
    extra, and none it says both sides share is only one side's."""
    import re

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = {extra: {Requirement(r).name.lower() for r in reqs}
              for extra, reqs in project["optional-dependencies"].items()}
    common = {Requirement(r).name.lower() for r in project["dependencies"]}
    text = " ".join((ROOT / "docs/deployment.md").read_text(encoding="utf-8").split())
    named = dict(re.findall(r"kiosk80\[(\w+)\]'?`?(?: on (?:a|the) \w+)? \(([^)]*)\)", text))
    assert set(named) == {"table", "scorer"}, named
    for extra, libraries in named.items():
        names = {n.strip().lower() for n in libraries.split(",")}
        assert names <= extras[extra], (extra, names - extras[extra])
    shared = re.search(r"\(([^()]*) are common", text)
    if shared:
        for name in re.split(r",\s*|\s+and\s+", shared.group(1)):
            assert name.strip().lower() in common, name

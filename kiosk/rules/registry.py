"""Finding rulesets: the four shipped with the package, plus an organiser's house rulesets."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Iterator, Mapping
from importlib import resources
from pathlib import Path

from .errors import RulesError, RulesetError
from .ruleset import Ruleset, parse_ruleset

BUILTIN_IDS = ("xiamen-2015", "standard-80fen", "chaodipi-2011", "shuangsheng-2011")


class Rulesets(Mapping[str, Ruleset]):
    """The rulesets known to this run, by id, built-in ones first."""

    def __init__(self, rulesets: Mapping[str, Ruleset]) -> None:
        self._rulesets = dict(rulesets)

    @classmethod
    def load(cls, house_dirs: Iterable[str | os.PathLike[str]] = ()) -> Rulesets:
        """The built-in rulesets plus every ``*.toml`` file in `house_dirs`. Raises
        RulesetError for a broken file, a missing directory or an id used twice."""
        found = dict(_builtin())
        for directory in house_dirs:
            path = Path(directory)
            if not path.is_dir():
                raise RulesetError(str(path), "", "no such directory of house rulesets").explained(
                    "rules.file.no_directory")
            for file in sorted(path.glob("*.toml")):
                ruleset = parse_ruleset(file.read_bytes(), str(file))
                if ruleset.id in found:
                    raise RulesetError(str(file), "id", f"'{ruleset.id}' is already used by "
                                       f"{found[ruleset.id].file}; give the house ruleset its "
                                       "own id").explained(
                        "rules.file.id_taken", id=ruleset.id, other=found[ruleset.id].file)
                found[ruleset.id] = ruleset
        return cls(found)

    def __getitem__(self, ruleset_id: str) -> Ruleset:
        return self._rulesets[ruleset_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._rulesets)

    def __len__(self) -> int:
        return len(self._rulesets)

    def require(self, ruleset_id: object) -> Ruleset:
        """The ruleset with this id. Raises RulesError naming the known ids."""
        ruleset = self._rulesets.get(ruleset_id) if isinstance(ruleset_id, str) else None
        if ruleset is None:
            shown = repr(ruleset_id) if not isinstance(ruleset_id, str) else f"'{ruleset_id}'"
            raise RulesError(f"unknown ruleset {ruleset_id!r}; known: {', '.join(self)}"
                             ).explained("rules.ruleset_unknown", id=shown, known=", ".join(self))
        return ruleset


@functools.cache
def _builtin() -> tuple[tuple[str, Ruleset], ...]:
    data = resources.files("kiosk.rules") / "data"
    out = []
    for ruleset_id in BUILTIN_IDS:
        entry = data / f"{ruleset_id}.toml"
        ruleset = parse_ruleset(entry.read_bytes(), f"kiosk/rules/data/{ruleset_id}.toml")
        assert ruleset.id == ruleset_id, entry
        out.append((ruleset_id, ruleset))
    return tuple(out)

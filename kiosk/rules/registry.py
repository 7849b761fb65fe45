"""Finding rulesets: the four shipped with the package, plus an organiser's house rulesets."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from .errors import RulesError, RulesetError
from .ruleset import Ruleset, parse_ruleset

BUILTIN_IDS = ("xiamen-2015", "standard-80fen", "chaodipi-2011", "shuangsheng-2011")


class Rulesets(Mapping[str, Ruleset]):
    """The rulesets known to this run, by id, built-in ones first. A built-in ruleset is read
    when it is first asked for: a replay of one match reads one file, not four."""

    def __init__(self, rulesets: Mapping[str, Ruleset | None]) -> None:
        self._rulesets = dict(rulesets)  # None: a built-in one, not read yet

    @classmethod
    def load(cls, house_dirs: Iterable[str | os.PathLike[str]] = ()) -> Rulesets:
        """The built-in rulesets plus every ``*.toml`` file in `house_dirs`. Raises
        RulesetError for a broken file, a missing directory or an id used twice."""
        found: dict[str, Ruleset | None] = dict.fromkeys(BUILTIN_IDS)
        for directory in house_dirs:
            path = Path(directory)
            if not path.is_dir():
                raise RulesetError(str(path), "", "no such directory of house rulesets").explained(
                    "rules.file.no_directory")
            for file in sorted(path.glob("*.toml")):
                ruleset = parse_ruleset(file.read_bytes(), str(file))
                if ruleset.id in found:
                    other = cls(found)[ruleset.id].file
                    raise RulesetError(str(file), "id", f"'{ruleset.id}' is already used by "
                                       f"{other}; give the house ruleset its own id").explained(
                        "rules.file.id_taken", id=ruleset.id, other=other)
                found[ruleset.id] = ruleset
        return cls(found)

    def __getitem__(self, ruleset_id: str) -> Ruleset:
        ruleset = self._rulesets[ruleset_id]
        return _builtin(ruleset_id) if ruleset is None else ruleset

    def __iter__(self) -> Iterator[str]:
        return iter(self._rulesets)

    def __len__(self) -> int:
        return len(self._rulesets)

    def require(self, ruleset_id: object) -> Ruleset:
        """The ruleset with this id. Raises RulesError naming the known ids."""
        if not isinstance(ruleset_id, str) or ruleset_id not in self._rulesets:
            # (a record's JSON may give no text: shown as it is written there)
            shown = ruleset_id if isinstance(ruleset_id, str) else json.dumps(ruleset_id)
            raise RulesError(f"unknown ruleset {ruleset_id!r}; known: {', '.join(self)}"
                             ).explained("rules.ruleset_unknown", id=shown, known=", ".join(self))
        return self[ruleset_id]


@functools.cache
def _builtin(ruleset_id: str) -> Ruleset:
    # The package's own folder, not importlib.resources: a kiosk is installed as files, and
    # resources' readers cost a replay's start more than the ruleset it reads.
    entry = Path(__file__).with_name("data") / f"{ruleset_id}.toml"
    ruleset = parse_ruleset(entry.read_bytes(), f"kiosk/rules/data/{ruleset_id}.toml")
    assert ruleset.id == ruleset_id, entry
    return ruleset

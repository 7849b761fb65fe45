"""A card's house rulesets: the head referee's ruleset files (docs/rules.md, "Writing a house
ruleset"), which the installer copies into the folder `kiosk-rules` on the card's boot
partition, beside kiosk.toml.

The table does not read them there (a FAT partition, pulled out and edited on any PC): at every
boot `kiosk fleet firstboot` checks them with the rules core and copies them to the settings
on the data partition (/etc/kiosk/rules), which KIOSK_RULES_DIR in kiosk.env names for the
table's unit. The folder, when there is one, is what the card holds: a file added or changed
there (a typo fixed in the morning) is taken at the next boot, and a file taken out of it is
removed from the copies. A card without the folder keeps its copies as they are (a kiosk set up
by hand gets them from `provision-kiosk.sh --rules-dir`).

Each file is copied byte for byte: the scorer compares a kiosk's copy of the event's ruleset
with its own by the file's sha256, so both must hold the same file. When a file is refused,
none is copied; and what the table will load is loaded here first, so that the table never
starts on a ruleset it cannot read (it would stop at every start, over a blank screen)."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import FleetError, file_reason
from ..rules import BUILTIN_IDS, Ruleset, RulesetError, Rulesets, parse_ruleset
from .identity import RULES_DIR, Paths, read_env, write_file

FOLDER = "kiosk-rules"  # beside kiosk.toml on the boot partition
ENV_NAME = "KIOSK_RULES_DIR"  # as kiosk.cli.main reads it


def take(paths: Paths) -> tuple[list[str], list[Ruleset]]:
    """Each boot, on a card with settings: the boot partition's kiosk-rules folder (if there is
    one) copied to RULES_DIR, kiosk.env made to name RULES_DIR if it names no rules directory,
    and the rulesets the table will load loaded. Returns the files written or removed (as
    /etc/kiosk/rules/x.toml) and the rulesets copied anew. Raises RulesetError (the rules
    core's words, naming the file) or FleetError when a file is refused."""
    folder = paths.at(paths.boot_file).with_name(FOLDER)
    target = paths.at(RULES_DIR)
    changed: list[str] = []
    taken: list[Ruleset] = []
    target.mkdir(parents=True, exist_ok=True)
    if target.stat().st_mode & 0o777 != 0o755:
        target.chmod(0o755)  # the table runs as its own user: it reads the copies
    if folder.is_dir():
        wanted = _read(folder)  # all checked before any is copied
        for name, (data, ruleset) in wanted.items():
            copy = target / name
            if not copy.is_file() or copy.read_bytes() != data:
                write_file(copy, data, 0o644)
                changed.append(f"{RULES_DIR}/{name}")
                taken.append(ruleset)
        for old in sorted(target.glob("*.toml")):
            if old.name not in wanted:
                old.unlink()
                changed.append(f"{RULES_DIR}/{old.name}")
    env_file = paths.at(paths.settings_dir) / "kiosk.env"
    dirs = read_env(env_file).get(ENV_NAME)
    if dirs is None:  # a card set up before house rulesets
        text = env_file.read_text(encoding="utf-8")
        write_file(env_file, text + ("" if text.endswith("\n") else "\n")
                   + f"{ENV_NAME}={RULES_DIR}\n", 0o600)
        changed.append(f"{paths.settings_dir}/kiosk.env")
        dirs = RULES_DIR
    Rulesets.load([paths.at(d) for d in dirs.split(os.pathsep) if d])
    return changed, taken


def _read(folder: Path) -> dict[str, tuple[bytes, Ruleset]]:
    """The folder's ruleset files by the name of their copy, each read and checked by the
    rules core under the name the installer sees (kiosk-rules/NAME)."""
    found: dict[str, tuple[bytes, Ruleset]] = {}
    ids = {ruleset_id: f"kiosk/rules/data/{ruleset_id}.toml" for ruleset_id in BUILTIN_IDS}
    for path in sorted(folder.iterdir()):
        name, shown = path.name, f"{FOLDER}/{path.name}"
        if name.startswith("."):  # a Mac's ._x.toml beside x.toml; hidden files
            continue
        if name.lower().endswith(".toml.txt"):  # Notepad's Save As; Windows hides the .txt
            raise FleetError(f"{shown}: named .toml.txt").explained(
                "fleet.rules.misnamed", file=shown, name=name[:-4])
        if not name.lower().endswith(".toml"):
            continue  # a note beside the rulesets
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise FleetError(f"{shown}: {exc}").explained(
                "terminal.file.problem", path=shown, reason=file_reason(exc)) from None
        ruleset = parse_ruleset(data, shown)
        if ruleset.id in ids:  # as Rulesets.load refuses it
            raise RulesetError(shown, "id", f"'{ruleset.id}' is already used by "
                               f"{ids[ruleset.id]}; give the house ruleset its own id"
                               ).explained("rules.file.id_taken", id=ruleset.id,
                                           other=ids[ruleset.id])
        ids[ruleset.id] = shown
        found[name[:-5] + ".toml"] = (data, ruleset)
    return found

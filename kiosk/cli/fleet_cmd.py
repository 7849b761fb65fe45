"""`kiosk fleet …`: what the units of a fleet of kiosks run (first boot, pairing once, pruning
the scorer's backups) and the technician's update bundles."""

from __future__ import annotations

import argparse
import os
import pwd
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import CommandError
from .words import about, say

DEPLOY_CONSTRAINTS = Path(__file__).resolve().parents[2] / "deploy" / "constraints.txt"


class FleetError(CommandError):
    """A fleet command cannot do what it was asked (a refused kiosk.toml, a bad bundle)."""


def add_parsers(commands: Any, add_lang: Callable[[argparse.ArgumentParser], None]) -> None:
    fleet = commands.add_parser("fleet", **about("cli.fleet"))
    sub = fleet.add_subparsers(dest="fleet_command", required=True, metavar="ACTION")

    first = sub.add_parser("firstboot", **about("cli.fleet.firstboot"))
    first.add_argument("--root", default="/", metavar="DIR",
                       help=say("cli.fleet.firstboot.root"))
    first.add_argument("--user", default="kiosk", help=say("cli.fleet.firstboot.user"))
    add_lang(first)
    first.set_defaults(run=run_firstboot)

    notice = sub.add_parser("notice", **about("cli.fleet.notice"))
    notice.add_argument("file", metavar="FILE", help=say("cli.fleet.notice.file"))
    notice.set_defaults(run=run_notice)

    pair = sub.add_parser("pair-pending", **about("cli.fleet.pair_pending"))
    pair.add_argument("--data", required=True, metavar="DIR", help=say("cli.kiosk_data"))
    pair.add_argument("--table", required=True, type=int, metavar="N",
                      help=say("cli.table_number"))
    pair.add_argument("--scorer", default="auto", metavar="URL", help=say("cli.pair.scorer"))
    add_lang(pair)
    pair.set_defaults(run=run_pair_pending)

    prune = sub.add_parser("prune-backups", **about("cli.fleet.prune_backups"))
    prune.add_argument("--dir", required=True, metavar="DIR",
                       help=say("cli.fleet.prune_backups.dir"))
    prune.add_argument("--keep", type=int, default=24, metavar="N",
                       help=say("cli.fleet.prune_backups.keep"))
    add_lang(prune)
    prune.set_defaults(run=run_prune)

    keygen = sub.add_parser("keygen", **about("cli.fleet.keygen"))
    keygen.add_argument("--out", required=True, metavar="DIR",
                        help=say("cli.fleet.keygen.out"))
    add_lang(keygen)
    keygen.set_defaults(run=run_keygen)

    bundle = sub.add_parser("bundle", **about("cli.fleet.bundle"))
    bundle.add_argument("--version", required=True, help=say("cli.fleet.bundle.version"))
    bundle.add_argument("--wheel", required=True, metavar="FILE",
                        help=say("cli.fleet.bundle.wheel"))
    bundle.add_argument("--wheelhouse", required=True, metavar="DIR",
                        help=say("cli.fleet.bundle.wheelhouse"))
    bundle.add_argument("--constraints", default=str(DEPLOY_CONSTRAINTS), metavar="FILE",
                        help=say("cli.fleet.bundle.constraints"))
    bundle.add_argument("--key", required=True, metavar="FILE", help=say("cli.fleet.bundle.key"))
    bundle.add_argument("--extra", choices=("table", "scorer"), default="table",
                        help=say("cli.fleet.bundle.extra"))
    bundle.add_argument("--out", required=True, metavar="FILE", help=say("cli.fleet.bundle.out"))
    add_lang(bundle)
    bundle.set_defaults(run=run_bundle)

    publish = sub.add_parser("publish", **about("cli.fleet.publish"))
    publish.add_argument("--data", required=True, metavar="DIR", help=say("cli.fleet.publish.data"))
    publish.add_argument("--key", metavar="FILE", help=say("cli.fleet.publish.key"))
    publish.add_argument("--yes", action="store_true", help=say("cli.fleet.publish.yes"))
    publish.add_argument("bundle", metavar="FILE", help=say("cli.fleet.publish.bundle"))
    add_lang(publish)
    publish.set_defaults(run=run_publish)

    update = sub.add_parser("update", **about("cli.fleet.update"))
    update.add_argument("--scorer", metavar="URL",
                        help=say("cli.fleet.update.scorer"))
    update.add_argument("--bundle", metavar="FILE", help=say("cli.fleet.update.bundle"))
    update.add_argument("--key", default="/etc/kiosk/update-key.pub", metavar="FILE",
                        help=say("cli.fleet.update.key"))
    update.add_argument("--app-dir", default="/var/lib/kiosk-app", metavar="DIR",
                        help=say("cli.fleet.update.app_dir"))
    update.add_argument("--data", default="/var/lib/kiosk", metavar="DIR",
                        help=say("cli.fleet.update.data"))
    update.add_argument("--table", type=int, metavar="N",
                        default=int(os.environ.get("KIOSK_TABLE") or 0) or None,
                        help=say("cli.fleet.update.table"))
    update.add_argument("--unit", default="kiosk-table.service",
                        help=say("cli.fleet.update.unit"))
    update.add_argument("--ready-timeout", type=float, default=90.0, metavar="S",
                        help=say("cli.fleet.update.ready_timeout"))
    update.add_argument("--idle-after", type=float, default=300.0, metavar="S",
                        help=say("cli.fleet.update.idle_after"))
    update.add_argument("--allow-downgrade", action="store_true",
                        help=say("cli.fleet.update.allow_downgrade"))
    add_lang(update)
    update.set_defaults(run=run_update)


def run_firstboot(args: argparse.Namespace) -> int:
    from ..errors import IdentityError, KioskError
    from ..fleet import house
    from ..fleet.identity import Paths, apply, consume, keep_machine_id, tell
    from ..i18n import explain, translator

    t = translator(args.lang)
    paths = Paths(root=Path(args.root))
    try:
        owner = pwd.getpwnam(args.user)
        ids: tuple[int, int] | None = (owner.pw_uid, owner.pw_gid)
    except KeyError:
        ids = None  # a scratch root: files stay the caller's
    try:
        taken = consume(paths, ids)
    except IdentityError as exc:  # in the technician's words, on the card and the screen too
        reason = explain(exc, args.lang)
        print(t("terminal.failed", command="fleet firstboot", message=reason), file=sys.stderr)
        tell(paths, t("fleet.notice.two_files") if exc.key == "fleet.identity.two_files"
             else t("fleet.notice.refused", reason=reason))
        return 2
    except Exception:  # whatever it is, a blank screen would tell the installer nothing
        traceback.print_exc()  # for the journal; the screen says it in words
        tell(paths, t("fleet.notice.unreadable"))
        return 2
    if not (paths.at(paths.settings_dir) / "kiosk.env").exists():  # a card never set up
        said = t("fleet.notice.not_set_up")
        print(t("terminal.failed", command="fleet firstboot", message=said), file=sys.stderr)
        tell(paths, said)
        return 2
    if taken is not None:  # which file: kiosk.toml.txt is taken too, and the log says so
        identity, name = taken
        print(t("terminal.fleet.identity", file=name, table=identity.table,
                scorer=identity.scorer, path=f"{paths.settings_dir}/kiosk.env"))
        if not identity.time_key:  # (as provision-kiosk.sh warns without --time-key)
            print(t("terminal.fleet.no_time_key", file=name, host=identity.scorer_host))
    status = 0
    try:
        rules, rulesets = house.take(paths)
    except Exception as exc:  # a ruleset the table would stop on: said, and it does not start
        if not isinstance(exc, KioskError):
            traceback.print_exc()  # for the journal; the screen says it in words
        reason = explain(exc, args.lang)
        print(t("terminal.failed", command="fleet firstboot", message=reason), file=sys.stderr)
        tell(paths, t("fleet.notice.rules_refused", reason=reason))
        status = 2  # the settings are still applied: the card on its network, for ssh
    else:
        tell(paths, None)
        for path in rules:
            print(t("terminal.fleet.applied", path=path))
        for ruleset in rulesets:
            print(t("terminal.fleet.house_rules", id=ruleset.id, sha256=ruleset.sha256))
    for path in apply(paths):
        print(t("terminal.fleet.applied", path=path))
        if path == "/boot/firmware/cmdline.txt":  # read by the firmware: at the next boot
            print(t("terminal.fleet.reboot"))
            run = paths.at("/run")
            run.mkdir(parents=True, exist_ok=True)  # (a scratch --root has none yet)
            (run / "kiosk-reboot-needed").touch()
    for path in keep_machine_id(paths):  # this boot runs with that id already: no reboot
        print(t("terminal.fleet.applied", path=path))
    return status


def run_notice(args: argparse.Namespace) -> int:
    """Full screen, the text of FILE (kiosk-notice.service: why the card does not start its
    table), until the card is set up and restarted."""
    text = Path(args.file).read_text(encoding="utf-8")
    from .. import ui  # sets Kivy's environment before Kivy itself is imported

    config = ui.kivy_config()
    from ..hw.panel import board_model
    from .ui_cmd import window_config

    for key, value in window_config(None, board_model()).items():
        config.set("graphics", key, value)
    ui.open_window()
    from kivy.app import App
    from kivy.metrics import dp, sp
    from kivy.uix.label import Label

    from ..ui.fonts import register

    register()

    def fit(label: Label, size: tuple[float, float]) -> None:
        """The whole text on the screen (a refused file's reason can be long, and nothing
        scrolls): the type made smaller until it fits, never below a size read at arm's length.
        Wrapped at the width only: the label centres its texture, and a fixed height with
        valign middle would clip the lower half at half the height (Kivy lays it out so)."""
        label.text_size = (size[0], None)
        label.font_size = sp(22)
        label.texture_update()
        while label.texture_size[1] > size[1] and label.font_size > sp(14):
            label.font_size = max(sp(14), label.font_size * 0.92)
            label.texture_update()

    class Notice(App):  # type: ignore[misc]
        def build(self) -> Label:
            label = Label(text=text, font_name="KioskSC", halign="left",
                          padding=(dp(24), dp(16)))
            label.bind(size=fit)
            return label

    Notice(title="kiosk").run()
    return 0


def run_pair_pending(args: argparse.Namespace) -> int:
    """Never fails the kiosk's start: without the scorer the kiosk runs offline, and the code
    stays for the next start."""
    code_file = Path(args.data) / "pair-code"
    if not code_file.exists():
        return 0
    code = code_file.read_text(encoding="utf-8").strip()
    from ..errors import LinkError, file_reason
    from ..i18n import explain, render, translator
    from ..sync.join import join
    from .main import load_rulesets
    from .table_cmd import not_paired

    t = translator(args.lang)
    try:
        join(args.data, args.table, args.scorer, code, load_rulesets(args))
    except (LinkError, OSError) as exc:
        reason = (explain(not_paired(exc, args.table), args.lang) if isinstance(exc, LinkError)
                  else render("terminal.file.problem", {"path": exc.filename or args.data,
                                                        "reason": file_reason(exc)}, args.lang))
        print(t("terminal.failed", command="fleet pair-pending",
                message=t("terminal.fleet.pair_later", reason=reason)), file=sys.stderr)
        return 0
    code_file.unlink()
    print(t("terminal.fleet.paired", table=args.table))
    return 0


def run_prune(args: argparse.Namespace) -> int:
    from ..scorer.store.backups import prune

    if args.keep < 1:
        raise FleetError("--keep must be at least 1").explained("fleet.backups.keep")
    try:
        removed = prune(args.dir, args.keep)
    except OSError as exc:
        raise unusable(exc, args.dir) from None
    print(say_in(args.lang, "terminal.fleet.pruned", n=len(removed), path=args.dir))
    return 0


def run_keygen(args: argparse.Namespace) -> int:
    from ..update.bundle import new_key

    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise unusable(exc, args.out) from None
    private, public = new_key()
    if (out / "update-key.pem").exists():
        raise FleetError(f"{out}/update-key.pem exists: keep it, or move it away first"
                         ).explained("fleet.update.key_exists", path=str(out / "update-key.pem"))
    fd = os.open(out / "update-key.pem", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(private)
    (out / "update-key.pub").write_bytes(public)
    print(say_in(args.lang, "terminal.fleet.private_key", path=f"{out}/update-key.pem"))
    print(say_in(args.lang, "terminal.fleet.public_key", path=f"{out}/update-key.pub"))
    return 0


def run_bundle(args: argparse.Namespace) -> int:
    from ..errors import BundleError
    from ..update.bundle import build

    try:
        manifest = build(Path(args.out), args.version, Path(args.wheel), Path(args.wheelhouse),
                         Path(args.constraints), Path(args.key).read_bytes(), args.extra)
    except OSError as exc:
        raise unusable(exc, args.out) from None
    except BundleError as exc:
        raise FleetError(str(exc)).explained(exc.key or "fleet.update.cannot_build",
                                             **exc.params) from None
    print(say_in(args.lang, "terminal.fleet.bundled", path=args.out, version=manifest.version,
                 n=len(manifest.files) - 1))
    return 0


def run_publish(args: argparse.Namespace) -> int:
    import tarfile

    from ..errors import BundleError
    from ..rules.errors import words
    from ..scorer.web.updates import publish
    from .scorer_cmd import STORE_NAME

    if not (Path(args.data) / STORE_NAME).is_file():  # a mistyped --data would serve nobody
        raise FleetError(f"{args.data}: no scorer data").explained("fleet.publish.no_scorer",
                                                                   path=args.data)

    def confirm(version: str, served: str) -> bool:
        """A downgrade is the head referee's choice: asked on a terminal, or --yes."""
        if args.yes:
            return True
        if not sys.stdin.isatty():
            return False
        answer = input(say_in(args.lang, "terminal.fleet.ask_older", version=version,
                              served=served))
        return answer.strip().lower() in ("y", "yes", "是")

    try:
        key = Path(args.key).read_bytes() if args.key else None
        offer = publish(args.data, Path(args.bundle), key, confirm)
    except OSError as exc:
        raise unusable(exc, args.bundle) from None
    except (tarfile.TarError, ValueError, KeyError) as exc:  # read without --key: no bundle
        raise FleetError(str(exc)).explained(
            "fleet.update.damaged", detail=words("terminal.fleet.not_a_bundle")) from None
    except BundleError as exc:
        raise FleetError(str(exc)).explained(exc.key or "fleet.update.damaged",
                                             **exc.params) from None
    print(say_in(args.lang, "terminal.fleet.serving", version=offer["version"]))
    return 0


def run_update(args: argparse.Namespace) -> int:
    """Prints what happened; exits 0 unless the update failed or was rolled back (1)."""
    import httpx

    from ..errors import BundleError, UpdateRefused
    from ..i18n import explain, translator
    from ..update.apply import (
        SystemdService,
        Updater,
        download,
        python_for_venvs,
        scorer_client,
        table_idle,
    )

    t = translator(args.lang)
    app_dir = Path(args.app_dir)
    try:
        key = Path(args.key).read_bytes()
    except OSError as exc:
        raise unusable(exc, args.key) from None
    updater = Updater(app_dir, key, SystemdService(args.unit), args.ready_timeout,
                      python_for_venvs())
    bundle = Path(args.bundle) if args.bundle else None
    if bundle is not None:  # a file given by hand that cannot be read: said, not a traceback
        try:
            bundle.open("rb").close()
        except OSError as exc:
            raise unusable(exc, args.bundle) from None
    allow_downgrade = args.allow_downgrade
    if bundle is None:
        scorer = args.scorer or os.environ.get("KIOSK_SCORER")
        if not scorer:
            raise FleetError("give --scorer URL").explained("fleet.update.no_scorer")
        try:
            with scorer_client(Path(args.data), args.table) as client:
                fetched = download(scorer, app_dir / "downloads", updater.installed_version(),
                                   client, updater.python_version())
        except UpdateRefused as exc:  # before anything was fetched: older, or no room
            print(refused_said(exc.params.get("version"), explain(exc, args.lang), args.lang))
            return 1
        except (httpx.HTTPError, ValueError, KeyError, BundleError) as exc:
            reason = (explain(exc, args.lang) if isinstance(exc, BundleError)
                      else t("terminal.update.no_answer") if isinstance(exc, httpx.TransportError)
                      else t("terminal.update.bad_answer"))
            print(t("terminal.update.offline", reason=reason))
            return 0
        if fetched is None:
            installed = updater.installed_version()
            print(t("terminal.update.served", version=installed) if installed
                  else t("terminal.update.nothing_served"))
            return 0
        bundle, allow_downgrade = fetched.path, allow_downgrade or fetched.allow_downgrade
    data = Path(args.data)
    outcome = updater.apply(bundle, lambda: table_idle(data, args.idle_after), allow_downgrade)
    print(outcome_said(outcome, args.lang))
    return 1 if outcome.status in ("failed", "rolled_back", "not_started", "restart_failed",
                                           "refused") else 0


def outcome_said(outcome: Any, lang: str) -> str:
    """What an update did, in words; a refusal says why (the bundle's problem, or a version
    that failed before), a failed install ends with the installer's own last lines."""
    from ..i18n import explain, translator

    t = translator(lang)
    if outcome.status == "refused":
        reason = (explain(outcome.error, lang) if outcome.error is not None
                  else t("terminal.update.failed_before"))
        return refused_said(outcome.version, reason, lang)
    if outcome.status == "restart_failed" and outcome.error is not None:
        return t("terminal.update.restart_failed", version=outcome.version,
                 reason=explain(outcome.error, lang))
    return t(f"terminal.update.{outcome.status}", version=outcome.version,
             detail=outcome.detail)


def refused_said(version: str | None, reason: str, lang: str) -> str:
    """A refused update, naming its version when it is known (a bundle that cannot be read
    has none to name)."""
    if version:
        return say_in(lang, "terminal.update.refused", version=version, reason=reason)
    return say_in(lang, "terminal.update.refused_bundle", reason=reason)


def say_in(lang: str, key: str, **params: Any) -> str:
    from ..i18n import translator

    return translator(lang)(key, **params)


def unusable(error: OSError, path: str) -> FleetError:
    """A file or folder the command was given that cannot be used, said as path and reason."""
    from ..errors import file_reason

    return FleetError(str(error)).explained("terminal.file.problem",
                                            path=error.filename or path,
                                            reason=file_reason(error))

"""deploy/: the provisioning scripts (run into scratch roots with --root), the systemd units
(systemd-analyze verify), and shellcheck. Reads files and runs shell tools only: no network,
nothing installed, nothing outside tmp_path changed."""

from __future__ import annotations

import configparser
import hashlib
import importlib.metadata
import importlib.util
import os
import re
import subprocess
from pathlib import Path

import pytest

from kiosk.fleet.identity import parse

from .helpers import ROOT, kiosk, tool

DEPLOY = ROOT / "deploy"
SCRIPTS = sorted(DEPLOY.glob("*.sh")) + sorted(DEPLOY.glob("*/*.sh"))
UNITS = DEPLOY / "systemd"
USER_UNITS = {"kiosk-hall-tv.service"}  # systemd --user units

# Raspberry Pi OS Bookworm's own boot files, as a fresh image has them.
PI_CONFIG = """\
# For more options and information see
# http://rptl.io/configtxt

dtparam=audio=on
camera_auto_detect=1
display_auto_detect=1
auto_initramfs=1
dtoverlay=vc4-kms-v3d
max_framebuffers=2
disable_fw_kms_setup=1
arm_64bit=1
disable_overscan=1
arm_boost=1

[cm4]
otg_mode=1

[cm5]
dtoverlay=dwc2,dr_mode=host

[all]
"""
PI_CMDLINE = ("console=serial0,115200 console=tty1 root=PARTUUID=4e639091-02 rootfstype=ext4 "
              "fsck.repair=yes rootwait quiet\n")
# A head referee's house ruleset (docs/rules.md): xiamen-2015 with a 6-second play clock.
HOUSE = (ROOT / "kiosk/rules/data/xiamen-2015.toml").read_text(encoding="utf-8").replace(
    'id = "xiamen-2015"', 'id = "xiamen-house"', 1).replace("play_seconds = 5",
                                                            "play_seconds = 6", 1)
assert HOUSE.count("xiamen-house") == 1 and "play_seconds = 6" in HOUSE


def provision(script: str, root: Path, *args: str, ok: bool = True):
    result = subprocess.run(["bash", str(DEPLOY / script), "--root", str(root), *args],
                            capture_output=True, text=True, timeout=60)
    if ok:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def snapshot(root: Path) -> dict[str, tuple[int, bytes | str | None]]:
    """Every path under root with its mode and its content (a link: its target)."""
    def content(p: Path) -> bytes | str | None:
        if p.is_symlink():
            return os.readlink(p)
        return p.read_bytes() if p.is_file() else None
    return {str(p.relative_to(root)): (p.lstat().st_mode, content(p))
            for p in sorted(root.rglob("*"))}


def unit_lines(path: Path) -> list[tuple[str, str, str]]:
    """A unit file as (section, key, value), duplicate keys kept (systemd allows them)."""
    out, section = [], ""
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
        else:
            key, _, value = line.partition("=")
            out.append((section, key, value))
    return out


def unit(path: Path) -> dict[str, str]:
    return {f"{s}.{k}": v for s, k, v in unit_lines(path)}


@pytest.fixture
def pi_root(tmp_path):
    """A scratch root with a fresh Raspberry Pi OS boot partition."""
    boot = tmp_path / "boot" / "firmware"
    boot.mkdir(parents=True)
    (boot / "config.txt").write_text(PI_CONFIG)
    (boot / "cmdline.txt").write_text(PI_CMDLINE)
    return tmp_path


# -- the scripts as shell code ---------------------------------------------------------------


@pytest.mark.process
def test_shellcheck_passes_on_every_script():
    shellcheck = tool("shellcheck")
    result = subprocess.run([shellcheck, "-x", *map(str, SCRIPTS)], capture_output=True,
                            text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.process
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_bash_parses_every_script(script):
    assert script.read_text().splitlines()[0] in ("#!/usr/bin/env bash", "# shellcheck shell=bash")
    result = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.unit
def test_every_script_is_strict():
    for script in SCRIPTS:
        if script.name != "lib.sh":  # sourced by the others, after their own set -euo pipefail
            assert "\nset -euo pipefail\n" in script.read_text(), script.name


# -- the systemd units -----------------------------------------------------------------------


@pytest.mark.process
def test_units_pass_systemd_analyze_verify(tmp_path):
    """verify needs every ExecStart binary to exist: the copies point into a scratch root that
    holds executable stubs. It does not mind a User= or EnvironmentFile= that is not there.
    Unknown keys and bad values are only warnings (exit status 0), so stderr is checked too."""
    analyze = tool("systemd-analyze")
    units_dir, stubs = tmp_path / "units", tmp_path / "root"
    units_dir.mkdir()
    exec_line = re.compile(r"^(Exec\w+=[-@:+!]*)(/\S+)", re.M)
    image_units = DEPLOY / "image" / "systemd"  # the card image's own
    for source in (sorted(UNITS.glob("*.service")) + sorted(UNITS.glob("*.timer")) +
                   sorted(image_units.glob("*.service")) + sorted(image_units.glob("*.timer"))):
        text = source.read_text()
        for binary in exec_line.findall(text):
            stub = stubs / binary[1].lstrip("/")
            stub.parent.mkdir(parents=True, exist_ok=True)
            stub.write_text("#!/bin/sh\n")
            stub.chmod(0o755)
        (units_dir / source.name).write_text(
            exec_line.sub(lambda m: m.group(1) + str(stubs) + m.group(2), text))
    system = sorted(p.name for p in units_dir.iterdir() if p.name not in USER_UNITS)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "SYSTEMD_LOG_LEVEL": "warning"}
    for flags, names in (([], system), (["--user"], sorted(USER_UNITS))):
        result = subprocess.run([analyze, *flags, "verify", "--man=no", *names],
                                capture_output=True, text=True, cwd=units_dir, env=env,
                                timeout=60)
        ours = [line for line in result.stderr.splitlines()
                if str(units_dir) in line or any(name in line for name in names)]
        assert result.returncode == 0 and not ours, result.stderr
    assert system == ["kiosk-firstboot.service", "kiosk-grow-data.service",
                      "kiosk-hostkeys.service", "kiosk-notice.service", "kiosk-save-clock.service",
                      "kiosk-save-clock.timer", "kiosk-scorer-backup.service",
                      "kiosk-scorer-backup.timer", "kiosk-scorer.service", "kiosk-table.service",
                      "kiosk-update.service", "kiosk-update.timer"]


@pytest.mark.unit
def test_table_unit_is_a_watched_notify_service_without_a_desktop():
    table = unit(UNITS / "kiosk-table.service")
    assert table["Service.ExecStart"] == (
        "/opt/kiosk/venv/bin/kiosk table --data /var/lib/kiosk --table ${KIOSK_TABLE} "
        "--scorer ${KIOSK_SCORER} $KIOSK_EXTRA_ARGS")
    assert {k: table[f"Service.{k}"] for k in (
        "Type", "NotifyAccess", "WatchdogSec", "Restart", "User", "EnvironmentFile")} == {
        "Type": "notify", "NotifyAccess": "main", "WatchdogSec": "10", "Restart": "always",
        "User": "kiosk", "EnvironmentFile": "/etc/kiosk/kiosk.env"}
    environment = " ".join(v for s, k, v in unit_lines(UNITS / "kiosk-table.service")
                           if k == "Environment")
    for setting in ("KIVY_WINDOW=sdl2", "SDL_VIDEODRIVER=kmsdrm", "KIVY_HOME=/home/kiosk/.kivy"):
        assert setting in environment.split()


@pytest.mark.unit
def test_scorer_units_and_the_backup_every_five_minutes():
    scorer = unit(UNITS / "kiosk-scorer.service")
    assert scorer["Service.ExecStart"] == ("/opt/kiosk/venv/bin/kiosk scorer --data "
                                           "/var/lib/kiosk-scorer --host 0.0.0.0 --port 8080")
    assert (scorer["Service.Restart"], scorer["Service.User"]) == ("always", "scorer")
    backup = unit(UNITS / "kiosk-scorer-backup.service")
    assert backup["Service.ExecStart"] == (
        "/opt/kiosk/venv/bin/kiosk scorer admin backup --data /var/lib/kiosk-scorer "
        "--to /var/lib/kiosk-scorer/backups")
    assert unit(UNITS / "kiosk-scorer-backup.timer")["Timer.OnCalendar"] == "*:0/5"
    assert backup["Service.ExecStartPost"] == (
        "/opt/kiosk/venv/bin/kiosk fleet prune-backups --dir /var/lib/kiosk-scorer/backups "
        "--keep 24")


# -- Kivy's input configuration --------------------------------------------------------------


@pytest.mark.unit
def test_kivy_config_has_one_input_provider():
    config = configparser.ConfigParser(interpolation=None)
    config.read(DEPLOY / "kivy" / "config.ini")
    assert dict(config["input"]) == {"%(name)s": "probesysfs,provider=hidinput"}
    # Kivy re-adds `mouse = mouse` when it "upgrades" an older config_version: the file must
    # carry the version of the Kivy the constraints pin.
    pinned = re.search(r"^Kivy==(\S+)$", (DEPLOY / "constraints.txt").read_text(), re.M)
    assert pinned and pinned.group(1) == "2.3.1"
    assert config["kivy"]["config_version"] == "27"
    # The installed Kivy, when it is the pinned one, says the same (read, not imported).
    spec = importlib.util.find_spec("kivy")
    if spec and spec.origin and importlib.metadata.version("kivy") == pinned.group(1):
        source = (Path(spec.origin).parent / "config.py").read_text()
        assert "\nKIVY_CONFIG_VERSION = 27\n" in source


# -- provision-kiosk.sh ----------------------------------------------------------------------


@pytest.mark.process
def test_kiosk_into_a_scratch_root_then_again_changes_nothing(pi_root):
    first = provision("provision-kiosk.sh", pi_root, "--table", "7", "--scorer", "scorer.local")
    assert "完成：共做了" in first.stdout
    etc = pi_root / "etc"
    assert (etc / "systemd/system/kiosk-table.service").read_text() == \
        (UNITS / "kiosk-table.service").read_text()
    assert (etc / "udev/rules.d/99-kiosk-printer.rules").read_text() == \
        (DEPLOY / "udev/99-kiosk-printer.rules").read_text()
    assert "RuntimeWatchdogSec=" in (etc / "systemd/system.conf.d/kiosk-watchdog.conf").read_text()
    env = etc / "kiosk/kiosk.env"
    assert {"KIOSK_TABLE=7", "KIOSK_SCORER=https://scorer.local:8080"} <= set(
        env.read_text().splitlines())
    assert env.stat().st_mode & 0o777 == 0o600  # it holds the referee PIN
    assert "server scorer.local iburst" in (
        etc / "chrony/sources.d/kiosk-scorer.sources").read_text()
    assert (pi_root / "home/kiosk/.kivy/config.ini").read_text() == \
        (DEPLOY / "kivy/config.ini").read_text()
    assert (pi_root / "var/lib/kiosk").is_dir()
    assert os.readlink(pi_root / "usr/local/bin/kiosk") == "/opt/kiosk/venv/bin/kiosk"

    boot = pi_root / "boot/firmware"
    config = (boot / "config.txt").read_text()
    assert config.startswith(PI_CONFIG)  # the image's own lines stay, first
    firmware = (ROOT / "firmware_config/config.txt").read_text()
    assert firmware in config
    # An empty dtoverlay= between the two, so the kiosk's dtparams set the Pi's own parameters,
    # not those of the image's last overlay.
    assert len(PI_CONFIG) < config.index("\ndtoverlay=\n") < config.index(firmware)
    assert (boot / "config.txt.pre-kiosk").read_text() == PI_CONFIG
    cmdline = (boot / "cmdline.txt").read_text()
    assert cmdline.count("\n") == 1 and "console=serial0" not in cmdline
    assert {"console=tty1", "fsck.repair=yes", "consoleblank=0", "loglevel=3"} <= set(
        cmdline.split())

    skipped = (pi_root / "var/lib/kiosk-provision/skipped.txt").read_text()
    assert re.search(r"^env DEBIAN_FRONTEND=noninteractive apt-get install .*fonts-noto-cjk.*"
                     r"libgl1 .*chrony", skipped, re.M)
    assert "lgpio" not in skipped and "libsdl2" not in skipped  # plain Debian's names only
    assert re.search(r"^useradd --system .*--home-dir /home/kiosk .* kiosk$", skipped, re.M)
    assert "usermod --append --groups gpio,dialout,lp,video,render,input kiosk" in skipped
    # A new venv beside the running one, checked, then switched to; never an uninstall.
    venv = re.search(r"^python3 -m venv (/var/lib/kiosk-app/venvs/\w{16})$", skipped, re.M)
    assert venv, skipped
    assert f"--constraint {DEPLOY}/constraints.txt {ROOT}[table]" in skipped
    assert f"{venv.group(1)}/bin/kiosk rules list" in skipped
    assert "uninstall" not in skipped
    assert os.readlink(pi_root / "var/lib/kiosk-app/current") == venv.group(1)
    assert os.readlink(pi_root / "opt/kiosk/venv") == "/var/lib/kiosk-app/current"
    assert (etc / "chrony/conf.d/kiosk-table.conf").read_text().splitlines()[-1] == \
        "makestep 1 -1"
    assert (etc / "systemd/system/kiosk-firstboot.service").is_file()
    assert "systemctl enable kiosk-firstboot.service" in skipped
    assert "systemctl enable kiosk-update.timer" in skipped
    assert not (etc / "kiosk/update-key.pub").exists()  # no key given: no updates
    assert "systemctl enable kiosk-table.service" in skipped
    assert "systemctl enable kiosk-notice.service" in skipped

    before = snapshot(pi_root)
    again = provision("provision-kiosk.sh", pi_root)  # table and scorer from the env file
    assert again.stdout.splitlines()[-1] == "没有改动：本机已经配置好了"
    assert snapshot(pi_root) == before


@pytest.mark.process
def test_kiosk_dry_run_prints_the_changes_and_changes_nothing(pi_root):
    before = snapshot(pi_root)
    result = provision("provision-kiosk.sh", pi_root, "--table", "3", "--scorer",
                       "http://10.0.0.2:8080", "--dry-run")
    assert snapshot(pi_root) == before
    for line in ("将创建 /etc/systemd/system/kiosk-table.service",
                 "将创建 /home/kiosk/.kivy/config.ini",
                 "将把 /boot/firmware/config.txt 备份为 /boot/firmware/config.txt.pre-kiosk",
                 "将更新 /boot/firmware/config.txt",
                 "将创建 /etc/chrony/sources.d/kiosk-scorer.sources"):
        assert line in result.stdout.splitlines()
    assert "将记入清单，不运行（--root）：useradd" in result.stdout
    assert re.fullmatch(r"试运行：将做 \d+ 处改动；这次什么都没有改",
                        result.stdout.splitlines()[-1])


@pytest.mark.process
def test_kiosk_second_run_with_a_new_table_keeps_the_edited_pin(pi_root):
    provision("provision-kiosk.sh", pi_root, "--table", "7", "--scorer", "scorer.local")
    env = pi_root / "etc/kiosk/kiosk.env"
    env.write_text(env.read_text().replace("KIOSK_PIN=0000", "KIOSK_PIN=4321"))
    before = snapshot(pi_root)
    dry = provision("provision-kiosk.sh", pi_root, "--table", "9", "--dry-run")
    assert snapshot(pi_root) == before
    assert [line for line in dry.stdout.splitlines() if line.startswith("将")
            and not line.startswith("将记入清单")] == ["将更新 /etc/kiosk/kiosk.env"]
    provision("provision-kiosk.sh", pi_root, "--table", "9")
    assert {"KIOSK_TABLE=9", "KIOSK_PIN=4321", "KIOSK_SCORER=https://scorer.local:8080"} <= set(
        env.read_text().splitlines())


@pytest.mark.process
def test_kiosk_without_a_boot_partition_writes_config_txt_and_leaves_cmdline(tmp_path):
    result = provision("provision-kiosk.sh", tmp_path, "--table", "1", "--scorer",
                       "[fd00::5]:9000")
    assert "内核命令行保持不变" in result.stdout
    assert not (tmp_path / "boot/firmware/cmdline.txt").exists()
    assert (ROOT / "firmware_config/config.txt").read_text() in (
        tmp_path / "boot/firmware/config.txt").read_text()
    assert "KIOSK_SCORER=https://[fd00::5]:9000" in (tmp_path / "etc/kiosk/kiosk.env").read_text()
    assert "server fd00::5 iburst" in (
        tmp_path / "etc/chrony/sources.d/kiosk-scorer.sources").read_text()


@pytest.mark.process
@pytest.mark.parametrize("args", [
    ("--scorer", "scorer.local"),                        # no table
    ("--table", "0", "--scorer", "scorer.local"),
    ("--table", "7", "--scorer", "scorer.local; rm -rf /"),
    ("--table", "7", "--scorer", "https://scorer.local:8080/admin"),  # a page's address
    ("--table", "7", "--scorer", "scorer.local", "--pin", "0000"),
    ("--table", "7", "--scorer", "scorer.local", "--pin", "12a4"),
    ("--table", "7"),                                     # no scorer
    ("--table", "7", "--scorer", "scorer.local", "--hdmi-mode", "big"),
    ("--bogus",),
])
def test_kiosk_refuses_bad_options_before_changing_anything(tmp_path, args):
    result = provision("provision-kiosk.sh", tmp_path, *args, ok=False)
    assert result.returncode == 2 and result.stderr
    assert list(tmp_path.iterdir()) == []


# -- provision-scorer.sh ---------------------------------------------------------------------


@pytest.mark.process
def test_scorer_into_a_scratch_root_then_again_changes_nothing(tmp_path):
    provision("provision-scorer.sh", tmp_path, "--lan", "192.168.8.0/24")
    for name in ("kiosk-scorer.service", "kiosk-scorer-backup.service",
                 "kiosk-scorer-backup.timer"):
        assert (tmp_path / "etc/systemd/system" / name).read_text() == (UNITS / name).read_text()
    chrony = (tmp_path / "etc/chrony/conf.d/kiosk-scorer.conf").read_text().splitlines()
    assert {"allow 192.168.8.0/24", "local stratum 8 orphan", "makestep 1 -1"} <= set(chrony)
    assert (tmp_path / "var/lib/kiosk-scorer/backups").is_dir()
    skipped = (tmp_path / "var/lib/kiosk-provision/skipped.txt").read_text()
    assert re.search(r"^useradd --system .* scorer$", skipped, re.M)
    assert "systemctl enable --now kiosk-scorer-backup.timer" in skipped

    before = snapshot(tmp_path)
    dry = provision("provision-scorer.sh", tmp_path, "--dry-run")  # the --lan of the last run
    assert dry.stdout.splitlines()[-1] == "试运行：不会有任何改动"
    again = provision("provision-scorer.sh", tmp_path)
    assert again.stdout.splitlines()[-1] == "没有改动：本机已经配置好了"
    assert snapshot(tmp_path) == before


@pytest.mark.process
def test_scorer_dry_run_changes_nothing(tmp_path):
    result = provision("provision-scorer.sh", tmp_path, "--dry-run")
    assert list(tmp_path.iterdir()) == []
    # No key that the real run would not make: it says one will be made.
    assert not re.search(r"[0-9a-f]{64}", result.stdout)
    assert "全场时间密钥：正式运行时生成并打印（试运行不生成）" in result.stdout.splitlines()
    assert "将创建 /etc/chrony/chrony.keys" in result.stdout
    real = provision("provision-scorer.sh", tmp_path)
    key = re.search(r"^全场时间密钥（.*provision-kiosk\.sh --time-key）：([0-9a-f]{64})$",
                    real.stdout, re.M)
    assert key, real.stdout
    again = provision("provision-scorer.sh", tmp_path, "--dry-run")  # the saved one, shown
    assert f"provision-kiosk.sh --time-key）：{key.group(1)}" in again.stdout
    assert "将创建 /etc/systemd/system/kiosk-scorer-backup.timer" in result.stdout
    assert "将创建目录 /var/lib/kiosk-scorer" in result.stdout


# -- house rulesets: --rules-dir, the same files on the scorer and the kiosks ----------------


@pytest.mark.unit
def test_the_units_load_house_rulesets_from_where_the_scripts_put_them():
    from kiosk.fleet.identity import RULES_DIR

    lib = (DEPLOY / "lib.sh").read_text()
    assert f"\nRULES_DIR={RULES_DIR}\n" in lib and RULES_DIR == "/etc/kiosk/rules"
    for name in ("kiosk-scorer.service", "kiosk-scorer-backup.service"):
        assert ("Service", "Environment", f"KIOSK_RULES_DIR={RULES_DIR}") in unit_lines(
            UNITS / name), name
    # The kiosk's unit reads kiosk.env: provision-kiosk.sh's template, and firstboot's own.
    template = (DEPLOY / "env/kiosk.env").read_text().splitlines()
    assert f"KIOSK_RULES_DIR={RULES_DIR}" in template
    assert unit(UNITS / "kiosk-table.service")["Service.EnvironmentFile"] == \
        "/etc/kiosk/kiosk.env"


def house_dir(path: Path, **files: str) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (path / name).write_text(text, encoding="utf-8")
    return path


@pytest.mark.process
@pytest.mark.parametrize("script", ["provision-scorer.sh", "provision-kiosk.sh"])
def test_rules_dir_puts_exactly_its_rulesets_where_the_units_load_them(
        pi_root, tmp_path_factory, script):
    args = ("--table", "7", "--scorer", "scorer.local") if script == "provision-kiosk.sh" \
        else ()
    house = house_dir(tmp_path_factory.mktemp("given") / "house",
                      **{"xiamen-house.toml": HOUSE})
    (house / "._xiamen-house.toml").write_bytes(b"\x00\x05\x16\x07")  # a Mac's, not a ruleset
    before = snapshot(pi_root)
    dry = provision(script, pi_root, *args, "--rules-dir", str(house), "--dry-run")
    assert snapshot(pi_root) == before
    assert "将创建 /etc/kiosk/rules/xiamen-house.toml" in dry.stdout.splitlines()
    sha = hashlib.sha256(HOUSE.encode()).hexdigest()
    assert f"自定规则 xiamen-house.toml：sha256 {sha}" in dry.stdout.splitlines()
    provision(script, pi_root, *args, "--rules-dir", str(house))
    rules = pi_root / "etc/kiosk/rules"
    assert sorted(p.name for p in rules.iterdir()) == ["xiamen-house.toml"]
    assert (rules / "xiamen-house.toml").read_bytes() == HOUSE.encode()  # as given
    assert (rules.stat().st_mode & 0o777, (rules / "xiamen-house.toml").stat().st_mode & 0o777) \
        == (0o755, 0o644)  # the service's user reads them
    if script == "provision-kiosk.sh":
        env = (pi_root / "etc/kiosk/kiosk.env").read_text().splitlines()
        assert env.count("KIOSK_RULES_DIR=/etc/kiosk/rules") == 1
    else:
        skipped = (pi_root / "var/lib/kiosk-provision/skipped.txt").read_text()
        assert "systemctl try-restart kiosk-scorer.service" in skipped  # it loads them anew
    before = snapshot(pi_root)
    again = provision(script, pi_root)  # kept from the last run
    assert again.stdout.splitlines()[-1] == "没有改动：本机已经配置好了"
    assert snapshot(pi_root) == before
    # The head referee's corrected file, under another name: updated, and the old one goes.
    fixed = house_dir(tmp_path_factory.mktemp("given") / "fixed",
                      **{"house.toml": HOUSE.replace("出牌5秒", "出牌6秒")})
    changed = provision(script, pi_root, "--rules-dir", str(fixed), "--dry-run")
    assert {"将创建 /etc/kiosk/rules/house.toml", "将删除 /etc/kiosk/rules/xiamen-house.toml"} <= \
        set(changed.stdout.splitlines())
    assert snapshot(pi_root) == before
    provision(script, pi_root, "--rules-dir", str(fixed))
    assert [p.name for p in rules.iterdir()] == ["house.toml"]
    if script == "provision-kiosk.sh":  # the Pi's boot (no kiosk-rules folder) keeps them
        booted = kiosk("fleet", "firstboot", "--root", str(pi_root))
        assert booted.returncode == 0 and "/etc/kiosk/" not in booted.stdout, booted.stderr
        assert [p.name for p in rules.iterdir()] == ["house.toml"]


@pytest.mark.process
@pytest.mark.parametrize("script", ["provision-scorer.sh", "provision-kiosk.sh"])
def test_a_ruleset_the_rules_core_refuses_stops_the_script_before_any_change(
        pi_root, tmp_path_factory, script):
    args = ("--table", "7", "--scorer", "scorer.local") if script == "provision-kiosk.sh" \
        else ()
    house = house_dir(tmp_path_factory.mktemp("given") / "house", **{
        "xiamen-house.toml": HOUSE.replace("play_seconds = 6", 'play_seconds = "6"')})
    before = snapshot(pi_root)
    refused = provision(script, pi_root, *args, "--rules-dir", str(house), ok=False)
    assert refused.returncode == 2 and snapshot(pi_root) == before
    assert refused.stderr.startswith(
        f"{script}：--rules-dir {house}：规则文件house/xiamen-house.toml，time.play_seconds："
        "“6”（加了引号，是文字而不是数字）不可用"), refused.stderr
    assert refused.stderr.rstrip().endswith("什么都没有改动")
    nowhere = provision(script, pi_root, *args, "--rules-dir", str(house.parent / "nowhere"),
                        ok=False)
    assert nowhere.returncode == 2 and "没有这个目录" in nowhere.stderr
    assert snapshot(pi_root) == before


# -- provision-hall-tv.sh --------------------------------------------------------------------


PIN = "LVIqPaJHS57+tBa/ujb6sHbtHv6BgqcGE3Lu8GlKuo0="  # as `kiosk scorer admin certificate` prints


def hall_tv_env(root: Path) -> dict[str, str]:
    lines = (root / "etc/kiosk/hall-tv.env").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


@pytest.mark.process
def test_hall_tv_into_a_scratch_root_then_again_changes_nothing(pi_root):
    url = "https://scorer.local:8080/hall"
    provision("provision-hall-tv.sh", pi_root, "--url", url, "--spki", PIN, "--user", "tv")
    assert hall_tv_env(pi_root) == {"KIOSK_HALL_URL": url, "KIOSK_HALL_SPKI": PIN,
                                    "KIOSK_HALL_USER": "tv"}
    launcher = pi_root / "usr/local/bin/kiosk-hall-tv"
    assert launcher.read_text() == (DEPLOY / "hall-tv/kiosk-hall-tv.sh").read_text()
    assert launcher.stat().st_mode & 0o111
    assert (pi_root / "etc/systemd/user/kiosk-hall-tv.service").read_text() == \
        (UNITS / "kiosk-hall-tv.service").read_text()
    autostart = pi_root / "home/tv/.config/autostart/kiosk-hall-tv.desktop"
    assert "systemctl --user restart kiosk-hall-tv.service" in autostart.read_text()
    assert "consoleblank=0" in (pi_root / "boot/firmware/cmdline.txt").read_text().split()
    skipped = (pi_root / "var/lib/kiosk-provision/skipped.txt").read_text()
    assert "raspi-config nonint do_blanking 1" in skipped
    # The hall page names Noto Sans CJK; on Debian 12 nothing else brings a Chinese font.
    assert re.search(r"^env DEBIAN_FRONTEND=noninteractive apt-get install .*fonts-noto-cjk",
                     skipped, re.M)

    before = snapshot(pi_root)
    dry = provision("provision-hall-tv.sh", pi_root, "--user", "tv", "--dry-run")
    assert dry.stdout.splitlines()[-1] == "试运行：不会有任何改动"
    again = provision("provision-hall-tv.sh", pi_root, "--user", "tv")  # URL and pin kept
    assert again.stdout.splitlines()[-1] == "没有改动：本机已经配置好了"
    assert snapshot(pi_root) == before


@pytest.mark.process
def test_hall_tv_run_again_by_another_login_keeps_the_tvs_user(pi_root):
    """The guide's fix for a new certificate is `--spki NEWPIN` on each TV: run by a technician
    logged in as admin, it moved the TV's automatic login to admin."""
    provision("provision-hall-tv.sh", pi_root, "--spki", PIN, "--user", "tv")
    new_pin = "A" * 43 + "="
    again = subprocess.run(["bash", str(DEPLOY / "provision-hall-tv.sh"), "--root", str(pi_root),
                            "--spki", new_pin], capture_output=True, text=True, timeout=60,
                           env={**os.environ, "SUDO_USER": "admin"})
    assert again.returncode == 0, again.stderr
    assert "用户 tv" in again.stdout
    assert hall_tv_env(pi_root) == {"KIOSK_HALL_URL": "https://scorer.local:8080/",
                                    "KIOSK_HALL_SPKI": new_pin, "KIOSK_HALL_USER": "tv"}
    assert not (pi_root / "home/admin").exists()


@pytest.mark.process
def test_hall_tv_defaults_to_https_and_takes_http_as_the_same_address_over_https(pi_root):
    provision("provision-hall-tv.sh", pi_root, "--spki", PIN, "--user", "tv")
    assert hall_tv_env(pi_root)["KIOSK_HALL_URL"] == "https://scorer.local:8080/"
    result = provision("provision-hall-tv.sh", pi_root, "--url", "http://10.0.0.2:8080/",
                       "--user", "tv")
    assert "电视显示 https://10.0.0.2:8080/" in result.stdout
    assert hall_tv_env(pi_root) == {"KIOSK_HALL_URL": "https://10.0.0.2:8080/",
                                    "KIOSK_HALL_SPKI": PIN, "KIOSK_HALL_USER": "tv"}


@pytest.mark.process
@pytest.mark.parametrize("args", [
    (),  # no pin: the TV would only ever show Chromium's certificate warning
    ("--spki", "f113ba9d1483d9173a2b5069234cc936a46f3b91fa085b92f11324ac12f5cb2b"),  # sha256
    ("--spki", PIN[:-1] + "; reboot"),
    ("--spki", PIN, "--url", "https://scorer.local:8080/$(reboot)"),
])
def test_hall_tv_refuses_a_missing_or_wrong_pin_before_changing_anything(pi_root, args):
    before = snapshot(pi_root)
    result = provision("provision-hall-tv.sh", pi_root, "--user", "tv", *args, ok=False)
    assert result.returncode == 2 and snapshot(pi_root) == before
    assert "kiosk scorer admin --data /var/lib/kiosk-scorer certificate" in result.stderr \
        or "--url" in result.stderr


@pytest.mark.process
def test_hall_tv_dry_run_changes_nothing(pi_root):
    before = snapshot(pi_root)
    result = provision("provision-hall-tv.sh", pi_root, "--url", "https://10.0.0.2:8080/",
                       "--spki", PIN, "--user", "tv", "--dry-run")
    assert snapshot(pi_root) == before
    assert "将创建 /usr/local/bin/kiosk-hall-tv" in result.stdout
    assert "将更新 /boot/firmware/cmdline.txt" in result.stdout


@pytest.mark.unit
def test_hall_tv_unit_gives_chromium_a_new_profile_each_start():
    """--ignore-certificate-errors-spki-list needs an explicit --user-data-dir: the launcher
    uses the unit's runtime directory, which systemd makes new at each start."""
    assert unit(UNITS / "kiosk-hall-tv.service")["Service.RuntimeDirectory"] == "kiosk-hall-tv"
    launcher = (DEPLOY / "hall-tv/kiosk-hall-tv.sh").read_text()
    assert '--user-data-dir="$profile"' in launcher and "RUNTIME_DIRECTORY" in launcher


# -- what a card may not lose or be given silently (issue 33) -------------------------------


def installed(root: Path, version: str) -> None:
    """A kiosk whose fleet update installed `version` (its venv marked as the updater does)."""
    venv = root / "var/lib/kiosk-app/venvs" / f"{version}-0123456789ab"
    venv.mkdir(parents=True)
    (venv / ".kiosk-version").write_text(version + "\n")
    (root / "var/lib/kiosk-app/current").symlink_to(f"/var/lib/kiosk-app/venvs/{venv.name}")


@pytest.mark.process
def test_a_re_provision_does_not_take_a_kiosk_back_to_an_older_version(pi_root):
    installed(pi_root, "99.1.0")  # newer than this copy of the project
    before = snapshot(pi_root)
    refused = provision("provision-kiosk.sh", pi_root, "--table", "7", "--scorer",
                        "scorer.local", ok=False)
    assert refused.returncode == 2 and snapshot(pi_root) == before
    assert "已安装的版本 99.1.0 比这份项目的" in refused.stderr
    assert "--allow-downgrade" in refused.stderr
    allowed = provision("provision-kiosk.sh", pi_root, "--table", "7", "--scorer",
                        "scorer.local", "--allow-downgrade")
    assert "注意：从版本 99.1.0 退回到" in allowed.stdout


@pytest.mark.process
def test_a_failed_install_leaves_no_half_made_venv(tmp_path):
    """A wheel cut short in its copy: pip fails, the version installed before (none here)
    stays, and the new venv does not stay behind taking room on the card."""
    wheel = tmp_path / "kiosk80-1.0-py3-none-any.whl"
    wheel.write_bytes(b"not a zip file: a copy cut short")
    (tmp_path / "wheels").mkdir()
    script = (f"set -euo pipefail; . {DEPLOY}/lib.sh; APP_DIR={tmp_path}/app; "
              f"VENV={tmp_path}/venv; install_project {wheel} table {tmp_path}/wheels")
    result = subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 3, result.stdout + result.stderr
    assert "继续使用原来的版本" in result.stderr
    assert list((tmp_path / "app/venvs").iterdir()) == []
    assert not (tmp_path / "app/current").exists()


@pytest.mark.process
@pytest.mark.parametrize(("python", "from_os"), [("python3.13", True), ("python3.11", False)])
def test_lgpio_comes_from_the_os_only_where_pypi_has_no_wheel(pi_root, python, from_os):
    """Raspberry Pi OS Trixie has Python 3.13, for which PyPI has no lgpio wheel: the OS's
    python3-lgpio, in a venv that sees the OS's packages. Bookworm (3.11): PyPI's wheel."""
    (pi_root / "usr/bin").mkdir(parents=True)
    (pi_root / "usr/bin/python3").symlink_to(python)
    provision("provision-kiosk.sh", pi_root, "--table", "7", "--scorer", "scorer.local")
    skipped = (pi_root / "var/lib/kiosk-provision/skipped.txt").read_text()
    [install] = [line for line in skipped.splitlines() if " apt-get install " in line]
    [venv] = [line for line in skipped.splitlines() if line.startswith("python3 -m venv")]
    assert ("python3-lgpio" in install.split()) is from_os
    assert ("--system-site-packages" in venv.split()) is from_os


@pytest.mark.process
def test_the_scorer_gets_what_weasyprint_opens_and_the_faces_its_pages_name(tmp_path):
    provision("provision-scorer.sh", tmp_path)
    skipped = (tmp_path / "var/lib/kiosk-provision/skipped.txt").read_text()
    [install] = [line for line in skipped.splitlines() if " apt-get install " in line]
    for package in ("libpango-1.0-0", "libpangoft2-1.0-0", "fonts-noto-cjk",
                    "fonts-dejavu-core"):
        assert package in install.split(), package


# -- what the scripts say: 简体中文, never an English sentence ---------------------------------

#: Names that are written as their makers write them: several English words, no sentence.
PROPER_NAMES = ("Raspberry Pi OS", "Raspberry Pi")
#: A change the scripts say and the command it runs (or lists): the command is typed, not read.
SAID_COMMAND = re.compile(r"^(?:将?运行|将记入清单，不运行（--root）|未运行（--root）|"
                          r"未运行（正在构建镜像）)：")
#: A line of the diff a dry run shows of a file it would change: the file's text, not words.
DIFF_LINE = re.compile(r"^    [-+ @\\]")


def english_runs(line: str, shortest: int = 3) -> list[str]:
    """The runs of `shortest` or more English words in a line a script printed, once what is
    typed is left out: `quoted commands`, a said command, and names such as Raspberry Pi OS. A
    word is ASCII letters alone, with its punctuation; anything else (an option, a path, a URL,
    a number, a package such as fonts-noto-cjk, a Chinese character) ends a run."""
    if SAID_COMMAND.match(line):
        line = line.split("：", 1)[0]
    line = re.sub(r"`[^`]*`", "\0", line)
    for name in PROPER_NAMES:
        line = line.replace(name, "\0")
    line = re.sub(r"[^\x00-\x7f]", "\0", line)
    runs, run = [], []
    for piece in [*re.findall(r"[^\s\0]+|\0", line), "\0"]:
        word = piece.strip(",;:.!?()[]\"'")
        if re.fullmatch(r"[A-Za-z]+(?:'[a-z]+)?", word):
            run.append(word)
            continue
        if len(run) >= shortest:
            runs.append(" ".join(run))
        run = []
    return runs


def not_chinese(said: str, *, diff: bool = False, examples: bool = False) -> list[str]:
    """The lines of `said` that are not Chinese: with no Chinese character, or with an English
    sentence in them. With `diff` (a dry run), the diff it shows of a file is left out (the
    file's own text), and two English words in a row are already too many (a dry run says
    nothing in English: 将create directory …); with `examples` (a help), the commands it gives
    to type (`  sudo …`) are left out."""
    wrong = []
    for line in said.splitlines():
        if not line.strip() or (diff and DIFF_LINE.match(line)):
            continue
        if examples and line.lstrip().startswith("sudo "):
            continue
        if not re.search("[\u4e00-\u9fff]", line) or english_runs(line, 2 if diff else 3):
            wrong.append(line)
    return wrong


@pytest.mark.unit
def test_the_check_for_english_sentences_finds_them():
    assert english_runs("would record (not run, --root): useradd --system kiosk") == [
        "would record not run"]
    assert english_runs("dry run: changes that would be made: 3; nothing was changed") == [
        "dry run changes that would be made", "nothing was changed"]
    assert english_runs("note: the scorer serves HTTPS only: the TV shows https://x/") == [
        "note the scorer serves HTTPS only the TV shows"]
    assert not_chinese("would create /etc/kiosk/kiosk.env") == [
        "would create /etc/kiosk/kiosk.env"]  # no sentence, and no Chinese either
    diff = "将更新 /etc/kiosk/kiosk.env\n    @@ -1 +1 @@\n    +KIOSK_TABLE=3 the file's own text"
    assert not_chinese(diff, diff=True) == []
    assert not_chinese(diff) == diff.splitlines()[1:]
    assert not_chinese("将create directory /var/lib/kiosk", diff=True) != []
    # Elsewhere two words may be a name (a help's Touch Display 2); three are a sentence.
    assert not_chinese("将create directory /var/lib/kiosk") == []
    assert not_chinese("将记入清单，不运行（--root）：systemctl enable kiosk-update.timer") == []
    assert not_chinese("注意：没有 /boot/firmware（不是 Raspberry Pi OS Bookworm？）") == []
    assert not_chinese("请在记分台上运行 `kiosk scorer admin certificate`，复制 spki") == []
    assert not_chinese("请在记分台上运行 kiosk scorer admin certificate") == [
        "请在记分台上运行 kiosk scorer admin certificate"]


@pytest.mark.unit
def test_the_example_kiosk_toml_explains_itself_in_chinese():
    """kiosk.toml.example is on every card's boot partition, and the technician reads its
    notes in Notepad while filling it in: they are Chinese (a setting shown commented out,
    `# hostname = "table-07"`, is a setting, not a note)."""
    text = (DEPLOY / "kiosk.toml.example").read_text(encoding="utf-8")
    notes = [line.lstrip("# ") for line in text.splitlines()
             if line.startswith("#") and not re.match(r"#\s*(\[\w+\]|\w+ = )", line)]
    assert len(notes) >= 20
    assert not_chinese("\n".join(notes)) == []


def dry_runs(root: Path) -> dict[str, str]:
    """What each provisioning script prints in its dry runs, a first one and one over a
    finished run, with the notes a dry run has to say (an http:// URL, no time key)."""
    boot = root / "boot/firmware"
    house = house_dir(root / "given/house", **{"xiamen-house.toml": HOUSE})
    said = {}
    for name, script, args, again_args in (
            ("kiosk", "provision-kiosk.sh", ("--table", "3", "--scorer", "http://10.0.0.2:8080"),
             ("--table", "9")),
            ("scorer", "provision-scorer.sh", ("--rules-dir", str(house)), ()),
            ("hall-tv", "provision-hall-tv.sh", ("--url", "http://10.0.0.2:8080/", "--spki", PIN,
                                                 "--user", "tv"), ("--user", "tv"))):
        scratch = root / name
        (scratch / boot.relative_to(root)).mkdir(parents=True)
        (scratch / "boot/firmware/config.txt").write_text(PI_CONFIG)
        (scratch / "boot/firmware/cmdline.txt").write_text(PI_CMDLINE)
        first = provision(script, scratch, *args, "--dry-run")
        said[f"{script} --dry-run"] = first.stdout + first.stderr
        provision(script, scratch, *args)
        again = provision(script, scratch, *again_args, "--dry-run")
        said[f"{script} --dry-run, again"] = again.stdout + again.stderr
    return said


@pytest.mark.process
def test_what_the_scripts_print_is_chinese_with_no_english_sentence(tmp_path):
    """Every line the provisioning scripts print in a dry run, their --help and build-image's,
    and a refusal of each: Chinese, with no English sentence in it."""
    said = dry_runs(tmp_path)
    helps = {}
    for script in ("provision-kiosk.sh", "provision-scorer.sh", "provision-hall-tv.sh",
                   "image/build-image.sh"):
        shown = subprocess.run(["bash", str(DEPLOY / script), "--help"], capture_output=True,
                               text=True, timeout=60)
        assert shown.returncode == 0, shown.stderr
        helps[f"{script} --help"] = shown.stdout
    broken = house_dir(tmp_path / "given/broken", **{
        "xiamen-house.toml": HOUSE.replace("play_seconds = 6", "play_seconds = -6")})
    for script, args in (("provision-kiosk.sh", ("--table", "0")),
                         ("provision-scorer.sh", ("--lan", "x")),
                         ("provision-scorer.sh", ("--rules-dir", str(broken))),
                         ("provision-hall-tv.sh", ("--user", "tv")),
                         ("provision-kiosk.sh", ("--bogus",))):  # the usage follows
        refused = provision(script, tmp_path / "refused", *args, ok=False)
        assert refused.returncode == 2 and refused.stderr
        helps[f"{script} {' '.join(args)}"] = refused.stderr
    for case, text in said.items():
        assert len(text.splitlines()) >= 3, (case, text)  # there is something to read
        assert not_chinese(text, diff=True) == [], case
    for case, text in helps.items():
        assert re.search("[\u4e00-\u9fff]", text), (case, text)
        assert not_chinese(text, examples=True) == [], case
    # The kiosk's second dry run said the file it keeps from view, in words (checked above).
    again = said["provision-kiosk.sh --dry-run, again"].splitlines()
    assert "将更新 /etc/kiosk/kiosk.env" in again  # and its diff is not shown, in words:
    assert again[again.index("将更新 /etc/kiosk/kiosk.env") + 1].startswith("    （")


# -- CI installs the tools these tests use ---------------------------------------------------


@pytest.mark.unit
def test_ci_installs_the_tools_the_tests_use():
    text = (ROOT / ".ci/os-packages.sh").read_text()
    packages = re.search(r"^packages=\(([^)]*)\)", text, re.M)
    wanted = {"shellcheck", "systemd", "chromium", "iproute2", "xvfb", "fonts-noto-cjk",
              "x11-apps", "dosfstools", "fdisk", "e2fsprogs", "cloud-guest-utils"}
    assert packages and wanted <= set(packages.group(1).split())


@pytest.mark.unit
def test_make_image_installs_the_pip_build_image_asks_for():
    """build-image.sh stops at once on a python3 without pip (it builds the project's wheel);
    `make image` installs the image's packages first, so it must bring pip too."""
    text = (ROOT / ".ci/os-packages.sh").read_text()
    extras = re.search(r'= image \] && packages\+=\(([^)]*)\)', text)
    assert "python3 -m pip" in (ROOT / "deploy/image/build-image.sh").read_text()
    assert extras and "python3-pip" in extras.group(1).split()


@pytest.mark.process
def test_a_hand_provisioned_kiosk_keeps_its_time_key_through_every_boot(pi_root):
    """provision-kiosk.sh writes the key where kiosk-firstboot reads it (kiosk.env): the boot's
    `kiosk fleet firstboot` rewrites the chrony source with the key, not without it."""
    key = "cd" * 32
    provision("provision-kiosk.sh", pi_root, "--table", "7", "--scorer", "scorer.local",
              "--time-key", key)
    sources = pi_root / "etc/chrony/sources.d/kiosk-scorer.sources"
    assert sources.read_text().splitlines()[-1] == "server scorer.local iburst prefer key 1"
    assert f"KIOSK_TIME_KEY={key}" in (pi_root / "etc/kiosk/kiosk.env").read_text().splitlines()
    boot = kiosk("fleet", "firstboot", "--root", str(pi_root))
    assert boot.returncode == 0, boot.stderr
    assert sources.read_text().splitlines()[-1] == "server scorer.local iburst prefer key 1"
    assert (pi_root / "etc/chrony/chrony.keys").read_text() == f"1 SHA256 HEX:{key}\n"
    # A later run without --time-key keeps it in both places.
    provision("provision-kiosk.sh", pi_root)
    assert f"KIOSK_TIME_KEY={key}" in (pi_root / "etc/kiosk/kiosk.env").read_text().splitlines()


def effective(root: Path, directive: str) -> list[str]:
    """The lines of `directive` chrony reads, in its order: chrony.conf with each confdir's
    *.conf files read where the confdir line stands. The last one is the one used."""
    lines = []
    for line in (root / "etc/chrony/chrony.conf").read_text().splitlines():
        if line.startswith("confdir "):
            for conf in sorted((root / line.split()[1].lstrip("/")).glob("*.conf")):
                lines += conf.read_text().splitlines()
        else:
            lines.append(line)
    return [line for line in lines if line.split()[:1] == [directive]]


@pytest.mark.process
@pytest.mark.parametrize("script", ["provision-kiosk.sh", "provision-scorer.sh"])
def test_the_makestep_chrony_uses_is_ours_over_debians_own(pi_root, script):
    """Debian 12's chrony.conf reads conf.d at its line 5 and says `makestep 1 3` at its line
    42: the later line wins, unless it is put out of the way."""
    conf = pi_root / "etc/chrony/chrony.conf"
    conf.parent.mkdir(parents=True)
    conf.write_text((ROOT / "tests/data/debian-12-chrony.conf").read_text())
    provision(script, pi_root, *(["--table", "7", "--scorer", "scorer.local"]
                                 if script == "provision-kiosk.sh" else []))
    assert effective(pi_root, "makestep")[-1] == "makestep 1 -1"
    before = snapshot(pi_root)
    assert provision(script, pi_root).stdout.splitlines()[-1] == "没有改动：本机已经配置好了"
    assert snapshot(pi_root) == before


@pytest.mark.process
@pytest.mark.parametrize(("given", "url"), [
    ("scorer.local", "https://scorer.local:8080"),
    ("https://scorer.local", "https://scorer.local:8080"),  # (was port 443, nothing there)
    ("http://192.168.8.2/", "http://192.168.8.2:8080"),
    ("https://scorer.local:9443", "https://scorer.local:9443"),
])
def test_a_scorer_without_a_port_is_port_8080_as_in_kiosk_toml(tmp_path, given, url):
    provision("provision-kiosk.sh", tmp_path, "--table", "7", "--scorer", given)
    env = (tmp_path / "etc/kiosk/kiosk.env").read_text().splitlines()
    assert f"KIOSK_SCORER={url}" in env
    assert parse(f'table = 7\nscorer = "{given}"\npin = "2580"\n').scorer == url


@pytest.mark.process
def test_a_kiosk_left_with_pin_0000_is_told_and_pin_sets_it(tmp_path):
    """kiosk.env comes with KIOSK_PIN=0000, which kiosk.toml refuses; a kiosk set up by hand
    whose PIN nobody edited ran with it, and the script's last word was 完成."""
    first = provision("provision-kiosk.sh", tmp_path, "--table", "7", "--scorer", "scorer.local")
    assert "注意：裁判密码还是 0000：请用 --pin" in first.stdout
    again = provision("provision-kiosk.sh", tmp_path, "--pin", "2580")
    assert "KIOSK_PIN=2580" in (tmp_path / "etc/kiosk/kiosk.env").read_text().splitlines()
    assert "裁判密码还是 0000" not in again.stdout
    third = provision("provision-kiosk.sh", tmp_path)  # (the PIN kept, no warning)
    assert third.stdout.splitlines()[-1] == "没有改动：本机已经配置好了"

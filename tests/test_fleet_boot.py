"""Fifty cards from one image: the first-boot unit turns the boot partition's kiosk.toml into
the kiosk's settings (and what the table's unit then runs), a bad file changes nothing, a
pairing code is used once; and the scorer's backups are pruned (issue 16, findings 5 and 7)."""

from __future__ import annotations

import datetime
import os
import re
import shlex
import stat
import subprocess
import tomllib

import pytest

from kiosk.cli.main import build_parser
from kiosk.errors import IdentityError
from kiosk.fleet.identity import parse, read_env
from kiosk.i18n import explain
from kiosk.scorer.store.backups import prune

from .helpers import ROOT, ScorerProcess, kiosk
from .test_deploy import PI_CMDLINE, PI_CONFIG, provision, unit, unit_lines

pytestmark = pytest.mark.process

UNITS = ROOT / "deploy" / "systemd"
CARD = """\
table = 7
ssh_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBqHIyx0d7uXfXlnvz6CEXAMPLEKEYxxxxxxxxxxxx tech"
scorer = "http://192.168.8.2:8080"
time_key = "{key}"
pin = "2580"
pairing_code = "604137"
printer = "uart"
printer_baud = 19200
lang = "en"
rotation = 90
[wifi]
ssid = "HALL"
psk = "secret-password"
country = "CN"
""".format(key="ab" * 32)


def exec_lines(name: str, key: str) -> list[str]:
    return [v for _, k, v in unit_lines(UNITS / name) if k == key]


def expand(command: str, env: dict[str, str]) -> list[str]:
    """A unit's command line as systemd expands it: ${NAME} as one word, $NAME split at spaces."""
    words = []
    for word in shlex.split(command):
        if re.fullmatch(r"\$[A-Z_]+", word):
            words.extend(env.get(word[1:], "").split())
        else:
            words.append(re.sub(r"\$\{([A-Z_]+)\}", lambda m: env.get(m.group(1), ""), word))
    return words


def kiosk_args(command: str) -> list[str]:
    """The arguments after the unit's /opt/kiosk/venv/bin/kiosk."""
    program, *args = command.lstrip("-").split(" ", 1)
    assert program == "/opt/kiosk/venv/bin/kiosk"
    return args


@pytest.fixture
def card(tmp_path):
    """A scratch root with a boot partition holding a technician's kiosk.toml."""
    boot = tmp_path / "boot/firmware"
    boot.mkdir(parents=True)
    (boot / "kiosk.toml").write_text(CARD)
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/hosts").write_text("127.0.0.1\tlocalhost\n127.0.1.1\traspberrypi\n")
    return tmp_path


def firstboot(root) -> object:
    [command] = exec_lines("kiosk-firstboot.service", "ExecStart")
    args = kiosk_args(command)
    return kiosk(*shlex.split(args[0]), "--root", str(root))


def test_the_first_boot_unit_turns_kiosk_toml_into_the_kiosks_settings(card):
    result = firstboot(card)
    assert result.returncode == 0, result.stderr
    assert not (card / "boot/firmware/kiosk.toml").exists()  # it held the PIN and the code
    env_file = card / "etc/kiosk/kiosk.env"
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    env = read_env(env_file)
    assert env["KIOSK_PIN"] == "2580" and env["KIOSK_TIME_KEY"] == "ab" * 32
    assert env["KCFG_GRAPHICS_ROTATION"] == "90"  # Kivy turns the screen and its touches
    code = card / "var/lib/kiosk/pair-code"
    assert code.read_text() == "604137\n" and stat.S_IMODE(code.stat().st_mode) == 0o600
    # What the read-only root forgets, applied at every boot:
    assert (card / "etc/hostname").read_text() == "table-07\n"
    assert "127.0.1.1\ttable-07" in (card / "etc/hosts").read_text().splitlines()
    assert "raspberrypi" not in (card / "etc/hosts").read_text()
    assert (card / "etc/chrony/sources.d/kiosk-scorer.sources").read_text().splitlines()[-1] \
        == "server 192.168.8.2 iburst prefer key 1"
    keys = card / "etc/chrony/chrony.keys"
    assert keys.read_text() == f"1 SHA256 HEX:{'ab' * 32}\n"
    assert stat.S_IMODE(keys.stat().st_mode) == 0o600
    assert (card / "etc/kiosk/ssh_authorized_keys").read_text().startswith("ssh-ed25519 ")
    wifi = card / "etc/wpa_supplicant/wpa_supplicant-wlan0.conf"
    assert 'ssid="HALL"' in wifi.read_text() and stat.S_IMODE(wifi.stat().st_mode) == 0o600

    # The table's unit, with these settings, runs exactly this kiosk.
    table_unit = unit(UNITS / "kiosk-table.service")
    assert table_unit["Service.EnvironmentFile"] == "/etc/kiosk/kiosk.env"
    [start] = exec_lines("kiosk-table.service", "ExecStart")
    args = build_parser().parse_args(expand(kiosk_args(start)[0], env))
    assert (args.table, args.scorer, args.printer, args.printer_baud, args.lang) == (
        7, "http://192.168.8.2:8080", "/dev/kiosk-uart", 19200, "en")
    assert os.environ.get("KIOSK_PIN") != "2580"  # the PIN reaches it from the unit's env
    assert args.data == "/var/lib/kiosk"  # where the pairing code waits for it


FSTAB_OPTIONS = """#!/bin/sh
# findmnt --fstab -n -o OPTIONS /boot/firmware: the options the card's fstab gives it.
echo "$BOOT_OPTIONS"
"""
RECORD_MOUNT = """#!/bin/sh
echo "$*" >> "$MOUNTS"
"""


@pytest.mark.parametrize(("options", "closed"), [
    ("defaults,noatime,ro,nofail", True),  # the card image's fstab
    ("defaults", False),  # Raspberry Pi OS's own, on a Pi set up by hand
    ("defaults,errors=remount-ro", False),
])
def test_the_boot_partition_is_closed_again_as_soon_as_first_boot_is_done(tmp_path, options,
                                                                          closed):
    """The card's fstab mounts its FAT boot partition read-only; first boot opens it to remove
    kiosk.toml, and closes it right after, not at shutdown (RemainAfterExit keeps the unit
    started all day: a writable FAT partition would be left unclean by every power cut)."""
    stubs = tmp_path / "bin"
    stubs.mkdir()
    for name, text in (("findmnt", FSTAB_OPTIONS), ("mount", RECORD_MOUNT)):
        (stubs / name).write_text(text)
        (stubs / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{stubs}:{os.environ['PATH']}", "BOOT_OPTIONS": options,
           "MOUNTS": str(tmp_path / "mounts")}
    after_start = exec_lines("kiosk-firstboot.service", "ExecStartPost")
    after_stop = exec_lines("kiosk-firstboot.service", "ExecStopPost")
    closing = [line for line in after_start if "remount,ro" in line]
    assert closing and closing == [line for line in after_stop if "remount,ro" in line]
    assert after_start.index(closing[0]) == 0  # before anything that may reboot
    program, *args = shlex.split(closing[0].lstrip("-"))
    subprocess.run([program, *args], env=env, check=False, timeout=30)
    mounts = tmp_path / "mounts"
    said = mounts.read_text().splitlines() if mounts.exists() else []
    assert said == (["-o remount,ro /boot/firmware"] if closed else [])


def test_an_hdmi_mode_goes_to_the_kernel_command_line_with_one_reboot(card):
    (card / "boot/firmware/cmdline.txt").write_text(
        "console=tty1 root=LABEL=rootfs video=HDMI-A-1:1024x600@60 rootwait\n")
    (card / "run").mkdir()
    text = CARD.replace("rotation = 90", 'rotation = 90\nhdmi_mode = "800x480@60"')
    (card / "boot/firmware/kiosk.toml").write_text(text)
    result = firstboot(card)
    assert result.returncode == 0, result.stderr
    assert (card / "boot/firmware/cmdline.txt").read_text() == (
        "console=tty1 root=LABEL=rootfs rootwait video=HDMI-A-1:800x480@60 "
        "cfg80211.ieee80211_regdom=CN\n")
    assert (card / "run/kiosk-reboot-needed").exists()
    (card / "run/kiosk-reboot-needed").unlink()
    assert firstboot(card).returncode == 0  # the next boot: nothing to change, no reboot
    assert not (card / "run/kiosk-reboot-needed").exists()


def test_a_card_without_a_time_key_says_so_in_the_boot_log(card):
    """provision-kiosk.sh warns without --time-key; the first boot of a card whose kiosk.toml
    left it out (it is commented out in the example) took it without a word."""
    (card / "boot/firmware/kiosk.toml").write_text(
        CARD.replace(f'time_key = "{"ab" * 32}"\n', ""))
    (card / "boot/firmware/cmdline.txt").write_text("console=tty1 rootwait\n")
    result = firstboot(card)  # (no run/ in this scratch root: the reboot's mark makes it)
    assert result.returncode == 0, result.stderr
    assert "警告：kiosk.toml 没有 time_key，本平板会接受 192.168.8.2 发来的任何时间" in \
        result.stdout
    assert (card / "run/kiosk-reboot-needed").exists()  # (the Wi-Fi's country)


def test_a_time_key_in_upper_case_is_the_same_key():
    assert parse(CARD.replace("ab" * 32, "AB" * 32)).time_key == "ab" * 32


def test_a_kiosk_set_up_by_hand_and_booted_is_set_up_already_for_the_script(tmp_path):
    """Every boot writes chrony's source from kiosk.env; the script wrote it with another
    comment, so each run after a boot changed it back and restarted chrony."""
    boot = tmp_path / "boot/firmware"
    boot.mkdir(parents=True)
    (boot / "config.txt").write_text(PI_CONFIG)
    (boot / "cmdline.txt").write_text(PI_CMDLINE)
    provision("provision-kiosk.sh", tmp_path, "--table", "7", "--scorer", "scorer.local",
              "--pin", "2580", "--time-key", "ab" * 32)
    assert firstboot(tmp_path).returncode == 0
    again = provision("provision-kiosk.sh", tmp_path)
    assert again.stdout.splitlines()[-1] == "没有改动：本机已经配置好了", again.stdout


def test_the_next_boot_applies_the_settings_again(card):
    assert firstboot(card).returncode == 0
    (card / "etc/hostname").unlink()  # the overlay root forgot it at reboot
    again = firstboot(card)
    assert again.returncode == 0, again.stderr
    assert "已应用 /etc/hostname" in again.stdout
    assert (card / "etc/hostname").read_text() == "table-07\n"
    assert firstboot(card).stdout == ""  # nothing to do


MACHINE = "5f0c2d9e8b7a41c3a6e1f2d3c4b5a697"


def test_the_cards_machine_id_is_kept_across_boots_of_the_read_only_root(card):
    """The image's /etc/machine-id is empty; systemd made this one at the first boot. It is
    kept on the data partition and given back to systemd on the kernel command line, without
    a reboot (this boot already runs with it)."""
    cmdline = card / "boot/firmware/cmdline.txt"
    cmdline.write_text("console=tty1 root=PARTUUID=4e639091-02 rootwait kiosk.overlay=1\n")
    (card / "etc/machine-id").write_text(MACHINE + "\n")
    (card / "run").mkdir()
    (card / "boot/firmware/kiosk.toml").write_text(CARD.replace("[wifi]", "[x]").split("[x]")[0])
    first = firstboot(card)
    assert first.returncode == 0, first.stderr
    assert (card / "etc/kiosk/machine-id").read_text() == MACHINE + "\n"
    assert cmdline.read_text() == ("console=tty1 root=PARTUUID=4e639091-02 rootwait "
                                   f"kiosk.overlay=1 systemd.machine_id={MACHINE}\n")
    assert not (card / "run/kiosk-reboot-needed").exists()
    # The next boot: the overlay root's machine-id is systemd's from the command line again.
    assert "machine" not in firstboot(card).stdout
    # cmdline.txt replaced on a PC (the token lost), and systemd made another id: the kept
    # one comes back, the new one is not taken.
    cmdline.write_text("console=tty1 root=PARTUUID=4e639091-02 rootwait\n")
    (card / "etc/machine-id").write_text("0" * 31 + "1\n")
    assert firstboot(card).returncode == 0
    assert cmdline.read_text().split()[-1] == f"systemd.machine_id={MACHINE}"
    assert (card / "etc/kiosk/machine-id").read_text() == MACHINE + "\n"


def test_wifi_for_networkmanager_and_its_country_on_raspberry_pi_os(card):
    (card / "etc/NetworkManager/system-connections").mkdir(parents=True)
    (card / "boot/firmware/cmdline.txt").write_text("console=tty1 rootwait\n")
    (card / "run").mkdir()
    assert firstboot(card).returncode == 0
    keyfile = card / "etc/NetworkManager/system-connections/kiosk-wifi.nmconnection"
    text = keyfile.read_text()
    assert "ssid=HALL\n" in text and "psk=secret-password\n" in text
    assert "key-mgmt=wpa-psk" in text and stat.S_IMODE(keyfile.stat().st_mode) == 0o600
    assert "cfg80211.ieee80211_regdom=CN" in (card / "boot/firmware/cmdline.txt").read_text()
    assert (card / "run/kiosk-reboot-needed").exists()  # the radio's country: one reboot


@pytest.mark.parametrize(("text", "key", "problem"), [
    (CARD.replace('pin = "2580"', 'pin = "0000"'), "pin", "bad_pin"),
    (CARD.replace("table = 7", 'table = "7"'), "table", "bad_table"),
    (CARD.replace("table = 7\n", ""), "table", "missing"),
    (CARD.replace('printer = "uart"', 'printer = "serial"'), "printer", "not_allowed"),
    (CARD.replace("printer_baud = 19200", "printer_baud = 1200"), "printer_baud", "not_allowed"),
    (CARD.replace('scorer = "http://192.168.8.2:8080"', 'scorer = "scorer; reboot"'),
     "scorer", "bad_scorer"),
    (CARD.replace('scorer = "http://192.168.8.2:8080"', 'scorer = "https://s.local:8080/admin"'),
     "scorer", "bad_scorer"),
    ("colour = 1\n" + CARD, "colour", "unknown_key"),
    (CARD + "band = 5\n", "wifi.band", "unknown_key"),
    (CARD.replace('country = "CN"', 'country = "china"'), "wifi.country", "bad_wifi"),
    ("table = [", None, "not_toml_end"),
    (CARD.replace('pairing_code = "604137"', "pairing_code = 022133"), None, "not_toml"),
    (CARD.replace('pin = "2580"', 'pin = "4321"'), "pin", "example"),
    (CARD.replace('pairing_code = "604137"', 'pairing_code = "123456"'), "pairing_code",
     "example"),
    (CARD.replace('time_key = "' + "ab" * 32, 'time_key = "abc'), "time_key", "bad_time_key"),
    (CARD.replace('ssh_key = "ssh-ed25519 ', 'ssh_key = "password '), "ssh_key", "bad_ssh_key"),
])
def test_a_bad_kiosk_toml_changes_nothing_and_names_the_key(card, text, key, problem):
    (card / "boot/firmware/kiosk.toml").write_text(text)
    with pytest.raises(IdentityError) as err:
        parse(text)
    if key:  # a setting that is wrong: named, with what is wrong with it
        assert err.value.problems == ((key, problem),)
        assert f"“{key}”" in explain(err.value, "en") and f"“{key}”" in explain(err.value,
                                                                             "zh-Hans")
    else:  # a file TOML cannot read: where it stops
        assert err.value.key == f"fleet.identity.{problem}" and not err.value.problems
    result = firstboot(card)
    assert result.returncode == 2 and "kiosk.toml" in result.stderr
    assert (card / "boot/firmware/kiosk.toml").read_text() == text  # still there, to correct
    assert not (card / "etc/kiosk").exists() and not (card / "var").exists()


def test_a_card_that_cannot_start_its_table_says_why_on_its_boot_partition_and_screen(card):
    """No dead end: what firstboot refused (or that the card is not set up) goes to a file
    beside kiosk.toml that any PC reads, in Chinese, and to the file the screen's notice
    unit shows; the table's unit does not start (no loop over a blank screen). Both go once
    a boot succeeds."""
    error, notice = card / "boot/firmware/kiosk-error.txt", card / "run/kiosk-setup.txt"
    (card / "boot/firmware/kiosk.toml").write_text(CARD.replace('pin = "2580"', 'pin = 2580'))
    assert firstboot(card).returncode == 2
    said = error.read_bytes().decode("utf-8-sig")
    assert "“pin”必须是加引号的裁判密码" in said and "\r\n" in said  # Notepad's lines
    assert notice.read_text() == said.replace("\r\n", "\n")
    shows = unit(UNITS / "kiosk-notice.service")
    conditions = [v for s, k, v in unit_lines(UNITS / "kiosk-table.service")
                  if k == "ConditionPathExists"]
    assert conditions == ["/etc/kiosk/kiosk.env", "!/run/kiosk-setup.txt"]
    # Nor does an update, whose restart of the table would be skipped: no READY from any
    # version.
    assert ("Unit", "ConditionPathExists", "!/run/kiosk-setup.txt") in unit_lines(
        UNITS / "kiosk-update.service")
    for name in ("kiosk-table.service", "kiosk-notice.service", "kiosk-update.service"):
        assert "kiosk-firstboot.service" in " ".join(
            v for s, k, v in unit_lines(UNITS / name) if (s, k) == ("Unit", "After")).split()
    assert shows["Unit.ConditionPathExists"] == "/run/kiosk-setup.txt"
    args = build_parser().parse_args(kiosk_args(shows["Service.ExecStart"])[0].split())
    assert (args.fleet_command, args.file) == ("notice", "/run/kiosk-setup.txt")

    (card / "boot/firmware/kiosk.toml").write_text(CARD)  # corrected on a PC
    assert firstboot(card).returncode == 0
    assert not error.exists() and not notice.exists()


def test_a_card_never_set_up_says_so(card):
    (card / "boot/firmware/kiosk.toml").unlink()
    result = firstboot(card)
    assert result.returncode == 2 and "这张卡还没有设置" in result.stderr
    said = (card / "boot/firmware/kiosk-error.txt").read_bytes().decode("utf-8-sig")
    assert "kiosk.toml.example 复制为 kiosk.toml" in said
    assert (card / "run/kiosk-setup.txt").exists()


STRAIGHT = '：引号要用英文直引号 "，不能用中文引号“ ”或全角引号＂：'


@pytest.mark.parametrize(("line", "said"), [
    ("pairing_code = 022133", "kiosk.toml 第 6 行第 17 个字符处无法读取（pairing_code = 022133）："
                              '值要加英文引号，例如 pairing_code = "022133"。'),
    ("table = 07", "kiosk.toml 第 6 行第 10 个字符处无法读取（table = 07）："
                   "桌号不加引号，也不以 0 开头：table = 7。"),
    ("lang = zh-Hans", '（lang = zh-Hans）：值要加英文引号，例如 lang = "zh-Hans"。'),
    ("pin = 0123  # the PIN", '（pin = 0123  # the PIN）：值要加英文引号，例如 pin = "0123"。'),
    ("pin = ＂2580＂", f'（pin = ＂2580＂）{STRAIGHT}pin = "2580"。'),
    ("pairing_code = “604137”", f'{STRAIGHT}pairing_code = "604137"。'),
    ("lang = 「zh-Hans」", f'{STRAIGHT}lang = "zh-Hans"。'),
])
def test_a_line_toml_cannot_read_is_said_in_chinese_with_its_place_and_fix(line, said):
    """tomllib says where only in English; the scorer's codes have leading zeros, which
    TOML takes for a bad number when unquoted (finding M5)."""
    lines = ['scorer = "https://scorer.local:8080"', 'printer = "usb"', "printer_baud = 9600",
             "rotation = 0", 'hostname = "table-07"', line]  # the mistake on line 6
    with pytest.raises(IdentityError) as err:
        parse("\n".join(lines) + "\n")
    words = explain(err.value, "zh-Hans")
    assert said in words and "Expected" not in words


def test_the_example_unedited_is_refused_at_its_placeholders():
    """kiosk.toml.example copied and not filled in: its PIN and pairing code are refused
    (the table number is a fine one to keep)."""
    from kiosk.fleet.identity import EXAMPLE

    example = tomllib.loads((ROOT / "deploy/kiosk.toml.example").read_text(encoding="utf-8"))
    assert {key: example[key] for key in EXAMPLE} == EXAMPLE
    with pytest.raises(IdentityError) as err:
        parse((ROOT / "deploy/kiosk.toml.example").read_text(encoding="utf-8"))
    assert err.value.problems == (("pin", "example"), ("pairing_code", "example"))
    assert explain(err.value, "zh-Hans").count("示例") == 2


def test_a_notepad_bom_is_no_mistake(card):
    (card / "boot/firmware/kiosk.toml").write_bytes(b"\xef\xbb\xbf" + CARD.encode())
    assert firstboot(card).returncode == 0


def test_the_pairing_code_is_used_once_when_the_scorer_answers(tmp_path):
    data = tmp_path / "kiosk"
    data.mkdir()
    code_file = data / "pair-code"
    pending = ["fleet", "pair-pending", "--data", str(data), "--table", "3"]
    assert kiosk(*pending, "--scorer", "http://127.0.0.1:9").returncode == 0  # no code: nothing
    code_file.write_text("999999\n")
    offline = kiosk(*pending, "--scorer", "http://127.0.0.1:9")  # nobody listens on port 9
    assert offline.returncode == 0 and "配对码保留：平板运行时会一直重试" in offline.stderr
    assert code_file.exists()  # kept for the running kiosk
    with ScorerProcess(tmp_path / "scorer") as scorer:
        kiosk("scorer", "admin", "--data", str(scorer.data), "event", "--name", "e",
              "--ruleset", "xiamen-2015")
        tables = kiosk("scorer", "admin", "--data", str(scorer.data), "tables", "4",
                       "--lang", "en")
        code = re.search(r"^table 3: pairing code (\S+)$", tables.stdout, re.M)
        assert code, tables.stdout + tables.stderr
        code_file.write_text(code.group(1) + "\n")
        paired = kiosk(*pending, "--scorer", scorer.url)
    assert paired.returncode == 0, paired.stderr
    assert not code_file.exists()
    from kiosk.sync.link import Credential

    saved = Credential.load(data, 3)  # the table's credential, for every later start
    assert saved is not None and saved.table == 3


def test_a_first_boots_code_pairs_the_running_kiosk_once_the_scorer_answers(tmp_path):
    """The card's pairing code (left by kiosk-firstboot) is tried by `kiosk table` as it
    starts and, the scorer not answering yet (it starts after its kiosks), again from the
    table's outbox with its backoff: paired without a restart, and what the table recorded
    meanwhile reaches the scorer."""
    import argparse
    import time

    from kiosk.cli.ui_cmd import _outbox
    from kiosk.rules import Rulesets
    from kiosk.sync.link import Credential
    from kiosk.table.clock import ManualClock
    from kiosk.table.session import SessionConfig, TableSession

    scorer = ScorerProcess(tmp_path / "scorer")
    scorer.data.mkdir()
    kiosk("scorer", "admin", "--data", str(scorer.data), "event", "--name", "e",
          "--ruleset", "xiamen-2015")
    tables = kiosk("scorer", "admin", "--data", str(scorer.data), "tables", "4", "--lang", "en")
    code = re.search(r"^table 3: pairing code (\S+)$", tables.stdout, re.M)
    assert code, tables.stdout + tables.stderr
    data = tmp_path / "kiosk"
    data.mkdir()
    (data / "pair-code").write_text(code.group(1) + "\n")
    rulesets = Rulesets.load([])
    args = argparse.Namespace(pair=None, scorer=scorer.url, table=3, lang="zh-Hans")
    outbox = _outbox(args, data, rulesets)  # the scorer is not up: the kiosk starts offline
    assert outbox is not None and (data / "pair-code").exists()
    session = TableSession.open(data, 3, rulesets, ManualClock(), SessionConfig(pin="4321"))
    outbox.start(idle=0.2)
    try:
        session.setup_match(event="practice", round="1", teams={"NS": "甲队", "EW": "乙队"},
                            players={"N": "N1", "E": "E1", "S": "S1", "W": "W1"},
                            ruleset="xiamen-2015")  # recorded while unpaired
        recorded = session.journal.last_seq
        with scorer:
            deadline = time.monotonic() + 60
            while outbox.state.status != "in-sync" or outbox.acked != recorded:
                assert time.monotonic() < deadline, outbox.state
                time.sleep(0.1)
    finally:
        outbox.stop()
        session.close()
    assert not (data / "pair-code").exists()  # used once
    saved = Credential.load(data, 3)
    assert saved is not None and saved.table == 3  # for every later start


# -- backups ---------------------------------------------------------------------------------


def test_backups_keep_the_newest_and_one_an_hour(tmp_path):
    start = datetime.datetime(2026, 5, 1, 8, 0, 0)
    names = []
    for n in range(288):  # a day of backups every 5 minutes
        when = start + datetime.timedelta(minutes=5 * n, seconds=n % 7)
        name = when.strftime("scorer-%Y%m%d-%H%M%S.sqlite")
        (tmp_path / name).write_bytes(b"x")
        names.append(name)
    (tmp_path / f"{names[6]}-wal").write_bytes(b"w")  # pruned with its copy
    (tmp_path / "notes.txt").write_text("the technician's")
    (tmp_path / "scorer-20269999-999999.sqlite").write_bytes(b"looks like ours, is not")

    [post] = exec_lines("kiosk-scorer-backup.service", "ExecStartPost")
    args = shlex.split(kiosk_args(post)[0])
    args[args.index("--dir") + 1] = str(tmp_path)
    result = kiosk(*args)
    assert result.returncode == 0, result.stderr
    kept = sorted(p.name for p in tmp_path.glob("scorer-2026050*.sqlite"))
    newest = names[-24:]
    hourly = [names[12 * h + 11] for h in range(24)]  # the last copy of each hour
    assert kept == sorted(set(newest) | set(hourly))
    assert len(kept) == 24 + 22  # the last two hours are within the newest 24
    assert names[6] not in kept and not (tmp_path / f"{names[6]}-wal").exists()
    assert (tmp_path / "notes.txt").exists()
    assert (tmp_path / "scorer-20269999-999999.sqlite").exists()
    assert prune(tmp_path, 24) == []  # a second run removes nothing
    assert kiosk("fleet", "prune-backups", "--dir", str(tmp_path), "--keep", "0"
                 ).returncode == 2


@pytest.mark.parametrize("encoding", ["gb18030", "utf-16"])
def test_kiosk_toml_saved_by_notepad_as_ansi_or_unicode_is_read(card, encoding):
    """A Chinese Windows' Notepad saves "ANSI" as GB18030 and "Unicode" as UTF-16 with a BOM;
    the example's comments (→, …) make them differ from UTF-8."""
    text = "# 桌号 → 7…\n" + CARD
    (card / "boot/firmware/kiosk.toml").write_bytes(text.encode(encoding))
    result = firstboot(card)
    assert result.returncode == 0, result.stderr
    assert read_env(card / "etc/kiosk/kiosk.env")["KIOSK_TABLE"] == "7"


def test_kiosk_toml_that_is_no_text_is_refused_in_words(card):
    (card / "boot/firmware/kiosk.toml").write_bytes(b"table = 7\n\xff\xfe\x80\x80" * 3)
    result = firstboot(card)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    said = (card / "run/kiosk-setup.txt").read_text()
    assert "编码选 UTF-8" in said and (card / "boot/firmware/kiosk-error.txt").exists()


def test_an_unexpected_error_still_leaves_a_notice_in_words(card):
    """Whatever goes wrong while reading the settings, the screen says it, not a blank one."""
    (card / "boot/firmware/kiosk.toml").unlink()
    (card / "boot/firmware/kiosk.toml").mkdir()  # exists, but cannot be read as a file
    result = firstboot(card)
    assert result.returncode == 2
    said = (card / "run/kiosk-setup.txt").read_text()
    assert "这张卡读不了自己的设置" in said and "Traceback" not in said


def test_a_scorer_in_curly_quotes_is_shown_without_them():
    with pytest.raises(IdentityError) as err:
        parse("table = 7\nscorer = “https://scorer.local:8080”\n")
    assert 'scorer = "https://scorer.local:8080"。' in explain(err.value, "zh-Hans")
    assert "straight quotes" in explain(err.value, "en")


def test_every_mistake_of_a_kiosk_toml_is_said_at_once(card):
    """A technician's kiosk.toml with three mistakes was refused for the first: corrected on a
    PC, it came back for the second, then the third (a technician installing the Pis). Each
    is said on a line of its own, and what it costs once."""
    text = CARD.replace("table = 7", "table = 0").replace('pin = "2580"', 'pin = "12"') \
        .replace('printer = "uart"', 'printer = "serial"')
    (card / "boot/firmware/kiosk.toml").write_text(text)
    with pytest.raises(IdentityError) as err:
        parse(text)
    assert err.value.problems == (("table", "bad_table"), ("pin", "bad_pin"),
                                  ("printer", "not_allowed"))
    result = firstboot(card)
    assert result.returncode == 2
    said = (card / "boot/firmware/kiosk-error.txt").read_text(encoding="utf-8-sig")
    lines = said.splitlines()
    for setting in ("table", "pin", "printer"):
        assert len([line for line in lines if line.startswith(f"kiosk.toml：“{setting}”")]) == 1
    assert said.count("平板不会开始比赛") == 1
    assert (card / "boot/firmware/kiosk.toml").read_text() == text  # still there, to correct


@pytest.mark.parametrize(("text", "said"), [
    ("table = 7\ntable = 8\n", "kiosk.toml 第 2 行：“table”写了两次"),
    ('[wifi]\nssid = "HALL"\n[wifi]\n', "kiosk.toml 第 3 行：“[wifi]”写了两次"),
])
def test_a_setting_given_twice_is_said_so(text, said):
    """Not the table's leading-zero hint: tomllib says the line of the second one."""
    with pytest.raises(IdentityError) as err:
        parse(text)
    assert said in explain(err.value, "zh-Hans") and "0 开头" not in explain(err.value, "zh-Hans")


def test_a_refused_kiosk_toml_says_the_table_waits_for_it(card):
    """A card that already worked stops its table for a refused kiosk.toml: the words say so,
    not that nothing was changed."""
    (card / "boot/firmware/kiosk.toml").write_text(CARD.replace('pin = "2580"', 'pin = 2580'))
    firstboot(card)
    said = (card / "run/kiosk-setup.txt").read_text()
    assert "改正或移走启动分区上的 kiosk.toml 之前，平板不会开始比赛" in said
    assert "没有做任何更改" not in said


def test_a_kiosk_toml_saved_as_kiosk_toml_txt_is_taken_and_named(card):
    """Notepad's Save As adds .txt and Windows hides it: the file is taken as it is, on a card
    never set up and on one that already works (whose technician changed a setting), and the
    log names the file taken."""
    boot = card / "boot/firmware"
    (boot / "kiosk.toml").rename(boot / "kiosk.toml.txt")
    result = firstboot(card)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("kiosk.toml.txt：第 7 桌")
    assert "启动分区上的 kiosk.toml.txt 已删除" in result.stdout
    assert not (boot / "kiosk.toml.txt").exists() and not (card / "run/kiosk-setup.txt").exists()

    (boot / "kiosk.toml.txt").write_text(CARD.replace("table = 7", "table = 8"))  # a change
    assert firstboot(card).returncode == 0
    assert read_env(card / "etc/kiosk/kiosk.env")["KIOSK_TABLE"] == "8"
    assert not (boot / "kiosk.toml.txt").exists()


def test_kiosk_toml_and_kiosk_toml_txt_both_are_neither_taken_and_said(card):
    """Windows shows both as kiosk.toml: which one the technician meant, the card cannot tell.
    A card that already works keeps its settings but does not play on them unnoticed."""
    boot = card / "boot/firmware"
    assert firstboot(card).returncode == 0  # a card that works, as table 7
    (boot / "kiosk.toml").write_text(CARD)
    (boot / "kiosk.toml.txt").write_text(CARD.replace("table = 7", "table = 8"))
    result = firstboot(card)
    assert result.returncode == 2 and "既有 kiosk.toml 又有 kiosk.toml.txt" in result.stderr
    said = (card / "run/kiosk-setup.txt").read_text()
    assert said.startswith("启动分区上有两份设置：kiosk.toml 和 kiosk.toml.txt")
    assert "删掉不要的那一份" in said
    assert (boot / "kiosk-error.txt").read_bytes().decode("utf-8-sig") == said.replace(
        "\n", "\r\n")
    assert (boot / "kiosk.toml").exists() and (boot / "kiosk.toml.txt").exists()
    assert read_env(card / "etc/kiosk/kiosk.env")["KIOSK_TABLE"] == "7"  # nothing taken

    (boot / "kiosk.toml").unlink()  # the old one deleted on a PC: the other one is taken
    assert firstboot(card).returncode == 0
    assert read_env(card / "etc/kiosk/kiosk.env")["KIOSK_TABLE"] == "8"
    assert not (card / "run/kiosk-setup.txt").exists()


def test_the_readmes_kiosk_toml_for_a_swapped_table_is_accepted():
    """deploy/README.md's swap: the kiosk.toml it shows is one a card takes."""
    readme = (ROOT / "deploy/README.md").read_text(encoding="utf-8")
    swap = readme[readme.index("**Set up the spare**"):]
    block = re.findall(r"```toml\n(.*?)```", swap, re.S)[0]
    identity = parse(re.sub(r"(?m)^ {3}", "", block).replace("CODE", "604137"))
    assert (identity.table, identity.pairing_code) == (7, "604137")

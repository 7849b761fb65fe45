"""One card's identity, from one file: `kiosk.toml` on the card's FAT boot partition.

Fifty cards are flashed from one image; the technician then edits `kiosk.toml` on each (any
computer opens the FAT partition). At boot, `kiosk-firstboot.service` runs `kiosk fleet
firstboot`: a `kiosk.toml` (or `kiosk.toml.txt`, as Notepad saves it) found there is
checked, turned into the kiosk's settings on the data partition (`/etc/kiosk/kiosk.env`, root
only, for the table's unit; the pairing code for the kiosk to use once), and removed from the
boot partition (it holds the PIN and the pairing code). Every boot then applies the settings
the read-only root forgets: the host name, the scorer as chrony's time source (with the hall's
time key), the Wi-Fi. The scorer's certificate is not set here: the kiosk learns it, sealed,
when it pairs with the code, and pins it from then on.

A file with a mistake is not taken: the error names the key and what is allowed, the file
stays where it is, the unit fails, and the table does not start until it is fixed or
removed. A card that cannot start its table (no settings, or a refused file) says why where
the installer looks without tools (`tell`): in
`kiosk-error.txt` beside kiosk.toml, which any PC reads, and on the screen (kiosk-notice.service
shows NOTICE instead of the table)."""

from __future__ import annotations

import contextlib
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import IdentityError, Words, words

BOOT_FILE = "/boot/firmware/kiosk.toml"
SETTINGS_DIR = "/etc/kiosk"
DATA_DIR = "/var/lib/kiosk"
RULES_DIR = "/etc/kiosk/rules"  # the house rulesets the table loads (kiosk/fleet/house.py)
PRINTERS = {"none": None, "usb": "/dev/kiosk-printer", "uart": "/dev/kiosk-uart"}
BAUDS = (9600, 19200, 38400, 57600, 115200)
LANGS = ("zh-Hans", "zh-Hant", "en")
ROTATIONS = (0, 90, 180, 270)
HOST = r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)"
# The scorer's address: its host, with a scheme and a port when given (provision-kiosk.sh takes
# the same forms): no port is 8080, the scorer's own; no scheme is HTTPS, the only one it serves.
SCORER = re.compile(rf"^(?:(https?)://)?{HOST}(:\d{{1,5}})?/?$")
TIME_KEY = re.compile(r"^[0-9a-f]{64}$")  # provision-scorer.sh prints it
KEYS = {"table", "scorer", "time_key", "pin", "pairing_code", "hostname", "printer",
        "printer_baud", "lang", "rotation", "hdmi_mode", "wifi", "ssh_key"}
# deploy/kiosk.toml.example's placeholders: a file copied and not filled in is refused there.
EXAMPLE = {"pin": "4321", "pairing_code": "123456"}
MACHINE_ID = re.compile(r"^[0-9a-f]{32}$")
CMDLINE = "/boot/firmware/cmdline.txt"
ERROR_FILE = "kiosk-error.txt"  # beside kiosk.toml (ASCII: any PC's FAT driver reads the name)
NOTICE = "/run/kiosk-setup.txt"  # in RAM: what kiosk-notice.service shows, for this boot only
SSH_KEY = re.compile(r"^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp256) [A-Za-z0-9+/=]{40,} ?[^\n]*$")
WIFI_KEYS = {"ssid", "psk", "country"}
# Quotes a Chinese keyboard or a word processor types, which TOML does not take for quotes.
QUOTES = "“”„‟＂「」『』‘’‚‛＇«»‹›"
# Settings of free text in a form: (key, the form, the problem's words when it is not so).
PATTERNS = (("pairing_code", r"[0-9A-Za-z-]{4,32}", "bad_code"),
            ("hostname", r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?", "bad_hostname"),
            ("hdmi_mode", r"\d+x\d+(@\d+)?", "bad_hdmi_mode"),
            ("ssh_key", SSH_KEY.pattern, "bad_ssh_key"))
# Settings that are one of a few values.
CHOICES: dict[str, tuple[Any, ...]] = {"printer": tuple(PRINTERS), "printer_baud": BAUDS,
                                       "lang": LANGS, "rotation": ROTATIONS}


class _Problems(list[tuple[str, Words]]):
    """What is wrong with a kiosk.toml's settings, each (setting, its words): all of them said
    at once, so that one trip to a PC fixes the card."""

    def add(self, key: str, problem: str, **params: Any) -> None:
        self.append((key, words(f"fleet.identity.{problem}", setting=key, **params)))

    def refusal(self) -> IdentityError:
        said = self[-1][1]
        for _, problem in reversed(self[:-1]):  # one per line, as the catalog joins two
            said = words("fleet.identity.and", first=problem, rest=said)
        error = IdentityError("kiosk.toml: " + "; ".join(
            f"{key}: {problem.key.rpartition('.')[2]}" for key, problem in self))
        error.problems = tuple((key, problem.key.rpartition(".")[2]) for key, problem in self)
        return error.explained("fleet.identity.refused", problems=said)


@dataclass(frozen=True)
class Identity:
    table: int
    scorer: str
    scorer_host: str
    pin: str
    time_key: str = ""
    pairing_code: str = ""
    hostname: str = ""
    printer: str = "none"
    printer_baud: int = 9600
    lang: str = "zh-Hans"
    rotation: int = 0
    hdmi_mode: str = ""
    wifi_ssid: str = ""
    wifi_psk: str = ""
    wifi_country: str = ""
    ssh_key: str = ""

    def env(self) -> str:
        """The table unit's environment file (kiosk-table.service reads it)."""
        extra = [f"--lang {self.lang}"]
        if PRINTERS[self.printer]:
            extra.append(f"--printer {PRINTERS[self.printer]} --printer-baud {self.printer_baud}")
        lines = [
            "# Written by kiosk-firstboot.service from the boot partition's kiosk.toml.",
            "# To change a kiosk: put a new kiosk.toml on its boot partition and reboot.",
            f"KIOSK_TABLE={self.table}",
            f"KIOSK_SCORER={self.scorer}",
            f"KIOSK_TIME_KEY={self.time_key}",
            f"KIOSK_PIN={self.pin}",
            f"KIOSK_HOSTNAME={self.hostname or f'table-{self.table:02d}'}",
            f"KIOSK_HDMI_MODE={self.hdmi_mode}",
            f"KIOSK_WIFI_SSID={self.wifi_ssid}",
            f"KIOSK_WIFI_PSK={self.wifi_psk}",
            f"KIOSK_WIFI_COUNTRY={self.wifi_country}",
            f"KIOSK_EXTRA_ARGS={' '.join(extra)}",
            # The house rulesets from the boot partition's kiosk-rules folder, copied there at
            # every boot (kiosk/fleet/house.py); `kiosk` reads the variable.
            f"KIOSK_RULES_DIR={RULES_DIR}",
            # Kivy reads KCFG_<SECTION>_<KEY> over its config.ini: the screen and its touches
            # turned together (Touch Display 2 is a portrait panel: 90 or 270 for landscape).
            f"KCFG_GRAPHICS_ROTATION={self.rotation}",
        ]
        return "\n".join(lines) + "\n"


def parse(text: str) -> Identity:
    """A kiosk.toml's identity. Raises IdentityError naming every bad key (or, in a file TOML
    cannot read, where it stops)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _not_toml(text, exc) from None
    bad = _Problems()
    for key in sorted(set(data) - KEYS):
        bad.add(key, "unknown_key", allowed=", ".join(sorted(KEYS)))
    for key in ("table", "scorer", "pin"):
        if key not in data:
            bad.add(key, "missing")
    for key, placeholder in EXAMPLE.items():
        if data.get(key) == placeholder:
            bad.add(key, "example", value=placeholder)
    fields: dict[str, Any] = {}
    table = data.get("table")
    if table is not None:
        if isinstance(table, int) and not isinstance(table, bool) and 1 <= table <= 9999:
            fields["table"] = table
        else:
            bad.add("table", "bad_table")
    scorer = data.get("scorer")
    match = SCORER.match(scorer) if isinstance(scorer, str) else None
    if match is not None:
        fields["scorer_host"] = match.group(2).strip("[]")
        fields["scorer"] = f"{match.group(1) or 'https'}://{match.group(2)}" \
            f"{match.group(3) or ':8080'}"
    elif scorer is not None:
        bad.add("scorer", "bad_scorer")
    pin = data.get("pin")
    if isinstance(pin, str) and re.fullmatch(r"\d{4,8}", pin) and pin != "0000":
        fields["pin"] = pin
    elif pin is not None:
        bad.add("pin", "bad_pin")
    given = data.get("time_key")
    if given is not None:
        time_key = given.lower() if isinstance(given, str) else ""  # (upper case: the same)
        if TIME_KEY.match(time_key):
            fields["time_key"] = time_key
        else:
            bad.add("time_key", "bad_time_key")
    for key, pattern, problem in PATTERNS:
        value = data.get(key)
        if isinstance(value, str) and re.fullmatch(pattern, value):
            fields[key] = value
        elif value is not None:
            bad.add(key, problem)
    for key, allowed in CHOICES.items():
        value = data.get(key)
        if value is not None and (isinstance(value, bool) or value not in allowed):
            bad.add(key, "not_allowed", allowed=", ".join(map(str, allowed)))
        elif value is not None:
            fields[key] = value
    if "wifi" in data:
        fields.update(_wifi(data["wifi"], bad))
    if bad:
        raise bad.refusal()
    return Identity(**fields)


def _not_toml(text: str, exc: tomllib.TOMLDecodeError) -> IdentityError:
    """A file TOML cannot read, said as its line and column (tomllib says them only in its
    English message) with the likely fix for what that line holds."""
    where = re.search(r"at line (\d+), column (\d+)", str(exc))
    if where is None:  # at the end of the document: a key given twice, a [ not closed
        return IdentityError(f"kiosk.toml: {exc}").explained("fleet.identity.not_toml_end")
    line, column = int(where.group(1)), int(where.group(2))
    said = text.splitlines()[line - 1].strip()
    if str(exc).startswith(("Cannot overwrite a value", "Cannot declare")):  # given twice
        return IdentityError(f"kiosk.toml: {exc}").explained(
            "fleet.identity.twice", line=line, setting=said.partition("=")[0].strip())
    return IdentityError(f"kiosk.toml: {exc}").explained(
        "fleet.identity.not_toml", line=line, column=column, text=said, hint=_hint(said))


def _hint(line: str) -> Words:
    """The likely mistake on a line `key = value` that TOML cannot read."""
    key, equals, value = (part.strip() for part in line.partition("="))
    value = value.split("#")[0].strip()
    bare = value.strip(QUOTES + "\"'")
    if equals and bare and any(quote in value for quote in QUOTES):
        return words("fleet.identity.hint.curly", setting=key, value=bare)
    if not equals or not value or value[0] in "\"'[{":
        return words("fleet.identity.hint.line")
    if key == "table" and value.isdigit():  # 07: TOML numbers have no leading zero
        return words("fleet.identity.hint.table", table=int(value))
    # The scorer issues codes such as 022133: unquoted, the leading zero makes no number.
    return words("fleet.identity.hint.quote", setting=key, value=value)


def _wifi(wifi: Any, bad: _Problems) -> dict[str, str]:
    if not isinstance(wifi, dict):
        bad.add("wifi", "bad_wifi")
        return {}
    for key in sorted(set(wifi) - WIFI_KEYS):
        bad.add(f"wifi.{key}", "unknown_key", allowed=", ".join(sorted(WIFI_KEYS)))
    ssid, psk, country = (wifi.get(k, "") for k in ("ssid", "psk", "country"))
    # (the words say what all three must be: said once, at the first that is wrong)
    if not isinstance(ssid, str) or not 1 <= len(ssid.encode()) <= 32:
        bad.add("wifi.ssid", "bad_wifi")
    elif not isinstance(psk, str) or not 8 <= len(psk) <= 63 or "\n" in psk or '"' in psk:
        bad.add("wifi.psk", "bad_wifi")
    elif not isinstance(country, str) or not re.fullmatch(r"[A-Z]{2}", country):
        bad.add("wifi.country", "bad_wifi")
    else:
        return {"wifi_ssid": ssid, "wifi_psk": psk, "wifi_country": country}
    return {}


@dataclass(frozen=True)
class Paths:
    """Where first boot reads and writes; `root` prefixes them all (a scratch root in tests)."""

    root: Path = Path("/")
    boot_file: str = BOOT_FILE
    settings_dir: str = SETTINGS_DIR
    data_dir: str = DATA_DIR

    def at(self, path: str) -> Path:
        return self.root / path.lstrip("/")


def boot_settings(paths: Paths) -> Path | None:
    """The settings file on the boot partition: kiosk.toml, or kiosk.toml.txt (Notepad's Save
    As adds .txt and Windows hides it, so the technician cannot see the difference); None when
    there is neither. Raises IdentityError when both are there: Windows shows both as
    kiosk.toml, the card cannot tell which one is meant, and takes neither."""
    named = paths.at(paths.boot_file)
    found = [path for path in (named, named.with_name(named.name + ".txt")) if path.exists()]
    if len(found) > 1:
        raise IdentityError("kiosk.toml: kiosk.toml.txt beside it").explained(
            "fleet.identity.two_files")
    return found[0] if found else None


def consume(paths: Paths,
            owner: tuple[int, int] | None = None) -> tuple[Identity, str] | None:
    """Turn the boot partition's settings file (boot_settings) into the settings, then remove
    it. Returns the identity read and the file's name, or None when there was no file. Raises
    IdentityError (and writes nothing) when the file is refused. `owner`: uid and gid of the
    kiosk's user, for the pairing code it reads."""
    source = boot_settings(paths)
    if source is None:
        return None
    identity = parse(_decode(source.read_bytes()))
    settings = paths.at(paths.settings_dir)
    settings.mkdir(parents=True, exist_ok=True)
    write_file(settings / "kiosk.env", identity.env(), 0o600)
    code_file = paths.at(paths.data_dir) / "pair-code"
    if identity.pairing_code:
        write_file(code_file, identity.pairing_code + "\n", 0o600, owner)
    if identity.ssh_key:  # sshd reads it there (the image's sshd_config.d/kiosk.conf)
        write_file(settings / "ssh_authorized_keys", identity.ssh_key + "\n", 0o644)
    source.unlink()  # last: a power cut before this reads the file again at the next boot
    return identity, source.name


def _decode(raw: bytes) -> str:
    """kiosk.toml as an installer's editor saved it: UTF-8 (Notepad may add a BOM), UTF-16
    with its BOM (Notepad's "Unicode"), else GB18030 (a Chinese Windows' "ANSI")."""
    encoding = ("utf-16" if raw[:2] in (b"\xff\xfe", b"\xfe\xff")
                else "utf-8-sig" if raw.startswith(b"\xef\xbb\xbf") else None)
    for name in (encoding,) if encoding else ("utf-8", "gb18030"):
        with contextlib.suppress(UnicodeDecodeError):
            return raw.decode(name)
    raise IdentityError("kiosk.toml: not text").explained("fleet.identity.not_text")


def tell(paths: Paths, text: str | None) -> None:
    """Say why this card does not start its table (`text`), or, with None, that it does: the
    boot partition's error file (removed once a boot succeeds) and the screen's notice."""
    error, notice = paths.at(paths.boot_file).with_name(ERROR_FILE), paths.at(NOTICE)
    if text is None:
        for path in (error, notice):
            with contextlib.suppress(OSError):  # (a boot partition left read-only)
                path.unlink(missing_ok=True)
        return
    write_file(notice, text, 0o644)
    with contextlib.suppress(OSError):  # the screen still says it
        # Notepad: a BOM says UTF-8, CRLF ends its lines.
        write_file(error, "\ufeff" + text.replace("\n", "\r\n"), 0o644)


def write_file(path: Path, text: str | bytes, mode: int,
               owner: tuple[int, int] | None = None) -> None:
    """Write beside, then rename: a power cut leaves the old file or the new one. Text is
    written as UTF-8, bytes as they are."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(path.name + ".new")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as handle:
        handle.write(text.encode("utf-8") if isinstance(text, str) else text)
        handle.flush()
        os.fsync(handle.fileno())
    with contextlib.suppress(PermissionError):  # FAT (the boot partition) keeps no modes
        os.chmod(temp, mode)
    if owner is not None:
        os.chown(temp, *owner)
    temp.replace(path)


def read_env(path: Path) -> dict[str, str]:
    """The NAME=VALUE lines of an environment file."""
    values = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#") and "=" in line:
            name, _, value = line.partition("=")
            values[name] = value
    return values


def apply(paths: Paths) -> list[str]:
    """Each boot: what the read-only root forgets, from the settings. Returns the files it
    wrote (relative to the root): the host name, the scorer as time source, the Wi-Fi."""
    env_file = paths.at(paths.settings_dir) / "kiosk.env"
    if not env_file.exists():
        return []
    env = read_env(env_file)
    written = []

    def put(path: str, text: str, mode: int = 0o644) -> None:
        target = paths.at(path)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            write_file(target, text, mode)
            written.append(path)

    hostname = env.get("KIOSK_HOSTNAME", "")
    if hostname:
        put("/etc/hostname", hostname + "\n")
        hosts = paths.at("/etc/hosts")
        old = hosts.read_text(encoding="utf-8") if hosts.exists() else "127.0.0.1\tlocalhost\n"
        kept = [line for line in old.splitlines() if not line.startswith("127.0.1.1")]
        put("/etc/hosts", "\n".join([*kept, f"127.0.1.1\t{hostname}"]) + "\n")
    match = SCORER.match(env.get("KIOSK_SCORER", ""))
    key = env.get("KIOSK_TIME_KEY", "")
    if key:  # the scorer's time is taken only when signed with the hall's key
        put("/etc/chrony/chrony.keys", f"1 SHA256 HEX:{key}\n", 0o600)
    if match:
        put("/etc/chrony/sources.d/kiosk-scorer.sources",
            # (the same text as provision-kiosk.sh writes: a run after a boot changes nothing)
            "# The hall's scorer: KIOSK_SCORER in /etc/kiosk/kiosk.env.\n"
            f"server {match.group(2).strip('[]')} iburst prefer{' key 1' if key else ''}\n")
    # The kernel command line: a Zero 2 W's HDMI display mode for KMS; the Wi-Fi country for
    # the radio's rules (Raspberry Pi OS keeps Wi-Fi off until it has one). Read by the
    # firmware: a change takes a reboot (kiosk fleet firstboot asks for one).
    mode, country = env.get("KIOSK_HDMI_MODE", ""), env.get("KIOSK_WIFI_COUNTRY", "")
    cmdline = paths.at(CMDLINE)
    if (mode or country) and cmdline.exists():
        words = cmdline.read_text(encoding="utf-8").split()
        if mode:
            words = [w for w in words if not w.startswith("video=HDMI-A-1:")]
            words.append(f"video=HDMI-A-1:{mode}")
        if country:
            words = [w for w in words if not w.startswith("cfg80211.ieee80211_regdom=")]
            words.append(f"cfg80211.ieee80211_regdom={country}")
        put(CMDLINE, " ".join(words) + "\n")
    if env.get("KIOSK_WIFI_SSID"):
        put("/etc/wpa_supplicant/wpa_supplicant-wlan0.conf",
            f"ctrl_interface=DIR=/run/wpa_supplicant GROUP=netdev\n"
            f"country={env.get('KIOSK_WIFI_COUNTRY', '')}\n"
            f"network={{\n\tssid=\"{env['KIOSK_WIFI_SSID']}\"\n"
            f"\tpsk=\"{env.get('KIOSK_WIFI_PSK', '')}\"\n}}\n", 0o600)
        if paths.at("/etc/NetworkManager").is_dir():  # Raspberry Pi OS: NetworkManager's Wi-Fi
            put("/etc/NetworkManager/system-connections/kiosk-wifi.nmconnection",
                _nm_wifi(env["KIOSK_WIFI_SSID"], env.get("KIOSK_WIFI_PSK", "")), 0o600)
    return written


def _nm_wifi(ssid: str, psk: str) -> str:
    """A NetworkManager keyfile for the hall's Wi-Fi (a GKeyFile: backslashes doubled)."""
    def esc(value: str) -> str:
        return value.replace("\\", "\\\\")

    return ("[connection]\nid=kiosk-wifi\ntype=wifi\nautoconnect=true\n\n"
            f"[wifi]\nmode=infrastructure\nssid={esc(ssid)}\n\n"
            f"[wifi-security]\nkey-mgmt=wpa-psk\npsk={esc(psk)}\n\n"
            "[ipv4]\nmethod=auto\n\n[ipv6]\nmethod=auto\n")


def keep_machine_id(paths: Paths) -> list[str]:
    """Each boot: the card's machine-id kept. The image's /etc/machine-id is empty, so systemd
    made one for this boot; the first one is saved on the data partition (settings_dir) and put
    on the kernel command line as systemd.machine_id=, which systemd takes at every later boot
    (the read-only root cannot keep it). A cmdline.txt that lost it (replaced on a PC) gets the
    saved one back. Returns the files written; none of them needs a reboot now, because this
    boot already runs with the id saved, or will from the next one."""
    saved_file = paths.at(paths.settings_dir) / "machine-id"
    written = []
    try:
        saved = saved_file.read_text(encoding="utf-8").strip()
    except OSError:
        saved = ""
    if not MACHINE_ID.match(saved):
        machine = paths.at("/etc/machine-id")
        saved = machine.read_text(encoding="utf-8").strip() if machine.exists() else ""
        if not MACHINE_ID.match(saved):
            return []  # systemd has made none (not a booted card): nothing to keep
        write_file(saved_file, saved + "\n", 0o644)
        written.append(f"{paths.settings_dir}/machine-id")
    cmdline = paths.at(CMDLINE)
    if cmdline.exists():
        words = cmdline.read_text(encoding="utf-8").split()
        token = f"systemd.machine_id={saved}"
        if token not in words:
            words = [w for w in words if not w.startswith("systemd.machine_id=")]
            write_file(cmdline, " ".join([*words, token]) + "\n", 0o644)
            written.append(CMDLINE)
    return written

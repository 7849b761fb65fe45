"""The pin map, the boot config and the wiring docs: checked by reading them, as on no Pi."""

from __future__ import annotations

import re

import pytest

from kiosk.hw.pinmap import (
    HEADER_PIN,
    PARTS,
    claimed_pins,
    default_boot_config,
    default_pinmap_text,
    load_pinmap,
)

from .helpers import ROOT, kiosk

CONFIG = ROOT / "firmware_config" / "config.txt"


def test_default_pin_map_passes_against_the_shipped_boot_config():
    done = kiosk("hw", "check")
    assert done.returncode == 0, done.stderr
    assert "11 parts on 11 pins, none claimed by firmware_config/config.txt" in done.stdout


def test_the_package_ships_the_boot_config_fragment_as_is():
    source, text = default_boot_config()
    assert (source, text) == ("firmware_config/config.txt", CONFIG.read_text(encoding="utf-8"))


def broken(old: str, new: str) -> str:
    text = default_pinmap_text()
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(("text", "message"), [
    (broken("[seat.E.led]\ngpio = 19", "[seat.E.led]\ngpio = 6"),
     "seat.N.led: GPIO6 is already used by"),  # order: the map lists N's led before E's
    (broken("[buzzer]\ngpio = 12", "[buzzer]\ngpio = 14"),
     "buzzer: GPIO14 is claimed by the UART (TXD) in"),
    (broken("[referee.pause]\ngpio = 23", "[referee.pause]\ngpio = 3"),
     "referee.pause: GPIO3 is claimed by the shutdown button in"),
    (broken("[seat.W.led]\ngpio = 16", "[seat.W.led]\ngpio = 40"),
     "seat.W.led: GPIO40 is not on the 40-pin header"),
    (broken("[seat.W.led]\ngpio = 16", "[seat.W.led]\ngpio = 1"),
     "seat.W.led: GPIO1 is reserved for the HAT ID EEPROM"),
])
def test_broken_pin_maps_are_refused_naming_part_and_pin(tmp_path, text, message):
    path = tmp_path / "pins.toml"
    path.write_text(text, encoding="utf-8")
    done = kiosk("hw", "check", "--pinmap", str(path))
    assert done.returncode == 2
    if "already used" in message:  # a pin used twice names both parts
        assert "seat.E.led: GPIO6 is already used by seat.N.led" in done.stderr
    else:
        assert message in done.stderr, done.stderr
    assert str(path) in done.stderr


def test_a_boot_config_that_turns_on_i2c_claims_its_pins(tmp_path):
    pins = tmp_path / "pins.toml"
    pins.write_text(broken("[referee.confirm]\ngpio = 24", "[referee.confirm]\ngpio = 2"))
    config = tmp_path / "config.txt"
    config.write_text("[all]\ndtparam=i2c_arm=on\ndtparam=spi=on\n")
    done = kiosk("hw", "check", "--pinmap", str(pins), "--boot-config", str(config))
    assert done.returncode == 2
    assert f"referee.confirm: GPIO2 is claimed by I2C (SDA) in {config}" in done.stderr
    assert claimed_pins(config.read_text())[9] == "SPI"


@pytest.mark.parametrize(("text", "message"), [
    ("[seat.N.button]\ngpio = 5\n", "seat.N.led: missing"),
    (default_pinmap_text() + "\n[seat.X.button]\ngpio = 17\n", "seat.X.button: no such part"),
    (broken("[buzzer]\ngpio = 12", "[buzzer]\ngpio = 12\npull = \"up\""),
     "buzzer.pull: unknown key"),
    (broken("[buzzer]\ngpio = 12", "[buzzer]\ngpio = \"12\""), "buzzer: gpio = '12'"),
    (broken("[buzzer]\ngpio = 12", "[buzzer]\ngpio 12"), "TOML syntax error"),
])
def test_malformed_pin_maps(tmp_path, text, message):
    path = tmp_path / "pins.toml"
    path.write_text(text, encoding="utf-8")
    done = kiosk("hw", "check", "--pinmap", str(path))
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_pin_map_from_the_environment(tmp_path):
    import os

    path = tmp_path / "pins.toml"
    path.write_text(broken("[buzzer]\ngpio = 12", "[buzzer]\ngpio = 17"))
    done = kiosk("hw", "check", env={**os.environ, "KIOSK_PINMAP": str(path)})
    assert done.returncode == 0 and str(path) in done.stdout


def test_wiring_table_matches_the_default_pin_map():
    rows = re.findall(r"^\| (\S+) \| (\d+) \| (\d+) \|", (ROOT / "hardware" / "wiring.md")
                      .read_text(encoding="utf-8"), flags=re.M)
    wired = {part: (int(gpio), int(header)) for part, gpio, header in rows}
    pins = load_pinmap().pins
    assert {part: gpio for part, (gpio, _) in wired.items() if part in PARTS} == pins
    for part, (gpio, header) in wired.items():
        assert HEADER_PIN[gpio] == header, part


def test_boot_config_explains_every_line_and_covers_each_model():
    lines = CONFIG.read_text(encoding="utf-8").splitlines()
    sections = [line for line in lines if line.startswith("[")]
    assert {"[all]", "[pi4]", "[pi5]", "[pi02]"} <= set(sections)
    for i, line in enumerate(lines):
        if line and not line.startswith(("#", "[")):
            assert lines[i - 1].startswith("#"), f"config.txt line {i + 1} has no comment"
    settings = {line.split("=")[0] for line in lines if line and line[0] not in "#["}
    assert {"dtparam", "dtoverlay", "enable_uart"} <= settings
    text = "\n".join(lines)
    for needed in ("dtparam=watchdog=on", "gpio-shutdown", "disable-bt", "dtparam=uart0=on",
                   "vc4-kms-v3d"):
        assert needed in text
    cmdline = (ROOT / "firmware_config" / "cmdline.md").read_text(encoding="utf-8")
    assert "console=serial0" in cmdline and "consoleblank=0" in cmdline


@pytest.mark.parametrize(("config", "pin", "claim"), [
    ("dtparam=i2c_arm=on,spi=on", 10, "SPI"),
    ("dtparam=spi", 10, "SPI"),
    ("dtparam=spi=true", 10, "SPI"),
    ("dtoverlay=spi0-1cs", 10, "SPI"),
    ("dtoverlay=gpio-shutdown\ndtparam=gpio_pin=17", 17, "the shutdown button"),
    ("dtoverlay=gpio-shutdown,gpio_pin=0x11", 17, "the shutdown button"),
    ("enable_uart=1", 14, "the UART (TXD)"),
])
def test_boot_config_claims_in_every_spelling(config, pin, claim):
    assert claimed_pins(config)[pin] == claim


def test_an_unreadable_shutdown_pin_is_a_clear_error(tmp_path):
    config = tmp_path / "config.txt"
    config.write_text("dtoverlay=gpio-shutdown,gpio_pin=x\n")
    done = kiosk("hw", "check", "--boot-config", str(config))
    assert done.returncode == 2 and "gpio_pin='x' is not a GPIO number" in done.stderr

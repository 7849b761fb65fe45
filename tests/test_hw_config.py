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

from .helpers import ROOT
from .helpers import cli as kiosk

CONFIG = ROOT / "firmware_config" / "config.txt"


@pytest.mark.unit
def test_default_pin_map_passes_against_the_shipped_boot_config():
    done = kiosk("hw", "check")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "随附的引脚表：11 个部件接在 11 个引脚上，没有一个被 " \
        "firmware_config/config.txt 占用\n"


@pytest.mark.unit
def test_the_package_ships_the_boot_config_fragment_as_is():
    source, text = default_boot_config()
    assert (source, text) == ("firmware_config/config.txt", CONFIG.read_text(encoding="utf-8"))


def broken(old: str, new: str) -> str:
    text = default_pinmap_text()
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.unit
@pytest.mark.parametrize(("text", "message"), [
    (broken("[seat.E.led]\ngpio = 19", "[seat.E.led]\ngpio = 6"),
     "seat.N.led: GPIO6 is already used by"),  # order: the map lists N's led before E's
    (broken("[buzzer]\ngpio = 12", "[buzzer]\ngpio = 14"),
     "蜂鸣器（buzzer）：GPIO14 已在 firmware_config/config.txt 中分配给了串口（TXD）"),
    (broken("[referee.pause]\ngpio = 23", "[referee.pause]\ngpio = 3"),
     "裁判暂停键（referee.pause）：GPIO3 已在 firmware_config/config.txt 中分配给了关机按钮"),
    (broken("[seat.W.led]\ngpio = 16", "[seat.W.led]\ngpio = 40"),
     "西座指示灯（seat.W.led）：GPIO40 不在 40 针排针上"),
    (broken("[seat.W.led]\ngpio = 16", "[seat.W.led]\ngpio = 1"),
     "西座指示灯（seat.W.led）：GPIO1 留给了HAT 的识别 EEPROM（ID_SC）"),
])
def test_broken_pin_maps_are_refused_naming_part_and_pin(tmp_path, text, message):
    path = tmp_path / "pins.toml"
    path.write_text(text, encoding="utf-8")
    done = kiosk("hw", "check", "--pinmap", str(path))
    assert done.returncode == 2
    if "already used" in message:  # a pin used twice names both parts
        assert "东座指示灯（seat.E.led）：GPIO6 已由北座指示灯（seat.N.led）使用" in done.stderr
    else:
        assert message in done.stderr, done.stderr
    assert done.stderr.startswith(f"kiosk hw check：{path}：")


@pytest.mark.unit
def test_a_boot_config_that_turns_on_i2c_claims_its_pins(tmp_path):
    pins = tmp_path / "pins.toml"
    pins.write_text(broken("[referee.confirm]\ngpio = 24", "[referee.confirm]\ngpio = 2"))
    config = tmp_path / "config.txt"
    config.write_text("[all]\ndtparam=i2c_arm=on\ndtparam=spi=on\n")
    done = kiosk("hw", "check", "--pinmap", str(pins), "--boot-config", str(config))
    assert done.returncode == 2
    assert f"裁判确认键（referee.confirm）：GPIO2 已在 {config} 中分配给了I2C 总线（SDA）" \
        in done.stderr
    assert claimed_pins(config.read_text())[9] == "spi"


@pytest.mark.unit
@pytest.mark.parametrize(("text", "message"), [
    ("[seat.N.button]\ngpio = 5\n", "缺少北座指示灯（seat.N.led）：请在 [seat.N.led] 下写上"),
    (default_pinmap_text() + "\n[seat.X.button]\ngpio = 17\n", "没有“seat.X.button”这个部件"),
    (broken("[buzzer]\ngpio = 12", "[buzzer]\ngpio = 12\npull = \"up\""),
     "不认识 buzzer.pull：每个部件下只写 gpio 一项"),
    (broken("[buzzer]\ngpio = 12", "[buzzer]\ngpio = \"12\""),
     'buzzer 的 gpio = "12"：请写 BCM GPIO 编号'),
    (broken("[buzzer]\ngpio = 12", "[buzzer]\ngpio 12"), "不是有效的 TOML（第 "),
])
def test_malformed_pin_maps(tmp_path, text, message):
    path = tmp_path / "pins.toml"
    path.write_text(text, encoding="utf-8")
    done = kiosk("hw", "check", "--pinmap", str(path))
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.unit
def test_pin_map_from_the_environment(tmp_path):
    import os

    path = tmp_path / "pins.toml"
    path.write_text(broken("[buzzer]\ngpio = 12", "[buzzer]\ngpio = 17"))
    done = kiosk("hw", "check", env={**os.environ, "KIOSK_PINMAP": str(path)})
    assert done.returncode == 0 and str(path) in done.stdout


@pytest.mark.unit
def test_wiring_table_matches_the_default_pin_map():
    rows = re.findall(r"^\| (\S+) \| (\d+) \| (\d+) \|", (ROOT / "hardware" / "wiring.md")
                      .read_text(encoding="utf-8"), flags=re.M)
    wired = {part: (int(gpio), int(header)) for part, gpio, header in rows}
    pins = load_pinmap().pins
    assert {part: gpio for part, (gpio, _) in wired.items() if part in PARTS} == pins
    for part, (gpio, header) in wired.items():
        assert HEADER_PIN[gpio] == header, part


@pytest.mark.unit
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


@pytest.mark.unit
@pytest.mark.parametrize(("config", "pin", "claim"), [
    ("dtparam=i2c_arm=on,spi=on", 10, "spi"),
    ("dtparam=spi", 10, "spi"),
    ("dtparam=spi=true", 10, "spi"),
    ("dtoverlay=spi0-1cs", 10, "spi"),
    ("dtoverlay=gpio-shutdown\ndtparam=gpio_pin=17", 17, "shutdown"),
    ("dtoverlay=gpio-shutdown,gpio_pin=0x11", 17, "shutdown"),
    ("enable_uart=1", 14, "uart_txd"),
    ("dtoverlay=pwm,pin=12,func=4", 12, "dtoverlay=pwm"),
    ("dtoverlay=pwm\ndtparam=pin=12", 12, "dtoverlay=pwm"),
    ("dtoverlay=pwm", 18, "dtoverlay=pwm"),
    ("dtoverlay=pwm-2chan,pin=12,pin2=13", 13, "dtoverlay=pwm-2chan"),
    ("dtoverlay=gpio-fan", 12, "dtoverlay=gpio-fan"),
    ("dtoverlay=w1-gpio,gpiopin=6", 6, "dtoverlay=w1-gpio"),
    ("dtoverlay=gpio-poweroff", 26, "dtoverlay=gpio-poweroff"),
    ("dtoverlay=i2c-gpio", 24, "dtoverlay=i2c-gpio"),
    ("dtoverlay=some-hat,reset_pin=16", 16, "dtoverlay=some-hat"),  # any pin parameter
])
def test_boot_config_claims_in_every_spelling(config, pin, claim):
    assert claimed_pins(config)[pin] == claim


@pytest.mark.unit
def test_an_overlay_moved_off_its_default_pin_leaves_it():
    assert 18 not in claimed_pins("dtoverlay=pwm,pin=12")
    assert 3 not in claimed_pins("dtoverlay=gpio-shutdown,gpio_pin=17,gpio_pull=up")


@pytest.mark.unit
@pytest.mark.parametrize(("overlay", "refused"), [
    ("dtoverlay=pwm,pin=12", "蜂鸣器（buzzer）：GPIO12 已在 {config} 中分配给了“dtoverlay=pwm”"),
    ("dtoverlay=gpio-fan", "蜂鸣器（buzzer）：GPIO12 已在 {config} 中分配给了“dtoverlay=gpio-fan”"),
    ("dtoverlay=w1-gpio,gpiopin=5",
     "北座按钮（seat.N.button）：GPIO5 已在 {config} 中分配给了“dtoverlay=w1-gpio”")])
def test_an_overlay_on_a_kiosk_pin_is_refused(tmp_path, overlay, refused):
    """Installer: `kiosk hw check` passed a config with the buzzer's pin given to a PWM."""
    config = tmp_path / "config.txt"
    config.write_text(CONFIG.read_text(encoding="utf-8") + overlay + "\n", encoding="utf-8")
    done = kiosk("hw", "check", "--boot-config", str(config))
    assert done.returncode == 2
    assert refused.format(config=config) in done.stderr, done.stderr


@pytest.mark.unit
def test_an_unreadable_shutdown_pin_is_a_clear_error(tmp_path):
    config = tmp_path / "config.txt"
    config.write_text("dtoverlay=gpio-shutdown,gpio_pin=x\n")
    done = kiosk("hw", "check", "--boot-config", str(config))
    assert done.returncode == 2
    assert done.stderr == f"kiosk hw：{config} 第 1 行：gpio_pin=x 不是 GPIO 编号\n"

"""The pin map (which BCM GPIO drives which part) and its check against a boot config.

A pin map is TOML in which every part's pin is written ``gpio = N``: ``[seat.N.button]``,
``[seat.N.led]`` for each seat, ``[referee.pause]``, ``[referee.confirm]``, ``[buzzer]``. The
boot config (``config.txt``) claims pins for the UART, I2C, SPI and the shutdown button; a part
on such a pin, a pin used twice or a pin the header does not have is refused.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

PINMAP_ENV = "KIOSK_PINMAP"
PI_BOOT_CONFIG = Path("/boot/firmware/config.txt")
SEATS = ("N", "E", "S", "W")
#: The parts every pin map must give, by their dotted name.
PARTS = (*(f"seat.{s}.{kind}" for s in SEATS for kind in ("button", "led")),
         "referee.pause", "referee.confirm", "buzzer")
#: BCM GPIOs on the 40-pin header, and the header pin of each.
HEADER_PIN = {2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 0: 27,
              5: 29, 6: 31, 13: 33, 19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18,
              25: 22, 8: 24, 7: 26, 1: 28, 12: 32, 16: 36, 20: 38, 21: 40}
RESERVED = {0: "the HAT ID EEPROM (ID_SD)", 1: "the HAT ID EEPROM (ID_SC)"}


class PinMapError(Exception):
    """A pin map or boot config is refused; the message names the part and the pin."""


@dataclass(frozen=True)
class PinMap:
    source: str
    pins: dict[str, int]  # part -> BCM GPIO

    def seat_button(self, seat: str) -> int:
        return self.pins[f"seat.{seat}.button"]

    def seat_led(self, seat: str) -> int:
        return self.pins[f"seat.{seat}.led"]


def default_pinmap_text() -> str:
    return (resources.files("kiosk.hw") / "data" / "pinmap.toml").read_text(encoding="utf-8")


def default_boot_config() -> tuple[str, str]:
    """The Pi's own config.txt when there is one, else the fragment the package ships."""
    if PI_BOOT_CONFIG.exists():
        return str(PI_BOOT_CONFIG), PI_BOOT_CONFIG.read_text(encoding="utf-8")
    text = (resources.files("kiosk.hw") / "data" / "config.txt").read_text(encoding="utf-8")
    return "firmware_config/config.txt", text


def load_pinmap(path: str | os.PathLike[str] | None = None) -> PinMap:
    """The pin map in `path`, else $KIOSK_PINMAP, else the default. Raises PinMapError."""
    path = path or os.environ.get(PINMAP_ENV) or None
    if path is None:
        return parse_pinmap(default_pinmap_text(), "default pin map")
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PinMapError(f"{path}: cannot read the pin map: {exc}") from None
    return parse_pinmap(text, str(path))


def parse_pinmap(text: str, source: str) -> PinMap:
    """Read a pin map's text. Raises PinMapError naming the part and the problem."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PinMapError(f"{source}: TOML syntax error: {exc}") from None
    pins: dict[str, int] = {}
    _collect(raw, "", pins, source)
    unknown = sorted(set(pins) - set(PARTS))
    if unknown:
        raise PinMapError(f"{source}: {unknown[0]}: no such part; parts: {', '.join(PARTS)}")
    missing = [part for part in PARTS if part not in pins]
    if missing:
        raise PinMapError(f"{source}: {missing[0]}: missing; give its pin as gpio = N")
    return PinMap(source, {part: pins[part] for part in PARTS})


def _collect(table: dict[str, object], prefix: str, pins: dict[str, int], source: str) -> None:
    for key, value in table.items():
        name = f"{prefix}{key}"
        if key == "gpio":
            part = prefix.rstrip(".")
            if isinstance(value, bool) or not isinstance(value, int):
                raise PinMapError(f"{source}: {part}: gpio = {value!r}: give a BCM number")
            if set(table) != {"gpio"}:
                extra = sorted(set(table) - {"gpio"})[0]
                raise PinMapError(f"{source}: {part}.{extra}: unknown key; a part has gpio only")
            pins[part] = value
        elif isinstance(value, dict):
            _collect(value, f"{name}.", pins, source)
        else:
            raise PinMapError(f"{source}: {name}: unknown key; write each pin as gpio = N "
                              "under its part")


ON = frozenset({"on", "true", "yes", "1", ""})  # a bare `dtparam=spi` means on too
SPI_PINS = {"spi0": (7, 8, 9, 10, 11), "spi1": (16, 17, 18, 19, 20, 21)}


def claimed_pins(config_text: str) -> dict[int, str]:
    """The GPIOs a boot config gives to the UART, I2C, SPI and the shutdown button. Every
    section counts (a line under [pi4] claims its pins too): the map must suit every model.
    Raises PinMapError for a pin number it cannot read."""
    claims: dict[int, str] = {}
    overlay = ""  # dtparam lines after a dtoverlay line set that overlay's parameters
    for number, raw_line in enumerate(config_text.splitlines(), 1):
        line = raw_line.split("#", 1)[0].strip()
        if not line or line.startswith("["):
            continue
        key, _, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if key == "enable_uart" and value == "1":
            claims.update({14: "the UART (TXD)", 15: "the UART (RXD)"})
            continue
        params = _params(value)
        if key == "dtoverlay":
            overlay = params[0][0] if params else ""
            params = params[1:]
            for bus, pins in SPI_PINS.items():
                if overlay.startswith(bus):
                    claims.update({n: "SPI" for n in pins})
            if overlay == "gpio-shutdown":
                claims[3] = "the shutdown button"
        elif key != "dtparam":
            continue
        for name, setting in params:
            if name == "gpio_pin" and overlay == "gpio-shutdown":
                claims = {n: c for n, c in claims.items() if c != "the shutdown button"}
                claims[_gpio(setting, number)] = "the shutdown button"
            elif name in ("i2c_arm", "i2c") and setting in ON:
                claims.update({2: "I2C (SDA)", 3: "I2C (SCL)"})
            elif name == "spi" and setting in ON:
                claims.update({n: "SPI" for n in SPI_PINS["spi0"]})
            elif name == "uart0" and setting in ON:
                claims.update({14: "the UART (TXD)", 15: "the UART (RXD)"})
    return claims


def _gpio(text: str, line: int) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise PinMapError(f"boot config line {line}: gpio_pin={text!r} is not a GPIO "
                          "number") from None


def _params(value: str) -> list[tuple[str, str]]:
    out = []
    for part in value.split(","):
        name, _, setting = part.partition("=")
        if name.strip():
            out.append((name.strip(), setting.strip().lower()))
    return out


def check(pinmap: PinMap, config_text: str, config_source: str) -> list[str]:
    """Every problem of `pinmap` against the boot config, one message each (empty: fine)."""
    problems = []
    claims = claimed_pins(config_text)
    seen: dict[int, str] = {}
    for part, gpio in pinmap.pins.items():
        if gpio not in HEADER_PIN:
            problems.append(f"{part}: GPIO{gpio} is not on the 40-pin header; use one of "
                            f"{', '.join(str(n) for n in sorted(HEADER_PIN))}")
        elif gpio in RESERVED:
            problems.append(f"{part}: GPIO{gpio} is reserved for {RESERVED[gpio]}")
        elif gpio in claims:
            problems.append(f"{part}: GPIO{gpio} is claimed by {claims[gpio]} in "
                            f"{config_source}")
        if gpio in seen:
            problems.append(f"{part}: GPIO{gpio} is already used by {seen[gpio]}")
        seen.setdefault(gpio, part)
    return problems


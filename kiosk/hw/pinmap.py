"""The pin map (which BCM GPIO drives which part) and its check against a boot config.

A pin map is TOML in which every part's pin is written ``gpio = N``: ``[seat.N.button]``,
``[seat.N.led]`` for each seat, ``[referee.pause]``, ``[referee.confirm]``, ``[buzzer]``. The
boot config (``config.txt``) claims pins for the UART, I2C, SPI, the shutdown button and any
overlay that takes a GPIO (a PWM, a fan, 1-Wire…); a part on such a pin, a pin used twice or a
pin the header does not have is refused.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import PinMapError, file_reason
from ..rules.errors import Words, words

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
#: What a pin is kept for, by its `pinmap.claim.*` catalog word: the HAT's ID EEPROM always,
#: the buses and the shutdown button when the boot config turns them on.
RESERVED = {0: "hat_id_sd", 1: "hat_id_sc"}
UART = {14: "uart_txd", 15: "uart_rxd"}
I2C = {2: "i2c_sda", 3: "i2c_scl"}
SHUTDOWN = "shutdown"
SPI = "spi"


def part_words(part: str) -> Words:
    """A part as the technician reads it: its name (北座按钮) and, as the map writes it,
    its dotted key (seat.N.button)."""
    return words("pinmap.part", name=words(f"fleet.part.{part}"), part=part)


def claim_words(claim: str) -> Words:
    """A claim's words: a catalog word, or an overlay's line as config.txt writes it."""
    if claim.startswith("dt"):
        return words("pinmap.claim.overlay", line=claim)
    return words(f"pinmap.claim.{claim}")


def _refused(message: str, key: str, /, **params: Any) -> PinMapError:
    error = PinMapError(message)
    error.explained(key, **params)
    return error


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
        return parse_pinmap(default_pinmap_text(), DEFAULT_SOURCE)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _refused(f"{path}: cannot read the pin map: {exc}", "pinmap.unreadable",
                       path=str(path), reason=file_reason(exc)) from None
    return parse_pinmap(text, str(path))


#: The source of the pin map the package ships, as `PinMap.source` names it.
DEFAULT_SOURCE = "default pin map"


def source_words(source: str) -> str | Words:
    """A pin map's source as a person reads it: its path, or "the shipped pin map"."""
    return words("pinmap.default") if source == DEFAULT_SOURCE else source


def parse_pinmap(text: str, source: str) -> PinMap:
    """Read a pin map's text. Raises PinMapError naming the part and the problem."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # tomllib says where in its English message only: "(at line 2, column 6)"
        at = re.search(r"at line (\d+), column (\d+)\)$", str(exc))
        where = (words("pinmap.at", line=int(at[1]), column=int(at[2])) if at
                 else words("pinmap.at_end"))
        raise _refused(f"{source}: TOML syntax error: {exc}", "pinmap.syntax",
                       source=source_words(source), where=where) from None
    pins: dict[str, int] = {}
    _collect(raw, "", pins, source)
    unknown = sorted(set(pins) - set(PARTS))
    if unknown:
        raise _refused(f"{source}: {unknown[0]}: no such part", "pinmap.no_such_part",
                       source=source_words(source), part=unknown[0], parts=" ".join(PARTS))
    missing = [part for part in PARTS if part not in pins]
    if missing:
        raise _refused(f"{source}: {missing[0]}: missing", "pinmap.missing",
                       source=source_words(source), name=words(f"fleet.part.{missing[0]}"),
                       part=missing[0])
    return PinMap(source, {part: pins[part] for part in PARTS})


def _collect(table: dict[str, object], prefix: str, pins: dict[str, int], source: str) -> None:
    for key, value in table.items():
        name = f"{prefix}{key}"
        if key == "gpio":
            part = prefix.rstrip(".")
            if isinstance(value, bool) or not isinstance(value, int):
                raise _refused(f"{source}: {part}: gpio = {value!r}: give a BCM number",
                               "pinmap.not_a_number", source=source_words(source), part=part,
                               value=_toml_value(value))
            if set(table) != {"gpio"}:
                extra = sorted(set(table) - {"gpio"})[0]
                raise _refused(f"{source}: {part}.{extra}: unknown key", "pinmap.extra_key",
                               source=source_words(source), entry=f"{part}.{extra}")
            pins[part] = value
        elif isinstance(value, dict):
            _collect(value, f"{name}.", pins, source)
        else:
            raise _refused(f"{source}: {name}: unknown key", "pinmap.stray_key",
                           source=source_words(source), entry=name)


def _toml_value(value: object) -> str:
    """A value as the pin map wrote it (a string in quotes), not as Python shows it."""
    if isinstance(value, str):
        return '"' + value + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


ON = frozenset({"on", "true", "yes", "1", ""})  # a bare `dtparam=spi` means on too
SPI_PINS = {"spi0": (7, 8, 9, 10, 11), "spi1": (16, 17, 18, 19, 20, 21)}


#: Overlays that take GPIOs: the parameters that name them, with their defaults (the
#: firmware's overlays/README). Any other parameter that names a pin (its name says pin or
#: gpio, its value is a number) claims it too, in any overlay or the base's dtparam.
OVERLAY_PINS: dict[str, dict[str, int]] = {
    "gpio-shutdown": {"gpio_pin": 3}, "gpio-poweroff": {"gpiopin": 26}, "gpio-key": {"gpio": 3},
    "pwm": {"pin": 18}, "pwm-2chan": {"pin": 18, "pin2": 19}, "gpio-fan": {"gpiopin": 12},
    "w1-gpio": {"gpiopin": 4}, "w1-gpio-pullup": {"gpiopin": 4, "extpullup": 5},
    "gpio-ir": {"gpio_pin": 18}, "gpio-ir-tx": {"gpio_pin": 18}, "pps-gpio": {"gpiopin": 18},
    "i2c-gpio": {"i2c_gpio_sda": 23, "i2c_gpio_scl": 24}}


def claimed_pins(config_text: str, source: str = "config.txt") -> dict[int, str]:
    """The GPIOs a boot config gives to the UART, I2C, SPI, the shutdown button (by their
    `pinmap.claim.*` word) and any other overlay (``dtoverlay=NAME``; the base's own, such as
    an activity LED moved to a GPIO: ``dtparam``). Every section counts (a line under [pi4]
    claims its pins too): the map must suit every model. Raises PinMapError for a pin number
    it cannot read."""
    claims: dict[int, str] = {}
    # each dtoverlay line (the base's dtparam lines first): its pins by parameter; dtparam
    # lines after a dtoverlay line set that overlay's parameters
    overlays: list[tuple[str, dict[str, int]]] = [("", {})]
    for number, raw_line in enumerate(config_text.splitlines(), 1):
        line = raw_line.split("#", 1)[0].strip()
        if not line or line.startswith("["):
            continue
        key, _, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if key == "enable_uart" and value == "1":
            claims.update(UART)
            continue
        params = _params(value)
        if key == "dtoverlay":
            overlay = params[0][0] if params else ""
            params = params[1:]
            for bus, bus_pins in SPI_PINS.items():
                if overlay.startswith(bus):
                    claims.update({n: SPI for n in bus_pins})
            overlays.append((overlay, dict(OVERLAY_PINS.get(overlay, {}))))
        elif key != "dtparam":
            continue
        overlay, named = overlays[-1]
        for name, setting in params:
            if name in OVERLAY_PINS.get(overlay, {}) or (
                    ("pin" in name or "gpio" in name) and setting.isdigit()):
                named[name] = _gpio(setting, number, source, name)
            elif name in ("i2c_arm", "i2c") and setting in ON:
                claims.update(I2C)
            elif name == "spi" and setting in ON:
                claims.update({n: SPI for n in SPI_PINS["spi0"]})
            elif name == "uart0" and setting in ON:
                claims.update(UART)
    for overlay, named in overlays:
        claim = SHUTDOWN if overlay == "gpio-shutdown" else \
            f"dtoverlay={overlay}" if overlay else "dtparam"
        claims.update(dict.fromkeys(named.values(), claim))
    return claims


def _gpio(text: str, line: int, source: str, name: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise _refused(f"{source} line {line}: {name}={text!r} is not a GPIO number",
                       "pinmap.boot_gpio", source=source, line=line, name=name,
                       value=text) from None


def _params(value: str) -> list[tuple[str, str]]:
    out = []
    for part in value.split(","):
        name, _, setting = part.partition("=")
        if name.strip():
            out.append((name.strip(), setting.strip().lower()))
    return out


def check(pinmap: PinMap, config_text: str, config_source: str) -> list[Words]:
    """Every problem of `pinmap` against the boot config, as catalog words naming the part
    and the pin (empty: fine). Raises PinMapError for a boot config it cannot read."""
    problems = []
    claims = claimed_pins(config_text, config_source)
    seen: dict[int, str] = {}
    for part, gpio in pinmap.pins.items():
        name = part_words(part)
        if gpio not in HEADER_PIN:
            problems.append(words("pinmap.off_header", part=name, gpio=gpio,
                                  pins=" ".join(str(n) for n in sorted(HEADER_PIN))))
        elif gpio in RESERVED:
            problems.append(words("pinmap.reserved", part=name, gpio=gpio,
                                  what=claim_words(RESERVED[gpio])))
        elif gpio in claims:
            problems.append(words("pinmap.claimed", part=name, gpio=gpio,
                                  what=claim_words(claims[gpio]), config=config_source))
        if gpio in seen:
            problems.append(words("pinmap.twice", part=name, gpio=gpio,
                                  other=part_words(seen[gpio])))
        seen.setdefault(gpio, part)
    return problems


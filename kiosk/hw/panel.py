"""The gpiozero devices of one table, built from the pin map with an injected pin factory.

On a machine that is not a Raspberry Pi, gpiozero's MockFactory (or GPIOZERO_PIN_FACTORY=mock).
On a Pi, never mock pins: a GPIO that cannot open is a `GpioError` that says so, rather than a
kiosk whose seat buttons silently do nothing.
Button callbacks run on gpiozero's threads: they only put an `Edge` through the door."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Any

from gpiozero import LED, Button, Buzzer

from ..errors import GpioError
from ..rules.errors import Words, words
from ..table.clock import Clock
from .door import Door, Edge
from .pinmap import SEATS, PinMap, part_words

BUTTONS = (*(f"seat.{s}.button" for s in SEATS), "referee.pause", "referee.confirm")


MODEL_FILE = "/proc/device-tree/model"


def board_model(model_file: str = MODEL_FILE) -> str | None:
    """The board's model as the device tree names it ("Raspberry Pi 5 Model B Rev 1.0"), or
    None on a machine without a device tree (a laptop)."""
    try:
        return Path(model_file).read_bytes().rstrip(b"\0").decode(errors="replace")
    except OSError:
        return None


def default_pin_factory(gpio_chip: str = "/dev/gpiochip0", model_file: str = MODEL_FILE) -> Any:
    """None (gpiozero's own choice, or what $GPIOZERO_PIN_FACTORY says) on a Raspberry Pi or
    when the environment names a factory; MockFactory only on a machine that is not a Pi (a
    laptop: the kiosk then runs with keyboard keys for the seats). Raises GpioError on a Pi
    without its GPIO character device."""
    model = board_model(model_file)
    if os.environ.get("GPIOZERO_PIN_FACTORY"):
        return None
    if model is not None and "Raspberry Pi" in model:
        if not os.path.exists(gpio_chip):
            raise GpioError(f"{model}: {gpio_chip} is missing").explained(
                "fleet.gpio.no_chip", model=model, chip=gpio_chip)
        return None
    from gpiozero.pins.mock import MockFactory

    return MockFactory()


def gpio_problem(error: Exception, part: str, gpio: int) -> Words:
    """Why `part` could not be opened, in words (`pinmap.gpio.*`): a pin taken, not a board
    gpiozero knows, no permission; else the library's own message, as it gave it (the one
    thing a technician can quote when nothing here knows the error)."""
    from gpiozero import BadPinFactory, GPIOPinInUse, PinUnknownPi

    if isinstance(error, GPIOPinInUse):
        why = words("pinmap.gpio.in_use")
    elif isinstance(error, PinUnknownPi | BadPinFactory):
        why = words("pinmap.gpio.not_a_pi")
    elif isinstance(error, PermissionError) or "permission" in str(error).lower():
        why = words("pinmap.gpio.denied")
    else:
        why = words("pinmap.gpio.library", detail=f"{type(error).__name__}: {error}")
    return words("pinmap.gpio.problem", part=part_words(part), gpio=gpio, why=why)


class Panel:
    def __init__(self, pinmap: PinMap, door: Door, clock: Clock, pin_factory: Any = None):
        """Raises GpioError when a pin cannot be opened (no pin factory works here, the pin is
        taken, lgpio cannot start)."""
        self.door, self.clock = door, clock
        self.buttons: dict[str, Button] = {}
        self.leds: dict[str, LED] = {}
        part = ""
        try:
            for part in BUTTONS:
                button = Button(pinmap.pins[part], pull_up=True, pin_factory=pin_factory)
                self.buttons[part] = button
                button.when_pressed = partial(self._edge, part, True)
                button.when_released = partial(self._edge, part, False)
            for seat in SEATS:
                part = f"seat.{seat}.led"
                self.leds[seat] = LED(pinmap.seat_led(seat), pin_factory=pin_factory)
            part = "buzzer"
            self.buzzer = Buzzer(pinmap.pins["buzzer"], pin_factory=pin_factory)
        except Exception as exc:  # gpiozero's, lgpio's and the OS's errors alike
            self._close_opened()
            raise GpioError(f"cannot open the GPIO: {type(exc).__name__}: {exc}").explained(
                "fleet.gpio.cannot_open", detail=gpio_problem(exc, part, pinmap.pins[part])
            ) from exc
        self._shown: tuple[Any, ...] = ()

    def _edge(self, part: str, pressed: bool) -> None:
        self.door.put(Edge(part, pressed, self.clock.now()))

    def show(self, leds: dict[str, bool], buzzer: bool) -> None:
        """Set the outputs, touching the pins only when something changed."""
        state = (tuple(leds.items()), buzzer)
        if state == self._shown:
            return
        self._shown = state
        for seat, on in leds.items():
            self.leds[seat].value = on
        self.buzzer.value = buzzer

    def close(self) -> None:
        self._close_opened()

    def _close_opened(self) -> None:
        buzzer = getattr(self, "buzzer", None)
        for device in [*self.buttons.values(), *self.leds.values(), buzzer]:
            if device is not None:
                device.close()

"""The gpiozero devices of one table, built from the pin map with an injected pin factory.

On a machine without GPIO, pass gpiozero's MockFactory (or set GPIOZERO_PIN_FACTORY=mock).
Button callbacks run on gpiozero's threads: they only put an `Edge` through the door."""

from __future__ import annotations

import os
from functools import partial
from typing import Any

from gpiozero import LED, Button, Buzzer

from ..table.clock import Clock
from .door import Door, Edge
from .pinmap import SEATS, PinMap

BUTTONS = (*(f"seat.{s}.button" for s in SEATS), "referee.pause", "referee.confirm")


def default_pin_factory(gpio_chip: str = "/dev/gpiochip0") -> Any:
    """gpiozero's own choice on a Pi (lgpio), MockFactory on a machine without GPIO (the
    kiosk then runs with keyboard keys for the seats), or whatever $GPIOZERO_PIN_FACTORY says."""
    if os.environ.get("GPIOZERO_PIN_FACTORY") or os.path.exists(gpio_chip):
        return None  # gpiozero picks
    from gpiozero.pins.mock import MockFactory

    return MockFactory()


class Panel:
    def __init__(self, pinmap: PinMap, door: Door, clock: Clock, pin_factory: Any = None):
        self.door, self.clock = door, clock
        self.buttons = {part: Button(pinmap.pins[part], pull_up=True, pin_factory=pin_factory)
                        for part in BUTTONS}
        for part, button in self.buttons.items():
            button.when_pressed = partial(self._edge, part, True)
            button.when_released = partial(self._edge, part, False)
        self.leds = {seat: LED(pinmap.seat_led(seat), pin_factory=pin_factory)
                     for seat in SEATS}
        self.buzzer = Buzzer(pinmap.pins["buzzer"], pin_factory=pin_factory)
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
        for device in [*self.buttons.values(), *self.leds.values(), self.buzzer]:
            device.close()

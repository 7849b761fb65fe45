"""Button edges to presses, taps and holds, timed by the session's injected clock.

A press counts at its first edge (the move clock stops at once); edges within `debounce`
seconds of an accepted change are contact bounce and ignored, and once the bounce settles the
button takes the pin's real state. A button held `hold_time` gives a ``hold``; released sooner,
a ``tap``."""

from __future__ import annotations

from dataclasses import dataclass, field

from .door import Edge


@dataclass(frozen=True)
class Action:
    kind: str  # "press" (down), "tap" (released before hold_time) or "hold"
    part: str
    at: float


@dataclass
class _Button:
    down: bool = False
    since: float = float("-inf")  # when the accepted state last changed
    raw: bool = False
    held: bool = False


@dataclass
class ButtonDecoder:
    debounce: float = 0.05
    hold_time: float = 1.5
    _buttons: dict[str, _Button] = field(default_factory=dict)

    def edge(self, edge: Edge) -> list[Action]:
        button = self._buttons.setdefault(edge.part, _Button())
        if edge.at < button.since:  # older than the state it settled to: already judged
            return []
        button.raw = edge.pressed
        if edge.at - button.since < self.debounce:
            return []
        return self._accept(edge.part, button, edge.pressed, edge.at)

    def poll(self, now: float) -> list[Action]:
        """Settle bounced buttons and report holds due by `now`."""
        actions = []
        for part, button in self._buttons.items():
            settled = button.since + self.debounce
            if button.raw != button.down and now >= settled:
                actions += self._accept(part, button, button.raw, settled)
            if button.down and not button.held and now - button.since >= self.hold_time:
                button.held = True
                actions.append(Action("hold", part, now))
        return actions

    def _accept(self, part: str, button: _Button, pressed: bool, at: float) -> list[Action]:
        if pressed == button.down:
            return []
        button.down, button.since = pressed, at
        if pressed:
            button.held = False
            return [Action("press", part, at)]
        return [] if button.held else [Action("tap", part, at)]

"""The carrier board's netlist against the pin map (every input protected, nothing on the
display's power pins), and the priced bill of materials adding up (issue 16, finding 8)."""

from __future__ import annotations

import csv
import re
from collections import defaultdict

import pytest

from kiosk.hw.panel import BUTTONS
from kiosk.hw.pinmap import HEADER_PIN, SEATS, load_pinmap

from .helpers import ROOT

pytestmark = pytest.mark.unit

HARDWARE = ROOT / "hardware"
PINS = load_pinmap().pins
J1_OFFSET = 0  # J1 pin k is the Pi header's pin k: a keyed 40-way ribbon covers the header
DISPLAY_POWER_PINS = {2, 4, 6}


def netlist() -> dict[str, set[tuple[str, str]]]:
    lines = [line for line in (HARDWARE / "carrier/netlist.csv").read_text().splitlines()
             if not line.startswith("#")]
    nets: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for row in csv.DictReader(lines):
        nets[row["net"]].add((row["ref"], row["pin"]))
    return nets


def header_pins(nets, net: str) -> set[int]:
    return {int(pin) + J1_OFFSET for ref, pin in nets[net] if ref == "J1"}


def parts_on(nets, net: str, prefix: str) -> set[str]:
    return {ref for ref, _ in nets[net] if re.fullmatch(prefix + r"\d+", ref)}


def other_net(nets, ref: str, net: str) -> str:
    """The net on the other pin of a two-pin part."""
    [other] = [n for n, conns in nets.items() if n != net and any(r == ref for r, _ in conns)]
    return other


def test_every_part_reaches_its_pin_of_the_pin_map_and_nothing_else():
    nets = netlist()
    for part, gpio in PINS.items():
        assert header_pins(nets, f"GPIO{gpio}") == {HEADER_PIN[gpio]}, part
    used = {pin for net in nets for pin in header_pins(nets, net) if net != "GND"}
    # The displays' power pins reach only J15, the displays' own plug (passed through).
    assert used & DISPLAY_POWER_PINS == {2, 4}
    assert nets["DISP_5V"] == {("J1", "2"), ("J1", "4"), ("J15", "1")}
    assert "5V" not in nets  # nothing on the board takes 5 V
    assert header_pins(nets, "3V3") == {17}
    assert header_pins(nets, "GND") <= {6, 9, 14, 20, 25, 30, 34, 39}
    # One connection per header pin: no two wires share a pin.
    seen = [pin for net in nets for pin in header_pins(nets, net)]
    assert len(seen) == len(set(seen))


@pytest.mark.parametrize("part", BUTTONS)
def test_every_button_input_has_a_pull_up_a_filter_and_an_esd_clamp(part):
    nets = netlist()
    gpio = f"GPIO{PINS[part]}"
    [series] = parts_on(nets, gpio, "R")  # the GPIO side: one series resistor ...
    [capacitor] = parts_on(nets, gpio, "C")  # ... and the filter's capacitor
    assert other_net(nets, capacitor, gpio) == "GND"
    edge = other_net(nets, series, gpio)  # the cable's side
    connector = parts_on(nets, edge, "J")
    assert len(connector) == 1 and other_net(nets, connector.pop(), edge) == "GND"
    [pull_up] = parts_on(nets, edge, "R") - {series}
    assert other_net(nets, pull_up, edge) == "3V3"
    assert parts_on(nets, edge, "U"), f"{part}: no ESD clamp"


@pytest.mark.parametrize("seat", SEATS)
def test_every_led_has_its_own_resistor_and_plug(seat):
    nets = netlist()
    gpio = f"GPIO{PINS[f'seat.{seat}.led']}"
    [resistor] = parts_on(nets, gpio, "R")
    line = other_net(nets, resistor, gpio)
    [plug] = parts_on(nets, line, "J")
    assert other_net(nets, plug, line) == "GND"


def test_the_buzzer_runs_from_3v3_through_a_transistor():
    nets = netlist()
    assert ("BZ1", "+") in nets["3V3"] and ("Q1", "C") in nets["BUZ_C"]
    assert ("BZ1", "-") in nets["BUZ_C"] and ("D1", "A") in nets["BUZ_C"]
    assert ("Q1", "E") in nets["GND"]


def test_the_header_cable_is_keyed_and_covers_all_40_pins():
    """A 34-way ribbon on the unkeyed 40-pin header could be plugged two rows high: 5 V
    (pin 4) then landed on the printer's TX line. The cable is a 40-way one, keyed at both
    ends: a box header on the board (J1) and a keyed box header on the Pi's pins."""
    nets = netlist()
    j1 = {int(pin) for conns in nets.values() for ref, pin in conns if ref == "J1"}
    assert min(j1) >= 1 and max(j1) == 40
    carrier = (HARDWARE / "carrier/README.md").read_text()
    assert "| J1 | 2×20 box header, shrouded and keyed" in carrier
    bom = (HARDWARE / "bom.md").read_text()
    assert "| 1 | 40-way ribbon cable, 20 cm, two keyed IDC sockets |" in bom
    assert "| 1 | 2×20 keyed box header for the Pi's GPIO" in bom
    wiring = (HARDWARE / "wiring.md").read_text()
    assert "keyed" in wiring.split("\n\n")[1] and "34-way" not in wiring


def test_every_net_connects_at_least_two_pins():
    for net, conns in netlist().items():
        assert len(conns) >= 2, net


def money(text: str) -> float:
    return float(text.strip().strip("*") or 0)


def test_the_bom_prices_add_up_per_model():
    text = (HARDWARE / "bom.md").read_text(encoding="utf-8")
    sections = re.split(r"^#{2,3} ", text, flags=re.M)
    totals = {}
    for section in sections:
        title = section.splitlines()[0]
        rows = [[c.strip() for c in line.strip("|").split("|")]
                for line in section.splitlines() if line.startswith("| ")]
        items = [r for r in rows[1:] if r[0] and r[0] != "qty" and not r[0].startswith("-")
                 and r[-1] and not r[1].startswith("**")]
        total_rows = [r for r in rows if r[1].startswith("**")]
        if not total_rows:
            continue
        summed = round(sum(money(r[-1]) for r in items), 2)
        for r in items:
            if r[-2] not in ("—", "≈ 180") and r[0].isdigit():
                assert round(int(r[0]) * money(r[-2]), 2) == money(r[-1]), r
        totals[title] = (summed, money(total_rows[0][-1]))
    common = totals["Common to every table"][0]
    assert totals["Common to every table"][1] == common
    for model in ("Pi 4 + the 7\" Touch Display", "Pi 5 + Touch Display 2",
                  "Zero 2 W + an HDMI touch display (the budget table)"):
        own, stated = totals[model]
        assert round(own + common, 2) == stated, model
    spares, stated = totals["Spares for a hall (50 tables)"]
    assert spares == stated
    for needed in ("Zero 2 W", "micro-USB supply", "mini-HDMI", "22-pin", "Active Cooler",
                   "paper", "Spares"):
        assert needed in text

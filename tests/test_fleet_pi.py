"""What a real Pi needs at start-up (issue 16, findings 1-3): lgpio imports under the unit as the
unit's user, a Pi whose GPIO cannot open stops loudly (never mock pins), and the printer's
device, speed and kind (serial or USB printer class)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import termios
import threading
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from kiosk.errors import GpioError, PrinterError
from kiosk.hw import printer as printer_module
from kiosk.hw.door import Door
from kiosk.hw.panel import Panel, default_pin_factory
from kiosk.hw.pinmap import load_pinmap
from kiosk.hw.printer import SlipPrinter, is_line_printer
from kiosk.i18n import explain
from kiosk.table.clock import ManualClock

from .helpers import ROOT
from .pty_printer import PtyPrinter
from .test_deploy import unit, unit_lines

TABLE_UNIT = ROOT / "deploy" / "systemd" / "kiosk-table.service"
SYSTEM_PYTHON = "/usr/bin/python3"


def environment(path: Path) -> dict[str, str]:
    pairs = " ".join(v for _, k, v in unit_lines(path) if k == "Environment").split()
    return dict(pair.split("=", 1) for pair in pairs)


@pytest.mark.unit
def test_the_table_unit_runs_in_its_own_writable_directory_with_lgpio_and_sdl2():
    service = unit(TABLE_UNIT)
    env = environment(TABLE_UNIT)
    assert service["Service.RuntimeDirectory"] == "kiosk"
    assert service["Service.WorkingDirectory"] == "/run/kiosk" == env["LG_WD"]
    assert env["GPIOZERO_PIN_FACTORY"] == "lgpio"  # no silent fall-back to another factory
    assert env["KIVY_GL_BACKEND"] == "sdl2"
    assert env["KIVY_WINDOW"] == "sdl2" and env["SDL_VIDEODRIVER"] == "kmsdrm"


@pytest.mark.unit
def test_the_package_list_is_plain_debian_with_libgl1_and_lgpio_comes_from_pypi():
    packages = [line.split("#")[0].strip() for line in
                (ROOT / "deploy/packages/kiosk.txt").read_text().splitlines()]
    packages = [p for p in packages if p]
    assert "libgl1" in packages
    # Raspberry Pi OS's own packages are not in plain Debian; Kivy's wheel bundles its SDL2.
    assert not [p for p in packages if "lgpio" in p or p.startswith("libsdl2")]
    pyproject = (ROOT / "pyproject.toml").read_text()
    # From PyPI where it has a wheel (up to Python 3.12); on 3.13 (Trixie) the OS's
    # python3-lgpio, which provision-kiosk.sh adds only there.
    assert "\"lgpio>=0.2.2; sys_platform == 'linux' and python_version < '3.13'\"" in pyproject
    assert "lgpio==" in (ROOT / "deploy/constraints.txt").read_text()


@pytest.fixture
def lgpio_for_another_user():
    """lgpio's files copied where an unprivileged user can read them, for the system's Python
    (the test venv's Python lives under /root). Skips where that cannot be arranged."""
    if os.geteuid() != 0 or shutil.which("runuser") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("this test runs as root (CI does) to become the unit's user")
        pytest.skip("needs root to run as another user")
    spec = importlib.util.find_spec("lgpio")
    assert spec is not None and spec.origin, "lgpio is in the [table] extra"
    version = subprocess.run([SYSTEM_PYTHON, "-c", "import sys; print(sys.version_info[:2])"],
                             capture_output=True, text=True)
    if version.stdout.strip() != str(sys.version_info[:2]):
        pytest.skip("the system's Python is not the test venv's version (lgpio is compiled)")
    top = Path(tempfile.mkdtemp(prefix="lgpio-unit-"))
    top.chmod(0o755)
    site = top / "site"
    site.mkdir()
    origin = Path(spec.origin)
    for name in os.listdir(origin.parent):
        if name == "lgpio.py" or name.startswith("_lgpio"):
            shutil.copy(origin.parent / name, site / name)
    run_dir = top / "run-kiosk"  # what systemd makes of RuntimeDirectory=: owned by the user
    run_dir.mkdir()
    shutil.chown(run_dir, "nobody")
    subprocess.run(["chmod", "-R", "a+rX", str(site)], check=True)
    yield site, run_dir
    shutil.rmtree(top)


def import_lgpio_as(user: str, site: Path, cwd: str, extra_env: dict[str, str]):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(site), **extra_env}
    return subprocess.run(["runuser", "-u", user, "--", "env", "-i",
                           *(f"{k}={v}" for k, v in env.items()),
                           SYSTEM_PYTHON, "-c", "import lgpio; print('lgpio imported')"],
                          capture_output=True, text=True, cwd=cwd, timeout=60)


@pytest.mark.process
def test_lgpio_imports_from_the_units_working_directory_as_the_units_user(
        lgpio_for_another_user):
    site, run_dir = lgpio_for_another_user
    # Before: a unit without WorkingDirectory runs from /, where lgpio cannot make its pipe.
    before = import_lgpio_as("nobody", site, "/", {})
    assert before.returncode != 0 and ".lgd-nfy" in before.stderr
    # Now: the unit's WorkingDirectory and LG_WD, both its RuntimeDirectory.
    env = environment(TABLE_UNIT)
    assert env["LG_WD"] == unit(TABLE_UNIT)["Service.WorkingDirectory"]
    after = import_lgpio_as("nobody", site, str(run_dir), {"LG_WD": str(run_dir)})
    assert after.returncode == 0, after.stderr
    assert after.stdout.startswith("lgpio ")


# -- GPIO: never mock pins on a Pi -------------------------------------------------------------


def model_file(tmp_path: Path, model: str) -> str:
    path = tmp_path / "model"
    path.write_bytes(model.encode() + b"\0")  # as the device tree has it
    return str(path)


@pytest.mark.unit
def test_a_pi_without_its_gpio_chip_is_a_loud_error_not_mock_pins(tmp_path, monkeypatch):
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    pi5 = model_file(tmp_path, "Raspberry Pi 5 Model B Rev 1.0")
    with pytest.raises(GpioError) as err:
        default_pin_factory(str(tmp_path / "gpiochip0"), pi5)
    assert err.value.key == "fleet.gpio.no_chip"
    assert "Raspberry Pi 5" in explain(err.value, "en") and "GPIO" in explain(err.value, "zh-Hans")
    chip = tmp_path / "gpiochip0"
    chip.touch()
    assert default_pin_factory(str(chip), pi5) is None  # gpiozero's own factory (lgpio)


@pytest.mark.unit
def test_a_laptop_gets_mock_pins(tmp_path, monkeypatch):
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    factory = default_pin_factory(str(tmp_path / "gpiochip0"), str(tmp_path / "no-model"))
    assert isinstance(factory, MockFactory)
    factory.close()


@pytest.mark.unit
def test_a_gpio_that_cannot_open_stops_the_panel_with_the_reason(monkeypatch):
    """As under the unit: GPIOZERO_PIN_FACTORY=lgpio on a machine whose GPIO lgpio cannot open
    (this one has none): the panel refuses, naming why, instead of running without buttons."""
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")
    Device.pin_factory = None
    try:
        with pytest.raises(GpioError) as err:
            Panel(load_pinmap(), Door(), ManualClock(), pin_factory=None)
    finally:
        if Device.pin_factory is not None:
            Device.pin_factory.close()
        Device.pin_factory = None
    assert err.value.key == "fleet.gpio.cannot_open"
    assert err.value.params["detail"]
    assert "kiosk hw selftest" in explain(err.value, "en")


@pytest.mark.unit
def test_a_panel_that_fails_half_way_releases_the_pins_it_took():
    factory = MockFactory()
    pins = load_pinmap()
    taken = factory.pin(pins.seat_led("N"))  # a part outside the panel already has it
    from gpiozero import LED

    holder = LED(taken.info.name, pin_factory=factory)
    with pytest.raises(GpioError):
        Panel(pins, Door(), ManualClock(), pin_factory=factory)
    holder.close()
    panel = Panel(pins, Door(), ManualClock(), pin_factory=factory)  # nothing left held
    panel.close()


# -- the printer -------------------------------------------------------------------------------


@pytest.mark.unit
def test_the_printer_speed_is_the_one_given():
    printer = PtyPrinter()
    try:
        assert SlipPrinter(printer.path, baudrate=19200, timeout=1).print_slip(b"hi") == "printed"
        assert termios.tcgetattr(printer.slave)[4] == termios.B19200
        assert SlipPrinter(printer.path, timeout=1).print_slip(b"hi") == "printed"
        assert termios.tcgetattr(printer.slave)[4] == termios.B9600  # the default
    finally:
        printer.close()


@pytest.mark.unit
def test_a_usb_printer_class_device_is_written_as_a_file(monkeypatch, tmp_path):
    """/dev/usb/lpN is no tty (pyserial cannot set it up); the pty stands in for it here."""
    printer = PtyPrinter()
    link = tmp_path / "kiosk-printer"
    link.symlink_to(printer.path)
    assert not is_line_printer(str(link))
    monkeypatch.setattr(printer_module.os.path, "realpath",
                        lambda p: "/dev/usb/lp0" if p == str(link) else p)
    assert is_line_printer(str(link))
    try:
        assert SlipPrinter(str(link), timeout=1).print_slip(b"\x1b@slip") == "printed"
        deadline = 50
        while b"slip" not in printer.received and deadline:
            threading.Event().wait(0.02)
            deadline -= 1
        assert b"\x1b@slip" in printer.received
    finally:
        printer.close()
    with pytest.raises(PrinterError) as err:  # unplugged: the device is gone
        SlipPrinter(str(tmp_path / "gone"), timeout=0.2).print_slip(b"x")
    assert err.value.reason == "no_device"


@pytest.mark.unit
def test_the_table_command_takes_the_printer_speed():
    from kiosk.cli.main import build_parser

    args = build_parser().parse_args(["table", "--data", "d", "--printer", "/dev/kiosk-uart",
                                      "--printer-baud", "19200"])
    assert (args.printer, args.printer_baud) == ("/dev/kiosk-uart", 19200)
    assert build_parser().parse_args(["table", "--data", "d"]).printer_baud == 9600


# -- the boot config (finding 9) -----------------------------------------------------------


@pytest.mark.process
def test_the_provisioned_boot_config_loads_the_kms_driver_once(tmp_path):
    from .test_deploy import PI_CMDLINE, PI_CONFIG, provision

    boot = tmp_path / "boot/firmware"
    boot.mkdir(parents=True)
    (boot / "config.txt").write_text(PI_CONFIG)
    (boot / "cmdline.txt").write_text(PI_CMDLINE)
    provision("provision-kiosk.sh", tmp_path, "--table", "2", "--scorer", "scorer.local")
    lines = (boot / "config.txt").read_text().splitlines()
    assert lines.count("dtoverlay=vc4-kms-v3d") == 1
    fragment = (ROOT / "firmware_config/config.txt").read_text()
    audio = fragment.split("dtparam=audio=off")[0].splitlines()[-2:]
    assert "analogue audio" in " ".join(audio) and "PWM" not in " ".join(audio)
    assert "empty until then" not in (ROOT / "firmware_config/README.md").read_text()


@pytest.mark.process
def test_a_32_bit_system_is_refused_before_anything_changes(tmp_path):
    stubs = tmp_path / "bin"
    stubs.mkdir()
    for name, body in (("dpkg", 'echo armhf'), ("apt-get", "exit 0")):
        (stubs / name).write_text(f"#!/bin/sh\n{body}\n")
        (stubs / name).chmod(0o755)
    result = subprocess.run(["bash", str(ROOT / "deploy/provision-kiosk.sh"), "--table", "1",
                             "--scorer", "scorer.local", "--dry-run"], capture_output=True,
                            text=True, env={**os.environ, "PATH": f"{stubs}:/usr/bin:/bin"})
    assert result.returncode == 2
    assert "这是 32 位系统（armhf）" in result.stderr and "64 位" in result.stderr
    assert not [line for line in result.stdout.splitlines() if line.startswith("将")]


@pytest.mark.process
def test_the_kiosk_stops_with_the_reason_when_its_gpio_cannot_open(tmp_path):
    """As under the unit on a Pi whose GPIO cannot open: the kiosk exits with the reason in the
    technician's language (its journal), before any window."""
    from .helpers import kiosk

    env = {**os.environ, "GPIOZERO_PIN_FACTORY": "lgpio", "KIVY_NO_ARGS": "1"}
    env.pop("DISPLAY", None)
    done = kiosk("table", "--data", str(tmp_path), "--table", "3", env=env)
    assert done.returncode == 3, done.stderr[-2000:]
    assert "无法打开座位按钮和指示灯" in done.stderr and "kiosk hw selftest" in done.stderr
    assert "Traceback" not in done.stderr

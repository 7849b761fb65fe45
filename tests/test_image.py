"""The card image's build, stage by stage, under qemu-user (`make image-test`; marked `image`,
so `make test` leaves it out: it needs root, debootstrap, qemu-user-static with binfmt and the
network to Debian and PyPI, and takes a while the first time). The stages are kept in the work
directory (KIOSK_IMAGE_WORK), so a second run checks the same build again in seconds;
KIOSK_IMAGE_FRESH=1 builds from nothing.

Built without a kernel (`--kernel none`): everything the kiosk adds is built and checked, the
Debian kernel and firmware packages are not downloaded (a card to boot: `make image`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from kiosk.update.bundle import new_key

from .helpers import ROOT

pytestmark = [pytest.mark.image, pytest.mark.timeout(7200)]

WORK = Path(os.environ.get("KIOSK_IMAGE_WORK", "/var/tmp/kiosk-image-test"))
STAGES = ["rootfs", "wheelhouse", "install", "verify", "assemble"]


@pytest.fixture(scope="module")
def build():
    if os.geteuid() != 0:
        pytest.fail("the image build needs root")
    for tool in ("debootstrap", "mkfs.vfat", "mcopy", "sfdisk", "debugfs"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is missing (apt-get install debootstrap dosfstools mtools "
                        "fdisk e2fsprogs qemu-user-static binfmt-support)")
    if os.environ.get("KIOSK_IMAGE_FRESH") == "1":
        shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True, exist_ok=True)
    key = WORK / "update-key.pub"
    if not key.exists():
        key.write_bytes(new_key()[1])
    log = WORK / "build.log"
    with log.open("w") as out:
        done = subprocess.run(["bash", str(ROOT / "deploy/image/build-image.sh"), "--work",
                               str(WORK), "--kernel", "none", "--update-key", str(key)],
                              stdout=out, stderr=subprocess.STDOUT, timeout=7000)
    text = log.read_text()
    assert done.returncode == 0, text[-4000:]
    return text


def test_every_stage_ran_and_its_time_is_recorded(build):
    times = dict(line.split() for line in (WORK / "stage-times.txt").read_text().splitlines())
    assert list(times) == STAGES
    print("image build stage times (s):", times, "total", sum(map(int, times.values())))


def test_the_verify_stage_ran_the_kiosk_inside_the_arm64_system(build):
    # The verify stage ran them while building (a failure stops the build); a later run skips
    # the stage, so the test asks the arm64 system again itself.
    rootfs = WORK / "rootfs"
    rules = subprocess.run(["chroot", str(rootfs), "/opt/kiosk/venv/bin/kiosk", "rules",
                            "list"], capture_output=True, text=True, timeout=600)
    assert rules.returncode == 0 and "xiamen-2015" in rules.stdout, rules.stderr
    arch = subprocess.run(["chroot", str(rootfs), "/opt/kiosk/venv/bin/python", "-c",
                           "import platform; print(platform.machine())"],
                          capture_output=True, text=True, timeout=600)
    assert arch.stdout.strip() == "aarch64"


def test_the_venv_came_from_the_wheelhouse_and_the_units_are_enabled(build):
    rootfs = WORK / "rootfs"
    current = os.readlink(rootfs / "var/lib/kiosk-app/current")
    assert current.startswith("/var/lib/kiosk-app/venvs/")
    assert os.readlink(rootfs / "opt/kiosk/venv") == "/var/lib/kiosk-app/current"
    assert (rootfs / current.lstrip("/") / ".kiosk-version").read_text().strip()
    wants = rootfs / "etc/systemd/system"
    for unit in ("multi-user.target.wants/kiosk-table.service",
                 "multi-user.target.wants/kiosk-firstboot.service",
                 "timers.target.wants/kiosk-update.timer"):
        assert (wants / unit).is_symlink(), unit
    assert (rootfs / "etc/chrony/conf.d/kiosk-table.conf").read_text().strip().endswith(
        "makestep 1 -1")
    assert (rootfs / "etc/initramfs-tools/scripts/init-bottom/kiosk-overlay").exists()
    assert (rootfs / "etc/kiosk/update-key.pub").read_bytes() == \
        (WORK / "update-key.pub").read_bytes()
    assert not (rootfs / "etc/kiosk/kiosk.env").exists()  # each card's comes from kiosk.toml
    fonts = list((rootfs / "var/lib/kiosk/cache/kiosk/fonts").glob("KioskSC-*.otf"))
    assert fonts, "the CJK faces were extracted at build time"


def test_the_card_has_boot_root_and_data_partitions(build):
    [image] = (WORK / "out").glob("kiosk80-*.img")
    table = json.loads(subprocess.run(["sfdisk", "--json", str(image)], capture_output=True,
                                      text=True, check=True).stdout)["partitiontable"]
    assert [p["type"] for p in table["partitions"]] == ["c", "83", "83"]
    data = WORK / "out/data.ext4"
    listing = subprocess.run(["debugfs", "-R", "ls -p /app/venvs", str(data)],
                             capture_output=True, text=True).stdout
    assert "/" in listing and len(listing.splitlines()) >= 3  # ., .. and the venv
    label = subprocess.run(["e2label", str(data)], capture_output=True, text=True).stdout
    assert label.strip() == "KIOSKDATA"
    cmdline = (WORK / "rootfs/boot/firmware/cmdline.txt").read_text()
    assert "kiosk.overlay=1" in cmdline.split()
    config = (WORK / "rootfs/boot/firmware/config.txt").read_text()
    assert "dtparam=watchdog=on" in config and "gpio-shutdown" in config
    fstab = (WORK / "rootfs/etc/fstab").read_text()
    assert "LABEL=KIOSKDATA   /var/lib/kiosk-data" in fstab
    assert "/var/lib/kiosk-data/app   /var/lib/kiosk-app" in fstab

"""The card image's parts that can be checked without building it (issue 33): the labels the
build gives its file systems against the ones /etc/fstab mounts, the kernel command line kept
to one clean line, the data partition grown over the card, the card's own units. The build
itself, read back partition by partition, is tests/test_image.py (marked `image`)."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

from .helpers import ROOT, tool
from .test_deploy import english_runs

IMAGE = ROOT / "deploy/image"
BUILD = (IMAGE / "build-image.sh").read_text()


def fstab_labels() -> dict[str, str]:
    """Mount point -> LABEL of the fstab the build writes."""
    [text] = re.findall(r'cat >"\$ROOTFS/etc/fstab" <<\'EOF\'\n(.*?)\nEOF', BUILD, re.S)
    return {fields[1]: fields[0].removeprefix("LABEL=") for fields in map(str.split,
            text.splitlines()) if fields[0].startswith("LABEL=")}


def made_labels(tmp_path: Path) -> dict[str, str]:
    """Each file system as the assemble stage makes it, and its label as blkid reads it."""
    mkfs_vfat = re.search(r"^\s*mkfs\.vfat (.*) -C ", BUILD, re.M)
    assert mkfs_vfat, "the assemble stage makes the FAT boot partition"
    boot = tmp_path / "boot.vfat"
    subprocess.run([tool("mkfs.vfat"), *shlex.split(mkfs_vfat.group(1)), "-C", str(boot),
                    "65536"], check=True, capture_output=True)
    labels = {"boot": boot}
    for label, source in re.findall(r'mkfs\.ext4 -q -L (\S+) -d "\$(\w+)"', BUILD):
        part = {"ROOTFS": "root", "data": "data"}[source]
        image = tmp_path / f"{part}.ext4"
        subprocess.run([tool("mkfs.ext4"), "-q", "-L", label, str(image), "8M"], check=True)
        labels[part] = image
    return {part: subprocess.run([tool("blkid"), "-p", "-s", "LABEL", "-o", "value", str(path)],
                                 capture_output=True, text=True, check=True).stdout.strip()
            for part, path in labels.items()}


@pytest.mark.process
def test_each_partition_is_made_with_the_label_fstab_mounts(tmp_path):
    made, mounted = made_labels(tmp_path), fstab_labels()
    assert mounted["/boot/firmware"] == made["boot"] == "bootfs"  # the official image's
    assert mounted["/"] == made["root"] == "rootfs"
    assert mounted["/var/lib/kiosk-data"] == made["data"] == "KIOSKDATA"


@pytest.mark.process
def test_the_kernel_command_line_is_one_line_without_a_leading_space(tmp_path):
    cmdline = tmp_path / "cmdline.txt"
    # As Debian's raspi-firmware hook writes it (CONSOLES="tty1": " console=tty1 root=…").
    cmdline.write_text(" console=tty1 root=LABEL=rootfs rw fsck.repair=yes  rootwait "
                       "kiosk.overlay=1\n")
    tidy = ["bash", str(IMAGE / "cmdline-tidy.sh")]
    subprocess.run(tidy, env={"CMDLINE": str(cmdline), "PATH": "/usr/bin:/bin"}, check=True)
    assert cmdline.read_text() == ("console=tty1 root=LABEL=rootfs rw fsck.repair=yes rootwait "
                                   "kiosk.overlay=1\n")
    # And after every kernel or initramfs update on the card, after raspi-firmware's (z50).
    for hook in ("etc/kernel/postinst.d/z51-kiosk-cmdline",
                 "etc/initramfs/post-update.d/z51-kiosk-cmdline"):
        assert f'"$HERE/cmdline-tidy.sh" "$ROOTFS/{hook}"' in BUILD


@pytest.mark.process
def test_the_data_partition_grows_over_the_rest_of_the_card(tmp_path):
    """kiosk-grow-data on a card of 64 MiB written with a 40 MiB image: the data partition
    (the last) and its file system take the rest; a second run finds nothing to do."""
    tool("growpart")
    card = tmp_path / "card.img"
    card.write_bytes(b"")
    subprocess.run(["truncate", "-s", "40M", str(card)], check=True)
    layout = ("label: dos\nstart=2048, size=16384, type=c\nstart=18432, size=24576, type=83\n"
              "start=43008, size=38912, type=83\n")
    subprocess.run([tool("sfdisk"), "--quiet", str(card)], input=layout, text=True, check=True)
    data = tmp_path / "data.ext4"  # the data partition's file system (here beside the card)
    subprocess.run([tool("mkfs.ext4"), "-q", "-L", "KIOSKDATA", str(data), "19M"], check=True)
    subprocess.run(["truncate", "-s", "64M", str(card)], check=True)  # a bigger card
    grow = ["bash", str(IMAGE / "kiosk-grow-data.sh"), str(card), "3", str(data)]
    # The file system grows to its device's size: the device of the grown partition.
    subprocess.run(["truncate", "-s", f"{(131072 - 43008) * 512}", str(data)], check=True)
    subprocess.run([tool("e2fsck"), "-f", "-p", str(data)], check=True, capture_output=True)
    first = subprocess.run(grow, capture_output=True, text=True)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "CHANGED: partition=3" in first.stdout
    parts = subprocess.run([tool("sfdisk"), "--dump", str(card)], capture_output=True,
                           text=True, check=True).stdout
    start, size = map(int, re.search(r"img3 : start=\s*(\d+), size=\s*(\d+)", parts).groups())
    assert start == 43008 and 131072 - 2048 < start + size <= 131072, parts  # to the end
    blocks = subprocess.run([tool("dumpe2fs"), "-h", str(data)], capture_output=True,
                            text=True).stdout
    count = int(re.search(r"^Block count:\s+(\d+)", blocks, re.M).group(1))
    block = int(re.search(r"^Block size:\s+(\d+)", blocks, re.M).group(1))
    assert count * block == data.stat().st_size // block * block  # the whole device
    again = subprocess.run(grow, capture_output=True, text=True)
    assert again.returncode == 0 and "数据分区已占满整张存储卡" in again.stdout


@pytest.mark.unit
def test_the_card_units_are_installed_and_enabled_by_the_build():
    units = sorted(p.name for p in (IMAGE / "systemd").iterdir())
    assert units == ["kiosk-data-clock.conf", "kiosk-grow-data.service",
                     "kiosk-hostkeys.service", "kiosk-save-clock.service",
                     "kiosk-save-clock.timer"]
    assert "systemctl enable kiosk-grow-data.service kiosk-hostkeys.service \\\n" \
        "    kiosk-save-clock.timer" in BUILD
    # sshd looks for the host keys where kiosk-hostkeys makes them (the data partition).
    hostkeys = (IMAGE / "systemd/kiosk-hostkeys.service").read_text()
    for kind in ("ed25519", "ecdsa"):
        assert f"HostKey /etc/kiosk/ssh/ssh_host_{kind}_key" in BUILD
    assert "ssh_host_$${t}_key" in hostkeys and "for t in ed25519 ecdsa" in hostkeys


@pytest.mark.unit
def test_the_saved_clock_lives_on_the_data_partition():
    assert "FILE=/var/lib/kiosk-data/fake-hwclock.data" in BUILD
    drop_in = (IMAGE / "systemd/kiosk-data-clock.conf").read_text()
    assert "RequiresMountsFor=/var/lib/kiosk-data" in drop_in
    assert "fake-hwclock.service.d/" in BUILD


@pytest.mark.unit
def test_the_wheelhouse_is_resolved_for_the_card_with_its_tools_pinned():
    pins = dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)$",
                           (ROOT / "deploy/constraints.txt").read_text(), re.M))
    # pip runs on the root's own Python in the chroot: the dependencies' markers are the
    # card's (Python 3.13 needs no lgpio wheel), not the builder's.
    download = re.search(r"in_chroot python3 /tmp/kiosk-pip/pip\.whl/pip --isolated download"
                         r"(.*?)\|\| status", BUILD, re.S).group(1)
    assert "--constraint /tmp/kiosk-constraints.txt" in download
    assert 'cp "$PROJECT/deploy/constraints.txt" "$ROOTFS/tmp/kiosk-constraints.txt"' in BUILD
    extra = [w for w in download.split('[table]"')[1].split() if w != "\\"]
    assert extra == ["setuptools", "wheel"]
    assert "pip_pin=$(grep '^pip==' \"$PROJECT/deploy/constraints.txt\")" in BUILD
    for name in [*extra, "pip"]:
        assert name in pins, name


@pytest.mark.process
def test_the_overlay_scripts_pass_shellcheck():
    shellcheck = tool("shellcheck")
    scripts = [IMAGE / "overlay-root", IMAGE / "overlay-hook", ROOT / "tests/pi_os_base.sh"]
    result = subprocess.run([shellcheck, "-x", *map(str, scripts)], capture_output=True,
                            text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.unit
def test_the_short_image_command_in_the_docs_builds_the_recommended_card():
    """The Debian fallback drives no Pi 5, no DSI display, no header UART (kiosk.toml's
    default printer) and no shutdown button: every `make image` the docs give to copy takes
    the official image (BASE=)."""
    commands = []
    for page in (ROOT / "docs/deployment.md", ROOT / "deploy/README.md"):
        for block in re.findall(r"```sh\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
            commands += [line for line in block.replace("\\\n", " ").splitlines()
                         if "make image" in line]
    assert len(commands) >= 2 and all(" BASE=" in line for line in commands), commands


@pytest.mark.unit
def test_the_swap_procedure_copies_the_journal_from_where_the_card_keeps_it():
    """On a card from the image the root partition's /var/lib/kiosk is an empty mount point:
    the journal is on KIOSKDATA, in the folder fstab binds there."""
    build = (ROOT / "deploy/image/build-image.sh").read_text()
    folder = re.search(r"^/var/lib/kiosk-data/(\w+) +/var/lib/kiosk +none bind", build, re.M)
    assert folder
    swap = (ROOT / "deploy/README.md").read_text().split("## Swapping a broken kiosk")[1]
    copies = re.findall(r"^ *sudo cp (\S+) /var/lib/kiosk-scorer/import-7/$", swap, re.M)
    assert f"/media/$USER/KIOSKDATA/{folder.group(1)}/table-7.sqlite*" in copies
    assert "/media/$USER/rootfs/var/lib/kiosk/table-7.sqlite*" in copies  # a kiosk by hand


@pytest.mark.unit
def test_the_system_log_is_kept_bounded_on_the_data_partition_and_apt_stays_quiet():
    """The root is a RAM overlay: a log there is gone at reboot and fills a Zero 2 W's 512 MB,
    and so would apt's daily downloads (a card takes its updates from the scorer)."""
    [fstab] = re.findall(r'cat >"\$ROOTFS/etc/fstab" <<\'EOF\'\n(.*?)\nEOF', BUILD, re.S)
    mounts = {f[1]: f for f in map(str.split, fstab.splitlines())}
    assert mounts["/var/log/journal"][:3] == ["/var/lib/kiosk-data/journal", "/var/log/journal",
                                              "none"]
    assert "x-systemd.requires-mounts-for=/var/lib/kiosk-data" in mounts["/var/log/journal"][3]
    assert '"$data/journal"' in BUILD.split("stage_assemble() {")[1].split("\n}\n")[0]
    journald = re.search(r"printf '([^']*)' \\\n\s*>\"\$ROOTFS/etc/systemd/journald\.conf\.d/",
                         BUILD)
    assert journald and {"Storage=persistent", "SystemMaxUse=64M"} <= set(
        journald.group(1).split("\\n"))
    masked = re.search(r"for timer in ([^;]+); do\n\s*ln -sfn /dev/null "
                       r"\"\$ROOTFS/etc/systemd/system/\$timer\"", BUILD)
    assert masked and masked.group(1).split() == ["apt-daily.timer", "apt-daily-upgrade.timer"]


STUB_PYTHON = """#!/bin/sh
# python3 -m pip wheel|download ... --wheel-dir|--dest DIR ...: the file pip would write.
while [ $# -gt 0 ]; do
  case $1 in
    --wheel-dir) touch "$2/kiosk80-$KIOSK_STUB_VERSION-py3-none-any.whl" ;;
    --dest) touch "$2/pip-24.0-py3-none-any.whl" ;;
  esac
  shift
done
"""


def stub_builder(tmp_path: Path, python: str) -> tuple[Path, Path, Path]:
    """Stubs for root, arm64, the builder's tools, chroot and mount, and `python` as the
    builder's python3; returns the stubs' directory, a work directory and a base image."""
    stubs, work, base = tmp_path / "bin", tmp_path / "work", tmp_path / "raspios.img"
    stubs.mkdir()
    for name, text in {"id": "#!/bin/sh\necho 0\n", "uname": "#!/bin/sh\necho aarch64\n",
                       "python3": python}.items():
        (stubs / name).write_text(text)
    for name in ("mkfs.vfat", "mcopy", "mkfs.ext4", "sfdisk", "xz", "blkid", "chroot",
                 "mount", "umount"):
        (stubs / name).write_text("#!/bin/sh\nexit 0\n")
    for stub in stubs.iterdir():
        stub.chmod(0o755)
    base.write_bytes(b"the official image")
    return stubs, work, base


NO_PIP = """#!/bin/sh
[ "$1" = -m ] && [ "$2" = pip ] && { echo "$0: No module named pip" >&2; exit 1; }
exit 0
"""
PYTHON_310 = """#!/bin/sh
[ "$1" = -c ] && exit 1  # sys.version_info < (3, 11)
exit 0
"""


@pytest.mark.process
@pytest.mark.parametrize(("python", "said"), [
    (NO_PIP, "本机的 python3 没有 pip（项目的 wheel 由它生成）：请先运行 apt-get install "
             "python3-pip"),
    (PYTHON_310, "本机的 python3 要 3.11 或更高"),
], ids=["no-pip", "python-3.10"])
def test_a_builder_without_what_the_wheelhouse_needs_is_told_before_any_stage(tmp_path, python,
                                                                              said):
    """deploy/README.md's step 2 on a fresh Debian or Ubuntu PC: its python3 builds the
    project's wheel at the third stage; without pip (not there by default) the build stopped
    there, minutes in, with pip's English."""
    import os

    stubs, work, base = stub_builder(tmp_path, python)
    done = subprocess.run(["bash", str(IMAGE / "build-image.sh"), "--work", str(work),
                           "--base", str(base)], capture_output=True, text=True,
                          env={**os.environ, "PATH": f"{stubs}:{os.environ['PATH']}"},
                          timeout=60)
    assert done.returncode == 2 and done.stderr.startswith(f"build-image：{said}"), done.stderr
    assert "==" not in done.stdout and not work.exists()  # no stage begun
    readme = (ROOT / "deploy/README.md").read_text(encoding="utf-8")
    step = re.search(r"sudo apt-get install qemu-user-static[^\n]*", readme)
    assert step and "python3-pip" in step.group(0).split()


@pytest.mark.process
def test_a_releases_wheelhouse_step_builds_the_new_version_and_the_image_follows(tmp_path):
    """`build-image.sh --base … --until wheelhouse` on a work directory that made the cards
    (deploy/README.md, a release's step) makes the wheelhouse of the project as it is now,
    not 「之前已完成」 (done before); and the image's later stages are then made from it
    again. Run with stubs for root, arm64, the builder's tools, chroot, mount and pip: the
    stages' order only."""
    import os

    version = re.search(r'^version = "(.*)"', (ROOT / "pyproject.toml").read_text(), re.M)
    assert version
    stubs, work, base = stub_builder(tmp_path, STUB_PYTHON)
    (work / "rootfs/usr/bin").mkdir(parents=True)
    (work / "rootfs/etc").mkdir()
    (work / "rootfs/usr/sbin").mkdir()
    (work / "rootfs/usr/bin/python3").symlink_to("python3.11")
    (work / "wheelhouse").mkdir()
    (work / "wheelhouse/.python").write_text("3.11\n")
    (work / "wheelhouse/kiosk80-0.0.1-py3-none-any.whl").touch()  # the last release's
    for stage in ("rootfs", "system", "wheelhouse", "install", "verify", "assemble"):
        (work / f".done-{stage}").write_text("1\n")
    stat = base.stat()
    (work / "source").write_text(f"base {stat.st_size} {int(stat.st_mtime)} raspios.img\n")
    ca = tmp_path / "ca.crt"
    ca.write_text("")
    env = {**os.environ, "PATH": f"{stubs}:{os.environ['PATH']}", "PIP_CERT": str(ca),
           "KIOSK_STUB_VERSION": version.group(1)}

    def build(*args: str) -> str:
        done = subprocess.run(["bash", str(IMAGE / "build-image.sh"), "--work", str(work),
                               "--base", str(base), *args], capture_output=True, text=True,
                              env=env, timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    said = build("--until", "wheelhouse")
    assert "== rootfs：之前已完成" in said and "== wheelhouse：之前已完成" not in said
    # What the build says is Chinese, with no English sentence (the check of test_deploy.py).
    assert "各阶段用时（秒）" in said and not [line for line in said.splitlines()
                                               if english_runs(line)], said
    assert (work / f"wheelhouse/kiosk80-{version.group(1)}-py3-none-any.whl").exists()
    # The cards' next image installs it: the stages after it are to be done again.
    assert not any((work / f".done-{s}").exists() for s in ("install", "verify", "assemble"))
    assert "== wheelhouse：之前已完成" in build("--until", "wheelhouse")  # once a version

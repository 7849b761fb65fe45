#!/usr/bin/env bash
# Build the table kiosk's card image: one image, written to every card of the hall, each card
# then given its identity by one kiosk.toml on its boot partition (deploy/kiosk.toml.example).
#
# Two ways, one result (a card with bootfs, rootfs and KIOSKDATA partitions):
#
#   sudo deploy/image/build-image.sh --base 2024-11-19-raspios-bookworm-arm64-lite.img.xz
#       RECOMMENDED. Customises the official Raspberry Pi OS Lite (64-bit) image you downloaded
#       (Bookworm or Trixie): Raspberry Pi's own kernel and firmware, so it drives every target
#       (Pi 4, Pi 5, Zero 2 W; the 7" display and Touch Display 2; the header UART with
#       Bluetooth moved off it; the shutdown button), as sdm and rpi-image-gen do.
#   sudo deploy/image/build-image.sh
#       The fallback from Debian alone (debootstrap, Debian's arm64 kernel and raspi-firmware),
#       for a builder who cannot have the official image. It drives LESS: a Pi 4 (cable, or
#       Wi-Fi with Debian's firmware-brcm80211) with an HDMI touch display, and a Zero 2 W
#       only with a USB Ethernet adapter (Debian has no firmware for its Wi-Fi chip); no Pi 5,
#       no DSI display, and none of Raspberry Pi's overlays (disable-bt, gpio-shutdown), so no
#       header UART printer (use a USB one: printer = "usb") and no shutdown button.
#
# Needs root, qemu-user-static with binfmt (an arm64 chroot on any PC), debootstrap (fallback),
# dosfstools, mtools, fdisk, e2fsprogs and xz-utils, and the network to PyPI (and to Debian or
# the base's own archives) while it builds; the card itself installs nothing from the network.
#
# Stages, each done once and kept in the work directory (run again: it goes on from the first
# stage not done; --from STAGE does that stage and the later ones again):
#   rootfs      the base's root and boot files copied out of its image (loop-mounted read-only),
#               or a debootstrapped arm64 Debian with the kiosk's packages and Debian's kernel
#   system      what every card shares and none may copy from another: an empty machine-id, no
#               SSH host keys (each card makes its own at first boot, on its data partition),
#               partitions by label, the saved clock on the data partition; the base's own
#               first-boot wizard and root-partition resize switched off (the data partition
#               grows instead); the Debian fallback's networking
#   wheelhouse  the project's wheel and every wheel it needs for the root's Python (3.11 on
#               Bookworm, 3.13 on Trixie) on aarch64, from PyPI, pinned by constraints.txt;
#               made again when the project's version is another (a release: --base as for
#               the cards, --until wheelhouse; the later stages are then made again too)
#   install     deploy/provision-kiosk.sh --image inside the chroot: the OS packages it lacks,
#               the venv from the wheelhouse with pip --no-index, the units, udev, chrony, the
#               boot config; the card's own units (data growth, host keys, clock); the CJK faces
#               extracted into the kiosk's font cache; the overlay-root initramfs script
#   verify      inside the chroot: `kiosk rules list`, `kiosk simulate`, lgpio imported as the
#               kiosk's user from its unit's directory, the self-test on mock pins, and
#               systemd-analyze verify on the units
#   assemble    the card: a FAT boot partition labelled bootfs, the root labelled rootfs
#               (read-only under a RAM overlay at run time) and the data partition KIOSKDATA
#               (the journal, the settings, the venvs, the card's identity), written without
#               loop devices (mkfs.ext4 -d, mtools, sfdisk)
#
# Options:
#   --base FILE         the official Raspberry Pi OS Lite 64-bit image (.img.xz or .img)
#   --work DIR          where the stages keep their results (default /var/tmp/kiosk-image)
#   --from STAGE        do STAGE and those after it again
#   --until STAGE       stop after STAGE
#   --kernel debian|none  the fallback's kernel: Debian's arm64 kernel and raspi-firmware
#                       (default), or none (to test the other stages faster; such a card does
#                       not boot). Not with --base, whose kernel is Raspberry Pi's
#   --update-key FILE   the fleet's public update key, so the cards take the scorer's updates
#   --suite NAME        the fallback's Debian suite (default bookworm)
#   --mirror URL        the fallback's Debian mirror (default http://deb.debian.org/debian)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PROJECT=$(cd "$HERE/../.." && pwd)
WORK=/var/tmp/kiosk-image FROM="" UNTIL="" KERNEL=debian UPDATE_KEY="" SUITE=bookworm BASE=""
MIRROR=http://deb.debian.org/debian
STAGES=(rootfs system wheelhouse install verify assemble)
usage() { sed -n '2,/^set -e/s/^# \{0,1\}//p' "$0"; exit "${1:-2}"; }
die() { printf 'build-image: %s\n' "$*" >&2; exit 2; }
kernel_opt=""
while [ $# -gt 0 ]; do
  case $1 in
    --base) BASE=${2-}; shift ;;
    --work) WORK=${2-}; shift ;;
    --from) FROM=${2-}; shift ;;
    --until) UNTIL=${2-}; shift ;;
    --kernel) KERNEL=${2-}; kernel_opt=1; shift ;;
    --update-key) UPDATE_KEY=${2-}; shift ;;
    --suite) SUITE=${2-}; shift ;;
    --mirror) MIRROR=${2-}; shift ;;
    -h|--help) usage 0 ;;
    *) printf 'unknown option: %s\n' "$1" >&2; usage ;;
  esac
  shift
done
case $KERNEL in debian|none) ;; *) die "--kernel debian or none" ;; esac
if [ -n "$BASE" ]; then
  [ -z "$kernel_opt" ] || die "--kernel is for the Debian fallback; with --base the kernel is Raspberry Pi's"
  [ -f "$BASE" ] || die "--base $BASE: no such file (the Raspberry Pi OS Lite 64-bit .img.xz)"
  BASE=$(realpath "$BASE")
  KERNEL=base
fi
for s in "$FROM" "$UNTIL"; do
  [ -z "$s" ] || [[ " ${STAGES[*]} " == *" $s "* ]] || die "no stage $s (${STAGES[*]})"
done
[ -z "$UPDATE_KEY" ] || grep -q "BEGIN PUBLIC KEY" "$UPDATE_KEY" 2>/dev/null ||
  die "--update-key $UPDATE_KEY: give update-key.pub (the public key: kiosk fleet keygen)"
[ "$(id -u)" -eq 0 ] || die "run as root (loop mounts, chroot, file ownership)"
tools=(mkfs.vfat mcopy mkfs.ext4 sfdisk xz blkid)
[ -n "$BASE" ] || tools+=(debootstrap)
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null ||
    die "$tool is missing: apt-get install debootstrap dosfstools mtools fdisk e2fsprogs xz-utils"
done
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || [ "$(uname -m)" = aarch64 ] ||
  die "no arm64 emulation: apt-get install qemu-user-static binfmt-support (and mount binfmt_misc)"

ROOTFS=$WORK/rootfs WHEELS=$WORK/wheelhouse OUT=$WORK/out
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' "$PROJECT/pyproject.toml" | head -n 1)
mkdir -p "$WORK"
TIMES=$WORK/stage-times.txt
# What the rootfs stage was made from: a later run with another base starts again.
SOURCE_ID=${BASE:+base $(stat -c '%s %Y' "$BASE") $(basename "$BASE")}
SOURCE_ID=${SOURCE_ID:-debian $SUITE $KERNEL}
if [ -f "$WORK/source" ] && [ "$(cat "$WORK/source")" != "$SOURCE_ID" ] && [ -z "$FROM" ]; then
  say_src=$(cat "$WORK/source")
  printf 'build-image: %s holds a build from %s: building from rootfs again\n' "$WORK" "$say_src"
  rm -f "$WORK"/.done-*
fi

# A stage done before, and still good: a wheelhouse is for one version of the project (a
# release's step `--until wheelhouse` makes the new version's).
stage_done() {
  [ -f "$WORK/.done-$1" ] &&
    { [ "$1" != wheelhouse ] || [ "$(cat "$WHEELS/.version" 2>/dev/null)" = "$VERSION" ]; }
}
say() { printf '%s\n' "$*"; }
# What a card from the fallback drives, said as the build starts and as its last word.
say_what_the_fallback_drives() {
  [ -z "$BASE" ] || return 0
  say "Debian fallback (no --base): this card drives a Pi 4 (cable, or Wi-Fi) with an HDMI" \
      "touch display, and a Zero 2 W only with a USB Ethernet adapter; no Pi 5, no DSI display," \
      "no header UART printer (use printer = \"usb\"), no shutdown button. For every target," \
      "build with --base and the official Raspberry Pi OS Lite image."
}
say_what_the_fallback_drives

# Mounts the chroot (or a base image) needs while a stage runs; always undone.
MOUNTED=()
mount_at() {  # mount_at DIR MOUNT-ARGS...
  mkdir -p "$1"
  mount "${@:2}" "$1"
  MOUNTED=("$1" "${MOUNTED[@]}")
}
chroot_mounts() {
  mount_at "$ROOTFS/proc" -t proc proc
  mount_at "$ROOTFS/sys" -t sysfs sys
  mount_at "$ROOTFS/dev" --bind /dev
  mount_at "$ROOTFS/dev/pts" --bind /dev/pts
}
unmount_all() {
  local m
  for m in "${MOUNTED[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
  MOUNTED=()
}
trap unmount_all EXIT
# DM_DISABLE_UDEV: no udev runs in the chroot; dmsetup (run by mkinitramfs) would wait for it.
in_chroot() { chroot "$ROOTFS" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive DM_DISABLE_UDEV=1 "$@"; }
# The root's Python, major.minor ("3.11"): the wheels are made for it.
root_python() { readlink "$ROOTFS/usr/bin/python3" | sed -n 's/^python\(3\.[0-9]*\)$/\1/p'; }
# A unit file present in the root (in /usr/lib or /lib: merged or not).
has_unit() { [ -e "$ROOTFS/usr/lib/systemd/system/$1" ] || [ -e "$ROOTFS/lib/systemd/system/$1" ]; }

# partition IMAGE N: "START SIZE" in 512-byte sectors of partition N of an MBR image.
partition() {
  sfdisk --dump "$1" | awk -v n="$2" -F'[=,]' '
    $0 ~ "^[^ ]*"n" :" { for (i = 1; i <= NF; i++) { gsub(/ /, "", $i) }
      for (i = 1; i < NF; i++) { if ($i ~ /start$/) s = $(i + 1); if ($i == "size") z = $(i + 1) }
      print s, z }'
}

stage_rootfs() {
  rm -rf "$ROOTFS"
  if [ -n "$BASE" ]; then rootfs_from_base; else rootfs_from_debian; fi
  printf '%s\n' "$SOURCE_ID" >"$WORK/source"
}

rootfs_from_base() {
  local img=$WORK/base.img boot root label
  say "unpacking $BASE"
  case $BASE in
    *.xz) xz -dc "$BASE" >"$img" ;;
    *) cp --sparse=always "$BASE" "$img" ;;
  esac
  read -r -a boot <<<"$(partition "$img" 1)"
  read -r -a root <<<"$(partition "$img" 2)"
  if [ ${#boot[@]} -ne 2 ] || [ ${#root[@]} -ne 2 ]; then
    die "$BASE: not a Raspberry Pi OS image (no boot and root partitions)"
  fi
  # The official image's shape: a FAT partition labelled bootfs, an ext4 one labelled rootfs.
  label=$(blkid -p -O $((boot[0] * 512)) -S $((boot[1] * 512)) -s LABEL -o value "$img" || true)
  [ "$label" = bootfs ] || die "$BASE: its first partition is not Raspberry Pi OS's bootfs ($label)"
  label=$(blkid -p -O $((root[0] * 512)) -S $((root[1] * 512)) -s LABEL -o value "$img" || true)
  [ "$label" = rootfs ] || die "$BASE: its second partition is not Raspberry Pi OS's rootfs ($label)"
  sfdisk --dump "$img" | sed -n 's/^label-id: 0x//p' >"$WORK/disk-id"
  # The root through a read-only loop mount: the base stays as it was; its files are copied
  # whole (owners, modes, links, extended attributes such as ping's capability). The FAT boot
  # partition is read with mtools (no vfat driver needed on the builder).
  mount_at "$WORK/mnt-root" -o ro,loop,offset=$((root[0] * 512)),sizelimit=$((root[1] * 512)) "$img"
  mkdir -p "$ROOTFS"
  tar -C "$WORK/mnt-root" --xattrs --xattrs-include='*' --acls --numeric-owner -cf - . |
    tar -C "$ROOTFS" --xattrs --xattrs-include='*' --acls --numeric-owner -xf -
  unmount_all
  mkdir -p "$ROOTFS/boot/firmware"
  MTOOLS_SKIP_CHECK=1 mcopy -s -n -i "$img@@$((boot[0] * 512))" '::*' "$ROOTFS/boot/firmware/"
  rm -f "$img"
  [ -x "$ROOTFS/usr/bin/python3" ] || die "$BASE: no python3 in its root"
  case $(chroot "$ROOTFS" /usr/bin/dpkg --print-architecture) in
    arm64) ;;
    *) die "$BASE: not a 64-bit image (Kivy has no 32-bit ARM wheel): use Raspberry Pi OS Lite (64-bit)" ;;
  esac
}

rootfs_from_debian() {
  local packages
  packages=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PROJECT/deploy/packages/kiosk.txt" |
    tr '\n' ',')
  packages+="systemd-sysv,udev,kmod,dbus,iproute2,openssh-server,sudo,wpasupplicant,"
  packages+="wireless-regdb,rfkill,fake-hwclock,ca-certificates,python3,initramfs-tools,"
  packages+="dosfstools,fdisk,e2fsprogs,locales,tzdata,systemd-resolved"
  # The Zero 2 W's Wi-Fi (BCM43436) needs firmware-brcm80211 from non-free-firmware.
  [ "$KERNEL" = none ] || packages+=",linux-image-arm64,raspi-firmware,firmware-brcm80211"
  DM_DISABLE_UDEV=1 debootstrap --arch=arm64 --variant=minbase \
    --components=main,non-free-firmware --include="$packages" "$SUITE" "$ROOTFS" "$MIRROR"
  rm -rf "$ROOTFS/var/cache/apt/archives/"*.deb
}

# -- Fifty cards, fifty machines. An empty machine-id: systemd makes one at each card's first
# boot, and kiosk-firstboot keeps it (on the data partition and in cmdline.txt, so the
# read-only root boots with the same one each time). No SSH host keys: each card makes its own
# at first boot on the data partition (kiosk-hostkeys.service). Done again after the install
# stage's apt, whose package scripts may make either.
scrub_identity() {
  : >"$ROOTFS/etc/machine-id"
  [ -L "$ROOTFS/var/lib/dbus/machine-id" ] || rm -f "$ROOTFS/var/lib/dbus/machine-id"
  rm -f "$ROOTFS"/etc/ssh/ssh_host_*
}

stage_system() {
  scrub_identity
  mkdir -p "$ROOTFS/etc/ssh/sshd_config.d"
  cat >"$ROOTFS/etc/ssh/sshd_config.d/kiosk.conf" <<'EOF'
# The table kiosk (deploy/image/build-image.sh): the card's own host keys, made at its first
# boot on the data partition (kiosk-hostkeys.service); keys only, the technician's from
# kiosk.toml (ssh_key), kept on the data partition.
HostKey /etc/kiosk/ssh/ssh_host_ed25519_key
HostKey /etc/kiosk/ssh/ssh_host_ecdsa_key
PasswordAuthentication no
PermitRootLogin prohibit-password
AuthorizedKeysFile .ssh/authorized_keys /etc/kiosk/ssh_authorized_keys
EOF
  echo kiosk >"$ROOTFS/etc/hostname"
  # -- The partitions by the official image's labels (bootfs, rootfs) and the data partition's.
  # The data partition holds everything that changes: the journal, the settings, the venvs and
  # the card's identity, bound where the system expects them, so the root stays read-only.
  cat >"$ROOTFS/etc/fstab" <<'EOF'
proc              /proc               proc  defaults                        0 0
LABEL=rootfs      /                   ext4  defaults,noatime                0 1
LABEL=bootfs      /boot/firmware      vfat  defaults,noatime,ro,nofail      0 2
LABEL=KIOSKDATA   /var/lib/kiosk-data ext4  defaults,noatime,commit=5       0 2
/var/lib/kiosk-data/kiosk /var/lib/kiosk     none bind,x-systemd.requires-mounts-for=/var/lib/kiosk-data 0 0
/var/lib/kiosk-data/app   /var/lib/kiosk-app none bind,x-systemd.requires-mounts-for=/var/lib/kiosk-data 0 0
/var/lib/kiosk-data/etc   /etc/kiosk         none bind,x-systemd.requires-mounts-for=/var/lib/kiosk-data 0 0
/var/lib/kiosk-data/journal /var/log/journal none bind,x-systemd.requires-mounts-for=/var/lib/kiosk-data 0 0
EOF
  # -- The system's log on the data partition, bounded: in the RAM overlay it would be gone at
  # every reboot (what a kiosk did before it restarted is what a technician asks) and would
  # grow in the RAM of a 512 MB Zero 2 W.
  mkdir -p "$ROOTFS/var/log/journal" "$ROOTFS/etc/systemd/journald.conf.d"
  printf '# deploy/image/build-image.sh: on the data partition (/etc/fstab), bounded.\n[Journal]\nStorage=persistent\nSystemMaxUse=64M\n' \
    >"$ROOTFS/etc/systemd/journald.conf.d/kiosk.conf"
  # -- No apt timers: a card installs nothing from the network (updates come signed from the
  # scorer), and their downloads and lists would fill the RAM overlay.
  local timer
  for timer in apt-daily.timer apt-daily-upgrade.timer; do
    ln -sfn /dev/null "$ROOTFS/etc/systemd/system/$timer"
  done
  # -- The saved clock: a Pi has no real-time clock, and a clock saved into the RAM overlay is
  # gone at the next boot (every boot would start at the build's date until chrony reaches the
  # scorer). fake-hwclock keeps it on the data partition instead.
  printf '# deploy/image/build-image.sh: kept on the data partition (the root is read-only).\nFILE=/var/lib/kiosk-data/fake-hwclock.data\n' \
    >"$ROOTFS/etc/default/fake-hwclock"
  if [ -n "$BASE" ]; then system_of_base; else system_of_debian; fi
}

system_of_base() {
  local unit cmdline=$ROOTFS/boot/firmware/cmdline.txt
  # Raspberry Pi OS's first boot grows the root partition over the whole card (no room would
  # be left for the data partition, which grows instead) and its user wizard holds the console
  # until someone answers it: both off. The kiosk's own first boot does what a card needs.
  sed -i -e 's# init=/usr/lib/raspberrypi-sys-mods/firstboot##' \
    -e 's# systemd.run[_a-z.]*=[^ ]*##g' "$cmdline"
  for unit in userconfig.service regenerate_ssh_host_keys.service resize2fs_once.service \
      rpi-resize.service; do
    if has_unit "$unit"; then ln -sfn /dev/null "$ROOTFS/etc/systemd/system/$unit"; fi
  done
  # Wi-Fi: Raspberry Pi OS keeps it blocked until a country is set, and restores the block at
  # every boot (systemd-rfkill); the card's country comes from kiosk.toml instead.
  for unit in systemd-rfkill.service systemd-rfkill.socket; do
    ln -sfn /dev/null "$ROOTFS/etc/systemd/system/$unit"
  done
  in_chroot systemctl enable ssh.service
}

system_of_debian() {
  # Networking: DHCP on the cable and on Wi-Fi (wpa_supplicant-wlan0.conf from kiosk.toml).
  mkdir -p "$ROOTFS/etc/systemd/network"
  printf '[Match]\nName=e* wlan*\n\n[Network]\nDHCP=yes\nMulticastDNS=yes\n' \
    >"$ROOTFS/etc/systemd/network/20-kiosk.network"
  in_chroot systemctl enable systemd-networkd.service systemd-resolved.service \
    wpa_supplicant@wlan0.service ssh.service
  printf 'deb %s %s main non-free-firmware\n' "$MIRROR" "$SUITE" >"$ROOTFS/etc/apt/sources.list"
  if [ "$KERNEL" = debian ]; then
    # raspi-firmware writes cmdline.txt from this: the root by label.
    printf 'ROOTPART=LABEL=rootfs\nCONSOLES="tty1"\n' >"$ROOTFS/etc/default/raspi-firmware"
  fi
}

# The builder's name service inside the chroot while it fetches (apt, pip), and the root's own
# back after. No service may start inside the chroot meanwhile.
host_dns_in() {
  cp --remove-destination /etc/resolv.conf "$ROOTFS/etc/resolv.conf.kiosk-build"
  if [ -e "$ROOTFS/etc/resolv.conf" ] || [ -L "$ROOTFS/etc/resolv.conf" ]; then
    mv "$ROOTFS/etc/resolv.conf" "$ROOTFS/etc/resolv.conf.kiosk-saved"
  fi
  mv "$ROOTFS/etc/resolv.conf.kiosk-build" "$ROOTFS/etc/resolv.conf"
  printf '#!/bin/sh\nexit 101\n' >"$ROOTFS/usr/sbin/policy-rc.d"
  chmod 755 "$ROOTFS/usr/sbin/policy-rc.d"
}
host_dns_out() {
  rm -f "$ROOTFS/usr/sbin/policy-rc.d" "$ROOTFS/etc/resolv.conf"
  if [ -e "$ROOTFS/etc/resolv.conf.kiosk-saved" ] || [ -L "$ROOTFS/etc/resolv.conf.kiosk-saved" ]; then
    mv "$ROOTFS/etc/resolv.conf.kiosk-saved" "$ROOTFS/etc/resolv.conf"
  fi
}

stage_wheelhouse() {
  local py wheel pip_pin
  py=$(root_python)
  [ -n "$py" ] || die "cannot tell the root's Python version (/usr/bin/python3)"
  rm -rf "$WHEELS" "$WORK/pip"
  mkdir -p "$WHEELS" "$WORK/pip"
  # The project's wheel (pure Python) is built here; pip itself, pinned, is fetched to run in
  # the root.
  python3 -m pip --isolated wheel --quiet --no-deps --wheel-dir "$WHEELS" "$PROJECT"
  wheel=$(basename "$(find "$WHEELS" -name 'kiosk80-*.whl' | head -n 1)")
  pip_pin=$(grep '^pip==' "$PROJECT/deploy/constraints.txt")
  python3 -m pip --isolated download --quiet --no-deps --only-binary=:all: --dest "$WORK/pip" \
    "$pip_pin"
  mv "$WORK"/pip/pip-*.whl "$WORK/pip/pip.whl"  # run as python3 pip.whl/pip
  # Every wheel the kiosk needs, resolved by pip running on the root's own Python in the
  # chroot: the dependencies' markers (python_version, platform_machine) are the card's, not
  # the builder's (on Python 3.13 lgpio is not among them: PyPI has no wheel for it and the
  # OS's python3-lgpio is used, see provision-kiosk.sh). Pinned by the constraints, setuptools
  # and wheel too.
  say "wheels for Python $py (aarch64), resolved in the root"
  chroot_mounts
  mount_at "$ROOTFS/tmp/kiosk-wheels" --bind "$WHEELS"
  mount_at "$ROOTFS/tmp/kiosk-pip" --bind "$WORK/pip"
  cp "$PROJECT/deploy/constraints.txt" "$ROOTFS/tmp/kiosk-constraints.txt"
  # The builder fetches, so the builder's trust is used (a site's own certificate authority,
  # behind a proxy that inspects TLS, is in it; the root's may lack it).
  cp "${PIP_CERT:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}" "$ROOTFS/tmp/kiosk-ca.crt"
  host_dns_in
  local status=0
  in_chroot python3 /tmp/kiosk-pip/pip.whl/pip --isolated download --cert /tmp/kiosk-ca.crt \
    --quiet --only-binary=:all: --dest /tmp/kiosk-wheels \
    --constraint /tmp/kiosk-constraints.txt "/tmp/kiosk-wheels/${wheel}[table]" setuptools wheel \
    || status=$?
  host_dns_out
  rm -f "$ROOTFS/tmp/kiosk-constraints.txt" "$ROOTFS/tmp/kiosk-ca.crt"
  unmount_all
  [ "$status" = 0 ] || die "the wheels could not all be fetched for Python $py (pip: $status)"
  printf '%s\n' "$py" >"$WHEELS/.python"
  printf '%s\n' "$VERSION" >"$WHEELS/.version"
}

stage_install() {
  local build=/tmp/kiosk-build packages_opt=(--no-packages)
  [ "$(cat "$WHEELS/.python" 2>/dev/null)" = "$(root_python)" ] ||
    die "the wheelhouse is not for this root's Python: --from wheelhouse"
  # A card starts with one venv: an earlier install stage's are dropped.
  rm -rf "${ROOTFS:?}/var/lib/kiosk-app" "${ROOTFS:?}$build"
  mkdir -p "$ROOTFS$build"
  # The project as its files (not its .git or venv), and the wheelhouse.
  tar -C "$PROJECT" --exclude=.git --exclude=.venv --exclude='*.egg-info' \
    --exclude=__pycache__ --exclude=.demo-data -cf - . | tar -C "$ROOTFS$build" -xf -
  cp -r "$WHEELS" "$ROOTFS$build/wheelhouse"
  local key_opt=()
  if [ -n "$UPDATE_KEY" ]; then
    cp "$UPDATE_KEY" "$ROOTFS$build/update-key.pub"
    key_opt=(--update-key "$build/update-key.pub")
  fi
  # A stand-in boot partition for provision-kiosk.sh's boot config, when there is no kernel.
  mkdir -p "$ROOTFS/boot/firmware"
  [ -f "$ROOTFS/boot/firmware/cmdline.txt" ] ||
    echo "console=tty1 root=LABEL=rootfs rootfstype=ext4 fsck.repair=yes rootwait" \
      >"$ROOTFS/boot/firmware/cmdline.txt"
  chroot_mounts
  if [ -n "$BASE" ]; then
    # The base lacks some of the kiosk's OS packages: apt in the chroot, from the base's own
    # archives.
    packages_opt=()
    host_dns_in
  fi
  local wheel
  wheel=$(basename "$(find "$WHEELS" -name 'kiosk80-*.whl' | head -n 1)")
  in_chroot bash "$build/deploy/provision-kiosk.sh" --image "${packages_opt[@]}" --table 1 \
    --scorer scorer.local --source "$build/wheelhouse/$wheel" \
    --wheelhouse "$build/wheelhouse" "${key_opt[@]}"
  if [ -n "$BASE" ]; then
    host_dns_out
    in_chroot apt-get clean
  fi
  # The card's own units: the data partition grown over the card, the host keys made, the
  # clock saved (deploy/image/systemd/, deploy/image/kiosk-grow-data.sh).
  install -m 755 "$HERE/kiosk-grow-data.sh" "$ROOTFS/usr/local/sbin/kiosk-grow-data"
  local unit
  for unit in "$HERE"/systemd/*; do
    case $unit in
      *.conf) install -D -m 644 "$unit" "$ROOTFS/etc/systemd/system/fake-hwclock.service.d/${unit##*/}" ;;
      *) install -m 644 "$unit" "$ROOTFS/etc/systemd/system/${unit##*/}" ;;
    esac
  done
  in_chroot systemctl enable kiosk-grow-data.service kiosk-hostkeys.service \
    kiosk-save-clock.timer
  # The overlay root: on at boot (kiosk.overlay=1), off for maintenance (remove it).
  install -D -m 755 "$HERE/overlay-root" "$ROOTFS/etc/initramfs-tools/scripts/init-bottom/kiosk-overlay"
  install -D -m 755 "$HERE/overlay-hook" "$ROOTFS/etc/initramfs-tools/hooks/kiosk-overlay"
  local cmdline=$ROOTFS/boot/firmware/cmdline.txt
  if [ "$KERNEL" = debian ]; then
    # Debian's raspi-firmware writes config.txt and cmdline.txt anew at every kernel or
    # initramfs update, from these two files: the kiosk's lines go there, not into its output.
    cp "$PROJECT/firmware_config/config.txt" "$ROOTFS/etc/default/raspi-firmware-custom"
    echo "kiosk.overlay=1 consoleblank=0 logo.nologo quiet loglevel=3" \
      >"$ROOTFS/etc/default/raspi-extra-cmdline"
  fi
  if compgen -G "$ROOTFS/lib/modules/*" >/dev/null || compgen -G "$ROOTFS/usr/lib/modules/*" >/dev/null; then
    in_chroot update-initramfs -u -k all  # with the overlay script in it
  fi
  grep -qw kiosk.overlay=1 "$cmdline" || sed -i '1s/$/ kiosk.overlay=1/' "$cmdline"
  # One line, one space between words (Debian's raspi-firmware starts it with a space): now,
  # and after every kernel or initramfs update on the card.
  CMDLINE=$cmdline bash "$HERE/cmdline-tidy.sh"
  if [ "$KERNEL" = debian ]; then
    install -D -m 755 "$HERE/cmdline-tidy.sh" "$ROOTFS/etc/kernel/postinst.d/z51-kiosk-cmdline"
    install -D -m 755 "$HERE/cmdline-tidy.sh" "$ROOTFS/etc/initramfs/post-update.d/z51-kiosk-cmdline"
  fi
  # The CJK faces, extracted once here rather than at each card's first start (minutes on a
  # Zero 2 W), into the font cache the unit uses (XDG_CACHE_HOME=/var/lib/kiosk/cache).
  in_chroot runuser -u kiosk -- env XDG_CACHE_HOME=/var/lib/kiosk/cache \
    /opt/kiosk/venv/bin/python -c 'from kiosk.ui.fonts import font_files; print(*font_files().values())'
  # The card's own settings come from kiosk.toml: the build's placeholders go, and so do the
  # copies of the boot files as they were before (the base image is that copy).
  rm -f "$ROOTFS/etc/kiosk/kiosk.env" "$ROOTFS/etc/chrony/sources.d/kiosk-scorer.sources" \
    "$ROOTFS"/boot/firmware/*.pre-kiosk
  cp "$PROJECT/deploy/kiosk.toml.example" "$ROOTFS/boot/firmware/kiosk.toml.example"
  rm -rf "${ROOTFS:?}$build"
  scrub_identity
  unmount_all
}

stage_verify() {
  local sim=/tmp/kiosk-verify units
  chroot_mounts
  rm -rf "${ROOTFS:?}$sim"
  in_chroot /opt/kiosk/venv/bin/kiosk rules list
  in_chroot /opt/kiosk/venv/bin/kiosk simulate --data "$sim" --table 1 --ruleset xiamen-2015 \
    --hands 3 --speed 1e9
  in_chroot /opt/kiosk/venv/bin/kiosk hw check
  # lgpio, as the kiosk's user, from the unit's working directory (/run/kiosk).
  mkdir -p "$ROOTFS/run/kiosk"
  in_chroot chown kiosk:kiosk /run/kiosk
  in_chroot runuser -u kiosk -- sh -c 'cd /run/kiosk && LG_WD=/run/kiosk /opt/kiosk/venv/bin/python -c "import lgpio, kivy, gpiozero; print(\"imports ok\")"'
  # Everything `kiosk table` imports, from the [table] install alone: the app, the sync
  # client, the updater.
  in_chroot env KIVY_NO_ARGS=1 KIVY_HOME=/tmp/kivy-verify /opt/kiosk/venv/bin/python -c \
    'import kiosk.ui.app, kiosk.sync.wiring, kiosk.sync.join, kiosk.update.apply; print("table imports ok")'

  in_chroot runuser -u kiosk -- env GPIOZERO_PIN_FACTORY=mock \
    /opt/kiosk/venv/bin/kiosk hw selftest --no-window --press-timeout 2 --lang en
  units=(kiosk-table.service kiosk-notice.service kiosk-firstboot.service kiosk-update.service
         kiosk-update.timer
         kiosk-grow-data.service kiosk-hostkeys.service kiosk-save-clock.service
         kiosk-save-clock.timer)
  in_chroot systemd-analyze verify --man=no "${units[@]/#//etc/systemd/system/}"
  in_chroot systemctl is-enabled kiosk-table.service kiosk-notice.service \
    kiosk-firstboot.service kiosk-update.timer \
    kiosk-grow-data.service kiosk-hostkeys.service kiosk-save-clock.timer
  rm -rf "${ROOTFS:?}$sim" "$ROOTFS/run/kiosk"
  unmount_all
}

stage_assemble() {
  local data=$WORK/data boot_mb=512 root_mb data_mb image
  rm -rf "$OUT" "$data"
  mkdir -p "$OUT" "$data"
  # The data partition's contents move out of the root: the journal (with the extracted
  # fonts), the settings and the venvs. The bind mounts of /etc/fstab put them back.
  mv "$ROOTFS/var/lib/kiosk" "$data/kiosk"
  mv "$ROOTFS/var/lib/kiosk-app" "$data/app"
  mv "$ROOTFS/etc/kiosk" "$data/etc"
  mkdir -p "$ROOTFS/var/lib/kiosk" "$ROOTFS/var/lib/kiosk-app" "$ROOTFS/etc/kiosk" \
    "$ROOTFS/var/lib/kiosk-data" "$data/journal"
  # The boot partition's files go to its own file system.
  mkdir -p "$WORK/boot"
  cp -r "$ROOTFS/boot/firmware/." "$WORK/boot/"
  find "$ROOTFS/boot/firmware" -mindepth 1 -delete
  root_mb=$(( $(du -sm "$ROOTFS" | cut -f1) * 13 / 10 + 200 ))
  data_mb=$(( $(du -sm "$data" | cut -f1) * 13 / 10 + 256 ))
  # The labels are the official image's (bootfs, rootfs): /etc/fstab and cmdline.txt name them.
  mkfs.vfat -F 32 -n bootfs -C "$OUT/boot.vfat" $((boot_mb * 1024)) >/dev/null
  mcopy -s -i "$OUT/boot.vfat" "$WORK/boot/"* ::
  mkfs.ext4 -q -L rootfs -d "$ROOTFS" "$OUT/root.ext4" "${root_mb}M"
  mkfs.ext4 -q -L KIOSKDATA -d "$data" "$OUT/data.ext4" "${data_mb}M"
  # Put everything back, so that a later stage (or --from install) finds the rootfs whole.
  cp -r "$WORK/boot/." "$ROOTFS/boot/firmware/"
  rmdir "$ROOTFS/var/lib/kiosk" "$ROOTFS/var/lib/kiosk-app" "$ROOTFS/etc/kiosk"
  mv "$data/kiosk" "$ROOTFS/var/lib/kiosk"
  mv "$data/app" "$ROOTFS/var/lib/kiosk-app"
  mv "$data/etc" "$ROOTFS/etc/kiosk"
  rm -rf "$data" "${WORK:?}/boot"
  # The card: MBR, 4 MiB in; FAT (type c) for the firmware, then root and data (type 83). A
  # base's disk identifier is kept: its cmdline.txt names the root as PARTUUID=<id>-02.
  image=$OUT/kiosk80-$VERSION.img
  local start=8192 boot_s=$((boot_mb * 2048)) root_s=$((root_mb * 2048)) data_s=$((data_mb * 2048))
  local disk_id=""
  [ -z "$BASE" ] || disk_id=$(cat "$WORK/disk-id")
  truncate -s $(( (start + boot_s + root_s + data_s) * 512 )) "$image"
  sfdisk --quiet "$image" <<EOF
label: dos
${disk_id:+label-id: 0x$disk_id}
start=$start, size=$boot_s, type=c, bootable
start=$((start + boot_s)), size=$root_s, type=83
start=$((start + boot_s + root_s)), size=$data_s, type=83
EOF
  dd if="$OUT/boot.vfat" of="$image" bs=512 seek=$start conv=notrunc,sparse status=none
  dd if="$OUT/root.ext4" of="$image" bs=512 seek=$((start + boot_s)) conv=notrunc,sparse status=none
  dd if="$OUT/data.ext4" of="$image" bs=512 seek=$((start + boot_s + root_s)) conv=notrunc,sparse status=none
  rm -f "$OUT/boot.vfat" "$OUT/root.ext4" "$OUT/data.ext4"
  say "image: $image ($(( $(stat -c %s "$image") / 1024 / 1024 )) MiB: boot $boot_mb, root $root_mb, data $data_mb MiB)"
}

# Each stage's time is kept in its .done- file, so the times of a build made over several runs
# (one stopped by a failure, then gone on with) are all there.
started=0 cleared=0
for stage in "${STAGES[@]}"; do
  [ "$stage" != "$FROM" ] || started=1
  if [ "$started" = 0 ] && stage_done "$stage"; then
    say "== $stage: done before (--from $stage to do it again)"
  else
    started=1
    if [ "$cleared" = 0 ]; then  # a stage done again: every later one is made from it again
      cleared=1 drop=0
      for later in "${STAGES[@]}"; do
        [ "$later" != "$stage" ] || drop=1
        [ "$drop" = 0 ] || rm -f "$WORK/.done-$later"
      done
    fi
    say "== $stage"
    t0=$(date +%s)
    "stage_$stage"
    printf '%s\n' $(( $(date +%s) - t0 )) >"$WORK/.done-$stage"
    say "== $stage: $(cat "$WORK/.done-$stage") s"
  fi
  [ "$stage" != "$UNTIL" ] || break
done
for stage in "${STAGES[@]}"; do
  ! stage_done "$stage" || printf '%s %s\n' "$stage" "$(cat "$WORK/.done-$stage")"
done >"$TIMES"
say "stage times (s), in $TIMES:"
cat "$TIMES"
say_what_the_fallback_drives

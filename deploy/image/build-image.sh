#!/usr/bin/env bash
# Build the table kiosk's card image: one image for every Pi 4, Pi 5 and Zero 2 W of the hall,
# made once, written to 50 cards, each card then given its identity by one kiosk.toml on its
# boot partition (deploy/kiosk.toml.example). Needs root, debootstrap, qemu-user-static with
# binfmt (an arm64 chroot on any PC), dosfstools, mtools, fdisk and e2fsprogs, and the network
# to Debian and PyPI while it builds; the card itself installs nothing from the network.
#
#   sudo deploy/image/build-image.sh --work /var/tmp/kiosk-image
#
# Stages, each done once and kept in the work directory (run again: it goes on from the first
# stage not done; --from STAGE does that stage and the later ones again):
#   rootfs      debootstrap an arm64 Debian (bookworm) with the kiosk's OS packages
#               (deploy/packages/kiosk.txt), networking, ssh and, with --kernel debian, Debian's
#               Raspberry Pi kernel and firmware
#   wheelhouse  the project's wheel and every wheel it needs for aarch64 Python 3.11, from PyPI
#   install     deploy/provision-kiosk.sh --image inside the chroot: the venv from the
#               wheelhouse with pip --no-index, the units, udev, chrony, the boot config; the CJK
#               faces extracted into the kiosk's font cache; the overlay-root initramfs script
#   verify      inside the chroot: `kiosk rules list`, `kiosk simulate`, lgpio imported as the
#               kiosk's user from its unit's directory, the self-test on mock pins, and
#               systemd-analyze verify on the units
#   assemble    the card: a FAT boot partition, the root (read-only under a RAM overlay at run
#               time) and a data partition (KIOSKDATA: the journal, the settings, the venvs),
#               written without loop devices (mkfs.ext4 -d, mtools, sfdisk)
#
# Options:
#   --work DIR          where the stages keep their results (default /var/tmp/kiosk-image)
#   --from STAGE        do STAGE and those after it again
#   --until STAGE       stop after STAGE
#   --kernel debian|none  Debian's arm64 kernel and raspi-firmware (default), or none (to test
#                       the other stages faster; such a card does not boot). Debian bookworm's
#                       kernel boots a Pi 4 and a Zero 2 W with the upstream device trees: no Pi 5
#                       and none of Raspberry Pi's overlays (disable-bt, uart0, gpio-shutdown).
#                       For those, the kernel must come from Raspberry Pi's own archive, which
#                       this build does not reach (see deploy/README.md)
#   --update-key FILE   the fleet's public update key, so the cards take the scorer's updates
#   --suite NAME        Debian suite (default bookworm)
#   --mirror URL        Debian mirror (default http://deb.debian.org/debian)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PROJECT=$(cd "$HERE/../.." && pwd)
WORK=/var/tmp/kiosk-image FROM="" UNTIL="" KERNEL=debian UPDATE_KEY="" SUITE=bookworm
MIRROR=http://deb.debian.org/debian
STAGES=(rootfs wheelhouse install verify assemble)
usage() { sed -n '2,/^set -e/s/^# \{0,1\}//p' "$0"; exit "${1:-2}"; }
die() { printf 'build-image: %s\n' "$*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --work) WORK=${2-}; shift ;;
    --from) FROM=${2-}; shift ;;
    --until) UNTIL=${2-}; shift ;;
    --kernel) KERNEL=${2-}; shift ;;
    --update-key) UPDATE_KEY=${2-}; shift ;;
    --suite) SUITE=${2-}; shift ;;
    --mirror) MIRROR=${2-}; shift ;;
    -h|--help) usage 0 ;;
    *) printf 'unknown option: %s\n' "$1" >&2; usage ;;
  esac
  shift
done
case $KERNEL in debian|none) ;; *) die "--kernel debian or none" ;; esac
for s in "$FROM" "$UNTIL"; do
  [ -z "$s" ] || [[ " ${STAGES[*]} " == *" $s "* ]] || die "no stage $s (${STAGES[*]})"
done
[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, chroot, file ownership)"
for tool in debootstrap mkfs.vfat mcopy mkfs.ext4 sfdisk; do
  command -v "$tool" >/dev/null || die "$tool is missing: apt-get install debootstrap dosfstools mtools fdisk e2fsprogs"
done
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || [ "$(uname -m)" = aarch64 ] ||
  die "no arm64 emulation: apt-get install qemu-user-static binfmt-support (and mount binfmt_misc)"

ROOTFS=$WORK/rootfs WHEELS=$WORK/wheelhouse OUT=$WORK/out
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' "$PROJECT/pyproject.toml" | head -n 1)
mkdir -p "$WORK"
TIMES=$WORK/stage-times.txt

stage_done() { [ -f "$WORK/.done-$1" ]; }
say() { printf '%s\n' "$*"; }

# Mounts the chroot needs while a stage runs in it; always undone.
MOUNTED=()
chroot_mounts() {
  local m
  for m in proc sys dev dev/pts; do
    mkdir -p "$ROOTFS/$m"
    case $m in
      proc) mount -t proc proc "$ROOTFS/proc" ;;
      sys) mount -t sysfs sys "$ROOTFS/sys" ;;
      dev) mount --bind /dev "$ROOTFS/dev" ;;
      dev/pts) mount --bind /dev/pts "$ROOTFS/dev/pts" ;;
    esac
    MOUNTED=("$ROOTFS/$m" "${MOUNTED[@]}")
  done
}
unmount_all() {
  local m
  for m in "${MOUNTED[@]}"; do umount -l "$m" 2>/dev/null || true; done
  MOUNTED=()
}
trap unmount_all EXIT
in_chroot() { chroot "$ROOTFS" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }

stage_rootfs() {
  local packages
  rm -rf "$ROOTFS"
  packages=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PROJECT/deploy/packages/kiosk.txt" |
    tr '\n' ',')
  packages+="systemd-sysv,udev,kmod,dbus,iproute2,systemd-timesyncd-,openssh-server,sudo,"
  packages+="wpasupplicant,fake-hwclock,ca-certificates,python3,initramfs-tools,dosfstools,"
  packages+="e2fsprogs,locales,tzdata,systemd-resolved"
  [ "$KERNEL" = none ] || packages+=",linux-image-arm64,raspi-firmware,firmware-brcm80211"
  packages=${packages//systemd-timesyncd-,/}
  debootstrap --arch=arm64 --variant=minbase --components=main,non-free-firmware \
    --include="$packages" "$SUITE" "$ROOTFS" "$MIRROR"
  # Networking: DHCP on the cable and on Wi-Fi (wpa_supplicant-wlan0.conf from kiosk.toml).
  mkdir -p "$ROOTFS/etc/systemd/network"
  printf '[Match]\nName=e* wlan*\n\n[Network]\nDHCP=yes\nMulticastDNS=yes\n' \
    >"$ROOTFS/etc/systemd/network/20-kiosk.network"
  in_chroot systemctl enable systemd-networkd.service systemd-resolved.service \
    wpa_supplicant@wlan0.service ssh.service
  echo kiosk >"$ROOTFS/etc/hostname"
  # SSH with keys only: the technician's from kiosk.toml (ssh_key), kept on the data partition.
  mkdir -p "$ROOTFS/etc/ssh/sshd_config.d"
  printf 'PasswordAuthentication no\nPermitRootLogin prohibit-password\nAuthorizedKeysFile .ssh/authorized_keys /etc/kiosk/ssh_authorized_keys\n' \
    >"$ROOTFS/etc/ssh/sshd_config.d/kiosk.conf"
  printf 'deb %s %s main non-free-firmware\n' "$MIRROR" "$SUITE" >"$ROOTFS/etc/apt/sources.list"
  # Where the partitions go (LABELs, as the assemble stage makes them). The data partition
  # holds everything that changes: the journal, the settings and the venvs, bound where the
  # system expects them, so the root can stay read-only.
  cat >"$ROOTFS/etc/fstab" <<'EOF'
LABEL=rootfs      /                   ext4  defaults,noatime                0 1
LABEL=bootfs      /boot/firmware      vfat  defaults,noatime,ro,nofail      0 2
LABEL=KIOSKDATA   /var/lib/kiosk-data ext4  defaults,noatime,commit=5       0 2
/var/lib/kiosk-data/kiosk /var/lib/kiosk     none bind,x-systemd.requires-mounts-for=/var/lib/kiosk-data 0 0
/var/lib/kiosk-data/app   /var/lib/kiosk-app none bind,x-systemd.requires-mounts-for=/var/lib/kiosk-data 0 0
/var/lib/kiosk-data/etc   /etc/kiosk         none bind,x-systemd.requires-mounts-for=/var/lib/kiosk-data 0 0
EOF
  if [ "$KERNEL" = debian ]; then
    # raspi-firmware writes cmdline.txt from this: the root by label, the overlay on.
    cat >"$ROOTFS/etc/default/raspi-firmware" <<'EOF'
ROOTPART=LABEL=rootfs
CONSOLES="tty1"
EOF
  fi
  rm -rf "$ROOTFS/var/cache/apt/archives/"*.deb
}

stage_wheelhouse() {
  rm -rf "$WHEELS"
  mkdir -p "$WHEELS"
  python3 -m pip --isolated wheel --quiet --no-deps --wheel-dir "$WHEELS" "$PROJECT"
  local wheel
  wheel=$(find "$WHEELS" -name 'kiosk80-*.whl' | head -n 1)
  # Every wheel the kiosk needs, for the card's Python (Debian bookworm: CPython 3.11, aarch64).
  python3 -m pip --isolated download --quiet --dest "$WHEELS" --only-binary=:all: \
    --python-version 3.11 --implementation cp --abi cp311 \
    --platform manylinux_2_36_aarch64 --platform manylinux_2_34_aarch64 \
    --platform manylinux_2_28_aarch64 --platform manylinux_2_17_aarch64 \
    --platform manylinux2014_aarch64 --platform linux_aarch64 \
    --constraint "$PROJECT/deploy/constraints.txt" "${wheel}[table]" setuptools wheel
}

stage_install() {
  local build=/tmp/kiosk-build
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
  local wheel
  wheel=$(basename "$(find "$WHEELS" -name 'kiosk80-*.whl' | head -n 1)")
  in_chroot bash "$build/deploy/provision-kiosk.sh" --image --no-packages --table 1 \
    --scorer scorer.local --source "$build/wheelhouse/$wheel" \
    --wheelhouse "$build/wheelhouse" "${key_opt[@]}"
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
    in_chroot update-initramfs -u -k all
  fi
  grep -qw kiosk.overlay=1 "$cmdline" || sed -i '1s/$/ kiosk.overlay=1/' "$cmdline"
  # The CJK faces, extracted once here rather than at each card's first start (minutes on a
  # Zero 2 W), into the font cache the unit uses (XDG_CACHE_HOME=/var/lib/kiosk/cache).
  in_chroot runuser -u kiosk -- env XDG_CACHE_HOME=/var/lib/kiosk/cache \
    /opt/kiosk/venv/bin/python -c 'from kiosk.ui.fonts import font_files; print(*font_files().values())'
  # The card's own settings come from kiosk.toml: the build's placeholders go.
  rm -f "$ROOTFS/etc/kiosk/kiosk.env" "$ROOTFS/etc/chrony/sources.d/kiosk-scorer.sources"
  cp "$PROJECT/deploy/kiosk.toml.example" "$ROOTFS/boot/firmware/kiosk.toml.example"
  rm -rf "${ROOTFS:?}$build"
  unmount_all
}

stage_verify() {
  local sim=/tmp/kiosk-verify
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
  in_chroot systemd-analyze verify --man=no /etc/systemd/system/kiosk-table.service \
    /etc/systemd/system/kiosk-firstboot.service /etc/systemd/system/kiosk-update.service \
    /etc/systemd/system/kiosk-update.timer
  in_chroot systemctl is-enabled kiosk-table.service kiosk-firstboot.service kiosk-update.timer
  rm -rf "${ROOTFS:?}$sim" "$ROOTFS/run/kiosk"
  unmount_all
}

stage_assemble() {
  local data=$WORK/data boot_mb=256 root_mb data_mb image
  rm -rf "$OUT" "$data"
  mkdir -p "$OUT" "$data"
  # The data partition's contents move out of the root: the journal (with the extracted
  # fonts), the settings and the venvs. The bind mounts of /etc/fstab put them back.
  mv "$ROOTFS/var/lib/kiosk" "$data/kiosk"
  mv "$ROOTFS/var/lib/kiosk-app" "$data/app"
  mv "$ROOTFS/etc/kiosk" "$data/etc"
  mkdir -p "$ROOTFS/var/lib/kiosk" "$ROOTFS/var/lib/kiosk-app" "$ROOTFS/etc/kiosk" \
    "$ROOTFS/var/lib/kiosk-data"
  # The boot partition's files go to its own file system.
  mkdir -p "$WORK/boot"
  cp -r "$ROOTFS/boot/firmware/." "$WORK/boot/"
  find "$ROOTFS/boot/firmware" -mindepth 1 -delete
  root_mb=$(( $(du -sm "$ROOTFS" | cut -f1) * 13 / 10 + 200 ))
  data_mb=$(( $(du -sm "$data" | cut -f1) * 13 / 10 + 256 ))
  mkfs.vfat -n BOOTFS -C "$OUT/boot.vfat" $((boot_mb * 1024)) >/dev/null
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
  # The card: MBR, 4 MiB in; FAT (type c) for the firmware, then root and data (type 83).
  image=$OUT/kiosk80-$VERSION.img
  local start=8192 boot_s=$((boot_mb * 2048)) root_s=$((root_mb * 2048)) data_s=$((data_mb * 2048))
  truncate -s $(( (start + boot_s + root_s + data_s) * 512 )) "$image"
  sfdisk --quiet "$image" <<EOF
label: dos
start=$start, size=$boot_s, type=c, bootable
start=$((start + boot_s)), size=$root_s, type=83
start=$((start + boot_s + root_s)), size=$data_s, type=83
EOF
  dd if="$OUT/boot.vfat" of="$image" bs=512 seek=$start conv=notrunc,sparse status=none
  dd if="$OUT/root.ext4" of="$image" bs=512 seek=$((start + boot_s)) conv=notrunc,sparse status=none
  dd if="$OUT/data.ext4" of="$image" bs=512 seek=$((start + boot_s + root_s)) conv=notrunc,sparse status=none
  rm -f "$OUT/boot.vfat" "$OUT/root.ext4"
  # The data partition as built is kept beside the image (the tests read it), small as it is.
  say "image: $image ($(( $(stat -c %s "$image") / 1024 / 1024 )) MiB: boot $boot_mb, root $root_mb, data $data_mb MiB)"
}

started=0
: >"$TIMES.new"
for stage in "${STAGES[@]}"; do
  [ "$stage" != "$FROM" ] || started=1
  if [ "$started" = 0 ] && stage_done "$stage"; then
    say "== $stage: done before (--from $stage to do it again)"
    grep "^$stage " "$TIMES" >>"$TIMES.new" 2>/dev/null || true
  else
    started=1
    say "== $stage"
    rm -f "$WORK/.done-$stage"
    t0=$(date +%s)
    "stage_$stage"
    touch "$WORK/.done-$stage"
    printf '%s %s\n' "$stage" $(( $(date +%s) - t0 )) >>"$TIMES.new"
    say "== $stage: $(( $(date +%s) - t0 )) s"
  fi
  [ "$stage" != "$UNTIL" ] || break
done
mv "$TIMES.new" "$TIMES"
say "stage times (s), in $TIMES:"
cat "$TIMES"

#!/usr/bin/env bash
# A stand-in for the Raspberry Pi OS Lite (64-bit) image, made here because this machine cannot
# download the real one: the tests of `build-image.sh --base` customise it exactly as a deployer's
# `make image BASE=…img.xz` customises the official file. It has the official image's shape, the
# parts the build touches: an MBR card with a FAT32 partition labelled `bootfs` (firmware,
# config.txt and cmdline.txt as a fresh image has them, overlays/) and an ext4 root labelled
# `rootfs` holding an arm64 Debian userland with what Lite brings (systemd, NetworkManager,
# openssh-server, fake-hwclock, python3), an /etc/fstab by PARTUUID, and a machine-id and SSH
# host keys of its own, which a card image must not copy to fifty cards. No kernel (Raspberry
# Pi's archive is out of reach): its files are placeholders, so the result is read, not booted.
#
#   tests/pi_os_base.sh WORK OUT.img.xz [SUITE]
#
# The debootstrap is kept in WORK/pi-base-rootfs (minutes under qemu); the image is made anew.
set -euo pipefail

WORK=${1:?WORK dir} OUT=${2:?output .img.xz} SUITE=${3:-bookworm}
MIRROR=${KIOSK_MIRROR:-http://deb.debian.org/debian}
ROOTFS=$WORK/pi-base-rootfs
DISKID=4e639091  # the disk identifier of the MBR, as in PARTUUID=4e639091-02
# A stand-in made by this very script is kept (its file systems' UUIDs and times would differ
# if made again, and the image build would then start over from its first stage).
if [ -f "$OUT" ] && [ "$OUT" -nt "${BASH_SOURCE[0]}" ]; then
  printf 'base image: %s (kept)\n' "$OUT"
  exit 0
fi

if [ ! -f "$WORK/.done-pi-base-rootfs" ]; then
  rm -rf "$ROOTFS"
  debootstrap --arch=arm64 --variant=minbase \
    --include=systemd-sysv,libpam-systemd,udev,kmod,dbus,iproute2,openssh-server,sudo,fake-hwclock,python3,python3-venv,network-manager,ca-certificates,initramfs-tools,locales,tzdata,fdisk,e2fsprogs \
    "$SUITE" "$ROOTFS" "$MIRROR"
  rm -rf "$ROOTFS/var/cache/apt/archives/"*.deb
  touch "$WORK/.done-pi-base-rootfs"
fi

stage=$WORK/pi-base-stage
rm -rf "$stage"
mkdir -p "$stage/boot/overlays"
# The boot partition as Raspberry Pi OS Bookworm ships it (the config.txt of a fresh image).
cat >"$stage/boot/config.txt" <<'EOF'
# For more options and information see
# http://rptl.io/configtxt

dtparam=audio=on
camera_auto_detect=1
display_auto_detect=1
auto_initramfs=1
dtoverlay=vc4-kms-v3d
max_framebuffers=2
disable_fw_kms_setup=1
arm_64bit=1
disable_overscan=1
arm_boost=1

[cm4]
otg_mode=1

[cm5]
dtoverlay=dwc2,dr_mode=host

[all]
EOF
printf 'console=serial0,115200 console=tty1 root=PARTUUID=%s-02 rootfstype=ext4 fsck.repair=yes rootwait quiet init=/usr/lib/raspberrypi-sys-mods/firstboot\n' \
  "$DISKID" >"$stage/boot/cmdline.txt"
for f in kernel8.img kernel_2712.img initramfs8 initramfs_2712 start4.elf fixup4.dat \
    bootcode.bin bcm2711-rpi-4-b.dtb bcm2712-rpi-5-b.dtb bcm2710-rpi-zero-2-w.dtb \
    overlays/disable-bt.dtbo overlays/gpio-shutdown.dtbo overlays/uart0.dtbo \
    overlays/vc4-kms-v3d.dtbo overlays/vc4-kms-dsi-7inch.dtbo \
    overlays/vc4-kms-dsi-ili9881-7inch.dtbo overlays/overlay_map.dtb; do
  printf 'placeholder %s\n' "$f" >"$stage/boot/$f"
done
# The root: what Lite has of its own (fstab by PARTUUID, a machine-id, SSH host keys).
cat >"$ROOTFS/etc/fstab" <<EOF
proc            /proc           proc    defaults          0       0
PARTUUID=$DISKID-01  /boot/firmware  vfat    defaults          0       2
PARTUUID=$DISKID-02  /               ext4    defaults,noatime  0       1
EOF
echo raspberrypi >"$ROOTFS/etc/hostname"
# Raspberry Pi OS's own first-boot units (raspberrypi-sys-mods, userconf-pi), enabled as the
# official image has them: the user wizard that holds the console, the host keys made in /etc.
for unit in userconfig regenerate_ssh_host_keys; do
  printf '[Unit]\nDescription=stand-in for Raspberry Pi OS'"'"'s %s\n[Service]\nType=oneshot\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n' \
    "$unit" >"$ROOTFS/usr/lib/systemd/system/$unit.service"
  ln -sfn "/usr/lib/systemd/system/$unit.service" \
    "$ROOTFS/etc/systemd/system/multi-user.target.wants/$unit.service"
done
printf '%s\n' 0123456789abcdef0123456789abcdef >"$ROOTFS/etc/machine-id"
[ -f "$ROOTFS/etc/ssh/ssh_host_ed25519_key" ] ||
  chroot "$ROOTFS" /usr/bin/ssh-keygen -A >/dev/null
mkdir -p "$ROOTFS/boot/firmware"

boot_mb=512
root_mb=$(( $(du -sm "$ROOTFS" | cut -f1) * 12 / 10 + 64 ))
img=$WORK/pi-base.img
rm -f "$img" "$stage/boot.vfat" "$stage/root.ext4"
mkfs.vfat -F 32 -n bootfs -C "$stage/boot.vfat" $((boot_mb * 1024)) >/dev/null
mcopy -s -i "$stage/boot.vfat" "$stage/boot/"* ::
mkfs.ext4 -q -L rootfs -d "$ROOTFS" "$stage/root.ext4" "${root_mb}M"
start=8192 boot_s=$((boot_mb * 2048)) root_s=$((root_mb * 2048))
truncate -s $(( (start + boot_s + root_s) * 512 )) "$img"
sfdisk --quiet "$img" <<EOF
label: dos
label-id: 0x$DISKID
start=$start, size=$boot_s, type=c
start=$((start + boot_s)), size=$root_s, type=83
EOF
dd if="$stage/boot.vfat" of="$img" bs=512 seek=$start conv=notrunc,sparse status=none
dd if="$stage/root.ext4" of="$img" bs=512 seek=$((start + boot_s)) conv=notrunc,sparse status=none
rm -rf "$stage"
xz -T2 -0 -f -c "$img" >"$OUT"
rm -f "$img"
printf 'base image: %s (%s MiB)\n' "$OUT" $(( $(stat -c %s "$OUT") / 1024 / 1024 ))

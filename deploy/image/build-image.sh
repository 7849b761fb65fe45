#!/usr/bin/env bash
# 构建牌桌平板的存储卡镜像：全场每张卡都写同一个镜像，再由卡的启动分区上的一个 kiosk.toml
# 给出各自的身份（见 deploy/kiosk.toml.example）。
#
# 两种构建方式，结果相同（一张卡，分区为 bootfs、rootfs 和 KIOSKDATA）：
#
#   sudo deploy/image/build-image.sh --base 2024-11-19-raspios-bookworm-arm64-lite.img.xz
#       推荐。在你下载的官方 Raspberry Pi OS Lite（64 位）镜像（Bookworm 或 Trixie）上定制：
#       用树莓派自己的内核和固件，所以支持全部机型（Pi 4、Pi 5、Zero 2 W；7 寸屏和
#       Touch Display 2；排针 UART 已让出蓝牙；关机按钮），做法与 sdm 和 rpi-image-gen 相同。
#   sudo deploy/image/build-image.sh
#       备用方案，只用 Debian（debootstrap、Debian 的 arm64 内核和 raspi-firmware），给拿不到
#       官方镜像的人用。支持的机型较少：带 HDMI 触摸屏的 Pi 4（有线网络，或用 Debian 的
#       firmware-brcm80211 上 Wi-Fi），Zero 2 W 只能接 USB 以太网转接器（Debian 没有它的
#       Wi-Fi 芯片固件）；不支持 Pi 5 和 DSI 显示屏，也没有树莓派的 overlay（disable-bt、
#       gpio-shutdown），所以不能用排针 UART 打印机（请用 USB 打印机：printer = "usb"），
#       也没有关机按钮。
#
# 需要 root、qemu-user-static 和 binfmt（在任何 PC 上运行 arm64 的 chroot）、debootstrap
# （备用方案）、dosfstools、mtools、fdisk、e2fsprogs 和 xz-utils，构建时还要能连上 PyPI
# （以及 Debian 或底包自己的软件源）；卡本身不从网络安装任何东西。
#
# 各阶段只做一次，结果留在工作目录里（再运行时从第一个没做完的阶段继续；
# --from STAGE 重做该阶段及其后各阶段）：
#   rootfs      从底包镜像复制出根分区和启动分区的文件（只读 loop 挂载），或用 debootstrap
#               做一个 arm64 Debian，带平板要的软件包和 Debian 的内核
#   system      每张卡共有、又不能互相复制的东西：空的 machine-id，没有 SSH 主机密钥（每张卡
#               第一次启动时在数据分区上自己生成），按卷标挂载分区，保存的时钟放在数据分区；
#               关掉底包自己的首次启动向导和根分区扩容（改为扩大数据分区）；备用方案的网络
#   wheelhouse  项目的 wheel，以及它在根分区的 Python（Bookworm 为 3.11，Trixie 为 3.13）和
#               aarch64 上需要的全部 wheel，来自 PyPI，版本由 constraints.txt 固定；项目版本
#               变了就重做（发布新版本：--base 与做卡时相同，加 --until wheelhouse；
#               之后的阶段也会随之重做）
#   install     在 chroot 中运行 deploy/provision-kiosk.sh --image：补装缺少的系统软件包，
#               用 pip --no-index 从 wheelhouse 装 venv，装服务单元、udev、chrony、启动配置；
#               卡自己的服务单元（数据分区扩大、主机密钥、时钟）；把中日韩字体预先解出到平板的
#               字体缓存；overlay-root 的 initramfs 脚本
#   verify      在 chroot 中检查：`kiosk rules list`、`kiosk simulate`；以平板的用户、在其服务的
#               工作目录下导入 lgpio；在模拟引脚上跑自检；用 `systemd-analyze verify` 检查
#               各服务单元
#   assemble    拼成整张卡：FAT 启动分区（卷标 bootfs）、根分区（卷标 rootfs，运行时以只读
#               方式放在内存 overlay 之下）和数据分区 KIOSKDATA（日志、设置、venv、卡的身份），
#               不用 loop 设备写入（mkfs.ext4 -d、mtools、sfdisk）
#
# 选项：
#   --base FILE         官方的 Raspberry Pi OS Lite 64 位镜像（.img.xz 或 .img）
#   --work DIR          各阶段存放结果的目录（默认 /var/tmp/kiosk-image）
#   --from STAGE        重做 STAGE 及其后各阶段
#   --until STAGE       做完 STAGE 就停
#   --kernel debian|none  备用方案的内核：Debian 的 arm64 内核和 raspi-firmware（默认），
#                       或 none（只为更快地测试其他阶段；这样的卡不能启动）。
#                       不能与 --base 同用，那时内核来自树莓派
#   --update-key FILE   全部平板共用的更新公钥，卡才会安装记分台推送的更新
#   --suite NAME        备用方案的 Debian 版本代号（默认 bookworm）
#   --mirror URL        备用方案的 Debian 软件源（默认 http://deb.debian.org/debian）
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PROJECT=$(cd "$HERE/../.." && pwd)
WORK=/var/tmp/kiosk-image FROM="" UNTIL="" KERNEL=debian UPDATE_KEY="" SUITE=bookworm BASE=""
MIRROR=http://deb.debian.org/debian
STAGES=(rootfs system wheelhouse install verify assemble)
usage() { sed -n '2,/^set -e/s/^# \{0,1\}//p' "$0"; exit "${1:-2}"; }
die() { printf 'build-image：%s\n' "$*" >&2; exit 2; }
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
    *) printf '未知选项：%s\n' "$1" >&2; usage ;;
  esac
  shift
done
case $KERNEL in debian|none) ;; *) die "--kernel 只能是 debian 或 none" ;; esac
if [ -n "$BASE" ]; then
  [ -z "$kernel_opt" ] || die "--kernel 只用于 Debian 备用方案；用 --base 时内核来自树莓派：请去掉 --kernel"
  [ -f "$BASE" ] || die "--base ${BASE}：没有这个文件（应是下载的 Raspberry Pi OS Lite 64 位 .img.xz）"
  BASE=$(realpath "$BASE")
  KERNEL=base
fi
for s in "$FROM" "$UNTIL"; do
  [ -z "$s" ] || [[ " ${STAGES[*]} " == *" $s "* ]] || die "没有 $s 这个阶段（可选：${STAGES[*]}）"
done
[ -z "$UPDATE_KEY" ] || grep -q "BEGIN PUBLIC KEY" "$UPDATE_KEY" 2>/dev/null ||
  die "--update-key ${UPDATE_KEY}：请给 update-key.pub（\`kiosk fleet keygen\` 生成的公钥）"
[ "$(id -u)" -eq 0 ] || die "需要 root 权限（挂载、chroot、文件属主）：请用 sudo 运行"
tools=(mkfs.vfat mcopy mkfs.ext4 sfdisk xz blkid)
[ -n "$BASE" ] || tools+=(debootstrap)
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null ||
    die "缺少 ${tool}：请先运行 apt-get install debootstrap dosfstools mtools fdisk e2fsprogs xz-utils"
done
# The builder's own python3 builds the project's wheel and fetches pip (the wheelhouse stage):
# said now, not after the minutes the stages before it take.
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null ||
  die "本机的 python3 要 3.11 或更高（项目的 wheel 由它生成）：请在 Debian 12、Ubuntu 24.04 或更新的系统上构建"
python3 -m pip --version >/dev/null 2>&1 ||
  die "本机的 python3 没有 pip（项目的 wheel 由它生成）：请先运行 apt-get install python3-pip"
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || [ "$(uname -m)" = aarch64 ] ||
  die "本机不能运行 arm64 程序：请先运行 apt-get install qemu-user-static binfmt-support（并挂载 binfmt_misc）"

ROOTFS=$WORK/rootfs WHEELS=$WORK/wheelhouse OUT=$WORK/out
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' "$PROJECT/pyproject.toml" | head -n 1)
mkdir -p "$WORK"
TIMES=$WORK/stage-times.txt
# What the rootfs stage was made from: a later run with another base starts again.
SOURCE_ID=${BASE:+base $(stat -c '%s %Y' "$BASE") $(basename "$BASE")}
SOURCE_ID=${SOURCE_ID:-debian $SUITE $KERNEL}
if [ -f "$WORK/source" ] && [ "$(cat "$WORK/source")" != "$SOURCE_ID" ] && [ -z "$FROM" ]; then
  say_src=$(cat "$WORK/source")
  printf 'build-image：%s 里是另一次构建（%s）：从 rootfs 阶段重新构建\n' "$WORK" "$say_src"
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
  local words="Debian 备用方案（没有 --base）：这张卡只支持带 HDMI 触摸屏的 Pi 4（有线或 Wi-Fi），"
  words+="以及接 USB 以太网转接器的 Zero 2 W；不支持 Pi 5、DSI 显示屏和排针 UART 打印机"
  words+="（请用 printer = \"usb\"），也没有关机按钮。要支持全部机型，"
  words+="请用 --base 加官方 Raspberry Pi OS Lite 镜像构建。"
  say "$words"
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
  say "解压 $BASE"
  case $BASE in
    *.xz) xz -dc "$BASE" >"$img" ;;
    *) cp --sparse=always "$BASE" "$img" ;;
  esac
  read -r -a boot <<<"$(partition "$img" 1)"
  read -r -a root <<<"$(partition "$img" 2)"
  if [ ${#boot[@]} -ne 2 ] || [ ${#root[@]} -ne 2 ]; then
    die "${BASE}：不是 Raspberry Pi OS 镜像（没有启动分区和根分区）：请用官方下载的 Raspberry Pi OS Lite（64 位）"
  fi
  # The official image's shape: a FAT partition labelled bootfs, an ext4 one labelled rootfs.
  label=$(blkid -p -O $((boot[0] * 512)) -S $((boot[1] * 512)) -s LABEL -o value "$img" || true)
  [ "$label" = bootfs ] || die "${BASE}：第一个分区不是 Raspberry Pi OS 的 bootfs（它的卷标是 ${label}）：请用官方镜像，原样不要改"
  label=$(blkid -p -O $((root[0] * 512)) -S $((root[1] * 512)) -s LABEL -o value "$img" || true)
  [ "$label" = rootfs ] || die "${BASE}：第二个分区不是 Raspberry Pi OS 的 rootfs（它的卷标是 ${label}）：请用官方镜像，原样不要改"
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
  [ -x "$ROOTFS/usr/bin/python3" ] || die "${BASE}：根分区里没有 python3：请用官方的 Raspberry Pi OS Lite（64 位）"
  case $(chroot "$ROOTFS" /usr/bin/dpkg --print-architecture) in
    arm64) ;;
    *) die "${BASE}：不是 64 位镜像（Kivy 没有 32 位 ARM 的 wheel）：请用 Raspberry Pi OS Lite（64 位）" ;;
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
  [ -n "$py" ] || die "看不出根分区的 Python 版本（/usr/bin/python3）：请加 --from rootfs 重新构建"
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
  say "为 Python ${py}（aarch64）准备 wheel，在根分区中解析依赖"
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
  [ "$status" = 0 ] || die "没能为 Python $py 下载全部 wheel（pip 退出码 ${status}）：请检查能否连上 PyPI，再运行一次（从 wheelhouse 阶段继续）"
  printf '%s\n' "$py" >"$WHEELS/.python"
  printf '%s\n' "$VERSION" >"$WHEELS/.version"
}

stage_install() {
  local build=/tmp/kiosk-build packages_opt=(--no-packages)
  [ "$(cat "$WHEELS/.python" 2>/dev/null)" = "$(root_python)" ] ||
    die "wheelhouse 不是为这个根分区的 Python 准备的：请加 --from wheelhouse 重新构建"
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
  in_chroot runuser -u kiosk -- sh -c 'cd /run/kiosk && LG_WD=/run/kiosk /opt/kiosk/venv/bin/python -c "import lgpio, kivy, gpiozero; print(\"导入正常：lgpio、kivy、gpiozero\")"'
  # Everything `kiosk table` imports, from the [table] install alone: the app, the sync
  # client, the updater.
  in_chroot env KIVY_NO_ARGS=1 KIVY_HOME=/tmp/kivy-verify /opt/kiosk/venv/bin/python -c \
    'import kiosk.ui.app, kiosk.sync.wiring, kiosk.sync.join, kiosk.update.apply; print("kiosk table 要用的模块导入正常")'

  in_chroot runuser -u kiosk -- env GPIOZERO_PIN_FACTORY=mock \
    /opt/kiosk/venv/bin/kiosk hw selftest --no-window --press-timeout 2
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
  say "镜像：${image}（$(( $(stat -c %s "$image") / 1024 / 1024 )) MiB：启动分区 ${boot_mb}、根分区 ${root_mb}、数据分区 $data_mb MiB）"
}

# Each stage's time is kept in its .done- file, so the times of a build made over several runs
# (one stopped by a failure, then gone on with) are all there.
started=0 cleared=0
for stage in "${STAGES[@]}"; do
  [ "$stage" != "$FROM" ] || started=1
  if [ "$started" = 0 ] && stage_done "$stage"; then
    say "== ${stage}：之前已完成（要重做请加 --from ${stage}）"
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
    say "== ${stage}：$(cat "$WORK/.done-$stage") 秒"
  fi
  [ "$stage" != "$UNTIL" ] || break
done
for stage in "${STAGES[@]}"; do
  ! stage_done "$stage" || printf '%s %s\n' "$stage" "$(cat "$WORK/.done-$stage")"
done >"$TIMES"
say "各阶段用时（秒），记在 ${TIMES}："
cat "$TIMES"
say_what_the_fallback_drives

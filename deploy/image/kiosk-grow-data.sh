#!/usr/bin/env bash
# Installed as /usr/local/sbin/kiosk-grow-data; run at every boot by kiosk-grow-data.service.
# The card image's data partition (KIOSKDATA: the journal, the settings, the venvs) is made
# small, and is the card's last partition: here it grows over the rest of the card, and its
# file system with it (online, while mounted). One fleet update needs room for a second venv
# beside the running one; on the image's small partition the second update would not fit.
# When it fills the card already, growpart says NOCHANGE and nothing is written.
#
#   kiosk-grow-data [DISK PARTITION DEVICE]
#
# Without arguments: the partition mounted at /var/lib/kiosk-data, its number and its disk.
set -euo pipefail

if [ $# -eq 3 ]; then
  disk=$1 part=$2 dev=$3
else
  dev=$(findmnt -n -o SOURCE --mountpoint /var/lib/kiosk-data) ||
    { echo "kiosk-grow-data：/var/lib/kiosk-data 没有挂载，数据分区无法扩大：请检查存储卡上的 KIOSKDATA 分区和 /etc/fstab" >&2; exit 1; }
  name=$(basename "$(readlink -f "$dev")")
  part=$(cat "/sys/class/block/$name/partition")
  disk=/dev/$(basename "$(readlink -f "/sys/class/block/$name/..")")
fi
if ! out=$(growpart "$disk" "$part" 2>&1); then
  case $out in
    NOCHANGE*) echo "kiosk-grow-data：数据分区已占满整张存储卡，无需扩大"; exit 0 ;;
    *) printf 'kiosk-grow-data：growpart 没能扩大数据分区：%s\n' "$out" >&2; exit 1 ;;
  esac
fi
printf '%s\n' "$out"
# Mounted (the unit): resized online. Not mounted (a card image on a PC): checked first, as
# resize2fs asks.
findmnt -n --source "$dev" >/dev/null || e2fsck -f -p "$dev"
resize2fs "$dev"

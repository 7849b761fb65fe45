#!/usr/bin/env bash
# Installed as /etc/kernel/postinst.d/z51-kiosk-cmdline and
# /etc/initramfs/post-update.d/z51-kiosk-cmdline on the Debian-built card, and run by the
# image build on every card: cmdline.txt made one line with one space between its words.
# Debian's raspi-firmware hook (z50, run just before this one at every kernel or initramfs
# update) writes the line with a space in front of it; the firmware hands the line to the
# kernel as it is. CMDLINE names another file (the tests).
set -euo pipefail
file=${CMDLINE:-/boot/firmware/cmdline.txt}
[ -f "$file" ] || exit 0
read -r -a words < <(tr '\n\t' '  ' <"$file") || true
line="${words[*]}"
[ "$(cat "$file")" = "$line" ] && [ "$(wc -l <"$file")" -eq 1 ] && exit 0
printf '%s\n' "$line" >"$file.kiosk-new"
mv -f "$file.kiosk-new" "$file"

#!/usr/bin/env bash
# The OS packages the tests need: a virtual screen for real Kivy windows (Xvfb, Mesa's software
# GL), the CJK font, libmtdev for Kivy's input providers, shellcheck and systemd
# (systemd-analyze) for the deploy/ scripts and units, Chromium for the hall page (Playwright
# drives it; no browser download), iproute2 for the mDNS test's network namespaces, Pango for
# WeasyPrint's PDF pages, poppler-utils (pdftoppm, pdftotext) to check them and x11-apps (xwd)
# to see what the hall TV's screen shows, xdotool for taps made by the X server's pointer on the
# kiosk's window, a C compiler for the scorer benchmark's slow disk
# (bench/slow_fsync.c), and the card image's file-system tools (mkfs.vfat, sfdisk, mkfs.ext4,
# growpart) for the tests of its parts (tests/test_image_parts.py). With the argument `image`,
# also what building the whole card needs (`make image`, `make image-test`): debootstrap,
# mtools, xz, qemu-user-static with binfmt for the arm64 root, and pip for the builder's own
# python3 (it makes the project's wheel; Debian's python3 comes without it).
# Installed with apt-get when root;
# otherwise listed, and the tests that need them fail under CI=true (skip elsewhere).
set -euo pipefail
packages=(xvfb xauth libgl1-mesa-dri fonts-noto-cjk libmtdev1 shellcheck systemd chromium
          iproute2 libpango-1.0-0 libpangoft2-1.0-0 poppler-utils x11-apps xdotool gcc libc6-dev
          dosfstools fdisk e2fsprogs cloud-guest-utils)
[ "${1:-}" = image ] && packages+=(debootstrap mtools xz-utils qemu-user-static binfmt-support
                                   python3-pip)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "missing OS packages (install as root): ${missing[*]}" >&2
  fi
fi
# A container's binfmt_misc is often not mounted when the package is installed: enabling the
# arm64 entry mounts it and registers qemu.
if [ "${1:-}" = image ] && [ "$(uname -m)" != aarch64 ] && [ "$(id -u)" -eq 0 ] &&
   [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
  update-binfmts --enable qemu-aarch64
fi

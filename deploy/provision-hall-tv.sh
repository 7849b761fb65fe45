#!/usr/bin/env bash
# Provision a hall TV: a Raspberry Pi with Raspberry Pi OS (desktop), or any Debian machine
# with a desktop, that shows the scorer's hall page full screen from the moment it boots.
# Run it as root from a copy of the project; run it again at any time: it changes only what
# differs and says so. See deploy/README.md.
#
#   sudo deploy/provision-hall-tv.sh --spki PIN --user pi
#
# Options:
#   --spki PIN    the scorer's certificate pin: the `spki` line that
#                 `kiosk scorer admin certificate` prints on the scorer. The TV's browser
#                 trusts that certificate and no other (kept from /etc/kiosk/hall-tv.env)
#   --url URL     the hall page (default: the last run's, else https://scorer.local:8080/;
#                 the scorer serves HTTPS only, so http:// means the same address over HTTPS)
#   --user NAME   the desktop user who is logged in on the TV (default: the one running sudo)
#   --dry-run     print every change it would make; change nothing
#   --root DIR    write into the scratch root DIR instead of /; commands are listed in
#                 DIR/var/lib/kiosk-provision/skipped.txt, not run (see deploy/lib.sh)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

URL="" SPKI="" TV_USER=${SUDO_USER:-} root_arg=""
usage() { sed -n '2,/^set -e/s/^# \{0,1\}//p' "$0"; exit "${1:-2}"; }
while [ $# -gt 0 ]; do
  case $1 in
    --url) URL=${2-}; shift ;;
    --spki) SPKI=${2-}; shift ;;
    --user) TV_USER=${2-}; shift ;;
    --dry-run) DRY_RUN=1 ;;
    --root) root_arg=${2-}; shift ;;
    -h|--help) usage 0 ;;
    *) say "unknown option: $1" >&2; usage >&2 ;;
  esac
  shift
done
[ -z "$root_arg" ] || set_root "$root_arg"
preflight

ENV_FILE=/etc/kiosk/hall-tv.env
# A second run may leave out --url and --spki: they are in the env file from the first.
env_value() { [ ! -f "$ROOT$ENV_FILE" ] || sed -n "s/^$1=//p" "$ROOT$ENV_FILE" | tail -n 1; }
[ -n "$URL" ] || URL=$(env_value KIOSK_HALL_URL)
[ -n "$URL" ] || URL=https://scorer.local:8080/
[ -n "$SPKI" ] || SPKI=$(env_value KIOSK_HALL_SPKI)
# Checked strictly: the URL ends up in a file the unit reads and on Chromium's command line.
[[ $URL =~ ^https?://[]A-Za-z0-9.:[-]+(/[A-Za-z0-9._~/?=\&%#+-]*)?$ ]] ||
  die "give --url https://HOST:PORT/PAGE (the scorer's hall page)"
if [[ $URL == http://* ]]; then
  URL=https://${URL#http://}
  say "note: the scorer serves HTTPS only: the TV shows $URL"
fi
# A base64 SHA-256 (44 characters): what Chromium's --ignore-certificate-errors-spki-list takes.
[[ $SPKI =~ ^[A-Za-z0-9+/]{43}=$ ]] ||
  die "give --spki PIN: the spki line of \`kiosk scorer admin certificate\` on the scorer"
[[ $TV_USER =~ ^[a-z_][a-z0-9_-]*$ ]] || die "give --user NAME: the TV's desktop user"
if [ -n "$ROOT" ]; then
  home=/home/$TV_USER
else
  home=$(getent passwd "$TV_USER" | cut -d: -f6) || die "no user $TV_USER on this machine"
fi
say "hall TV: $URL for $TV_USER${ROOT:+, root $ROOT}"

# -- Chromium (Raspberry Pi OS desktop already has it), xset for X11 sessions, curl to wait
# for the scorer before opening the page, and the CJK faces the hall page names (Noto Sans
# CJK): on Debian 12 nothing else installs a Chinese font, and the page would show boxes.
packages=(x11-xserver-utils curl fonts-noto-cjk)
if [ -n "$ROOT" ] || { ! command -v chromium && ! command -v chromium-browser; } >/dev/null; then
  packages+=(chromium)
fi
install_packages "${packages[@]}"

# -- The browser's launcher, its settings, its user unit and the autostart entry that starts
# the unit inside the desktop session (where the display is).
ensure_dir /etc/kiosk 755
put_file "$ENV_FILE" 644 < <(
  awk -v url="$URL" -v spki="$SPKI" '/^KIOSK_HALL_URL=/ { $0 = "KIOSK_HALL_URL=" url }
    /^KIOSK_HALL_SPKI=/ { $0 = "KIOSK_HALL_SPKI=" spki } { print }' "$DEPLOY_DIR/env/hall-tv.env"
)
copy_file "$DEPLOY_DIR/hall-tv/kiosk-hall-tv.sh" /usr/local/bin/kiosk-hall-tv 755
before=$CHANGES
copy_file "$DEPLOY_DIR/systemd/kiosk-hall-tv.service" /etc/systemd/user/kiosk-hall-tv.service 644
if [ "$CHANGES" -gt "$before" ]; then
  say "note: the TV's browser runs the new unit from the next login (or reboot)"
fi
# The user's own directories: created if missing, their modes left as the user has them.
ensure_dir "$home/.config" "" "$TV_USER:$TV_USER"
ensure_dir "$home/.config/autostart" "" "$TV_USER:$TV_USER"
copy_file "$DEPLOY_DIR/hall-tv/kiosk-hall-tv.desktop" \
  "$home/.config/autostart/kiosk-hall-tv.desktop" 644
ensure_owner "$home/.config/autostart/kiosk-hall-tv.desktop" "$TV_USER:$TV_USER"

# -- No blanking. The text console: consoleblank=0 (on a Pi). The desktop: on Raspberry Pi OS
# raspi-config knows which compositor is in use (labwc, wayfire, X11) and how to keep it awake
# (get_blanking prints 1 once blanking is off); under X11 the launcher also runs xset. Another
# desktop: turn its screen saver and power saving off by hand (deploy/README.md).
edit_cmdline "" "consoleblank=0"
if [ -n "$ROOT" ] || { command -v raspi-config >/dev/null &&
    [ "$(raspi-config nonint get_blanking 2>/dev/null)" != 1 ]; }; then
  run raspi-config nonint do_blanking 1
fi
# Log the desktop user in by itself at boot (raspi-config's "Desktop Autologin"), so that the
# TV needs no keyboard.
if [ -n "$ROOT" ] || { command -v raspi-config >/dev/null &&
    ! grep -qs "^autologin-user=$TV_USER\$" /etc/lightdm/lightdm.conf; }; then
  # raspi-config logs in $SUDO_USER: make it the TV's user.
  run env SUDO_USER="$TV_USER" raspi-config nonint do_boot_behaviour B4
fi

finish
if [ "$CHANGES" -gt 0 ] && [ "$DRY_RUN" = 0 ] && [ -z "$ROOT" ]; then
  say "reboot to start the hall page: sudo reboot"
fi

#!/usr/bin/env bash
# The hall TV's browser, run by kiosk-hall-tv.service (a user unit) inside the desktop session:
# installed as /usr/local/bin/kiosk-hall-tv by deploy/provision-hall-tv.sh. Shows
# $KIOSK_HALL_URL (from /etc/kiosk/hall-tv.env) in Chromium's kiosk mode.
set -euo pipefail

url=${KIOSK_HALL_URL:?KIOSK_HALL_URL is not set (see /etc/kiosk/hall-tv.env)}

# Raspberry Pi OS has called its package chromium-browser and later chromium; Debian calls it
# chromium.
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "kiosk-hall-tv: Chromium is not installed" >&2; exit 1; }

# Under X11 the screen saver and DPMS would blank the TV after ten minutes. (Wayland desktops
# are set by provision-hall-tv.sh through raspi-config; xset does nothing there.)
if [ -n "${DISPLAY:-}" ] && command -v xset >/dev/null; then
  xset s off s noblank -dpms || true
fi

# Wait for the scorer rather than show Chromium's error page: the hall page reconnects by
# itself once loaded, an error page never does. Any HTTP answer will do.
if command -v curl >/dev/null; then
  until curl -sS -o /dev/null --max-time 3 "$url" 2>/dev/null; do
    sleep 3
  done
fi

# --kiosk: full screen, no way out by touch. --incognito: no "restore pages?" bubble after a
# power cut, nothing kept between starts. --password-store=basic: no keyring prompt on the
# desktop. The update check and translate bar would only put pop-ups over the standings.
exec "$browser" --kiosk --incognito --noerrdialogs --disable-infobars --no-first-run \
  --password-store=basic --check-for-update-interval=31536000 \
  --disable-features=Translate --ozone-platform-hint=auto "$url"

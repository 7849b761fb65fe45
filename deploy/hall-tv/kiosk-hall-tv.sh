#!/usr/bin/env bash
# The hall TV's browser, run by kiosk-hall-tv.service (a user unit) inside the desktop session:
# installed as /usr/local/bin/kiosk-hall-tv by deploy/provision-hall-tv.sh. Shows
# $KIOSK_HALL_URL (from /etc/kiosk/hall-tv.env) in Chromium's kiosk mode, trusting exactly the
# scorer's self-signed certificate: the public key whose pin is $KIOSK_HALL_SPKI (the `spki`
# line of `kiosk scorer admin certificate`).
set -euo pipefail

[ -n "${KIOSK_HALL_URL:-}" ] || {
  echo "kiosk-hall-tv：没有设置 KIOSK_HALL_URL：请检查 /etc/kiosk/hall-tv.env，或再运行一次 provision-hall-tv.sh" >&2
  exit 1
}
url=$KIOSK_HALL_URL
pin=${KIOSK_HALL_SPKI:-}

# Raspberry Pi OS has called its package chromium-browser and later chromium; Debian calls it
# chromium.
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] ||
  { echo "kiosk-hall-tv：没有安装 Chromium：请再运行一次 provision-hall-tv.sh（它会安装）" >&2; exit 1; }

# Chromium's own profile for the TV: the unit's runtime directory, new at every start
# (RuntimeDirectory=), so there is never a lock or a "restore pages?" left from a power cut.
# Chromium honours --ignore-certificate-errors-spki-list only with an explicit --user-data-dir.
profile=${RUNTIME_DIRECTORY:-$(mktemp -d -t kiosk-hall-tv.XXXXXX)}
mkdir -p "$profile/Default"
# No "translate this page?" bubble over the language buttons: Chromium 156 offers it even with
# --disable-features=Translate; the profile's own setting holds.
[ -e "$profile/Default/Preferences" ] ||
  printf '{"translate": {"enabled": false}}\n' >"$profile/Default/Preferences"

# Under X11 the screen saver and DPMS would blank the TV after ten minutes. (Wayland desktops
# are set by provision-hall-tv.sh through raspi-config; xset does nothing there.)
if [ -n "${DISPLAY:-}" ] && command -v xset >/dev/null; then
  xset s off s noblank -dpms || true
fi

# Wait for the scorer rather than show Chromium's error page: the hall page reconnects by
# itself once loaded, an error page never does. Any answer will do (-k): whether the
# certificate is the scorer's is Chromium's decision, by the pin, below.
if command -v curl >/dev/null; then
  until curl -ksS -o /dev/null --max-time 3 "$url" 2>/dev/null; do
    sleep 3
  done
  # Say in the journal why Chromium will refuse the page, where it will.
  if [[ $url == https://* ]]; then
    if [ -z "$pin" ]; then
      echo "kiosk-hall-tv：/etc/kiosk/hall-tv.env 里没有 KIOSK_HALL_SPKI，Chromium 会拒绝记分台的证书：请用 provision-hall-tv.sh --spki 设置记分台证书的指纹" >&2
    elif ! curl -ksS -o /dev/null --max-time 3 --pinnedpubkey "sha256//$pin" "$url" 2>/dev/null
    then
      echo "kiosk-hall-tv：$url 出示的证书与 KIOSK_HALL_SPKI 不符，Chromium 会拒绝它：请在记分台上运行 \`kiosk scorer admin certificate\` 核对 spki，再用 provision-hall-tv.sh --spki 更新" >&2
    fi
  fi
fi

# --kiosk: full screen, no way out by touch. --incognito: nothing kept between starts.
# --password-store=basic: no keyring prompt on the desktop. The update check would only put
# a pop-up over the standings.
exec "$browser" --kiosk --incognito --noerrdialogs --disable-infobars --no-first-run \
  --password-store=basic --check-for-update-interval=31536000 \
  --ozone-platform-hint=auto --user-data-dir="$profile" \
  ${pin:+"--ignore-certificate-errors-spki-list=$pin"} "$url"

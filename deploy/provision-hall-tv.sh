#!/usr/bin/env bash
# 配置一台大厅电视：装 Raspberry Pi OS（桌面版）的树莓派，或任何带桌面的 Debian 机器，
# 开机后全屏显示记分台的大厅页面。
# 在项目副本中以 root 运行；随时可以再运行：只改不一样的地方，并逐项说明。
# 见 deploy/README.md。
#
#   sudo deploy/provision-hall-tv.sh --spki PIN --user pi
#
# 选项：
#   --spki PIN    记分台证书的指纹：在记分台上运行下面这行，取它打印的 spki 那一行；
#                 电视的浏览器只信任这张证书
#                   sudo -u scorer kiosk scorer admin --data /var/lib/kiosk-scorer certificate
#                 （省略时沿用 /etc/kiosk/hall-tv.env 里的）
#   --url URL     大厅页面（默认：上次的，否则 https://scorer.local:8080/；记分台只提供
#                 HTTPS，http:// 也按同一地址的 HTTPS 打开）
#   --user NAME   电视上登录桌面的用户（默认：上次的，否则运行 sudo 的用户）
#   --dry-run     列出将做的每处改动，但什么都不改
#   --root DIR    写入临时根目录 DIR 而不是 /；命令不运行，而是列在
#                 DIR/var/lib/kiosk-provision/skipped.txt（见 deploy/lib.sh）
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

URL="" SPKI="" TV_USER="" root_arg=""
usage() { sed -n '2,/^set -e/s/^# \{0,1\}//p' "$0"; exit "${1:-2}"; }
while [ $# -gt 0 ]; do
  case $1 in
    --url) URL=${2-}; shift ;;
    --spki) SPKI=${2-}; shift ;;
    --user) TV_USER=${2-}; shift ;;
    --dry-run) DRY_RUN=1 ;;
    --root) root_arg=${2-}; shift ;;
    -h|--help) usage 0 ;;
    *) say "未知选项：$1" >&2; usage >&2 ;;
  esac
  shift
done
[ -z "$root_arg" ] || set_root "$root_arg"
preflight

ENV_FILE=/etc/kiosk/hall-tv.env
# A second run may leave out --url, --spki and --user: they are in the env file from the first
# (a technician logged in as someone else must not move the TV's automatic login to them).
env_value() { [ ! -f "$ROOT$ENV_FILE" ] || sed -n "s/^$1=//p" "$ROOT$ENV_FILE" | tail -n 1; }
[ -n "$URL" ] || URL=$(env_value KIOSK_HALL_URL)
[ -n "$URL" ] || URL=https://scorer.local:8080/
[ -n "$SPKI" ] || SPKI=$(env_value KIOSK_HALL_SPKI)
[ -n "$TV_USER" ] || TV_USER=$(env_value KIOSK_HALL_USER)
[ -n "$TV_USER" ] || TV_USER=${SUDO_USER:-}
# Checked strictly: the URL ends up in a file the unit reads and on Chromium's command line.
[[ $URL =~ ^https?://[]A-Za-z0-9.:[-]+(/[A-Za-z0-9._~/?=\&%#+-]*)?$ ]] ||
  die "请用 --url 给出记分台的大厅页面：https://HOST:PORT/页面"
if [[ $URL == http://* ]]; then
  URL=https://${URL#http://}
  say "注意：记分台只提供 HTTPS，电视显示 $URL"
fi
# A base64 SHA-256 (44 characters): what Chromium's --ignore-certificate-errors-spki-list takes.
[[ $SPKI =~ ^[A-Za-z0-9+/]{43}=$ ]] ||
  die "请用 --spki 给出记分台证书的指纹：在记分台上运行 \`sudo -u scorer kiosk scorer admin --data /var/lib/kiosk-scorer certificate\`，复制 spki 那一行的 44 个字符"
[[ $TV_USER =~ ^[a-z_][a-z0-9_-]*$ ]] || die "请用 --user 给出电视上登录桌面的用户名"
if [ -n "$ROOT" ]; then
  home=/home/$TV_USER
else
  home=$(getent passwd "$TV_USER" | cut -d: -f6) || die "本机没有用户 ${TV_USER}：请检查 --user，或先建好这个桌面用户"
fi
say "大厅电视：用户 $TV_USER 显示 $URL${ROOT:+，根目录 $ROOT}"

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
  awk -v url="$URL" -v spki="$SPKI" -v user="$TV_USER" '
    /^KIOSK_HALL_URL=/ { $0 = "KIOSK_HALL_URL=" url }
    /^KIOSK_HALL_SPKI=/ { $0 = "KIOSK_HALL_SPKI=" spki }
    /^KIOSK_HALL_USER=/ { $0 = "KIOSK_HALL_USER=" user } { print }' "$DEPLOY_DIR/env/hall-tv.env"
)
copy_file "$DEPLOY_DIR/hall-tv/kiosk-hall-tv.sh" /usr/local/bin/kiosk-hall-tv 755
before=$CHANGES
copy_file "$DEPLOY_DIR/systemd/kiosk-hall-tv.service" /etc/systemd/user/kiosk-hall-tv.service 644
if [ "$CHANGES" -gt "$before" ]; then
  say "注意：电视的浏览器从下次登录（或重启）起使用新的服务单元"
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
  say "请重启，让电视打开大厅页面：sudo reboot"
fi

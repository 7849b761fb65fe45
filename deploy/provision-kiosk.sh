#!/usr/bin/env bash
# 配置一台牌桌平板：树莓派 4、5 或 Zero 2 W，系统为 Raspberry Pi OS Bookworm（Lite，64 位）。
# 在项目副本中以 root 运行；随时可以再运行：只改不一样的地方，并逐项说明。
# 完整步骤见 deploy/README.md。
#
#   sudo deploy/provision-kiosk.sh --table 7 --scorer scorer.local
#
# 选项：
#   --table N           本平板的桌号（省略时沿用 /etc/kiosk/kiosk.env 里的）
#   --pin PIN           本桌的裁判密码，4 到 8 位数字，不能是 0000（省略时沿用上次的）
#   --scorer URL|HOST   记分台：https://HOST:PORT，或主机名、IP 地址（不写端口即 8080，不写
#                       https:// 即 HTTPS；记分台只提供 HTTPS，http:// 也按同一地址的 HTTPS
#                       连接）；
#                       平板也从这台机器对时（chrony）
#   --source DIR|WHEEL  要安装什么（默认：本项目副本），装进 /var/lib/kiosk-app 下的新 venv，
#                       再由 /opt/kiosk/venv 指向它
#   --wheelhouse DIR    只从这个目录里的 wheel 安装（离线：pip --no-index）
#   --no-packages       不动系统软件包（构建镜像时由镜像自己安装）
#   --image             构建存储卡镜像时用（在 chroot 中）：没有在运行的服务，不重启、
#                       不重载任何服务
#   --update-key FILE   全部平板共用的更新公钥（`kiosk fleet keygen` 生成）：平板随后会安装
#                       记分台提供的更新（kiosk-update.timer）
#   --time-key KEY      provision-scorer.sh 打印的全场时间密钥：平板只接受记分台经过验证的
#                       时间（省略时沿用上次的）
#   --rules-dir DIR     裁判长的自定规则：DIR 里的规则文件（*.toml）检查后复制到
#                       /etc/kiosk/rules，平板按它们比赛；须与记分台上的完全相同
#                       （省略时保留上次的；用存储卡镜像的平板：放进启动分区的 kiosk-rules）
#   --hdmi-mode MODE    Zero 2 W 接 HDMI 触摸屏时的显示模式，例如 800x480@60
#   --allow-downgrade   已安装的版本比这份副本新（记分台推送的更新装上的）时，仍安装
#                       这份副本；不加此项，遇到这种情况什么都不改
#   --dry-run           列出将做的每处改动，但什么都不改
#   --root DIR          写入临时根目录 DIR 而不是 /；命令不运行，而是列在
#                       DIR/var/lib/kiosk-provision/skipped.txt（见 deploy/lib.sh）
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TABLE="" SCORER="" SOURCE=$PROJECT_DIR HDMI_MODE="" WHEELHOUSE="" PACKAGES=1 UPDATE_KEY=""
TIME_KEY="" RULES_SOURCE="" PIN="" root_arg=""
usage() { sed -n '2,/^set -e/s/^# \{0,1\}//p' "$0"; exit "${1:-2}"; }
while [ $# -gt 0 ]; do
  case $1 in
    --table) TABLE=${2-}; shift ;;
    --scorer) SCORER=${2-}; shift ;;
    --pin) PIN=${2-}; shift ;;
    --source) SOURCE=${2-}; shift ;;
    --wheelhouse) WHEELHOUSE=${2-}; shift ;;
    --no-packages) PACKAGES=0 ;;
    --update-key) UPDATE_KEY=${2-}; shift ;;
    --image) IMAGE=1 ;;
    --hdmi-mode) HDMI_MODE=${2-}; shift ;;
    --time-key) TIME_KEY=${2-}; shift ;;
    --rules-dir) RULES_SOURCE=${2-}; shift ;;
    --allow-downgrade) ALLOW_DOWNGRADE=1 ;;
    --dry-run) DRY_RUN=1 ;;
    --root) root_arg=${2-}; shift ;;
    -h|--help) usage 0 ;;
    *) say "未知选项：$1" >&2; usage >&2 ;;
  esac
  shift
done
[ -z "$root_arg" ] || set_root "$root_arg"
preflight
refuse_32_bit

ENV_FILE=/etc/kiosk/kiosk.env
# A second run may leave out --table and --scorer: they are in the env file from the first.
env_value() { [ ! -f "$ROOT$ENV_FILE" ] || sed -n "s/^$1=//p" "$ROOT$ENV_FILE" | tail -n 1; }
[ -n "$TABLE" ] || TABLE=$(env_value KIOSK_TABLE)
[ -n "$SCORER" ] || SCORER=$(env_value KIOSK_SCORER)
[[ $TABLE =~ ^[1-9][0-9]{0,3}$ ]] || die "请用 --table N 给出桌号（1-9999，不以 0 开头：第 7 桌是 7，不是 07）"
# Checked strictly: the host ends up in config files and on the kiosk's command line. The same
# forms as kiosk.toml's `scorer` (kiosk/fleet/identity.py): no scheme is https, no port 8080,
# and no path (an address copied with /admin would pair with nothing).
[[ $SCORER =~ ^(https?://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?/?$ ]] ||
  die "--scorer ${SCORER}：请给出记分台的地址，例如 https://scorer.local:8080 或 192.168.8.2（不写端口即 8080；端口后面不要再写 /admin 之类的路径）"
SCORER_HOST=${BASH_REMATCH[2]}
SCORER_HOST=${SCORER_HOST#[}
SCORER_HOST=${SCORER_HOST%]}
SCORER_PORT=${BASH_REMATCH[3]:-:8080}
SCORER_URL="${BASH_REMATCH[1]:-https://}${BASH_REMATCH[2]}$SCORER_PORT"
# The hall's time key: given, or kept from the last run (kiosk.env, else chrony's key file).
TIME_KEYS=/etc/chrony/chrony.keys  # (Debian's chrony.conf names it as its keyfile)
[ -n "$TIME_KEY" ] || TIME_KEY=$(env_value KIOSK_TIME_KEY)
[ -n "$TIME_KEY" ] || TIME_KEY=$( [ ! -f "$ROOT$TIME_KEYS" ] ||
  sed -n 's/^1 SHA256 HEX://p' "$ROOT$TIME_KEYS" | head -n 1)
TIME_KEY=${TIME_KEY,,}  # (upper case, copied from elsewhere, is the same key)
[ -z "$TIME_KEY" ] || [[ $TIME_KEY =~ ^[0-9a-f]{64}$ ]] ||
  die "--time-key 要给 provision-scorer.sh 打印的全场时间密钥（64 位十六进制数字）"
[ -z "$PIN" ] || { [[ $PIN =~ ^[0-9]{4,8}$ ]] && [ "$PIN" != 0000 ]; } ||
  die "--pin：裁判密码是 4 到 8 位数字，不能是 0000"
[ -z "$HDMI_MODE" ] || [[ $HDMI_MODE =~ ^[0-9]+x[0-9]+(@[0-9]+)?$ ]] ||
  die "--hdmi-mode ${HDMI_MODE}：格式是 宽x高@刷新率，例如 800x480@60"
[ -n "$ROOT" ] || [ -e "$SOURCE" ] || die "--source ${SOURCE}：找不到，请检查路径"
SOURCE=$(realpath -m "$SOURCE")
[ -z "$UPDATE_KEY" ] || grep -q "BEGIN PUBLIC KEY" "$UPDATE_KEY" 2>/dev/null ||
  die "--update-key ${UPDATE_KEY}：请给 update-key.pub（\`kiosk fleet keygen\` 生成的公钥）"
[ -z "$RULES_SOURCE" ] || check_rules "$RULES_SOURCE"
say "牌桌平板：第 $TABLE 桌，记分台 $SCORER_URL${ROOT:+，根目录 $ROOT}"

# -- OS packages (deploy/packages/kiosk.txt says why each), all in plain Debian as in Raspberry
# Pi OS. lgpio comes from PyPI into the venv (the kiosk's [table] extra) on Python 3.11 and
# 3.12 (Bookworm); PyPI has no lgpio wheel for 3.13 (Trixie), so there the OS's python3-lgpio
# is used (Raspberry Pi OS has it) and the venv sees the OS's packages (deploy/lib.sh).
if [ "$PACKAGES" = 1 ]; then
  mapfile -t packages < <(package_list kiosk)
  if os_lgpio; then packages+=(python3-lgpio); fi
  install_packages "${packages[@]}"
fi

# -- The group that may open the GPIO: Raspberry Pi OS has it; plain Debian (the card image)
# gets it here, and the udev rule (deploy/udev/99-kiosk-gpio.rules) gives it the gpiochips.
if needs getent group gpio; then run groupadd --system gpio; fi

# -- The kiosk's own user: GPIO (gpio), the serial printer (dialout), a USB printer of the
# printer class (lp), the display (video, render), the touchscreen (input). It can change its
# data, not its code.
ensure_user kiosk /home/kiosk gpio,dialout,lp,video,render,input

# -- The project in a new venv, switched to only once it works (deploy/lib.sh).
install_project "$SOURCE" table "$WHEELHOUSE"
# `kiosk` on the PATH for the people who administer the machine (sudo -u kiosk kiosk ...).
ensure_link /usr/local/bin/kiosk "$VENV/bin/kiosk"

# -- The data directory: the journal (table-N.sqlite), slips, the font cache, Kivy's log. With
# a read-only root (overlay), mount a writable partition here (deploy/README.md).
ensure_dir /var/lib/kiosk 750 kiosk:kiosk

# -- Settings for the unit: the table, the scorer and the time key set here, anything else as
# edited.
ensure_dir /etc/kiosk 755
if [ -f "$ROOT$ENV_FILE" ]; then env_text=$(<"$ROOT$ENV_FILE"); else env_text=$(<"$DEPLOY_DIR/env/kiosk.env"); fi
set_var() {  # set_var NAME VALUE: NAME=VALUE in env_text, in place or appended
  env_text=$(awk -v n="$1" -v v="$2" 'index($0, n "=") == 1 { print n "=" v; done = 1; next }
    { print } END { if (!done) print n "=" v }' <<<"$env_text")
}
set_var KIOSK_TABLE "$TABLE"
set_var KIOSK_SCORER "$SCORER_URL"
[ -z "$PIN" ] || set_var KIOSK_PIN "$PIN"
# kiosk-firstboot.service rewrites chrony's source from this file at every boot: the key goes
# here too, or the boot would drop it from the source line.
[ -z "$TIME_KEY" ] || set_var KIOSK_TIME_KEY "$TIME_KEY"
# The house rulesets: where the table's unit loads them from (a file edited to name another
# directory keeps it).
grep -q '^KIOSK_RULES_DIR=' <<<"$env_text" || set_var KIOSK_RULES_DIR "$RULES_DIR"
put_file "$ENV_FILE" 600 <<<"$env_text"
[ -z "$UPDATE_KEY" ] || copy_file "$UPDATE_KEY" /etc/kiosk/update-key.pub 644
put_rules "$RULES_SOURCE"

# -- Kivy's configuration: one input provider for the touch display (why: in the file).
ensure_dir /home/kiosk/.kivy 755 kiosk:kiosk
copy_file "$DEPLOY_DIR/kivy/config.ini" /home/kiosk/.kivy/config.ini 644
ensure_owner /home/kiosk/.kivy/config.ini kiosk:kiosk

# -- Boot config: the Pi's own config.txt stays, the kiosk's lines (firmware_config/config.txt)
# are appended as one marked block, replaced on every run. firmware_config asks for exactly
# this; replacing the whole file would also drop the image's own lines (arm_64bit=1, which a
# Zero 2 W needs to boot the 64-bit kernel, auto_initramfs, ...). The old file is kept as
# config.txt.pre-kiosk.
boot_cfg=/boot/firmware/config.txt
firmware=$PROJECT_DIR/firmware_config/config.txt
[ -f "$firmware" ] || die "缺少 ${firmware}：请在完整的项目副本中运行"
boot_config() {  # the Pi's config.txt without our block, then our block
  if [ -f "$ROOT$boot_cfg" ]; then
    awk '/^# >>> 80fen kiosk/ { skip = 1 } !skip { print } /^# <<< 80fen kiosk/ { skip = 0 }' \
      "$ROOT$boot_cfg" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'  # no trailing blank lines
    printf '\n'
  fi
  printf '# >>> 80fen kiosk: firmware_config/config.txt, written by deploy/provision-kiosk.sh.\n'
  printf '# Edit above this block; the block is replaced on every run.\n'
  printf '[all]\n'
  printf '# End the scope of the last overlay above, so that the dtparam lines below set the\n'
  printf "# Pi's own parameters, not that overlay's (vc4-kms-v3d has an audio parameter too).\n"
  printf 'dtoverlay=\n'
  cat "$firmware"
  printf '# <<< 80fen kiosk\n'
}
if [ -z "$ROOT" ] && [ ! -d /boot/firmware ]; then
  say "注意：没有 /boot/firmware（不是 Raspberry Pi OS Bookworm？）：启动配置保持不变"
else
  put_file "$boot_cfg" "" backup < <(boot_config)
fi

# -- Kernel command line (firmware_config/cmdline.md): the UART is the printer's, not a login
# console; no console blanking; a quiet boot; the HDMI display's mode on a Zero 2 W.
edit_cmdline "console=serial0,* console=ttyAMA0,*" \
  "consoleblank=0 logo.nologo quiet loglevel=3${HDMI_MODE:+ video=HDMI-A-1:$HDMI_MODE}"
# Bluetooth is moved off the printer's UART (disable-bt); its UART service has nothing to do.
if [ -n "$ROOT" ] || systemctl is-enabled --quiet hciuart.service 2>/dev/null; then
  run systemctl disable hciuart.service
fi

# -- Time from the scorer, which serves the hall's time even without internet. "prefer": with
# internet too, the tables still agree with the scorer first. A kiosk has no real-time clock: it
# boots with the time it shut down with (fake-hwclock) and may be hours off; chrony's default
# steps only in the first updates and then slews at most ~83 ms a second, so the kiosk would
# show "clock off" for hours. makestep 1 -1: step whenever it is more than 1 s off. Match time
# is monotonic, so a step changes no clock at the table, only the wall time in the journal.
before=$CHANGES
if [ -n "$TIME_KEY" ]; then
  put_file "$TIME_KEYS" 600 <<<"1 SHA256 HEX:$TIME_KEY"
else
  say "警告：没有给 --time-key，本平板会接受 ${SCORER_HOST} 发来的任何时间：请加上 --time-key（provision-scorer.sh 打印的全场时间密钥）"
fi
# (the same text as kiosk-firstboot.service writes at every boot: kiosk/fleet/identity.py)
put_file /etc/chrony/sources.d/kiosk-scorer.sources 644 <<EOF
# The hall's scorer: KIOSK_SCORER in /etc/kiosk/kiosk.env.
server $SCORER_HOST iburst prefer${TIME_KEY:+ key 1}
EOF
put_file /etc/chrony/conf.d/kiosk-table.conf 644 <<EOF
# A table kiosk (deploy/provision-kiosk.sh): step the clock whenever it is more than 1 s off.
makestep 1 -1
EOF
own_makestep
if [ -n "$ROOT" ] || [ "$CHANGES" -gt "$before" ]; then
  live systemctl try-restart chrony.service
fi

# -- The printer's stable name, the units, and systemd feeding the hardware watchdog.
before=$CHANGES
copy_file "$DEPLOY_DIR/udev/99-kiosk-printer.rules" /etc/udev/rules.d/99-kiosk-printer.rules 644
copy_file "$DEPLOY_DIR/udev/99-kiosk-gpio.rules" /etc/udev/rules.d/99-kiosk-gpio.rules 644
copy_file "$DEPLOY_DIR/kiosk-selftest.sh" /usr/local/bin/kiosk-selftest 755
if [ -n "$ROOT" ] || [ "$CHANGES" -gt "$before" ]; then
  live udevadm control --reload-rules
fi
before=$CHANGES
copy_file "$DEPLOY_DIR/systemd/kiosk-table.service" /etc/systemd/system/kiosk-table.service 644
copy_file "$DEPLOY_DIR/systemd/kiosk-firstboot.service" \
  /etc/systemd/system/kiosk-firstboot.service 644
copy_file "$DEPLOY_DIR/systemd/kiosk-notice.service" /etc/systemd/system/kiosk-notice.service 644
copy_file "$DEPLOY_DIR/systemd/kiosk-update.service" /etc/systemd/system/kiosk-update.service 644
copy_file "$DEPLOY_DIR/systemd/kiosk-update.timer" /etc/systemd/system/kiosk-update.timer 644
copy_file "$DEPLOY_DIR/systemd/kiosk-watchdog.conf" \
  /etc/systemd/system.conf.d/kiosk-watchdog.conf 644
if [ -n "$ROOT" ] || [ "$CHANGES" -gt "$before" ]; then
  live systemctl daemon-reload
fi
enable_unit kiosk-firstboot.service
enable_unit kiosk-update.timer
enable_unit kiosk-table.service
enable_unit kiosk-notice.service

# A kiosk set up by hand whose PIN nobody changed: any player could open the referee's menu.
if [ "$IMAGE" = 0 ] && grep -qx 'KIOSK_PIN=0000' <<<"$env_text"; then
  say "注意：裁判密码还是 0000：请用 --pin 给出本桌的裁判密码（4 到 8 位数字），或改 ${ENV_FILE} 里的 KIOSK_PIN"
fi
finish
if [ "$CHANGES" -gt 0 ] && [ "$DRY_RUN" = 0 ] && [ -z "$ROOT" ]; then
  say "请重启，让平板按新的启动配置运行：sudo reboot"
fi

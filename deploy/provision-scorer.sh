#!/usr/bin/env bash
# 配置大厅的记分台：装 Debian（或 Ubuntu）的笔记本电脑，或装 Raspberry Pi OS 的树莓派。
# 在项目副本中以 root 运行；随时可以再运行：只改不一样的地方，并逐项说明。
# 见 deploy/README.md。
#
#   sudo deploy/provision-scorer.sh
#
# 选项：
#   --lan CIDR          允许从本机对时的平板和电视所在的网段（可重复；默认：上次的，
#                       否则为私有网段 10.0.0.0/8、172.16.0.0/12 和 192.168.0.0/16）
#   --source DIR|WHEEL  要安装什么（默认：本项目副本），装进 /var/lib/kiosk-app 下的新 venv，
#                       再由 /opt/kiosk/venv 指向它
#   --wheelhouse DIR    只从这个目录里的 wheel 安装（离线：pip --no-index）
#   --rules-dir DIR     裁判长的自定规则：DIR 里的规则文件（*.toml）检查后复制到
#                       /etc/kiosk/rules，记分台按它们计分；每台平板都要同样的文件
#                       （省略时保留上次的）
#   --dry-run           列出将做的每处改动，但什么都不改
#   --root DIR          写入临时根目录 DIR 而不是 /；命令不运行，而是列在
#                       DIR/var/lib/kiosk-provision/skipped.txt（见 deploy/lib.sh）
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SOURCE=$PROJECT_DIR WHEELHOUSE="" LANS=() RULES_SOURCE="" root_arg=""
usage() { sed -n '2,/^set -e/s/^# \{0,1\}//p' "$0"; exit "${1:-2}"; }
while [ $# -gt 0 ]; do
  case $1 in
    --lan) LANS+=("${2-}"); shift ;;
    --source) SOURCE=${2-}; shift ;;
    --wheelhouse) WHEELHOUSE=${2-}; shift ;;
    --rules-dir) RULES_SOURCE=${2-}; shift ;;
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
CHRONY_CONF=/etc/chrony/conf.d/kiosk-scorer.conf
TIME_KEYS=/etc/chrony/chrony.keys
# A second run without --lan keeps the networks of the first.
if [ ${#LANS[@]} -eq 0 ] && [ -f "$ROOT$CHRONY_CONF" ]; then
  mapfile -t LANS < <(sed -n 's/^allow //p' "$ROOT$CHRONY_CONF")
fi
[ ${#LANS[@]} -gt 0 ] || LANS=(10.0.0.0/8 172.16.0.0/12 192.168.0.0/16)
for lan in "${LANS[@]}"; do
  [[ $lan =~ ^[0-9A-Fa-f:.]+(/[0-9]{1,3})?$ ]] || die "--lan ${lan}：请给一个地址或网段（如 192.168.8.0/24）"
done
[ -n "$ROOT" ] || [ -e "$SOURCE" ] || die "--source ${SOURCE}：找不到，请检查路径"
SOURCE=$(realpath -m "$SOURCE")
[ -z "$RULES_SOURCE" ] || check_rules "$RULES_SOURCE"
DATA=/var/lib/kiosk-scorer
say "记分台：数据在 ${DATA}，向 ${LANS[*]} 提供时间${ROOT:+，根目录 $ROOT}"

mapfile -t packages < <(package_list scorer)
install_packages "${packages[@]}"

# -- The scorer's own user; its home is its data directory (it has no other files).
ensure_user scorer "$DATA" "" --no-create-home
code_before=$CHANGES
install_project "$SOURCE" scorer "$WHEELHOUSE"
# `kiosk` on the PATH for the people who administer the machine (sudo -u scorer kiosk ...).
ensure_link /usr/local/bin/kiosk "$VENV/bin/kiosk"
ensure_dir "$DATA" 750 scorer:scorer
# Backups sit beside the store, every 5 minutes (kiosk-scorer-backup.timer); copy them off
# the machine as well (deploy/README.md).
ensure_dir "$DATA/backups" 750 scorer:scorer
# The house rulesets the scorer loads (KIOSK_RULES_DIR in its units): a change restarts it.
put_rules "$RULES_SOURCE"

# -- The hall's time server. The kiosks take their time from here (provision-kiosk.sh
# --scorer), so every clock and every journal in the hall agree. "local stratum 8 orphan":
# serve time even when this machine has no internet to take it from, at a stratum that any
# real source outranks; orphan: when it has a real source again, it follows it rather than its
# own clock. A scorer without a real-time clock (a Pi) still boots as far behind as it was
# off: the scorer refuses to start a round while its clock has not been synchronised since
# boot, and the admin page says so (with no internet: `sudo date -s 'HH:MM:SS'` from a phone's
# clock, then `sudo chronyc makestep`). makestep 1 -1: step whenever more than 1 s off.
before=$CHANGES
put_file "$CHRONY_CONF" 644 < <(
  printf '# The hall'"'"'s time server (deploy/provision-scorer.sh).\n'
  printf 'allow %s\n' "${LANS[@]}"
  printf 'local stratum 8 orphan\n'
  printf 'makestep 1 -1\n'
  printf 'keyfile %s\n' "$TIME_KEYS"
)
own_makestep
# The kiosks check this server's time with a key set at provisioning (provision-kiosk.sh
# --time-key), so a laptop answering as the time server cannot move their clocks. Made once,
# kept on later runs.
TIME_KEY=$( [ ! -f "$ROOT$TIME_KEYS" ] || sed -n 's/^1 SHA256 HEX://p' "$ROOT$TIME_KEYS" | head -n 1)
if [ -n "$TIME_KEY" ] || [ "$DRY_RUN" = 0 ]; then
  [ -n "$TIME_KEY" ] || TIME_KEY=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
  put_file "$TIME_KEYS" 600 <<<"1 SHA256 HEX:$TIME_KEY"
  say "全场时间密钥（每台平板都要：kiosk.toml 的 time_key，或 provision-kiosk.sh --time-key）：$TIME_KEY"
else  # a key printed now would not be the one the real run makes and keeps
  note_change "创建 $TIME_KEYS"
  say "全场时间密钥：正式运行时生成并打印（试运行不生成）"
fi
if [ -n "$ROOT" ] || [ "$CHANGES" -gt "$before" ]; then
  live systemctl try-restart chrony.service
fi

# -- The units: the scorer, and its backup every 5 minutes.
before=$CHANGES
for unit in kiosk-scorer.service kiosk-scorer-backup.service kiosk-scorer-backup.timer; do
  copy_file "$DEPLOY_DIR/systemd/$unit" "/etc/systemd/system/$unit" 644
done
if [ -n "$ROOT" ] || [ "$CHANGES" -gt "$before" ]; then
  live systemctl daemon-reload
fi
if [ -n "$ROOT" ] || [ "$CHANGES" -gt "$code_before" ]; then
  # A running scorer picks up a new version or unit; the kiosks resend whatever it missed.
  live systemctl try-restart kiosk-scorer.service
fi
enable_unit kiosk-scorer.service --now
enable_unit kiosk-scorer-backup.timer --now

finish

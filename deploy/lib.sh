# shellcheck shell=bash
# Shared by the provisioning scripts (sourced, never run). Every change to the machine goes
# through these helpers, so that the two options every script takes hold everywhere:
#
#   --dry-run   print each change that would be made, and make none.
#   --root DIR  a scratch root: every file is written under DIR (/etc/x becomes DIR/etc/x).
#               Commands that act on the running system (apt-get, useradd, pip, chown,
#               systemctl, ...) are not run; they are listed, exactly as a real run on a fresh
#               machine would run them, in DIR/var/lib/kiosk-provision/skipped.txt. The host
#               says nothing about the target, so under --root no command is skipped because
#               the host happens to have it done already: the list is the same every run.
#
# A change is counted only when something differs, so a second run reports "nothing changed".
# (Feed put_file with <<< or < <(...), never a pipe: a pipe runs it in a subshell, whose count
# of changes is lost.)

ROOT=""
DRY_RUN=0
IMAGE=0
CHANGES=0
SKIPPED=()
DEPLOY_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC2034  # read by the scripts that source this file
PROJECT_DIR=$(dirname "$DEPLOY_DIR")
# The venvs live in APP_DIR (on the data partition of a card made by `make image`, so that an
# update survives the read-only root); VENV links to the one in use.
APP_DIR=${KIOSK_APP_DIR:-/var/lib/kiosk-app}
VENV=${KIOSK_VENV_LINK:-/opt/kiosk/venv}

say() { printf '%s\n' "$*"; }
die() { printf '%s：%s\n' "${0##*/}" "$*" >&2; exit 2; }

# set_root DIR: the --root option, as an absolute path ("/" is the real system).
set_root() {
  [ -n "$1" ] || die "--root 后面要给一个目录"
  ROOT=$(realpath -m "$1")
  [ "$ROOT" != / ] || ROOT=""
}

# preflight: a real run must be root on a Debian-family system; a dry run may look as anyone.
preflight() {
  [ -z "$ROOT" ] || return 0
  command -v apt-get >/dev/null || die "本机没有 apt-get：请在 Raspberry Pi OS 或 Debian 上运行"
  [ "$DRY_RUN" = 1 ] || [ "$(id -u)" -eq 0 ] || die "需要 root 权限：请用 sudo 运行，或加 --dry-run 只看会改什么"
}

# note_change WHAT: count one change and say it (or that it would be made). WHAT is said
# in words, a verb first ("创建 /etc/x"); a dry run says it as to come ("将创建 /etc/x").
note_change() {
  CHANGES=$((CHANGES + 1))
  if [ "$DRY_RUN" = 1 ]; then say "将$*"; else say "$*"; fi
}

# run CMD...: run a command that changes the system. Under --root it is only recorded.
run() {
  if [ -n "$ROOT" ]; then
    SKIPPED+=("$*")
    if [ "$DRY_RUN" = 1 ]; then say "将记入清单，不运行（--root）：$*"
    else say "未运行（--root）：$*"; fi
    return 0
  fi
  note_change "运行：$*"
  [ "$DRY_RUN" = 1 ] || "$@"
}

# live CMD...: run a command that acts on the running system's services (restart, reload).
# Building an image (--image, in a chroot) there is nothing running: the command is skipped.
live() {
  if [ "$IMAGE" = 1 ]; then say "未运行（正在构建镜像）：$*"; return 0; fi
  run "$@"
}

# needs CHECK...: true when the change that CHECK tests for is still to be made: CHECK fails,
# or we are under --root (where the host's state is no answer for the target).
needs() {
  [ -n "$ROOT" ] && return 0
  ! "$@" >/dev/null 2>&1
}

# put_file PATH MODE [backup] < CONTENT: PATH gets exactly CONTENT. MODE "" leaves the mode
# alone (the FAT boot partition has none). "backup" keeps the file as it was before the first
# change, as PATH.pre-kiosk, never overwritten.
put_file() {
  local path=$1 mode=$2 backup=${3-} target="$ROOT$1" new
  new=$(mktemp)
  cat >"$new"
  if [ -f "$target" ] && cmp -s "$new" "$target"; then
    rm -f "$new"
    if [ -n "$mode" ] && [ "$(stat -c %a "$target")" != "$mode" ]; then
      note_change "把 $path 的权限改为 $mode"
      [ "$DRY_RUN" = 1 ] || chmod "$mode" "$target"
    fi
    return 0
  fi
  if [ "$backup" = backup ] && [ -f "$target" ] && [ ! -e "$target.pre-kiosk" ]; then
    note_change "把 $path 备份为 $path.pre-kiosk"
    [ "$DRY_RUN" = 1 ] || cp -p "$target" "$target.pre-kiosk"
  fi
  if [ -f "$target" ]; then
    note_change "更新 $path"
    # The change itself, for the operator to read (not for a file that may hold the PIN).
    if [ "$DRY_RUN" = 1 ] && [ "$mode" = 600 ]; then
      say "    （不显示改动：此文件只有 root 能读）"
    elif [ "$DRY_RUN" = 1 ]; then
      diff -u "$target" "$new" | tail -n +3 | sed 's/^/    /' || true
    fi
  else
    note_change "创建 $path"
  fi
  if [ "$DRY_RUN" = 0 ]; then
    mkdir -p "$(dirname "$target")"
    # Written beside the file, then renamed: a power cut leaves the old file or the new one.
    cp "$new" "$target.kiosk-new"
    [ -z "$mode" ] || chmod "$mode" "$target.kiosk-new"
    mv -f "$target.kiosk-new" "$target"
  fi
  rm -f "$new"
}

# own_makestep: the makestep of our conf.d file is the one chrony uses. Debian's chrony.conf
# reads conf.d (confdir) near its top and sets its own `makestep 1 3` further down, and the
# later line wins: it is commented out (once; a chrony.conf without it is left alone).
own_makestep() {
  local conf=/etc/chrony/chrony.conf
  if [ -f "$ROOT$conf" ] && grep -q '^makestep ' "$ROOT$conf"; then
    put_file "$conf" "" backup < <(
      sed 's|^makestep |# (off: deploy/ sets makestep in conf.d) makestep |' "$ROOT$conf")
  fi
}

# copy_file SRC PATH MODE: put_file with the content of a file from the project.
copy_file() {
  [ -f "$1" ] || die "缺少 $1：请在完整的项目副本中运行"
  put_file "$2" "$3" <"$1"
}

# remove_file PATH: PATH removed, if it is there.
remove_file() {
  [ -e "$ROOT$1" ] || [ -L "$ROOT$1" ] || return 0
  note_change "删除 $1"
  [ "$DRY_RUN" = 1 ] || rm -f "$ROOT$1"
}

# ensure_dir PATH MODE [OWNER:GROUP]. MODE "": created as 755, an existing one left as it is.
DRY_DIRS=" "  # the directories a dry run said it would create (each said once)
ensure_dir() {
  local path=$1 mode=$2 owner=${3-} target="$ROOT$1"
  if [ ! -d "$target" ]; then
    [[ $DRY_DIRS != *" $path "* ]] || return 0
    note_change "创建目录 $path"
    if [ "$DRY_RUN" = 1 ]; then DRY_DIRS+="$path "
    else mkdir -p "$target" && chmod "${mode:-755}" "$target"; fi
  elif [ -n "$mode" ] && [ "$(stat -c %a "$target")" != "$mode" ]; then
    note_change "把 $path 的权限改为 $mode"
    [ "$DRY_RUN" = 1 ] || chmod "$mode" "$target"
  fi
  [ -z "$owner" ] || ensure_owner "$path" "$owner"
}

# ensure_link PATH TARGET: PATH is a symbolic link to TARGET. A new link is renamed over the old
# one, so that PATH always names the old target or the new one, never nothing.
ensure_link() {
  [ "$(readlink "$ROOT$1")" != "$2" ] || return 0
  [ ! -e "$ROOT$1" ] || [ -L "$ROOT$1" ] || die "$1 已存在，但不是链接：请先把它移到别处，再运行一次"
  note_change "把 $1 链接到 $2"
  [ "$DRY_RUN" = 1 ] || { mkdir -p "$(dirname "$ROOT$1")" && ln -sfn "$2" "$ROOT$1.kiosk-new" &&
    mv -fT "$ROOT$1.kiosk-new" "$ROOT$1"; }
}

# ensure_owner PATH OWNER:GROUP (the user may not exist under --root: recorded, not run)
ensure_owner() {
  if [ -z "$ROOT" ] && [ -e "$1" ] && [ "$(stat -c %U:%G "$1")" = "$2" ]; then
    return 0
  fi
  run chown "$2" "$1"
}

# install_packages PKG...: apt-get install those not installed yet.
install_packages() {
  local missing=() p
  for p in "$@"; do
    # shellcheck disable=SC2016  # ${Status} is dpkg-query's, not the shell's
    if [ -n "$ROOT" ] || ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
        grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    run apt-get update
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
  fi
}

# package_list NAME: the packages of deploy/packages/NAME.txt, one a line (comments dropped).
package_list() {
  [ -f "$DEPLOY_DIR/packages/$1.txt" ] || die "缺少 deploy/packages/$1.txt：请在完整的项目副本中运行"
  sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$DEPLOY_DIR/packages/$1.txt"
}

# refuse_32_bit: a 32-bit system (armhf: Raspberry Pi OS 32-bit, even on a 64-bit Pi) has no
# Kivy wheel, and nothing installed there would run: refused before anything changes.
refuse_32_bit() {
  local arch
  [ -z "$ROOT" ] || return 0  # the host says nothing about a scratch root
  arch=$(dpkg --print-architecture 2>/dev/null || true)
  case $arch in
    armhf|armel|i386)
      die "这是 32 位系统（${arch}）：Kivy 没有适用的 wheel，装了也不能运行。请用 Raspberry Pi OS Lite（64 位）重写存储卡，或改用平板的镜像（make image）" ;;
  esac
}

# ensure_user NAME HOME GROUP,GROUP... [--no-create-home]: a system user with its own group
# and no login shell, a member of those groups that exist here (gpio exists only on Raspberry
# Pi OS).
ensure_user() {
  local name=$1 home=$2 groups=$3 create=${4:---create-home} missing=() g
  if needs id "$name"; then
    run useradd --system --user-group "$create" --home-dir "$home" \
      --shell /usr/sbin/nologin "$name"
  fi
  [ -n "$groups" ] || return 0
  for g in ${groups//,/ }; do
    if [ -z "$ROOT" ] && ! getent group "$g" >/dev/null; then
      say "注意：本机没有 $g 组，$name 不加入该组"
    elif [ -n "$ROOT" ] || ! id -nG "$name" 2>/dev/null | tr ' ' '\n' | grep -qx "$g"; then
      missing+=("$g")
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    run usermod --append --groups "$(IFS=,; echo "${missing[*]}")" "$name"
  fi
}

# source_version SOURCE: the version a project directory or a built wheel would install.
source_version() {
  if [ -f "$1" ]; then
    basename "$1" | cut -d- -f2
  else
    sed -n 's/^version = "\(.*\)"/\1/p' "$1/pyproject.toml" | head -n 1
  fi
}

# refuse_downgrade SOURCE: a version older than the installed one is not installed unless
# ALLOW_DOWNGRADE=1 (--allow-downgrade): a fleet update may have brought a newer version than
# this copy of the project, and a re-provision must not silently take the kiosk back. Checked
# before anything changes. (Versions ordered as sort -V orders them: release numbers.)
ALLOW_DOWNGRADE=0
refuse_downgrade() {
  local new installed current
  new=$(source_version "$1")
  current=$(readlink "$ROOT$APP_DIR/current" 2>/dev/null || true)
  case $current in /*) ;; ?*) current=$APP_DIR/$current ;; esac  # an old relative link
  installed=$(cat "$ROOT$current/.kiosk-version" 2>/dev/null || true)
  [ -n "$new" ] && [ -n "$installed" ] && [ "$new" != "$installed" ] || return 0
  [ "$(printf '%s\n%s\n' "$new" "$installed" | sort -V | head -n 1)" = "$new" ] || return 0
  [ "$ALLOW_DOWNGRADE" = 1 ] && { say "注意：从版本 $installed 退回到 ${new}（--allow-downgrade）"; return 0; }
  die "已安装的版本 $installed 比这份项目的 $new 新（是记分台推送的更新装上的）：什么都没有改动。确实要退回 ${new}，请加 --allow-downgrade"
}

# venv_options: how new venvs are made. PyPI has lgpio wheels up to Python 3.12; on a newer
# Python (Raspberry Pi OS Trixie: 3.13) lgpio comes from the OS (python3-lgpio), so the venv
# must see the OS's packages (the project's own pins still win inside the venv).
target_python() { readlink "$ROOT/usr/bin/python3" 2>/dev/null | sed -n 's/^python\(3\.[0-9]*\)$/\1/p'; }
os_lgpio() {
  local py
  py=$(target_python)
  [ -n "$py" ] && [ "${py#3.}" -ge 13 ]
}

# install_project SOURCE EXTRA [WHEELHOUSE]: the project with its extra EXTRA (table or scorer)
# into a new venv beside the running one, its dependencies pinned by deploy/constraints.txt,
# then the switch. SOURCE is the project's directory or a built wheel; with WHEELHOUSE (a directory of wheels) nothing is fetched from the
# network (pip --no-index). Never uninstalls: the running version stays whole until the new one
# has installed and answered `kiosk rules list`; only then does $APP_DIR/current point to it
# (one rename), and the version it replaced stays as $APP_DIR/previous. A failed install
# (offline, a wheel missing) leaves everything as it was. Done again only when SOURCE, the
# constraints or the wheelhouse changed (the fingerprint names the venv).
install_project() {
  local source=$1 extra=$2 wheelhouse=${3-} fingerprint new old index_opts=()
  if [ -f "$source" ]; then
    case $source in *.whl) ;; *) die "--source ${source}：请给项目目录或一个 .whl 文件" ;; esac
  elif [ ! -f "$source/pyproject.toml" ]; then
    die "--source ${source}：那里没有 pyproject.toml，请给项目的顶层目录"
  fi
  [ -z "$wheelhouse" ] || [ -d "$wheelhouse" ] || die "--wheelhouse ${wheelhouse}：没有这个目录"
  [ -z "$wheelhouse" ] || index_opts=(--no-index --find-links "$wheelhouse")
  refuse_downgrade "$source"
  local venv_opts=()
  ! os_lgpio || [ "$extra" != table ] || venv_opts=(--system-site-packages)
  fingerprint=$(fingerprint "$source" "$wheelhouse" "$extra")
  new=$APP_DIR/venvs/${fingerprint:0:16}
  old=$(readlink "$ROOT$APP_DIR/current" 2>/dev/null || true)
  adopt_legacy_venv
  ensure_dir "$APP_DIR" 755
  ensure_dir "$APP_DIR/venvs" 755
  if [ "$old" = "$new" ] && [ -z "$ROOT" ]; then
    ensure_link "$VENV" "$APP_DIR/current"
    return 0
  fi
  if [ -n "$ROOT" ] || [ ! -f "$new/.kiosk-installed" ]; then
    # A half-made venv from an interrupted run is made again from nothing.
    [ -n "$ROOT" ] || [ ! -e "$new" ] || run rm -rf "$new"
    run python3 -m venv "${venv_opts[@]}" "$new"
    run_or_keep "$new/bin/pip" install --disable-pip-version-check --quiet \
      "${index_opts[@]}" --constraint "$DEPLOY_DIR/constraints.txt" "${source}[${extra}]"
    run_or_keep "$new/bin/kiosk" rules list
    if [ -z "$ROOT" ] && [ "$DRY_RUN" = 0 ]; then
      # The version, for the updater and the scorer's list of kiosks.
      "$new/bin/python" -c 'import importlib.metadata as m; print(m.version("kiosk80"))' \
        >"$new/.kiosk-version"
      printf '%s\n' "$fingerprint" >"$new/.kiosk-installed"
    fi
  fi
  # The switch: a new link renamed over the old one, so `current` is always one or the other.
  [ -z "$old" ] || [ "$old" = "$new" ] || ensure_link "$APP_DIR/previous" "$old"
  ensure_link "$APP_DIR/current" "$new"
  ensure_link "$VENV" "$APP_DIR/current"
  prune_venvs
}

# run_or_keep CMD...: run a step of a new install; when it fails, remove the half-made venv
# ($new: it would only take room on the card), say that the version installed before stays in
# use, and stop (status 3).
run_or_keep() {
  run "$@" && return 0
  [ -n "$ROOT" ] || [ "$DRY_RUN" = 1 ] || [ -z "${new-}" ] || rm -rf "$new"
  say "${0##*/}：新版本没有装上（$1 失败），继续使用原来的版本：请看上面的输出，排除问题后再运行一次" >&2
  exit 3
}

# adopt_legacy_venv: an install from before the switch had its venv at $VENV itself: it becomes
# $APP_DIR/venvs/legacy (still the running one until the new version is in place).
adopt_legacy_venv() {
  [ -n "$ROOT" ] || [ ! -d "$VENV" ] || [ -L "$VENV" ] || {
    ensure_dir "$APP_DIR/venvs" 755
    note_change "把 $VENV 处的 venv 移到 $APP_DIR/venvs/legacy"
    [ "$DRY_RUN" = 1 ] || { mv "$VENV" "$APP_DIR/venvs/legacy" &&
      ln -sfn "$APP_DIR/venvs/legacy" "$APP_DIR/current" && ln -sfn "$APP_DIR/current" "$VENV"; }
    old=$APP_DIR/venvs/legacy
  }
}

# prune_venvs: remove every venv but the current and the previous one.
prune_venvs() {
  local keep_current keep_previous v
  [ -z "$ROOT" ] || return 0
  keep_current=$(readlink "$APP_DIR/current" 2>/dev/null || true)
  keep_previous=$(readlink "$APP_DIR/previous" 2>/dev/null || true)
  for v in "$APP_DIR"/venvs/*; do
    [ -d "$v" ] || continue
    [ "$v" = "$keep_current" ] || [ "$v" = "$keep_previous" ] || run rm -rf "$v"
  done
}

# fingerprint SOURCE [WHEELHOUSE [EXTRA]]: a hash of the project's files (or the wheel), the
# constraints, the wheelhouse's wheels and the extra.
fingerprint() {
  {
    if [ -f "$1" ]; then
      sha256sum <"$1"
    else
      (cd "$1" && find . \( -name .git -o -name .venv -o -name __pycache__ -o -name '*.egg-info' \
          -o -name build -o -name dist -o -name '.*_cache' -o -name .hypothesis \
          -o -name .demo-data \) -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
    fi
    sha256sum <"$DEPLOY_DIR/constraints.txt"
    printf '%s\n' "${3-}"
    [ -z "${2-}" ] || (cd "$2" && find . -name '*.whl' -print0 | LC_ALL=C sort -z |
      xargs -0 -r sha256sum)
  } | sha256sum | cut -d' ' -f1
}

# enable_unit UNIT [--now]: enable a systemd unit unless it is already.
enable_unit() {
  if needs systemctl is-enabled --quiet "$1"; then
    run systemctl enable "${@:2}" "$1"
  fi
}

# edit_cmdline "REMOVE..." "ADD...": change the one line of the Pi's kernel command line:
# drop the tokens matching a REMOVE pattern, and set each ADD token (replacing a token of the
# same key), keeping everything else in its place. Not a Pi (no cmdline.txt): left alone.
edit_cmdline() {
  local path=/boot/firmware/cmdline.txt tokens=() drop=() add=() out=() t p a skip
  if [ ! -f "$ROOT$path" ]; then
    say "注意：没有 ${path}（不是树莓派？）：内核命令行保持不变"
    return 0
  fi
  read -r -a drop <<<"$1"
  read -r -a add <<<"$2"
  read -r -a tokens <"$ROOT$path" || true
  for a in "${add[@]}"; do drop+=("${a%%=*}" "${a%%=*}=*"); done
  for t in "${tokens[@]}"; do
    skip=0
    for p in "${drop[@]}"; do
      # shellcheck disable=SC2254  # p is a pattern on purpose
      case $t in $p) skip=1 ;; esac
    done
    [ "$skip" = 1 ] || out+=("$t")
  done
  out+=("${add[@]}")
  put_file "$path" "" backup <<<"${out[*]}"
}

# finish: write the --root record and say what happened.
finish() {
  local record=/var/lib/kiosk-provision/skipped.txt
  if [ -n "$ROOT" ] && [ "$DRY_RUN" = 0 ]; then
    mkdir -p "$ROOT${record%/*}"
    {
      printf '# %s 在 --root 下没有运行的命令；在一台新机器上正式运行时，\n' "${0##*/}"
      printf '# 会按这个顺序运行它们。\n'
      printf '%s\n' "${SKIPPED[@]}"
    } >"$ROOT$record.new"
    if cmp -s "$ROOT$record.new" "$ROOT$record"; then rm -f "$ROOT$record.new"
    else mv -f "$ROOT$record.new" "$ROOT$record"; fi
    say "未运行的命令（--root）：${#SKIPPED[@]} 条，列在 $ROOT$record"
  fi
  if [ "$DRY_RUN" = 1 ]; then
    if [ "$CHANGES" -eq 0 ]; then say "试运行：不会有任何改动"
    else say "试运行：将做 $CHANGES 处改动；这次什么都没有改"; fi
  elif [ "$CHANGES" -eq 0 ]; then
    say "没有改动：本机已经配置好了"
  else
    say "完成：共做了 $CHANGES 处改动"
  fi
}

# House rulesets (docs/rules.md): the head referee's ruleset files, the same file on the scorer
# and on every kiosk (the scorer refuses a kiosk whose copy of the event's ruleset differs).
# Each machine keeps them in RULES_DIR, which its units name (KIOSK_RULES_DIR); the directory
# is always there, empty when the event plays a built-in ruleset.
RULES_DIR=/etc/kiosk/rules
RULES_FILES=()

# check_rules DIR: the ruleset files of DIR (*.toml; hidden files, such as a Mac's ._x.toml,
# left out) checked by this copy of the project's rules core, before anything changes: a file
# it refuses stops the script with the core's own words (the file, the key, what is allowed).
check_rules() {
  local dir=$1 f stage name said
  [ -d "$dir" ] || die "--rules-dir ${dir}：没有这个目录"
  dir=$(realpath "$dir")
  for f in "$dir"/*.toml; do
    [ ! -f "$f" ] || RULES_FILES+=("$f")
  done
  # Checked in a copy named as the folder: the words name the files as the operator sees them.
  name=${dir##*/}
  stage=$(mktemp -d)
  mkdir "$stage/$name"
  [ ${#RULES_FILES[@]} -eq 0 ] || cp "${RULES_FILES[@]}" "$stage/$name/"
  if ! said=$(cd "$stage" && env -u KIOSK_RULES_DIR python3 -c 'import sys; sys.path.insert(0, sys.argv.pop(1))
from kiosk.cli.main import main
sys.exit(main())' "$PROJECT_DIR" --rules-dir "$name" rules list --lang zh-Hans 2>&1); then
    rm -rf "$stage"
    die "--rules-dir ${dir}：${said#kiosk rules：}。什么都没有改动"
  fi
  rm -rf "$stage"
}

# put_rules [DIR]: RULES_DIR there; with DIR (checked by check_rules), it holds exactly DIR's
# ruleset files: each copied as it is (the scorer compares copies by their sha256), and the
# ones not in DIR removed (a ruleset renamed would otherwise be there twice, under one id).
put_rules() {
  local f name keep=" "
  ensure_dir "${RULES_DIR%/*}" 755
  ensure_dir "$RULES_DIR" 755
  [ -n "${1-}" ] || return 0
  for f in "${RULES_FILES[@]}"; do
    name=${f##*/}
    copy_file "$f" "$RULES_DIR/$name" 644
    keep+="$name "
    say "自定规则 ${name}：sha256 $(sha256sum <"$f" | cut -d' ' -f1)"
  done
  for f in "$ROOT$RULES_DIR"/*.toml; do
    name=${f##*/}
    [ ! -f "$f" ] || [[ $keep == *" $name "* ]] || remove_file "$RULES_DIR/$name"
  done
}

#!/usr/bin/env bash
# kiosk-selftest: the acceptance run (`kiosk hw selftest`) in exactly the kiosk's service
# environment: its user, its settings (/etc/kiosk/kiosk.env: the printer and its speed), its
# working directory and variables (kept equal to kiosk-table.service's by a test). The kiosk
# holds the GPIO and the screen, so it is stopped for the run and started again after.
# Installed by deploy/provision-kiosk.sh as /usr/local/bin/kiosk-selftest; run it as root:
#
#   sudo kiosk-selftest [--lang en] [--press-timeout 30]
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "kiosk-selftest：需要 root 权限，请运行 sudo kiosk-selftest" >&2; exit 2; }
was_active=0
if systemctl is-active --quiet kiosk-table.service; then
  was_active=1
  systemctl stop kiosk-table.service
fi
status=0
systemd-run --quiet --pty --wait --collect --uid=kiosk --gid=kiosk \
  --property=EnvironmentFile=/etc/kiosk/kiosk.env \
  --property=RuntimeDirectory=kiosk --property=WorkingDirectory=/run/kiosk \
  --setenv=LG_WD=/run/kiosk \
  --setenv=GPIOZERO_PIN_FACTORY=lgpio \
  --setenv=KIVY_WINDOW=sdl2 \
  --setenv=SDL_VIDEODRIVER=kmsdrm \
  --setenv=KIVY_GL_BACKEND=sdl2 \
  --setenv=KIVY_HOME=/home/kiosk/.kivy \
  --setenv=XDG_CACHE_HOME=/var/lib/kiosk/cache \
  --setenv=PYTHONUNBUFFERED=1 \
  /opt/kiosk/venv/bin/kiosk hw selftest "$@" || status=$?
[ "$was_active" = 0 ] || systemctl start kiosk-table.service
exit "$status"

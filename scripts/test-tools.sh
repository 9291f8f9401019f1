#!/usr/bin/env bash
# The system tools the tests drive (README.md, "Set-up"): socat (pseudo-terminal serial ports),
# chromium (the counter page), openssl (certificates), udevadm (serial port listing),
# systemd-analyze (the unit), promtool (metrics), lintian and file (the Debian packages),
# mmdebstrap and systemd-nspawn (the package booted under systemd: npm run test:system).
# Run by `npm test` first (pretest) and by .ci/run: as root with apt they are installed;
# otherwise the missing ones are named with the command that installs them.
set -euo pipefail

need=()
command -v socat >/dev/null 2>&1 || need+=(socat)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v udevadm >/dev/null 2>&1 || need+=(udev)
command -v systemd-analyze >/dev/null 2>&1 || need+=(systemd)
command -v promtool >/dev/null 2>&1 || need+=(prometheus)
command -v lintian >/dev/null 2>&1 || need+=(lintian)
command -v file >/dev/null 2>&1 || need+=(file)
# The system tests' tools: installed along as root; without root their absence does not
# stop npm test (npm run test:system needs root anyway and says so).
want=()
command -v mmdebstrap >/dev/null 2>&1 || want+=(mmdebstrap)
command -v systemd-nspawn >/dev/null 2>&1 || want+=(systemd-container)
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  [ $((${#need[@]} + ${#want[@]})) -eq 0 ] && exit 0
  echo "installing what the tests need: ${need[*]} ${want[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" "${want[@]}" >/dev/null
  exit 0
fi

[ ${#need[@]} -eq 0 ] && exit 0

echo "the tests need Debian packages that are not installed: ${need[*]}" >&2
echo "install them with: sudo apt-get install -y --no-install-recommends ${need[*]}" >&2
exit 1

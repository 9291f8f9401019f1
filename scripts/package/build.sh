#!/usr/bin/env bash
# npm run package [-- --arch amd64|arm64 ...] [--out DIR] [--compress xz|gzip|none]
#
# Builds a self-contained Debian package of terminal-agent per architecture (default:
# amd64 and arm64) from the built dist/ (npm run package builds it first):
#
#   /opt/terminal-agent/           package.json, dist/src, the counter page, config/,
#                                  node_modules (production only), node/bin/node (the npm
#                                  registry's node-linux-<arch>, the runtime it runs on)
#   /usr/bin/terminal-agent        shell wrapper: the bundled node with the CLI
#   /usr/lib/systemd/system/terminal-agent.service   from deploy/ (ExecStart on the wrapper)
#   /etc/terminal-agent/config.json                  conffile, from config/terminal.example.json
#   DEBIAN/postinst, prerm, postrm                   scripts/package/debian/
#
# Nothing is compiled: the native modules' prebuilt binaries for the target architecture
# are kept, every other one removed, and each .node and the runtime are checked with
# file(1) to be of the target's machine type. Needs dpkg-deb and file; not fakeroot
# (dpkg-deb --root-owner-group). xz is the default compression (smallest; gzip builds
# several times faster, for the tests). Lintian: scripts/package/debian/lintian-overrides.
# See docs/operations.md, "Installing".
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
here=scripts/package

# The runtime bundled: the first of the Node.js versions CI tests on (.ci/run).
NODE_VERSION=$(sed -n 's/^NODE_VERSIONS=(\([^ )]*\).*/\1/p' .ci/run)
[ -n "$NODE_VERSION" ] || { echo "package: no NODE_VERSIONS in .ci/run" >&2; exit 1; }

arches=()
out="$repo/packages"
compress=xz
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) arches+=("${2:?--arch needs amd64 or arm64}"); shift 2 ;;
    --arch=*) arches+=("${1#--arch=}"); shift ;;
    --out) out=$(mkdir -p "${2:?--out needs a folder}" && cd "$2" && pwd); shift 2 ;;
    --out=*) out=$(mkdir -p "${1#--out=}" && cd "${1#--out=}" && pwd); shift ;;
    --compress) compress=${2:?--compress needs xz, gzip or none}; shift 2 ;;
    -h | --help) sed -n '2,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "package: unknown argument $1 (--arch amd64|arm64, --out DIR)" >&2; exit 1 ;;
  esac
done
[ ${#arches[@]} -gt 0 ] || arches=(amd64 arm64)
case "$compress" in
  xz | gzip | none) ;;
  *) echo "package: --compress xz, gzip or none" >&2; exit 1 ;;
esac

command -v dpkg-deb >/dev/null || { echo "package: dpkg-deb is missing (apt install dpkg)" >&2; exit 1; }
command -v file >/dev/null || { echo "package: file(1) is missing (apt install file)" >&2; exit 1; }
[ -f dist/src/cli/bin.js ] && [ -f dist/ui/page/app.js ] || {
  echo "package: dist/ is not built (npm run build)" >&2; exit 1; }

. .ci/node-runtime.sh

version=$(node -p 'require("./package.json").version')
mkdir -p "$out"

# file(1)'s words for each architecture's ELF machine.
machine_of() { case "$1" in amd64) echo 'x86-64' ;; arm64) echo 'ARM aarch64' ;; esac; }

build_one() {
  local deb_arch=$1 node_arch machine work root app runtime deb
  case "$deb_arch" in
    amd64) node_arch=x64 ;;
    arm64) node_arch=arm64 ;;
    *) echo "package: unknown architecture $deb_arch (amd64, arm64)" >&2; return 1 ;;
  esac
  machine=$(machine_of "$deb_arch")
  work=$(mktemp -d "${TMPDIR:-/tmp}/terminal-agent-package.XXXXXX")
  staging+=("$work")
  root="$work/root"
  app="$root/opt/terminal-agent"
  mkdir -p "$app" "$root/DEBIAN"

  # --- the runtime: node-linux-<arch> from the npm registry, cached like CI's --------------
  fetch_node "$NODE_VERSION" "$node_arch"
  runtime=$(node_runtime_dir "$NODE_VERSION" "$node_arch")
  install -D -m 0755 "$runtime/bin/node" "$app/node/bin/node"
  install -m 0644 "$runtime/LICENSE" "$app/node/LICENSE"

  # --- production dependencies for the target ----------------------------------------------
  # No install scripts run (--ignore-scripts): nothing is compiled, the packages' prebuilt
  # binaries are used; --cpu/--os/--libc pick optional platform packages for the target.
  mkdir "$work/npm"
  cp package.json package-lock.json "$work/npm/"
  (cd "$work/npm" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --prefer-offline \
    --os=linux --cpu="$node_arch" --libc=glibc --loglevel=error >/dev/null)
  mv "$work/npm/node_modules" "$app/node_modules"
  prune_native "$app/node_modules" "$node_arch"
  # Sources and build files of native modules: never built on the terminal.
  find "$app/node_modules" -name binding.gyp -delete
  # npm's own bookkeeping, the modules' dotfiles (lint, VCS and npm settings), and exec
  # bits: the bundled node runs every module file, none is started on its own.
  find "$app/node_modules" -type f -name '.*' -delete
  # The modules' documentation pages, examples and coverage reports: nothing the agent
  # reads, and some load scripts from the web when opened (lintian: privacy-breach-generic).
  find "$app/node_modules" -type f -name '*.html' -delete
  find "$app/node_modules" -type f -exec chmod a-x {} +

  # package.json: what the agent reads at run time (name finds the install folder, version,
  # "type": "module"), without the development scripts and dependencies.
  node -e '
    const p = require("./package.json");
    for (const k of ["scripts", "devDependencies", "allowScripts"]) delete p[k];
    process.stdout.write(JSON.stringify(p, null, 2) + "\n");
  ' >"$app/package.json"

  # --- the agent: built code, counter page, bundled configuration ---------------------------
  mkdir -p "$app/dist/ui" "$app/src/ui/page" "$app/config"
  cp -r dist/src "$app/dist/src"
  cp -r dist/ui/page "$app/dist/ui/page"
  cp src/ui/page/index.html src/ui/page/styles.css "$app/src/ui/page/"
  cp config/default.json config/environments.json config/demo-seed.json config/terminal.example.json "$app/config/"

  # --- system integration -------------------------------------------------------------------
  install -D -m 0755 "$here/terminal-agent.sh" "$root/usr/bin/terminal-agent"
  install -d "$root/usr/lib/systemd/system"
  unit_for_package deploy/terminal-agent.service >"$root/usr/lib/systemd/system/terminal-agent.service"
  install -D -m 0644 config/terminal.example.json "$root/etc/terminal-agent/config.json"
  install -d -m 0755 "$root/etc/terminal-agent/certs"
  install -D -m 0644 "$here/debian/copyright" "$root/usr/share/doc/terminal-agent/copyright"
  changelog "$version" | gzip -9n >"$root/usr/share/doc/terminal-agent/changelog.gz"
  install -D -m 0644 "$here/debian/lintian-overrides" "$root/usr/share/lintian/overrides/terminal-agent"

  # Ownership root:root, modes u=rwX,go=rX for everything shipped (tar keeps what it finds).
  chmod -R u+rwX,go+rX,go-w "$root"

  # --- the control area ----------------------------------------------------------------------
  install -m 0755 "$here/debian/postinst" "$here/debian/prerm" "$here/debian/postrm" "$root/DEBIAN/"
  echo /etc/terminal-agent/config.json >"$root/DEBIAN/conffiles"
  local size
  size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
  sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$deb_arch/" -e "s/@SIZE@/$size/" \
    "$here/debian/control" >"$root/DEBIAN/control"
  (cd "$root" && find . -path ./DEBIAN -prune -o -type f -print0 | sort -z |
    xargs -0 md5sum | sed 's| \./| |') >"$root/DEBIAN/md5sums"
  chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"

  check_machine "$root" "$machine"

  deb="$out/terminal-agent_${version}_${deb_arch}.deb"
  dpkg-deb --root-owner-group -Z"$compress" --build "$root" "$deb" >/dev/null
  echo "$deb"
}

# Keeps the native binaries of linux-<arch> with glibc; removes every other platform's.
prune_native() {
  local modules=$1 arch=$2 sqlite="$1/better-sqlite3" serial="$1/@serialport/bindings-cpp"
  [ -f "$sqlite/prebuilds/linux-$arch.node" ] || {
    echo "package: better-sqlite3 ships no prebuilds/linux-$arch.node" >&2; return 1; }
  find "$sqlite/prebuilds" -type f ! -name "linux-$arch.node" -delete
  rm -rf "$sqlite/deps" "$sqlite/src" "$sqlite/build"
  ls "$serial/prebuilds/linux-$arch/"*glibc.node >/dev/null 2>&1 || {
    echo "package: @serialport/bindings-cpp ships no prebuilds/linux-$arch glibc binary" >&2; return 1; }
  find "$serial/prebuilds" -mindepth 1 -maxdepth 1 ! -name "linux-$arch" -exec rm -rf {} +
  find "$serial/prebuilds/linux-$arch" -type f ! -name '*glibc.node' -delete
  rm -rf "$serial/src" "$serial/build"
  # Any other module's compiled output left from a previous build would be for the wrong
  # machine: there must be none.
  local stray
  stray=$(find "$modules" -path '*/build/Release/*' -name '*.node' | head -1)
  [ -z "$stray" ] || { echo "package: unexpected compiled module $stray" >&2; return 1; }
}

# Every ELF file shipped (the runtime and the .node modules) must be for the target.
check_machine() {
  local root=$1 machine=$2 f desc bad=0 count=0
  while IFS= read -r -d '' f; do
    desc=$(file -b "$f")
    case "$desc" in
      ELF*)
        count=$((count + 1))
        case "$desc" in
          *"$machine"*) ;;
          *) echo "package: ${f#"$root"} is not $machine: $desc" >&2; bad=1 ;;
        esac ;;
    esac
  done < <(find "$root/opt" -type f \( -name '*.node' -o -path '*/node/bin/node' \) -print0)
  [ "$count" -ge 3 ] || { echo "package: expected the runtime and two native modules, found $count ELF files" >&2; bad=1; }
  return $bad
}

# deploy/terminal-agent.service with ExecStart on /usr/bin/terminal-agent: the package
# brings its own runtime, there is no /usr/bin/node. A unit already starting the wrapper
# is taken as it is; any other ExecStart stops the build rather than ship a unit that
# cannot start.
unit_for_package() {
  local unit=$1 legacy='/usr/bin/node /opt/terminal-agent/dist/src/cli/bin.js'
  if grep -q '^ExecStart=/usr/bin/terminal-agent ' "$unit"; then
    cat "$unit"
  elif grep -qF "ExecStart=$legacy " "$unit"; then
    sed "s|^ExecStart=$legacy |ExecStart=/usr/bin/terminal-agent |" "$unit"
  else
    echo "package: $unit: ExecStart runs neither /usr/bin/terminal-agent nor $legacy" >&2
    return 1
  fi
}

changelog() {
  cat <<EOF
terminal-agent ($1) unstable; urgency=medium

  * Release $1: see the repository's history.

 -- terminal-agent maintainers <terminal-agent@example.com>  $(date -R -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")
EOF
}

staging=()
trap 'rm -rf "${staging[@]}"' EXIT
for arch in "${arches[@]}"; do
  build_one "$arch"
done

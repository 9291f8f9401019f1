#!/usr/bin/env bash
# scripts/package/check.sh DEB...   (.ci/run runs it on the packages npm run package built)
#
# For each package: lintian must report no error (warnings are printed); every ELF file in
# it (the bundled node, the native modules) must be of the package's architecture
# (file(1)). A package of this machine's architecture is also unpacked into a throwaway
# root (dpkg-deb -x: the host's dpkg database and / are not touched) and run from there:
#   terminal-agent --help, --version, config show   must exit 0
#   the native modules                        load on the bundled node (SQLite in memory,
#                                             serialport's binding)
#   terminal-agent diag --json                with development certificates made by the
#     installed `certs gen-dev` and the bundled `local` environment, whose demo platform is
#     not running: exit 1 (checks failed) is expected, but the JSON must parse and the
#     configuration and certificate checks must pass; exit 2 or more is a crash.
set -euo pipefail

[ $# -gt 0 ] || { echo "usage: $0 DEB..." >&2; exit 1; }
command -v lintian >/dev/null || { echo "check: lintian is missing (apt install lintian)" >&2; exit 1; }

host_arch=$(dpkg --print-architecture)
work=$(mktemp -d "${TMPDIR:-/tmp}/terminal-agent-check.XXXXXX")
trap 'rm -rf "$work"' EXIT

check_one() {
  local deb=$1 arch machine root f desc count=0
  arch=$(dpkg-deb -f "$deb" Architecture)
  case "$arch" in
    amd64) machine='x86-64' ;;
    arm64) machine='ARM aarch64' ;;
    *) echo "check: $deb: unexpected architecture $arch" >&2; return 1 ;;
  esac
  echo "=== $deb ($arch)"

  # Lintian: no error; the overrides (with their reasons) are in the package.
  local lint=0
  lintian --fail-on error "$deb" >"$work/lintian.txt" 2>&1 || lint=$?
  grep -v '^running with root privileges' "$work/lintian.txt" || true
  [ "$lint" -eq 0 ] || { echo "check: lintian reports errors in $deb (exit $lint)" >&2; return 1; }

  root="$work/$arch"
  mkdir -p "$root"
  dpkg-deb -x "$deb" "$root"
  while IFS= read -r -d '' f; do
    desc=$(file -b "$f")
    case "$desc" in
      ELF*)
        count=$((count + 1))
        echo "${f#"$root"}: $desc" | cut -c1-160
        case "$desc" in *"$machine"*) ;; *) echo "check: ${f#"$root"} is not $machine" >&2; return 1 ;; esac ;;
    esac
  done < <(find "$root" -type f -print0)
  [ "$count" -ge 3 ] || { echo "check: expected the runtime and two native modules, found $count ELF files" >&2; return 1; }

  if [ "$arch" != "$host_arch" ]; then
    echo "=== $arch on $host_arch: contents checked, not run"
    return 0
  fi

  local bin="$root/usr/bin/terminal-agent" app="$root/opt/terminal-agent" run="$work/run-$arch"
  mkdir -p "$run"
  # A clean environment: no PATH entry with another node, no TERMINAL_AGENT_* of the CI shell.
  local -a clean=(env -i "PATH=/usr/bin:/bin" "HOME=$run" "TERMINAL_AGENT_DATA_DIR=$run/data")
  (cd "$run" && "${clean[@]}" "$bin" --help >/dev/null)
  (cd "$run" && "${clean[@]}" "$bin" --version)
  (cd "$run" && "${clean[@]}" "$bin" config show >/dev/null)
  "${clean[@]}" "$app/node/bin/node" -e '
    const app = process.argv[1];
    const Database = require(app + "/node_modules/better-sqlite3");
    const db = new Database(":memory:");
    if (db.prepare("select 1 + 1 as two").get().two !== 2) throw new Error("sqlite");
    const { autoDetect } = require(app + "/node_modules/@serialport/bindings-cpp");
    if (typeof autoDetect().list !== "function") throw new Error("serialport binding");
    console.log("native modules load on node " + process.version + " " + process.arch);
  ' "$app"

  (cd "$run" && "${clean[@]}" "$bin" certs gen-dev --dir "$run/certs" >/dev/null)
  local code=0
  (cd "$run" && "${clean[@]}" \
    "TERMINAL_AGENT_IDENTITY__CERT_FILE=$run/certs/device.crt" \
    "TERMINAL_AGENT_IDENTITY__KEY_FILE=$run/certs/device.key" \
    "TERMINAL_AGENT_IDENTITY__CA_FILE=$run/certs/platform-ca.crt" \
    "$bin" --data-dir "$run/data" diag --json >"$run/diag.json") || code=$?
  [ "$code" -le 1 ] || { echo "check: diag exited $code" >&2; cat "$run/diag.json" >&2; return 1; }
  "${clean[@]}" "$app/node/bin/node" -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const status = Object.fromEntries(r.checks.map((c) => [c.id, c.status]));
    for (const id of ["config", "certificate"]) {
      if (status[id] !== "ok") throw new Error(`diag: ${id} is ${status[id]}`);
    }
    console.log("diag --json (exit " + process.argv[2] + "): " + JSON.stringify(r.counts) + "; " +
      r.checks.filter((c) => c.status === "fail").map((c) => c.id).join(", ") + " failed (no platform running)");
  ' "$run/diag.json" "$code"
  echo "=== $arch: installed under $root and run: ok"
}

for deb in "$@"; do
  check_one "$deb"
done

#!/usr/bin/env bash
# npm run test:system [-- --deb FILE] [--keep]
#
# The Debian package under systemd, in a booted Debian root (docs/operations.md, "System
# tests"). Needs root (mmdebstrap, systemd-nspawn); scripts/test-tools.sh installs the
# tools when missing.
#
#   1. A Debian root made with mmdebstrap (systemd, systemd-sysv, dbus, curl and the
#      package's dependencies), cached as a tarball under .ci/cache/system/, keyed by the
#      suite and the package list, and unpacked afresh for each run.
#   2. Booted with systemd-nspawn --boot on its own network namespace (loopback only: the
#      agent's local API and the embedded demo platform do not meet the host's ports).
#      Commands run inside with nsenter on the container's PID 1.
#   3. The amd64 package (default packages/terminal-agent_*_amd64.deb, built with gzip
#      when absent) installed with dpkg, configured for environment local (embedded demo
#      platform, simulated devices), and the unit checked: readiness by sd_notify, reload,
#      restart after kill -9, stop within TimeoutStopSec, priorities in the journal, the
#      exposure score of systemd-analyze security.
#   4. Upgrade in place: the package of the previous release (the last git tag, or
#      PREVIOUS_COMMIT below; built once and cached by commit under .ci/cache/system/)
#      installed, a wallet sale held by the demo platform and two offline sales queued, then
#      the new package installed over it with dpkg -i while the unit runs; the held sale
#      must end once, each offline sale be uploaded once (the demo platform's ledger), and
#      the journal be at the new schema version.
#
# One line per check with its figure. Exit 0 all passed; 1 a check failed (named);
# 77 skipped: systemd-nspawn cannot boot a container on this machine (the reason printed);
# .ci/run reports 77 as skipped, never as passed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"

SKIP=77
SUITE=bookworm
# What the root holds: systemd as PID 1 and its bus, curl for the demo platform's control
# routes, and the package's Depends as its control file names them (no more: a dependency
# the control file forgets shows here as a unit that fails).
depends=$(sed -n 's/^Depends: //p' scripts/package/debian/control | sed 's/([^)]*)//g; s/ //g')
IFS=, read -r -a package_depends <<<"$depends"
ROOT_PACKAGES=(systemd systemd-sysv dbus curl ca-certificates "${package_depends[@]}")
# The previous release when the repository has no tag: the last commit with journal
# schema 8 (migrations 9, request ids, and 10, audit rows, came after it).
PREVIOUS_COMMIT=aa30c7d12ad089d868a966c7fe7d8a5110de251d
# docs/operations.md, "systemd unit": the exposure the unit must stay within.
EXPOSURE_BOUND=2.5
MACHINE=ta-system-$$

deb=
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --deb) deb=${2:?--deb needs a file}; shift 2 ;;
    --keep) keep=1; shift ;;
    -h | --help) sed -n '2,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "system: unknown argument $1 (--deb FILE, --keep)" >&2; exit 1 ;;
  esac
done

say() { echo "system: $*"; }
fail() { echo "system: FAILED: $*" >&2; exit 1; }
skip() { echo "system: SKIPPED: $*"; exit "$SKIP"; }

[ "$(id -u)" -eq 0 ] || skip "needs root (mmdebstrap and systemd-nspawn): run it with sudo"
bash scripts/test-tools.sh
for tool in mmdebstrap systemd-nspawn nsenter dpkg-deb; do
  command -v "$tool" >/dev/null || fail "$tool is missing"
done

started_all=$(date +%s)
cache="$repo/.ci/cache/system"
mkdir -p "$cache"
export NODE_RUNTIME_CACHE=${NODE_RUNTIME_CACHE:-$repo/.ci/cache}

# --- the packages -------------------------------------------------------------------------
if [ -z "$deb" ]; then
  deb=$(ls packages/terminal-agent_*_amd64.deb 2>/dev/null | head -1 || true)
  if [ -z "$deb" ]; then
    say "no packages/terminal-agent_*_amd64.deb: building it (gzip)"
    npm run package -- --arch amd64 --compress gzip --out packages >/dev/null
    deb=$(ls packages/terminal-agent_*_amd64.deb | head -1)
  fi
fi
[ -f "$deb" ] || fail "no package $deb"

# The last tag before this commit (a tag on HEAD itself is this release, not the previous).
# A shallow clone (a CI checkout) lacks it: its history is fetched once from where it came from.
if [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
  git fetch --quiet --unshallow --tags 2>/dev/null || say "the clone is shallow and its history could not be fetched"
fi
previous=$(git describe --tags --abbrev=0 HEAD^ 2>/dev/null || true)
previous_commit=$(git rev-parse --verify -q "${previous:-$PREVIOUS_COMMIT}^{commit}") ||
  fail "the previous release ${previous:-$PREVIOUS_COMMIT} is not in this clone (a shallow clone? git fetch --unshallow)"
prev_dir="$cache/prev-$previous_commit"
prev_deb=$(ls "$prev_dir"/terminal-agent_*_amd64.deb 2>/dev/null | head -1 || true)
if [ -z "$prev_deb" ]; then
  say "building the previous release's package (${previous:-commit ${previous_commit:0:12}})"
  src=$(mktemp -d "${TMPDIR:-/tmp}/terminal-agent-previous.XXXXXX")
  git archive "$previous_commit" | tar -x -C "$src"
  # The shared node_modules: the production dependencies are resolved again by
  # build.sh from the commit's own lock file; only the compiler comes from here.
  ln -s "$(readlink -f node_modules)" "$src/node_modules"
  # Built into a folder of its own and moved in place whole: an interrupted build leaves no
  # half-written package in the cache.
  rm -rf "$prev_dir.part"
  if ! (cd "$src" && npm run build >/dev/null &&
    bash scripts/package/build.sh --arch amd64 --compress gzip --out "$prev_dir.part" >/dev/null); then
    rm -rf "$src" "$prev_dir.part"
    fail "the previous release (${previous_commit:0:12}) did not build"
  fi
  rm -rf "$src" "$prev_dir"
  mv "$prev_dir.part" "$prev_dir"
  prev_deb=$(ls "$prev_dir"/terminal-agent_*_amd64.deb | head -1)
fi

# --- the Debian root -----------------------------------------------------------------------
key=$(printf '%s\n' "$SUITE" "${ROOT_PACKAGES[@]}" | sha256sum | cut -c1-16)
root_tar="$cache/root-$SUITE-$key.tar"
if [ ! -f "$root_tar" ]; then
  t0=$(date +%s)
  mmdebstrap --variant=minbase --format=tar --include="$(IFS=,; echo "${ROOT_PACKAGES[*]}")" \
    "$SUITE" "$root_tar.part" >"$cache/mmdebstrap.log" 2>&1 ||
    fail "mmdebstrap $SUITE failed (see $cache/mmdebstrap.log)"
  mv "$root_tar.part" "$root_tar"
  say "root: made $SUITE with mmdebstrap in $(($(date +%s) - t0)) s"
else
  say "root: cached $(basename "$root_tar")"
fi

work=$(mktemp -d "${TMPDIR:-/var/tmp}/terminal-agent-system.XXXXXX")
root="$work/root"
mkdir "$root"
tar --numeric-owner -xpf "$root_tar" -C "$root"
cp "$deb" "$root/root/new.deb"
cp "$prev_deb" "$root/root/previous.deb"

nspawn_pid=
pid1=
cleanup() {
  local code=$?
  if [ -n "$pid1" ] && [ -d "/proc/$pid1" ]; then
    nsenter -t "$pid1" -a systemctl poweroff >/dev/null 2>&1 || kill -TERM "$pid1" 2>/dev/null || true
  fi
  if [ -n "$nspawn_pid" ]; then
    for _ in $(seq 1 30); do [ -d "/proc/$nspawn_pid" ] || break; sleep 1; done
    kill -KILL "$nspawn_pid" 2>/dev/null || true
  fi
  if [ "$keep" -eq 1 ] || { [ "$code" -ne 0 ] && [ "$code" -ne "$SKIP" ]; }; then
    echo "system: the root and its console log are kept in $work" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

# The container's PID 1: the systemd below systemd-nspawn (nspawn forks once more for it).
find_pid1() {
  local p=$1 c
  for c in $(pgrep -P "$p" || true); do
    if [ "$(cat "/proc/$c/comm" 2>/dev/null)" = systemd ]; then echo "$c"; return 0; fi
    find_pid1 "$c" && return 0
  done
  return 1
}

# Boots the root with one set of nspawn options; 0 once systemd inside says running or degraded.
try_boot() {
  local log="$work/console-$1.log"
  shift
  nspawn_pid=
  pid1=
  systemd-nspawn --quiet -D "$root" --boot --machine="$MACHINE" --private-network "$@" \
    </dev/null >"$log" 2>&1 &
  nspawn_pid=$!
  local state=
  for _ in $(seq 1 60); do
    [ -d "/proc/$nspawn_pid" ] || break
    [ -n "$pid1" ] || pid1=$(find_pid1 "$nspawn_pid" || true)
    if [ -n "$pid1" ]; then
      state=$(nsenter -t "$pid1" -a systemctl is-system-running 2>/dev/null || true)
      case "$state" in running | degraded) return 0 ;; esac
    fi
    sleep 1
  done
  # nspawn's own reason comes first; a line about its propagation folder follows any failure.
  boot_error=$(grep -v -e '^$' -e 'Attempted to remove disk file system' "$log" | head -1)
  [ -n "$boot_error" ] || boot_error="systemd inside did not come up (state ${state:-unknown})"
  kill -KILL "$nspawn_pid" 2>/dev/null || true
  wait "$nspawn_pid" 2>/dev/null || true
  pid1=
  nspawn_pid=
  return 1
}

# The documented alternatives in turn: registration with machined needs a systemd host
# (a container host without one answers "Failed to open system bus"), --keep-unit the
# same, and a host whose cgroup hierarchy nspawn misreads can be told which to use.
t0=$(date +%s)
boot_errors=()
booted=
for attempt in default register-no keep-unit legacy-cgroup; do
  case "$attempt" in
    default) opts=() ;;
    register-no) opts=(--register=no) ;;
    # Without a systemd host nspawn cannot make a scope unit for the container either.
    keep-unit) opts=(--register=no --keep-unit --private-users=no) ;;
    legacy-cgroup) opts=(--register=no --keep-unit --private-users=no) ;;
  esac
  if [ "$attempt" = legacy-cgroup ]; then
    SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=0 try_boot "$attempt" "${opts[@]}" && booted=$attempt && break
  else
    try_boot "$attempt" "${opts[@]}" && booted=$attempt && break
  fi
  boot_errors+=("$attempt: $boot_error")
done
if [ -z "$booted" ]; then
  skip "systemd-nspawn cannot boot a container on this machine ($(IFS=';'; echo "${boot_errors[*]}"))"
fi
tried=
[ ${#boot_errors[@]} -eq 0 ] || tried="; refused before: $(IFS=';'; echo "${boot_errors[*]}")"
say "boot: systemd-nspawn --boot ${opts[*]} running in $(($(date +%s) - t0)) s$tried"

# A command inside the container, with its own environment.
in_root() { nsenter -t "$pid1" -a env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
# The CLI as the service user with the service's configuration (docs/operations.md, "CLI commands").
agent_cli() { in_root runuser -u terminal-agent -- terminal-agent --config /etc/terminal-agent/config.json "$@"; }
# The demo platform's control routes (docs/demo.md, "Seeing every flow on the demo").
ctl() {
  in_root curl -sS --fail-with-body --cacert /etc/terminal-agent/certs/platform-ca.crt \
    -H 'content-type: application/json' -X "$1" "https://127.0.0.1:8443/sim/control/$2" ${3:+-d "$3"}
}
unit_prop() { in_root systemctl show -P "$1" terminal-agent.service; }
now_ms() { date +%s%3N; }
# Node from the package, for reading JSON inside the root.
json() { in_root /opt/terminal-agent/node/bin/node -e "$1" "${@:2}"; }

# The configuration: environment local (embedded demo platform on loopback, simulated
# devices), its data in the unit's state directory; wallet payments paid only by a control
# call, so a sale stays held as long as the test needs.
write_config() {
  in_root sh -c 'cat >/etc/terminal-agent/config.json' <<'EOF'
{
  "environment": "local",
  "dataDir": "/var/lib/terminal-agent",
  "identity": {
    "certFile": "/etc/terminal-agent/certs/device.crt",
    "keyFile": "/etc/terminal-agent/certs/device.key",
    "caFile": "/etc/terminal-agent/certs/platform-ca.crt"
  },
  "offline": { "enabled": true, "floorLimits": { "EUR": 25000 } },
  "devices": { "simulate": true },
  "sim": { "embedded": true, "walletPayDelayMs": 0 },
  "api": { "port": 8080 },
  "log": { "level": "info" }
}
EOF
  in_root chown terminal-agent:terminal-agent /etc/terminal-agent/config.json
  in_root chmod 0600 /etc/terminal-agent/config.json
}

install_certs() {
  if ! in_root test -f /etc/terminal-agent/certs/device.crt; then
    in_root terminal-agent certs gen-dev --dir /etc/terminal-agent/certs >/dev/null
  fi
  in_root chown -R terminal-agent:terminal-agent /etc/terminal-agent/certs
}

wait_active() {
  local i
  for i in $(seq 1 "${1:-60}"); do
    [ "$(unit_prop ActiveState)" = active ] && return 0
    sleep 1
  done
  return 1
}

# ============================== 1. the unit under systemd ==================================
in_root dpkg -i /root/new.deb >"$work/dpkg-new.log" 2>&1 || fail "install: dpkg -i of $(basename "$deb") (see $work/dpkg-new.log)"
install_certs
write_config

# Readiness: Type=notify, so `systemctl start` returns once the agent sent READY=1.
t=$(now_ms)
in_root systemctl enable --now terminal-agent.service >/dev/null 2>&1 || fail "ready: systemctl start failed: $(unit_prop Result)"
ready_ms=$(($(now_ms) - t))
[ "$(unit_prop ActiveState)/$(unit_prop SubState)" = active/running ] || fail "ready: unit is $(unit_prop ActiveState)"
status_text=$(unit_prop StatusText)
case "$status_text" in serving*) ;; *) fail "ready: no sd_notify status (StatusText '$status_text')" ;; esac
say "ready: active by sd_notify in $ready_ms ms (Type=$(unit_prop Type), status \"$status_text\")"

# Reload: SIGHUP to the main process, which stays; the agent logs what it applied.
pid_before=$(unit_prop MainPID)
since=$(in_root date '+%Y-%m-%d %H:%M:%S')
t=$(now_ms)
in_root systemctl reload terminal-agent.service || fail "reload: systemctl reload failed"
reload_ms=$(($(now_ms) - t))
reloaded=
for _ in $(seq 1 20); do
  reloaded=$(in_root journalctl -u terminal-agent --since "$since" -o cat --no-pager | grep -o 'configuration reloaded[^"]*' | head -1 || true)
  [ -n "$reloaded" ] && break
  sleep 0.5
done
[ -n "$reloaded" ] || fail "reload: no 'configuration reloaded' line in the journal"
[ "$(unit_prop MainPID)" = "$pid_before" ] || fail "reload: the main process changed"
say "reload: systemctl reload in $reload_ms ms, main process $pid_before kept, logged \"$reloaded\""

# kill -9: Restart=on-failure brings it back after RestartSec.
restarts_before=$(unit_prop NRestarts)
t=$(now_ms)
in_root kill -9 "$pid_before"
back=
for _ in $(seq 1 60); do
  pid_now=$(unit_prop MainPID)
  if [ "$pid_now" != 0 ] && [ "$pid_now" != "$pid_before" ] && [ "$(unit_prop ActiveState)" = active ]; then
    back=1
    break
  fi
  sleep 0.5
done
[ -n "$back" ] || fail "restart: not active again 30 s after kill -9 ($(unit_prop ActiveState)/$(unit_prop SubState))"
say "restart: kill -9 of $pid_before, active again as $pid_now in $(($(now_ms) - t)) ms (NRestarts $restarts_before -> $(unit_prop NRestarts), RestartSec $(unit_prop RestartUSec))"

# Stop: SIGTERM, graceful, well inside TimeoutStopSec (a timeout would end in SIGKILL).
timeout_stop=$(unit_prop TimeoutStopUSec)
t=$(now_ms)
in_root systemctl stop terminal-agent.service
stop_ms=$(($(now_ms) - t))
result=$(unit_prop Result)
[ "$result" = success ] || fail "stop: result $result (TimeoutStopSec $timeout_stop)"
[ "$stop_ms" -lt 20000 ] || fail "stop: took $stop_ms ms, TimeoutStopSec is $timeout_stop"
say "stop: systemctl stop in $stop_ms ms (TimeoutStopSec $timeout_stop, result $result)"

# Priorities: a start refused for its configuration writes its reason at err (<3>);
# journalctl -p warning shows it (docs/operations.md, "Logs").
in_root cp /etc/terminal-agent/config.json /root/config.good
in_root sh -c 'cat >/etc/terminal-agent/config.json' <<'EOF'
{ "environment": "local", "dataDir": "/var/lib/terminal-agent", "api": { "port": "not a port" } }
EOF
since=$(in_root date '+%Y-%m-%d %H:%M:%S')
in_root systemctl start terminal-agent.service >/dev/null 2>&1 && fail "priority: a start with a broken configuration succeeded"
refusal=
for _ in $(seq 1 20); do
  refusal=$(in_root journalctl -u terminal-agent --since "$since" -p warning -o json --no-pager |
    json '
      const lines = require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
      const own = lines.filter((e) => e.SYSLOG_IDENTIFIER === "terminal-agent");
      const e = own.find((x) => x.PRIORITY === "3");
      if (e) console.log("PRIORITY " + e.PRIORITY + ": " + String(e.MESSAGE).slice(0, 140));
    ' || true)
  [ -n "$refusal" ] && break
  sleep 0.5
done
in_root systemctl stop terminal-agent.service
in_root cp /root/config.good /etc/terminal-agent/config.json
in_root systemctl reset-failed terminal-agent.service 2>/dev/null || true
[ -n "$refusal" ] || fail "priority: journalctl -p warning shows no line of the agent at err for the refused start"
info_count=$(in_root journalctl -u terminal-agent -p info..info -o cat --no-pager | grep -c '"level"' || true)
say "priority: refused start in journalctl -p warning, $refusal; $info_count info lines filed at PRIORITY 6"

# Exposure: systemd-analyze security on the installed unit.
exposure=$(in_root systemd-analyze security terminal-agent.service --no-pager 2>&1 |
  sed -n 's/.*Overall exposure level for terminal-agent.service: \([0-9.]*\).*/\1/p')
[ -n "$exposure" ] || fail "security: no exposure level from systemd-analyze security"
awk -v e="$exposure" -v b="$EXPOSURE_BOUND" 'BEGIN { exit !(e <= b) }' ||
  fail "security: exposure $exposure above $EXPOSURE_BOUND"
say "security: systemd-analyze security exposure $exposure (bound $EXPOSURE_BOUND)"

# ============================== 2. upgrade with money in flight ============================
# A clean start for the previous release: purge removes the journal and the ledger.
in_root systemctl disable --now terminal-agent.service >/dev/null 2>&1 || true
in_root dpkg --purge terminal-agent >"$work/dpkg-purge.log" 2>&1 || fail "upgrade: dpkg --purge failed"
in_root dpkg -i /root/previous.deb >"$work/dpkg-previous.log" 2>&1 || fail "upgrade: dpkg -i of the previous release failed"
install_certs
write_config
in_root systemctl enable --now terminal-agent.service >/dev/null 2>&1 || fail "upgrade: the previous release did not start"
schema_before=$(agent_cli journal check --json | json 'console.log(JSON.parse(require("fs").readFileSync(0, "utf8")).schemaVersion)')
say "upgrade: previous release ${previous:-${previous_commit:0:12}} ($(agent_cli --version)) active, journal schema $schema_before"

# The held sale: a consumer-scan wallet payment, waiting for the customer at the platform.
held=$(agent_cli sale 5.00 --method walletA --scenario ConsumerScan --no-wait --json |
  json 'const r = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(r.clientTransactionId ?? r.transaction?.clientTransactionId)')
[ -n "$held" ] && [ "$held" != undefined ] || fail "upgrade: the wallet sale did not start"
sleep 2
held_state=$(agent_cli status "$held" --json | json 'const r = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(r.state ?? r.transaction?.state)')
say "upgrade: wallet sale $held held by the platform (state $held_state)"

# Offline sales: the platform unreachable, two card sales approved by the reader and queued.
ctl PUT unreachable '{"seconds":600}' >/dev/null || fail "upgrade: the demo platform's unreachable control failed"
offline=()
for amount in 12.30 7.45; do
  out=$(agent_cli sale "$amount" --json) || fail "upgrade: the offline sale of $amount was not stored ($out)"
  id=$(printf '%s' "$out" | json 'const r = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(r.clientTransactionId ?? r.transaction?.clientTransactionId)')
  offline+=("$id")
done
queued=$(agent_cli queue ls --json | json 'const r = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(r.items.filter((i) => i.state === "queued").length)')
[ "$queued" = 2 ] || fail "upgrade: expected 2 queued offline sales, found $queued"
say "upgrade: offline sales ${offline[*]} queued ($queued)"

# The new package over it, under systemd: postinst try-restarts the running unit.
pid_old=$(unit_prop MainPID)
t=$(now_ms)
# The configuration was edited here and the package's example changed since: dpkg would
# ask, so an unattended upgrade keeps the terminal's own file (--force-confold).
in_root dpkg --force-confdef --force-confold -i /root/new.deb >"$work/dpkg-upgrade.log" 2>&1 || fail "upgrade: dpkg -i of the new package failed (see $work/dpkg-upgrade.log)"
wait_active 60 || fail "upgrade: the unit is $(unit_prop ActiveState) after dpkg -i"
[ "$(unit_prop MainPID)" != "$pid_old" ] || fail "upgrade: dpkg -i did not restart the agent (main process $pid_old)"
say "upgrade: dpkg -i $(basename "$deb") over it in $(($(now_ms) - t)) ms, unit active again (main process $pid_old -> $(unit_prop MainPID))"

# The customer pays the held sale now, after the restart.
ctl POST "wallet/$held/pay" >/dev/null || fail "upgrade: the demo platform did not pay the wallet sale $held"
final=
for _ in $(seq 1 60); do
  final=$(agent_cli status "$held" --refresh --json | json 'const r = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(r.state ?? r.transaction?.state)' || true)
  case "$final" in approved | captured | completed) break ;; esac
  sleep 1
done
case "$final" in approved | captured | completed) ;; *) fail "upgrade: the held sale $held is $final after the upgrade" ;; esac

# The offline sales uploaded by the new agent.
for _ in $(seq 1 60); do
  left=$(agent_cli queue ls --json | json 'const r = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(r.items.filter((i) => i.state !== "uploaded").length)')
  [ "$left" = 0 ] && break
  sleep 1
done
[ "$left" = 0 ] || fail "upgrade: $left offline sales not uploaded after the upgrade"

# Exactly once, by the demo platform's ledger: one payment record and one money movement
# (sale or authorization) per client id.
counts=$(in_root cat /var/lib/terminal-agent/demo-platform-ledger.json | json '
  const s = JSON.parse(require("fs").readFileSync(0, "utf8"));
  const out = process.argv.slice(1).map((id) => {
    const records = s.transactions.filter((t) => t.record.clientTransactionId === id && t.record.transactionType === "Payment").length;
    const moves = s.ledger.filter((e) => e.clientTransactionId === id && (e.kind === "sale" || e.kind === "authorization")).length;
    return id + "=" + records + "/" + moves;
  });
  console.log(out.join(" "));
' "$held" "${offline[@]}")
for pair in $counts; do
  [ "${pair#*=}" = 1/1 ] || fail "upgrade: the demo platform's ledger holds $pair (records/movements) instead of once"
done
# And by the agent's own journal: one row per sale.
rows=$(agent_cli transactions --date all --json | json '
  const list = JSON.parse(require("fs").readFileSync(0, "utf8")).transactions;
  console.log(process.argv.slice(1).map((id) => list.filter((t) => t.clientTransactionId === id).length).join(" "));
' "$held" "${offline[@]}")
[ "$rows" = "1 1 1" ] || fail "upgrade: the agent's journal holds the sales $rows times (held, offline, offline)"
schema_after=$(agent_cli journal check --json | json 'console.log(JSON.parse(require("fs").readFileSync(0, "utf8")).schemaVersion)')
# The newest migration this checkout knows (docs/journal.md, "Journal").
schema_new=$(grep -o 'version: [0-9]*' src/payments/journal/migrations.ts | awk '{ if ($2 > m) m = $2 } END { print m }')
[ "$schema_after" = "$schema_new" ] || fail "upgrade: journal schema $schema_after after the upgrade, the new agent's is $schema_new"
say "upgrade: held sale $held $final once; offline sales uploaded once; ledger (records/movements) $counts; agent journal rows $rows"
say "upgrade: journal schema $schema_before -> $schema_after (the new agent's $schema_new; $(agent_cli --version))"

say "all checks passed in $(($(date +%s) - started_all)) s"

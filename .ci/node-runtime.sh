# shellcheck shell=bash
# Sourced by .ci/run and scripts/package/build.sh: the npm registry's node-linux-<arch>
# packages as runtimes, unpacked once into .ci/cache (git-ignored).
#
#   node_runtime_dir VERSION ARCH   prints where that runtime lives in the cache
#   fetch_node VERSION ARCH         unpacks node-linux-ARCH@VERSION there unless present
#
# ARCH is Node's name (x64, arm64). The host's own architecture keeps the cache's
# historical folder .ci/cache/node-VERSION (the one the test runs put first on PATH);
# another architecture goes to .ci/cache/node-VERSION-linux-ARCH. npm itself is the
# machine's: `npm pack` only downloads, any node runs it.

node_host_arch() {
  case "$(uname -m)" in
    x86_64) echo x64 ;;
    aarch64 | arm64) echo arm64 ;;
    *) echo "node-runtime: no node-linux package for $(uname -m)" >&2; return 1 ;;
  esac
}

node_cache_dir() {
  echo "${NODE_RUNTIME_CACHE:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/cache}"
}

node_runtime_dir() {
  local version=$1 arch=$2 host
  host=$(node_host_arch) || return 1
  if [ "$arch" = "$host" ]; then
    echo "$(node_cache_dir)/node-$version"
  else
    echo "$(node_cache_dir)/node-$version-linux-$arch"
  fi
}

fetch_node() {
  local version=$1 arch=$2 cache dir tmp
  cache=$(node_cache_dir)
  dir=$(node_runtime_dir "$version" "$arch") || return 1
  if [ -f "$dir/bin/node" ] && [ -f "$dir/include/node/node_api.h" ]; then
    return 0
  fi
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
  (cd "$tmp" && npm pack --silent "node-linux-$arch@$version" >/dev/null)
  mkdir "$tmp/unpacked"
  tar -xzf "$tmp"/node-linux-"$arch"-*.tgz -C "$tmp/unpacked" --strip-components=1
  chmod +x "$tmp/unpacked/bin/node"
  rm -rf "$dir"
  mv "$tmp/unpacked" "$dir"
  rm -rf "$tmp"
}

#!/bin/sh
# /usr/bin/terminal-agent: the agent's CLI on the Node.js runtime bundled in the package.
# The install folder is found from this script's own place (<root>/usr/bin), so the same
# file works installed (/opt/terminal-agent) and unpacked under another root for checks.
set -e
self=$(readlink -f -- "$0")
app=${self%/usr/bin/*}/opt/terminal-agent
# Memory (docs/operations.md, "Memory settings"): one malloc arena instead of one per
# thread that allocates, a young generation of 1 MiB per semi-space instead of up to 16,
# and V8's optimizing compiler off (its code is never paged in: 7 MiB at idle, 11 in the
# demo; a sale's p50 1.05x in interleaved pairs). The same settings as `npm start` (package.json)
# and scripts/lib/production-profile.ts; an operator may set MALLOC_ARENA_MAX in the
# environment.
MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-1}
export MALLOC_ARENA_MAX
exec "$app/node/bin/node" --max-semi-space-size=1 --disable-optimizing-compilers "$app/dist/src/cli/bin.js" "$@"

#!/bin/sh
# /usr/bin/terminal-agent: the agent's CLI on the Node.js runtime bundled in the package.
# The install folder is found from this script's own place (<root>/usr/bin), so the same
# file works installed (/opt/terminal-agent) and unpacked under another root for checks.
set -e
self=$(readlink -f -- "$0")
app=${self%/usr/bin/*}/opt/terminal-agent
exec "$app/node/bin/node" "$app/dist/src/cli/bin.js" "$@"

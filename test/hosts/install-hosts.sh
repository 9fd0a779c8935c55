#!/usr/bin/env bash
# Installs the MCP hosts that the real-host suite (test/hosts/*.test.ts) drives: Claude Code, Codex
# and gemini-cli, at the exact versions of test/hosts/pinned/package-lock.json, with npm, into a
# cache directory outside the repository (they are never dependencies of toolgate):
#
#   ${TOOLGATE_HOSTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/toolgate-hosts}
#
# Idempotent: when that directory already holds this lockfile's install, it does nothing. Any
# failure exits non-zero (CI goes red). Prints the directory on its last line.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
pinned="$here/pinned"
dir="${TOOLGATE_HOSTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/toolgate-hosts}"

# Already installed: the same package.json and lockfile, and every host's package at its pin.
installed() {
  cmp -s "$pinned/package.json" "$dir/package.json" || return 1
  cmp -s "$pinned/package-lock.json" "$dir/.installed-lock.json" || return 1
  node -e '
    const { readFileSync } = require("node:fs");
    const [dir, pinned] = process.argv.slice(1);
    const want = JSON.parse(readFileSync(`${pinned}/package.json`, "utf8")).dependencies;
    for (const [name, version] of Object.entries(want)) {
      const got = JSON.parse(readFileSync(`${dir}/node_modules/${name}/package.json`, "utf8")).version;
      if (got !== version) process.exit(1);
    }
  ' "$dir" "$pinned" 2>/dev/null || return 1
  for bin in claude codex gemini; do [ -x "$dir/node_modules/.bin/$bin" ] || return 1; done
}

if installed; then
  echo "hosts already installed (claude, codex, gemini at their pins) in:"
  echo "$dir"
  exit 0
fi

mkdir -p "$dir"
rm -f "$dir/.installed-lock.json"
cp "$pinned/package.json" "$pinned/package-lock.json" "$dir/"
echo "installing the pinned hosts into $dir (npm ci; about 900 MB)"
# Claude Code declares Node >= 22 but runs on 20 (a native binary): the engine warning is expected.
(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
cp "$pinned/package-lock.json" "$dir/.installed-lock.json"
installed || { echo "install-hosts: npm ci finished but the pinned hosts are not all in $dir" >&2; exit 1; }
echo "hosts installed in:"
echo "$dir"

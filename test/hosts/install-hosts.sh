#!/usr/bin/env bash
# Installs the MCP hosts that the real-host suite (test/hosts/*.test.ts) drives: Claude Code, Codex,
# gemini-cli, opencode, Kilo CLI, qwen-code, Continue (cn) and GitHub Copilot CLI, at the exact
# versions of test/hosts/pinned/package-lock.json, with npm, into a cache directory outside the
# repository (they are never dependencies of toolgate):
#
#   ${TOOLGATE_HOSTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/toolgate-hosts}
#
# Idempotent: when that directory already holds this lockfile's install, it does nothing. Any
# failure exits non-zero (CI goes red). Prints the directory on its last line.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
pinned="$here/pinned"
dir="${TOOLGATE_HOSTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/toolgate-hosts}"
# Every host's command, as hosts.ts checks them too.
bins="claude codex gemini opencode kilo qwen cn copilot"
# Copilot CLI unpacks a package from its binary on first run (235 MB, into ~/.cache/copilot): it is
# unpacked here once, and the suite's runs, each with a fresh HOME, share it through
# COPILOT_CACHE_HOME (hosts.ts copilotCache).
copilot_cache="$dir/copilot-cache"

# Already installed: the same package.json and lockfile, every package of the lockfile that this
# platform installs at its locked version, and every host's command in place.
packages_installed() {
  cmp -s "$pinned/package.json" "$dir/package.json" || return 1
  cmp -s "$pinned/package-lock.json" "$dir/.installed-lock.json" || return 1
  node -e '
    const { existsSync, readFileSync } = require("node:fs");
    const [dir, pinned] = process.argv.slice(1);
    const lock = JSON.parse(readFileSync(`${pinned}/package-lock.json`, "utf8")).packages;
    for (const [at, entry] of Object.entries(lock)) {
      if (!at) continue;
      const manifest = `${dir}/${at}/package.json`;
      if (!existsSync(manifest)) {
        if (entry.optional) continue; // a build for another platform
        console.error(`${at} is missing`);
        process.exit(1);
      }
      const got = JSON.parse(readFileSync(manifest, "utf8")).version;
      if (got !== entry.version) {
        console.error(`${at} is ${got}, not the locked ${entry.version}`);
        process.exit(1);
      }
    }
  ' "$dir" "$pinned" || return 1
  for bin in $bins; do [ -x "$dir/node_modules/.bin/$bin" ] || return 1; done
  # opencode's and Kilo's postinstall (allowed in pinned/package.json) copies their native binary
  # from the platform package; without it opencode's command is a stub that says so and exits 1.
  ! grep -qs "postinstall script was not run" "$dir/node_modules/opencode-ai/bin/opencode.exe" || return 1
  [ -x "$dir/node_modules/@kilocode/cli/bin/.kilo" ] || return 1
}

copilot_unpacked() {
  local version
  version="$(node -p 'require(process.argv[1]).dependencies["@github/copilot"]' "$pinned/package.json")"
  compgen -G "$copilot_cache/pkg/*/$version" >/dev/null
}

if packages_installed && copilot_unpacked; then
  echo "hosts already installed ($bins, at their pins) in:"
  echo "$dir"
  exit 0
fi

if ! packages_installed; then
  mkdir -p "$dir"
  rm -f "$dir/.installed-lock.json"
  cp "$pinned/package.json" "$pinned/package-lock.json" "$dir/"
  echo "installing the pinned hosts into $dir (npm install; about 2.1 GB)"
  # Claude Code and qwen-code declare Node >= 22 but run on 20 (the suite shows it): the engine
  # warnings are expected. `npm install --no-save` with the lockfile, not `npm ci`: some hosts list
  # platform builds that the registry does not have (Kilo CLI 7.7.7's darwin and windows builds,
  # some of qwen-code's clipboard builds), so the lockfile has no entry for them and `npm ci`
  # refuses it as out of sync; install keeps every locked version and skips the missing optional
  # builds. packages_installed then checks the lockfile's versions on disk.
  (cd "$dir" && rm -rf node_modules && npm install --no-save --no-audit --no-fund --loglevel=error)
  cp "$pinned/package-lock.json" "$dir/.installed-lock.json"
  packages_installed || {
    echo "install-hosts: npm finished but the pinned hosts are not all in $dir" >&2
    exit 1
  }
fi

if ! copilot_unpacked; then
  rm -rf "$copilot_cache"
  scratch_home="$(mktemp -d)"
  HOME="$scratch_home" COPILOT_CACHE_HOME="$copilot_cache" COPILOT_OFFLINE=true COPILOT_AUTO_UPDATE=false \
    "$dir/node_modules/.bin/copilot" --version >/dev/null
  rm -rf "$scratch_home"
  copilot_unpacked || { echo "install-hosts: copilot --version did not unpack its package into $copilot_cache" >&2; exit 1; }
fi
echo "hosts installed in:"
echo "$dir"

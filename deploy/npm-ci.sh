#!/usr/bin/env bash
# `npm ci "$@"`, with one tolerated exception, used by .ci/run and deploy/Dockerfile.
#
# npm ci refuses a lockfile that lacks an optional dependency's entry, and the lockfile of
# this repository lacks the optional per-platform packages of other systems (for example
# @swc/core-darwin-arm64): it was generated against a registry mirror that does not serve
# them. When every package npm ci reports missing is such an optional dependency, and
# nothing is reported invalid, this installs the same locked versions with
# `npm install --no-save` (package.json and package-lock.json stay untouched) and says so.
# Any other disagreement between package.json and the lockfile still fails, as with npm ci.
# Regenerating package-lock.json against the public registry removes the need for this.
set -euo pipefail

log() { printf '[npm-ci] %s\n' "$*" >&2; }

output=$(mktemp)
trap 'rm -f "$output"' EXIT

set +e
npm ci "$@" 2>&1 | tee "$output"
status=${PIPESTATUS[0]}
set -e
if ((status == 0)); then
  exit 0
fi
if ! grep -q '^npm error code EUSAGE' "$output" || grep -q '^npm error Invalid:' "$output"; then
  exit "$status"
fi
missing=$(sed -n 's/^npm error Missing: \(@\{0,1\}[^@ ]*\)@[^ ]* from lock file$/\1/p' "$output")
if [[ -z "$missing" ]]; then
  exit "$status"
fi
# shellcheck disable=SC2086 # one package name per word
if ! node -e '
  const packages = require("./package-lock.json").packages;
  const optional = new Set();
  for (const entry of Object.values(packages)) for (const name of Object.keys(entry.optionalDependencies || {})) optional.add(name);
  const other = process.argv.slice(1).filter((name) => !optional.has(name) || packages["node_modules/" + name]);
  if (other.length) { console.error("[npm-ci] missing from the lockfile and not optional: " + other.join(", ")); process.exit(1); }
' $missing; then
  exit "$status"
fi
log "the lockfile lacks only optional packages of other platforms ($(echo $missing | wc -w) of them):"
log "installing the locked versions with npm install --no-save $*"
npm install --no-save "$@"

#!/usr/bin/env bash
# Install the pinned Claude Code, Codex and Gemini CLIs for tests/e2e into a cache outside the repository
# (default ~/.cache/heedful-e2e, or $HEEDFUL_E2E_CACHE), with node and npm from Debian when the
# machine has none. Safe to run again: it does nothing when the pinned versions are in place.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${HEEDFUL_E2E_CACHE:-$HOME/.cache/heedful-e2e}"
prefix="$cache/npm"
pins="$(grep -v '^#' "$here/cli-versions.txt" | xargs)"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "e2e setup: installing node and npm from Debian"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi
echo "e2e setup: node $(node --version), npm $(npm --version)"

stamp="$prefix/.pinned"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$pins" && -x "$prefix/node_modules/.bin/claude" \
      && -x "$prefix/node_modules/.bin/codex" && -x "$prefix/node_modules/.bin/gemini" ]]; then
    echo "e2e setup: cached $pins"
    exit 0
fi
mkdir -p "$prefix"
# shellcheck disable=SC2086
npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error $pins
# The claude package's postinstall puts its native binary in place; run it if npm skipped scripts.
if ! "$prefix/node_modules/.bin/claude" --version >/dev/null 2>&1; then
    (cd "$prefix/node_modules/@anthropic-ai/claude-code" && node install.cjs)
fi
"$prefix/node_modules/.bin/claude" --version
"$prefix/node_modules/.bin/codex" --version
"$prefix/node_modules/.bin/gemini" --version
printf '%s' "$pins" > "$stamp"
echo "e2e setup: installed $pins under $prefix"

#!/usr/bin/env bash
# Idempotent setup for a Debian/Ubuntu machine: system packages, npm dependencies, and native
# modules built for the runtime that will load them (Node for tests, Electron for the app).
#   scripts/setup.sh run    what `npm start` needs
#   scripts/setup.sh test   what `npm test` needs (browser, keyring, GDAL, QGIS)
set -euo pipefail
mode="${1:-run}"
cd "$(dirname "$0")/.."

say() { printf 'fieldlens setup: %s\n' "$*"; }

node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  say "Node.js 20.19 or newer is required (found $(node -v)); install it from your distribution or nodejs.org."
  exit 1
fi

# --- system packages -------------------------------------------------------------------------
run_pkgs=(build-essential python3 libsecret-1-dev)
# opencv-doc, python3-skimage and python-matplotlib-data hold the real photos labelled in tests/fixtures/real-photos.json.
test_pkgs=(chromium gnome-keyring dbus-x11 gdal-bin osmium-tool osm2pgsql python3-gdal python3-qgis qgis-providers postgresql-15 postgresql-15-postgis-3 opencv-doc python3-skimage python-matplotlib-data)
want=("${run_pkgs[@]}")
[ "$mode" = test ] && want+=("${test_pkgs[@]}")

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
fi
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then sudo=(); elif command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
    say "missing system packages: ${missing[*]}; install them as root (apt-get install ${missing[*]})."
    exit 1
  fi
  say "installing system packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- npm dependencies ------------------------------------------------------------------------
# `npm ci` installs exactly the locked versions (the lock names every platform's optional
# packages). The Electron package installs without its binary (allowScripts in package.json);
# start.mjs fetches the binary where the network allows.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  if [ -L node_modules ]; then
    # `npm ci` empties node_modules first; through a link that would be another checkout's install.
    say "node_modules links to $(readlink -f node_modules), installed before this package-lock.json; left as it is (run 'npm ci' in the checkout it belongs to)."
  else
    say "installing npm dependencies (native modules build from source; a few minutes the first time)"
    npm ci --no-audit --no-fund
  fi
fi

# --- native modules for Node (tests, browser host) -------------------------------------------
if [ "$mode" = test ] || [ "${2:-}" = node ]; then
  if ! node -e "new (require('better-sqlite3'))(':memory:'); require('keytar')" >/dev/null 2>&1; then
    say "rebuilding native modules for Node $(node -v)"
    npm rebuild better-sqlite3 keytar >/dev/null
    rm -f node_modules/.fieldlens-native-abi
  fi
fi

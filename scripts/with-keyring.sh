#!/usr/bin/env bash
# Runs a command with a private, unlocked Secret Service (gnome-keyring on a private D-Bus
# session) and a temporary HOME, so keychain tests use the real keytar path and never touch
# the user's own keyring.
set -euo pipefail
tmp=$(mktemp -d -t fieldlens-keyring-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/home" "$tmp/data" "$tmp/runtime"
chmod 700 "$tmp/runtime"
export HOME="$tmp/home" XDG_DATA_HOME="$tmp/data" XDG_RUNTIME_DIR="$tmp/runtime"
export npm_config_cache="${npm_config_cache:-$tmp/npm-cache}"
exec dbus-run-session -- sh -c 'echo -n fieldlens | gnome-keyring-daemon --unlock --components=secrets >/dev/null; exec "$@"' sh "$@"

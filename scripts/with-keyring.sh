#!/usr/bin/env bash
# Runs a command with a private, unlocked gnome-keyring on its own D-Bus session bus, in a
# throwaway HOME, so keychain tests never touch the user's real keyring.
#   bash scripts/with-keyring.sh npx vitest run tests/node/keys
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: scripts/with-keyring.sh COMMAND [ARGS...]" >&2
  exit 2
fi
for tool in dbus-run-session gnome-keyring-daemon; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "with-keyring: $tool not found (Debian/Ubuntu: apt-get install dbus gnome-keyring)" >&2
    exit 127
  fi
done

root="$(mktemp -d "${TMPDIR:-/tmp}/fieldlens-keyring.XXXXXX")"
cleanup() { rm -rf "$root"; }
trap cleanup EXIT INT TERM

mkdir -p "$root/home" "$root/data" "$root/config" "$root/cache" "$root/runtime" "$root/tmp"
chmod 700 "$root/runtime"

# Keep npm's cache where it was: a fresh HOME would make npx refetch its metadata.
export npm_config_cache="${npm_config_cache:-${HOME:-/root}/.npm}"
export HOME="$root/home"
export XDG_DATA_HOME="$root/data"
export XDG_CONFIG_HOME="$root/config"
export XDG_CACHE_HOME="$root/cache"
export XDG_RUNTIME_DIR="$root/runtime"
export TMPDIR="$root/tmp"
# Lets tests tell that they run inside this wrapper (and not against a user's keyring).
export FIELDLENS_TEST_KEYRING=1
export npm_config_update_notifier=false

status=0
dbus-run-session -- sh -c 'echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; exec "$@"' sh "$@" || status=$?
exit "$status"

#!/usr/bin/env bash
# A throwaway PostgreSQL + PostGIS cluster for tests and benchmarks: a temp folder, a free
# loopback port, trust auth on 127.0.0.1 only, durability off (fsync, full pages) for speed.
#   scripts/pg-test-cluster.sh start     prints one line: <dir> <port> (template db "fieldlens_template" has postgis)
#   scripts/pg-test-cluster.sh replica DIR PORT
#                                        a streaming replica of that cluster (pg_basebackup -R) in
#                                        DIR/replica-N on a free port; prints one line: <data dir> <port>
#   scripts/pg-test-cluster.sh replica-stop DATA | replica-start DATA PORT
#                                        stops that replica (fast shutdown) or starts it again
#   scripts/pg-test-cluster.sh stop DIR  stops the cluster and its replicas and deletes DIR
# PostgreSQL refuses to run as root, so as root the cluster belongs to the "postgres" user.
set -euo pipefail

pg_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && { echo "$d"; return; }; done
  command -v initdb >/dev/null 2>&1 && { dirname "$(command -v initdb)"; return; }
  echo "pg-test-cluster: PostgreSQL is not installed (apt-get install postgresql-15 postgresql-15-postgis-3, or scripts/setup.sh test)" >&2
  exit 1
}

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

start() {
  local bin dir port
  bin=$(pg_bin)
  # As root the cluster belongs to postgres, which must reach the folder: a private TMPDIR (the
  # test keyring's) is not traversable by it, so the cluster goes under /tmp itself.
  local base="${TMPDIR:-/tmp}"
  [ "$(id -u)" -eq 0 ] && base=/tmp
  dir=$(mktemp -d "$base/fieldlens-pg-XXXXXX")
  chmod 755 "$dir"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
  as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  # A port can be taken between the probe and the listen: try a few.
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=64MB -c max_connections=120" \
      >/dev/null 2>&1; then
      as_owner "$bin/psql" -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 \
        -c 'CREATE DATABASE fieldlens_template' >/dev/null
      as_owner "$bin/psql" -q -h 127.0.0.1 -p "$port" -U postgres -d fieldlens_template -v ON_ERROR_STOP=1 \
        -c 'CREATE EXTENSION postgis' >/dev/null
      echo "$dir $port"
      return
    fi
  done
  cat "$dir/server.log" >&2
  rm -rf "$dir"
  exit 1
}

check_dir() {
  case "$1" in */fieldlens-pg-*) ;; *) echo "pg-test-cluster: $1 is not a test cluster" >&2; exit 1 ;; esac
}

replica() {
  local bin dir="${1:?usage: pg-test-cluster.sh replica DIR PORT}" primary="${2:?usage: pg-test-cluster.sh replica DIR PORT}" data port n=1
  check_dir "$dir"
  bin=$(pg_bin)
  while [ -e "$dir/replica-$n" ]; do n=$((n + 1)); done
  data="$dir/replica-$n"
  # The walsender streams flushed WAL only: with asynchronous commits a commit would reach the
  # replica up to wal_writer_delay later, so the primary commits synchronously once it has one
  # (a role's setting outranks the server's command line; fsync stays off, so it costs no flush).
  as_owner "$bin/psql" -q -h 127.0.0.1 -p "$primary" -U postgres -d postgres -v ON_ERROR_STOP=1 \
    -c 'ALTER ROLE postgres SET synchronous_commit = on' >/dev/null
  # -R writes standby.signal and primary_conninfo: the copy starts as a hot standby streaming from the primary.
  as_owner "$bin/pg_basebackup" -h 127.0.0.1 -p "$primary" -U postgres -D "$data" -R -X stream -c fast >"$dir/basebackup-$n.log" 2>&1 \
    || { cat "$dir/basebackup-$n.log" >&2; exit 1; }
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    if replica_start "$data" "$port"; then
      echo "$data $port"
      return
    fi
  done
  cat "$data.log" >&2
  exit 1
}

replica_start() {
  local data="${1:?usage: pg-test-cluster.sh replica-start DATA PORT}" port="${2:?usage: pg-test-cluster.sh replica-start DATA PORT}"
  check_dir "$data"
  as_owner "$(pg_bin)/pg_ctl" -D "$data" -l "$data.log" -w -t 60 start \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $(dirname "$data") -c fsync=off -c full_page_writes=off -c shared_buffers=64MB -c max_connections=120 -c hot_standby=on" \
    >/dev/null 2>&1
}

replica_stop() {
  local data="${1:?usage: pg-test-cluster.sh replica-stop DATA}"
  check_dir "$data"
  as_owner "$(pg_bin)/pg_ctl" -D "$data" -m fast -w stop >/dev/null
}

stop() {
  local bin dir="${1:?usage: pg-test-cluster.sh stop DIR}" d
  check_dir "$dir"
  bin=$(pg_bin)
  for d in "$dir"/replica-*; do
    [ -d "$d" ] && as_owner "$bin/pg_ctl" -D "$d" -m immediate -w stop >/dev/null 2>&1 || true
  done
  [ -d "$dir/data" ] && as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  replica) replica "${2:-}" "${3:-}" ;;
  replica-start) replica_start "${2:-}" "${3:-}" ;;
  replica-stop) replica_stop "${2:-}" ;;
  stop) stop "${2:-}" ;;
  *) echo "usage: $0 start | replica DIR PORT | replica-start DATA PORT | replica-stop DATA | stop DIR" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# Prints the path of a redis-server (7.x) for the tests and the bench.
#
# 1. A `redis-server` on PATH is used as it is.
# 2. Otherwise Debian's package is unpacked into a cache folder: `apt-get download` + `dpkg -x`
#    of redis-server, redis-tools and the libraries they need that the system lacks, so nothing
#    is installed system-wide and no service is started. The path printed is a wrapper that
#    points LD_LIBRARY_PATH at the unpacked libraries. When apt's package lists are empty (a
#    fresh image) and this runs as root, `apt-get update` is run once first.
# 3. When that is impossible and this runs as root, Debian's `redis-server` is installed with
#    `apt-get install`.
# Anything else is an error with the reason on stderr and a non-zero exit: the tests that need
# Redis fail with it, they never skip.
set -euo pipefail

say() { echo "redis-server.sh: $*" >&2; }

if command -v redis-server >/dev/null 2>&1; then
  command -v redis-server
  exit 0
fi

cache="${BLINDFOLD_CACHE:-$HOME/.cache/blindfold}/redis"
wrapper="$cache/redis-server"
mkdir -p "$cache"

# Several test processes may ask at once: one unpacks, the others wait for it.
exec 9>"$cache/.lock"
flock 9

works() { [ -x "$1" ] && "$1" --version >/dev/null 2>&1; }

if works "$wrapper"; then
  echo "$wrapper"
  exit 0
fi

is_root() { [ "$(id -u)" = 0 ]; }

# Libraries redis-server links against that a minimal Debian may lack, as `soname package…`
# (the first package apt knows is fetched: Debian 13 renamed libssl3 to libssl3t64).
missing_libraries() {
  local soname pkgs ldconfig
  ldconfig="$(command -v ldconfig || echo /sbin/ldconfig)"
  while read -r soname pkgs; do
    if ! "$ldconfig" -p 2>/dev/null | grep -q "[[:space:]]$soname "; then
      for p in $pkgs; do
        if apt-cache show "$p" >/dev/null 2>&1; then echo "$p"; break; fi
      done
    fi
  done <<'LIBS'
libatomic.so.1 libatomic1
libssl.so.3 libssl3t64 libssl3
libcrypto.so.3 libssl3t64 libssl3
libsystemd.so.0 libsystemd0
LIBS
}

download() {
  local debs="$1"
  # shellcheck disable=SC2046
  (cd "$debs" && apt-get download redis-server redis-tools liblzf1 libjemalloc2 \
    $(missing_libraries | sort -u)) >"$cache/download.log" 2>&1
}

unpack() {
  local work
  work="$(mktemp -d "$cache/unpack.XXXXXX")"
  mkdir -p "$work/debs" "$work/root"
  if ! download "$work/debs"; then
    if is_root && [ -z "${tried_update:-}" ]; then
      tried_update=1
      say "apt-get download failed; running apt-get update once"
      apt-get update >"$cache/update.log" 2>&1 || say "apt-get update failed (see $cache/update.log)"
      download "$work/debs" || { rm -rf "$work"; return 1; }
    else
      rm -rf "$work"
      return 1
    fi
  fi
  for deb in "$work"/debs/*.deb; do dpkg -x "$deb" "$work/root"; done
  rm -rf "$cache/root" "$cache/debs"
  mv "$work/root" "$cache/root"
  mv "$work/debs" "$cache/debs"
  rmdir "$work"
  local libs
  libs="$(find "$cache/root" -name '*.so*' -printf '%h\n' | sort -u | paste -sd: -)"
  cat >"$wrapper.new" <<WRAP
#!/bin/sh
LD_LIBRARY_PATH="$libs\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$cache/root/usr/bin/redis-server" "\$@"
WRAP
  chmod +x "$wrapper.new"
  mv "$wrapper.new" "$wrapper"
  works "$wrapper"
}

if command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1; then
  if unpack; then
    echo "$wrapper"
    exit 0
  fi
  say "could not unpack Debian's redis-server into $cache (see $cache/download.log)"
  if is_root; then
    say "installing Debian's redis-server with apt-get"
    if DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server \
      >"$cache/install.log" 2>&1 && command -v redis-server >/dev/null 2>&1; then
      command -v redis-server
      exit 0
    fi
    say "apt-get install redis-server failed (see $cache/install.log)"
  fi
fi
say "no redis-server: install Debian's redis-server (apt-get install redis-server), put one on"
say "PATH, or set BLINDFOLD_REDIS_SERVER to one; the scale-out tests need a real Redis 7"
exit 1

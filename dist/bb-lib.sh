# shellcheck shell=bash
# The buildbench shell library: the one copy of the helpers the turn scripts and build.sh run with.
# src/recipe/shell-lib.ts reads this file once and inlines it (turn scripts: all of it; build.sh: the
# functions it calls), so it holds only function definitions: nothing runs until a function is called.
# Each function is `name() {` … a `}` line at column 0, with its comment lines right above it.
# CI runs shellcheck on it (test/unit/recipe/shell-lib.test.ts).

# Installs the packages that are not installed yet with apt-get, updating the package lists first only when
# the install fails; when some are missing and this is not root, says which and fails (build.sh run by a user).
bb_apt_install() {
  local absent=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q ' installed$' || absent+=("$p")
  done
  [ "${#absent[@]}" -gt 0 ] || return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "buildbench: install these packages first (as root): ${absent[*]}" >&2
    return 1
  fi
  apt-get install -y -q --no-install-recommends "${absent[@]}" || { apt-get update -q && apt-get install -y -q --no-install-recommends "${absent[@]}"; }
}

# Installs the packages of the commands that are missing; arguments are command=package(s) pairs.
bb_need_tools() {
  local missing="" pair
  for pair in "$@"; do command -v "${pair%%=*}" >/dev/null 2>&1 || missing="$missing ${pair#*=}"; done
  if [ -n "$missing" ]; then
    # shellcheck disable=SC2010 # a listing of names without spaces: is there any package list yet?
    [ -n "$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v -e '^lock$' -e '^partial$' || true)" ] || apt-get update -q
    # shellcheck disable=SC2086 # $missing is a list of package names
    bb_apt_install $missing
  fi
}

# When this build started in this tree: files older than the stamp came with the checkout (a repair that
# changes compiler flags deletes the object files compiled after it; see knowledge's repair rules).
# Exports BB_STAMP, the stamp file, one per working tree; an existing stamp is kept.
bb_start_stamp() {
  BB_STAMP="/tmp/buildbench-start-$(printf '%s' "$PWD" | cksum | cut -d ' ' -f 1)"
  [ -e "$BB_STAMP" ] || touch "$BB_STAMP" 2>/dev/null || true
  export BB_STAMP
}

# A make recipe that fails deletes its half-written target (GNU make's .DELETE_ON_ERROR, in every make run),
# so a later script does not take a truncated generated file (`gen > file.h` with gen missing) for up to date.
bb_delete_on_error() {
  case " ${MAKEFLAGS:-} " in *" --eval=.DELETE_ON_ERROR: "*) return 0;; esac
  if make --eval=.DELETE_ON_ERROR: --version >/dev/null 2>&1; then
    export MAKEFLAGS="${MAKEFLAGS:+$MAKEFLAGS }--eval=.DELETE_ON_ERROR:"
  fi
}

# Extra compiler flags (toolchain-drift repairs: BB_EXTRA_CFLAGS, BB_EXTRA_CXXFLAGS) reach every build
# system through wrappers first on PATH, in BB_WRAPPER_DIR (default /opt/buildbench/bin); they come after
# the build's own flags, so -Wno-error and -fcommon win.
bb_compiler_wrappers() {
  [ -n "${BB_EXTRA_CFLAGS:-}${BB_EXTRA_CXXFLAGS:-}" ] || return 0
  BB_WRAPPER_DIR="${BB_WRAPPER_DIR:-/opt/buildbench/bin}"
  mkdir -p "$BB_WRAPPER_DIR"
  local tool real flags launcher
  for tool in cc gcc c++ g++; do
    real=$(PATH="${PATH#"$BB_WRAPPER_DIR":}" command -v "$tool" || true)
    [ -n "$real" ] || continue
    # Behind a ccache link, call ccache with the compiler itself: ccache would find this wrapper on PATH.
    launcher=
    case "$real" in /usr/lib/ccache/*)
      launcher="$(command -v ccache) "
      real=$(p="${PATH#"$BB_WRAPPER_DIR":}"; PATH="${p//\/usr\/lib\/ccache:/}" command -v "$tool" || true) ;;
    esac
    [ -n "$real" ] || continue
    case "$tool" in c++|g++) flags="${BB_EXTRA_CXXFLAGS:-}";; *) flags="${BB_EXTRA_CFLAGS:-}";; esac
    printf '#!/bin/sh\nexec %s%s "$@" %s\n' "$launcher" "$real" "$flags" > "$BB_WRAPPER_DIR/$tool"
    chmod +x "$BB_WRAPPER_DIR/$tool"
  done
  export PATH="$BB_WRAPPER_DIR:$PATH"
}

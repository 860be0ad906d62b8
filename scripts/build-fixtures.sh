#!/usr/bin/env bash
# Rebuilds fixtures/wasm/*.wasm from fixtures/c/*.c and fixtures/cpp/*.cpp.
#
# Needs Debian's clang 19 for wasm32-wasi:
#   apt-get install -y clang-19 lld-19 wasi-libc libclang-rt-19-dev-wasm32 \
#                      libc++-19-dev-wasm32 libc++abi-19-dev-wasm32
# and the npm devDependency binaryen (for the wasm-opt -Oz variant).
#
# Every program is built in three variants:
#   NAME-O2.wasm          clang -O2
#   NAME-Oz.wasm          clang -Oz
#   NAME-Oz-wasmopt.wasm  clang -Oz, then wasm-opt -Oz (what our users feed us)
#
# Sources are compiled with -c and linked in a separate step without -O:
# when clang links with an -O level it runs wasm-opt itself if one is on the
# PATH. PATH is also stripped of every directory holding a wasm-opt, and the
# script checks that the -Oz and -Oz-wasmopt variants differ.
#
# Debug info is stripped at link time; the -O2 variants keep the name
# section, the -Oz variants keep no custom section but target_features.
#
#   usage: scripts/build-fixtures.sh [NAME...]   (default: every program)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/fixtures/wasm"
WASM_OPT="$ROOT/node_modules/binaryen/bin/wasm-opt"

CLANG="${CLANG:-clang-19}"
CLANGXX="${CLANGXX:-clang++-19}"
for tool in "$CLANG" "$CLANGXX" node; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "build-fixtures: $tool not found (apt-get install -y clang-19 lld-19 wasi-libc libclang-rt-19-dev-wasm32 libc++-19-dev-wasm32 libc++abi-19-dev-wasm32)" >&2
    exit 1
  fi
done
if [ ! -f "$WASM_OPT" ]; then
  echo "build-fixtures: $WASM_OPT not found (run npm ci)" >&2
  exit 1
fi

# Drop every PATH entry that holds a wasm-opt (node_modules/.bin under npm run, for one).
NEWPATH=""
IFS=: read -r -a parts <<<"$PATH"
for dir in "${parts[@]}"; do
  [ -z "$dir" ] && continue
  [ -e "$dir/wasm-opt" ] && continue
  NEWPATH="${NEWPATH:+$NEWPATH:}$dir"
done
export PATH="$NEWPATH"
if command -v wasm-opt >/dev/null 2>&1; then
  echo "build-fixtures: a wasm-opt is still on PATH ($(command -v wasm-opt)); refusing to build" >&2
  exit 1
fi

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"

# Reproducible objects: no absolute source paths, fixed working directory.
COMMON_FLAGS=(--target=wasm32-wasi -Wall -Wextra -Werror -fno-ident "-ffile-prefix-map=$ROOT=.")
C_FLAGS=(-std=c11 -D_GNU_SOURCE)
CXX_FLAGS=(-std=c++17 -fno-exceptions)
LINK_FLAGS=(--target=wasm32-wasi)
# -O2 keeps the name section (so the optimizer's name handling is exercised);
# -Oz strips everything but target_features, as shipped builds do.
strip_flag() { if [ "$1" = O2 ]; then echo -Wl,--strip-debug; else echo -Wl,--strip-all,--keep-section=target_features; fi; }

build() {
  local src="$1" name lang compiler
  name="$(basename "${src%.*}")"
  case "$src" in
    *.c) lang=c; compiler="$CLANG" ;;
    *.cpp) lang=cpp; compiler="$CLANGXX" ;;
  esac
  for opt in O2 Oz; do
    local obj="$TMP/$name-$opt.o" wasm="$OUT/$name-$opt.wasm"
    if [ "$lang" = c ]; then
      (cd "$ROOT" && "$compiler" "${COMMON_FLAGS[@]}" "${C_FLAGS[@]}" "-$opt" -c "$src" -o "$obj")
      "$compiler" "${LINK_FLAGS[@]}" "$(strip_flag "$opt")" "$obj" -lm -o "$wasm"
    else
      (cd "$ROOT" && "$compiler" "${COMMON_FLAGS[@]}" "${CXX_FLAGS[@]}" "-$opt" -c "$src" -o "$obj")
      "$compiler" "${LINK_FLAGS[@]}" "$(strip_flag "$opt")" "$obj" -fno-exceptions -lm -o "$wasm"
    fi
  done
  local oz="$OUT/$name-Oz.wasm" wopt="$OUT/$name-Oz-wasmopt.wasm"
  node "$WASM_OPT" "$oz" -Oz -o "$wopt"
  if cmp -s "$oz" "$wopt"; then
    echo "build-fixtures: $name-Oz.wasm is unchanged by wasm-opt -Oz: did clang already run wasm-opt?" >&2
    exit 1
  fi
  printf '%-12s O2 %7d  Oz %7d  Oz+wasm-opt %7d bytes\n' "$name" \
    "$(stat -c %s "$OUT/$name-O2.wasm")" "$(stat -c %s "$oz")" "$(stat -c %s "$wopt")"
}

cd "$ROOT"
SOURCES=()
if [ "$#" -gt 0 ]; then
  for name in "$@"; do
    if [ -f "fixtures/c/$name.c" ]; then SOURCES+=("fixtures/c/$name.c")
    elif [ -f "fixtures/cpp/$name.cpp" ]; then SOURCES+=("fixtures/cpp/$name.cpp")
    else echo "build-fixtures: no source for $name" >&2; exit 2
    fi
  done
else
  for f in fixtures/c/*.c fixtures/cpp/*.cpp; do SOURCES+=("$f"); done
fi
for src in "${SOURCES[@]}"; do build "$src"; done

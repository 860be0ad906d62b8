#!/usr/bin/env bash
# Rebuilds playground/brotli/brotli-size.wasm: Google's brotli encoder at
# v1.1.0 (commit ed738e842d2fbdf2d6459e39267a633c4a9b2f5d, the version Node
# 20's zlib carries), with size.c, for wasm32-wasi with clang 19 and
# wasi-libc (Debian: clang-19 lld-19 wasi-libc, as .ci/run installs).
#   playground/brotli/build.sh BROTLI_CHECKOUT
# brotli is MIT-licensed: its notice is in LICENSE.brotli, which goes with
# the built module.
# Its sizes must equal Node's zlib brotli at quality 5, 9 and 11, window 22:
# the playground test checks the page's output against the CLI's.
set -euo pipefail
src=${1:?usage: build.sh BROTLI_CHECKOUT (google/brotli at v1.1.0)}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
clang-19 --target=wasm32-wasi --sysroot=/usr -O2 -DNDEBUG -mexec-model=reactor \
  -I"$src/c/include" -o "$here/brotli-size.wasm" \
  "$here/size.c" "$src"/c/common/*.c "$src"/c/enc/*.c -Wl,--strip-all

#!/usr/bin/env bash
# Rebuilds the inputs of test/dwarf.test.ts: programs built with clang-19
# -Oz -g, DWARF kept, as a debug build for Chrome DevTools' C/C++ support or
# lldb is shipped (wasm-opt is not run: with DWARF it keeps most code as it is).
#   fixtures/wasm/interp-Oz-g.wasm    DWARF 5: .debug_addr, rnglists, loclists
#   fixtures/wasm/interp-Oz-g4.wasm   DWARF 4 (clang's default for wasm): .debug_ranges, .debug_loc
#   fixtures/wasm/shapes-Oz-g.wasm    C++ without its standard library, DWARF 5
#                                     (templates, virtual calls, inlined functions)
#   fixtures/wasm/templates-Oz-g.wasm C++, DWARF 5 (needs libc++-19-dev-wasm32)
# Debian's wasi-libc brings its own DWARF 4 (crt1 and the parts built with -g).
# The name section is kept (the test matches functions by name). Paths are
# relative, so the build is reproducible. Needs the packages listed in
# fixtures/README.md; links without -O, so clang runs no wasm-opt, and with
# -Wl,-O0: at -O1 and above wasm-ld merges string tails in .debug_str, which
# llvm-dwarfdump --verify reports against DWARF 5 string offsets.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/fixtures/wasm"
TMP="$(mktemp -d)"; trap 'rm -rf "$TMP"' EXIT
FLAGS=(--target=wasm32-wasi -Oz -Wall -Wextra -Werror -fno-ident "-ffile-prefix-map=$ROOT=." -fdebug-compilation-dir=.)
cd "$ROOT"
clang-19 "${FLAGS[@]}" -std=c11 -D_GNU_SOURCE -gdwarf-5 -c fixtures/c/interp.c -o "$TMP/interp.o"
clang-19 --target=wasm32-wasi -Wl,-O0 "$TMP/interp.o" -lm -o "$OUT/interp-Oz-g.wasm"
clang-19 "${FLAGS[@]}" -std=c11 -D_GNU_SOURCE -gdwarf-4 -c fixtures/c/interp.c -o "$TMP/interp4.o"
clang-19 --target=wasm32-wasi -Wl,-O0 "$TMP/interp4.o" -lm -o "$OUT/interp-Oz-g4.wasm"
clang++-19 "${FLAGS[@]}" -std=c++17 -fno-exceptions -fno-rtti -gdwarf-5 -c fixtures/cpp/shapes.cpp -o "$TMP/shapes.o"
clang++-19 --target=wasm32-wasi -Wl,-O0 "$TMP/shapes.o" -nostdlib++ -fno-exceptions -o "$OUT/shapes-Oz-g.wasm"
ls -l "$OUT/interp-Oz-g.wasm" "$OUT/interp-Oz-g4.wasm" "$OUT/shapes-Oz-g.wasm"
if ! echo '#include <algorithm>' | clang++-19 --target=wasm32-wasi -fsyntax-only -x c++ - 2>/dev/null; then
  echo "build-dwarf-fixtures: no libc++ for wasm32 (apt-get install libc++-19-dev-wasm32 libc++abi-19-dev-wasm32): templates-Oz-g.wasm not rebuilt" >&2
  exit 0
fi
clang++-19 "${FLAGS[@]}" -std=c++17 -fno-exceptions -gdwarf-5 -c fixtures/cpp/templates.cpp -o "$TMP/templates.o"
clang++-19 --target=wasm32-wasi -Wl,-O0 "$TMP/templates.o" -fno-exceptions -lm -o "$OUT/templates-Oz-g.wasm"
ls -l "$OUT/templates-Oz-g.wasm"

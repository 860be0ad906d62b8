#!/usr/bin/env bash
# Rebuilds fixtures/wasm/interp-Oz-sm.wasm and its source map, the input of
# test/source-map.test.ts: fixtures/c/interp.c built with clang-19 -Oz -g,
# a source map made from its DWARF line tables (scripts/source-map-from-dwarf.ts,
# needs llvm-dwarfdump-19 from Debian's llvm-19), then wasm-opt --strip-dwarf and
# wasm-opt -Oz -g (names kept), which carry the map along: what an Emscripten-style
# `-gsource-map` release build gives us. Run `npm run build` first.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TMP="$(mktemp -d)"; trap 'rm -rf "$TMP"' EXIT
cd "$ROOT/fixtures/c"
clang-19 --target=wasm32-wasi -Oz -g -c interp.c -o "$TMP/interp.o"
clang-19 --target=wasm32-wasi "$TMP/interp.o" -o "$TMP/interp-g.wasm"
node "$ROOT/dist/scripts/source-map-from-dwarf.js" "$TMP/interp-g.wasm" "$TMP/interp-g.map"
WASM_OPT="$ROOT/node_modules/binaryen/bin/wasm-opt"
# DWARF out first (with it, -Oz would run in its DWARF-keeping mode); -g keeps the name section
"$WASM_OPT" -g --strip-dwarf --input-source-map "$TMP/interp-g.map" --output-source-map "$TMP/nodwarf.map" \
  "$TMP/interp-g.wasm" -o "$TMP/nodwarf.wasm"
"$WASM_OPT" -Oz -g \
  --input-source-map "$TMP/nodwarf.map" \
  --output-source-map "$ROOT/fixtures/wasm/interp-Oz-sm.wasm.map" \
  --output-source-map-url interp-Oz-sm.wasm.map \
  "$TMP/nodwarf.wasm" -o "$ROOT/fixtures/wasm/interp-Oz-sm.wasm"
ls -l "$ROOT/fixtures/wasm/interp-Oz-sm.wasm" "$ROOT/fixtures/wasm/interp-Oz-sm.wasm.map"

// The library never writes to the caller's bytes, whatever array type they
// come in: a Node Buffer's slice() is a view, and the DWARF rewrite once
// patched the input's .debug_info through it (and a second run on the same
// Buffer then found the DWARF stale and removed it).

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { instrument, optimize } from "../src/index.js";
import { nodeMeasures } from "../src/cli/compress.js";
import { projectRoot } from "./spec/run-spec.js";

const fixture = (name: string): Buffer => readFileSync(join(projectRoot(), "fixtures/wasm", name));

test("optimize leaves a Buffer input as it was, and a second run on it gives the first run's output", () => {
  for (const name of ["interp-Oz-g.wasm", "shapes-Oz-g.wasm"]) {
    for (const options of [{ passes: ["outline"], target: "raw" as const }, { target: "balanced" as const, measures: nodeMeasures }]) {
      const input = fixture(name);
      const copy = Buffer.from(input);
      const first = optimize(input, options).binary;
      assert.ok(input.equals(copy), `${name} ${options.target}: the input changed`);
      const second = optimize(input, options).binary;
      assert.deepEqual(second, first, `${name} ${options.target}: the second run differs`);
      // the result does not share the caller's memory
      if (first.length > 0 && first.buffer === input.buffer) assert.fail(`${name}: the result is a view of the input`);
    }
  }
});

test("instrument leaves a Buffer input as it was", () => {
  const input = fixture("interp-Oz-g.wasm");
  const copy = Buffer.from(input);
  instrument(input);
  assert.ok(input.equals(copy));
});

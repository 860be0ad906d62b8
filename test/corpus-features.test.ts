// No new features, on the real-world corpus: every output validates under
// wabt with only the features its input uses or declares in its
// target_features section (wabt turns several on by default; they are
// turned off here unless the input has them). Under `--target raw`, which
// outlines most, for every file but esbuild; under the default target
// (balanced, with the CLI's compressors) for files up to DEFAULT_MAX bytes,
// since its brotli runs cost seconds per mid-size file.
//
// The input is validated under the same flags first: if wabt rejects it,
// the feature detector missed something the input uses.

import { after, describe, it, test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { corpus } from "./corpus/corpus.js";
import { closeExternalValidators, validateWith } from "./corpus/external.js";
import { wabtFeaturesFor } from "./corpus/wabt-features.js";
import { readModule } from "../src/binary/reader.js";
import { featureUse } from "../src/analysis/feature-use.js";
import type { WasmFeature } from "../src/analysis/feature-names.js";
import { optimize } from "../src/index.js";
import { nodeMeasures } from "../src/cli/compress.js";
import type { SizeTarget } from "../src/size-target.js";

after(() => closeExternalValidators());

/** Files up to this size are also optimized under the default target (zstd and web-tree-sitter, the hash-wasm modules). */
const DEFAULT_MAX = 256 << 10;

// The check must be able to fail: a function with two results is rejected
// without multi_value (which wabt enables by default), accepted with it.
test("wabt under an input's features rejects multi-value the input did not have", async () => {
  const bytes = await parse(`(module (func (result i32 i32) i32.const 1 i32.const 2))`);
  assert.equal((await validateWith("wabt", bytes, wabtFeaturesFor([]))).ok, false);
  assert.equal((await validateWith("wabt", bytes, wabtFeaturesFor(["multivalue"]))).ok, true);
});

for (const e of corpus().filter((x) => !x.large)) {
  describe(`${e.name} (${(e.size / 1e3).toFixed(0)} KB)`, () => {
    const input = e.bytes();
    const use = featureUse(readModule(input));
    const allowed = new Set<WasmFeature>([...use.used, ...use.declared]);
    const flags = wabtFeaturesFor(allowed);
    const features = `uses [${[...use.used].join(", ")}], declares [${[...use.declared].join(", ")}]`;

    it(`the input validates under its own features (${features})`, async () => {
      const r = await validateWith("wabt", input, flags);
      assert.ok(r.ok, r.error ?? "");
    });

    const targets: SizeTarget[] = e.size <= DEFAULT_MAX ? ["raw", "balanced"] : ["raw"];
    for (const target of targets) {
      it(`under target ${target} the output validates under the input's features`, async (t) => {
        const { binary, report } = optimize(input, { target, measures: nodeMeasures });
        const beyond = report.features.output.filter((f) => !allowed.has(f));
        assert.deepEqual(beyond, [], "the report lists no feature beyond the input's");
        const r = await validateWith("wabt", binary, flags);
        assert.ok(r.ok, r.error ?? "");
        t.diagnostic(`${input.length} -> ${binary.length} bytes; output uses [${report.features.output.join(", ")}]`);
      });
    }
  });
}

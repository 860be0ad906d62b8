// Measures fuse-branches alone through the pipeline (target raw, output
// validated as always) on a set of modules: if/else candidates, fusions and
// code bytes saved (the pass's exact count, less the bytes of table slots it appends; the file may change by more
// when the writer re-encodes what it rewrote, as with wasm-ld's padded LEBs), with the hot-code rule (the static estimate the
// pipeline uses without a profile) and without it (--outline-hot).
// Usage (after the build): nice -n 19 node dist/scripts/measure-fuse-branches.js FILE.wasm...

import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { optimize } from "../src/pipeline.js";

const files = process.argv.slice(2);
const total = { diamonds: 0, triangles: 0, candidates: 0, fused: 0, saved: 0, fusedAll: 0, savedAll: 0, bytes: 0, dFused: 0, tFused: 0, shapeBytes: 0, byMeld: 0, melds: 0, replicas: 0, indirect: 0, newSlots: 0, slotBytes: 0, byMeldHot: 0 };
console.log(["file", "bytes", "candidates", "diamonds", "triangles", "shapesRefused", "hot", "unsupported", "unaligned", "notPaying", "fused", "of which diamonds", "triangles", "by CFM-CS", "selects", "guards", "saved", "of which if form", "file saved", "fused(no hot rule)", "diamonds", "triangles", "by CFM-CS", "region pairs melded", "regions replicated", "call_indirect", "slots appended", "slot bytes", "saved(no hot rule)", "of which if form", "file saved(no hot rule)"].join("\t"));
for (const f of files) {
  const input = new Uint8Array(readFileSync(f));
  const stats = (outlineHot: boolean) => {
    const { binary, report } = optimize(input, { passes: ["fuse-branches"], target: "raw", outlineHot });
    const s = (report.passes.find((p) => p.name === "fuse-branches")?.stats ?? {}) as Record<string, number>;
    return { s, saved: s.bytesSaved ?? 0, file: input.length - binary.length };
  };
  const a = stats(false);
  const b = stats(true);
  const s = a.s;
  total.candidates += s.candidates ?? 0;
  total.fused += s.fused ?? 0;
  total.diamonds += s.diamonds ?? 0;
  total.triangles += s.triangles ?? 0;
  total.dFused += b.s.diamondsFused ?? 0;
  total.tFused += b.s.trianglesFused ?? 0;
  total.shapeBytes += b.s.shapeBytes ?? 0;
  total.byMeld += b.s.fusedByMeld ?? 0;
  total.melds += b.s.melds ?? 0;
  total.replicas += b.s.replicas ?? 0;
  total.indirect += b.s.indirect ?? 0;
  total.newSlots += b.s.newSlots ?? 0;
  total.slotBytes += b.s.slotBytes ?? 0;
  total.byMeldHot += s.fusedByMeld ?? 0;
  total.saved += a.saved;
  total.fusedAll += b.s.fused ?? 0;
  total.savedAll += b.saved;
  total.bytes += input.length;
  console.log([basename(f), input.length, s.candidates, s.diamonds, s.triangles, s.shapesRefused, s.hot, s.unsupported, s.unaligned, s.notPaying, s.fused, s.diamondsFused, s.trianglesFused, s.fusedByMeld, s.selects, s.guards, a.saved, s.shapeBytes, a.file,
    b.s.fused, b.s.diamondsFused, b.s.trianglesFused, b.s.fusedByMeld, b.s.melds, b.s.replicas, b.s.indirect, b.s.newSlots, b.s.slotBytes, b.saved, b.s.shapeBytes, b.file].join("\t"));
}
console.log(`total: ${files.length} files, ${total.bytes} bytes, ${total.candidates} if/else candidates, ${total.diamonds} diamonds, ${total.triangles} SEME triangles; with the hot rule ${total.fused} fusions (${total.byMeldHot} by CFM-CS), ${total.saved} bytes; without it ${total.fusedAll} fusions (${total.dFused} diamonds, ${total.tFused} triangles; ${total.byMeld} by CFM-CS, ${total.melds} region pairs melded, ${total.replicas} regions replicated, ${total.indirect} calls made call_indirect, ${total.newSlots} table slots appended for ${total.slotBytes} bytes), ${total.savedAll} bytes, of which ${total.shapeBytes} from writing the fused shapes as ifs`);

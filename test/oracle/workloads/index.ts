// Every workload of the behaviour oracle, in the order they run.

import type { Workload } from "../workload.js";
import { workload as sqljs } from "./sqljs.js";
import { workload as brotli } from "./brotli.js";
import { workload as zstd } from "./zstd.js";
import { workload as oniguruma } from "./oniguruma.js";
import { workload as treeSitter } from "./tree-sitter.js";
import { workload as hashWasm } from "./hash-wasm.js";
import { workload as esbuild } from "./esbuild.js";
import { workload as box2d } from "./box2d.js";
import { workload as draco } from "./draco.js";
import { workload as jsquashJpeg } from "./jsquash-jpeg.js";
import { workload as tiktoken } from "./tiktoken.js";
import { workload as photon } from "./photon.js";
import { workload as rapier } from "./rapier.js";
import { workload as ruffFmt } from "./ruff-fmt.js";
import { workload as resvg } from "./resvg.js";

export const WORKLOADS: readonly Workload[] = [sqljs, brotli, zstd, oniguruma, treeSitter, hashWasm, esbuild, box2d, draco, jsquashJpeg, tiktoken, photon, rapier, ruffFmt, resvg];

export function findWorkload(name: string): Workload {
  const w = WORKLOADS.find((x) => x.name === name);
  if (!w) throw new Error(`no workload named ${JSON.stringify(name)} (known: ${WORKLOADS.map((x) => x.name).join(", ")})`);
  return w;
}

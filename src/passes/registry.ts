// The pass registry: every pass the CLI and `optimize({ passes })` know by
// name, and the default pipeline. To add a pass, import it here, append it to
// BUILTIN_PASSES, and (once it is trusted) add its name to DEFAULT_PIPELINE in
// the order it should run.

import type { Pass } from "./pass.js";
import { UnknownPassError } from "../errors.js";
import type { SizeTarget } from "../size-target.js";
import { cleanupPass } from "./cleanup.js";
import { foldFunctionsPass } from "./fold-functions.js";
import { mergeFunctionsPass } from "./merge-functions.js";
import { outlinePass } from "./outline/index.js";
import { foldBlocksPass } from "./fold-blocks/index.js";
import { layoutPass } from "./layout/index.js";
import { slicesPass } from "./slices/index.js";
import { fuseBranchesPass } from "./fuse-branches/index.js";

/** Leaves the module as it is; the pipeline still reads, validates and rewrites it. */
export const identityPass: Pass = {
  name: "identity",
  description: "change nothing (read, validate and rewrite the module only)",
  run: () => ({ changed: false }),
};

const BUILTIN_PASSES: Pass[] = [identityPass, cleanupPass, foldFunctionsPass, mergeFunctionsPass, outlinePass, layoutPass, foldBlocksPass, slicesPass, fuseBranchesPass];

/** The passes run when no `passes` option is given, in order, under every target but raw. */
export const DEFAULT_PIPELINE: readonly string[] = ["fold-functions", "merge-functions", "fold-blocks", "outline", "cleanup", "layout"];

/**
 * The default under target raw: outline before fold-blocks. Under raw every
 * saving is taken, and outline's matcher (locals renamed, any stack-balanced
 * sequence) also finds the blocks fold-blocks folds; run first, it chooses
 * among overlapping repeats by their benefit, where folding whole blocks
 * first fixes some of those choices badly. fold-blocks then takes what is
 * left. On the 32 corpus files below 13 MB: geomean file size 0.5 % lower,
 * zstd 3.4 % lower. Under the compressed targets each fold is judged on its
 * own, and the order fold-blocks first measured as good or slightly better
 * (geomean file +0.02 % under balanced, brotli +0.02 % under brotli).
 */
export const RAW_PIPELINE: readonly string[] = ["fold-functions", "merge-functions", "outline", "fold-blocks", "cleanup", "layout"];

/** The default pipeline for a size target. */
export function defaultPipeline(target: SizeTarget): readonly string[] {
  return target === "raw" ? RAW_PIPELINE : DEFAULT_PIPELINE;
}

/** The default pipeline of `target` with `pass` run right after outline (how slices and fuse-branches are tried in it). */
export function defaultPipelineWith(target: SizeTarget, pass: string): string[] {
  const d = [...defaultPipeline(target)];
  d.splice(d.indexOf("outline") + 1, 0, pass);
  return d;
}

const registry = new Map<string, Pass>();
for (const p of BUILTIN_PASSES) registerPass(p);

/**
 * Adds a pass under its name (for plugins and tests). Throws if the name is
 * malformed or already taken, so two passes can never shadow each other.
 */
export function registerPass(pass: Pass): void {
  if (!/^[a-z][a-z0-9-]*$/.test(pass.name) || pass.name === "none") {
    throw new Error(`invalid pass name ${JSON.stringify(pass.name)} (use lower-case letters, digits and dashes; "none" is reserved)`);
  }
  if (registry.has(pass.name)) throw new Error(`a pass named ${JSON.stringify(pass.name)} is already registered`);
  registry.set(pass.name, pass);
}

/** Removes a pass added with registerPass (tests use this to clean up). */
export function unregisterPass(name: string): boolean {
  return registry.delete(name);
}

/** True for a pass that ships with wasm-compact (what it does is fixed by the version; a plugin's is not). */
export function isBuiltinPass(pass: Pass): boolean {
  return BUILTIN_PASSES.includes(pass);
}

export function getPass(name: string): Pass | undefined {
  return registry.get(name);
}

/** All registered passes, sorted by name. */
export function listPasses(): Pass[] {
  return [...registry.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Turns a pass list into passes. `undefined` means the default pipeline of
 * `target`; `[]` and `["none"]` mean no passes (identity). Pass objects are
 * taken as they are. Unknown names throw UnknownPassError, which lists the
 * known ones.
 */
export function resolvePasses(spec: readonly (string | Pass)[] | undefined, target: SizeTarget = "balanced"): Pass[] {
  const list = spec ?? defaultPipeline(target);
  if (list.length === 1 && list[0] === "none") return [];
  const out: Pass[] = [];
  const unknown: string[] = [];
  for (const item of list) {
    if (typeof item !== "string") {
      out.push(item);
      continue;
    }
    if (item === "none") {
      throw new UnknownPassError([item], listPasses().map((p) => p.name), '"none" cannot be combined with other passes');
    }
    const p = registry.get(item);
    if (p) out.push(p);
    else unknown.push(item);
  }
  if (unknown.length > 0) throw new UnknownPassError(unknown, listPasses().map((p) => p.name));
  return out;
}

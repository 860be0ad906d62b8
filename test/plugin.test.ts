// The bundler plugin (wasm-compact/bundler) with real bundlers: a tiny app
// that imports fixtures/wasm/families-Oz-wasmopt.wasm (a WASI program) is
// built with Vite, webpack, Rspack, esbuild and Rollup; the emitted .wasm must
// be byte-identical to what optimize() gives for the same options, and the
// built app, run through the bundle's own glue, must print what the fixture
// prints. Then what happens to assets that are not valid modules, to an
// optimizer failure, to components, to profiles, and to rebuilds.

import { test } from "node:test";
import assert from "node:assert/strict";
import { closeSync, copyFileSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { WASI } from "node:wasi";
import { build as viteBuild, createLogger } from "vite";
import webpackFn from "webpack";
import { rspack as rspackFn } from "@rspack/core";
import { build as esbuildBuild, type BuildOptions } from "esbuild";
import { rollup as rollupFn, type Plugin as RollupPlugin } from "rollup";
import wasmCompact, { type AssetResult, type WasmCompactPluginOptions } from "../src/plugin/index.js";
import { optimize, type OptimizeOptions } from "../src/pipeline.js";
import { nodeMeasures } from "../src/cli/compress.js";
import { registerPass, unregisterPass } from "../src/passes/registry.js";
import { fingerprint } from "../src/profile/fingerprint.js";
import { formatProfile } from "../src/profile/profile.js";

// The project's lib settings do not include the WebAssembly JS API types.
declare const WebAssembly: {
  instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: { exports: Record<string, unknown> } }>;
};

const ROOT = fileURLToPath(new URL("../..", import.meta.url)); // dist/test -> repository root
const FIXTURE = join(ROOT, "fixtures/wasm/families-Oz-wasmopt.wasm");
const INPUT = new Uint8Array(readFileSync(FIXTURE));
const ARGS = ["families", "60", "1"];

// ---------------------------------------------------------------- helpers

type Instantiate = (imports: object, wasi: WASI) => Promise<{ exports: Record<string, unknown> }>;

/** Runs the families program through `instantiate` under node:wasi; its exit code and stdout. */
async function runApp(instantiate: Instantiate): Promise<{ code: number; stdout: string }> {
  const dir = mkdtempSync(join(tmpdir(), "wasm-compact-plugin-run-"));
  try {
    const file = join(dir, "stdout.txt");
    const fd = openSync(file, "w");
    let code: number;
    try {
      const wasi = new WASI({ version: "preview1", args: ARGS, stdout: fd, returnOnExit: true });
      code = wasi.start(await instantiate(wasi.getImportObject(), wasi));
    } finally {
      closeSync(fd);
    }
    return { code, stdout: readFileSync(file, "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const expected = runApp(async (imports) => (await WebAssembly.instantiate(INPUT, imports)).instance);

/** The module optimize() makes of the fixture with these plugin options (the plugin's defaults otherwise). */
function optimizedWith(o: WasmCompactPluginOptions, input: Uint8Array = INPUT, extra: Partial<OptimizeOptions> = {}): Uint8Array {
  const features: Record<string, boolean> = {};
  for (const f of o.enable ?? []) features[f] = true;
  for (const f of o.disable ?? []) features[f] = false;
  return optimize(input, {
    target: o.target ?? "balanced",
    ...(o.passes ? { passes: o.passes } : {}),
    features,
    keepExportIdentity: o.keepExportIdentity ?? false,
    ...(o.outlineHot ? { outlineHot: true } : {}),
    ...(o.stripDwarf ? { stripDwarf: true } : {}),
    measures: nodeMeasures,
    ...extra,
  }).binary;
}

/** A temporary app folder holding fam.wasm and these files. */
function appDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "wasm-compact-plugin-app-"));
  copyFileSync(FIXTURE, join(dir, "fam.wasm"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** The .wasm files under `dir` (recursively), by path relative to it. */
function wasmFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith(".wasm")).sort();
}

function sameBytes(actual: Uint8Array, wanted: Uint8Array, what: string): void {
  assert.equal(actual.length, wanted.length, `${what}: ${actual.length} bytes, expected ${wanted.length}`);
  assert.ok(Buffer.from(actual).equals(Buffer.from(wanted)), `${what}: same length, different bytes`);
}

/** Resolves `wasi_snapshot_preview1` imports of a bundled .wasm to the WASI object the app is given. */
const WASI_SHIM = `let wasi;
export function useWasi(w) { wasi = w.getImportObject().wasi_snapshot_preview1; }
${["args_get", "args_sizes_get", "fd_fdstat_get", "fd_seek", "fd_write", "proc_exit"].map((n) => `export const ${n} = (...a) => wasi.${n}(...a);`).join("\n")}
`;

/** An entry that reads the asset `new URL` names and instantiates it (webpack's and Rspack's asset modules). */
const URL_ENTRY = `import { readFile } from "node:fs/promises";
export default async function instantiate(imports) {
  const bytes = await readFile(new URL("./fam.wasm", import.meta.url));
  return (await WebAssembly.instantiate(bytes, imports)).instance;
}
`;

const FAST: WasmCompactPluginOptions = { target: "raw", passes: ["fold-functions", "merge-functions"] };

// ---------------------------------------------------------------- Vite

test("vite: the ?init asset of an SSR build is the optimized module, and the bundle runs", async () => {
  const dir = appDir({ "main.js": `import init from "./fam.wasm?init";\nexport default function instantiate(imports) { return init(imports); }\n` });
  try {
    const lines: string[] = [];
    const logger = createLogger("info");
    logger.info = (msg) => void lines.push(msg);
    const results: AssetResult[] = [];
    await viteBuild({
      root: dir,
      configFile: false,
      customLogger: logger,
      build: { outDir: "out", ssr: "main.js", ssrEmitAssets: true },
      plugins: [wasmCompact.vite({ ...FAST, onAsset: (r) => results.push(r) })],
    });
    const out = join(dir, "out");
    const files = wasmFiles(out);
    assert.equal(files.length, 1, `one .wasm emitted: ${files.join(", ")}`);
    const want = optimizedWith(FAST);
    assert.ok(want.length < INPUT.length, "these options make the fixture smaller");
    sameBytes(readFileSync(join(out, files[0]!)), want, files[0]!);
    assert.equal(results.length, 1);
    assert.equal(results[0]!.status, "optimized");
    const summary = lines.find((l) => l.includes("wasm-compact") && l.includes(".wasm"));
    assert.ok(summary, `a summary line among: ${lines.join(" | ")}`);
    assert.match(summary, new RegExp(`assets/fam-[\\w-]+\\.wasm 28,157 -> ${want.length.toLocaleString("en-US")} bytes \\(ratio 0\\.\\d{3}, -\\d+\\.\\d\\d%; \\d+ ms\\)`));
    const app = (await import(pathToFileURL(join(out, "main.mjs")).href)) as { default: Instantiate };
    assert.deepEqual(await runApp(app.default), await expected);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("vite: the ?url asset of a client build is optimized under a gzip target (quiet: no summary line)", async () => {
  const dir = appDir({ "main.js": `import url from "./fam.wasm?url";\nglobalThis.__famUrl = url;\n` });
  try {
    const lines: string[] = [];
    const logger = createLogger("info");
    logger.info = (msg) => void lines.push(msg);
    const options: WasmCompactPluginOptions = { target: "gzip", passes: ["fold-functions", "merge-functions", "cleanup"], keepExportIdentity: true, quiet: true };
    await viteBuild({
      root: dir,
      configFile: false,
      customLogger: logger,
      build: { outDir: "out", rolldownOptions: { input: join(dir, "main.js") } },
      plugins: [wasmCompact.vite(options)],
    });
    const out = join(dir, "out");
    const files = wasmFiles(out);
    assert.equal(files.length, 1, `one .wasm emitted: ${files.join(", ")}`);
    const want = optimizedWith(options);
    assert.ok(want.length < INPUT.length);
    sameBytes(readFileSync(join(out, files[0]!)), want, files[0]!);
    assert.deepEqual(lines.filter((l) => l.includes("[plugin wasm-compact]")), [], "quiet");
    // the bundle's URL names the emitted file; instantiate that
    const js = readdirSync(join(out, "assets")).find((f) => f.endsWith(".js"))!;
    await import(pathToFileURL(join(out, "assets", js)).href);
    const url = (globalThis as { __famUrl?: string }).__famUrl!;
    assert.equal(url, `/${files[0]}`);
    const bytes = new Uint8Array(readFileSync(join(out, url)));
    assert.deepEqual(await runApp(async (imports) => (await WebAssembly.instantiate(bytes, imports)).instance), await expected);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------- webpack and Rspack

type Compile = (config: object) => Promise<{ hasErrors(): boolean; hasWarnings(): boolean; toString(o?: object): string }>;

const webpackCompile: Compile = (config) =>
  new Promise((resolve, reject) => (webpackFn as unknown as (c: object, cb: (e: Error | null, s: never) => void) => void)(config, (e, s) => (e ? reject(e) : resolve(s))));
const rspackCompile: Compile = (config) =>
  new Promise((resolve, reject) => (rspackFn as unknown as (c: object, cb: (e: Error | null, s: never) => void) => void)(config, (e, s) => (e ? reject(e) : resolve(s))));

function nodeModuleConfig(dir: string, entry: string, plugin: unknown, extra: Record<string, unknown> = {}): object {
  return {
    mode: "production",
    context: dir,
    entry,
    target: "node20",
    output: { path: join(dir, "out"), filename: "main.mjs", library: { type: "module" }, module: true },
    experiments: { outputModule: true },
    plugins: [plugin],
    ...extra,
  };
}

test("webpack: a new URL(...) asset module is optimized, renamed by its real content hash, and the bundle runs", async () => {
  const dir = appDir({ "main.js": URL_ENTRY });
  try {
    const options: WasmCompactPluginOptions = { ...FAST, outlineHot: true, disable: ["multivalue"], stripDwarf: true };
    const results: AssetResult[] = [];
    const stats = await webpackCompile(nodeModuleConfig(dir, "./main.js", wasmCompact.webpack({ ...options, onAsset: (r) => results.push(r) })));
    const text = stats.toString({ colors: false });
    assert.ok(!stats.hasErrors(), text);
    const out = join(dir, "out");
    const files = wasmFiles(out);
    assert.equal(files.length, 1, `one .wasm emitted: ${files.join(", ")}`);
    const want = optimizedWith(options);
    assert.ok(want.length < INPUT.length);
    sameBytes(readFileSync(join(out, files[0]!)), want, files[0]!);
    assert.equal(results.length, 1);
    assert.notEqual(results[0]!.name, files[0], "realContentHash renamed the optimized file");
    assert.match(text, /LOG from wasm-compact\n<i> \w+\.wasm 28,157 -> [\d,]+ bytes \(ratio/);
    const app = (await import(pathToFileURL(join(out, "main.mjs")).href)) as { default: Instantiate };
    assert.deepEqual(await runApp(app.default), await expected);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("webpack: an experiments.asyncWebAssembly module is optimized and its glue runs it", async () => {
  const dir = appDir({
    "wasi-shim.js": WASI_SHIM,
    "main.js": `import { useWasi } from "./wasi-shim.js";
export default async function instantiate(imports, wasi) {
  useWasi(wasi);
  return { exports: await import("./fam.wasm") };
}
`,
  });
  try {
    const config = nodeModuleConfig(dir, "./main.js", wasmCompact.webpack(FAST), {
      resolve: { alias: { wasi_snapshot_preview1: join(dir, "wasi-shim.js") } },
      experiments: { outputModule: true, asyncWebAssembly: true },
    });
    const stats = await webpackCompile(config);
    assert.ok(!stats.hasErrors(), stats.toString({ colors: false }));
    const out = join(dir, "out");
    const files = wasmFiles(out);
    assert.equal(files.length, 1, `one .wasm emitted: ${files.join(", ")}`);
    sameBytes(readFileSync(join(out, files[0]!)), optimizedWith(FAST), files[0]!);
    const app = (await import(pathToFileURL(join(out, "main.mjs")).href)) as { default: Instantiate };
    assert.deepEqual(await runApp(app.default), await expected);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("rspack: a new URL(...) asset module is optimized and the bundle runs", async () => {
  const dir = appDir({ "main.js": URL_ENTRY });
  try {
    const stats = await rspackCompile(nodeModuleConfig(dir, "./main.js", wasmCompact.rspack(FAST)));
    assert.ok(!stats.hasErrors(), stats.toString({ colors: false }));
    const out = join(dir, "out");
    const files = wasmFiles(out);
    assert.equal(files.length, 1, `one .wasm emitted: ${files.join(", ")}`);
    sameBytes(readFileSync(join(out, files[0]!)), optimizedWith(FAST), files[0]!);
    const app = (await import(pathToFileURL(join(out, "main.mjs")).href)) as { default: Instantiate };
    assert.deepEqual(await runApp(app.default), await expected);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------- esbuild

test("esbuild: a file-loader .wasm is optimized on disk (write: true) and in memory (write: false)", async () => {
  const dir = appDir({ "main.js": `import url from "./fam.wasm";\nexport default url;\n` });
  try {
    const want = optimizedWith(FAST);
    const common: BuildOptions = { absWorkingDir: dir, entryPoints: ["main.js"], bundle: true, format: "esm", loader: { ".wasm": "file" }, logLevel: "silent" };
    const results: AssetResult[] = [];
    const onDisk = await esbuildBuild({ ...common, outdir: "out", plugins: [wasmCompact.esbuild({ ...FAST, onAsset: (r) => results.push(r) })] });
    assert.deepEqual(onDisk.errors, []);
    const files = wasmFiles(join(dir, "out"));
    assert.equal(files.length, 1, `one .wasm emitted: ${files.join(", ")}`);
    sameBytes(readFileSync(join(dir, "out", files[0]!)), want, files[0]!);
    assert.deepEqual(results.map((r) => [r.name, r.status]), [[`out/${files[0]}`, "optimized"]]);
    // the bundle names the file it wrote
    assert.ok(readFileSync(join(dir, "out/main.js"), "utf8").includes(`./${files[0]}`));

    const inMemory = await esbuildBuild({ ...common, outdir: "mem", write: false, plugins: [wasmCompact.esbuild(FAST)] });
    const wasm = (inMemory.outputFiles ?? []).filter((f) => f.path.endsWith(".wasm"));
    assert.equal(wasm.length, 1);
    sameBytes(wasm[0]!.contents, want, wasm[0]!.path);
    assert.deepEqual(wasmFiles(dir).filter((f) => f.startsWith("mem")), [], "nothing written with write: false");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("esbuild and rspack: an invalid .wasm is a warning, or with failOnInvalid an error", async () => {
  const dir = appDir({ "main.js": `export default new URL("./bad.wasm", import.meta.url).href;\n`, "esb.js": `import url from "./bad.wasm";\nexport default url;\n` });
  writeFileSync(join(dir, "bad.wasm"), "not a wasm module");
  try {
    const common: BuildOptions = { absWorkingDir: dir, entryPoints: ["esb.js"], bundle: true, format: "esm", loader: { ".wasm": "file" }, logLevel: "silent", write: false, outdir: "out" };
    const kept = await esbuildBuild({ ...common, plugins: [wasmCompact.esbuild(FAST)] });
    assert.equal(kept.warnings.length, 1);
    assert.match(kept.warnings[0]!.text, /^wasm-compact: out\/bad-\w+\.wasm: not a valid WebAssembly module, emitted as it is/);
    await assert.rejects(esbuildBuild({ ...common, plugins: [wasmCompact.esbuild({ ...FAST, failOnInvalid: true })] }), /wasm-compact: out\/bad-\w+\.wasm: not a valid WebAssembly module/);

    const warned = await rspackCompile(nodeModuleConfig(dir, "./main.js", wasmCompact.rspack(FAST)));
    assert.ok(!warned.hasErrors() && warned.hasWarnings(), warned.toString({ colors: false }));
    assert.match(warned.toString({ colors: false }), /wasm-compact: \w+\.wasm: not a valid WebAssembly module, emitted as it is/);
    const failed = await rspackCompile(nodeModuleConfig(dir, "./main.js", wasmCompact.rspack({ ...FAST, failOnInvalid: true })));
    assert.ok(failed.hasErrors());
    assert.match(failed.toString({ colors: false }), /wasm-compact: \w+\.wasm: not a valid WebAssembly module:/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------- Rollup, and what happens to odd assets

/** Emits each of `files` as an asset, imported as its URL by a virtual entry. */
function emitAssets(files: Record<string, Uint8Array>): RollupPlugin {
  return {
    name: "emit-assets",
    resolveId: (id) => (id === "entry" || id in files ? id : null),
    load(id) {
      if (id === "entry") return `${Object.keys(files).map((f, i) => `import a${i} from ${JSON.stringify(f)};`).join("\n")}\nexport default [${Object.keys(files).map((_, i) => `a${i}`).join(", ")}];`;
      if (!(id in files)) return null;
      const ref = this.emitFile({ type: "asset", name: id, source: files[id]! });
      return `export default import.meta.ROLLUP_FILE_URL_${ref};`;
    },
  };
}

interface RollupRun {
  assets: Map<string, Uint8Array>;
  warnings: string[];
  infos: string[];
}

async function rollupWith(files: Record<string, Uint8Array>, plugin: RollupPlugin): Promise<RollupRun> {
  const warnings: string[] = [];
  const infos: string[] = [];
  const bundle = await rollupFn({
    input: "entry",
    plugins: [emitAssets(files), plugin],
    onLog: (level, log) => void (level === "warn" ? warnings : infos).push(log.message),
  });
  try {
    const { output } = await bundle.generate({ format: "es", assetFileNames: "[name][extname]" });
    const assets = new Map<string, Uint8Array>();
    for (const o of output) if (o.type === "asset") assets.set(o.fileName, typeof o.source === "string" ? new TextEncoder().encode(o.source) : o.source);
    return { assets, warnings, infos };
  } finally {
    await bundle.close();
  }
}

const NOT_WASM = new TextEncoder().encode("not a wasm module");
/** The preamble of a component (version 13, layer 1) and nothing else. */
const COMPONENT = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00]);

test("rollup: every .wasm asset is optimized; an invalid one is kept with a warning, a component is left alone", async () => {
  const results: AssetResult[] = [];
  // (Rollup emits assets of equal bytes once: a.bin differs from a.wasm)
  const bin = new Uint8Array([...INPUT, 0]);
  const run = await rollupWith({ "a.wasm": INPUT, "bad.wasm": NOT_WASM, "c.wasm": COMPONENT, "a.bin": bin }, wasmCompact.rollup({ ...FAST, onAsset: (r) => results.push(r) }));
  sameBytes(run.assets.get("a.wasm")!, optimizedWith(FAST), "a.wasm");
  sameBytes(run.assets.get("bad.wasm")!, NOT_WASM, "bad.wasm");
  sameBytes(run.assets.get("c.wasm")!, COMPONENT, "c.wasm");
  sameBytes(run.assets.get("a.bin")!, bin, "a.bin (not included)");
  assert.deepEqual(results.map((r) => [r.name, r.status]).sort(), [["a.wasm", "optimized"], ["bad.wasm", "invalid"], ["c.wasm", "skipped"]]);
  assert.equal(run.warnings.length, 1, run.warnings.join(" | "));
  assert.match(run.warnings[0]!, /bad\.wasm: not a valid WebAssembly module, emitted as it is/);
  assert.ok(run.infos.some((m) => /^\[plugin wasm-compact\] a\.wasm 28,157 -> /.test(m)), run.infos.join(" | "));
});

test("rollup: failOnInvalid fails the build on an invalid asset", async () => {
  await assert.rejects(rollupWith({ "bad.wasm": NOT_WASM }, wasmCompact.rollup({ ...FAST, failOnInvalid: true })), /bad\.wasm: not a valid WebAssembly module/);
});

test("rollup: an optimizer failure keeps the asset as it is with a warning, and the build goes on", async () => {
  registerPass({
    name: "test-plugin-throws",
    description: "throws (plugin test)",
    run() {
      throw new Error("boom");
    },
  });
  try {
    const results: AssetResult[] = [];
    const run = await rollupWith({ "a.wasm": INPUT }, wasmCompact.rollup({ passes: ["test-plugin-throws"], onAsset: (r) => results.push(r) }));
    sameBytes(run.assets.get("a.wasm")!, INPUT, "a.wasm");
    assert.equal(results[0]!.status, "internal-error");
    assert.equal(run.warnings.length, 1);
    assert.match(run.warnings[0]!, /a\.wasm: the optimizer failed .*emitted as it is: .*boom/);
  } finally {
    unregisterPass("test-plugin-throws");
  }
});

test("rollup: a rebuild reuses the result for unchanged bytes", async () => {
  const results: AssetResult[] = [];
  const plugin = wasmCompact.rollup({ ...FAST, onAsset: (r) => results.push(r) });
  const first = await rollupWith({ "a.wasm": INPUT }, plugin);
  const second = await rollupWith({ "a.wasm": INPUT }, plugin);
  sameBytes(second.assets.get("a.wasm")!, first.assets.get("a.wasm")!, "a.wasm");
  assert.deepEqual(results.map((r) => r.status === "optimized" && r.reused === true), [false, true]);
  assert.ok(second.infos.some((m) => m.includes("reused")), second.infos.join(" | "));
});

test("rollup: a profile is used for the asset it was recorded on; one that matches nothing is warned about", async () => {
  const dir = mkdtempSync(join(tmpdir(), "wasm-compact-plugin-profile-"));
  try {
    const mine = join(dir, "mine.json");
    const other = join(dir, "other.json");
    // an empty profile: nothing ran, so no code is hot
    writeFileSync(mine, formatProfile({ fingerprint: fingerprint(INPUT), instances: 1, functions: [] }));
    writeFileSync(other, formatProfile({ fingerprint: fingerprint(NOT_WASM), instances: 1, functions: [] }));
    const options: WasmCompactPluginOptions = { ...FAST, profile: [mine, other] };
    const results: AssetResult[] = [];
    const run = await rollupWith({ "a.wasm": INPUT }, wasmCompact.rollup({ ...options, onAsset: (r) => results.push(r) }));
    const profile = { fingerprint: fingerprint(INPUT), instances: 1, functions: [] };
    const want = optimizedWith(FAST, INPUT, { profile });
    assert.ok(want.length < optimizedWith(FAST).length, "the profile makes a difference");
    sameBytes(run.assets.get("a.wasm")!, want, "a.wasm");
    assert.equal(results[0]!.status === "optimized" && results[0]!.profile, mine);
    assert.equal(run.warnings.length, 1, run.warnings.join(" | "));
    assert.match(run.warnings[0]!, /profile .*other\.json matches no emitted \.wasm/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("options: mistakes fail when the plugin is made", () => {
  assert.throws(() => wasmCompact.rollup({ target: "smallest" as never }), /target: unknown size target "smallest"/);
  assert.throws(() => wasmCompact.rollup({ passes: ["fold-function"] }), /passes: unknown pass "fold-function"/);
  assert.throws(() => wasmCompact.rollup({ enable: ["simd2"] }), /enable: unknown feature "simd2"/);
  assert.throws(() => wasmCompact.rollup({ enable: ["simd"], disable: ["simd"] }), /both enabled and disabled/);
  assert.throws(() => wasmCompact.rollup({ hotThreshold: 0.5 }), /hotThreshold needs profile/);
  assert.throws(() => wasmCompact.rollup({ profile: "/nonexistent/profile.json" }), /profile \/nonexistent\/profile\.json: cannot read/);
  assert.throws(() => wasmCompact.rollup({ outlinehot: true } as never), /unknown option outlinehot/);
});

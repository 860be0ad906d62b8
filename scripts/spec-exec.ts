// Spec test suite executor CLI: runs every script's modules and actions on
// Node's V8, with the original modules and with the modules optimized by each
// variant, and compares the outcomes (see test/spec/exec.ts).
//
//   node dist/scripts/spec-exec.js [--dir core|custom|legacy|proposals|proposals/NAME|all|FILE.wast]
//       [--variants none,default,PASS,NAME@TARGET,NAME+hot,...] [--jobs N] [--timeout SECONDS] [--verbose] [--no-cache]
//
// Variants: "none" (the identity pipeline, passes: []), each registered pass
// alone, and "default" (the default pipeline); all of them unless --variants
// says otherwise. Variants optimize with target "raw"; "NAME@TARGET" (e.g.
// "default@balanced") judges by another size target; "NAME+hot" (e.g.
// "outline+hot@balanced") outlines hot code too. The scripts run in
// child processes started with the V8 flags of Node 20 that enable the
// proposals the suite uses.
//
// Prints per folder: scripts run, commands, the commands checked (their
// original outcome is what the suite expects) and how many of them are
// assertions, the comparisons that agree and differ (commands x variants),
// the skips with their reasons, then every difference: file:line, the
// command, the original outcome, the optimized outcome and the variants.
// Exits 1 on any difference, 2 on a usage error.
//
// Child mode (used by the parent): --child --suite DIR --variants ...; reads
// jobs from stdin (JSON, one a line: the script, commands to skip, whether to
// trace) and writes one JSON event a line.

import { availableParallelism } from "node:os";
import { createInterface } from "node:readline";
import {
  allVariants,
  execScript,
  runInChildren,
  summarizeExec,
  variantByName,
  type ChildEvent,
  type ChildJob,
  type ExecDifference,
  type ExecResult,
  type ExecSummary,
} from "../test/spec/exec.js";
import { findSuiteDir, groupRank, selectFiles } from "../test/spec/run-spec.js";

const USAGE =
  "usage: node dist/scripts/spec-exec.js [--dir core|custom|legacy|proposals|proposals/NAME|all|FILE.wast] [--variants none,default,PASS,NAME@TARGET,NAME+hot,...] [--jobs N] [--timeout SECONDS] [--verbose] [--no-cache]";

interface Args {
  dir: string;
  variants: string[] | undefined;
  jobs: number;
  timeout: number;
  verbose: boolean;
  cache: boolean;
  child: boolean;
  suite: string | undefined;
}

function usage(msg: string): never {
  console.error(`spec-exec: ${msg}\n${USAGE}`);
  process.exit(2);
}

function parseArgs(argv: string[]): Args {
  const a: Args = { dir: "core", variants: undefined, jobs: Math.min(availableParallelism(), 4), timeout: 180, verbose: false, cache: true, child: false, suite: undefined };
  const value = (i: number, name: string): string => {
    const v = argv[i];
    if (v === undefined) usage(`${name} needs a value`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i]!;
    const eq = x.indexOf("=");
    const [flag, inline] = x.startsWith("--") && eq > 0 ? [x.slice(0, eq), x.slice(eq + 1)] : [x, undefined];
    const val = (): string => inline ?? value(++i, flag);
    switch (flag) {
      case "--dir":
        a.dir = val();
        break;
      case "--variants":
        a.variants = val().split(",").map((s) => s.trim()).filter((s) => s !== "");
        break;
      case "--jobs": {
        const n = Number(val());
        if (!Number.isInteger(n) || n < 1) usage("--jobs needs a positive integer");
        a.jobs = n;
        break;
      }
      case "--timeout": {
        const n = Number(val());
        if (!(n > 0)) usage("--timeout needs a positive number of seconds");
        a.timeout = n;
        break;
      }
      case "--verbose":
      case "-v":
        a.verbose = true;
        break;
      case "--no-cache":
        a.cache = false;
        break;
      case "--child":
        a.child = true;
        break;
      case "--suite":
        a.suite = val();
        break;
      case "--help":
      case "-h":
        console.log(USAGE);
        process.exit(0);
        break;
      default:
        usage(`unknown argument ${x}`);
    }
  }
  return a;
}

/** Child mode: scripts from stdin, one JSON event a line on stdout. */
async function child(args: Args): Promise<void> {
  const suiteDir = args.suite ?? findSuiteDir();
  const variants = (args.variants ?? allVariants().map((v) => v.name)).map(variantByName);
  const emit = (e: ChildEvent): void => void process.stdout.write(`${JSON.stringify(e)}\n`);
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() === "") continue;
    const job = JSON.parse(line) as ChildJob;
    const file = job.file;
    let result: ExecResult;
    try {
      result = await execScript(file, suiteDir, {
        variants,
        ...(args.cache ? {} : { cacheDir: null }),
        ...(job.skip ? { skipLines: job.skip } : {}),
        ...(job.trace ? { onCommand: (at: number) => emit({ event: "at", file, line: at }) } : {}),
        onPhase: (phase) => emit({ event: "phase", file, phase }),
      });
    } catch (e) {
      // An executor failure is the executor's bug: report the script, go on.
      const msg = e instanceof Error ? (e.stack ?? e.message) : String(e);
      process.stderr.write(`spec-exec: ${file}: ${msg}\n`);
      const { relative, sep } = await import("node:path");
      const rel = relative(suiteDir, file).split(sep).join("/");
      result = {
        file: rel, group: rel.includes("/") ? rel.split("/")[0]! : "core", variants: variants.map((v) => v.name),
        scriptSkipped: `executor error: ${e instanceof Error ? e.message : String(e)}`,
        commands: 0, checked: 0, checkedAssertions: 0, skips: {}, agree: 0, differ: 0, notOptimized: {}, optimized: 0, changed: 0, changedBy: {}, differences: [], ms: 0,
      };
    }
    emit({ event: "result", result });
  }
}

const pad = (s: string | number, n: number): string => String(s).padStart(n);

const HEADER = `${"folder".padEnd(28)} scripts skipped | commands  checked (asserts)  skipped |  agree differ | modules optimized  changed`;

function row(s: ExecSummary): string {
  return `${s.group.padEnd(28)} ${pad(s.scripts, 7)} ${pad(s.scriptsSkipped, 7)} | ${pad(s.commands, 8)} ${pad(s.checked, 8)} ${pad(`(${s.checkedAssertions})`, 9)} ${pad(s.skipped, 8)} | ${pad(s.agree, 6)} ${pad(s.differ, 6)} | ${pad(s.optimized, 8)} ${pad(s.changed, 8)}`;
}

function printCounts(title: string, counts: Record<string, number>, indent = "  "): void {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (entries.length === 0) return;
  console.log(title);
  for (const [k, n] of entries) console.log(`${indent}${pad(n, 6)}  ${k}`);
}

/** Differences of one command with the same outcomes in several variants are listed once. */
function groupDifferences(ds: ExecDifference[]): { d: ExecDifference; variants: string[] }[] {
  const by = new Map<string, { d: ExecDifference; variants: string[] }>();
  for (const d of ds) {
    const k = `${d.file}\0${d.line}\0${d.command}\0${d.original}\0${d.optimized}`;
    const g = by.get(k);
    if (g) g.variants.push(d.variant);
    else by.set(k, { d, variants: [d.variant] });
  }
  return [...by.values()];
}

async function parent(args: Args): Promise<void> {
  const suiteDir = findSuiteDir();
  let files: string[];
  try {
    files = args.dir.endsWith(".wast") ? [args.dir.startsWith("/") ? args.dir : `${suiteDir}/${args.dir}`] : selectFiles(suiteDir, args.dir);
  } catch (e) {
    usage(e instanceof Error ? e.message : String(e));
  }
  let variants: string[];
  try {
    variants = (args.variants ?? allVariants().map((v) => v.name)).map((n) => variantByName(n).name);
  } catch (e) {
    usage(e instanceof Error ? e.message : String(e));
  }
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let done = 0;
  const tty = process.stderr.isTTY;
  const results = await runInChildren({
    files,
    suiteDir,
    variants,
    jobs: args.jobs,
    phaseTimeoutMs: args.timeout * 1000,
    cache: args.cache,
    onResult: (r) => {
      done++;
      if (tty) process.stderr.write(`\r${done}/${files.length} ${r.file}`.padEnd(70).slice(0, 79));
    },
  });
  if (tty) process.stderr.write(`\r${" ".repeat(79)}\r`);
  const seconds = (performance.now() - t0) / 1000;
  results.sort((a, b) => (groupRank(a.group) + a.file).localeCompare(groupRank(b.group) + b.file));
  const scriptMs = results.reduce((n, r) => n + r.ms, 0);

  console.log(`spec executor: ${suiteDir} (${files.length} scripts, ${seconds.toFixed(1)} s wall, ${(scriptMs / 1000).toFixed(1)} s in scripts over ${args.jobs} jobs; parent CPU ${((process.cpuUsage(cpu0).user + process.cpuUsage(cpu0).system) / 1e6).toFixed(1)} s)`);
  console.log(`variants (target raw unless NAME@TARGET): ${variants.map((v) => (v === "none" ? "none (passes: [])" : v === "default" ? "default (the default pipeline)" : v)).join(", ")}`);
  console.log(`checked: commands whose original outcome in V8 is what the suite expects; agree/differ: checked commands x ${variants.length} variants\n`);
  const groups = summarizeExec(results).sort((a, b) => groupRank(a.group).localeCompare(groupRank(b.group)));
  const overall = summarizeExec(results, () => "overall")[0];
  if (args.verbose) {
    console.log(HEADER);
    for (const r of results) console.log(row(summarizeExec([r], (x) => x.file)[0]!));
    console.log("");
  }
  console.log(HEADER);
  for (const g of groups) console.log(row(g));
  if (overall && groups.length > 1) console.log(row(overall));

  if (overall) console.log(`\nmodules changed by each variant (optimized bytes differ from the input): ${variants.map((v) => `${v} ${overall.changedBy[v] ?? 0}`).join(", ")}`);

  for (const g of groups) {
    const any = Object.keys(g.scriptSkips).length + Object.keys(g.skips).length + Object.keys(g.notOptimized).length > 0;
    if (!any) continue;
    console.log(`\n${g.group}:`);
    printCounts("  scripts skipped, by reason:", g.scriptSkips, "    ");
    if (args.verbose) {
      for (const r of results.filter((x) => x.group === g.group && x.scriptSkipped !== undefined)) console.log(`      ${r.file}: ${r.scriptSkipped}`);
    }
    printCounts("  commands skipped (not compared), by reason:", g.skips, "    ");
    printCounts("  modules not optimized (the original is used), by reason (x variants):", g.notOptimized, "    ");
  }
  if (args.verbose) {
    console.log("\nskipped commands per script:");
    for (const r of results) {
      const n = Object.values(r.skips).reduce((a, b) => a + b, 0);
      if (n > 0) console.log(`  ${r.file}: ${n} (${Object.entries(r.skips).map(([k, c]) => `${c}x ${k}`).join("; ").slice(0, 300)})`);
    }
  }

  const diffs = results.flatMap((r) => r.differences);
  if (diffs.length > 0) {
    const grouped = groupDifferences(diffs);
    const limit = args.verbose ? Infinity : 200;
    console.log(`\ndifferences (${diffs.length} comparisons, ${grouped.length} distinct):`);
    for (const { d, variants: vs } of grouped.slice(0, limit)) {
      console.log(`  ${d.file}:${d.line}  ${d.command}\n      original:  ${d.original}\n      optimized: ${d.optimized}\n      variants:  ${vs.join(", ")}`);
    }
    if (grouped.length > limit) console.log(`  ... ${grouped.length - limit} more (--verbose lists all)`);
  }
  console.log(`\n${diffs.length === 0 ? "no differences" : `${diffs.length} differences: exit 1`}`);
  process.exitCode = diffs.length === 0 ? 0 : 1;
}

const args = parseArgs(process.argv.slice(2));
(args.child ? child(args) : parent(args)).catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(2);
});

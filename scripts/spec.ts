// Spec test suite runner CLI.
//
//   node dist/scripts/spec.js [--dir core|custom|legacy|proposals|proposals/NAME|all] [--verbose] [--no-cache]
//
// Prints a table of counts per folder and overall, the skip reasons, every
// disagreement and every assert_invalid module the reader rejected as
// malformed. Exits 1 if any core check disagrees, 2 on a usage error.

import {
  CATEGORIES,
  findSuiteDir,
  formatFinding,
  groupRank,
  runFiles,
  selectFiles,
  summarize,
  type FileResult,
  type Finding,
  type GroupSummary,
} from "../test/spec/run-spec.js";

interface Args {
  dir: string;
  verbose: boolean;
  cache: boolean;
}

const USAGE = "usage: node dist/scripts/spec.js [--dir core|custom|legacy|proposals|proposals/NAME|all] [--verbose] [--no-cache]";

function parseArgs(argv: string[]): Args {
  const a: Args = { dir: "core", verbose: false, cache: true };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i]!;
    if (x === "--dir") {
      const v = argv[++i];
      if (!v) usage("--dir needs a value");
      a.dir = v;
    } else if (x.startsWith("--dir=")) a.dir = x.slice(6);
    else if (x === "--verbose" || x === "-v") a.verbose = true;
    else if (x === "--no-cache") a.cache = false;
    else if (x === "--help" || x === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else usage(`unknown argument ${x}`);
  }
  return a;
}

function usage(msg: string): never {
  console.error(`spec: ${msg}\n${USAGE}`);
  process.exit(2);
}

const pad = (s: string | number, n: number): string => String(s).padStart(n);
const padEnd = (s: string, n: number): string => s.padEnd(n);

const HEADER1 = `${padEnd("", 30)}       |   valid    |  identity  |     malformed     |          invalid          |`;
const HEADER2 = `${padEnd("folder", 30)} files |  agree dis |  agree dis |  agree dis  skip  |  agree dis as-malf  skip  | skipped`;

function row(name: string, s: Pick<GroupSummary, "files" | "tallies" | "skips">): string {
  const t = s.tallies;
  let cmdSkips = 0;
  for (const v of s.skips.values()) cmdSkips += v;
  return (
    `${padEnd(name, 30)} ${pad(s.files, 5)} | ${pad(t.valid.agree, 6)} ${pad(t.valid.disagree, 3)} | ${pad(t.identity.agree, 6)} ${pad(t.identity.disagree, 3)} | ` +
    `${pad(t.malformed.agree, 6)} ${pad(t.malformed.disagree, 3)} ${pad(t.malformed.skipped, 5)}  | ` +
    `${pad(t.invalid.agree, 6)} ${pad(t.invalid.disagree, 3)} ${pad(t.invalid.rejectedAsMalformed, 7)} ${pad(t.invalid.skipped, 5)}  | ${pad(cmdSkips, 7)}`
  );
}

function printFindings(title: string, findings: Finding[], limit: number): void {
  if (findings.length === 0) return;
  console.log(`\n${title} (${findings.length}):`);
  for (const f of findings.slice(0, limit)) console.log(formatFinding(f));
  if (findings.length > limit) console.log(`  ... ${findings.length - limit} more (--verbose lists all)`);
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const suiteDir = findSuiteDir();
  let files: string[];
  try {
    files = selectFiles(suiteDir, args.dir);
  } catch (e) {
    usage(e instanceof Error ? e.message : String(e));
  }
  const t0 = performance.now();
  let done = 0;
  const tty = process.stderr.isTTY;
  const results: FileResult[] = await runFiles(files, suiteDir, args.cache ? {} : { cacheDir: null }, (r) => {
    done++;
    if (tty) process.stderr.write(`\r${done}/${files.length} ${r.file}`.padEnd(70).slice(0, 79));
  });
  if (tty) process.stderr.write(`\r${" ".repeat(79)}\r`);
  const seconds = (performance.now() - t0) / 1000;
  const converted = results.reduce((n, r) => n + r.converted, 0);

  const groups = summarize(results).sort((a, b) => groupRank(a.group).localeCompare(groupRank(b.group)));
  const overall = summarize(results, () => "overall")[0];

  console.log(`spec suite: ${suiteDir} (${files.length} scripts, ${seconds.toFixed(1)} s, ${converted} text modules encoded, the rest from the cache)\n`);
  if (args.verbose) {
    console.log(HEADER1);
    console.log(HEADER2);
    for (const r of [...results].sort((a, b) => (groupRank(a.group) + a.file).localeCompare(groupRank(b.group) + b.file))) {
      console.log(row(r.file, { files: 1, tallies: r.tallies, skips: r.skips }));
    }
    console.log("");
  }
  console.log(HEADER1);
  console.log(HEADER2);
  for (const g of groups) console.log(row(g.group, g));
  if (overall) console.log(row("overall", overall));

  if (overall) {
    console.log("\nskipped, by reason (including the malformed/invalid/identity skips counted above):");
    const reasons = [...overall.skips.entries()].sort((a, b) => b[1] - a[1]);
    for (const [reason, n] of reasons) console.log(`  ${pad(n, 7)}  ${reason}`);
  }

  const scriptErrors = results.filter((r) => r.scriptError);
  for (const r of scriptErrors) console.log(`\nscript error in ${r.file}: ${r.scriptError}`);

  const limit = args.verbose ? Infinity : 40;
  for (const g of groups) {
    const rs = results.filter((r) => r.group === g.group);
    const dis = rs.flatMap((r) => r.disagreements);
    printFindings(`disagreements in ${g.group}`, dis, g.group === "core" ? Infinity : limit);
  }
  for (const g of groups) {
    const rs = results.filter((r) => r.group === g.group);
    printFindings(`assert_invalid modules rejected as malformed by the reader, ${g.group}`, rs.flatMap((r) => r.rejectedAsMalformed), g.group === "core" ? Infinity : limit);
  }
  const unencodable = results.flatMap((r) => r.unencodable);
  if (args.verbose) printFindings("text modules wasm-tools could not encode (skipped)", unencodable, Infinity);
  else if (unencodable.length > 0) console.log(`\n${unencodable.length} text modules wasm-tools could not encode were skipped (--verbose lists them)`);

  const coreBad = results.some((r) => r.group === "core" && (r.scriptError !== undefined || r.disagreements.length > 0));
  const total = overall ? CATEGORIES.reduce((n, c) => n + overall.tallies[c].disagree, 0) : 0;
  console.log(`\n${total === 0 ? "no disagreements" : `${total} disagreements`}${coreBad ? " (core disagrees: exit 1)" : ""}`);
  process.exitCode = coreBad ? 1 : 0;
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(2);
});

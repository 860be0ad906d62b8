// The command line, end to end: `node dist/cli/main.js` (the bundled bin) in a child process.
// Bad input must give exit code 1 and one clear line naming what and where,
// usage errors exit code 2 with a short usage; in every failure nothing is
// written (no output, no temp file) and the input is left as it was.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readModule } from "../src/binary/reader.js";
import { VERSION } from "../src/version.js";
import { uleb as leb } from "./leb.js";

// The project's lib settings do not include the WebAssembly JS API types.
declare const WebAssembly: {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
};

const ROOT = fileURLToPath(new URL("../..", import.meta.url)); // dist/test -> repository root
const CLI = join(ROOT, "dist/cli/main.js");
const EXAMPLE = join(ROOT, "examples/hello.wasm");

// ---------------------------------------------------------------- bytes by hand

const str = (s: string): number[] => {
  const b = [...new TextEncoder().encode(s)];
  return [...leb(b.length), ...b];
};
const section = (id: number, payload: number[]): number[] => [id, ...leb(payload.length), ...payload];
const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
const I32 = 0x7f;
const I64 = 0x7e;

// Pieces of a small valid module: (func $add (export "add") (param i32 i32) (result i32)
//   local.get 0 local.get 1 i32.add), with a name section naming it "add".
const TYPE_SEC = section(1, [1, 0x60, 2, I32, I32, 1, I32]);
const FUNC_SEC = section(3, [1, 0]);
const exportSec = (name: number[]) => section(7, [1, ...name, 0x00, 0]);
const EXPORT_SEC = exportSec(str("add"));
const codeSec = (body: number[]) => section(10, [1, ...leb(body.length), ...body]);
const ADD_BODY = [0x00, 0x20, 0, 0x20, 1, 0x6a, 0x0b];
const CODE_SEC = codeSec(ADD_BODY);
const NAME_SEC = section(0, [...str("name"), ...section(1, [1, 0, ...str("add")])]);

const mod = (...parts: number[][]): Uint8Array => new Uint8Array([...HEADER, ...parts.flat()]);
const VALID = mod(TYPE_SEC, FUNC_SEC, EXPORT_SEC, CODE_SEC, NAME_SEC);

// ---------------------------------------------------------------- running the CLI

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], opts: { cwd?: string; nodeArgs?: string[]; env?: Record<string, string> } = {}): Run {
  const r = spawnSync(process.execPath, [...(opts.nodeArgs ?? []), CLI, ...args], {
    cwd: opts.cwd ?? ROOT,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, WASM_COMPACT_DEBUG: "", ...opts.env },
  });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "wasm-compact-cli-"));
}

/** A fresh directory holding `bytes` as in.wasm. */
function withInput(bytes: Uint8Array): { dir: string; input: string; output: string } {
  const dir = tempDir();
  const input = join(dir, "in.wasm");
  writeFileSync(input, bytes);
  return { dir, input, output: join(dir, "out.wasm") };
}

function assertNoStack(text: string): void {
  assert.doesNotMatch(text, /\n\s+at\s/, "no stack trace");
  assert.doesNotMatch(text, /(Type|Range|Reference|Wasm\w*)Error\b/, "no error class names");
}

/** Exit code 1 and exactly one line: "error: <file>: <message with a location>". */
function assertBadInput(r: Run, file: string, what: RegExp, where: RegExp): void {
  assert.equal(r.status, 1, `exit code 1, stderr: ${r.stderr}`);
  assert.equal(r.stdout, "");
  const lines = r.stderr.split("\n");
  assert.equal(lines.at(-1), "", "stderr ends with a newline");
  assert.equal(lines.length, 2, `exactly one line on stderr, got: ${JSON.stringify(r.stderr)}`);
  const line = lines[0]!;
  assert.ok(line.startsWith(`error: ${file}: `), `names the file: ${line}`);
  assert.match(line, what);
  assert.match(line, where);
  assertNoStack(r.stderr);
}

/** Exit code 2: "error: ..." then the one-line usage. */
function assertUsage(r: Run, what: RegExp): void {
  assert.equal(r.status, 2, `exit code 2, stderr: ${r.stderr}`);
  assert.equal(r.stdout, "");
  const lines = r.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 2, `error line and usage line, got: ${JSON.stringify(r.stderr)}`);
  assert.match(lines[0]!, /^error: /);
  assert.match(lines[0]!, what);
  assert.match(lines[1]!, /^usage: wasm-compact IN\.wasm -o OUT\.wasm/);
  assertNoStack(r.stderr);
}

/** Only these names are in `dir` (no output, no temp file), and the input bytes are as written. */
function assertUntouched(dir: string, names: string[], input?: { path: string; bytes: Uint8Array }): void {
  assert.deepEqual(readdirSync(dir).sort(), [...names].sort(), "nothing was written");
  if (input) assert.deepEqual(new Uint8Array(readFileSync(input.path)), input.bytes, "input unchanged");
}

// ---------------------------------------------------------------- sanity of the hand-built module

test("the hand-built module is valid (so each variant below breaks exactly one thing)", () => {
  assert.ok(WebAssembly.validate(VALID));
  const r = cli([]); // touch the CLI once so a missing build fails loudly here
  assert.equal(r.status, 2);
});

// ---------------------------------------------------------------- bad input: exit code 1

interface BadCase {
  name: string;
  bytes: Uint8Array;
  what: RegExp;
  where: RegExp;
  nodeArgs?: string[];
}

const CODE_OFFSET = HEADER.length + TYPE_SEC.length + FUNC_SEC.length + EXPORT_SEC.length;

const BAD: BadCase[] = [
  { name: "empty file", bytes: new Uint8Array(0), what: /empty|magic/, where: /offset 0x0\b/ },
  {
    name: "truncated file (cut inside the code section)",
    bytes: VALID.subarray(0, CODE_OFFSET + 5),
    what: /unexpected end|size mismatch/,
    where: /offset 0x[0-9a-f]+ in code section|offset 0x[0-9a-f]+/,
  },
  {
    name: "truncated header",
    bytes: VALID.subarray(0, 6),
    what: /unexpected end|version/,
    where: /offset 0x[0-9a-f]+/,
  },
  {
    name: "wrong magic",
    bytes: mod().map((b, i) => (i === 3 ? 0x6e : b)),
    what: /magic/,
    where: /offset 0x0\b/,
  },
  {
    name: "wrong version",
    bytes: new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x02, 0x00, 0x00, 0x00, ...TYPE_SEC]),
    what: /version/,
    where: /offset 0x4\b/,
  },
  {
    name: "LEB128 integer too long (type count with 6 bytes)",
    bytes: mod(section(1, [0x80, 0x80, 0x80, 0x80, 0x80, 0x00])),
    what: /integer representation too long/,
    where: /offset 0x[0-9a-f]+ in type section/,
  },
  {
    name: "LEB128 integer too large (section size beyond 32 bits)",
    bytes: mod([0x01, 0xff, 0xff, 0xff, 0xff, 0x7f]),
    what: /integer too large|too long/,
    where: /offset 0x[0-9a-f]+/,
  },
  {
    name: "section size larger than the file",
    bytes: mod([0x01, 100, 1, 0x60, 0, 0]),
    what: /size mismatch|unexpected end/,
    where: /offset 0x8\b/,
  },
  {
    name: "section size smaller than its contents",
    // the type section says 3 bytes, its one type needs 6
    bytes: mod([0x01, 3, ...TYPE_SEC.slice(2)], FUNC_SEC, EXPORT_SEC, CODE_SEC),
    what: /unexpected end|size mismatch|out of bounds/,
    where: /offset 0x[0-9a-f]+ in type section/,
  },
  {
    name: "vector count that would allocate gigabytes (0xffffffff types), under a 40 MB heap",
    bytes: mod(section(1, [0xff, 0xff, 0xff, 0xff, 0x0f])),
    what: /length|unexpected end/,
    where: /offset 0x[0-9a-f]+ in type section/,
    nodeArgs: ["--max-old-space-size=40"],
  },
  {
    name: "0xffffffff locals in a body, under a 40 MB heap",
    bytes: mod(TYPE_SEC, FUNC_SEC, EXPORT_SEC, codeSec([0x01, 0xff, 0xff, 0xff, 0xff, 0x0f, I32, 0x20, 0, 0x0b])),
    what: /too many locals|locals/,
    where: /offset 0x[0-9a-f]+/,
    nodeArgs: ["--max-old-space-size=40"],
  },
  {
    name: "invalid UTF-8 in an export name",
    bytes: mod(TYPE_SEC, FUNC_SEC, exportSec([2, 0xc3, 0x28]), CODE_SEC),
    what: /UTF-8/,
    where: /offset 0x[0-9a-f]+ in export section/,
  },
  {
    name: "unknown opcode in a function body",
    bytes: mod(TYPE_SEC, FUNC_SEC, EXPORT_SEC, codeSec([0x00, 0x20, 0, 0x20, 1, 0x27, 0x0b])),
    what: /opcode|illegal/,
    where: /offset 0x[0-9a-f]+( in code section)?|function 0/,
  },
  {
    name: "type error in a function body (i64 result where i32 is declared)",
    bytes: mod(TYPE_SEC, FUNC_SEC, EXPORT_SEC, codeSec([0x00, 0x42, 0, 0x0b]), NAME_SEC),
    what: /type mismatch|expected i32|i64/,
    where: /function 0 \(add\)/,
  },
  {
    name: "type error: i32.add with one operand",
    bytes: mod(TYPE_SEC, FUNC_SEC, EXPORT_SEC, codeSec([0x00, 0x20, 0, 0x6a, 0x0b])),
    what: /type mismatch|empty|operand|stack/,
    where: /function 0/,
  },
];

for (const c of BAD) {
  test(`bad input: ${c.name} -> exit 1, one line, nothing written`, () => {
    assert.equal(WebAssembly.validate(c.bytes), false, "the engine rejects it too");
    const { dir, input, output } = withInput(c.bytes);
    const t = Date.now();
    const r = cli([input, "-o", output], { nodeArgs: c.nodeArgs });
    const elapsed = Date.now() - t;
    assertBadInput(r, input, c.what, c.where);
    assertUntouched(dir, ["in.wasm"], { path: input, bytes: c.bytes });
    assert.ok(elapsed < 20_000, `fails fast (${elapsed} ms)`);
    rmSync(dir, { recursive: true });
  });
}

test("bad input with --json: neither the output nor the report is written", () => {
  const bytes = mod(TYPE_SEC, FUNC_SEC, EXPORT_SEC, codeSec([0x00, 0x42, 0, 0x0b]));
  const { dir, input, output } = withInput(bytes);
  const r = cli([input, "-o", output, "--json", join(dir, "report.json")]);
  assertBadInput(r, input, /./, /function 0/);
  assertUntouched(dir, ["in.wasm"], { path: input, bytes });
  rmSync(dir, { recursive: true });
});

test("--no-validate still rejects malformed input (exit 1)", () => {
  const bytes = VALID.subarray(0, CODE_OFFSET + 5);
  const { dir, input, output } = withInput(bytes);
  const r = cli([input, "-o", output, "--no-validate"]);
  assertBadInput(r, input, /unexpected end|size mismatch/, /offset 0x[0-9a-f]+/);
  assertUntouched(dir, ["in.wasm"], { path: input, bytes });
  rmSync(dir, { recursive: true });
});

// ---------------------------------------------------------------- usage errors: exit code 2

test("usage: a directory as input", () => {
  const dir = tempDir();
  mkdirSync(join(dir, "sub.wasm"));
  const r = cli([join(dir, "sub.wasm"), "-o", join(dir, "out.wasm")]);
  assertUsage(r, /sub\.wasm: is a directory/);
  assertUntouched(dir, ["sub.wasm"]);
  rmSync(dir, { recursive: true });
});

test("usage: an input file that does not exist", () => {
  const dir = tempDir();
  const r = cli([join(dir, "nope.wasm"), "-o", join(dir, "out.wasm")]);
  assertUsage(r, /nope\.wasm: no such file or directory/);
  assertUntouched(dir, []);
  rmSync(dir, { recursive: true });
});

test("usage: no input file given", () => {
  const dir = tempDir();
  assertUsage(cli(["-o", join(dir, "out.wasm")]), /missing input file/);
  assertUntouched(dir, []);
  rmSync(dir, { recursive: true });
});

test("usage: two input files", () => {
  const { dir, input, output } = withInput(VALID);
  assertUsage(cli([input, input, "-o", output]), /expected one input file, got 2/);
  assertUntouched(dir, ["in.wasm"], { path: input, bytes: VALID });
  rmSync(dir, { recursive: true });
});

test("usage: an unknown flag", () => {
  const { dir, input, output } = withInput(VALID);
  assertUsage(cli([input, "-o", output, "--frobnicate"]), /unknown option '--frobnicate'/);
  assertUntouched(dir, ["in.wasm"], { path: input, bytes: VALID });
  rmSync(dir, { recursive: true });
});

test("usage: missing -o", () => {
  const { dir, input } = withInput(VALID);
  assertUsage(cli([input]), /missing -o/);
  assertUntouched(dir, ["in.wasm"], { path: input, bytes: VALID });
  rmSync(dir, { recursive: true });
});

test("usage: -o without a value", () => {
  const { dir, input } = withInput(VALID);
  assertUsage(cli([input, "-o"]), /output/);
  assertUntouched(dir, ["in.wasm"], { path: input, bytes: VALID });
  rmSync(dir, { recursive: true });
});

test("usage: an unknown pass lists the known ones", () => {
  const { dir, input, output } = withInput(VALID);
  assertUsage(cli([input, "-o", output, "--passes", "identity,fold-everything"]), /unknown pass "fold-everything".*known passes: .*identity/);
  assertUntouched(dir, ["in.wasm"], { path: input, bytes: VALID });
  rmSync(dir, { recursive: true });
});

test("usage: an empty name in --passes", () => {
  const { dir, input, output } = withInput(VALID);
  assertUsage(cli([input, "-o", output, "--passes", "identity,,identity"]), /empty pass name/);
  assertUntouched(dir, ["in.wasm"], { path: input, bytes: VALID });
  rmSync(dir, { recursive: true });
});

test("usage: --threads takes a whole number from 1 to 256", () => {
  const { dir, input, output } = withInput(VALID);
  for (const bad of ["0", "-2", "1.5", "two", "", "257"]) assertUsage(cli([input, "-o", output, `--threads=${bad}`]), /--threads: expected a whole number from 1 to 256/);
  assertUntouched(dir, ["in.wasm"], { path: input, bytes: VALID });
  rmSync(dir, { recursive: true });
});

test("--threads 1, 2 and 3 write the same module and report (the workers only measure)", () => {
  const dir = mkdtempSync(join(tmpdir(), "wasm-compact-threads-"));
  try {
    const input = join(ROOT, "fixtures/wasm/graph-Oz-wasmopt.wasm");
    const outs: Uint8Array[] = [];
    const sizes: unknown[] = [];
    for (const n of ["1", "2", "3"]) {
      const out = join(dir, `out${n}.wasm`);
      const json = join(dir, `out${n}.json`);
      const r = cli([input, "-o", out, "--target", "brotli", "--threads", n, "--quiet", "--json", json]);
      assert.equal(r.status, 0, r.stderr);
      outs.push(new Uint8Array(readFileSync(out)));
      sizes.push((JSON.parse(readFileSync(json, "utf8")) as { sizes: unknown }).sizes);
    }
    assert.deepEqual(outs[1], outs[0]);
    assert.deepEqual(outs[2], outs[0]);
    assert.deepEqual(sizes[1], sizes[0]);
    assert.deepEqual(sizes[2], sizes[0]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("usage: an unknown feature, or one both enabled and disabled", () => {
  const { dir, input, output } = withInput(VALID);
  assertUsage(cli([input, "-o", output, "--enable", "multivalue,warp-drive"]), /--enable: unknown feature "warp-drive" \(use .*tail-call.*multivalue/);
  assertUsage(cli([input, "-o", output, "--disable", "simd9"]), /--disable: unknown feature "simd9"/);
  assertUsage(cli([input, "-o", output, "--enable", "multi-value", "--disable", "multivalue"]), /feature multivalue is both enabled and disabled/);
  assertUntouched(dir, ["in.wasm"], { path: input, bytes: VALID });
  rmSync(dir, { recursive: true });
});

test("wasm-opt's feature flags: --enable-FEATURE, --disable-FEATURE, -all and -mvp", () => {
  const { dir, input, output } = withInput(VALID);
  for (const args of [["--enable-multivalue", "--enable-tail-call"], ["-all", "--disable-multivalue"], ["--all-features"], ["-mvp", "--enable-simd"]]) {
    const r = cli([input, "-o", output, ...args]);
    assert.equal(r.status, 0, `${args.join(" ")}: ${r.stderr}`);
  }
  assertUsage(cli([input, "-o", output, "--enable-warp-drive"]), /--enable: unknown feature "warp-drive"/);
  assertUsage(cli([input, "-o", output, "--enable-simd", "--disable-simd"]), /feature simd is both enabled and disabled/);
  assertUsage(cli([input, "-o", output, "-all", "-mvp"]), /contradict/);
  rmSync(dir, { recursive: true });
});

test("--enable and --disable take wasm-opt's and LLVM's names; the report lists the features", () => {
  const { dir, input, output } = withInput(VALID);
  const r = cli([input, "-o", output, "--target", "raw", "--enable", "multi-value,simd128,reference-types", "--disable", "tail-call", "--json", "-"]);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).features, { input: [], declared: [], output: [] });
  rmSync(dir, { recursive: true });
});

test("-o may name the input, as with wasm-opt: it is replaced whole once the result is written; bad input leaves it untouched", () => {
  const { dir, input, bytes } = copyExample();
  const r = cli(["hello.wasm", "-o", "./hello.wasm", "--target", "raw", "--outline-hot"], { cwd: dir });
  assert.equal(r.status, 0, r.stderr);
  const out = new Uint8Array(readFileSync(input));
  assert.ok(out.length < bytes.length, `${out.length} < ${bytes.length}`);
  sameBehaviour(bytes, out);
  assert.deepEqual(readdirSync(dir).sort(), ["hello.wasm"], "no temp file left");
  rmSync(dir, { recursive: true });
  const bad = withInput(VALID.slice(0, VALID.length - 3));
  assert.equal(cli([bad.input, "-o", bad.input]).status, 1);
  assertUntouched(bad.dir, ["in.wasm"], { path: bad.input, bytes: VALID.slice(0, VALID.length - 3) });
  rmSync(bad.dir, { recursive: true });
});

test("- reads the module from stdin and -o - writes it to stdout; the report cannot share stdout with it", () => {
  const bytes = new Uint8Array(readFileSync(EXAMPLE));
  const r = spawnSync(process.execPath, [CLI, "-", "-o", "-", "--passes", "fold-functions,outline", "--target", "raw"], { input: bytes, timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr.toString());
  const out = new Uint8Array(r.stdout);
  assert.ok(WebAssembly.validate(out) && out.length <= bytes.length);
  sameBehaviour(bytes, out);
  assert.match(r.stderr.toString(), /^wasm-compact: <stdin> -> <stdout> /);
  const { dir, input } = withInput(VALID);
  assertUsage(cli([input, "-o", "-", "--json", "-"]), /-o - writes the module to stdout; --json cannot write there too/);
  assertUntouched(dir, ["in.wasm"], { path: input, bytes: VALID });
  rmSync(dir, { recursive: true });
  // bad input on stdin: exit 1, named as <stdin>, nothing on stdout
  const b = spawnSync(process.execPath, [CLI, "-", "-o", "-"], { input: VALID.slice(0, 12), timeout: 60_000 });
  assert.equal(b.status, 1);
  assert.equal(b.stdout.length, 0);
  assert.match(b.stderr.toString(), /^error: <stdin>: /);
});

test("usage: --json naming the input or the output is refused", () => {
  const { dir, input, output } = withInput(VALID);
  assertUsage(cli([input, "-o", output, "--json", input]), /is the input file/);
  assertUsage(cli([input, "-o", output, "--json", output]), /same file as -o/);
  assertUntouched(dir, ["in.wasm"], { path: input, bytes: VALID });
  rmSync(dir, { recursive: true });
});

test("usage: -o naming a directory", () => {
  const { dir, input } = withInput(VALID);
  mkdirSync(join(dir, "outdir"));
  assertUsage(cli([input, "-o", join(dir, "outdir")]), /outdir: is a directory/);
  assertUntouched(dir, ["in.wasm", "outdir"], { path: input, bytes: VALID });
  assert.deepEqual(readdirSync(join(dir, "outdir")), []);
  rmSync(dir, { recursive: true });
});

test("an unwritable output location: exit 2, one error line naming the file, no temp file", () => {
  const { dir, input } = withInput(VALID);
  writeFileSync(join(dir, "file"), "x");
  const r = cli([input, "-o", join(dir, "file", "out.wasm")]); // a path through a regular file
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr.split("\n")[0]!, /^error: .*file[/\\]out\.wasm: cannot write: /);
  assertNoStack(r.stderr);
  assertUntouched(dir, ["in.wasm", "file"], { path: input, bytes: VALID });
  rmSync(dir, { recursive: true });
});

// ---------------------------------------------------------------- success

function copyExample(): { dir: string; input: string; output: string; bytes: Uint8Array } {
  const dir = tempDir();
  const input = join(dir, "hello.wasm");
  copyFileSync(EXAMPLE, input);
  return { dir, input, output: join(dir, "hello.min.wasm"), bytes: new Uint8Array(readFileSync(input)) };
}

function instantiate(bytes: Uint8Array): Record<string, (...args: unknown[]) => unknown> {
  const log: unknown[] = [];
  const inst = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { log: (p: number, n: number) => log.push([p, n]) } });
  return inst.exports as Record<string, (...args: unknown[]) => unknown>;
}

function sameBehaviour(a: Uint8Array, b: Uint8Array): void {
  const x = instantiate(a);
  const y = instantiate(b);
  const calls: [string, unknown[]][] = [
    ["strlen", [16]], ["max_a", [3, -4]], ["max_b", [-3, 4]], ["scale3", [-7]], ["scale5", [9]],
    ["clamp", [5, 0, 3]], ["clamp", [-5, 0, 3]], ["clamp", [2, 0, 3]], ["sum3", [16]], ["sum3_twice", [16, 20]],
    ["fib", [50]], ["fact", [20n]], ["hello", []], ["calls", []],
  ];
  for (const [name, args] of calls) assert.deepEqual(y[name]!(...args), x[name]!(...args), `${name}(${args.join(", ")})`);
}

test("--strip-dwarf removes DWARF sections; without it, unchanged code keeps them", () => {
  const DWARF = section(0, [...str(".debug_info"), 1, 2, 3, 4, 5, 6, 7, 8]);
  const { dir, input, output } = withInput(mod(TYPE_SEC, FUNC_SEC, EXPORT_SEC, CODE_SEC, NAME_SEC, DWARF));
  const customs = (): string[] => readModule(new Uint8Array(readFileSync(output))).customs.map((c) => c.name);
  let r = cli([input, "-o", output, "--passes", "none"]);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(customs(), ["name", ".debug_info"]);
  r = cli([input, "-o", output, "--passes", "none", "--strip-dwarf"]);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(customs(), ["name"]);
  assert.doesNotMatch(r.stderr, /debug info/);
  rmSync(dir, { recursive: true });
});

test("identity run on examples/hello.wasm: exit 0, valid output not larger, same behaviour, size table", () => {
  const { dir, input, output, bytes } = copyExample();
  const r = cli([input, "-o", output, "--passes", "none"]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, "");
  const out = new Uint8Array(readFileSync(output));
  assert.ok(out.length <= bytes.length, `${out.length} <= ${bytes.length}`);
  assert.ok(WebAssembly.validate(out));
  readModule(out);
  sameBehaviour(bytes, out);
  assert.match(r.stderr, /^\s+before\s+after\s+change$/m);
  assert.match(r.stderr, new RegExp(`^whole file\\s+${bytes.length}\\s+${out.length}\\s+(-?\\d+\\.\\d\\d%|0\\.00%)$`, "m"));
  assert.match(r.stderr, /^code section\s+\d+\s+\d+\s+\S+%$/m);
  assert.match(r.stderr, /^custom sections\s+\d+\s+\d+\s+\S+$/m);
  assertNoStack(r.stderr);
  assertUntouched(dir, ["hello.wasm", "hello.min.wasm"], { path: input, bytes });
  rmSync(dir, { recursive: true });
});

test("default pipeline on examples/hello.wasm: exit 0, valid, same behaviour", () => {
  const { dir, input, output, bytes } = copyExample();
  const r = cli([input, "-o", output]);
  assert.equal(r.status, 0, r.stderr);
  const out = new Uint8Array(readFileSync(output));
  assert.ok(out.length <= bytes.length);
  assert.ok(WebAssembly.validate(out));
  sameBehaviour(bytes, out);
  assertUntouched(dir, ["hello.wasm", "hello.min.wasm"], { path: input, bytes });
  rmSync(dir, { recursive: true });
});

test("--json FILE writes the report; sizes agree with the files", () => {
  const { dir, input, output, bytes } = copyExample();
  const json = join(dir, "reports", "hello.json"); // missing directory is created
  const r = cli([input, "-o", output, "--passes", "identity", "--json", json]);
  assert.equal(r.status, 0, r.stderr);
  const report = JSON.parse(readFileSync(json, "utf8"));
  const out = readFileSync(output);
  assert.equal(report.tool.name, "wasm-compact");
  assert.equal(report.tool.version, VERSION);
  assert.deepEqual(report.files, { input, output });
  assert.deepEqual(report.sizes.file, { before: bytes.length, after: out.length });
  const code = report.sections.input.find((s: { name: string }) => s.name === "code");
  assert.ok(code && code.size === report.sizes.code.before && code.size > 0);
  const names = report.sections.input.filter((s: { id: number }) => s.id === 0);
  assert.deepEqual(names.map((s: { name: string }) => s.name), ["custom:name"]);
  assert.equal(report.sizes.custom.before, names[0].size);
  assert.equal(report.passes.length, 1);
  assert.equal(report.passes[0].name, "identity");
  assert.equal(report.passes[0].changed, false);
  assert.deepEqual(report.validated, { input: true, output: true });
  assert.equal(typeof report.timings.totalMs, "number");
  assertUntouched(dir, ["hello.wasm", "hello.min.wasm", "reports"], { path: input, bytes });
  assert.deepEqual(readdirSync(join(dir, "reports")), ["hello.json"]);
  rmSync(dir, { recursive: true });
});

test("identical exports fold by default; --keep-export-identity keeps them distinct", () => {
  // target raw: on a 744-byte module, folding grows the compressed sizes by a few bytes
  const { dir, input, output, bytes } = copyExample();
  assert.equal(cli([input, "-o", output, "-q", "--target", "raw", "--keep-export-identity"]).status, 0);
  const kept = instantiate(new Uint8Array(readFileSync(output)));
  assert.notEqual(kept.max_a, kept.max_b, "max_a and max_b stay distinct functions");
  assert.equal(cli([input, "-o", output, "-q", "--target", "raw"]).status, 0);
  const folded = new Uint8Array(readFileSync(output));
  const f = instantiate(folded);
  assert.equal(f.max_a, f.max_b, "by default they become the same function");
  assert.ok(folded.length < bytes.length);
  sameBehaviour(bytes, folded);
  rmSync(dir, { recursive: true });
});

test("--map FILE writes what became of each folded function", () => {
  const { dir, input, output } = copyExample();
  const map = join(dir, "hello.map.json");
  const r = cli([input, "-o", output, "--passes", "fold-functions", "--target", "raw", "--map", map, "-q"]);
  assert.equal(r.status, 0, r.stderr);
  const m = JSON.parse(readFileSync(map, "utf8"));
  assert.deepEqual(m.functions, [
    { function: { origin: 5, name: "max_b" }, became: "folded", into: { origin: 4, name: "max_a", output: 4 } },
  ]);
  assertUsage(cli([input, "-o", output, "--map", "-", "--json", "-"]), /cannot both write to stdout/);
  assertUsage(cli([input, "-o", output, "--map", input]), /--map .* is the input file/);
  rmSync(dir, { recursive: true });
});

test("--json - prints the report on stdout", () => {
  const { dir, input, output } = copyExample();
  const r = cli([input, "-o", output, "--json", "-", "--quiet"]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, "");
  assert.equal(JSON.parse(r.stdout).sizes.file.after, statSync(output).size);
  rmSync(dir, { recursive: true });
});

test("--quiet prints nothing on success", () => {
  const { dir, input, output } = copyExample();
  const r = cli([input, "-o", output, "--quiet"]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr, "");
  assert.ok(statSync(output).size > 0);
  rmSync(dir, { recursive: true });
});

test("an existing output file is replaced whole, and no temp file is left", () => {
  const { dir, input, output, bytes } = copyExample();
  writeFileSync(output, "old contents");
  const r = cli([input, "-o", output, "-q", "--no-validate"]);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(WebAssembly.validate(new Uint8Array(readFileSync(output))));
  assertUntouched(dir, ["hello.wasm", "hello.min.wasm"], { path: input, bytes });
  rmSync(dir, { recursive: true });
});

test("--help and --version", () => {
  const h = cli(["--help"]);
  assert.equal(h.status, 0);
  assert.match(h.stdout, /^usage: wasm-compact IN\.wasm -o OUT\.wasm/m);
  assert.match(h.stdout, /^\s+identity\s+/m);
  assert.match(h.stdout, /exit codes/);
  const v = cli(["--version"]);
  assert.equal(v.status, 0);
  assert.equal(v.stdout, `${VERSION}\n`);
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  assert.equal(VERSION, pkg.version, "src/version.ts matches package.json");
});

test("the built CLI is executable through its shebang (the package bin)", { skip: process.platform === "win32" }, () => {
  assert.ok((statSync(CLI).mode & 0o111) !== 0, "dist/cli/main.js is executable (npm run build sets it)");
  assert.ok(readFileSync(CLI, "utf8").startsWith("#!/usr/bin/env node\n"));
  const r = spawnSync(CLI, ["--version"], { encoding: "utf8" });
  assert.equal(r.status, 0, String(r.error ?? r.stderr));
  assert.equal(r.stdout, `${VERSION}\n`);
});

test("wasm-opt's feature spellings map onto --enable/--disable; -all and -mvp set every feature, the lists override them", async () => {
  const { wasmOptSpellings, parseFeatures } = await import("../src/cli/run.js");
  assert.deepEqual(wasmOptSpellings(["a.wasm", "--enable-simd", "-all", "--disable-tail-call", "-mvp", "--", "--enable-x"]), [
    "a.wasm", "--enable", "simd", "--all-features", "--disable", "tail-call", "--mvp-features", "--", "--enable-x",
  ]);
  const all = parseFeatures(undefined, ["simd"], "all");
  assert.equal(all["simd"], false);
  assert.equal(all["multivalue"], true);
  assert.equal(all["tail-call"], true);
  const none = parseFeatures(["multi-value"], undefined, "none");
  assert.equal(none["multivalue"], true);
  assert.equal(none["tail-call"], false);
  assert.deepEqual(parseFeatures(["simd,tail-call"], ["multivalue"]), { simd: true, "tail-call": true, multivalue: false });
});

// The official WebAssembly spec test suite (core scripts) against our reader,
// validator and writer, plus unit tests of the .wast script parser.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse as watToBinary } from "@bytecodealliance/jco-transpile/wasm-tools";
import {
  escapeConfusingUnicode,
  parseSExprs,
  parseWast,
  quoteModuleText,
  readStringLiteral,
  unfoldLegacyTry,
  WastSyntaxError,
  type SExpr,
  type SList,
} from "./spec/wast.js";

const bytesOf = (s: string): number[] => [...Buffer.from(s, "latin1")];
const str = (src: string): number[] => [...readStringLiteral(Buffer.from(src, "utf8").toString("latin1"), 0).bytes];

test("wast strings: every escape, raw bytes, UTF-8", () => {
  assert.deepEqual(str(String.raw`"\00asm\01\00\00\00"`), [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  assert.deepEqual(str(String.raw`"\t\n\r\\\"\'"`), [9, 10, 13, 0x5c, 0x22, 0x27]);
  assert.deepEqual(str(String.raw`"\ff\Fe\aB"`), [0xff, 0xfe, 0xab]);
  assert.deepEqual(str(String.raw`"\u{41}\u{e9}\u{20ac}\u{1F600}\u{0}"`), [0x41, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0]);
  assert.deepEqual(str('"é;; (; x"'), [0xc3, 0xa9, 0x3b, 0x3b, 0x20, 0x28, 0x3b, 0x20, 0x78], "raw UTF-8 and comment markers are plain bytes inside a string");
  assert.deepEqual(str('""'), []);
  for (const bad of [String.raw`"\q"`, String.raw`"\u{}"`, String.raw`"\u{110000}"`, String.raw`"\u{d800}"`, String.raw`"\4"`, '"abc', '"a\nb"']) {
    assert.throws(() => str(bad), WastSyntaxError, bad);
  }
});

function shape(e: SExpr): unknown {
  if (e.t === "atom") return e.v;
  if (e.t === "string") return { s: Buffer.from(e.bytes).toString("latin1") };
  return e.items.map(shape);
}

test("wast s-expressions: comments, nesting, reserved tokens, $\"ids\"", () => {
  const src = [
    ";; line comment (module",
    "(a (; block (; nested ;) still comment ) ;) b",
    "  (c \"s;;(;\" d) ;; trailing",
    "  (;;) (;comment;;comment;)e",
    ")",
    "( ;;x",
    "module;;y",
    ")",
    "(@a , ; ] x\"y\"z) ($\"a b\" $x)",
  ].join("\n");
  const exprs = parseSExprs(src);
  assert.deepEqual(exprs.map(shape), [
    ["a", "b", ["c", { s: "s;;(;" }, "d"], "e"],
    ["module"],
    ["@a", ",", ";", "]", "x", { s: "y" }, "z"],
    ['$"a b"', "$x"],
  ]);
  const first = exprs[0] as SList;
  assert.equal(src.slice(first.start, first.end).startsWith("(a (; block"), true);
  assert.equal(src[first.end - 1], ")");
  assert.throws(() => parseSExprs("(a (b)"), WastSyntaxError);
  assert.throws(() => parseSExprs("(a))"), WastSyntaxError);
  assert.throws(() => parseSExprs("(a (; x (; y ;) )"), WastSyntaxError);
});

test("wast commands: module forms, assertions, lines, messages", () => {
  const script = [
    "(module $M1 binary \"\\00asm\" \"\\01\\00\\00\\00\")", // 1
    "(module definition $D (func))", // 2
    "(module instance $I $D)", // 3
    "(assert_malformed (module quote \"(func\" \" (foo))\") \"unknown operator\")", // 4
    "(assert_invalid", // 5
    "  (module (func (result i32)))",
    "  \"type mismatch\")",
    "((@a) assert_trap (@b) (module (@c) (func $f unreachable) (start $f)) \"unreachable\")", // 8
    "(assert_trap (invoke \"f\") \"unreachable\")", // 9
    "(assert_return (invoke $M1 \"g\" (i32.const 1)) (i32.const 2))", // 10
    "(register \"M\" $M1) (assert_unlinkable (module (import \"M\" \"x\" (func))) \"unknown import\")", // 11
    "(frobnicate)", // 12
  ].join("\n");
  const cmds = parseWast(script);
  assert.deepEqual(
    cmds.map((c) => [c.kind, c.line]),
    [
      ["module", 1], ["module", 2], ["module_instance", 3], ["assert_malformed", 4], ["assert_invalid", 5],
      ["assert_trap", 8], ["assert_trap", 9], ["assert_return", 10], ["register", 11], ["assert_unlinkable", 11],
      ["unknown", 12],
    ],
  );
  const [m1, def, , mal, inv, trap, trapInvoke] = cmds;
  assert.equal(m1!.module!.form, "binary");
  assert.equal(m1!.module!.name, "$M1");
  assert.deepEqual([...m1!.module!.bytes!], [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  assert.equal(def!.module!.definition, true);
  assert.equal(def!.module!.text, "(module $D (func))");
  assert.equal(mal!.module!.form, "quote");
  assert.equal(mal!.module!.text, "(func (foo))");
  assert.equal(mal!.expected, "unknown operator");
  assert.equal(inv!.module!.form, "text");
  assert.equal(inv!.module!.text, "(module (func (result i32)))");
  assert.equal(inv!.module!.line, 6);
  assert.equal(inv!.expected, "type mismatch");
  assert.equal(trap!.module!.text, "(module (@c) (func $f unreachable) (start $f))");
  assert.equal(trap!.expected, "unreachable");
  assert.equal(trapInvoke!.module, undefined);
  assert.equal(cmds[9]!.module!.text, '(module (import "M" "x" (func)))');
  assert.equal(cmds[10]!.head, "frobnicate");
});

test("wast: an inline module script, UTF-8 text, quoted module text", () => {
  const cmds = parseWast("(func) ;; é\n(memory 0)");
  assert.equal(cmds.length, 1);
  assert.equal(cmds[0]!.kind, "module");
  assert.equal(cmds[0]!.module!.text, "(module (func) ;; é\n(memory 0)\n)");
  const named = parseWast(new Uint8Array(Buffer.from('(module (func (export "é\u202e")))', "utf8")));
  assert.equal(named[0]!.module!.text, '(module (func (export "é\u202e")))');
  assert.equal(quoteModuleText("(func)"), "(module (func))");
  assert.equal(quoteModuleText("(module $m (func))"), "(module $m (func))");
  assert.equal(quoteModuleText("(func"), "(module (func)");
});

test("text preparation for wasm-tools keeps the binary", async () => {
  const bidi = '(module ;; \u202e comment\n (func (export "a\u202eb\u2066")) (; \u2069 ;))';
  const escaped = escapeConfusingUnicode(bidi);
  assert.equal(escaped, '(module ;;   comment\n (func (export "a\\u{202e}b\\u{2066}")) (;   ;))');
  assert.equal(escapeConfusingUnicode("(module)"), "(module)");
  const viaEscape = await watToBinary(escaped);
  const expected = await watToBinary('(module (func (export "a\\u{202e}b\\u{2066}")))');
  assert.deepEqual(viaEscape, expected);

  const folded = "(module (tag $e (param i32)) (func $f (result i32) (try $l (result i32) (do (i32.const 1)) (catch $e) (catch_all (try (do) (delegate $l)) (i32.const 2)))))";
  const flat = "(module (tag $e (param i32)) (func $f (result i32) try $l (result i32) i32.const 1 catch $e catch_all try delegate $l i32.const 2 end))";
  assert.equal(unfoldLegacyTry(folded), "(module (tag $e (param i32)) (func $f (result i32) try $l (result i32) (i32.const 1) catch $e catch_all try delegate $l (i32.const 2) end))");
  assert.deepEqual(await watToBinary(unfoldLegacyTry(folded)), await watToBinary(flat));
});

/**
 * assert_invalid modules whose text cannot be encoded as a well-formed
 * binary, so that our reader rightly rejects them as malformed: a 32-bit
 * memory or table limit above 2^32 - 1 does not fit the u32 LEB128 of the
 * binary format ("integer too large").
 */
const MALFORMED_IN_BINARY: { expected: string; ours: RegExp }[] = [
  { expected: "memory size", ours: /integer too large|overflow|too long|out of range/i },
  { expected: "table size", ours: /integer too large|overflow|too long|out of range/i },
];

test("spec test suite (core): reader, validator and writer agree with every binary check", async () => {
  // Loaded here so that the parser tests above run even if the runner cannot load.
  const spec = await import("./spec/run-spec.js");
  const suiteDir = spec.findSuiteDir();
  const files = spec.selectFiles(suiteDir, "core");
  const results = await spec.runFiles(files, suiteDir);
  const overall = spec.summarize(results, () => "core")[0]!;

  const scriptErrors = results.filter((r) => r.scriptError !== undefined).map((r) => `${r.file}: ${r.scriptError}`);
  assert.deepEqual(scriptErrors, [], "every core script parses");

  // Guard against vacuous success: the suite really was read and checked.
  const t = overall.tallies;
  assert.ok(files.length >= 250, `core scripts: ${files.length}`);
  assert.ok(t.valid.agree + t.valid.disagree >= 2400, `valid modules checked: ${t.valid.agree + t.valid.disagree}`);
  assert.ok(t.malformed.agree + t.malformed.disagree >= 700, `malformed binaries checked: ${t.malformed.agree + t.malformed.disagree}`);
  assert.ok(t.invalid.agree + t.invalid.disagree + t.invalid.rejectedAsMalformed >= 2700, `invalid modules checked`);

  const disagreements = results.flatMap((r) => r.disagreements);
  const unexpectedMalformed = results
    .flatMap((r) => r.rejectedAsMalformed)
    .filter((f) => !MALFORMED_IN_BINARY.some((a) => a.expected === f.expected && a.ours.test(f.error ?? "")));
  const problems = [...disagreements, ...unexpectedMalformed];
  const counts = spec.CATEGORIES.map((c) => `${c}: ${t[c].agree} agree, ${t[c].disagree} disagree`).join("; ");
  assert.ok(
    problems.length === 0,
    `${disagreements.length} disagreements and ${unexpectedMalformed.length} assert_invalid modules rejected as malformed (${counts}):\n` +
      problems.slice(0, 200).map(spec.formatFinding).join("\n") +
      (problems.length > 200 ? `\n... ${problems.length - 200} more (npm run spec)` : ""),
  );
});

// web-tree-sitter + tree-sitter-javascript: parse real JavaScript files from
// node_modules (plain, minified, JSX, broken code) and compare the whole
// syntax tree as an S-expression plus a cursor walk of every node with its
// field name and position; run the grammar's own highlight, tag and locals
// queries; reparse incrementally after edits (the result must equal a fresh
// parse); parse through a chunked input callback. The debug build of the
// runtime (its own corpus module) parses a subset too and must agree with
// the release build.
//
// The wasm goes in through the package's own options: Parser.init({ wasmBinary })
// for the runtime, Language.load(bytes) for the grammar. The JS glue runs from
// a copy in a temporary folder (the runtime is a module-level singleton).

import { corpusEntry } from "../../corpus/corpus.js";
import { importFresh, packageText, sha256, withTempDir } from "../util.js";
import type { Output, RunContext, Workload } from "../workload.js";

interface Point {
  row: number;
  column: number;
}
interface TSNode {
  toString(): string;
  readonly hasError: boolean;
  readonly descendantCount: number;
  readonly startIndex: number;
  readonly endIndex: number;
}
interface TSCursor {
  readonly nodeType: string;
  readonly currentFieldName: string | null;
  readonly nodeIsNamed: boolean;
  readonly nodeIsMissing: boolean;
  readonly startIndex: number;
  readonly endIndex: number;
  readonly startPosition: Point;
  gotoFirstChild(): boolean;
  gotoNextSibling(): boolean;
  gotoParent(): boolean;
  delete(): void;
}
interface TSTree {
  readonly rootNode: TSNode;
  walk(): TSCursor;
  edit(edit: unknown): void;
  getChangedRanges(other: TSTree): { startIndex: number; endIndex: number }[];
  delete(): void;
}
interface TSParser {
  setLanguage(l: unknown): TSParser;
  parse(input: string | ((index: number, position: Point) => string | undefined), oldTree?: TSTree | null): TSTree | null;
  delete(): void;
}
interface TSQuery {
  captures(node: TSNode): { name: string; node: TSNode }[];
  matches(node: TSNode): { patternIndex: number; captures: { name: string; node: TSNode }[] }[];
  delete(): void;
}
interface TreeSitterApi {
  Parser: { init(options: { wasmBinary: ArrayBuffer }): Promise<void> } & (new () => TSParser);
  Language: { load(bytes: Uint8Array): Promise<unknown> };
  Query: new (language: unknown, source: string) => TSQuery;
  Edit: new (e: { startIndex: number; oldEndIndex: number; newEndIndex: number; startPosition: Point; oldEndPosition: Point; newEndPosition: Point }) => unknown;
}

const JSX = `
import React, { useState, useEffect } from "react";
export default function App({ items = [], title }) {
  const [count, setCount] = useState(0);
  useEffect(() => { document.title = \`\${title} (\${count})\`; }, [count, title]);
  return (
    <main className="app" data-count={count}>
      <h1>{title ?? "Untitled"}</h1>
      <ul>{items.map((it, i) => <li key={i} onClick={() => setCount(c => c + 1)}>{it.name}&nbsp;{it?.price?.toFixed(2)}</li>)}</ul>
      <Foo.Bar {...rest} flag />
      <>fragment <b>bold</b></>
    </main>
  );
}
class Counter extends React.Component { static defaultProps = { n: 1 }; #secret = 42; get value() { return this.#secret; } async *gen() { yield* [1, 2]; } }
const re = /[a-z]+\\d{2,}/giu, big = 123_456n, obj = { a, b: 2, [c]: 3, ...d, get e() { return 1; }, f() {} };
label: for await (const x of xs) { if (x?.y ?? z) continue label; else break; }
`;

const BROKEN = `
function broken( {
  const x = ;
  if (x > ) { return [1, 2,; }
  class { method( }
  let y = "unterminated
  <div><span></div>
}
var ok = 1;
`;

/** Every node in document order: type, field, named/missing flags and span. */
function walkDigest(tree: TSTree): { nodes: number; digest: string; fields: number } {
  const c = tree.walk();
  const parts: string[] = [];
  let fields = 0;
  for (;;) {
    const field = c.currentFieldName;
    if (field) fields++;
    parts.push(`${c.nodeType}|${field ?? ""}|${c.nodeIsNamed ? 1 : 0}${c.nodeIsMissing ? 1 : 0}|${c.startIndex}-${c.endIndex}|${c.startPosition.row}:${c.startPosition.column}`);
    if (c.gotoFirstChild()) continue;
    let done = false;
    while (!c.gotoNextSibling()) {
      if (!c.gotoParent()) {
        done = true;
        break;
      }
    }
    if (done) break;
  }
  c.delete();
  return { nodes: parts.length, digest: sha256(parts.join("\n")), fields };
}

function describeTree(tree: TSTree): Record<string, Output> {
  const sexp = tree.rootNode.toString();
  const walk = walkDigest(tree);
  return {
    sexpLength: sexp.length,
    sexp: sexp.length <= 4000 ? sexp : `${sexp.slice(0, 1500)} … sha256:${sha256(sexp)}`,
    hasError: tree.rootNode.hasError,
    descendants: tree.rootNode.descendantCount,
    walk,
  };
}

function positionOf(text: string, index: number): Point {
  let row = 0;
  let col = 0;
  for (let i = 0; i < index; i++) {
    if (text.charCodeAt(i) === 10) {
      row++;
      col = 0;
    } else col++;
  }
  return { row, column: col };
}

async function loadRuntime(api: TreeSitterApi, runtime: Uint8Array, grammar: Uint8Array): Promise<{ parser: TSParser; language: unknown }> {
  await api.Parser.init({ wasmBinary: runtime.buffer.slice(runtime.byteOffset, runtime.byteOffset + runtime.byteLength) as ArrayBuffer });
  const language = await api.Language.load(grammar);
  const parser = new api.Parser();
  parser.setLanguage(language);
  return { parser, language };
}

function sources(): Record<string, string> {
  return {
    "esbuild-wasm/lib/main.js": packageText("esbuild-wasm", "lib/main.js"),
    "tree-sitter-javascript/grammar.js": packageText("tree-sitter-javascript", "grammar.js"),
    "sql.js/dist/sql-wasm.js (minified)": packageText("sql.js", "dist/sql-wasm.js"),
    "web-tree-sitter/web-tree-sitter.js": packageText("web-tree-sitter", "web-tree-sitter.js"),
    "jsx": JSX,
    "broken": BROKEN,
  };
}

async function fullRun(api: TreeSitterApi, runtime: Uint8Array, grammar: Uint8Array, ctx: RunContext): Promise<Record<string, Output>> {
  const { parser, language } = await loadRuntime(api, runtime, grammar);
  const out: Record<string, Output> = {};
  const srcs = sources();

  const parsed: Record<string, Output> = {};
  const trees: Record<string, TSTree> = {};
  for (const [name, text] of Object.entries(srcs)) {
    const tree = parser.parse(text)!;
    trees[name] = tree;
    parsed[name] = describeTree(tree);
  }
  ctx.check(parsed["broken"] !== undefined && (parsed["broken"] as { hasError: boolean }).hasError, "the broken source parsed without errors");
  ctx.check(!(parsed["esbuild-wasm/lib/main.js"] as { hasError: boolean }).hasError, "esbuild's main.js parsed with errors");
  out.parsed = parsed;

  // The grammar's own queries.
  const queries: Record<string, Output> = {};
  for (const q of ["highlights.scm", "highlights-jsx.scm", "tags.scm", "locals.scm", "injections.scm"]) {
    const query = new api.Query(language, packageText("tree-sitter-javascript", `queries/${q}`));
    for (const name of ["esbuild-wasm/lib/main.js", "jsx"]) {
      const caps = query.captures(trees[name]!.rootNode);
      const counts: Record<string, number> = Object.create(null) as Record<string, number>;
      for (const c of caps) counts[c.name] = (counts[c.name] ?? 0) + 1;
      const matches = query.matches(trees[name]!.rootNode);
      queries[`${q} on ${name}`] = {
        captures: caps.length,
        counts,
        digest: sha256(caps.map((c) => `${c.name}@${c.node.startIndex}-${c.node.endIndex}`).join(",")),
        matches: sha256(matches.map((m) => `${m.patternIndex}:${m.captures.map((c) => `${c.name}@${c.node.startIndex}`).join("+")}`).join(",")),
      };
    }
    query.delete();
  }
  out.queries = queries;

  // Incremental reparsing after edits; each result must equal a fresh parse.
  let text = srcs["esbuild-wasm/lib/main.js"]!;
  let tree = trees["esbuild-wasm/lib/main.js"]!;
  const edits: Output[] = [];
  const inserts = ["\nconst injected = (a, b) => a ?? b;\n", "/* comment */", "if (x) {", "}", "\"str\" + ", ""];
  for (let i = 0; i < 6; i++) {
    const at = Math.floor((text.length * (i * 37 + 11)) / 463);
    const removeLen = i % 3 === 0 ? 7 : 0;
    const insert = inserts[i % inserts.length]!;
    const newText = text.slice(0, at) + insert + text.slice(at + removeLen);
    tree.edit(
      new api.Edit({
        startIndex: at,
        oldEndIndex: at + removeLen,
        newEndIndex: at + insert.length,
        startPosition: positionOf(text, at),
        oldEndPosition: positionOf(text, at + removeLen),
        newEndPosition: positionOf(newText, at + insert.length),
      }),
    );
    const next = parser.parse(newText, tree)!;
    const fresh = parser.parse(newText)!;
    const incremental = next.rootNode.toString();
    ctx.check(incremental === fresh.rootNode.toString(), `incremental reparse ${i} differs from a fresh parse`);
    edits.push({ changed: next.getChangedRanges(tree).map((r) => [r.startIndex, r.endIndex]), sexp: sha256(incremental), hasError: next.rootNode.hasError });
    fresh.delete();
    tree.delete();
    tree = next;
    text = newText;
  }
  tree.delete();
  out.edits = edits;

  // Parsing through an input callback that hands out small chunks.
  const grammarText = srcs["tree-sitter-javascript/grammar.js"]!;
  const chunked = parser.parse((index) => (index < grammarText.length ? grammarText.slice(index, index + 97) : undefined))!;
  ctx.check(chunked.rootNode.toString() === trees["tree-sitter-javascript/grammar.js"]!.rootNode.toString(), "the chunked parse differs from the string parse");
  out.chunked = describeTree(chunked);
  chunked.delete();
  for (const t of Object.values(trees)) if (t !== trees["esbuild-wasm/lib/main.js"]) t.delete();
  parser.delete();
  return out;
}

async function debugRun(api: TreeSitterApi, runtime: Uint8Array, grammar: Uint8Array): Promise<Record<string, Output>> {
  const { parser } = await loadRuntime(api, runtime, grammar);
  const srcs = sources();
  const out: Record<string, Output> = {};
  for (const name of ["tree-sitter-javascript/grammar.js", "jsx", "broken"]) {
    const tree = parser.parse(srcs[name]!)!;
    out[name] = describeTree(tree);
    tree.delete();
  }
  parser.delete();
  return out;
}

export const workload: Workload = {
  name: "web-tree-sitter",
  size: "small",
  description: "tree-sitter: parse 6 JS/JSX sources (full S-expression + cursor walk), 5 grammar queries, 6 incremental edits, chunked input; release and debug runtimes",
  wasm: () => ["web-tree-sitter", "tree-sitter-javascript", "web-tree-sitter-debug"].map((name) => ({ name, bytes: corpusEntry(name).bytes() })),
  async run(wasm, ctx) {
    return withTempDir("tree-sitter", async (dir) => {
      dir.copyFromPackage("web-tree-sitter", "package.json");
      dir.copyFromPackage("web-tree-sitter", "web-tree-sitter.js");
      dir.copyFromPackage("web-tree-sitter", "debug/web-tree-sitter.js");
      const release = await importFresh<TreeSitterApi>(dir.file("web-tree-sitter.js"));
      const out = await fullRun(release, wasm[0]!, wasm[1]!, ctx);
      const debug = await importFresh<TreeSitterApi>(dir.file("debug/web-tree-sitter.js"));
      const dbg = await debugRun(debug, wasm[2]!, wasm[1]!);
      const parsed = out.parsed as Record<string, Output>;
      for (const [name, d] of Object.entries(dbg)) {
        ctx.check(JSON.stringify(d) === JSON.stringify(parsed[name]), `the debug runtime parses ${name} differently from the release runtime`);
      }
      out.debug = dbg;
      return out;
    });
  },
};

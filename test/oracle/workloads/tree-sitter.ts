// web-tree-sitter + tree-sitter-javascript: parse real JavaScript files from
// node_modules (plain, minified, JSX, broken code) and compare the whole
// syntax tree as an S-expression plus a cursor walk of every node with its
// field name and position; run the grammar's own highlight, tag and locals
// queries; reparse incrementally after edits (the result must equal a fresh
// parse); parse through a chunked input callback; tour the Node API
// (children, fields, siblings, parents, lookups by index and position), the
// Language API (types, fields, supertypes, parse states, lookahead
// iterators) and the Query API (predicates, ranges, limits, disabled
// captures); logging, included ranges, progress callbacks. The debug build
// of the runtime (its own corpus module) runs the same workload and must
// agree with the release build.
//
// The wasm goes in through the package's own options: Parser.init({ wasmBinary })
// for the runtime, Language.load(bytes) for the grammar. The JS glue runs from
// a copy in a temporary folder (the runtime is a module-level singleton).

import { corpusEntry } from "../../corpus/corpus.js";
import { importFresh, packageText, sha256, toOutput, withTempDir } from "../util.js";
import { firstDifference } from "../compare.js";
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
/** The rest of the Node, Language, Query and Parser API, used without types (the surface is wide; outputs are compared anyway). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

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

/** Node, Language, Query and Parser APIs beyond parsing and cursors. */
function apiTour(api: TreeSitterApi, parser: TSParser, language: unknown, text: string, maxVisits: number, ctx: RunContext): Record<string, Output> {
  const out: Record<string, Output> = {};
  const lang = language as Loose;
  const p = parser as unknown as Loose;

  // Language metadata and the parse table.
  const types: Output[] = [];
  for (let id = 0; id < lang.nodeTypeCount; id++) types.push([lang.nodeTypeForId(id), lang.nodeTypeIsNamed(id), lang.nodeTypeIsVisible(id)]);
  const fields: Output[] = [];
  for (let id = 1; id <= lang.fieldCount; id++) fields.push([lang.fieldNameForId(id), lang.fieldIdForName(lang.fieldNameForId(id))]);
  const lookahead: Output[] = [];
  for (const state of [1, 2, 7, 100, 1000, Math.floor(lang.stateCount / 2)]) {
    const it = lang.lookaheadIterator(state);
    const symbols: string[] = [];
    if (it) {
      for (const sym of it as Iterable<string>) symbols.push(sym);
      it.delete();
    }
    lookahead.push([state, symbols.length, sha256(symbols.join(" "))]);
  }
  out.language = toOutput({
    name: lang.name,
    abiVersion: lang.abiVersion,
    metadata: lang.metadata,
    stateCount: lang.stateCount,
    typesDigest: sha256(JSON.stringify(types)),
    typeCount: types.length,
    fields,
    ids: ["identifier", "function_declaration", "ERROR", "no_such_type"].map((t) => lang.idForNodeType(t, true)),
    supertypes: (lang.supertypes as number[]).map((st: number) => [lang.nodeTypeForId(st), (lang.subtypes(st) as number[]).length]),
    nextStates: [1, 5, 50].map((st) => lang.nextState(st, lang.idForNodeType("identifier", true))),
    lookahead,
  });

  // Navigating with Node objects (not a cursor): children, fields, siblings, parents, descendants.
  const tree = parser.parse(text)!;
  const root = tree.rootNode as unknown as Loose;
  const seen: string[] = [];
  const stack: Loose[] = [root];
  let visited = 0;
  while (stack.length > 0 && visited < maxVisits) {
    const n = stack.pop()!;
    visited++;
    const fieldNames: (string | null)[] = [];
    for (let i = 0; i < n.childCount; i++) fieldNames.push(n.fieldNameForChild(i));
    const named = n.namedChildren as Loose[];
    const sib = n.nextNamedSibling as Loose | null;
    const parent = n.parent as Loose | null;
    seen.push(
      `${n.type}/${n.grammarType}:${n.typeId}/${n.grammarId} ${n.startIndex}-${n.endIndex} ${n.startPosition.row}:${n.startPosition.column}-${n.endPosition.row}:${n.endPosition.column}` +
        ` c${n.childCount}/${n.namedChildCount} f${fieldNames.join(",")} e${n.isExtra ? 1 : 0}${n.isError ? 1 : 0}${n.isMissing ? 1 : 0}${n.hasChanges ? 1 : 0}` +
        ` s${n.parseState}/${n.nextParseState} next:${sib ? sib.type : "-"} parent:${parent ? parent.type : "-"}` +
        ` first:${n.firstChild ? n.firstChild.type : "-"} last:${n.lastNamedChild ? n.lastNamedChild.type : "-"} prev:${n.previousSibling ? n.previousSibling.type : "-"}` +
        ` name:${n.childForFieldName("name")?.text ?? "-"} body:${n.childrenForFieldName("body").length}`,
    );
    if (parent) ctx.check(parent.childWithDescendant(n)?.equals(n) ?? false, "childWithDescendant of a node's parent is not the node");
    for (let i = named.length - 1; i >= 0; i--) stack.push(named[i]!);
  }
  out.nodes = { visited, digest: sha256(seen.join("\n")), first: seen.slice(0, 20) };

  // Looking nodes up by position and type.
  const lookups: Output[] = [];
  for (let k = 1; k < 40; k++) {
    const at = Math.floor((text.length * k) / 40);
    const d = root.descendantForIndex(at, at + 3) as Loose;
    const nd = root.namedDescendantForIndex(at) as Loose;
    const pd = root.descendantForPosition({ row: k * 7, column: 4 }) as Loose;
    const npd = root.namedDescendantForPosition({ row: k * 7, column: 2 }, { row: k * 7, column: 9 }) as Loose;
    const fc = root.firstNamedChildForIndex(at) as Loose | null;
    lookups.push([d.type, d.startIndex, nd.type, nd.text.slice(0, 40), pd.type, npd.type, npd.endIndex, fc ? fc.startIndex : -1]);
  }
  out.lookups = lookups;
  out.descendantsOfType = ["identifier", "string", "call_expression", "arrow_function"].map((t) => (root.descendantsOfType(t) as Loose[]).length);
  out.textSample = (root.descendantsOfType("function_declaration") as Loose[]).slice(0, 5).map((n) => [n.childForFieldName("name")?.text ?? null, n.text.length]);

  // Queries with predicates, ranges, limits and disabled captures or patterns.
  const query = new api.Query(
    language,
    `((identifier) @constant (#match? @constant "^[A-Z][A-Z_0-9]+$"))
     ((call_expression function: (identifier) @fn) (#eq? @fn "require"))
     ((call_expression function: (member_expression property: (property_identifier) @method)) (#any-of? @method "push" "map" "join"))
     (function_declaration name: (identifier) @def.fn body: (statement_block) @def.body)
     ((comment) @doc (#set! kind "comment"))
     (pair key: (_) @key value: (_)+ @value)
     [(string) (template_string)] @str`,
  ) as unknown as Loose;
  const capture = (c: Loose): string => `${c.name}@${c.node.startIndex}`;
  const everything = (query.captures(root) as Loose[]).map(capture);
  const ranged = (query.captures(root, { startIndex: Math.floor(text.length / 3), endIndex: Math.floor(text.length / 2) }) as Loose[]).map(capture);
  const byPoint = (query.matches(root, { startPosition: { row: 10, column: 0 }, endPosition: { row: 60, column: 0 }, maxStartDepth: 3 }) as Loose[]).map(
    (m: Loose) => `${m.patternIndex}:${(m.captures as Loose[]).map(capture).join("+")}`,
  );
  const limited = query.matches(root, { matchLimit: 4 }) as Loose[];
  out.query = {
    patternCount: query.patternCount(),
    captureNames: query.captureNames,
    predicates: toOutput([0, 1, 2, 4].map((i) => query.predicatesForPattern(i))),
    setProperties: toOutput(query.setProperties),
    rooted: [0, 1, 2, 3, 4, 5, 6].map((i) => [query.isPatternRooted(i), query.isPatternNonLocal(i), query.startIndexForPattern(i), query.endIndexForPattern(i)]),
    captures: everything.length,
    digest: sha256(everything.join(",")),
    ranged: sha256(ranged.join(",")),
    rangedCount: ranged.length,
    byPoint: sha256(byPoint.join(",")),
    limitedCount: limited.length,
    exceeded: query.didExceedMatchLimit(),
  };
  query.disableCapture("str");
  query.disablePattern(0);
  out.queryDisabled = (query.captures(root) as Loose[]).length;
  query.delete();

  // Logging, included ranges, progress callbacks, copies.
  const logs: string[] = [];
  p.setLogger((message: string, isLex: boolean) => {
    if (logs.length < 5000) logs.push(`${isLex ? "L" : "P"} ${message}`);
  });
  parser.parse("const x = a ? b : (c, d) => c + d; if (x) { y(); } else z();")!.delete();
  p.setLogger(null);
  out.logs = { count: logs.length, digest: sha256(logs.join("\n")), first: logs.slice(0, 5) };
  const html = `<script>const a = 1;</script><p>not js</p><script>function f() { return a; }</script>`;
  const ranges = [...html.matchAll(/<script>(.*?)<\/script>/g)].map((m) => {
    const start = m.index + "<script>".length;
    const end = start + m[1]!.length;
    return { startIndex: start, endIndex: end, startPosition: { row: 0, column: start }, endPosition: { row: 0, column: end } };
  });
  const partial = p.parse(html, null, { includedRanges: ranges }) as TSTree;
  out.includedRanges = { sexp: partial.rootNode.toString(), ranges: toOutput(p.getIncludedRanges()) };
  partial.delete();
  let progressCalls = 0;
  const progressed = p.parse(text, null, { progressCallback: () => void progressCalls++ }) as TSTree;
  out.progress = { called: progressCalls > 0, same: progressed.rootNode.toString() === root.toString() };
  const copy = (tree as unknown as Loose).copy() as TSTree;
  out.copy = copy.rootNode.toString() === root.toString();
  copy.delete();
  progressed.delete();
  tree.delete();
  return out;
}

async function loadRuntime(api: TreeSitterApi, runtime: Uint8Array, grammar: Uint8Array): Promise<{ parser: TSParser; language: unknown }> {
  await api.Parser.init({ wasmBinary: runtime.buffer.slice(runtime.byteOffset, runtime.byteOffset + runtime.byteLength) as ArrayBuffer });
  const language = await api.Language.load(grammar);
  const parser = new api.Parser();
  parser.setLanguage(language);
  return { parser, language };
}

/**
 * The sources of a run: "full" for the release runtime; "reduced" (small
 * inputs) for the comparison with the debug runtime, whose -O0 code runs
 * about ten times slower.
 */
type Scale = "full" | "reduced";

interface Plan {
  sources: Record<string, string>;
  /** The source that queries and edits work on. */
  main: string;
  /** The source parsed through a callback and toured with the Node API. */
  tour: string;
  edits: number;
  visits: number;
}

function plan(scale: Scale): Plan {
  const grammar = packageText("tree-sitter-javascript", "grammar.js");
  if (scale === "full") {
    return {
      sources: {
        "esbuild-wasm/lib/main.js": packageText("esbuild-wasm", "lib/main.js"),
        "tree-sitter-javascript/grammar.js": grammar,
        "sql.js/dist/sql-wasm.js (minified)": packageText("sql.js", "dist/sql-wasm.js"),
        "web-tree-sitter/web-tree-sitter.js": packageText("web-tree-sitter", "web-tree-sitter.js"),
        "jsx": JSX,
        "broken": BROKEN,
      },
      main: "esbuild-wasm/lib/main.js",
      tour: "tree-sitter-javascript/grammar.js",
      edits: 6,
      visits: 4000,
    };
  }
  return {
    sources: { "grammar.js (first 250 lines)": grammar.split("\n").slice(0, 250).join("\n"), "jsx": JSX, "broken": BROKEN },
    main: "grammar.js (first 250 lines)",
    tour: "grammar.js (first 250 lines)",
    edits: 3,
    visits: 500,
  };
}

async function fullRun(api: TreeSitterApi, runtime: Uint8Array, grammar: Uint8Array, ctx: RunContext, scale: Scale): Promise<Record<string, Output>> {
  const { parser, language } = await loadRuntime(api, runtime, grammar);
  const out: Record<string, Output> = {};
  const p = plan(scale);
  const srcs = p.sources;

  const parsed: Record<string, Output> = {};
  const trees: Record<string, TSTree> = {};
  for (const [name, text] of Object.entries(srcs)) {
    const tree = parser.parse(text)!;
    trees[name] = tree;
    parsed[name] = describeTree(tree);
  }
  ctx.check(parsed["broken"] !== undefined && (parsed["broken"] as { hasError: boolean }).hasError, "the broken source parsed without errors");
  if (scale === "full") ctx.check(!(parsed[p.main] as { hasError: boolean }).hasError, `${p.main} parsed with errors`);
  out.parsed = parsed;
  const tourSexp = trees[p.tour]!.rootNode.toString();

  // The grammar's own queries.
  const queries: Record<string, Output> = {};
  for (const q of ["highlights.scm", "highlights-jsx.scm", "tags.scm", "locals.scm", "injections.scm"]) {
    const query = new api.Query(language, packageText("tree-sitter-javascript", `queries/${q}`));
    for (const name of [p.main, "jsx"]) {
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
  let text = srcs[p.main]!;
  let tree = trees[p.main]!;
  const edits: Output[] = [];
  const inserts = ["\nconst injected = (a, b) => a ?? b;\n", "/* comment */", "if (x) {", "}", "\"str\" + ", ""];
  for (let i = 0; i < p.edits; i++) {
    const at = Math.floor((text.length * (i * 73 + 11)) / 463);
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
  const tourText = srcs[p.tour]!;
  const chunked = parser.parse((index) => (index < tourText.length ? tourText.slice(index, index + 97) : undefined))!;
  ctx.check(chunked.rootNode.toString() === tourSexp, "the chunked parse differs from the string parse");
  out.chunked = describeTree(chunked);
  chunked.delete();
  for (const [name, t] of Object.entries(trees)) if (name !== p.main) t.delete();
  out.api = apiTour(api, parser, language, tourText, p.visits, ctx);
  parser.delete();
  return out;
}

export const workload: Workload = {
  name: "web-tree-sitter",
  size: "small",
  description: "tree-sitter: parse 6 JS/JSX sources (S-expression + cursor walk), 6 queries, 6 incremental edits, Node/Language/Query API tour; release and debug runtimes",
  wasm: () => ["web-tree-sitter", "tree-sitter-javascript", "web-tree-sitter-debug"].map((name) => ({ name, bytes: corpusEntry(name).bytes() })),
  async run(wasm, ctx) {
    return withTempDir("tree-sitter", async (dir) => {
      dir.copyFromPackage("web-tree-sitter", "package.json");
      dir.copyFromPackage("web-tree-sitter", "web-tree-sitter.js");
      dir.copyFromPackage("web-tree-sitter", "debug/web-tree-sitter.js");
      const release = await importFresh<TreeSitterApi>(dir.file("web-tree-sitter.js"));
      const full = await fullRun(release, wasm[0]!, wasm[1]!, ctx, "full");
      const reduced = await fullRun(release, wasm[0]!, wasm[1]!, ctx, "reduced");
      // The debug runtime runs the reduced workload and must agree with the release runtime.
      const debug = await importFresh<TreeSitterApi>(dir.file("debug/web-tree-sitter.js"));
      const dbg = await fullRun(debug, wasm[2]!, wasm[1]!, ctx, "reduced");
      const diff = firstDifference(reduced, dbg);
      ctx.check(diff === null, `the debug runtime disagrees with the release runtime: ${diff}`);
      return { release: full, reduced, debug: dbg };
    });
  },
};

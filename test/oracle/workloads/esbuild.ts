// esbuild-wasm (esbuild compiled from Go): transform real TypeScript and
// JavaScript from node_modules and hand-written TSX/JSX with many option sets
// (targets that force lowering, minification, formats, JSX modes, source
// maps, decorators, define/drop/mangle); syntax errors; bundle hash-wasm's own
// TypeScript sources (30 files, its wasm JSON imports served by a plugin) and
// run the resulting bundle; bundle a virtual multi-file TSX project through
// resolve/load plugins with JSON, text and CSS loaders, code splitting and a
// metafile.
//
// In Node, esbuild-wasm runs esbuild.wasm from its own folder in a child
// process (there is no option to pass the bytes), so the run uses a copy of
// the package in a temporary folder.

import { corpus, corpusEntry } from "../../corpus/corpus.js";
import { importFresh, packageDir, packageText, requireFrom, sha256, withTempDir } from "../util.js";
import type { Output, RunContext, Workload } from "../workload.js";
import { readdirSync } from "node:fs";
import { join } from "node:path";

interface OutputFile {
  path: string;
  text: string;
}
interface Message {
  text: string;
  location: { line: number; column: number; lineText: string } | null;
}
interface PluginBuild {
  onResolve(o: { filter: RegExp; namespace?: string }, cb: (a: { path: string; importer: string; namespace: string; resolveDir: string; kind: string }) => unknown): void;
  onLoad(o: { filter: RegExp; namespace?: string }, cb: (a: { path: string; namespace: string }) => unknown): void;
}
interface Esbuild {
  version: string;
  transform(code: string, options: Record<string, unknown>): Promise<{ code: string; map: string; warnings: Message[]; mangleCache?: Record<string, unknown> }>;
  build(options: Record<string, unknown>): Promise<{ outputFiles: OutputFile[]; errors: Message[]; warnings: Message[]; metafile: unknown; mangleCache?: Record<string, unknown> }>;
  formatMessages(messages: unknown[], options: { kind: "error" | "warning"; color?: boolean }): Promise<string[]>;
  analyzeMetafile(metafile: unknown, options?: { verbose?: boolean }): Promise<string>;
  stop(): Promise<void> | void;
}

function text(s: string): Output {
  return s.length <= 3000 ? s : `${s.slice(0, 600)} … [${s.length} chars, sha256:${sha256(s)}]`;
}

const TSX = `
import { h, Fragment } from "./jsx";
enum Color { Red = 1, Green = Red * 2, Blue = "blue".length }
const enum Flags { None = 0, A = 1 << 0, B = 1 << 1, AB = A | B }
namespace Geometry { export const origin = { x: 0, y: 0 }; export function dist(p: { x: number; y: number }) { return Math.hypot(p.x, p.y); } }
abstract class Shape<T extends object = {}> { abstract area(): number; constructor(protected readonly meta?: T) {} }
class Circle extends Shape<{ id: string }> {
  static count = 0;
  #r: number;
  declare tag?: string;
  constructor(r: number, public label = "c") { super({ id: label }); this.#r = r; Circle.count++; }
  area(): number { return Math.PI * this.#r ** 2; }
  get radius() { return this.#r; }
  static { Circle.count = 0; }
}
function assertIsDefined<T>(v: T): asserts v is NonNullable<T> { if (v == null) throw new Error("undefined"); }
type Deep<T> = { [K in keyof T]?: T[K] extends object ? Deep<T[K]> : T[K] };
export const View = ({ items, title }: { items: string[]; title?: string }) => (
  <>
    <h1 class="title">{title ?? "none"}</h1>
    <ul>{items.map((it, i) => <li key={i} data-i={i}>{it}</li>)}</ul>
  </>
);
export async function* pages(n: number) { for (let i = 0; i < n; i++) { await null; yield i ** 2; } }
export const result = { c: new Circle(2).area(), color: Color.Blue, flags: Flags.AB, d: Geometry.dist({ x: 3, y: 4 }), opt: (globalThis as any)?.foo?.bar ?? 42n };
let x = 1; x ||= 2; x &&= 3; x ??= 4;
label: for (const [k, v] of Object.entries({ a: 1 })) { try { if (v) continue label; } catch { break; } finally { x++; } }
`;

const DECORATED = `
function log(target: any, key: string, desc: PropertyDescriptor) { const f = desc.value; desc.value = function (...a: any[]) { console.log(key); return f.apply(this, a); }; }
function sealed(c: Function) { Object.seal(c); }
@sealed class Service { @log run(x: number) { return x * 2; } constructor(private readonly name: string) {} }
export default new Service("s").run(21);
`;

const OPTION_SETS: Record<string, Record<string, unknown>> = {
  plain: {},
  es2015: { target: "es2015" },
  es5ish: { target: "es2016", supported: { "async-generator": false, "object-rest-spread": false } },
  minify: { minify: true },
  minifyEs2017: { minify: true, target: "es2017", legalComments: "inline" },
  cjs: { format: "cjs", target: "node12" },
  iife: { format: "iife", globalName: "lib", minifySyntax: true },
  sourcemap: { sourcemap: "inline", sourcefile: "input.ts", sourcesContent: true },
  define: { define: { "process.env.NODE_ENV": '"production"', DEBUG: "false" }, drop: ["console", "debugger"], pure: ["Math.hypot"], minify: true },
  mangle: { mangleProps: /^_/, minifyIdentifiers: true, keepNames: true },
  ascii: { charset: "ascii", minifyWhitespace: true },
};

function hashWasmLibFiles(): string[] {
  return readdirSync(join(packageDir("hash-wasm"), "lib"))
    .filter((f) => f.endsWith(".ts"))
    .sort();
}

async function exercise(esbuild: Esbuild, ctx: RunContext): Promise<Output> {
  const out: Record<string, Output> = { version: esbuild.version };

  // Transforms: hand-written TSX, decorators, real TypeScript and JavaScript files.
  const transforms: Record<string, Output> = {};
  const sources: [string, string, string][] = [
    ["component.tsx", TSX, "tsx"],
    ["decorated.ts", DECORATED, "ts"],
    ["web-tree-sitter.js", packageText("web-tree-sitter", "web-tree-sitter.js"), "js"],
    ...hashWasmLibFiles().map((f): [string, string, string] => [`hash-wasm/lib/${f}`, packageText("hash-wasm", `lib/${f}`), "ts"]),
  ];
  for (const [name, code, loader] of sources) {
    for (const [setName, options] of Object.entries(OPTION_SETS)) {
      // Every option set on the larger files, three on the others.
      const everySet = !name.startsWith("hash-wasm/") || /\/(WASMInterface|argon2|bcrypt|util)\.ts$/.test(name);
      if (!everySet && !["plain", "minify", "es2015"].includes(setName)) continue;
      const extra: Record<string, unknown> = loader === "tsx" ? { jsxFactory: "h", jsxFragment: "Fragment" } : {};
      if (name === "decorated.ts") extra.tsconfigRaw = { compilerOptions: { experimentalDecorators: true } };
      try {
        const r = await esbuild.transform(code, { loader, ...extra, ...options });
        transforms[`${name} ${setName}`] = { code: text(r.code), map: r.map ? sha256(r.map) : "", warnings: r.warnings.map((w) => w.text) };
      } catch (e) {
        transforms[`${name} ${setName}`] = `error: ${(e as Error).message}`;
      }
    }
  }
  for (const [name, code, options] of [
    ["automatic jsx", "export const A = () => <div a='1' {...p}>x{y}<B/></div>;", { loader: "jsx", jsx: "automatic", jsxDev: true, sourcefile: "a.jsx" }],
    ["preserve jsx", "export const A = <p>hi</p>;", { loader: "jsx", jsx: "preserve" }],
    ["json", '{"a": [1, 2, {"b": null}], "c": "\\u00e9"}', { loader: "json", format: "esm" }],
    ["css", ".a { color: red; &:hover { color: #ff0000 } } @media (min-width: 10px) { .b { margin: 0px 0px } }", { loader: "css", minify: true, target: "chrome80" }],
  ] as [string, string, Record<string, unknown>][]) {
    try {
      const r = await esbuild.transform(code, options);
      transforms[name] = text(r.code);
    } catch (e) {
      transforms[name] = `error: ${(e as Error).message}`;
    }
  }
  out.transforms = transforms;

  // Syntax and type-syntax errors: messages and locations come from the wasm.
  const errors: Output[] = [];
  for (const [code, loader] of [
    ["let x = ;", "js"],
    ["function (a b) {}", "js"],
    ["const a: = 1", "ts"],
    ["<div><span></div>", "jsx"],
    ["class { #x; m() { return this.#y; } }", "js"],
    ["export default await import('x') +", "ts"],
    ["'unterminated", "js"],
  ] as const) {
    try {
      await esbuild.transform(code, { loader });
      errors.push("no error");
    } catch (e) {
      const errs = (e as { errors?: Message[] }).errors ?? [];
      errors.push({ message: (e as Error).message, locations: errs.map((m) => (m.location ? [m.location.line, m.location.column, m.location.lineText] : null)) });
      if (errs.length > 0) errors.push(await esbuild.formatMessages(errs, { kind: "error", color: false }));
    }
  }
  out.errors = errors;

  // Bundle hash-wasm's own TypeScript sources; its wasm JSON imports come from a plugin.
  const wasmJson = new Map<string, string>();
  for (const e of corpus().filter((x) => x.package === "hash-wasm")) {
    wasmJson.set(e.name.slice("hash-wasm-".length), JSON.stringify({ name: e.name.slice("hash-wasm-".length), data: Buffer.from(e.bytes()).toString("base64"), hash: e.sha256.slice(0, 8) }));
  }
  const wasmPlugin = {
    name: "wasm-json",
    setup(build: PluginBuild) {
      build.onResolve({ filter: /\.wasm\.json$/ }, (a) => ({ path: a.path.replace(/^.*\//, "").replace(/\.wasm\.json$/, ""), namespace: "wasm-json" }));
      build.onLoad({ filter: /.*/, namespace: "wasm-json" }, (a) => {
        const contents = wasmJson.get(a.path);
        return contents === undefined ? { errors: [{ text: `no module ${a.path}` }] } : { contents, loader: "json" };
      });
    },
  };
  const hashBundles: Record<string, Output> = {};
  for (const [setName, options] of Object.entries({
    esm: { format: "esm" },
    minified: { format: "esm", minify: true, target: "es2018", metafile: true },
    cjs: { format: "cjs", platform: "node", treeShaking: true },
  })) {
    const r = await esbuild.build({
      absWorkingDir: packageDir("hash-wasm"),
      entryPoints: ["lib/index.ts"],
      bundle: true,
      write: false,
      outfile: "out/hash-wasm.js",
      plugins: [wasmPlugin],
      logLevel: "silent",
      ...options,
    });
    const file = r.outputFiles[0]!;
    hashBundles[setName] = { code: text(file.text), warnings: r.warnings.map((w) => w.text) };
    if (r.metafile) hashBundles[`${setName} analysis`] = text(await esbuild.analyzeMetafile(r.metafile, { verbose: true }));
    if (setName === "minified") {
      // The bundle esbuild produced must work: hash with it.
      const api = await withTempDir("esbuild-bundle", async (dir) => importFresh<{ md5(d: string): Promise<string>; sha256(d: string): Promise<string>; blake3(d: string): Promise<string> }>(dir.write("bundle.mjs", file.text)));
      const digests = [await api.md5("abc"), await api.sha256("abc"), await api.blake3("")];
      ctx.check(digests[0] === "900150983cd24fb0d6963f7d28e17f72", `the bundled hash-wasm computes md5("abc") = ${digests[0]}`);
      ctx.check(digests[2] === "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262", `the bundled hash-wasm computes blake3("") = ${digests[2]}`);
      hashBundles["bundle runs"] = digests;
    }
  }
  out.hashWasmBundle = hashBundles;

  // A virtual multi-file project through resolve/load plugins.
  const files: Record<string, [string, string]> = {
    "/src/index.tsx": [
      `import { h, render } from "./jsx";
       import { App } from "./App";
       import data from "./data.json";
       import notes from "./notes.txt";
       import "./styles.css";
       import { used } from "./util";
       export async function main() {
         const lazy = await import("./lazy");
         return render(<App items={data.items} note={notes} />) + lazy.extra(used(2));
       }`,
      "tsx",
    ],
    "/src/jsx.ts": [`export function h(tag: any, props: any, ...children: any[]) { return { tag, props, children }; }
       export const Fragment = "frag";
       export function render(n: any): string { return typeof n === "string" ? n : \`<\${n.tag}>\${(n.children || []).map(render).join("")}</\${n.tag}>\`; }`, "ts"],
    "/src/App.tsx": [`import { h } from "./jsx";
       import { Color } from "./util";
       export function App({ items, note }: { items: string[]; note: string }) {
         return <main class={Color[Color.Red]}>{items.map((i) => <p>{i}</p>)}<pre>{note}</pre></main>;
       }`, "tsx"],
    "/src/util.ts": [`export enum Color { Red, Green }
       export function used(n: number) { return n * 21; }
       export function unused() { return "tree-shaken away"; }
       export class Big { static readonly data = new Array(3).fill("x"); }`, "ts"],
    "/src/lazy.ts": [`import { used } from "./util";
       export const extra = (n: number) => \`lazy \${n} \${used(1)}\`;`, "ts"],
    "/src/data.json": [JSON.stringify({ items: ["α", "β", "γ"], unused: { deep: [1, 2, 3] } }), "json"],
    "/src/notes.txt": ["Some text\nwith lines — and ünïcode", "text"],
    "/src/styles.css": [".app { display: flex; color: rgb(255 0 0 / 50%) } .app > p { margin: 0 }", "css"],
  };
  const vfsPlugin = {
    name: "vfs",
    setup(build: PluginBuild) {
      build.onResolve({ filter: /.*/ }, (a) => {
        if (a.kind === "entry-point") return { path: a.path, namespace: "vfs" };
        const base = a.importer.replace(/\/[^/]*$/, "");
        const p = `${base}/${a.path.replace(/^\.\//, "")}`;
        for (const candidate of [p, `${p}.ts`, `${p}.tsx`]) if (files[candidate]) return { path: candidate, namespace: "vfs" };
        return { errors: [{ text: `cannot resolve ${a.path} from ${a.importer}` }] };
      });
      build.onLoad({ filter: /.*/, namespace: "vfs" }, (a) => {
        const [contents, loader] = files[a.path]!;
        return { contents, loader, resolveDir: "/src" };
      });
    },
  };
  const projects: Record<string, Output> = {};
  for (const [setName, options] of Object.entries({
    split: { splitting: true, format: "esm", outdir: "/out", minify: false },
    splitMin: { splitting: true, format: "esm", outdir: "/out", minify: true, target: "es2017", sourcemap: "external" },
    iife: { format: "iife", outfile: "/out/app.js", globalName: "App", minify: true, supported: { "dynamic-import": false } },
  })) {
    const r = await esbuild.build({
      entryPoints: ["/src/index.tsx"],
      bundle: true,
      write: false,
      metafile: true,
      jsxFactory: "h",
      plugins: [vfsPlugin],
      logLevel: "silent",
      ...options,
    });
    projects[setName] = {
      files: r.outputFiles.map((f) => [f.path, text(f.text)]),
      warnings: r.warnings.map((w) => w.text),
      metafile: text(JSON.stringify(r.metafile)),
    };
  }
  out.project = projects;
  const broken = await esbuild
    .build({ entryPoints: ["/src/index.tsx"], bundle: true, write: false, plugins: [{ name: "broken", setup: (b: PluginBuild) => { b.onResolve({ filter: /.*/ }, (a) => ({ path: a.path, namespace: "x" })); b.onLoad({ filter: /.*/, namespace: "x" }, () => ({ contents: "import './missing'; export const = 1;", loader: "ts" })); } }], logLevel: "silent" })
    .then(() => "no error", (e: unknown) => (e as Error).message);
  out.brokenProject = broken;
  return out;
}

export const workload: Workload = {
  name: "esbuild-wasm",
  size: "big",
  description: "esbuild: transform TS/TSX/JS with 11 option sets, syntax errors, bundle hash-wasm's TS sources (and run them), a virtual TSX project via plugins",
  wasm: () => [{ name: "esbuild", bytes: corpusEntry("esbuild").bytes() }],
  async run(wasm, ctx) {
    return withTempDir("esbuild", async (dir) => {
      for (const f of ["package.json", "lib", "bin", "wasm_exec.js", "wasm_exec_node.js"]) dir.copyFromPackage("esbuild-wasm", f);
      dir.write("esbuild.wasm", wasm[0]!);
      const esbuild = requireFrom<Esbuild>(dir.file("lib/main.js"));
      try {
        return await exercise(esbuild, ctx);
      } finally {
        await esbuild.stop();
      }
    });
  },
};

// @wasm-fmt/ruff_fmt (Ruff's Python formatter, Rust via wasm-bindgen): made-up
// Python modules (sources/python-source.ts, about 1 MB in all) formatted under
// different settings (indent style and width, line width, quote style, magic
// trailing commas, line endings, docstring code, preview style, stub files),
// formatted again, ranges of them formatted, and sources with syntax errors.
// Checked without Ruff: formatting keeps every identifier, keyword and
// operator word in order (strings, comments, numbers and punctuation aside),
// and what it writes reads back without a syntax error.
//
// The module goes in through the package's web entry, `initSync(bytes)`, on a
// copy of its glue in a temporary folder: the glue keeps its instance for the
// life of the module, so each run needs module instances of its own.

import { pathToFileURL } from "node:url";
import { corpusEntry } from "../../corpus/corpus.js";
import { attempt, sha256, withTempDir } from "../util.js";
import type { Output, RunContext, Workload } from "../workload.js";
import { pythonModule } from "../sources/python-source.js";

interface Config {
  indent_style?: "tab" | "space";
  indent_width?: number;
  line_width?: number;
  line_ending?: "lf" | "crlf";
  quote_style?: "single" | "double" | "preserve";
  magic_trailing_comma?: "respect" | "ignore";
  // strings, whatever the package's declarations say: it refuses booleans
  docstring_code?: "enabled" | "disabled";
  preview?: "enabled" | "disabled";
}
interface Ruff {
  initSync(bytes: Uint8Array): unknown;
  format(input: string, path?: string, config?: Config): string;
  format_range(input: string, range: { start: number; end: number }, path?: string, config?: Config): { code: string; source_range: { start: number; end: number } };
}

const CONFIGS: readonly Config[] = [
  {},
  { indent_style: "tab", line_width: 40, quote_style: "single" },
  { indent_width: 2, line_width: 120, magic_trailing_comma: "ignore" },
  { line_ending: "crlf", quote_style: "preserve", docstring_code: "enabled" },
  { preview: "enabled", indent_width: 8, line_width: 60 },
];

const BROKEN: readonly string[] = [
  "def (:\n    pass\n",
  "x = [1, 2\n",
  "if x\n    y = 1\n",
  "class A:\npass\n",
  "print('unterminated)\n",
  "a = 1 +\n",
  "match x:\n    case 1 2:\n        pass\n",
  "for in range(3): pass\n",
];

/**
 * The words of Python source in order: identifiers and keywords, with string
 * literals (and their prefixes), comments and numbers left out. Formatting
 * may change quotes, parentheses, commas, spacing and comments' spacing, but
 * none of these.
 */
export function pythonWords(src: string): string[] {
  const words: string[] = [];
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i]!;
    if (c === "#") {
      while (i < n && src[i] !== "\n" && src[i] !== "\r") i++;
    } else if (c === '"' || c === "'") {
      const triple = src.startsWith(c.repeat(3), i);
      const end = triple ? c.repeat(3) : c;
      i += end.length;
      while (i < n && !src.startsWith(end, i)) i += src[i] === "\\" ? 2 : 1;
      i += end.length;
    } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(src[i + 1] ?? ""))) {
      while (i < n && /[0-9A-Za-z_.]/.test(src[i]!)) i++;
    } else if (/[A-Za-z_\u00c0-\uffff]/.test(c)) {
      const s = i;
      while (i < n && /[A-Za-z0-9_\u00c0-\uffff]/.test(src[i]!)) i++;
      const w = src.slice(s, i);
      // a string's prefix (r, b, u, f, rb ...): Ruff drops u and may change case
      if (!(/^[rRbBuUfF]{1,2}$/.test(w) && (src[i] === '"' || src[i] === "'"))) words.push(w);
    } else {
      i++;
    }
  }
  return words;
}

function exercise(ruff: Ruff, ctx: RunContext): Output {
  const formatted: Output[] = [];
  const again: Output[] = [];
  const ranges: Output[] = [];
  for (let k = 0; k < 24; k++) {
    const src = pythonModule(1000 + k, 40);
    const config = CONFIGS[k % CONFIGS.length]!;
    const path = k % 7 === 3 ? "stub.pyi" : "module.py";
    const out = attempt(() => ruff.format(src, path, config));
    formatted.push(`${out.length} ${sha256(out)}`);
    if (out.startsWith("error: ")) {
      ctx.check(false, `module ${k} (valid Python) did not format: ${out}`);
      continue;
    }
    const a = pythonWords(src);
    const b = pythonWords(out);
    const same = a.length === b.length && a.every((w, i) => w === b[i]);
    ctx.check(same, `module ${k}: formatting changed the words of the source (${a.length} words before, ${b.length} after)`);
    const twice = attempt(() => ruff.format(out, path, config));
    ctx.check(!twice.startsWith("error: "), `module ${k}: the formatted module does not read back: ${twice}`);
    again.push(twice === out ? "stable" : `${twice.length} ${sha256(twice)}`);
    // a range of lines in the middle: Ruff widens it to whole statements
    const from = src.indexOf("\n", src.length >> 2) + 1;
    const to = src.indexOf("\n", src.length >> 1);
    const bytes = (s: string): number => Buffer.byteLength(s, "utf8");
    ranges.push(
      attempt(() => {
        const p = ruff.format_range(src, { start: bytes(src.slice(0, from)), end: bytes(src.slice(0, to)) }, path, config);
        return `${p.source_range.start}..${p.source_range.end} ${p.code.length} ${sha256(p.code)}`;
      }),
    );
  }
  const errors = BROKEN.map((src) => attempt(() => ruff.format(src)));
  errors.forEach((e, i) => ctx.check(e.startsWith("error: "), `broken source ${i} formatted without an error`));
  const small = ruff.format("def  foo( a,b = 3 ) :\n  return {  'a':a}\n");
  ctx.check(small === 'def foo(a, b=3):\n    return {"a": a}\n', `a known input formats differently: ${JSON.stringify(small)}`);
  return { formatted, again, ranges, errors, small };
}

export const workload: Workload = {
  name: "ruff-fmt",
  size: "small",
  description: "Ruff's Python formatter: 1 MB of made-up Python under five settings, formatted again, ranges, syntax errors",
  wasm: () => [{ name: "ruff-fmt", bytes: corpusEntry("ruff-fmt").bytes() }],
  async run(wasm, ctx) {
    return withTempDir("ruff-fmt", async (dir) => {
      for (const f of ["ruff_fmt_web.js", "ruff_fmt_bg.js"]) dir.copyFromPackage("@wasm-fmt/ruff_fmt", f);
      dir.write("package.json", JSON.stringify({ type: "module" }));
      const ruff = (await import(pathToFileURL(dir.file("ruff_fmt_web.js")).href)) as Ruff;
      ruff.initSync(wasm[0]!);
      return exercise(ruff, ctx);
    });
  },
};

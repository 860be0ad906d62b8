// vscode-oniguruma (the Oniguruma regex engine as VS Code uses it for
// TextMate grammars): a grammar-like scanner of a dozen patterns tokenizing
// real JavaScript and TypeScript sources match by match; several dozen single
// regexes with captures over Unicode text (properties, scripts, case folding,
// lookaround, backreferences, named groups, atomic and possessive groups,
// conditionals, subexpression calls, class intersections, absent operator,
// \K, \G and \X); option flags and syntaxes; invalid patterns.
// The plain-ASCII regexes are cross-checked against JavaScript's RegExp.
//
// The wasm goes in through the package's own loadWASM(bytes); the JS glue
// runs from a copy in a temporary folder (loadWASM may only be called once
// per module instance).

import { corpusEntry } from "../../corpus/corpus.js";
import { packageText, requireFrom, sha256, withTempDir } from "../util.js";
import type { Output, RunContext, Workload } from "../workload.js";

interface OnigMatch {
  index: number;
  captureIndices: { start: number; end: number; length: number }[];
}
interface OnigScanner {
  findNextMatchSync(s: string | OnigString, start: number, options?: number[]): OnigMatch | null;
  dispose(): void;
}
interface OnigString {
  readonly content: string;
  dispose(): void;
}
interface OnigApi {
  loadWASM(data: ArrayBuffer | ArrayBufferView): Promise<void>;
  OnigScanner: new (patterns: string[], config?: { options?: number[]; syntax?: number }) => OnigScanner;
  OnigString: new (content: string) => OnigString;
}

// vscode-oniguruma's const enums (main.d.ts).
const OPT = { None: 1, Ignorecase: 2, Extend: 3, Multiline: 4, Singleline: 5, FindLongest: 6, FindNotEmpty: 7, Notbol: 11, Noteol: 12, CaptureGroup: 10 } as const;
const SYNTAX = { Default: 0, PosixExtended: 3, Emacs: 4, Grep: 5, Java: 7, Perl: 8, Ruby: 10, Python: 11 } as const;

/** A TextMate-grammar-like set of patterns for JavaScript. */
const JS_PATTERNS = [
  String.raw`//.*$`,
  String.raw`/\*[\s\S]*?\*/`,
  String.raw`"(?:[^"\\\n]|\\.)*"`,
  String.raw`'(?:[^'\\\n]|\\.)*'`,
  String.raw`\x60(?:[^\x60\\]|\\.)*\x60`,
  String.raw`\b(?:const|let|var|function|return|if|else|for|while|do|switch|case|break|continue|new|typeof|instanceof|in|of|class|extends|super|this|null|undefined|true|false|async|await|yield|try|catch|finally|throw|import|export|from|interface|type|declare|readonly)\b`,
  String.raw`\b0[xX][0-9a-fA-F]+\b|\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b`,
  String.raw`(?<name>[A-Za-z_$][\w$]*)(?=\s*\()`,
  String.raw`[A-Za-z_$][\w$]*`,
  String.raw`(===|!==|=>|\+\+|--|&&|\|\||\?\?|\.\.\.|[-+*/%=<>!&|^~?:])`,
  String.raw`[{}()\[\];,.]`,
  String.raw`\s+`,
];

const UNICODE_TEXT =
  "Grüße aus Köln! ΑΒΓ αβγ Ωμέγα. Москва, Санкт-Петербург. 東京タワー と ひらがな、カタカナ。 한국어 텍스트. " +
  "العربية نص. עברית. 🚀 rocket 👩‍👩‍👧‍👦 family; e\u0301 (e + combining acute) vs é; ﬁ ligature; İstanbul ıi; ß ẞ; " +
  "numbers: 42, -3.14, 6.02e23, ٣٤٥, ४५६; emails: a.b@example.com, ü@exämple.de; dates 2024-02-29, 1999-12-31; " +
  "tags <b>bold</b> <i class=\"x\">it</i>; repeated words the the; abcabcabc; aaa bbb; ((nested (parens)))\n" +
  "second line\r\nthird line with tab\tand trailing   \n";

/** Single regexes with captures: [pattern, options, syntax]. */
const SINGLE: readonly [string, number[], number][] = [
  [String.raw`\p{Greek}+`, [], SYNTAX.Default],
  [String.raw`\p{Cyrillic}+(?:-\p{Cyrillic}+)?`, [], SYNTAX.Default],
  [String.raw`\p{Han}+|\p{Hiragana}+|\p{Katakana}+`, [], SYNTAX.Default],
  [String.raw`\p{Hangul}+`, [], SYNTAX.Default],
  [String.raw`\p{Arabic}+|\p{Hebrew}+`, [], SYNTAX.Default],
  [String.raw`\p{Lu}\p{Ll}+`, [], SYNTAX.Default],
  [String.raw`[[:alpha:]]+`, [], SYNTAX.Default],
  [String.raw`[[:punct:]]+`, [], SYNTAX.Default],
  [String.raw`\p{Nd}+`, [], SYNTAX.Default],
  [String.raw`\X`, [], SYNTAX.Default],
  [String.raw`(?i)straße|GRÜSSE|köln`, [], SYNTAX.Default],
  [String.raw`istanbul|ΩΜΈΓΑ`, [OPT.Ignorecase], SYNTAX.Default],
  [String.raw`(?<user>[\w.]+)@(?<host>[\w.]+)\.(?<tld>\w+)`, [], SYNTAX.Default],
  [String.raw`(\d{4})-(\d{2})-(\d{2})`, [], SYNTAX.Default],
  [String.raw`<(\w+)(?:\s+\w+="[^"]*")*>(.*?)</\1>`, [], SYNTAX.Default],
  [String.raw`\b(\w+)\s+\1\b`, [], SYNTAX.Default],
  [String.raw`(?<=\s)\d+(?=,)`, [], SYNTAX.Default],
  [String.raw`(?<!\w)-?\d+(?:\.\d+)?(?:e\d+)?`, [], SYNTAX.Default],
  [String.raw`(?>a+)b|a++c|(abc){2,}`, [], SYNTAX.Default],
  [String.raw`\((?:[^()]|\g<0>)*\)`, [], SYNTAX.Default],
  [String.raw`(?~line)`, [], SYNTAX.Default],
  [String.raw`\Gsecond`, [], SYNTAX.Default],
  [String.raw`^third.*$`, [], SYNTAX.Default],
  [String.raw`\h+|\R`, [], SYNTAX.Default],
  [String.raw`(?x) \d+ \s* # a comment
       [a-z]+`, [], SYNTAX.Default],
  [String.raw`e\u0301|é`, [], SYNTAX.Default],
  [String.raw`[^\x00-\x7F]+`, [], SYNTAX.Default],
  [String.raw`\p{Emoji_Presentation}|\x{1F680}`, [], SYNTAX.Default],
  [String.raw`(a|ab)(c|bcd)(d*)`, [OPT.FindLongest], SYNTAX.Default],
  [String.raw`^second`, [OPT.Notbol], SYNTAX.Default],
  [String.raw`line.+`, [OPT.Singleline], SYNTAX.Default],
  [String.raw`\w+(?=\s)`, [], SYNTAX.Ruby],
  [String.raw`(?P<word>\w+)\s(?P=word)`, [], SYNTAX.Python],
  [String.raw`\d+\.\d+`, [], SYNTAX.Java],
  [String.raw`(?<n>\d+)\k<n>?`, [], SYNTAX.Perl],
  [String.raw`[[:digit:]]+-[[:digit:]]+`, [], SYNTAX.PosixExtended],
  [String.raw`a\{2,\}\|b\+`, [], SYNTAX.Grep],
  [String.raw`\(ab\)\1`, [], SYNTAX.Emacs],
  [String.raw`(?:(<)|\()\w+(?(1)>|\))`, [], SYNTAX.Default],
  [String.raw`(?<paren>\((?:[^()]|\g<paren>)*\))`, [], SYNTAX.Default],
  [String.raw`\w+@\K\w+`, [], SYNTAX.Default],
  [String.raw`[a-z&&[^aeiou]]{3,}`, [], SYNTAX.Default],
  [String.raw`[[:^alpha:][:^space:]]+`, [], SYNTAX.Default],
  [String.raw`\P{Latin}+`, [], SYNTAX.Default],
  [String.raw`\p{^L}+`, [], SYNTAX.Default],
  [String.raw`(?<=\b\w{2,5})\d`, [], SYNTAX.Default],
  [String.raw`(?<!a|bc|def)line`, [], SYNTAX.Default],
  [String.raw`(?i:SS|ǅ|Σ)`, [], SYNTAX.Default],
  [String.raw`(?~|line|\d+)`, [], SYNTAX.Default],
  [String.raw`\y\w+\y`, [], SYNTAX.Default],
  [String.raw`(?m:.+)`, [], SYNTAX.Ruby],
  [String.raw`(?<a>.)(?<b>.)\k<a>|\k<b>`, [], SYNTAX.Default],
  [String.raw`\N{2}|\O{3}`, [], SYNTAX.Default],
  [String.raw`a{,3}b{2}?c{1,}+`, [], SYNTAX.Default],
  [String.raw`[\u00C0-\u024F]+|[\x{0400}-\x{04FF}]+`, [], SYNTAX.Default],
  [String.raw`\A.{3}|.{3}\z|.{3}\Z`, [], SYNTAX.Default],
  [String.raw`(?>\s+)|(?=\S)\S{4}(?!\S)`, [], SYNTAX.Default],
  [String.raw`(?iW:STRASSE)|(?i)ǈ`, [], SYNTAX.Default],
  [String.raw`(?x)(?<year>\d{4}) - (?<month>\d{2}) # named and spaced`, [OPT.CaptureGroup], SYNTAX.Default],
  [String.raw`\d+`, [OPT.FindNotEmpty, OPT.Ignorecase], SYNTAX.Default],
];

/** Plain regexes whose meaning is the same in Oniguruma and JavaScript (with the `u` flag): cross-checked. */
const CROSS: readonly string[] = [
  String.raw`[A-Za-z_$][\w$]*`,
  String.raw`\d+(?:\.\d+)?`,
  String.raw`"(?:[^"\\\n]|\\.)*"`,
  String.raw`\b(?:function|return|const)\b`,
  String.raw`(\w+)\s*=\s*(\w+)`,
  String.raw`[{}()\[\]]`,
  String.raw`(?<=\.)\w+(?=\()`,
  String.raw`\/\/[^\n]*`,
];

function scanAll(scanner: OnigScanner, s: string | OnigString, text: string, options?: number[]): number[][] {
  const out: number[][] = [];
  let pos = 0;
  while (pos <= text.length) {
    const m = options ? scanner.findNextMatchSync(s, pos, options) : scanner.findNextMatchSync(s, pos);
    if (!m) break;
    const row = [m.index];
    for (const c of m.captureIndices) row.push(c.start, c.end);
    out.push(row);
    const end = m.captureIndices[0]!.end;
    pos = end > pos ? end : pos + 1;
  }
  return out;
}

function exercise(onig: OnigApi, ctx: RunContext): Output {
  const out: Record<string, Output> = {};

  // Tokenizing real sources with a grammar-like scanner.
  const sources: Record<string, string> = {
    "esbuild-wasm/lib/main.js": packageText("esbuild-wasm", "lib/main.js"),
    "web-tree-sitter/web-tree-sitter.d.ts": packageText("web-tree-sitter", "web-tree-sitter.d.ts"),
    "typescript/lib/lib.es5.d.ts": packageText("typescript", "lib/lib.es5.d.ts").slice(0, 120000),
  };
  const scanner = new onig.OnigScanner(JS_PATTERNS);
  const tokenized: Record<string, Output> = {};
  for (const [name, text] of Object.entries(sources)) {
    const str = new onig.OnigString(text);
    const tokens = scanAll(scanner, str, text);
    str.dispose();
    const histogram = new Array<number>(JS_PATTERNS.length).fill(0);
    for (const t of tokens) histogram[t[0]!]!++;
    ctx.check(tokens.length > 1000, `${name}: implausibly few tokens (${tokens.length})`);
    tokenized[name] = { count: tokens.length, histogram, first: tokens.slice(0, 200), all: sha256(JSON.stringify(tokens)) };
  }
  scanner.dispose();
  out.tokenized = tokenized;

  // Single regexes with captures over Unicode text.
  const single: Output[] = [];
  for (const [pattern, options, syntax] of SINGLE) {
    try {
      const s = new onig.OnigScanner([pattern], { options: options.length > 0 ? options : [OPT.CaptureGroup], syntax });
      single.push(scanAll(s, UNICODE_TEXT, UNICODE_TEXT).map((row) => row.slice(1)));
      s.dispose();
    } catch (e) {
      single.push(`error: ${(e as Error).message}`);
    }
  }
  out.single = single;

  // Per-search options on a multi-pattern scanner.
  const multi = new onig.OnigScanner([String.raw`^\w+`, String.raw`\w+$`, String.raw`\G\s*`]);
  const perSearch: Output[] = [];
  for (const options of [[OPT.None], [OPT.Notbol], [OPT.Noteol], [OPT.FindNotEmpty]]) {
    for (const start of [0, 5, 30, 150, 300]) perSearch.push(multi.findNextMatchSync(UNICODE_TEXT, start, options)?.captureIndices.map((c) => [c.start, c.end]) ?? null);
  }
  multi.dispose();
  out.perSearch = perSearch;

  // Invalid patterns: the messages come from Oniguruma.
  const invalid: Output[] = [];
  for (const bad of ["(unclosed", "a{3,2}", "[z-a]", "\\p{NoSuchProperty}", "(?<n>a)(?<n>b)\\k<x>", "*a", "(?<=a+)b"]) {
    try {
      new onig.OnigScanner([bad]).dispose();
      invalid.push("accepted");
    } catch (e) {
      invalid.push((e as Error).message);
    }
  }
  out.invalid = invalid;

  // Cross-check against JavaScript's RegExp on an ASCII source.
  const js = sources["esbuild-wasm/lib/main.js"]!.slice(0, 30000);
  const agree: Output[] = [];
  for (const pattern of CROSS) {
    const s = new onig.OnigScanner([pattern]);
    const mine = scanAll(s, js, js).map((r) => [r[1]!, r[2]!]);
    s.dispose();
    const theirs: number[][] = [];
    const re = new RegExp(pattern, "gu");
    for (const m of js.matchAll(re)) theirs.push([m.index, m.index + m[0].length]);
    const same = JSON.stringify(mine) === JSON.stringify(theirs);
    ctx.check(same, `Oniguruma and RegExp disagree on /${pattern}/ (${mine.length} vs ${theirs.length} matches)`);
    agree.push(mine.length);
  }
  out.crossChecked = agree;
  return out;
}

export const workload: Workload = {
  name: "vscode-oniguruma",
  size: "small",
  description: "Oniguruma: grammar-style tokenizing of 3 real sources, 60 Unicode/capture regexes in 8 syntaxes, options, invalid patterns; vs RegExp",
  wasm: () => [{ name: "onig", bytes: corpusEntry("onig").bytes() }],
  async run(wasm, ctx) {
    return withTempDir("onig", async (dir) => {
      dir.copyFromPackage("vscode-oniguruma", "release");
      dir.write("package.json", JSON.stringify({ type: "commonjs" }));
      const onig = requireFrom<OnigApi>(dir.file("release/main.js"));
      await onig.loadWASM(wasm[0]!);
      return exercise(onig, ctx);
    });
  },
};

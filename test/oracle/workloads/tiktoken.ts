// tiktoken (OpenAI's BPE tokenizer, Rust via wasm-bindgen, with the regex and
// fancy-regex crates): TypeScript declarations, JavaScript source and mixed
// Unicode prose are tokenized with cl100k_base, o200k_base, p50k_base and
// r50k_base, with and without special tokens, and decoded again. The full
// build (tokenizer tables compiled into the module) and the lite build (tables
// handed in from the package's JSON files) are each a corpus module. Checked:
// decoding gives back the text, known token ids from OpenAI's documentation,
// and the two builds agree token for token on cl100k_base.
//
// Both modules go in through the package's own `init(instantiate)` hooks, on
// copies of its CommonJS glue in a temporary folder (each init caches its
// instance for the life of the module).

import { corpusEntry } from "../../corpus/corpus.js";
import { packageText, requireFrom, sha256, withTempDir } from "../util.js";
import type { Output, RunContext, Workload } from "../workload.js";

interface Encoding {
  encode(text: string, allowedSpecial?: "all" | string[], disallowedSpecial?: "all" | string[]): Uint32Array;
  encode_ordinary(text: string): Uint32Array;
  decode(tokens: Uint32Array): Uint8Array;
  free(): void;
}
type Instantiate = (imports: WebAssembly.Imports) => Promise<WebAssembly.WebAssemblyInstantiatedSource>;
const instantiate = (bytes: Uint8Array) => (imports: WebAssembly.Imports) => WebAssembly.instantiate(bytes as Uint8Array<ArrayBuffer>, imports);
interface Full {
  init(f: Instantiate): Promise<unknown>;
  get_encoding(name: string): Encoding;
}
interface Lite {
  init(f: Instantiate): Promise<unknown>;
  Tiktoken: new (ranks: string, special: Record<string, number>, pattern: string) => Encoding;
}

/** Token ids published in OpenAI's cookbook ("How to count tokens with tiktoken"). */
const KNOWN: readonly [string, string, number[]][] = [
  ["cl100k_base", "tiktoken is great!", [83, 1609, 5963, 374, 2294, 0]],
  ["cl100k_base", "hello world", [15339, 1917]],
  ["cl100k_base", "<|endoftext|>", [100257]],
];

function texts(): Record<string, string> {
  return {
    dom: packageText("typescript", "lib/lib.dom.d.ts").slice(0, 90000),
    js: packageText("esbuild-wasm", "lib/main.js").slice(0, 50000),
    prose: "Tokenizers split text — Grüße, 世界, Привет, مرحبا, नमस्ते — into pieces: 12345678, 3.14159, e^{iπ}+1=0 😀🚀👩‍👩‍👧. ".repeat(60),
    spaces: "a  b   c\t\td\n\n\n  e \r\n f".repeat(200),
  };
}

function tokenize(enc: Encoding, name: string, ctx: RunContext, label: string): Output {
  const out: Record<string, Output> = {};
  const decoder = new TextDecoder();
  for (const [key, text] of Object.entries(texts())) {
    const tokens = enc.encode_ordinary(text);
    ctx.check(decoder.decode(enc.decode(tokens)) === text, `${label} ${name}: ${key} does not decode to itself`);
    out[key] = { count: tokens.length, hash: sha256(new Uint8Array(tokens.buffer, tokens.byteOffset, tokens.byteLength)), head: Array.from(tokens.subarray(0, 12)) };
  }
  const special = "before <|endoftext|> after <|fim_prefix|>x";
  for (const allowed of ["all", [] as string[]] as const) {
    try {
      out[`special-${allowed.length === 0 ? "none" : "all"}`] = Array.from(enc.encode(special, allowed));
    } catch (e) {
      out[`special-${allowed.length === 0 ? "none" : "all"}`] = `error: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
  return out;
}

export const workload: Workload = {
  name: "tiktoken",
  size: "big", // a multi-megabyte module and 2 s of CPU: left out of npm test
  description: "tiktoken: 4 BPE encodings over 160 KB of TypeScript, JavaScript and Unicode text, decode round trips; full and lite builds",
  wasm: () => ["tiktoken", "tiktoken-lite"].map((name) => ({ name, bytes: corpusEntry(name).bytes() })),
  async run(wasm, ctx) {
    return withTempDir("tiktoken", async (dir) => {
      dir.write("package.json", JSON.stringify({ type: "commonjs" }));
      for (const f of ["init.cjs", "tiktoken_bg.cjs", "lite/init.cjs", "lite/tiktoken_bg.cjs"]) dir.copyFromPackage("tiktoken", f);
      const full = requireFrom<Full>(dir.file("init.cjs"));
      const lite = requireFrom<Lite>(dir.file("lite/init.cjs"));
      await full.init(instantiate(wasm[0]!));
      await lite.init(instantiate(wasm[1]!));

      const out: Record<string, Output> = {};
      for (const name of ["cl100k_base", "o200k_base", "p50k_base", "r50k_base"]) {
        const enc = full.get_encoding(name);
        out[name] = tokenize(enc, name, ctx, "full");
        for (const [which, text, ids] of KNOWN) {
          if (which === name) ctx.check(Array.from(enc.encode(text, "all")).join() === ids.join(), `${name}: ${JSON.stringify(text)} is not ${ids.join(",")}`);
        }
        enc.free();
      }
      const json = JSON.parse(packageText("tiktoken", "encoders/cl100k_base.json")) as { bpe_ranks: string; special_tokens: Record<string, number>; pat_str: string };
      const enc = new lite.Tiktoken(json.bpe_ranks, json.special_tokens, json.pat_str);
      const fromLite = tokenize(enc, "cl100k_base", ctx, "lite");
      enc.free();
      ctx.check(JSON.stringify(fromLite) === JSON.stringify(out.cl100k_base), "the full and lite builds tokenize cl100k_base differently");
      return out;
    });
  },
};

// Python source for the ruff formatter workload (workloads/ruff-fmt.ts): modules of
// imports, classes, functions (async ones, generators), loops, try/with/match
// statements and every kind of expression, made up from a seed, and laid out
// irregularly (spacing, quotes, indentation width, line length, trailing
// commas, comments, blank lines) so that the formatter has work everywhere.
// The modules are valid Python 3.10, scopes included: CPython 3.11's
// compile() accepts 200 of them and the workload's 24 (so no :=
// in a comprehension, no repeated parameter, no global after a use).
// Made here because no Python source ships in the devDependencies.

import { rng } from "../util.js";

const WORDS = ["data", "value", "items", "result", "config", "node", "parent", "child", "count", "total", "index", "key", "buffer", "stream", "width", "height", "offset", "limit", "name", "path", "cache", "queue", "state", "token", "handler", "request", "response", "payload", "matrix", "vector"];
const CLASSES = ["Parser", "Node", "Cache", "Request", "Matrix", "Stream", "Token", "Handler", "Config", "Graph"];
const MODULES = ["os", "sys", "re", "json", "itertools", "functools", "collections", "typing", "pathlib", "dataclasses"];
const BINOPS = ["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "@"];
const COMPARES = ["<", "<=", ">", ">=", "==", "!=", "in", "not in", "is", "is not"];
const AUGOPS = ["+=", "-=", "*=", "//=", "|=", "&=", "<<="];

interface Scope {
  indent: string;
  inLoop: boolean;
  inFunc: boolean;
  /** Inside an async def (await, async for and async with allowed). */
  inAsync?: boolean;
  depth: number;
}

class Gen {
  private readonly r: () => number;
  private readonly unit: string;
  private readonly quote: string;
  private out: string[] = [];
  private fresh = 0;
  /** Comprehensions being written around the current expression. */
  private inComprehension = 0;

  constructor(seed: number) {
    this.r = rng(seed);
    this.unit = this.pick(["    ", "  ", "\t", "   "]);
    this.quote = this.pick(['"', "'"]);
  }

  private pick<T>(a: readonly T[]): T {
    return a[Math.floor(this.r() * a.length)]!;
  }
  private chance(p: number): boolean {
    return this.r() < p;
  }
  private int(n: number): number {
    return Math.floor(this.r() * n);
  }
  /** Irregular spacing between tokens. */
  private sp(): string {
    const x = this.r();
    return x < 0.55 ? " " : x < 0.85 ? "" : "   ";
  }
  private name(): string {
    return this.pick(WORDS) + (this.chance(0.3) ? `_${this.int(20)}` : "");
  }

  private string(): string {
    const q = this.chance(0.7) ? this.quote : this.quote === '"' ? "'" : '"';
    const body = this.pick(["hello world", "it\\'s", "tab\\there", "path/to/file.txt", "%s=%d", "{}: {}", "naïve café", "\\u00e9\\n", "", "a \\\"quoted\\\" word", "x".repeat(30)]);
    const prefix = this.pick(["", "", "", "r", "b", "u"]);
    if (prefix === "b" && /[^\x00-\x7f]/.test(body)) return `b${q}${body.replace(/[^\x00-\x7f]/g, "")}${q}`;
    if (prefix === "r" && body.endsWith("\\")) return `${q}${body}${q}`;
    return `${prefix}${q}${body}${q}`;
  }

  private fstring(): string {
    const q = this.quote === '"' ? "'" : '"'; // the other quote, so nested strings need no escapes
    // no strings or backslashes inside the braces (Python before 3.12 allows neither)
    const inner = this.pick([() => this.name(), () => `${this.name()}.${this.name()}`, () => `${this.name()}[${this.int(9)}]`, () => `${this.name()} + ${this.int(99)}`, () => `${this.name()}(${this.name()})`])();
    return `f${q}${this.name()} = {${inner}${this.pick(["", "!r", ":>10", ":.3f", "!s:^8"])}} and {{braces}}${q}`;
  }

  private number(): string {
    return this.pick([String(this.int(1000)), `0x${this.int(65536).toString(16).toUpperCase()}`, `1_000_${this.int(900) + 100}`, `${this.int(100)}.${this.int(100)}`, "1e-5", "3j", "0o17", "0b1010"]);
  }

  private atom(depth: number): string {
    const x = this.r();
    if (x < 0.3) return this.name();
    if (x < 0.45) return this.number();
    if (x < 0.55) return this.string();
    if (x < 0.6) return this.pick(["None", "True", "False", "self", "..."]);
    if (x < 0.68) return `${this.name()}.${this.name()}${this.chance(0.4) ? `.${this.name()}` : ""}`;
    if (x < 0.76) return `${this.name()}[${this.slice(depth)}]`;
    return this.call(depth);
  }

  private slice(depth: number): string {
    return this.pick([() => this.expr(depth + 1), () => `${this.int(5)}:${this.sp()}${this.expr(depth + 2)}`, () => "::2", () => `${this.name()}, ${this.int(9)}`, () => ":-1"])();
  }

  private args(depth: number, n: number): string[] {
    const a: string[] = [];
    for (let i = 0; i < n; i++) a.push(this.expr(depth + 1));
    if (this.chance(0.3)) a.push(`${this.name()}=${this.expr(depth + 1)}`);
    if (this.chance(0.1)) a.push(`*${this.name()}`);
    if (this.chance(0.1)) a.push(`**${this.name()}`);
    return a;
  }

  /** Elements between brackets: sometimes one per line, sometimes with a magic trailing comma. */
  private list(items: string[]): string {
    if (items.length === 0) return "";
    const sep = this.chance(0.15) ? ",\n" + this.unit.repeat(2) : "," + this.sp();
    return items.join(sep) + (this.chance(0.2) ? "," : "");
  }

  private call(depth: number): string {
    const f = this.chance(0.5) ? this.name() : `${this.name()}.${this.name()}`;
    return `${f}(${this.list(this.args(depth, this.int(depth > 2 ? 2 : 4)))})`;
  }

  /** Forms of low precedence (lambda, conditional, not) are parenthesized below the top: they cannot be operands. */
  private low(depth: number, e: string): string {
    return depth > 0 ? `(${e})` : e;
  }

  expr(depth: number): string {
    if (depth > 3) return this.atom(depth);
    const x = this.r();
    if (x < 0.25) return `${this.expr(depth + 1)}${this.sp()}${this.pick(BINOPS)}${this.sp()}${this.expr(depth + 1)}`;
    if (x < 0.33) return `${this.expr(depth + 1)} ${this.pick(COMPARES)} ${this.expr(depth + 1)}${this.chance(0.3) ? ` ${this.pick(["<", "<=", "=="])} ${this.atom(depth)}` : ""}`;
    if (x < 0.38) return `${this.expr(depth + 1)} ${this.pick(["and", "or"])} ${this.pick(["not ", ""])}${this.expr(depth + 1)}`;
    if (x < 0.41) {
      const op = this.pick(["-", "~", "not ", "+"]);
      return op === "not " ? this.low(depth, `not ${this.atom(depth)}`) : `${op}${this.atom(depth)}`;
    }
    if (x < 0.45) return `[${this.list(this.args(depth, this.int(5)).filter((a) => !a.includes("=") && !a.startsWith("**")))}]`;
    if (x < 0.48) return `(${this.expr(depth + 1)},${this.sp()}${this.expr(depth + 1)}${this.chance(0.5) ? "," : ""})`;
    if (x < 0.52) return `{${this.list(Array.from({ length: this.int(4) }, () => `${this.string()}${this.sp()}:${this.sp()}${this.expr(depth + 1)}`))}}`;
    if (x < 0.55) return `{${this.expr(depth + 1)}, ${this.atom(depth)}}`;
    if (x < 0.62) {
      const v = this.name();
      const open = this.pick(["[", "{", "("]);
      const close = open === "[" ? "]" : open === "{" ? "}" : ")";
      // no := anywhere in a comprehension: in its iterable, or rebinding its variable, it is an error
      this.inComprehension++;
      const head = open === "{" && this.chance(0.5) ? `${v}:${this.sp()}${this.expr(depth + 1)}` : this.expr(depth + 1).replace(/^\*+/, "");
      const inner = this.chance(0.3) ? ` for ${this.name()} in ${this.name()}` : "";
      const text = `${open}${head} for ${v} in ${this.atom(depth)}${inner}${this.chance(0.5) ? ` if ${this.expr(depth + 2)}` : ""}${close}`;
      this.inComprehension--;
      return text;
    }
    if (x < 0.65) return this.low(depth, `lambda ${this.chance(0.5) ? `${this.name()}, ${this.name()}_d=${this.int(9)}` : ""}: ${this.expr(depth + 1)}`);
    if (x < 0.69) return this.low(depth, `${this.atom(depth)} if ${this.expr(depth + 1)} else ${this.expr(depth + 1)}`);
    if (x < 0.72 && this.inComprehension === 0) return `(${this.name()} := ${this.expr(depth + 1)})`;
    if (x < 0.76) return this.fstring();
    if (x < 0.8) return `(${this.expr(depth + 1)})`;
    return this.atom(depth);
  }

  private line(s: Scope, text: string): void {
    const comment = this.chance(0.08) ? `${this.pick(["  ", " ", "    "])}#${this.pick([" note", "TODO: check", " type: ignore", "!", ""])}` : "";
    this.out.push(s.indent + text + comment);
    if (this.chance(0.1)) this.out.push("");
  }

  private block(s: Scope, n: number, flags: Partial<Scope> = {}): void {
    const inner: Scope = { ...s, ...flags, indent: s.indent + this.unit, depth: s.depth + 1 };
    if (this.chance(0.1)) this.out.push(`${inner.indent}# ${this.pick(["block", "the usual case", "see above"])}`);
    for (let i = 0; i < n; i++) this.statement(inner);
  }

  private params(): string {
    const p: string[] = [];
    if (this.chance(0.3)) p.push("self");
    const n = this.int(4);
    for (let i = 0; i < n; i++) {
      let a = `${this.pick(WORDS)}${i}`;
      if (this.chance(0.4)) a += `:${this.sp()}${this.pick(["int", "str", "list[int]", "dict[str, Any]", "Optional[Node]", "float | None"])}`;
      if (i >= n - 1 && this.chance(0.5)) a += a.includes(":") ? ` = ${this.atom(3)}` : `=${this.atom(3)}`;
      p.push(a);
    }
    if (this.chance(0.15)) p.push("*args");
    if (this.chance(0.15)) p.push("**kwargs");
    return this.list(p);
  }

  private target(): string {
    return this.pick([() => this.name(), () => `${this.name()}, ${this.name()}`, () => `self.${this.name()}`, () => `${this.name()}[${this.int(4)}]`])();
  }

  statement(s: Scope): void {
    const x = this.r();
    const deep = s.depth >= 3;
    if (x < 0.22 || deep) {
      const y = this.r();
      if (y < 0.5) this.line(s, `${this.target()}${this.sp()}=${this.sp()}${this.expr(0)}`);
      else if (y < 0.6) this.line(s, `${this.name()}${this.sp()}${this.pick(AUGOPS)}${this.sp()}${this.expr(1)}`);
      else if (y < 0.7) this.line(s, `${this.name()}: ${this.pick(["int", "List[str]", "dict"])} = ${this.expr(1)}`);
      else if (y < 0.9) this.line(s, this.call(0));
      else if (s.inFunc && this.chance(0.5)) {
        // an async def awaits (an async generator may not return a value); another def may yield
        const forms = s.inAsync ? [() => `return ${this.expr(0)}`, () => `${this.name()} = await ${this.call(1)}`] : [() => `return ${this.expr(0)}`, () => `yield ${this.expr(1)}`, () => `yield from ${this.call(1)}`];
        this.line(s, this.pick(forms)());
      } else if (this.chance(0.15)) this.line(s, `${this.name()}, *${this.name()} = ${this.call(1)}`);
      else if (s.inLoop) this.line(s, this.pick(["break", "continue"]));
      else this.line(s, this.pick(["pass", `assert ${this.expr(1)}, ${this.string()}`, `del ${this.name()}`]));
      return;
    }
    if (x < 0.32) {
      this.line(s, `if ${this.expr(1)}${this.sp()}:`);
      this.block(s, 1 + this.int(3));
      while (this.chance(0.35)) {
        this.line(s, `elif ${this.expr(1)}:`);
        this.block(s, 1 + this.int(2));
      }
      if (this.chance(0.4)) {
        this.line(s, "else:");
        this.block(s, 1 + this.int(2));
      }
    } else if (x < 0.4) {
      this.line(s, `for ${this.target()} in ${this.pick([() => this.call(1), () => this.name(), () => `range(${this.int(100)})`])()}:`);
      this.block(s, 1 + this.int(3), { inLoop: true });
      if (this.chance(0.15)) {
        this.line(s, "else:");
        this.block(s, 1);
      }
    } else if (x < 0.45) {
      this.line(s, `while ${this.expr(1)}:`);
      this.block(s, 1 + this.int(3), { inLoop: true });
    } else if (x < 0.52) {
      this.line(s, "try:");
      this.block(s, 1 + this.int(2));
      const n = 1 + this.int(2);
      for (let i = 0; i < n; i++) {
        this.line(s, `except ${this.pick(["ValueError", "(KeyError, IndexError)", "Exception as exc", "OSError"])}:`);
        this.block(s, 1);
      }
      if (this.chance(0.3)) {
        this.line(s, "finally:");
        this.block(s, 1);
      }
    } else if (x < 0.57) {
      const items = Array.from({ length: 1 + this.int(2) }, () => `${this.call(2)} as ${this.name()}`);
      this.line(s, `with ${items.join(", ")}:`);
      this.block(s, 1 + this.int(2));
    } else if (x < 0.62) {
      this.line(s, `match ${this.expr(1)}:`);
      const inner: Scope = { ...s, indent: s.indent + this.unit, depth: s.depth + 1 };
      const cases = 1 + this.int(3);
      for (let i = 0; i < cases; i++) {
        // the wildcard only last: before other cases it makes them unreachable, a syntax error
        const pat = i === cases - 1 && this.chance(0.4) ? "_" : this.pick([`${this.int(10)}`, `[${this.name()}, *rest]`, `{${this.string()}: ${this.name()}}`, `${this.pick(CLASSES)}(x=${this.int(5)})`, `${this.string()} | ${this.string()}`]);
        this.line(inner, `case ${pat}${this.chance(0.2) ? ` if ${this.expr(2)}` : ""}:`);
        this.block(inner, 1 + this.int(2));
      }
    } else if (x < 0.65 && s.inAsync) {
      const loop = this.chance(0.5);
      if (loop) this.line(s, `async for ${this.name()} in ${this.call(1)}:`);
      else this.line(s, `async with ${this.call(1)} as ${this.name()}, ${this.call(2)}:`);
      this.block(s, 1 + this.int(2), loop ? { inLoop: true } : {});
    } else if (x < 0.82) {
      this.function(s);
    } else if (x < 0.9 && s.depth === 0) {
      this.klass(s);
    } else {
      this.line(s, this.call(0));
    }
  }

  private function(s: Scope): void {
    if (this.chance(0.3)) this.line(s, `@${this.pick(["staticmethod", "property", "functools.lru_cache(maxsize=None)", "cache", `register(${this.string()})`])}`);
    const ret = this.chance(0.4) ? `${this.sp()}->${this.sp()}${this.pick(["int", "None", "str", "Iterator[Node]"])}` : "";
    const isAsync = this.chance(0.15);
    this.line(s, `${isAsync ? "async " : ""}def ${this.name()}_${this.fresh++}(${this.params()})${ret}:`);
    const inner: Scope = { ...s, indent: s.indent + this.unit, depth: s.depth + 1, inFunc: true, inLoop: false, inAsync: isAsync };
    // a global statement first: after a use of the name in the function it would be an error
    if (this.chance(0.2)) this.line(inner, `global ${this.pick(WORDS)}_g, ${this.pick(WORDS)}_h`);
    if (this.chance(0.4)) this.line(inner, `${this.quote.repeat(3)}${this.pick(["Return the value.", "Compute the thing.\n\n" + inner.indent + "More words.", "   spaced doc   ", `Example.\n\n${inner.indent}>>> ${this.name()}  =  ${this.name()}( ${this.int(9)},${this.name()} )\n${inner.indent}`])}${this.quote.repeat(3)}`);
    const n = 1 + this.int(4);
    for (let i = 0; i < n; i++) this.statement(inner);
  }

  private klass(s: Scope): void {
    if (this.chance(0.3)) this.line(s, "@dataclasses.dataclass(frozen=True)");
    const bases = this.chance(0.5) ? `(${this.list([this.pick(CLASSES), ...(this.chance(0.3) ? ["metaclass=ABCMeta"] : [])])})` : this.pick(["", "()"]);
    this.line(s, `class ${this.pick(CLASSES)}${this.fresh++}${bases}:`);
    const inner: Scope = { ...s, indent: s.indent + this.unit, depth: s.depth + 1, inFunc: false, inLoop: false };
    if (this.chance(0.5)) this.line(inner, `${this.quote.repeat(3)}A class.${this.quote.repeat(3)}`);
    if (this.chance(0.5)) this.line(inner, `${this.name()}: int = ${this.int(9)}`);
    const n = 1 + this.int(4);
    for (let i = 0; i < n; i++) this.function(inner);
  }

  module(statements: number): string {
    const top: Scope = { indent: "", inLoop: false, inFunc: false, depth: 0 };
    this.out.push(`${this.quote.repeat(3)}Module ${this.int(1000)}.${this.quote.repeat(3)}`);
    const imports = 1 + this.int(4);
    for (let i = 0; i < imports; i++) {
      if (this.chance(0.5)) this.out.push(`import ${this.pick(MODULES)}${this.chance(0.3) ? ` as ${this.name()}` : ""}`);
      else this.out.push(`from ${this.pick(MODULES)} import ${this.chance(0.3) ? `(${this.list([this.pick(CLASSES), this.name()])})` : this.name()}`);
    }
    for (let i = 0; i < statements; i++) this.statement(top);
    return this.out.join("\n") + (this.chance(0.8) ? "\n" : "");
  }
}

/** A module of `statements` top-level statements, made up from `seed`. */
export function pythonModule(seed: number, statements: number): string {
  return new Gen(seed).module(statements);
}

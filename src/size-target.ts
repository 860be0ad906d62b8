// What "smaller" means. Users ship .wasm over the network compressed, and
// compressors already exploit repeated code, so a rewrite that saves raw
// bytes can cost transfer bytes. The target says which size counts:
//   raw       the .wasm bytes (embedded runtimes, size limits, compile time)
//   gzip      gzip -9 transfer size
//   brotli    brotli q11 transfer size
//   balanced  raw bytes shrink while neither gzip nor brotli grows (default)
// The core has no compressor of its own: the caller supplies measures (the
// CLI passes Node's zlib); a target that needs a missing measure is an error.

import { leftOutOfEstimates, withoutSections } from "./binary/sections.js";

export type SizeTarget = "raw" | "gzip" | "brotli" | "balanced";
export const SIZE_TARGETS: readonly SizeTarget[] = ["raw", "gzip", "brotli", "balanced"];

export interface SizeMeasures {
  gzip?: (bytes: Uint8Array) => number;
  brotli?: (bytes: Uint8Array) => number;
  /**
   * A fast stand-in for `brotli` (e.g. a low quality level). When given, a
   * change it finds worse is refused without running the real brotli: a
   * refusal is always safe, and the real measure still decides every change
   * that is taken.
   */
  brotliFast?: (bytes: Uint8Array) => number;
  /**
   * A cheap stand-in for `brotli` (e.g. quality 7) for proposing changes:
   * passes search on it and the real measure verifies what they propose
   * (see SizeJudge.estimator). Without it every judgement is a real one.
   */
  brotliEstimate?: (bytes: Uint8Array) => number;
  /**
   * A hint that `brotli` will soon be asked for these modules, so it may
   * start on them in the background (another thread). Optional: results must
   * be the same numbers `brotli` would give. `early`: they will not be asked
   * for until much later (gzip may then be measured in the background too).
   */
  prefetch?: (list: readonly Uint8Array[], early?: boolean) => void;
}

export interface Sizes {
  raw: number;
  gzip?: number;
  brotli?: number;
  brotliFast?: number;
}

type Measure = "gzip" | "brotli" | "brotliFast";

// An estimate looks only at what passes change: the data section and custom
// sections other than "name" are left out (brotli-wasm's module is two
// thirds data, web-tree-sitter's debug build two thirds DWARF), so a stand-in
// run costs less. Estimates only steer; the real measures see whole modules.
const views = new WeakMap<Uint8Array, Uint8Array>();

/** The part of a module an estimate measures (the same array for the same module, so measure caches keyed by it work). */
export function estimateView(bytes: Uint8Array): Uint8Array {
  let v = views.get(bytes);
  if (v === undefined) {
    try {
      v = withoutSections(bytes, (s) => leftOutOfEstimates(s.id, s.name));
    } catch {
      v = bytes; // not a module's section structure (a measure may be asked about any bytes): all of it
    }
    views.set(bytes, v);
  }
  return v;
}

// Modules written as their estimate view only (trials judged on estimates:
// see extract/trial.ts writeTrial), with the length of their whole write.
const wholes = new WeakMap<Uint8Array, number>();

/**
 * Marks `view` as a module's estimateView written on its own, whose whole
 * write would take `whole` bytes: its view is itself, and budgets and
 * thresholds that scale with the module see the whole length.
 */
export function asEstimateView(view: Uint8Array, whole: number): Uint8Array {
  views.set(view, view);
  wholes.set(view, whole);
  return view;
}

/** The length of the module's whole write (its own length unless written as an estimate view). */
export function wholeLength(bytes: Uint8Array): number {
  return wholes.get(bytes) ?? bytes.length;
}

/** Bytes of the module per byte its estimates see (1: they see it all). */
export function wholePerView(bytes: Uint8Array): number {
  return wholeLength(bytes) / Math.max(1, estimateView(bytes).length);
}

/**
 * `f` of a module's estimateView, kept per view: the estimator and its
 * orders judge share these, so a module one of them measured is not
 * compressed again for the other (each judge's own cache is its own).
 */
function onView(f: (b: Uint8Array) => number): (b: Uint8Array) => number {
  // by content: a pass's trials are written as views (extract/trial.ts) while
  // the pass runner checks whole modules, and the view of the module it wrote
  // is the pass's last trial over again
  const known = new Map<string, number>();
  return (b) => {
    const v = estimateView(b);
    const key = contentKey(v);
    let n = known.get(key);
    if (n === undefined) {
      n = f(v);
      known.set(key, n);
    }
    return n;
  };
}

// Keys by array: one comparison asks for the key of the same module several
// times (each measure, the prefetch hint, the two-core pool), and hashing
// esbuild.wasm takes 12 ms. Measured modules are written once and not changed.
const keys = new WeakMap<Uint8Array, string>();

/** A content key for measurement caches (length + FNV-1a over the bytes, which must not change afterwards). */
export function contentKey(b: Uint8Array): string {
  let key = keys.get(b);
  if (key === undefined) {
    let h = 0x811c9dc5;
    for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
    key = `${b.length}:${(h >>> 0).toString(16)}`;
    keys.set(b, key);
  }
  return key;
}

export class SizeJudge {
  // Keyed by content: the pipeline and a pass often write the same module
  // separately, and each compressor run can take seconds.
  private cache = new Map<string, Sizes>();
  /** Entries kept however many others come and go (the input: the last word compares against it). */
  private readonly pinned = new Map<string, Sizes>();
  /** Number of compressor runs so far (for reports and budgets). */
  measurements = 0;
  private readonly components: ("gzip" | "brotli")[];
  private est: SizeJudge | null | undefined;
  /** On an estimator: the same judge with the fast screen as its brotli measure (see forOrders). */
  private orders: SizeJudge | null = null;
  /** Every measure sees estimateView only (an estimator and its orders judge): trials may be written as views. */
  private views = false;
  /**
   * `shipsExtra`: bytes the shipped result carries besides the modules
   * judged: the debug info set aside while the passes run, whose quality-11
   * runs the last word pays too (judgementBudget weighs it; its estimator
   * shares it).
   */
  constructor(
    readonly target: SizeTarget,
    private readonly measures: SizeMeasures = {},
    readonly shipsExtra = 0,
  ) {
    this.components = target === "balanced" ? ["gzip", "brotli"] : target === "raw" ? [] : [target];
    for (const n of this.components) {
      if (!measures[n]) throw new Error(`size target "${target}" needs a ${n} measure`);
    }
  }

  /**
   * True if every measure this judge takes sees a module's estimateView
   * only, so modules it compares may be written as that view (the data
   * section and custom sections but "name" left out; raw lengths then
   * differ from the whole writes' by the same amount on both sides, as long
   * as both sides are written so).
   */
  get judgesViews(): boolean {
    return this.views;
  }

  /** True if the judge needs compressors (comparisons cost compressor runs). */
  get compressed(): boolean {
    return this.target !== "raw";
  }

  private entry(bytes: Uint8Array): Sizes {
    const key = contentKey(bytes);
    let s = this.pinned.get(key) ?? this.cache.get(key);
    if (!s) {
      if (this.cache.size > 64) this.cache.clear();
      s = { raw: bytes.length };
      this.cache.set(key, s);
    }
    return s;
  }

  private measure(bytes: Uint8Array, which: Measure): number {
    const s = this.entry(bytes);
    let v = s[which];
    if (v === undefined) {
      v = this.measures[which]!(bytes);
      s[which] = v;
      this.measurements++;
    }
    return v;
  }

  /** Keeps the sizes of `bytes` for the judge's lifetime (a real brotli run of a large module takes seconds). */
  pin(bytes: Uint8Array): void {
    const key = contentKey(bytes);
    if (!this.pinned.has(key)) this.pinned.set(key, this.entry(bytes));
  }

  /**
   * True if prefetch can start measures in the background (the measures
   * take hints, and the target counts brotli): only then is writing a
   * module ahead of its judgement worth it.
   */
  get measuresAhead(): boolean {
    return this.measures.prefetch !== undefined && this.components.includes("brotli");
  }

  /**
   * Says that these modules will be compared soon: where the measures can
   * work in the background, their brotli sizes are started now. `early`:
   * not soon, but at the end (the input): gzip may be measured there too.
   */
  prefetch(list: readonly Uint8Array[], early = false): void {
    if (!this.measuresAhead) return;
    const todo = list.filter((b) => this.entry(b).brotli === undefined);
    if (todo.length > 0) this.measures.prefetch!(todo, early);
  }

  /**
   * A judge on cheap stand-ins (brotliEstimate for brotli; gzip is cheap
   * already), each measuring estimateView of a module, for the balanced and
   * brotli targets, or null. A search may run
   * on it, but its result must then be verified here: a stand-in disagrees
   * with the real measure about whether a change helps in about a third of
   * the cases. The pipeline uses it for balanced above a size, and for
   * brotli only where a real measure per decision would take hours (the
   * brotli target asks for the lowest brotli size, and only a search on the
   * real measure finds it).
   */
  estimator(): SizeJudge | null {
    if (this.est === undefined) {
      const m = this.measures;
      const usable = m.brotliEstimate && (this.target === "brotli" || (this.target === "balanced" && m.gzip));
      if (!usable) this.est = null;
      else {
        const gzip = this.target === "balanced" ? { gzip: onView(m.gzip!) } : {};
        const screen = m.brotliFast ? onView(m.brotliFast) : null;
        this.est = new SizeJudge(this.target, { ...gzip, brotli: onView(m.brotliEstimate!), ...(screen ? { brotliFast: screen } : {}) }, this.shipsExtra);
        this.est.views = true;
        if (screen) {
          this.est.orders = new SizeJudge(this.target, { ...gzip, brotli: screen }, this.shipsExtra);
          this.est.orders.views = true;
        }
      }
    }
    return this.est;
  }

  /**
   * The judge for choosing among orders of the same code (layout's
   * candidates): on an estimator, one whose brotli measure is the fast screen
   * (quality 5), cheaper than the estimate; any other judge is itself.
   * Measured when the estimate was quality 9: on the 19 corpus files from 64
   * KiB to 2.5 MB the order it picks was the same as quality 9's on 14, smaller at quality 11 of
   * the whole file on 3 and larger on 1 (onig, 382 bytes, where the result's
   * verification then refuses it); quality 9 of six candidates took 1.3-2.3 s
   * there, quality 5 0.05-0.4 s.
   */
  forOrders(): SizeJudge {
    return this.orders ?? this;
  }

  /** The sizes of these bytes under every measure the target uses (measured where not known yet). */
  measureAll(bytes: Uint8Array): Sizes {
    for (const c of this.components) this.measure(bytes, c);
    return this.known(bytes);
  }

  /** The sizes measured so far for these bytes (no new compressor runs). */
  known(bytes: Uint8Array): Sizes {
    return { ...this.entry(bytes) };
  }

  /**
   * Compares under the target. `strict`: the target's size must shrink, or
   * stay the same while raw bytes shrink (balanced: raw shrinks, compressed
   * sizes do not grow); otherwise no counted size may grow.
   */
  private compare(before: Uint8Array, after: Uint8Array, strict: boolean, screen = true): boolean {
    if (this.target === "raw" || this.target === "balanced") {
      if (strict ? after.length >= before.length : after.length > before.length) return false;
    }
    if (this.target === "raw") return true;
    if (screen && this.components.includes("brotli") && this.measures.brotliFast) {
      if (this.measure(after, "brotliFast") > this.measure(before, "brotliFast")) return false;
    }
    // both sides may need brotli: let the other one start in the background
    this.prefetch([before, after]);
    // gzip first: it is the cheaper one
    for (const c of this.components) {
      const a = this.measure(before, c);
      const b = this.measure(after, c);
      if (b > a) return false;
      // under gzip or brotli a tie is broken by raw bytes: a change that
      // saves raw bytes at no transfer cost is taken, as balanced takes it
      if (strict && this.target !== "balanced" && b === a && after.length >= before.length) return false;
    }
    return true;
  }

  /** Is `after` an improvement over `before` under the target? */
  better(before: Uint8Array, after: Uint8Array): boolean {
    return this.compare(before, after, true);
  }

  /** Is `after` no worse than `before` (what a pass must at least achieve to be kept)? */
  notWorse(before: Uint8Array, after: Uint8Array): boolean {
    return this.compare(before, after, false);
  }

  /**
   * notWorse on the real measures alone: the fast brotli stand-in may refuse
   * a change early in a search, but not overrule a verification.
   */
  holds(before: Uint8Array, after: Uint8Array): boolean {
    return this.compare(before, after, false, false);
  }

  /** "raw 10 -> 12, brotli 5 -> 6": the sizes that grew, among those measured. */
  explainGrowth(before: Uint8Array, after: Uint8Array): string {
    const a = this.known(before);
    const b = this.known(after);
    const keys: (keyof Sizes)[] = ["raw", "gzip", "brotli", "brotliFast"];
    const grew = keys.filter((k) => a[k] !== undefined && b[k] !== undefined && b[k]! > a[k]!);
    return grew.map((k) => `${k === "brotliFast" ? "brotli (fast estimate)" : k} ${a[k]} -> ${b[k]}`).join(", ") || "no size grew";
  }
}

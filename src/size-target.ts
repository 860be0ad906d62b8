// What "smaller" means. Users ship .wasm over the network compressed, and
// compressors already exploit repeated code, so a rewrite that saves raw
// bytes can cost transfer bytes. The target says which size counts:
//   raw       the .wasm bytes (embedded runtimes, size limits, compile time)
//   gzip      gzip -9 transfer size
//   brotli    brotli q11 transfer size
//   balanced  raw bytes shrink while neither gzip nor brotli grows (default)
// The core has no compressor of its own: the caller supplies measures (the
// CLI passes Node's zlib); a target that needs a missing measure is an error.

export type SizeTarget = "raw" | "gzip" | "brotli" | "balanced";
export const SIZE_TARGETS: readonly SizeTarget[] = ["raw", "gzip", "brotli", "balanced"];

export interface SizeMeasures {
  gzip?: (bytes: Uint8Array) => number;
  brotli?: (bytes: Uint8Array) => number;
}

export interface Sizes {
  raw: number;
  gzip?: number;
  brotli?: number;
}

/** A content key for the measurement cache (length + FNV-1a over the bytes). */
function contentKey(b: Uint8Array): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  return `${b.length}:${(h >>> 0).toString(16)}`;
}

export class SizeJudge {
  // Keyed by content: the pipeline and a pass often write the same module
  // separately, and each compressor run can take a second.
  private cache = new Map<string, Sizes>();
  /** Number of compressor runs so far (for reports and budgets). */
  measurements = 0;

  constructor(
    readonly target: SizeTarget,
    private readonly measures: SizeMeasures = {},
  ) {
    const need = target === "balanced" ? ["gzip", "brotli"] : target === "raw" ? [] : [target];
    for (const n of need) {
      if (!measures[n as keyof SizeMeasures]) throw new Error(`size target "${target}" needs a ${n} measure`);
    }
  }

  /** True if the judge needs compressors (comparisons cost compressor runs). */
  get compressed(): boolean {
    return this.target !== "raw";
  }

  sizes(bytes: Uint8Array): Sizes {
    if (this.target === "raw") return { raw: bytes.length };
    const key = contentKey(bytes);
    let s = this.cache.get(key);
    if (s) return s;
    s = { raw: bytes.length };
    if (this.target === "gzip" || this.target === "balanced") {
      s.gzip = this.measures.gzip!(bytes);
      this.measurements++;
    }
    if (this.target === "brotli" || this.target === "balanced") {
      s.brotli = this.measures.brotli!(bytes);
      this.measurements++;
    }
    if (this.cache.size > 64) this.cache.clear();
    this.cache.set(key, s);
    return s;
  }

  /** Is `after` an improvement over `before` under the target? */
  better(before: Uint8Array, after: Uint8Array): boolean {
    if (this.target === "raw") return after.length < before.length;
    if (this.target === "balanced" && after.length >= before.length) return false;
    const a = this.sizes(before);
    const b = this.sizes(after);
    switch (this.target) {
      case "gzip":
        return b.gzip! < a.gzip!;
      case "brotli":
        return b.brotli! < a.brotli!;
      default:
        return b.gzip! <= a.gzip! && b.brotli! <= a.brotli!;
    }
  }

  /** Is `after` no worse than `before` (what a pass must at least achieve to be kept)? */
  notWorse(before: Uint8Array, after: Uint8Array): boolean {
    if (after.length > before.length && this.target !== "gzip" && this.target !== "brotli") return false;
    if (this.target === "raw") return true;
    const a = this.sizes(before);
    const b = this.sizes(after);
    if (a.gzip !== undefined && b.gzip! > a.gzip) return false;
    if (a.brotli !== undefined && b.brotli! > a.brotli) return false;
    return true;
  }
}

// Small statistics for the benchmark: medians, geometric means, and a
// bootstrap confidence interval for a ratio of medians. Deterministic (the
// resampling uses a seeded generator) so the same samples give the same
// interval on every run.

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Geometric mean of positive numbers; NaN if there are none or one is not positive. */
export function geomean(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  let sum = 0;
  for (const x of xs) {
    if (!(x > 0) || !Number.isFinite(x)) return NaN;
    sum += Math.log(x);
  }
  return Math.exp(sum / xs.length);
}

/** Mulberry32: a tiny seeded PRNG, good enough for resampling. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface RatioInterval {
  /** median(b) / median(a) over all samples. */
  ratio: number;
  /** 95 % interval bounds; null when there are too few samples to say anything. */
  lo: number | null;
  hi: number | null;
  /** Largest distance from `ratio` to a bound, relative to `ratio` (0.02 = ±2 %). Null without an interval. */
  halfWidth: number | null;
  /** Number of (a, b) pairs the interval was computed from. */
  n: number;
  method: string;
}

export const RATIO_CI_METHOD =
  "paired percentile bootstrap (10,000 resamples of the run pairs, seed 1) of median(optimized)/median(baseline); " +
  "each sample is the fastest timed run inside one fresh process after warm-up";

/**
 * 95 % percentile-bootstrap interval for median(b) / median(a), where a[i] and
 * b[i] were measured as a pair (interleaved, close in time). Pairs are
 * resampled together, so slow drift of the machine affects both sides alike.
 * With fewer than 3 pairs no interval is given (lo = hi = halfWidth = null).
 */
export function ratioOfMediansCI(a: readonly number[], b: readonly number[], resamples = 10000, seed = 1): RatioInterval {
  return pairedBootstrapRatio(a, b, median, medianInPlace, resamples, seed, RATIO_CI_METHOD, "ratioOfMediansCI");
}

export const BEST_CI_METHOD =
  "paired percentile bootstrap (10,000 resamples of the run pairs, seed 1) of min(optimized)/min(baseline): the best " +
  "of several fresh processes on each side; a process that runs slow as a whole (here about half of them do, by up to " +
  "2x: a bimodal spread the median of processes follows and the best does not) only ever adds time";

/**
 * 95 % percentile-bootstrap interval for min(b) / min(a), pairs resampled
 * together as in ratioOfMediansCI. With fewer than 3 pairs, no interval.
 */
export function ratioOfBestCI(a: readonly number[], b: readonly number[], resamples = 10000, seed = 1): RatioInterval {
  const min = (xs: ArrayLike<number>): number => {
    let m = Infinity;
    for (let i = 0; i < xs.length; i++) m = Math.min(m, xs[i]!);
    return m;
  };
  return pairedBootstrapRatio(a, b, min, min, resamples, seed, BEST_CI_METHOD, "ratioOfBestCI");
}

/** stat(b) / stat(a) with its paired percentile-bootstrap 95 % interval (see ratioOfMediansCI). */
function pairedBootstrapRatio(
  a: readonly number[],
  b: readonly number[],
  stat: (xs: readonly number[]) => number,
  statInPlace: (xs: Float64Array) => number,
  resamples: number,
  seed: number,
  method: string,
  name: string,
): RatioInterval {
  if (a.length !== b.length) throw new Error(`${name}: samples must be paired`);
  const n = a.length;
  const ratio = stat(b) / stat(a);
  if (n < 3) return { ratio, lo: null, hi: null, halfWidth: null, n, method };
  const rand = rng(seed);
  const ra = new Float64Array(n);
  const rb = new Float64Array(n);
  const stats = new Float64Array(resamples);
  for (let k = 0; k < resamples; k++) {
    for (let i = 0; i < n; i++) {
      const j = Math.floor(rand() * n);
      ra[i] = a[j]!;
      rb[i] = b[j]!;
    }
    stats[k] = statInPlace(rb) / statInPlace(ra);
  }
  stats.sort();
  const lo = quantileSorted(stats, 0.025);
  const hi = quantileSorted(stats, 0.975);
  const halfWidth = Math.max(hi / ratio - 1, 1 - lo / ratio);
  return { ratio, lo, hi, halfWidth, n, method };
}

export const PAIRED_CI_METHOD =
  "percentile bootstrap (10,000 resamples of the processes, seed 1) of the median over processes of each process's " +
  "median in-process ratio: inside one process both sides run in alternating rounds (AB, BA, ...), each round's " +
  "optimized / baseline run times give one ratio, so drift of the machine and whole-process slowness hit both alike";

/**
 * The median of `xs` (independent samples, e.g. one ratio per process) with
 * its 95 % percentile-bootstrap interval. With fewer than 3 samples, no interval.
 */
export function medianCI(xs: readonly number[], method: string, resamples = 10000, seed = 1): RatioInterval {
  const n = xs.length;
  const ratio = median(xs);
  if (n < 3) return { ratio, lo: null, hi: null, halfWidth: null, n, method };
  const rand = rng(seed);
  const r = new Float64Array(n);
  const stats = new Float64Array(resamples);
  for (let k = 0; k < resamples; k++) {
    for (let i = 0; i < n; i++) r[i] = xs[Math.floor(rand() * n)]!;
    stats[k] = medianInPlace(r);
  }
  stats.sort();
  const lo = quantileSorted(stats, 0.025);
  const hi = quantileSorted(stats, 0.975);
  const halfWidth = Math.max(hi / ratio - 1, 1 - lo / ratio);
  return { ratio, lo, hi, halfWidth, n, method };
}

function medianInPlace(xs: Float64Array): number {
  xs.sort();
  const mid = xs.length >> 1;
  return xs.length % 2 === 1 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
}

/** Linear-interpolated quantile of sorted data. */
export function quantileSorted(s: ArrayLike<number>, q: number): number {
  if (s.length === 0) return NaN;
  const pos = (s.length - 1) * q;
  const i = Math.floor(pos);
  const frac = pos - i;
  const x = s[i]!;
  return i + 1 < s.length ? x + (s[i + 1]! - x) * frac : x;
}

/** "1.003 [0.991, 1.015] (±1.2 %, n=12)", or "1.003 (n=1, no interval)". */
export function fmtInterval(ci: RatioInterval): string {
  if (!Number.isFinite(ci.ratio)) return "-";
  if (ci.lo === null || ci.hi === null || ci.halfWidth === null) return `${ci.ratio.toFixed(3)} (n=${ci.n}, no interval)`;
  return `${ci.ratio.toFixed(3)} [${ci.lo.toFixed(3)}, ${ci.hi.toFixed(3)}] (±${(ci.halfWidth * 100).toFixed(1)} %, n=${ci.n})`;
}

/** "[0.991, 1.015]" or "n/a". */
export function fmtBounds(ci: RatioInterval): string {
  return ci.lo === null || ci.hi === null ? "n/a" : `[${ci.lo.toFixed(3)}, ${ci.hi.toFixed(3)}]`;
}

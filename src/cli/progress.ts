// A progress bar on stderr, shown only on a terminal and only once the work
// has taken more than a second (short runs print just the summary). The
// optimizer is synchronous, so the bar is drawn from its progress callback.

export interface ProgressOptions {
  write: (s: string) => void;
  enabled: boolean;
  now: () => number;
  /** Milliseconds before the bar first appears. */
  delayMs?: number;
  /** Minimum milliseconds between redraws. */
  intervalMs?: number;
  width?: number;
}

export class ProgressBar {
  private readonly start: number;
  private lastDraw = -Infinity;
  private drawn = false;
  private readonly delayMs: number;
  private readonly intervalMs: number;
  private readonly width: number;

  constructor(private readonly o: ProgressOptions) {
    this.start = o.now();
    this.delayMs = o.delayMs ?? 1000;
    this.intervalMs = o.intervalMs ?? 100;
    this.width = o.width ?? 30;
  }

  /** True once the bar has been drawn at least once. */
  get shown(): boolean {
    return this.drawn;
  }

  update(done: number, total: number, phase: string): void {
    if (!this.o.enabled) return;
    const t = this.o.now();
    if (t - this.start < this.delayMs) return;
    if (t - this.lastDraw < this.intervalMs) return;
    this.lastDraw = t;
    const frac = total > 0 ? Math.min(Math.max(done / total, 0), 1) : 0;
    const filled = Math.round(frac * this.width);
    const bar = "#".repeat(filled) + "-".repeat(this.width - filled);
    const pct = `${Math.floor(frac * 100)}%`.padStart(4);
    this.o.write(`\r[${bar}] ${pct}  ${phase}\x1b[K`);
    this.drawn = true;
  }

  /** Erases the bar, leaving the cursor at the start of an empty line. */
  clear(): void {
    if (this.drawn) this.o.write("\r\x1b[K");
    this.drawn = false;
  }
}

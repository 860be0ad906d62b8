// Progress of one optimization run: finished phases, the one running, and
// the callback that shows them (see OptimizeOptions.onProgress).

export type ProgressCallback = (done: number, total: number, phase: string) => void;

export class Phases {
  done = 0;
  phase = "read";

  constructor(
    /** Number of phases; grows when a run adds one (verification). */
    public total: number,
    private readonly onProgress?: ProgressCallback,
  ) {}

  /** Reports progress, `within` (0..1) of the way through the running phase. */
  report(within = 0): void {
    if (this.onProgress) this.onProgress(this.done + Math.min(Math.max(within, 0), 1), this.total, this.phase);
  }

  start(name: string): void {
    this.phase = name;
    this.report();
  }

  end(): void {
    this.done++;
  }

  finish(): void {
    this.phase = "done";
    this.done = this.total;
    this.report();
  }
}

export const now = (): number => performance.now();
/** Milliseconds rounded to microseconds, for reports. */
export const ms = (t: number): number => Math.round(t * 1000) / 1000;

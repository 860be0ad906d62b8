// What became of one emitted .wasm asset, and its one-line summary.

import { percentChange, type Report } from "../report.js";

export type AssetResult =
  /** Optimized (`report.keptInput`: nothing smaller was found and the input was kept). */
  | {
      name: string;
      status: "optimized";
      before: number;
      after: number;
      ms: number;
      report: Report;
      /** The profile file used for it, if any. */
      profile?: string;
      /** True when this plugin had optimized the same input bytes before (an earlier build, or another asset) and this is that result. */
      reused?: boolean;
    }
  /** Not a valid WebAssembly module: kept as it is (or the build failed, with failOnInvalid). */
  | { name: string; status: "invalid"; before: number; message: string }
  /** The optimizer failed (a bug in wasm-compact): the asset is kept as it is. */
  | { name: string; status: "internal-error"; before: number; message: string }
  /** Not a core module (a component, say): left alone. */
  | { name: string; status: "skipped"; before: number; message: string };

function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** "assets/app-1a2b.wasm 28,157 -> 26,733 bytes (ratio 0.949, -5.06%; 812 ms)" */
export function summaryLine(r: Extract<AssetResult, { status: "optimized" }>): string {
  const ratio = r.before > 0 ? (r.after / r.before).toFixed(3) : "-";
  const kept = r.report.keptInput ? ", nothing smaller found" : "";
  const profile = r.profile !== undefined ? `, profile ${r.profile}` : "";
  const time = r.reused ? "reused: same input as an asset optimized before" : `${Math.round(r.ms)} ms`;
  return `${r.name} ${thousands(r.before)} -> ${thousands(r.after)} bytes (ratio ${ratio}, ${percentChange({ before: r.before, after: r.after })}${kept}${profile}; ${time})`;
}

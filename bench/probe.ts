// Preloaded into every process the benchmark times (`node --import probe.js`):
// at exit it writes the process's own peak resident set size and CPU times to
// the file named by WASM_COMPACT_PROBE_OUT.
//
// Peak RSS is VmHWM from /proc/self/status: the kernel's high-water mark of
// this process's address space, which starts fresh at exec. We deliberately do
// not use getrusage's ru_maxrss (process.resourceUsage().maxRSS): on Linux a
// forked child inherits the parent's high-water mark at fork time, so a child
// spawned by a 700 MB benchmark process reports at least 700 MB (measured:
// an empty `node -e 1` under an 800 MB parent reports maxRSS 785,376 KiB but
// VmHWM 43,068 KiB). ru_maxrss is still recorded, for the curious.

import { readFileSync, writeFileSync } from "node:fs";

const out = process.env["WASM_COMPACT_PROBE_OUT"];
if (out) {
  process.on("exit", () => {
    let hwm = -1;
    try {
      const m = /^VmHWM:\s+(\d+)\s*kB/m.exec(readFileSync("/proc/self/status", "utf8"));
      if (m) hwm = Number(m[1]);
    } catch {
      // not Linux: leave -1, the parent falls back to ru_maxrss
    }
    const u = process.resourceUsage();
    writeFileSync(
      out,
      JSON.stringify({ vmHWMKiB: hwm, ruMaxRSSKiB: u.maxRSS, userMs: u.userCPUTime / 1000, sysMs: u.systemCPUTime / 1000 }),
    );
  });
}

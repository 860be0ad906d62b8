// Preloaded (node --import, through NODE_OPTIONS) into every Node process of
// a coverage run: records the wasm instances the process creates and, when
// the process ends (normally or by SIGTERM, as esbuild stops its service),
// writes which instrumented functions ran into the coverage folder.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { COVERAGE_DIR_ENV, collectCoverage, installCoverageHooks } from "./coverage.js";

const dir = process.env[COVERAGE_DIR_ENV];
if (dir) {
  installCoverageHooks();
  const id = `${process.pid}-${Date.now()}`;
  writeFileSync(join(dir, `${id}.start`), "");
  let written = false;
  const flush = (): void => {
    if (written) return;
    written = true;
    writeFileSync(join(dir, `${id}.json`), JSON.stringify(collectCoverage()));
  };
  process.on("exit", flush);
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    process.on(signal, () => {
      flush();
      process.exit(0);
    });
  }
}

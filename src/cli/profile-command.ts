// `wasm-compact profile -o PROFILE.json [--module M] [--from-counts FILE]… [-- CMD ARGS…]`:
// runs a Node workload with the profile hook preloaded (profile-hook.ts),
// collects the counts of every instrumented instance it created, adds in
// counts files saved elsewhere (a browser, say: see counts-file.ts), and
// writes one profile (profile/profile.ts) for one input module.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { readModule } from "../binary/reader.js";
import { decodeProfileMap, MAP_SECTION, type ProfileMap } from "../profile/profile-map.js";
import { formatProfile, profileFromCounts } from "../profile/profile.js";
import { parseCountsFile, type CountsEntry } from "./counts-file.js";
import { EXIT_BAD_INPUT, EXIT_OK, EXIT_USAGE, oneLine, parseArgsMessage } from "./common.js";
import { fsMessage, writeWhole } from "./files.js";
import type { CliIO } from "./run.js";

export const PROFILE_USAGE =
  "usage: wasm-compact profile -o PROFILE.json [--module X.instrumented.wasm] [--from-counts FILE]... [--allow-failure] [-- COMMAND ARGS...]";

export const PROFILE_HELP = `wasm-compact profile: records a profile (profile-guided mode, step 2)

${PROFILE_USAGE}

Runs COMMAND (a Node program, or anything that starts one: npm, a shell
script ...) with a hook preloaded through NODE_OPTIONS that finds every
instance of a module made by \`wasm-compact instrument\`; when each Node
process exits, its counters are saved. The counts of all instances add up
into PROFILE.json, for use with \`wasm-compact IN.wasm -o OUT.wasm --profile
PROFILE.json\`.

options:
  -o, --output FILE     where to write the profile (required)
      --module FILE     the instrumented module: its counts only (when the
                        workload runs several), and the block map for
                        counts files that have none
      --from-counts FILE  add counts saved by other hosts (repeatable; format
                        in the README, "Profile-guided mode")
      --allow-failure   keep the counts when COMMAND exits with an error
  -q, --quiet           print nothing unless something fails
  -h, --help            print this help

exit codes: 0 written; 1 the workload failed or ran no instrumented module,
or its counts are unusable; 2 usage or file error (nothing is written
unless the exit code is 0)
`;

const HOOK = new URL("./profile-hook.js", import.meta.url).href;

interface Collected {
  map: ProfileMap;
  runs: (number | string)[][];
  instances: number;
}

export function runProfile(argv: readonly string[], io: CliIO): number {
  const usage = (message: string): number => {
    io.stderr(`error: ${oneLine(message)}\n${PROFILE_USAGE}\n`);
    return EXIT_USAGE;
  };
  const failure = (message: string): number => {
    io.stderr(`error: ${oneLine(message)}\n`);
    return EXIT_BAD_INPUT;
  };
  const dash = argv.indexOf("--");
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const command = dash < 0 ? [] : argv.slice(dash + 1);
  let values: { output?: string; module?: string; "from-counts"?: string[]; "allow-failure"?: boolean; quiet?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...own],
      strict: true,
      allowPositionals: false,
      options: {
        output: { type: "string", short: "o" },
        module: { type: "string" },
        "from-counts": { type: "string", multiple: true },
        "allow-failure": { type: "boolean" },
        quiet: { type: "boolean", short: "q" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (e) {
    return usage(e instanceof Error ? parseArgsMessage(e) : String(e));
  }
  if (values.help) {
    io.stdout(PROFILE_HELP);
    return EXIT_OK;
  }
  const output = values.output;
  if (output === undefined || output === "") return usage("missing -o PROFILE.json (where to write the profile)");
  const countFiles = values["from-counts"] ?? [];
  if (command.length === 0 && countFiles.length === 0) return usage("nothing to profile: give -- COMMAND ARGS... or --from-counts FILE");

  // The module named with --module: its map.
  let moduleMap: ProfileMap | null = null;
  if (values.module !== undefined) {
    const file = values.module;
    let bytes: Uint8Array;
    try {
      const buf = readFileSync(file);
      bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    } catch (e) {
      return usage(`${file}: cannot read: ${fsMessage(e)}`);
    }
    try {
      const sec = readModule(bytes).customs.find((c) => c.name === MAP_SECTION);
      if (!sec) return usage(`${file}: not an instrumented module (no ${MAP_SECTION} section; make one with wasm-compact instrument)`);
      moduleMap = decodeProfileMap(sec.bytes);
    } catch (e) {
      return failure(`${file}: ${(e as Error).message}`);
    }
  }

  // Counts: from the files given, then from the workload.
  const entries: { from: string; entry: CountsEntry }[] = [];
  for (const file of countFiles) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      return usage(`${file}: cannot read: ${fsMessage(e)}`);
    }
    try {
      for (const entry of parseCountsFile(text)) entries.push({ from: file, entry });
    } catch (e) {
      return usage(`${file}: not a counts file: ${(e as Error).message}`);
    }
  }
  if (command.length > 0) {
    const dir = mkdtempSync(join(tmpdir(), "wasm-compact-counts-"));
    try {
      const nodeOptions = [io.env.NODE_OPTIONS, `--import=${HOOK}`].filter((s) => s).join(" ");
      const r = spawnSync(command[0]!, command.slice(1), {
        stdio: "inherit",
        env: { ...io.env, NODE_OPTIONS: nodeOptions, WASM_COMPACT_COUNTS_DIR: dir },
      });
      if (r.error) return usage(`cannot run ${command[0]}: ${fsMessage(r.error)}`);
      if ((r.status !== 0 || r.signal) && !values["allow-failure"]) {
        const how = r.signal ? `was killed by ${r.signal}` : `exited with code ${r.status}`;
        return failure(`the workload ${how}; no profile written (--allow-failure keeps its counts)`);
      }
      for (const name of readdirSync(dir).sort()) {
        const from = `the workload (${name})`;
        try {
          for (const entry of parseCountsFile(readFileSync(join(dir, name), "utf8"))) entries.push({ from, entry });
        } catch (e) {
          return failure(`${from}: unreadable counts: ${(e as Error).message}`);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (entries.length === 0) {
    return failure(
      "no counts: the workload created no instance of an instrumented module (does it load the file from `wasm-compact instrument`, and run under Node?)",
    );
  }

  // Group by input module; keep the one asked for, or the only one.
  const byInput = new Map<string, Collected>();
  for (const { from, entry } of entries) {
    let map: ProfileMap;
    try {
      if (entry.map !== undefined) map = decodeProfileMap(entry.map);
      else if (moduleMap) map = moduleMap;
      else return usage(`${from}: the counts name no module; give the instrumented module with --module FILE`);
    } catch (e) {
      return failure(`${from}: ${(e as Error).message}`);
    }
    if (entry.counts.length !== map.counters) {
      return failure(`${from}: ${entry.counts.length} counts for a module with ${map.counters} counters (counts of another module?)`);
    }
    let c = byInput.get(map.fingerprint);
    if (!c) byInput.set(map.fingerprint, (c = { map, runs: [], instances: 0 }));
    c.runs.push(entry.counts);
    c.instances += entry.instances ?? 1;
  }
  let chosen: Collected;
  if (moduleMap) {
    const c = byInput.get(moduleMap.fingerprint);
    if (!c) return failure(`no counts for ${values.module}: the workload ran ${[...byInput.keys()].join(", ")}`);
    chosen = c;
  } else if (byInput.size > 1) {
    return usage(`the counts are of ${byInput.size} different instrumented modules; choose one with --module FILE`);
  } else {
    chosen = byInput.values().next().value!;
  }
  const profile = profileFromCounts(chosen.map, chosen.runs, chosen.instances);

  try {
    writeWhole(output, formatProfile(profile));
  } catch (e) {
    return usage(`${output}: cannot write: ${fsMessage(e)}`);
  }
  if (!values.quiet) {
    const ran = profile.functions.length;
    const total = chosen.map.functions.length;
    io.stderr(`wasm-compact: profile of ${profile.instances} instance(s) -> ${output}: ${ran} of ${total} functions ran (input ${profile.fingerprint})\n`);
  }
  return EXIT_OK;
}

// The producers section (WebAssembly tool conventions) names the languages,
// tools and SDKs that made a module; each tool that processes it adds itself
// to the "processed-by" field. wasm-compact does so where the input has a
// producers section, and adds none where it has not (a new section would
// cost every small module some 30 bytes).

import { ByteReader, ByteWriter } from "./binary/bytes.js";
import type { Module } from "./ir/module.js";
import { VERSION } from "./version.js";

type Fields = [field: string, values: [name: string, version: string][]][];

function parse(payload: Uint8Array): Fields | null {
  try {
    const r = new ByteReader(payload);
    const fields: Fields = [];
    for (let n = r.u32(); n > 0; n--) {
      const field = r.name();
      const values: [string, string][] = [];
      for (let k = r.u32(); k > 0; k--) values.push([r.name(), r.name()]);
      fields.push([field, values]);
    }
    return r.atEnd() ? fields : null;
  } catch {
    return null;
  }
}

function encode(fields: Fields): Uint8Array {
  const w = new ByteWriter(256);
  w.u32(fields.length);
  for (const [field, values] of fields) {
    w.name(field);
    w.u32(values.length);
    for (const [name, version] of values) {
      w.name(name);
      w.name(version);
    }
  }
  return w.finish();
}

/** Adds wasm-compact (this version) to the producers section's processed-by field, if the module has a well-formed one; true if it did. */
export function recordProducer(m: Module, name = "wasm-compact", version = VERSION): boolean {
  const c = m.customs.find((x) => x.name === "producers");
  if (!c) return false;
  const fields = parse(c.bytes);
  if (!fields) return false;
  let by = fields.find(([f]) => f === "processed-by");
  if (!by) fields.push((by = ["processed-by", []]));
  const mine = by[1].find(([n]) => n === name);
  if (mine) {
    if (mine[1] === version) return false;
    mine[1] = version;
  } else by[1].push([name, version]);
  c.bytes = encode(fields);
  return true;
}

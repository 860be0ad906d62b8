// What each defined function of an encoded module costs in its code section:
// the body's bytes plus its size prefix, with the function's name (from the
// name section) and export names. For reports (--html, the playground); the
// bodies are not decoded.

import { u32Size } from "./binary/bytes.js";
import { readModule } from "./binary/reader.js";

export interface FunctionSize {
  /** Function index (imports come first, so the first defined function is `imported`). */
  index: number;
  name?: string;
  /** Names it is exported under. */
  exports: string[];
  /** Bytes it occupies in the code section: size prefix, locals and code. */
  size: number;
  /** The encoded body (locals and code, without the size prefix). */
  body: Uint8Array;
}

export interface ModuleFunctions {
  /** Number of imported functions. */
  imported: number;
  /** The defined functions, in index order. */
  functions: FunctionSize[];
  /** True if the module has a name section naming functions. */
  named: boolean;
}

/** The defined functions of `bytes` with their sizes. Throws WasmDecodeError on a malformed module. */
export function moduleFunctions(bytes: Uint8Array): ModuleFunctions {
  const m = readModule(bytes);
  const exports = new Map<number, string[]>();
  for (const e of m.exports) {
    if (e.kind !== "func") continue;
    const list = exports.get(e.index);
    if (list) list.push(e.name);
    else exports.set(e.index, [e.name]);
  }
  const functions = m.functions.map((f, i): FunctionSize => {
    const index = m.numImportedFuncs + i;
    const body = f.raw ?? new Uint8Array(0);
    const name = m.names?.functions.get(index);
    return { index, ...(name !== undefined ? { name } : {}), exports: exports.get(index) ?? [], size: u32Size(body.length) + body.length, body };
  });
  return { imported: m.numImportedFuncs, functions, named: (m.names?.functions.size ?? 0) > 0 };
}

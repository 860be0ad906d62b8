// Whose fault a failure is. Content the caller gave us is the input's fault
// only if the input was not validated; otherwise anything that goes wrong
// after reading is ours (InternalError, naming the pass where there is one).

import { WasmDecodeError, WasmValidationError } from "../binary/errors.js";
import { InternalError } from "../errors.js";

export function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export type Blame = (e: unknown, what: string, pass?: string) => never;

export function blamer(validated: boolean): Blame {
  return (e, what, pass) => {
    if (!validated && (e instanceof WasmDecodeError || e instanceof WasmValidationError)) throw e;
    if (e instanceof InternalError) throw e;
    throw new InternalError(`${what}: ${describe(e)}`, pass, { cause: e });
  };
}

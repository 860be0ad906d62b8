// Errors carry where they happened, so the CLI can print one clear line.

/** The bytes are not a well-formed WebAssembly binary (spec: "malformed"). */
export class WasmDecodeError extends Error {
  constructor(
    message: string,
    readonly offset: number,
    readonly section?: string,
  ) {
    super(`${message} at offset 0x${offset.toString(16)}${section ? ` in ${section} section` : ""}`);
    this.name = "WasmDecodeError";
  }
  /** The message without the location suffix (what the spec test suite compares). */
  get reason(): string {
    return this.message.replace(/ at offset 0x[0-9a-f]+( in \S+ section)?$/, "");
  }
}

/** The module is well-formed but does not type-check (spec: "invalid"). */
export class WasmValidationError extends Error {
  constructor(
    readonly reason: string,
    readonly offset: number,
    readonly funcIndex?: number,
    readonly funcName?: string,
  ) {
    const where =
      funcIndex === undefined
        ? ""
        : ` in function ${funcIndex}${funcName !== undefined ? ` (${funcName})` : ""}`;
    super(`${reason}${where} at offset 0x${offset.toString(16)}`);
    this.name = "WasmValidationError";
  }
}

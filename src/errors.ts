// Errors of the optimizer as a whole. Errors about the input module itself
// are WasmDecodeError / WasmValidationError (src/binary/errors.ts); these
// are the other two kinds: the caller asked for something that does not exist
// (a usage error), or the optimizer itself failed (an internal error).

/** A pass name in `options.passes` is not registered. */
export class UnknownPassError extends Error {
  constructor(
    readonly names: readonly string[],
    readonly known: readonly string[],
    detail?: string,
  ) {
    super(
      detail ??
        `unknown pass${names.length > 1 ? "es" : ""} ${names.map((n) => JSON.stringify(n)).join(", ")}; ` +
          `known passes: ${known.join(", ")} (or "none")`,
    );
    this.name = "UnknownPassError";
  }
}

/**
 * The optimizer failed on input that it had accepted: a pass threw, or the
 * module it produced does not validate. Never the input's fault; a bug to report.
 */
export class InternalError extends Error {
  constructor(
    message: string,
    /** The pass that was running, if any. */
    readonly pass?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "InternalError";
  }
}

/** An option given to `optimize` is not usable (e.g. a size target without the measure it needs). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

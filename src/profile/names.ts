// The names an instrumented module exposes to its host. Kept apart from
// instrument.ts so the profile hook, loaded into every workload process,
// imports no more than these.

/** `__wasm_compact_counter(i32 index) -> i64`: one counter's value (-1 out of range). */
export const COUNTER_EXPORT = "__wasm_compact_counter";
/** `__wasm_compact_counters() -> i32`: how many counters there are. */
export const COUNT_EXPORT = "__wasm_compact_counters";
/** The custom section holding the profile map (profile-map.ts). */
export const MAP_SECTION = "wasm-compact.profile-map";

// Prefix 0xfd: the final fixed-width SIMD spec (0x00..0xff) and relaxed SIMD (0x100..0x113).

import { op, Imm, Eff, Trap, type OpDef, type ImmKind, type Feature } from "./defs.js";

const { MemArg, Lane, V128, Shuffle } = Imm;
const { NONE, READ_MEM, WRITE_MEM } = Eff;

const LOAD = READ_MEM | Trap.MEMORY;
const STORE = WRITE_MEM | Trap.MEMORY;

const UN = "v128 -> v128";
const BIN = "v128 v128 -> v128";
const TERN = "v128 v128 v128 -> v128";
const TEST = "v128 -> i32";
const SHIFT = "v128 i32 -> v128";

export const SIMD_OPS: OpDef[] = [];

function row(code: number, name: string, imms: readonly ImmKind[], sig: string, effects: number = NONE, feature: Feature = "simd"): void {
  SIMD_OPS.push(op(0xfd, code, name, imms, sig, effects, feature));
}
/** Consecutive immediate-free ops from `start`, all with `sig`; "-" skips a reserved code. */
function run(start: number, sig: string, names: string, feature: Feature = "simd"): void {
  names.trim().split(/\s+/).forEach((n, i) => {
    if (n !== "-") row(start + i, n, [], sig, NONE, feature);
  });
}
const pre = (t: string, ops: string) => ops.trim().split(/\s+/).map((o) => (o === "-" ? o : `${t}.${o}`)).join(" ");

// memory 0x00..0x0b
row(0x00, "v128.load", [MemArg], "a -> v128", LOAD);
row(0x01, "v128.load8x8_s", [MemArg], "a -> v128", LOAD);
row(0x02, "v128.load8x8_u", [MemArg], "a -> v128", LOAD);
row(0x03, "v128.load16x4_s", [MemArg], "a -> v128", LOAD);
row(0x04, "v128.load16x4_u", [MemArg], "a -> v128", LOAD);
row(0x05, "v128.load32x2_s", [MemArg], "a -> v128", LOAD);
row(0x06, "v128.load32x2_u", [MemArg], "a -> v128", LOAD);
row(0x07, "v128.load8_splat", [MemArg], "a -> v128", LOAD);
row(0x08, "v128.load16_splat", [MemArg], "a -> v128", LOAD);
row(0x09, "v128.load32_splat", [MemArg], "a -> v128", LOAD);
row(0x0a, "v128.load64_splat", [MemArg], "a -> v128", LOAD);
row(0x0b, "v128.store", [MemArg], "a v128 ->", STORE);
row(0x0c, "v128.const", [V128], "-> v128");
row(0x0d, "i8x16.shuffle", [Shuffle], BIN);
row(0x0e, "i8x16.swizzle", [], BIN);
// splats 0x0f..0x14
row(0x0f, "i8x16.splat", [], "i32 -> v128");
row(0x10, "i16x8.splat", [], "i32 -> v128");
row(0x11, "i32x4.splat", [], "i32 -> v128");
row(0x12, "i64x2.splat", [], "i64 -> v128");
row(0x13, "f32x4.splat", [], "f32 -> v128");
row(0x14, "f64x2.splat", [], "f64 -> v128");
// lanes 0x15..0x22
row(0x15, "i8x16.extract_lane_s", [Lane], "v128 -> i32");
row(0x16, "i8x16.extract_lane_u", [Lane], "v128 -> i32");
row(0x17, "i8x16.replace_lane", [Lane], "v128 i32 -> v128");
row(0x18, "i16x8.extract_lane_s", [Lane], "v128 -> i32");
row(0x19, "i16x8.extract_lane_u", [Lane], "v128 -> i32");
row(0x1a, "i16x8.replace_lane", [Lane], "v128 i32 -> v128");
row(0x1b, "i32x4.extract_lane", [Lane], "v128 -> i32");
row(0x1c, "i32x4.replace_lane", [Lane], "v128 i32 -> v128");
row(0x1d, "i64x2.extract_lane", [Lane], "v128 -> i64");
row(0x1e, "i64x2.replace_lane", [Lane], "v128 i64 -> v128");
row(0x1f, "f32x4.extract_lane", [Lane], "v128 -> f32");
row(0x20, "f32x4.replace_lane", [Lane], "v128 f32 -> v128");
row(0x21, "f64x2.extract_lane", [Lane], "v128 -> f64");
row(0x22, "f64x2.replace_lane", [Lane], "v128 f64 -> v128");
// comparisons 0x23..0x4c
const ICMP = "eq ne lt_s lt_u gt_s gt_u le_s le_u ge_s ge_u";
const FCMP = "eq ne lt gt le ge";
run(0x23, BIN, pre("i8x16", ICMP));
run(0x2d, BIN, pre("i16x8", ICMP));
run(0x37, BIN, pre("i32x4", ICMP));
run(0x41, BIN, pre("f32x4", FCMP));
run(0x47, BIN, pre("f64x2", FCMP));
// bitwise 0x4d..0x53
row(0x4d, "v128.not", [], UN);
run(0x4e, BIN, "v128.and v128.andnot v128.or v128.xor");
row(0x52, "v128.bitselect", [], TERN);
row(0x53, "v128.any_true", [], TEST);
// lane loads/stores 0x54..0x5d
row(0x54, "v128.load8_lane", [MemArg, Lane], "a v128 -> v128", LOAD);
row(0x55, "v128.load16_lane", [MemArg, Lane], "a v128 -> v128", LOAD);
row(0x56, "v128.load32_lane", [MemArg, Lane], "a v128 -> v128", LOAD);
row(0x57, "v128.load64_lane", [MemArg, Lane], "a v128 -> v128", LOAD);
row(0x58, "v128.store8_lane", [MemArg, Lane], "a v128 ->", STORE);
row(0x59, "v128.store16_lane", [MemArg, Lane], "a v128 ->", STORE);
row(0x5a, "v128.store32_lane", [MemArg, Lane], "a v128 ->", STORE);
row(0x5b, "v128.store64_lane", [MemArg, Lane], "a v128 ->", STORE);
row(0x5c, "v128.load32_zero", [MemArg], "a -> v128", LOAD);
row(0x5d, "v128.load64_zero", [MemArg], "a -> v128", LOAD);
row(0x5e, "f32x4.demote_f64x2_zero", [], UN);
row(0x5f, "f64x2.promote_low_f32x4", [], UN);
// i8x16 0x60..0x7b (interleaved with some float rounding ops)
run(0x60, UN, "i8x16.abs i8x16.neg i8x16.popcnt");
run(0x63, TEST, "i8x16.all_true i8x16.bitmask");
run(0x65, BIN, "i8x16.narrow_i16x8_s i8x16.narrow_i16x8_u");
run(0x67, UN, "f32x4.ceil f32x4.floor f32x4.trunc f32x4.nearest");
run(0x6b, SHIFT, "i8x16.shl i8x16.shr_s i8x16.shr_u");
run(0x6e, BIN, pre("i8x16", "add add_sat_s add_sat_u sub sub_sat_s sub_sat_u"));
run(0x74, UN, "f64x2.ceil f64x2.floor");
run(0x76, BIN, pre("i8x16", "min_s min_u max_s max_u"));
row(0x7a, "f64x2.trunc", [], UN);
row(0x7b, "i8x16.avgr_u", [], BIN);
run(0x7c, UN, "i16x8.extadd_pairwise_i8x16_s i16x8.extadd_pairwise_i8x16_u i32x4.extadd_pairwise_i16x8_s i32x4.extadd_pairwise_i16x8_u");
// i16x8 0x80..0x9f
run(0x80, UN, "i16x8.abs i16x8.neg");
row(0x82, "i16x8.q15mulr_sat_s", [], BIN);
run(0x83, TEST, "i16x8.all_true i16x8.bitmask");
run(0x85, BIN, "i16x8.narrow_i32x4_s i16x8.narrow_i32x4_u");
run(0x87, UN, pre("i16x8", "extend_low_i8x16_s extend_high_i8x16_s extend_low_i8x16_u extend_high_i8x16_u"));
run(0x8b, SHIFT, "i16x8.shl i16x8.shr_s i16x8.shr_u");
run(0x8e, BIN, pre("i16x8", "add add_sat_s add_sat_u sub sub_sat_s sub_sat_u"));
row(0x94, "f64x2.nearest", [], UN);
run(0x95, BIN, pre("i16x8", "mul min_s min_u max_s max_u - avgr_u"));
run(0x9c, BIN, pre("i16x8", "extmul_low_i8x16_s extmul_high_i8x16_s extmul_low_i8x16_u extmul_high_i8x16_u"));
// i32x4 0xa0..0xbf
run(0xa0, UN, "i32x4.abs i32x4.neg");
run(0xa3, TEST, "i32x4.all_true i32x4.bitmask");
run(0xa7, UN, pre("i32x4", "extend_low_i16x8_s extend_high_i16x8_s extend_low_i16x8_u extend_high_i16x8_u"));
run(0xab, SHIFT, "i32x4.shl i32x4.shr_s i32x4.shr_u");
row(0xae, "i32x4.add", [], BIN);
row(0xb1, "i32x4.sub", [], BIN);
run(0xb5, BIN, pre("i32x4", "mul min_s min_u max_s max_u dot_i16x8_s"));
run(0xbc, BIN, pre("i32x4", "extmul_low_i16x8_s extmul_high_i16x8_s extmul_low_i16x8_u extmul_high_i16x8_u"));
// i64x2 0xc0..0xdf
run(0xc0, UN, "i64x2.abs i64x2.neg");
run(0xc3, TEST, "i64x2.all_true i64x2.bitmask");
run(0xc7, UN, pre("i64x2", "extend_low_i32x4_s extend_high_i32x4_s extend_low_i32x4_u extend_high_i32x4_u"));
run(0xcb, SHIFT, "i64x2.shl i64x2.shr_s i64x2.shr_u");
row(0xce, "i64x2.add", [], BIN);
row(0xd1, "i64x2.sub", [], BIN);
row(0xd5, "i64x2.mul", [], BIN);
run(0xd6, BIN, pre("i64x2", "eq ne lt_s gt_s le_s ge_s"));
run(0xdc, BIN, pre("i64x2", "extmul_low_i32x4_s extmul_high_i32x4_s extmul_low_i32x4_u extmul_high_i32x4_u"));
// f32x4 0xe0..0xeb, f64x2 0xec..0xf7
run(0xe0, UN, "f32x4.abs f32x4.neg - f32x4.sqrt");
run(0xe4, BIN, pre("f32x4", "add sub mul div min max pmin pmax"));
run(0xec, UN, "f64x2.abs f64x2.neg - f64x2.sqrt");
run(0xf0, BIN, pre("f64x2", "add sub mul div min max pmin pmax"));
// conversions 0xf8..0xff
run(0xf8, UN, "i32x4.trunc_sat_f32x4_s i32x4.trunc_sat_f32x4_u f32x4.convert_i32x4_s f32x4.convert_i32x4_u");
run(0xfc, UN, "i32x4.trunc_sat_f64x2_s_zero i32x4.trunc_sat_f64x2_u_zero f64x2.convert_low_i32x4_s f64x2.convert_low_i32x4_u");
// relaxed SIMD 0x100..0x113
row(0x100, "i8x16.relaxed_swizzle", [], BIN, NONE, "relaxed-simd");
run(0x101, UN, "i32x4.relaxed_trunc_f32x4_s i32x4.relaxed_trunc_f32x4_u i32x4.relaxed_trunc_f64x2_s_zero i32x4.relaxed_trunc_f64x2_u_zero", "relaxed-simd");
run(0x105, TERN, "f32x4.relaxed_madd f32x4.relaxed_nmadd f64x2.relaxed_madd f64x2.relaxed_nmadd", "relaxed-simd");
run(0x109, TERN, "i8x16.relaxed_laneselect i16x8.relaxed_laneselect i32x4.relaxed_laneselect i64x2.relaxed_laneselect", "relaxed-simd");
run(0x10d, BIN, "f32x4.relaxed_min f32x4.relaxed_max f64x2.relaxed_min f64x2.relaxed_max", "relaxed-simd");
run(0x111, BIN, "i16x8.relaxed_q15mulr_s i16x8.relaxed_dot_i8x16_i7x16_s", "relaxed-simd");
row(0x113, "i32x4.relaxed_dot_i8x16_i7x16_add_s", [], TERN, NONE, "relaxed-simd");

SIMD_OPS.sort((x, y) => x.code - y.code);

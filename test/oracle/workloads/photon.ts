// @silvia-odwyer/photon-node (Photon image processing, Rust via wasm-bindgen,
// with the image and imageproc crates): a generated 320x240 picture goes
// through 20 operations, each on a fresh copy: convolutions (blurs, sharpen,
// edge detection), colour-space work (hue and saturation in HSL, HSV and LCh),
// oil painting, resizing with five filters, rotation, cropping, flipping,
// blending and filters. Checked against small JavaScript implementations:
// invert, crop and horizontal flip must give exactly their pixels, grayscale
// the channel average, and blurs must keep the mean brightness (to within
// rounding) and leave the inside of a uniform picture as it was.
//
// The package's Node build reads photon_rs_bg.wasm from its own folder, so it
// runs from a copy of its glue in a temporary folder next to the module.

import { corpusEntry } from "../../corpus/corpus.js";
import { equalBytes, requireFrom, rng, sha256, withTempDir } from "../util.js";
import type { Output, RunContext, Workload } from "../workload.js";

interface PhotonImage {
  get_width(): number;
  get_height(): number;
  get_raw_pixels(): Uint8Array;
  free(): void;
}
type Op = (img: PhotonImage, ...args: number[]) => PhotonImage | undefined;
interface Photon {
  PhotonImage: new (pixels: Uint8Array, width: number, height: number) => PhotonImage;
  [name: string]: unknown;
}

const W = 320;
const H = 240;

function picture(): Uint8Array {
  const r = rng(99);
  const px = new Uint8Array(W * H * 4);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = (y * W + x) * 4;
      const ring = Math.hypot(x - 200, y - 100) % 40 < 12;
      px[i] = ring ? 250 : (x * 255) / W;
      px[i + 1] = (y * 255) / H;
      px[i + 2] = 128 + 90 * Math.sin(x / 17) * Math.cos(y / 23) + (r() - 0.5) * 20;
      px[i + 3] = 255;
    }
  }
  return px;
}

/** Mean of the RGB channels. */
function brightness(px: Uint8Array): number {
  let s = 0;
  for (let i = 0; i < px.length; i += 4) s += px[i]! + px[i + 1]! + px[i + 2]!;
  return s / ((px.length / 4) * 3);
}

/** Operations run on a fresh copy each: [name, function, arguments]. */
const OPS: readonly [string, string, number[]][] = [
  ["invert", "invert", []],
  ["grayscale", "grayscale", []],
  ["fliph", "fliph", []],
  ["crop", "crop", [40, 30, 200, 150]],
  ["gaussian_blur", "gaussian_blur", [4]],
  ["box_blur", "box_blur", []],
  ["sharpen", "sharpen", []],
  ["edge_detection", "edge_detection", []],
  ["sobel_global", "sobel_global", []],
  ["oil", "oil", [2, 30]],
  ["hue_rotate_hsl", "hue_rotate_hsl", [0.3]],
  ["saturate_hsv", "saturate_hsv", [0.2]],
  ["lighten_lch", "lighten_lch", [0.15]],
  ["adjust_contrast", "adjust_contrast", [30]],
  ["rotate", "rotate", [30]],
  ["dither", "dither", [2]],
  ["sepia", "sepia", []],
  ["pixelize", "pixelize", [8]],
];

function check(name: string, before: Uint8Array, after: PhotonImage, ctx: RunContext): void {
  const px = after.get_raw_pixels();
  const w = after.get_width();
  if (name === "invert") {
    ctx.check(px.every((v, i) => (i % 4 === 3 ? v === before[i] : v === 255 - before[i]!)), "invert: not 255 - v on every channel");
  } else if (name === "grayscale") {
    let worst = 0;
    for (let i = 0; i < px.length; i += 4) {
      const avg = (before[i]! + before[i + 1]! + before[i + 2]!) / 3;
      worst = Math.max(worst, Math.abs(px[i]! - avg), Math.abs(px[i + 1]! - px[i]!), Math.abs(px[i + 2]! - px[i]!));
    }
    ctx.check(worst <= 1, `grayscale: a pixel is ${worst} away from its channel average`);
  } else if (name === "fliph") {
    const want = new Uint8Array(before.length);
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) want.set(before.subarray((y * W + x) * 4, (y * W + x) * 4 + 4), (y * W + (W - 1 - x)) * 4);
    ctx.check(equalBytes(px, want), "fliph: not the mirror image");
  } else if (name === "crop") {
    const want: number[] = [];
    for (let y = 30; y < 150; y++) want.push(...before.subarray((y * W + 40) * 4, (y * W + 200) * 4));
    ctx.check(w === 160 && after.get_height() === 120 && equalBytes(px, new Uint8Array(want)), `crop: ${w}x${after.get_height()} or wrong pixels`);
  } else if (name === "gaussian_blur" || name === "box_blur") {
    // Photon rounds down in each pass: the mean drops by about 2.
    const d = Math.abs(brightness(px) - brightness(before));
    ctx.check(d < 3, `${name}: mean brightness moved by ${d.toFixed(2)}`);
  }
}

function exercise(P: Photon, ctx: RunContext): Output {
  const original = picture();
  const out: Record<string, Output> = {};
  for (const [name, fn, args] of OPS) {
    const img = new P.PhotonImage(original.slice(), W, H);
    const result = (P[fn] as Op)(img, ...args) ?? img;
    check(name, original, result, ctx);
    out[name] = [result.get_width(), result.get_height(), sha256(result.get_raw_pixels())];
    if (result !== img) result.free();
    img.free();
  }
  for (const fn of ["gaussian_blur", "box_blur"]) {
    const img = new P.PhotonImage(new Uint8Array(W * H * 4).fill(173), W, H);
    (P[fn] as Op)(img, 3);
    // box_blur leaves the 1-pixel border black: only the inside must stay.
    const px = img.get_raw_pixels();
    const inside = px.every((v, i) => v === 173 || (i >> 2) % W === 0 || (i >> 2) % W === W - 1 || (i >> 2) < W || (i >> 2) >= W * (H - 1));
    ctx.check(inside, `${fn}: a uniform picture changed inside`);
    img.free();
  }
  // Resizing with every sampling filter, down and up.
  const filters = P.SamplingFilter as Record<string, number>;
  const resized: Output[] = [];
  for (const f of ["Nearest", "Triangle", "CatmullRom", "Gaussian", "Lanczos3"]) {
    for (const [w, h] of [[160, 120], [400, 300]] as const) {
      const img = new P.PhotonImage(original.slice(), W, H);
      const r = (P.resize as Op)(img, w, h, filters[f]!)!;
      ctx.check(r.get_width() === w && r.get_height() === h, `resize ${f}: ${r.get_width()}x${r.get_height()}, not ${w}x${h}`);
      resized.push(`${f} ${w}x${h} ${sha256(r.get_raw_pixels())}`);
      r.free();
      img.free();
    }
  }
  out.resize = resized;
  // Blending two images and a seam-carved narrowing.
  const a = new P.PhotonImage(original.slice(), W, H);
  const b = new P.PhotonImage(original.slice().reverse(), W, H);
  (P.blend as (x: PhotonImage, y: PhotonImage, mode: string) => void)(a, b, "overlay");
  out.blend = sha256(a.get_raw_pixels());
  const carved = (P.seam_carve as Op)(a, W - 12, H)!;
  out.seamCarve = [carved.get_width(), sha256(carved.get_raw_pixels())];
  return out;
}

export const workload: Workload = {
  name: "photon",
  size: "small",
  description: "Photon: 18 image operations (blurs, edges, oil, HSL/LCh, rotate, dither), 10 resizes, blend, seam carving on 320x240",
  wasm: () => [{ name: "photon", bytes: corpusEntry("photon").bytes() }],
  async run(wasm, ctx) {
    return withTempDir("photon", async (dir) => {
      dir.write("package.json", JSON.stringify({ type: "commonjs" }));
      dir.copyFromPackage("@silvia-odwyer/photon-node", "photon_rs.js");
      dir.write("photon_rs_bg.wasm", wasm[0]!);
      return exercise(requireFrom<Photon>(dir.file("photon_rs.js")), ctx);
    });
  },
};

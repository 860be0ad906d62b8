// @jsquash/jpeg (MozJPEG, C compiled with Emscripten, from Squoosh; an encoder
// and a decoder module): a generated photo-like image (gradients, shapes, fine
// texture and noise) is encoded at qualities 10..100, baseline and
// progressive, with and without trellis quantization, chroma subsampling and
// grayscale; every JPEG is decoded again. Checked against an invariant: the
// decoded image has the original's size and its PSNR against the original
// grows with the quality and stays above a floor for each.
//
// Both modules go in through the package's own `init(WebAssembly.Module)`.

import { corpusEntry, packageDir } from "../../corpus/corpus.js";
import { importFresh, rng, sha256 } from "../util.js";
import type { Output, RunContext, Workload } from "../workload.js";

interface Image {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}
interface Encoder {
  init(module: WebAssembly.Module): Promise<void>;
  default(image: Image, options?: Record<string, number | boolean>): Promise<ArrayBuffer>;
}
interface Decoder {
  init(module: WebAssembly.Module): Promise<void>;
  default(jpeg: ArrayBuffer): Promise<Image>;
}

/** A deterministic RGBA test picture. */
function picture(w: number, h: number): Image {
  const r = rng(77);
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      const inDisc = (x - w * 0.3) ** 2 + (y - h * 0.4) ** 2 < (h * 0.25) ** 2;
      const stripes = (x >> 3) % 2 === 0 && y > h * 0.7;
      const texture = 20 * Math.sin(x * 0.9) * Math.cos(y * 0.7);
      const noise = (r() - 0.5) * 16;
      data[i] = inDisc ? 230 : stripes ? 30 : (255 * x) / w + texture + noise;
      data[i + 1] = inDisc ? 60 + y / 4 : stripes ? 200 : (255 * y) / h + noise;
      data[i + 2] = inDisc ? 40 : 128 + 100 * Math.sin((x + y) / 40) + noise;
      data[i + 3] = 255;
    }
  }
  return { data, width: w, height: h };
}

/** PSNR of the RGB channels, in dB. */
function psnr(a: Uint8ClampedArray, b: Uint8ClampedArray, gray: boolean): number {
  let se = 0;
  let n = 0;
  for (let i = 0; i < a.length; i += 4) {
    // Against a grayscale result, compare with the original's luma (BT.601, as JPEG's YCbCr).
    const ref = gray ? [0.299 * a[i]! + 0.587 * a[i + 1]! + 0.114 * a[i + 2]!] : [a[i]!, a[i + 1]!, a[i + 2]!];
    ref.forEach((v, k) => {
      se += (v - b[i + k]!) ** 2;
      n++;
    });
  }
  return 10 * Math.log10((255 * 255) / (se / n));
}

interface Setting {
  quality: number;
  options: Record<string, number | boolean>;
  /** PSNR the decoded picture must reach. */
  floor: number;
}

const SETTINGS: readonly Setting[] = [
  { quality: 10, options: {}, floor: 24 },
  { quality: 30, options: {}, floor: 26 },
  { quality: 50, options: { progressive: false, baseline: true }, floor: 27 },
  { quality: 75, options: {}, floor: 28 },
  { quality: 75, options: { trellis_multipass: true, trellis_opt_zero: true, trellis_opt_table: true, trellis_loops: 2 }, floor: 28 },
  { quality: 75, options: { auto_subsample: false, chroma_subsample: 1 }, floor: 32 },
  { quality: 85, options: { optimize_coding: false, progressive: false }, floor: 30 },
  { quality: 90, options: { smoothing: 30 }, floor: 33 },
  { quality: 95, options: { quant_table: 0 }, floor: 38 },
  { quality: 100, options: { auto_subsample: false, chroma_subsample: 1 }, floor: 48 },
  { quality: 80, options: { color_space: 1 }, floor: 35 }, // grayscale
];

async function exercise(enc: Encoder, dec: Decoder, ctx: RunContext): Promise<Output> {
  const img = picture(384, 256);
  const out: Output[] = [];
  let prev = { quality: 0, psnr: 0 };
  for (const s of SETTINGS) {
    const jpeg = await enc.default(img, { quality: s.quality, ...s.options });
    const back = await dec.default(jpeg);
    const gray = s.options.color_space === 1;
    const p = psnr(img.data, back.data, gray);
    const what = `quality ${s.quality} ${JSON.stringify(s.options)}`;
    ctx.check(back.width === img.width && back.height === img.height, `${what}: decoded to ${back.width}x${back.height}`);
    ctx.check(p >= s.floor, `${what}: PSNR ${p.toFixed(2)} dB, expected at least ${s.floor}`);
    // Plain settings only: more quality, no worse picture.
    if (Object.keys(s.options).length === 0) {
      ctx.check(s.quality <= prev.quality || p > prev.psnr, `${what}: PSNR ${p.toFixed(2)} not above quality ${prev.quality}'s ${prev.psnr.toFixed(2)}`);
      prev = { quality: s.quality, psnr: p };
    }
    out.push({ quality: s.quality, size: jpeg.byteLength, jpeg: sha256(new Uint8Array(jpeg)), decoded: sha256(new Uint8Array(back.data.buffer)), psnr: Math.round(p * 1000) / 1000 });
  }
  // Input that is not a whole JPEG.
  const good = new Uint8Array(await enc.default(img, { quality: 60 }));
  const errors: Output[] = [];
  for (const bad of [good.slice(0, 600), new Uint8Array(100)]) {
    try {
      const r = await dec.default(bad.buffer);
      errors.push(sha256(new Uint8Array(r.data.buffer)));
    } catch (e) {
      errors.push(`error: ${(e as Error).message}`);
    }
  }
  return { encoded: out, errors };
}

export const workload: Workload = {
  name: "jsquash-jpeg",
  size: "small",
  description: "MozJPEG: encode a 384x256 picture at 11 settings (quality, progressive, trellis, subsampling, gray), decode, PSNR floors",
  wasm: () => ["mozjpeg-enc", "mozjpeg-dec"].map((name) => ({ name, bytes: corpusEntry(name).bytes() })),
  async run(wasm, ctx) {
    const dir = packageDir("@jsquash/jpeg");
    // Fresh instances of the package's entry modules (each keeps its Emscripten module).
    const enc = await importFresh<Encoder>(`${dir}/encode.js`);
    const dec = await importFresh<Decoder>(`${dir}/decode.js`);
    await enc.init(new WebAssembly.Module(wasm[0]! as Uint8Array<ArrayBuffer>));
    await dec.init(new WebAssembly.Module(wasm[1]! as Uint8Array<ArrayBuffer>));
    return exercise(enc, dec, ctx);
  },
};

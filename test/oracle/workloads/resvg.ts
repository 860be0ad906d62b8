// @resvg/resvg-wasm (resvg, an SVG renderer in Rust: usvg's parser and tree,
// tiny-skia's rasterizer, its filters, rustybuzz text shaping; wasm-bindgen):
// made-up scenes (sources/svg-source.ts: paths, gradients, patterns, clip paths,
// masks, markers, filter chains, transforms, text, embedded PNG images)
// rendered at several sizes and zoom levels, the real SVG logos that
// playwright-core ships, bounding boxes, and malformed documents. Checked
// without resvg: a document that only fills its canvas with one opaque colour
// gives exactly that colour in every pixel, an axis-aligned rectangle on
// whole pixels with crisp edges covers exactly its pixels, a circle's
// bounding box is its centre plus and minus its radius, and every PNG the
// module writes has PNG's signature and the image's width and height.
//
// The module goes in through the package's own `initWasm(bytes)`, on a copy
// of its CommonJS glue in a temporary folder (the glue keeps its instance).

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { corpusEntry, packageDir } from "../../corpus/corpus.js";
import { attempt, requireFrom, sha256, withTempDir } from "../util.js";
import type { Output, RunContext, Workload } from "../workload.js";
import { svgScene } from "../sources/svg-source.js";

interface Rendered {
  readonly width: number;
  readonly height: number;
  readonly pixels: Uint8Array;
  asPng(): Uint8Array;
  free(): void;
}
interface BBox {
  x: number;
  y: number;
  width: number;
  height: number;
  free(): void;
}
interface RenderOptions {
  font?: { fontBuffers: Uint8Array[]; defaultFontFamily?: string; loadSystemFonts?: boolean };
  fitTo?: { mode: "original" } | { mode: "width" | "height" | "zoom"; value: number };
  background?: string;
  shapeRendering?: 0 | 1 | 2;
}
interface Resvg {
  render(): Rendered;
  getBBox(): BBox | undefined;
  innerBBox(): BBox | undefined;
  readonly width: number;
  readonly height: number;
  free(): void;
}
interface Api {
  initWasm(input: Uint8Array): Promise<void>;
  Resvg: new (svg: string | Uint8Array, options?: RenderOptions) => Resvg;
}

/** The icon font playwright-core ships (codicon*.ttf, its glyphs in the private use area from U+EA60), wherever a version puts it. */
const FONT = /^codicon.*\.ttf$/;
const GLYPHS = "\uea60\uea61\uea62\uea70\ueb00\ueb10";
const SCENES = 10;

/** playwright-core's files whose names match `re`, sorted by path. */
function packageFiles(re: RegExp): { name: string; path: string }[] {
  const root = packageDir("playwright-core");
  const out: { name: string; path: string }[] = [];
  const walk = (dir: string): void => {
    for (const n of readdirSync(dir).sort()) {
      const p = join(dir, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (re.test(n)) out.push({ name: p.slice(root.length + 1), path: p });
    }
  };
  walk(root);
  return out;
}

/** playwright-core's own SVG files (real-world documents: logos with gradients and masks). */
function realSvgs(): { name: string; text: string }[] {
  return packageFiles(/\.svg$/).map((f) => ({ name: f.name, text: readFileSync(f.path, "utf8") }));
}

function pngSize(png: Uint8Array): { ok: boolean; width: number; height: number } {
  const sig = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  const ok = png.length > 24 && sig.every((b, i) => png[i] === b) && String.fromCharCode(...png.subarray(12, 16)) === "IHDR";
  const v = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { ok, width: ok ? v.getUint32(16) : 0, height: ok ? v.getUint32(20) : 0 };
}

function bboxOut(b: BBox | undefined): Output {
  if (!b) return null;
  const r = [b.x, b.y, b.width, b.height].map((v) => Math.round(v * 1000) / 1000);
  b.free();
  return r;
}

function render(api: Api, svg: string, options: RenderOptions, ctx: RunContext, what: string): { out: Output; png: Uint8Array; pixels: Uint8Array } {
  const doc = new api.Resvg(svg, options);
  const img = doc.render();
  const pixels = img.pixels;
  const png = img.asPng();
  const p = pngSize(png);
  ctx.check(p.ok && p.width === img.width && p.height === img.height, `${what}: the PNG's header does not say ${img.width}x${img.height}`);
  ctx.check(pixels.length === img.width * img.height * 4, `${what}: ${pixels.length} bytes of pixels for ${img.width}x${img.height}`);
  const out = { size: [img.width, img.height], pixels: sha256(pixels), png: `${png.length} ${sha256(png)}`, bbox: bboxOut(doc.getBBox()) };
  img.free();
  doc.free();
  return { out, png, pixels };
}

async function exercise(api: Api, wasm: Uint8Array, ctx: RunContext): Promise<Output> {
  await api.initWasm(wasm);
  const fontFile = packageFiles(FONT)[0];
  if (!fontFile) throw new Error("playwright-core ships no codicon*.ttf: the text scenes need a font");
  const font = new Uint8Array(readFileSync(fontFile.path));
  const fonts = { fontBuffers: [font], defaultFontFamily: "codicon", loadSystemFonts: false };
  const out: Record<string, Output> = {};

  // made-up scenes; a later one embeds the PNG of an earlier one
  const scenes: Output[] = [];
  let last: Uint8Array | undefined;
  for (let k = 0; k < SCENES; k++) {
    const svg = svgScene(500 + k, { width: 160 + 20 * (k % 4), height: 120, shapes: 24 + 3 * k, font: "codicon", text: GLYPHS, ...(last ? { png: last } : {}) });
    const fitTo = k % 3 === 0 ? { mode: "zoom" as const, value: 1.5 } : k % 3 === 1 ? { mode: "width" as const, value: 250 } : { mode: "original" as const };
    const r = render(api, svg, { font: fonts, fitTo, ...(k % 4 === 2 ? { background: "rgba(240, 240, 255, 0.5)" } : {}) }, ctx, `scene ${k}`);
    scenes.push(r.out);
    if (k % 5 === 0) last = r.png;
  }
  out.scenes = scenes;

  // text alone: the font's glyphs must put ink on the canvas
  const text = render(api, `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="60"><text x="10" y="40" font-family="codicon" font-size="32">${GLYPHS}</text></svg>`, { font: fonts }, ctx, "text");
  ctx.check(text.pixels.some((v, i) => i % 4 === 3 && v > 0), "text in the given font drew nothing");
  out.text = text.out;

  // real documents
  out.real = realSvgs().map((s) => ({ name: s.name, render: attempt(() => render(api, s.text, { fitTo: { mode: "width", value: 256 } }, ctx, s.name).out) }));

  // exact pixels: a canvas filled with one opaque colour
  const fill = render(api, `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="48"><rect width="64" height="48" fill="#3a7bd5"/></svg>`, {}, ctx, "fill");
  let allFill = true;
  for (let i = 0; i < fill.pixels.length; i += 4) allFill &&= fill.pixels[i] === 0x3a && fill.pixels[i + 1] === 0x7b && fill.pixels[i + 2] === 0xd5 && fill.pixels[i + 3] === 255;
  ctx.check(allFill, "a canvas filled with #3a7bd5 has other pixels");
  out.fill = fill.out;

  // exact coverage: a rectangle on whole pixels with crisp edges
  const rect = render(api, `<svg xmlns="http://www.w3.org/2000/svg" width="50" height="40"><rect x="7" y="5" width="23" height="17" fill="black" shape-rendering="crispEdges"/></svg>`, {}, ctx, "rect");
  let inside = 0;
  let wrong = 0;
  for (let y = 0; y < 40; y++) {
    for (let x = 0; x < 50; x++) {
      const a = rect.pixels[(y * 50 + x) * 4 + 3]!;
      const want = x >= 7 && x < 30 && y >= 5 && y < 22 ? 255 : 0;
      if (a !== want) wrong++;
      if (a === 255) inside++;
    }
  }
  ctx.check(wrong === 0 && inside === 23 * 17, `the 23x17 rectangle covers ${inside} pixels, ${wrong} wrong`);
  out.rect = rect.out;

  // bounding boxes
  const boxes: Output[] = [];
  for (const [cx, cy, r] of [[50, 50, 20], [10.5, 80.25, 7.75], [0, 0, 100]] as const) {
    const doc = new api.Resvg(`<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200"><circle cx="${cx}" cy="${cy}" r="${r}"/></svg>`);
    const b = doc.getBBox();
    const got = b ? [b.x, b.y, b.width, b.height] : [];
    b?.free();
    doc.free();
    const want = [cx - r, cy - r, 2 * r, 2 * r];
    ctx.check(got.length === 4 && got.every((v, i) => Math.abs(v - want[i]!) < 1e-3), `circle (${cx}, ${cy}, ${r}): bounding box ${JSON.stringify(got)}`);
    boxes.push(got.map((v) => Math.round(v * 1000) / 1000));
  }
  out.boxes = boxes;

  // malformed documents: the module's own errors
  out.errors = ["", "<svg", "<html></html>", `<svg xmlns="http://www.w3.org/2000/svg" width="0" height="10"/>`, `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5" height="5" fill="url(#missing)"/></svg>`].map((svg) =>
    attempt(() => {
      const doc = new api.Resvg(svg);
      const img = doc.render();
      const r = `${img.width}x${img.height} ${sha256(img.pixels)}`;
      img.free();
      doc.free();
      return r;
    }),
  );
  return out;
}

export const workload: Workload = {
  name: "resvg",
  size: "small",
  description: "resvg's SVG renderer: 10 made-up scenes (gradients, filters, masks, text, images), real logos, exact-pixel and bounding-box checks, malformed input",
  wasm: () => [{ name: "resvg", bytes: corpusEntry("resvg").bytes() }],
  async run(wasm, ctx) {
    return withTempDir("resvg", async (dir) => {
      dir.copyFromPackage("@resvg/resvg-wasm", "index.js");
      dir.write("package.json", JSON.stringify({ type: "commonjs" }));
      return exercise(requireFrom<Api>(dir.file("index.js")), wasm[0]!, ctx);
    });
  },
};

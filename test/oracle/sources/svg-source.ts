// SVG documents for the resvg workload (workloads/resvg.ts), made up from a seed: nested
// groups of rectangles, circles, ellipses, lines, polylines and paths (every
// path command, absolute and relative, arcs included) with solid colours in
// every CSS notation, linear and radial gradients (each spread method and
// unit system), patterns, clip paths, masks, markers, filter chains
// (blur, offset, colour matrix, flood and composite, morphology, turbulence,
// drop shadow, blend, component transfer, convolution; no lighting, on
// which resvg 2.6.2 panics in some scenes), strokes
// with caps, joins, miter limits and dashes, transforms, opacity, `use`
// references, a style sheet, and text in a given font family.

import { rng } from "../util.js";

export interface SceneOptions {
  width: number;
  height: number;
  shapes: number;
  /** Font family for text elements (none when undefined). */
  font?: string;
  /** Text to draw in that font. */
  text?: string;
  /** A PNG to embed as an image (data URI). */
  png?: Uint8Array;
}

class Scene {
  private readonly r: () => number;
  private readonly defs: string[] = [];
  private ids = 0;

  constructor(
    seed: number,
    private readonly o: SceneOptions,
  ) {
    this.r = rng(seed);
  }

  private pick<T>(a: readonly T[]): T {
    return a[Math.floor(this.r() * a.length)]!;
  }
  private chance(p: number): boolean {
    return this.r() < p;
  }
  private num(lo: number, hi: number): string {
    return (lo + this.r() * (hi - lo)).toFixed(this.chance(0.5) ? 0 : 2);
  }
  private x(): string {
    return this.num(-10, this.o.width + 10);
  }
  private y(): string {
    return this.num(-10, this.o.height + 10);
  }

  private colour(): string {
    const c = (): number => Math.floor(this.r() * 256);
    return this.pick([
      () => this.pick(["red", "teal", "goldenrod", "navy", "orchid", "black", "white", "transparent", "currentColor"]),
      () => `#${c().toString(16).padStart(2, "0")}${c().toString(16).padStart(2, "0")}${c().toString(16).padStart(2, "0")}`,
      () => `#${(c() & 15).toString(16)}${(c() & 15).toString(16)}${(c() & 15).toString(16)}`,
      () => `rgb(${c()}, ${c()}, ${c()})`,
      () => `rgba(${c()},${c()},${c()},${this.num(0, 1)})`,
      () => `hsl(${c()}, ${this.num(0, 100)}%, ${this.num(0, 100)}%)`,
    ])();
  }

  private id(kind: string): string {
    return `${kind}${this.ids++}`;
  }

  private gradient(): string {
    const id = this.id("g");
    const n = 2 + Math.floor(this.r() * 4);
    const stops = Array.from({ length: n }, (_, i) => `<stop offset="${(i / (n - 1)).toFixed(2)}" stop-color="${this.colour()}"${this.chance(0.3) ? ` stop-opacity="${this.num(0, 1)}"` : ""}/>`).join("");
    const spread = this.pick(["pad", "reflect", "repeat"]);
    const user = this.chance(0.3);
    const units = user ? ` gradientUnits="userSpaceOnUse"` : "";
    const tr = this.chance(0.3) ? ` gradientTransform="rotate(${this.num(0, 90)})"` : "";
    if (this.chance(0.5)) {
      const pts = user ? `x1="${this.x()}" y1="${this.y()}" x2="${this.x()}" y2="${this.y()}"` : `x1="${this.num(0, 0.5)}" y1="0" x2="${this.num(0.5, 1)}" y2="${this.num(0, 1)}"`;
      this.defs.push(`<linearGradient id="${id}" ${pts} spreadMethod="${spread}"${units}${tr}>${stops}</linearGradient>`);
    } else {
      const pts = user ? `cx="${this.x()}" cy="${this.y()}" r="${this.num(5, 80)}" fx="${this.x()}" fy="${this.y()}"` : `cx="0.5" cy="0.5" r="${this.num(0.2, 0.7)}" fx="${this.num(0.3, 0.6)}" fy="${this.num(0.3, 0.6)}"`;
      this.defs.push(`<radialGradient id="${id}" ${pts} spreadMethod="${spread}"${units}${tr}>${stops}</radialGradient>`);
    }
    return `url(#${id})`;
  }

  private pattern(): string {
    const id = this.id("p");
    const s = this.num(6, 24);
    this.defs.push(`<pattern id="${id}" width="${s}" height="${s}" patternUnits="userSpaceOnUse"${this.chance(0.5) ? ` patternTransform="rotate(${this.num(0, 45)})"` : ""}><rect width="${s}" height="${s}" fill="${this.colour()}"/><circle cx="${Number(s) / 2}" cy="${Number(s) / 2}" r="${Number(s) / 4}" fill="${this.colour()}"/></pattern>`);
    return `url(#${id})`;
  }

  private paint(): string {
    const x = this.r();
    return x < 0.55 ? this.colour() : x < 0.85 ? this.gradient() : x < 0.95 ? this.pattern() : "none";
  }

  private filter(): string {
    const id = this.id("f");
    const prims = [
      () => `<feGaussianBlur stdDeviation="${this.num(0.5, 6)}"/>`,
      () => `<feOffset dx="${this.num(-8, 8)}" dy="${this.num(-8, 8)}"/>`,
      () => `<feColorMatrix type="${this.pick(["saturate", "hueRotate"])}" values="${this.num(0, 1)}"/>`,
      () => `<feColorMatrix type="luminanceToAlpha"/>`,
      () => `<feFlood flood-color="${this.colour()}" flood-opacity="${this.num(0, 1)}" result="fl"/><feComposite in="fl" in2="SourceAlpha" operator="${this.pick(["in", "out", "atop", "xor"])}"/>`,
      () => `<feMorphology operator="${this.pick(["erode", "dilate"])}" radius="${this.num(1, 3)}"/>`,
      () => `<feTurbulence type="${this.pick(["turbulence", "fractalNoise"])}" baseFrequency="${this.num(0.01, 0.1)}" numOctaves="${1 + Math.floor(this.r() * 3)}" seed="${Math.floor(this.r() * 100)}"/><feComposite in2="SourceGraphic" operator="in"/>`,
      () => `<feDropShadow dx="${this.num(-5, 5)}" dy="${this.num(-5, 5)}" stdDeviation="${this.num(0, 4)}" flood-color="${this.colour()}"/>`,
      () => `<feBlend in="SourceGraphic" in2="BackgroundImage" mode="${this.pick(["multiply", "screen", "darken", "lighten", "difference"])}"/>`,
      () => `<feComponentTransfer><feFuncR type="gamma" amplitude="${this.num(0.5, 2)}" exponent="${this.num(0.5, 2)}"/><feFuncG type="table" tableValues="0 ${this.num(0, 1)} 1"/><feFuncB type="discrete" tableValues="0 0.5 1"/></feComponentTransfer>`,
      () => `<feConvolveMatrix order="3" kernelMatrix="${this.pick(["0 -1 0 -1 5 -1 0 -1 0", "1 1 1 1 -8 1 1 1 1", "1 2 1 2 4 2 1 2 1"])}"/>`,
    ];
    const chain = Array.from({ length: 1 + Math.floor(this.r() * 3) }, () => this.pick(prims)()).join("");
    this.defs.push(`<filter id="${id}" x="-20%" y="-20%" width="140%" height="140%">${chain}</filter>`);
    return id;
  }

  private path(): string {
    const parts = [`M${this.x()} ${this.y()}`];
    const n = 3 + Math.floor(this.r() * 8);
    for (let i = 0; i < n; i++) {
      const rel = this.chance(0.4);
      const d = (): string => this.num(-40, 40);
      const p = (): string => (rel ? `${d()} ${d()}` : `${this.x()} ${this.y()}`);
      parts.push(
        this.pick([
          () => `${rel ? "l" : "L"}${p()}`,
          () => `${rel ? "h" : "H"}${rel ? d() : this.x()}`,
          () => `${rel ? "v" : "V"}${rel ? d() : this.y()}`,
          () => `${rel ? "c" : "C"}${p()} ${p()} ${p()}`,
          () => `${rel ? "s" : "S"}${p()} ${p()}`,
          () => `${rel ? "q" : "Q"}${p()} ${p()}`,
          () => `${rel ? "t" : "T"}${p()}`,
          () => `${rel ? "a" : "A"}${this.num(5, 50)} ${this.num(5, 50)} ${this.num(0, 90)} ${this.chance(0.5) ? 1 : 0} ${this.chance(0.5) ? 1 : 0} ${p()}`,
          () => `${rel ? "z" : "Z"}M${this.x()},${this.y()}`,
        ])(),
      );
    }
    if (this.chance(0.5)) parts.push("Z");
    return `<path d="${parts.join(this.pick([" ", ""]))}"`;
  }

  private stroke(): string {
    if (this.chance(0.4)) return "";
    let s = ` stroke="${this.paint()}" stroke-width="${this.num(0.5, 9)}"`;
    if (this.chance(0.4)) s += ` stroke-linecap="${this.pick(["butt", "round", "square"])}" stroke-linejoin="${this.pick(["miter", "round", "bevel"])}" stroke-miterlimit="${this.num(1, 8)}"`;
    if (this.chance(0.3)) s += ` stroke-dasharray="${this.num(1, 10)} ${this.num(1, 6)}${this.chance(0.5) ? ` ${this.num(1, 4)}` : ""}" stroke-dashoffset="${this.num(0, 5)}"`;
    if (this.chance(0.2)) s += ` stroke-opacity="${this.num(0.2, 1)}"`;
    return s;
  }

  private transform(): string {
    if (this.chance(0.6)) return "";
    return ` transform="${this.pick([
      () => `translate(${this.num(-20, 20)} ${this.num(-20, 20)})`,
      () => `rotate(${this.num(-180, 180)} ${this.x()} ${this.y()})`,
      () => `scale(${this.num(0.5, 1.5)})`,
      () => `skewX(${this.num(-30, 30)})`,
      () => `matrix(${this.num(0.7, 1.2)} ${this.num(-0.3, 0.3)} ${this.num(-0.3, 0.3)} ${this.num(0.7, 1.2)} ${this.num(-10, 10)} ${this.num(-10, 10)})`,
    ])()}"`;
  }

  private shape(): string {
    const fill = ` fill="${this.paint()}"${this.chance(0.2) ? ` fill-rule="evenodd"` : ""}${this.chance(0.2) ? ` fill-opacity="${this.num(0.2, 1)}"` : ""}`;
    const extra = `${this.stroke()}${this.transform()}${this.chance(0.1) ? ` filter="url(#${this.filter()})"` : ""}`;
    const body = this.pick([
      () => `<rect x="${this.x()}" y="${this.y()}" width="${this.num(4, 120)}" height="${this.num(4, 90)}"${this.chance(0.4) ? ` rx="${this.num(0, 20)}"` : ""}`,
      () => `<circle cx="${this.x()}" cy="${this.y()}" r="${this.num(2, 60)}"`,
      () => `<ellipse cx="${this.x()}" cy="${this.y()}" rx="${this.num(2, 70)}" ry="${this.num(2, 40)}"`,
      () => `<line x1="${this.x()}" y1="${this.y()}" x2="${this.x()}" y2="${this.y()}"`,
      () => `<polyline points="${Array.from({ length: 4 }, () => `${this.x()},${this.y()}`).join(" ")}"`,
      () => `<polygon points="${Array.from({ length: 3 + Math.floor(this.r() * 5) }, () => `${this.x()},${this.y()}`).join(" ")}"`,
      () => this.path(),
      () => this.path(),
    ])();
    const cls = this.chance(0.1) ? ` class="${this.pick(["a", "b"])}"` : "";
    return `${body}${fill}${extra}${cls}/>`;
  }

  private group(depth: number, n: number): string {
    const items: string[] = [];
    for (let i = 0; i < n; i++) {
      const x = this.r();
      if (x < 0.12 && depth < 3) {
        let attrs = this.transform();
        if (this.chance(0.3)) attrs += ` opacity="${this.num(0.3, 1)}"`;
        if (this.chance(0.2)) {
          const id = this.id("c");
          this.defs.push(`<clipPath id="${id}"${this.chance(0.3) ? ` clipPathUnits="objectBoundingBox"` : ""}>${this.shape()}</clipPath>`);
          attrs += ` clip-path="url(#${id})"`;
        }
        if (this.chance(0.15)) {
          const id = this.id("m");
          this.defs.push(`<mask id="${id}"><rect x="0" y="0" width="${this.o.width}" height="${this.o.height}" fill="${this.gradient()}"/></mask>`);
          attrs += ` mask="url(#${id})"`;
        }
        if (this.chance(0.1)) attrs += ` filter="url(#${this.filter()})"`;
        items.push(`<g${attrs}>${this.group(depth + 1, 2 + Math.floor(this.r() * 4))}</g>`);
      } else if (x < 0.16 && items.length > 0) {
        const id = this.id("u");
        items.push(`<g id="${id}">${this.shape()}</g><use href="#${id}" x="${this.num(-30, 30)}" y="${this.num(-30, 30)}"/>`);
      } else if (x < 0.19) {
        const id = this.id("k");
        this.defs.push(`<marker id="${id}" markerWidth="8" markerHeight="8" refX="4" refY="4" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="${this.colour()}"/></marker>`);
        items.push(`<polyline points="${Array.from({ length: 4 }, () => `${this.x()},${this.y()}`).join(" ")}" fill="none" stroke="${this.colour()}" stroke-width="2" marker-start="url(#${id})" marker-mid="url(#${id})" marker-end="url(#${id})"/>`);
      } else if (x < 0.22 && this.o.font && this.o.text) {
        items.push(`<text x="${this.x()}" y="${this.y()}" font-family="${this.o.font}" font-size="${this.num(8, 40)}" fill="${this.paint()}"${this.chance(0.3) ? ` text-anchor="${this.pick(["middle", "end"])}"` : ""}${this.chance(0.3) ? ` letter-spacing="${this.num(0, 6)}"` : ""}${this.transform()}>${this.o.text}<tspan dy="${this.num(-10, 10)}" fill="${this.colour()}">${this.o.text}</tspan></text>`);
      } else if (x < 0.24 && this.o.png) {
        items.push(`<image x="${this.x()}" y="${this.y()}" width="${this.num(20, 120)}" height="${this.num(20, 90)}" preserveAspectRatio="${this.pick(["none", "xMidYMid meet", "xMinYMax slice"])}" href="data:image/png;base64,${Buffer.from(this.o.png).toString("base64")}"/>`);
      } else {
        items.push(this.shape());
      }
    }
    return items.join("\n");
  }

  document(): string {
    const body = this.group(0, this.o.shapes);
    const style = `<style>.a { fill: ${this.colour()}; stroke: ${this.colour()}; } .b { opacity: 0.6; stroke-width: 3 }</style>`;
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${this.o.width}" height="${this.o.height}" viewBox="0 0 ${this.o.width} ${this.o.height}" color="${this.colour()}">${style}<defs>${this.defs.join("\n")}</defs>\n${body}</svg>`;
  }
}

/** An SVG document made up from `seed`. */
export function svgScene(seed: number, options: SceneOptions): string {
  return new Scene(seed, options).document();
}

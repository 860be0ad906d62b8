// draco3d (Google's Draco mesh codec, C++ compiled with Emscripten; an encoder
// and a decoder module): the package's bunny.drc is decoded; a generated torus
// mesh (positions, normals, texture coordinates) is encoded with edgebreaker
// at several speeds and quantizations and with the sequential method, and as a
// point cloud; every result is decoded again; the bunny is re-encoded. Checked
// against invariants: decoded meshes keep their face count and bounding box,
// and a sequentially encoded mesh keeps every position to within the
// quantization step.
//
// Both modules go in through Emscripten's `wasmBinary` option of the
// package's factories.

import { corpusEntry } from "../../corpus/corpus.js";
import { packageFile, requireFrom, sha256, withTempDir } from "../util.js";
import type { Output, RunContext, Workload } from "../workload.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- Draco's WebIDL objects, used as the package's example does */
type Draco = any;
type Factory = (o: { wasmBinary: Uint8Array }) => Promise<Draco>;

/** A mesh as plain arrays: 3 indices per face, `stride` floats per point per attribute. */
interface Mesh {
  faces: Uint32Array;
  attrs: Record<string, { stride: number; data: Float32Array }>;
}
const ATTRS: Record<string, number> = { POSITION: 3, NORMAL: 3, TEX_COORD: 2 };

/** A torus of `u * v` points, each quad split into two triangles. */
function torus(u: number, v: number): Mesh {
  const n = u * v;
  const pos = new Float32Array(n * 3);
  const nor = new Float32Array(n * 3);
  const tex = new Float32Array(n * 2);
  for (let i = 0; i < u; i++) {
    for (let j = 0; j < v; j++) {
      const a = (2 * Math.PI * i) / u;
      const b = (2 * Math.PI * j) / v;
      const k = i * v + j;
      const r = 3 + (1 + 0.1 * Math.sin(7 * a)) * Math.cos(b);
      pos.set([r * Math.cos(a), r * Math.sin(a), Math.sin(b)], k * 3);
      nor.set([Math.cos(b) * Math.cos(a), Math.cos(b) * Math.sin(a), Math.sin(b)], k * 3);
      tex.set([i / u, j / v], k * 2);
    }
  }
  const faces = new Uint32Array(n * 6);
  for (let i = 0; i < u; i++) {
    for (let j = 0; j < v; j++) {
      const p = i * v + j;
      const q = ((i + 1) % u) * v + j;
      const p1 = i * v + ((j + 1) % v);
      const q1 = ((i + 1) % u) * v + ((j + 1) % v);
      faces.set([p, q, q1, p, q1, p1], p * 6);
    }
  }
  return { faces, attrs: { POSITION: { stride: 3, data: pos }, NORMAL: { stride: 3, data: nor }, TEX_COORD: { stride: 2, data: tex } } };
}

function decode(D: Draco, bytes: Uint8Array): Mesh | string {
  const decoder = new D.Decoder();
  const buffer = new D.DecoderBuffer();
  buffer.Init(new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length), bytes.length);
  const isMesh = decoder.GetEncodedGeometryType(buffer) === D.TRIANGULAR_MESH;
  const geometry = isMesh ? new D.Mesh() : new D.PointCloud();
  const status = isMesh ? decoder.DecodeBufferToMesh(buffer, geometry) : decoder.DecodeBufferToPointCloud(buffer, geometry);
  D.destroy(buffer);
  if (!status.ok()) return `error: ${status.error_msg()}`;
  const nFaces = isMesh ? geometry.num_faces() : 0;
  const faces = new Uint32Array(nFaces * 3);
  const ia = new D.DracoInt32Array();
  for (let f = 0; f < nFaces; f++) {
    decoder.GetFaceFromMesh(geometry, f, ia);
    faces[f * 3] = ia.GetValue(0);
    faces[f * 3 + 1] = ia.GetValue(1);
    faces[f * 3 + 2] = ia.GetValue(2);
  }
  D.destroy(ia);
  const attrs: Mesh["attrs"] = {};
  const nPoints = geometry.num_points();
  for (const [name, stride] of Object.entries(ATTRS)) {
    const id = decoder.GetAttributeId(geometry, D[name]);
    if (id < 0) continue;
    const values = new D.DracoFloat32Array();
    decoder.GetAttributeFloatForAllPoints(geometry, decoder.GetAttribute(geometry, id), values);
    const data = new Float32Array(nPoints * stride);
    for (let i = 0; i < data.length; i++) data[i] = values.GetValue(i);
    D.destroy(values);
    attrs[name] = { stride, data };
  }
  D.destroy(geometry);
  D.destroy(decoder);
  return { faces, attrs };
}

interface EncodeOptions {
  method: "edgebreaker" | "sequential" | "pointcloud";
  speed: number;
  bits: number;
}

function encode(E: Draco, mesh: Mesh, o: EncodeOptions): Uint8Array {
  const encoder = new E.Encoder();
  const cloud = o.method === "pointcloud";
  const builder = cloud ? new E.PointCloudBuilder() : new E.MeshBuilder();
  const geometry = cloud ? new E.PointCloud() : new E.Mesh();
  const nPoints = mesh.attrs.POSITION!.data.length / 3;
  if (!cloud) builder.AddFacesToMesh(geometry, mesh.faces.length / 3, mesh.faces);
  for (const [name, { stride, data }] of Object.entries(mesh.attrs)) {
    if (cloud) builder.AddFloatAttribute(geometry, E[name], nPoints, stride, data);
    else builder.AddFloatAttributeToMesh(geometry, E[name], nPoints, stride, data);
  }
  encoder.SetSpeedOptions(o.speed, o.speed);
  encoder.SetAttributeQuantization(E.POSITION, o.bits);
  encoder.SetAttributeQuantization(E.NORMAL, 8);
  encoder.SetAttributeQuantization(E.TEX_COORD, 10);
  if (!cloud) encoder.SetEncodingMethod(o.method === "edgebreaker" ? E.MESH_EDGEBREAKER_ENCODING : E.MESH_SEQUENTIAL_ENCODING);
  const out = new E.DracoInt8Array();
  const n = cloud ? encoder.EncodePointCloudToDracoBuffer(geometry, false, out) : encoder.EncodeMeshToDracoBuffer(geometry, out);
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i++) bytes[i] = out.GetValue(i) & 255;
  for (const x of [out, geometry, builder, encoder]) E.destroy(x);
  return bytes;
}

function bounds(data: Float32Array): number[] {
  const b = [Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity];
  for (let i = 0; i < data.length; i += 3) {
    for (let k = 0; k < 3; k++) {
      b[k] = Math.min(b[k]!, data[i + k]!);
      b[k + 3] = Math.max(b[k + 3]!, data[i + k]!);
    }
  }
  return b;
}

/** What the output keeps of a decoded mesh: sizes, bounds and digests of the arrays. */
function summary(m: Mesh): Output {
  const attrs: Record<string, Output> = {};
  for (const [name, a] of Object.entries(m.attrs)) attrs[name] = sha256(new Uint8Array(a.data.buffer));
  return { faces: m.faces.length / 3, points: m.attrs.POSITION!.data.length / 3, bounds: bounds(m.attrs.POSITION!.data), faceHash: sha256(new Uint8Array(m.faces.buffer)), attrs };
}

/** Encodes, decodes and checks one mesh under one set of options. */
function roundTrip(E: Draco, D: Draco, mesh: Mesh, o: EncodeOptions, ctx: RunContext, label: string): Output {
  const bytes = encode(E, mesh, o);
  const what = `${label} ${o.method} speed ${o.speed} bits ${o.bits}`;
  const back = decode(D, bytes);
  if (typeof back === "string") {
    ctx.check(false, `${what}: does not decode: ${back}`);
    return back;
  }
  const src = mesh.attrs.POSITION!.data;
  const got = back.attrs.POSITION!.data;
  const box = bounds(src);
  // One quantization step of the largest extent, plus float slack.
  const step = Math.max(box[3]! - box[0]!, box[4]! - box[1]!, box[5]! - box[2]!) / ((1 << o.bits) - 1) + 1e-5;
  ctx.check(back.faces.length === (o.method === "pointcloud" ? 0 : mesh.faces.length), `${what}: ${back.faces.length / 3} faces decoded`);
  ctx.check(bounds(got).every((x, k) => Math.abs(x - box[k]!) <= step), `${what}: bounds ${bounds(got).join(",")} vs ${box.join(",")}`);
  if (o.method === "sequential") {
    let worst = 0;
    for (let i = 0; i < src.length; i++) worst = Math.max(worst, Math.abs(src[i]! - got[i]!));
    ctx.check(got.length === src.length && worst <= step, `${what}: a position moved by ${worst} (step ${step})`);
  }
  return { size: bytes.length, hash: sha256(bytes), decoded: summary(back) };
}

async function exercise(E: Draco, D: Draco, ctx: RunContext): Promise<Output> {
  const out: Record<string, Output> = {};
  const bunny = decode(D, packageFile("draco3d", "bunny.drc"));
  if (typeof bunny === "string") throw new Error(`bunny.drc does not decode: ${bunny}`);
  ctx.check(bunny.faces.length / 3 > 60000, `bunny.drc decoded to only ${bunny.faces.length / 3} faces`);
  out.bunny = summary(bunny);
  out.bunnyReencoded = [0, 5, 10].map((speed) => roundTrip(E, D, bunny, { method: "edgebreaker", speed, bits: 14 }, ctx, "bunny"));
  const mesh = torus(180, 90);
  const runs: Output[] = [];
  for (const speed of [0, 5, 10]) {
    for (const bits of [10, 16]) runs.push(roundTrip(E, D, mesh, { method: "edgebreaker", speed, bits }, ctx, "torus"));
  }
  runs.push(roundTrip(E, D, mesh, { method: "sequential", speed: 5, bits: 14 }, ctx, "torus"));
  runs.push(roundTrip(E, D, mesh, { method: "pointcloud", speed: 5, bits: 12 }, ctx, "torus"));
  out.torus = runs;
  // Truncated and corrupt input: the decoder's error messages.
  const good = encode(E, mesh, { method: "edgebreaker", speed: 5, bits: 12 });
  const bad = good.slice();
  bad[good.length >> 1] = bad[good.length >> 1]! ^ 0x5a;
  out.errors = [good.subarray(0, 40), good.subarray(0, good.length >> 1), new Uint8Array(12)].map((b) => {
    const r = decode(D, b);
    return typeof r === "string" ? r : "decoded";
  });
  const corrupt = decode(D, bad);
  out.corrupt = typeof corrupt === "string" ? corrupt : summary(corrupt);
  return out;
}

export const workload: Workload = {
  name: "draco3d",
  size: "small",
  description: "Draco: decode bunny.drc, encode/decode a 16k-point torus (edgebreaker speeds 0-10, sequential, point cloud), errors",
  wasm: () => ["draco-encoder", "draco-decoder"].map((name) => ({ name, bytes: corpusEntry(name).bytes() })),
  async run(wasm, ctx) {
    return withTempDir("draco", async (dir) => {
      // Fresh copies of the glue, so no Emscripten state is shared between runs.
      const encoder = requireFrom<Factory>(dir.copyFromPackage("draco3d", "draco_encoder_nodejs.js"));
      const decoder = requireFrom<Factory>(dir.copyFromPackage("draco3d", "draco_decoder_nodejs.js"));
      const E = await encoder({ wasmBinary: wasm[0]! });
      const D = await decoder({ wasmBinary: wasm[1]! });
      return exercise(E, D, ctx);
    });
  },
};

// box2d-wasm (Box2D 2.4, C++ compiled with Emscripten, WebIDL bindings):
// rigid-body scenes stepped for hundreds of frames, where the time goes into
// the solver's loops and the many small calls between them: a pyramid of
// stacked boxes, a mixed pile of circles and polygons with friction and
// restitution in a container, and a chain of revolute joints. Checked against
// invariants: a body in free fall follows the solver's semi-implicit Euler
// steps computed here, joints hold their anchors together, nothing falls
// through the ground, the pyramid comes to rest, and the plain and the SIMD
// build agree.
//
// The plain and the SIMD build are each a corpus module; the wasm goes in
// through Emscripten's `wasmBinary` option of the package's UMD factory.

import { corpusEntry } from "../../corpus/corpus.js";
import { requireFrom, rng, withTempDir } from "../util.js";
import type { Output, RunContext, Workload } from "../workload.js";
import { firstDifference } from "../compare.js";

// The slice of the WebIDL API the workload uses.
interface Vec2 {
  get_x(): number;
  get_y(): number;
}
interface Body {
  CreateFixture(shape: unknown, density: number): { SetFriction(f: number): void; SetRestitution(r: number): void };
  GetPosition(): Vec2;
  GetAngle(): number;
  GetLinearVelocity(): Vec2;
  IsAwake(): boolean;
}
interface World {
  CreateBody(def: unknown): Body;
  CreateJoint(def: unknown): { GetAnchorA(): Vec2; GetAnchorB(): Vec2 };
  Step(dt: number, velocityIterations: number, positionIterations: number): void;
  GetContactCount(): number;
}
type Ctor<T = any> = new (...args: any[]) => T; // eslint-disable-line @typescript-eslint/no-explicit-any
interface Box2D {
  b2World: Ctor<World>;
  b2Vec2: Ctor<Vec2>;
  b2BodyDef: Ctor;
  b2EdgeShape: Ctor;
  b2PolygonShape: Ctor;
  b2CircleShape: Ctor;
  b2RevoluteJointDef: Ctor;
  b2_dynamicBody: number;
  tuplesToVec2Array(points: [number, number][]): [unknown, () => void];
}
type Factory = (options: { wasmBinary: Uint8Array }) => Promise<Box2D>;

const DT = 1 / 60;

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

function pose(b: Body): Output {
  const p = b.GetPosition();
  return [p.get_x(), p.get_y(), b.GetAngle()];
}

function newWorld(B: Box2D, halfWidth: number, walls: boolean): World {
  const world = new B.b2World(new B.b2Vec2(0, -10));
  const ground = world.CreateBody(new B.b2BodyDef());
  const edge = (x1: number, y1: number, x2: number, y2: number): void => {
    const e = new B.b2EdgeShape();
    e.SetTwoSided(new B.b2Vec2(x1, y1), new B.b2Vec2(x2, y2));
    ground.CreateFixture(e, 0);
  };
  edge(-halfWidth, 0, halfWidth, 0);
  if (walls) {
    edge(-halfWidth, 0, -halfWidth, 40);
    edge(halfWidth, 0, halfWidth, 40);
  }
  return world;
}

function dynamicBody(B: Box2D, world: World, x: number, y: number, angle = 0): Body {
  const def = new B.b2BodyDef();
  def.set_type(B.b2_dynamicBody);
  def.set_position(new B.b2Vec2(x, y));
  def.set_angle(angle);
  return world.CreateBody(def);
}

function pyramid(B: Box2D, ctx: RunContext, label: string): Output {
  const world = newWorld(B, 40, false);
  const box = new B.b2PolygonShape();
  box.SetAsBox(0.5, 0.5);
  const bodies: Body[] = [];
  const rows = 20;
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < rows - i; j++) {
      const b = dynamicBody(B, world, -10 + j * 1.125 + i * 0.5625, 0.75 + i * 1.05);
      b.CreateFixture(box, 5);
      bodies.push(b);
    }
  }
  const trace: Output[] = [];
  for (let s = 1; s <= 500; s++) {
    world.Step(DT, 8, 3);
    if (s % 100 === 0) trace.push([s, world.GetContactCount(), round(bodies.reduce((t, b) => t + b.GetPosition().get_y(), 0))]);
  }
  const lowest = Math.min(...bodies.map((b) => b.GetPosition().get_y()));
  ctx.check(lowest > 0.4, `${label}: a pyramid box sank through the ground (y ${lowest})`);
  const awake = bodies.filter((b) => b.IsAwake()).length;
  ctx.check(awake === 0, `${label}: the pyramid has not come to rest (${awake} boxes awake)`);
  return { trace, poses: bodies.filter((_, i) => i % 15 === 0).map(pose) };
}

function pile(B: Box2D, ctx: RunContext, label: string): Output {
  const world = newWorld(B, 12, true);
  const r = rng(1234);
  const bodies: Body[] = [];
  for (let i = 0; i < 160; i++) {
    const b = dynamicBody(B, world, -10 + r() * 20, 2 + i * 0.35, r() * Math.PI);
    let shape;
    if (i % 3 === 0) {
      shape = new B.b2CircleShape();
      shape.set_m_radius(0.2 + r() * 0.4);
    } else {
      // A regular polygon with 3..8 sides (a box for 4).
      const n = 3 + (i % 6);
      const size = 0.25 + r() * 0.45;
      const pts: [number, number][] = [];
      for (let k = 0; k < n; k++) pts.push([size * Math.cos((2 * Math.PI * k) / n), size * Math.sin((2 * Math.PI * k) / n)]);
      shape = new B.b2PolygonShape();
      if (n === 4) shape.SetAsBox(size, size * 0.6);
      else setPolygon(B, shape, pts);
    }
    const f = b.CreateFixture(shape, 1 + r() * 4);
    f.SetFriction(r());
    f.SetRestitution(r() * 0.5);
    bodies.push(b);
  }
  for (let s = 0; s < 400; s++) world.Step(DT, 8, 3);
  const escaped = bodies.filter((b) => {
    const p = b.GetPosition();
    return p.get_y() < 0 || Math.abs(p.get_x()) > 12;
  }).length;
  ctx.check(escaped === 0, `${label}: ${escaped} bodies left the container`);
  const energy = bodies.reduce((t, b) => {
    const v = b.GetLinearVelocity();
    return t + v.get_x() * v.get_x() + v.get_y() * v.get_y();
  }, 0);
  return { contacts: world.GetContactCount(), energy: round(energy), poses: bodies.filter((_, i) => i % 8 === 0).map(pose) };
}

/** b2PolygonShape.Set takes a pointer to b2Vec2s in the wasm heap: the package's own helper puts them there. */
function setPolygon(B: Box2D, shape: { Set(ptr: unknown, n: number): void }, pts: [number, number][]): void {
  const [ptr, free] = B.tuplesToVec2Array(pts);
  shape.Set(ptr, pts.length);
  free();
}

function chain(B: Box2D, ctx: RunContext, label: string): Output {
  const world = newWorld(B, 40, false);
  const anchorBody = world.CreateBody(new B.b2BodyDef());
  const link = new B.b2PolygonShape();
  link.SetAsBox(0.5, 0.125);
  const joints = [];
  let prev = anchorBody;
  const links: Body[] = [];
  for (let i = 0; i < 40; i++) {
    const b = dynamicBody(B, world, 0.5 + i, 30);
    b.CreateFixture(link, 20);
    const jd = new B.b2RevoluteJointDef();
    jd.Initialize(prev, b, new B.b2Vec2(i, 30));
    joints.push(world.CreateJoint(jd));
    links.push(b);
    prev = b;
  }
  let worstGap = 0;
  for (let s = 1; s <= 600; s++) {
    world.Step(DT, 8, 3);
    if (s % 50 === 0) {
      for (const j of joints) {
        const a = j.GetAnchorA();
        const c = j.GetAnchorB();
        worstGap = Math.max(worstGap, Math.hypot(a.get_x() - c.get_x(), a.get_y() - c.get_y()));
      }
    }
  }
  ctx.check(worstGap < 0.05, `${label}: a revolute joint drifted apart by ${worstGap}`);
  return { worstGap: round(worstGap), end: pose(links[links.length - 1]!), mid: pose(links[20]!) };
}

/** A body with nothing to hit follows v += g dt, y += v dt (Box2D's integrator), in float32. */
function freeFall(B: Box2D, ctx: RunContext, label: string): Output {
  const world = new B.b2World(new B.b2Vec2(0, -10));
  const b = dynamicBody(B, world, 3, 100);
  const c = new B.b2CircleShape();
  c.set_m_radius(0.5);
  b.CreateFixture(c, 1);
  let v = 0;
  let y = 100;
  for (let s = 0; s < 240; s++) {
    world.Step(DT, 8, 3);
    v = Math.fround(v + Math.fround(Math.fround(DT) * -10));
    y = Math.fround(y + Math.fround(Math.fround(DT) * v));
  }
  const got = b.GetPosition().get_y();
  ctx.check(Math.abs(got - y) < 1e-3, `${label}: free fall ended at y ${got}, the integrator gives ${y}`);
  return got;
}

async function runOnce(factory: Factory, wasm: Uint8Array, ctx: RunContext, label: string): Promise<Output> {
  const B = await factory({ wasmBinary: wasm });
  return { pyramid: pyramid(B, ctx, label), pile: pile(B, ctx, label), chain: chain(B, ctx, label), freeFall: freeFall(B, ctx, label) };
}

export const workload: Workload = {
  name: "box2d-wasm",
  size: "small",
  description: "Box2D: box pyramid, mixed shape pile, revolute chain, free fall, 500+ steps each; plain and SIMD builds",
  wasm: () => ["box2d", "box2d-simd"].map((name) => ({ name, bytes: corpusEntry(name).bytes() })),
  async run(wasm, ctx) {
    return withTempDir("box2d", async (dir) => {
      // A fresh copy of the glue each run, so no Emscripten state is shared.
      const plain = requireFrom<Factory>(dir.copyFromPackage("box2d-wasm", "dist/umd/Box2D.js"));
      const simd = requireFrom<Factory>(dir.copyFromPackage("box2d-wasm", "dist/umd/Box2D.simd.js"));
      const a = await runOnce(plain, wasm[0]!, ctx, "plain");
      const b = await runOnce(simd, wasm[1]!, ctx, "simd");
      // The two builds compute the same floats (checked with the package's builds).
      const diff = firstDifference(a, b);
      ctx.check(diff === null, `the plain and SIMD builds of Box2D disagree: ${diff}`);
      return { plain: a, simdAgrees: diff === null };
    });
  },
};

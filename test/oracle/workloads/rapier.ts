// @dimforge/rapier2d-compat (Rapier 2D physics, Rust via wasm-bindgen): a
// pile of boxes and balls on sloped ground stepped for hundreds of frames, a
// chain of revolute joints, ray casts against the scene and a snapshot taken
// mid-run and restored. Checked against invariants and simple geometry: a
// body in free fall follows symplectic Euler steps computed here, rays cast
// straight down onto the flat floor report its distance, joints hold their
// anchors together, nothing falls through the ground, and a restored
// snapshot replays the same frames bit for bit.
//
// The package embeds its module as a base64 literal in dist/rapier.cjs and
// has no option to pass one in: the run requires a copy of that file, in a
// temporary folder, in which the literal is replaced.

import { corpusEntry } from "../../corpus/corpus.js";
import { packageText, requireFrom, rng, withTempDir } from "../util.js";
import type { Output, RunContext, Workload } from "../workload.js";
import { firstDifference } from "../compare.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- the package's classes, used through its documented API */
type Rapier = any;
type World = any;
type Body = any;

const FLOOR_Y = 0; // top of the flat floor

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** Positions and angles of every body, in creation order. */
function state(world: World): Output {
  const out: Output[] = [];
  world.forEachRigidBody((b: Body) => {
    if (b.isDynamic()) {
      const t = b.translation();
      out.push([t.x, t.y, b.rotation()]);
    }
  });
  return out;
}

function scene(R: Rapier): { world: World; links: Body[]; joints: any[] } {
  const world = new R.World({ x: 0, y: -9.81 });
  const ground = world.createRigidBody(R.RigidBodyDesc.fixed());
  world.createCollider(R.ColliderDesc.cuboid(40, 0.5).setTranslation(0, FLOOR_Y - 0.5), ground);
  world.createCollider(R.ColliderDesc.cuboid(0.5, 20).setTranslation(-20, 20), ground);
  world.createCollider(R.ColliderDesc.cuboid(0.5, 20).setTranslation(20, 20), ground);
  world.createCollider(R.ColliderDesc.cuboid(6, 0.2).setTranslation(-10, 8).setRotation(0.4), ground); // a ramp
  const r = rng(2024);
  for (let i = 0; i < 200; i++) {
    const body = world.createRigidBody(R.RigidBodyDesc.dynamic().setTranslation(-16 + (i % 26) * 1.2 + r() * 0.2, 1 + Math.floor(i / 26) * 1.3 + r()).setRotation(r()));
    const desc = i % 4 === 0 ? R.ColliderDesc.ball(0.3 + r() * 0.3) : R.ColliderDesc.cuboid(0.25 + r() * 0.3, 0.25 + r() * 0.3);
    world.createCollider(desc.setFriction(r()).setRestitution(r() * 0.3).setDensity(1 + r() * 3), body);
  }
  // A chain of 20 links hanging from a fixed point, clear of the walls.
  const anchor = world.createRigidBody(R.RigidBodyDesc.fixed().setTranslation(-1, 38));
  const links: Body[] = [];
  const joints: any[] = [];
  let prev = anchor;
  for (let i = 0; i < 20; i++) {
    const link = world.createRigidBody(R.RigidBodyDesc.dynamic().setTranslation(-0.5 + i, 38));
    world.createCollider(R.ColliderDesc.cuboid(0.5, 0.1).setDensity(5), link);
    const params = R.JointData.revolute(i === 0 ? { x: 0, y: 0 } : { x: 0.5, y: 0 }, { x: -0.5, y: 0 });
    joints.push(world.createImpulseJoint(params, prev, link, true));
    links.push(link);
    prev = link;
  }
  return { world, links, joints };
}

function simulate(R: Rapier, ctx: RunContext): Output {
  const { world, links, joints } = scene(R);
  const trace: Output[] = [];
  let worstGap = 0;
  let snapshot: Uint8Array | null = null;
  let atSnapshot: Output = null;
  for (let s = 1; s <= 300; s++) {
    world.step();
    if (s === 200) snapshot = world.takeSnapshot();
    if (s === 250) atSnapshot = state(world);
    if (s % 50 === 0) {
      for (let i = 1; i < links.length; i++) {
        // Where each end of a joint puts the shared anchor.
        const a = links[i - 1].translation();
        const b = links[i].translation();
        const ra = links[i - 1].rotation();
        const rb = links[i].rotation();
        const gap = Math.hypot(a.x + 0.5 * Math.cos(ra) - (b.x - 0.5 * Math.cos(rb)), a.y + 0.5 * Math.sin(ra) - (b.y - 0.5 * Math.sin(rb)));
        worstGap = Math.max(worstGap, gap);
      }
      let energy = 0;
      world.forEachRigidBody((b: Body) => {
        const v = b.linvel();
        energy += b.mass() * (v.x * v.x + v.y * v.y);
      });
      trace.push([s, round(energy)]);
    }
  }
  ctx.check(joints.length === 20 && worstGap < 0.1, `a revolute joint drifted apart by ${worstGap}`);
  let lowest = Infinity;
  world.forEachRigidBody((b: Body) => {
    if (b.isDynamic()) lowest = Math.min(lowest, b.translation().y);
  });
  ctx.check(lowest > FLOOR_Y, `a body fell through the floor (y ${lowest})`);
  const final = (state(world) as Output[]).filter((_, i) => i % 4 === 0);

  // Restore at step 200 and replay 50 steps: the same state as the first time.
  const replay = R.World.restoreSnapshot(snapshot!);
  for (let s = 201; s <= 250; s++) replay.step();
  const diff = firstDifference(state(replay), atSnapshot);
  ctx.check(diff === null, `a restored snapshot replays differently: ${diff}`);

  // Rays straight down from above the floor, left of the piles: they hit the floor's top.
  const rays: Output[] = [];
  for (let i = 0; i < 200; i++) {
    const x = -19 + (i % 40) * 0.95;
    const hit = world.castRayAndGetNormal(new R.Ray({ x, y: 25 }, { x: 0, y: -1 }), 100, true);
    rays.push(hit ? [round(hit.timeOfImpact), round(hit.normal.x), round(hit.normal.y)] : null);
  }
  // Ignoring the moving bodies, a ray down from y = 12 meets the floor 12 below.
  const clear = world.castRay(new R.Ray({ x: 15, y: 12 }, { x: 0, y: -1 }), 100, true, R.QueryFilterFlags.EXCLUDE_DYNAMIC);
  ctx.check(clear !== null && Math.abs(clear.timeOfImpact - (12 - FLOOR_Y)) < 1e-4, `a ray down to the floor, past the moving bodies, hit at ${clear?.timeOfImpact}`);
  return { trace, worstGap: round(worstGap), final, rays };
}

/** A body with nothing to hit: in each of the solver's substeps v += g h, then x += v h, in float32. */
function freeFall(R: Rapier, ctx: RunContext): Output {
  const world = new R.World({ x: 0, y: -9.81 });
  const body = world.createRigidBody(R.RigidBodyDesc.dynamic().setTranslation(0, 100));
  world.createCollider(R.ColliderDesc.ball(0.5), body);
  const substeps = world.numSolverIterations;
  const h = Math.fround(world.timestep / substeps);
  let v = 0;
  let y = 100;
  for (let s = 0; s < 200; s++) {
    world.step();
    for (let k = 0; k < substeps; k++) {
      v = Math.fround(v + Math.fround(Math.fround(-9.81) * h));
      y = Math.fround(y + Math.fround(v * h));
    }
  }
  const got = body.translation().y;
  ctx.check(Math.abs(got - y) < 1e-3, `free fall ended at y ${got}, the integrator gives ${y}`);
  return got;
}

export const workload: Workload = {
  name: "rapier2d",
  size: "big", // a multi-megabyte module and 2 s of CPU: left out of npm test
  description: "Rapier 2D: 200 boxes and balls plus a 20-link chain for 300 steps, snapshot replay, 200 ray casts, free fall",
  wasm: () => [{ name: "rapier2d", bytes: corpusEntry("rapier2d").bytes() }],
  async run(wasm, ctx) {
    return withTempDir("rapier", async (dir) => {
      let js = packageText("@dimforge/rapier2d-compat", "dist/rapier.cjs");
      const literal = `"${Buffer.from(corpusEntry("rapier2d").bytes()).toString("base64")}"`;
      const at = js.indexOf(literal);
      if (at < 0 || js.indexOf(literal, at + 1) >= 0) throw new Error("the module's base64 literal is not in dist/rapier.cjs exactly once");
      js = js.slice(0, at) + `"${Buffer.from(wasm[0]!).toString("base64")}"` + js.slice(at + literal.length);
      dir.write("package.json", JSON.stringify({ type: "commonjs" }));
      const R = requireFrom<Rapier>(dir.write("rapier.cjs", js));
      await R.init();
      return { version: R.version(), simulation: simulate(R, ctx), freeFall: freeFall(R, ctx) };
    });
  },
};

// Liveness (analysis/liveness.ts) with exception handling: hand-written
// bodies where a local is read only in a handler (try_table, legacy try with
// catch, catch_all, delegate and rethrow), and random structured bodies
// checked two ways: against plain instruction-level dataflow over the
// semantics' successors (control-gen.ts refSucc, not the CFG under test),
// exactly, and against random runs of an interpreter walking those
// successors (a local read later on the run must be live).

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { readModule } from "../src/binary/reader.js";
import { idOf } from "../src/binary/opcodes/index.js";
import type { Body } from "../src/ir/body.js";
import { computeLiveness, type Liveness } from "../src/analysis/liveness.js";
import { randomBody, refSucc, rng, withLocals } from "./control-gen.js";

const GET = idOf("local.get");
const SET = idOf("local.set");
const TEE = idOf("local.tee");
const TRY = idOf("try");
const TRY_TABLE = idOf("try_table");

/** Liveness of the last function of `wat` over `nLocals` locals, and its body. */
async function live(wat: string, nLocals: number): Promise<{ body: Body; lv: Liveness }> {
  const m = readModule(await parse(wat), { decodeBodies: true });
  const body = m.functions[m.functions.length - 1]!.body!;
  const lv = computeLiveness(body, nLocals);
  assert.ok(lv, "bodies with exception handling are analysed");
  return { body, lv };
}

/** Index of the k-th instruction named `name` (k from 0). */
function nth(body: Body, name: string, k = 0): number {
  const op = idOf(name);
  for (let i = 0; i < body.count; i++) if (body.ops[i] === op && k-- === 0) return i;
  throw new Error(`no ${name} #${k}`);
}

const HEAD = `(module (tag $e) (tag $f) (func $g)`;

test("try_table: a local written before a call is live when the handler reads it, though the body overwrites it", async () => {
  const { body, lv } = await live(`${HEAD} (func (result i32) (local i32)
    block $h
      try_table (catch $e $h)
        (local.set 0 (i32.const 1))
        call $g
        (local.set 0 (i32.const 2))
        (return (local.get 0))
      end
    end
    local.get 0))`, 1);
  const first = nth(body, "local.set");
  assert.equal(lv.liveAfter(first, 0), true, "the handler after $h reads it if $g throws");
  assert.equal(lv.liveAfter(nth(body, "call"), 0), true, "after the call: its exception edge");
  assert.equal(lv.liveAfter(nth(body, "local.set", 1), 0), true, "read by the return");
  assert.equal(lv.liveAfter(nth(body, "local.get"), 0), false, "nothing reads it after the return's operand");
});

test("the same code without a try: the first write is dead (a call's exception leaves the function)", async () => {
  const { body, lv } = await live(`${HEAD} (func (result i32) (local i32)
    block $h
      (local.set 0 (i32.const 1))
      call $g
      (local.set 0 (i32.const 2))
      (return (local.get 0))
    end
    local.get 0))`, 1);
  assert.equal(lv.liveAfter(nth(body, "local.set"), 0), false);
});

test("legacy try: catch and catch_all handlers; a call in a handler is not caught by its own try", async () => {
  const { body, lv } = await live(`${HEAD} (func (local i32 i32)
    try
      (local.set 0 (i32.const 1))
      call $g
      (local.set 0 (i32.const 2))
    catch $e
      (drop (local.get 0))
    catch_all
      (local.set 1 (i32.const 3))
      call $g
      (local.set 1 (i32.const 4))
    end
    (drop (local.get 1))))`, 2);
  assert.equal(lv.liveAfter(nth(body, "local.set", 0), 0), true, "read in the catch $e handler");
  assert.equal(lv.liveAfter(nth(body, "local.set", 1), 0), false, "the body's last write: nothing reads it after");
  assert.equal(lv.liveAfter(nth(body, "local.set", 2), 1), false, "the call in catch_all throws out of the function");
});

test("throw: a tag-specific handler and the catch_all outward of it are both reached", async () => {
  const { body, lv } = await live(`${HEAD} (func (local i32 i32)
    try
      try
        (local.set 0 (i32.const 1))
        (local.set 1 (i32.const 1))
        throw $e
      catch $f
        (drop (local.get 0))
      end
    catch_all
      (drop (local.get 1))
    end))`, 2);
  assert.equal(lv.liveAfter(nth(body, "local.set", 0), 0), true, "read by catch $f");
  assert.equal(lv.liveAfter(nth(body, "local.set", 1), 1), true, "read by the outer catch_all when $f does not match");
});

test("delegate: the exception goes where its label says, skipping the handlers between", async () => {
  const caught = await live(`${HEAD} (func (local i32)
    try $outer
      try
        (local.set 0 (i32.const 1))
        throw $e
      delegate $outer
    catch_all
      (drop (local.get 0))
    end))`, 1);
  assert.equal(caught.lv.liveAfter(nth(caught.body, "local.set"), 0), true, "$outer's catch_all reads it");
  const skipped = await live(`${HEAD} (func (local i32)
    block $b
      try $mid
        try
          (local.set 0 (i32.const 1))
          throw $e
        delegate $b
      catch_all
        (drop (local.get 0))
      end
    end))`, 1);
  assert.equal(skipped.lv.liveAfter(nth(skipped.body, "local.set"), 0), false, "delegated past $mid: the exception leaves the function");
});

test("rethrow in a handler reaches the handler of the try around it", async () => {
  const { body, lv } = await live(`${HEAD} (func (local i32)
    try
      try
        throw $e
      catch_all
        (local.set 0 (i32.const 1))
        rethrow 0
      end
    catch_all
      (drop (local.get 0))
    end))`, 1);
  assert.equal(lv.liveAfter(nth(body, "local.set"), 0), true);
});

/** Per instruction, the locals live after it, by iterating the transfer function over the semantics' successors. */
function refLiveOut(body: Body, nLocals: number): Uint8Array[] {
  const n = body.count;
  const succ = Array.from({ length: n }, (_, i) => refSucc(body, i));
  const liveIn = Array.from({ length: n }, () => new Uint8Array(nLocals));
  const liveOut = Array.from({ length: n }, () => new Uint8Array(nLocals));
  let changed = true;
  while (changed) {
    changed = false;
    for (let i = n - 1; i >= 0; i--) {
      const out = liveOut[i]!;
      for (const s of succ[i]!) if (s >= 0) for (let x = 0; x < nLocals; x++) if (liveIn[s]![x]) out[x] = 1;
      const inn = liveIn[i]!;
      const op = body.ops[i]!;
      const acc = op === GET || op === SET || op === TEE ? body.imm[body.immStart[i]!]! : -1;
      for (let x = 0; x < nLocals; x++) {
        const v = x === acc ? (op === GET ? 1 : 0) : out[x]!;
        if (inn[x] !== v) {
          inn[x] = v;
          changed = true;
        }
      }
    }
  }
  return liveOut;
}

test("random bodies with exception handling: liveness is exactly instruction-level dataflow over the semantics", () => {
  const rand = rng(0x11fe);
  let nLive = 0;
  let eh = 0;
  for (let n = 0; n < 300; n++) {
    const nLocals = 1 + Math.floor(rand() * 4);
    const body = withLocals(rand, randomBody(rand, { eh: n % 3 !== 0, size: 10 + Math.floor(rand() * 60) }), nLocals);
    const lv = computeLiveness(body, nLocals)!;
    assert.ok(lv, `body ${n} is analysed`);
    const ref = refLiveOut(body, nLocals);
    for (let i = 0; i < body.count; i++) {
      for (let x = 0; x < nLocals; x++) {
        const want = ref[i]![x] === 1;
        assert.equal(lv.liveAfter(i, x), want, `body ${n}: local ${x} after instruction ${i}`);
        if (want) nLive++;
      }
      // the query that starts from a known access agrees
      const op = body.ops[i]!;
      if (op === GET || op === SET || op === TEE) {
        const x = body.imm[body.immStart[i]!]!;
        for (let j = i; j < body.count; j++) {
          assert.equal(lv.liveAfterAccess(i, j, x), ref[j]![x] === 1, `body ${n}: liveAfterAccess(${i}, ${j}, ${x})`);
          const oj = body.ops[j + 1];
          if ((oj === GET || oj === SET || oj === TEE) && body.imm[body.immStart[j + 1]!] === x) break;
        }
      }
    }
    if (body.ops.some((o) => o === TRY || o === TRY_TABLE)) eh++;
  }
  assert.ok(nLive > 5000 && eh > 100, `enough cases (${nLive} live pairs, ${eh} bodies with tries)`);
});

test("random bodies with exception handling: on random runs, a local read later on the run is live", () => {
  const rand = rng(0xbeef);
  let checked = 0;
  for (let n = 0; n < 200; n++) {
    const nLocals = 1 + Math.floor(rand() * 4);
    const body = withLocals(rand, randomBody(rand, { eh: true, size: 10 + Math.floor(rand() * 60) }), nLocals);
    const lv = computeLiveness(body, nLocals)!;
    const succ = Array.from({ length: body.count }, (_, i) => refSucc(body, i));
    for (let run = 0; run < 20; run++) {
      const path: number[] = [];
      let i = 0;
      for (let step = 0; step < 400 && i >= 0; step++) {
        path.push(i);
        const next = succ[i]!;
        i = next[Math.floor(rand() * next.length)]!;
      }
      // walking the run backwards: the locals whose next access on it is a read
      const readNext = new Uint8Array(nLocals);
      for (let k = path.length - 1; k >= 0; k--) {
        const at = path[k]!;
        for (let x = 0; x < nLocals; x++) {
          if (!readNext[x]) continue;
          assert.ok(lv.liveAfter(at, x), `body ${n}, run ${run}: local ${x} is read after instruction ${at} on the run`);
          checked++;
        }
        const op = body.ops[at]!;
        if (op === GET || op === SET || op === TEE) readNext[body.imm[body.immStart[at]!]!] = op === GET ? 1 : 0;
      }
    }
  }
  assert.ok(checked > 20_000, `enough reads checked (${checked})`);
});

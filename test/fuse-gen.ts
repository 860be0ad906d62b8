// Random modules for the fuse-branches tests: functions with one if/else whose
// else arm is a mutation of the then arm (same shapes, other constants and
// locals, statements dropped or added), inside a loop and a block so that
// arms branch out, plus exports that show the state the arms change.

/**
 * Random if/else pairs whose else arm is a mutation of the then arm, so that
 * some pieces align. `shape` writes each branch as an if, as a CFG diamond
 * (block block br_if 0 ELSE br 1 end THEN end) or as a SEME triangle (block
 * br_if 0 ELSE <br out or return> end THEN, THEN running to the loop's end).
 * `regions`: some statements are blocks or bounded loops of statements, whose
 * copy in the else arm has its own statements dropped, added or mutated (for
 * CFM-CS, which melds such pairs).
 * `callees`: calls go to one of three functions of one type with different
 * effects (a mutation may change the callee), and table 0 is absent or gives
 * some of them slots (for differing callees through call_indirect).
 */
export function randomIfElseProgram(r: () => number, shape: "if" | "diamond" | "triangle" = "if", regions = false, callees = false): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const SIDES = ["$side", "$side2", "$side3"];
  const side = () => (callees ? pick(SIDES) : "$side");
  const konst = () => pick([0, 1, 3, -1, 100, 4096, 123457, -77777]);
  const expr = (d: number): string => {
    if (d <= 0 || r() < 0.3) return pick([`(local.get ${Math.floor(r() * 5)})`, `(i32.const ${konst()})`, "(global.get $g)"]);
    const k = r();
    if (k < 0.45) return `(${pick(["i32.add", "i32.mul", "i32.xor", "i32.sub", "i32.shl"])} ${expr(d - 1)} ${expr(d - 1)})`;
    if (k < 0.6) return `(i32.load offset=${pick([0, 4, 64])} (i32.and ${expr(d - 1)} (i32.const 0xffc)))`;
    if (k < 0.7) return `(i32.div_s ${expr(d - 1)} ${expr(d - 1)})`;
    if (k < 0.8) return `(call ${side()} ${expr(d - 1)})`;
    return `(i32.eqz ${expr(d - 1)})`;
  };
  const stmt = (): string => {
    const k = r();
    if (k < 0.25) return `(global.set $g ${expr(2)})`;
    if (k < 0.45) return `(i32.store offset=${pick([0, 8, 128])} (i32.and ${expr(1)} (i32.const 0xffc)) ${expr(2)})`;
    if (k < 0.65) return `(local.set ${3 + Math.floor(r() * 2)} ${expr(2)})`;
    if (k < 0.75) return `(drop (call ${side()} ${expr(2)}))`;
    if (k < 0.85) return `(br_if $out (i32.eqz ${expr(1)}))`;
    if (k < 0.92) return `(if (i32.eq ${expr(1)} (i32.const 3)) (then (return ${expr(1)})))`;
    return `(br_if $loop (i32.lt_u (local.tee $n (i32.add (local.get $n) (i32.const 0x1))) (i32.const 0x3)))`; // $n, 0x1 and 0x3: mutate leaves them alone (a changed step could loop forever)
  };
  // mutate one statement: different constants and locals, same shape
  const mutate = (s: string): string => {
    const t = s.replace(/\(i32\.const (-?\d+)\)/g, (m) => (r() < 0.3 ? `(i32.const ${konst()})` : m))
      .replace(/\(local\.get (\d)\)/g, (m) => (r() < 0.3 ? `(local.get ${Math.floor(r() * 5)})` : m));
    return callees ? t.replace(/\(call \$side\d?/g, (m) => (r() < 0.5 ? `(call ${side()}` : m)) : t;
  };
  // a region: a block, or a loop that runs at most a few times ($n only grows)
  type Region = { loop: boolean; inner: string[] };
  let label = 0;
  const render = (x: string | Region): string => {
    if (typeof x === "string") return x;
    const l = `$r${label++}`;
    const body = x.inner.join(" ");
    return x.loop
      ? `(loop ${l} ${body} (br_if ${l} (i32.lt_u (local.tee $n (i32.add (local.get $n) (i32.const 0x1))) (i32.const 0x5))))`
      : `(block ${l} ${body} (br_if ${l} (i32.eqz (local.get 1))) ${body})`;
  };
  const stmtOrRegion = (): string | Region => {
    if (!regions || r() > 0.3) return stmt();
    const inner: string[] = [];
    for (let k = 1 + Math.floor(r() * 3); k > 0; k--) inner.push(stmt());
    return { loop: r() < 0.5, inner };
  };
  const varied = (a: (string | Region)[], top: boolean): (string | Region)[] => {
    const b: (string | Region)[] = [];
    for (const s of a) {
      const k = r();
      if (k < 0.15) continue;
      if (k < 0.3) b.push(top ? stmtOrRegion() : stmt());
      if (typeof s === "string") b.push(k < 0.6 ? s : mutate(s));
      else {
        const inner = varied(s.inner, false) as string[];
        b.push({ loop: s.loop, inner: inner.length > 0 ? inner : [stmt()] });
      }
    }
    return b;
  };
  const funcs: string[] = [];
  for (let f = 0; f < 3; f++) {
    const ra: (string | Region)[] = [];
    const n = 1 + Math.floor(r() * 5);
    for (let k = 0; k < n; k++) ra.push(stmtOrRegion());
    const rb = varied(ra, true);
    const a = ra.map(render);
    const b = rb.map(render);
    if (b.length === 0) b.push(stmt());
    if (r() < 0.2) a.push("(return (i32.const 42))");
    const result = r() < 0.5 && shape === "if"; // diamonds and triangles have no results
    const tail = (s: string[]) => (result ? [...s, mutate(expr(2))] : s).join(" ");
    const cond = pick(["(local.get 0)", "(i32.and (local.get 1) (i32.const 1))", `(i32.gt_s ${expr(1)} (local.get 2))`]);
    const exit = shape === "triangle" ? pick(["(br $out)", "(return (i32.const 7))"]) : "";
    const iff =
      shape === "diamond" ? `(block (block (br_if 0 ${cond}) ${tail(b)} (br 1)) ${tail(a)})`
      : shape === "triangle" ? `(block (br_if 0 ${cond}) ${tail(b)} ${exit}) ${tail(a)}`
      : `(if${result ? " (result i32)" : ""} ${cond} (then ${tail(a)}) (else ${tail(b)}))`;
    funcs.push(`(func (export "f${f}") (param i32 i32 i32) (result i32) (local i32 i32) (local $n i32)
      (block $out (loop $loop ${result ? `(local.set 3 ${iff})` : iff}))
      (i32.add (global.get $g) (i32.add (local.get 3) (i32.load (i32.const 8)))))`);
  }
  const table = callees ? pick(["", "(table 1 funcref) (elem (i32.const 0) $side3)", "(table 4 funcref) (elem (i32.const 1) $side $side3)"]) : "";
  const more = callees
    ? `(func $side2 (param i32) (result i32)
      (global.set $log (i32.sub (i32.mul (global.get $log) (i32.const 7)) (local.get 0))) (i32.add (local.get 0) (i32.const 5)))
    (func $side3 (param i32) (result i32)
      (global.set $log (i32.xor (global.get $log) (i32.shl (local.get 0) (i32.const 3)))) (i32.mul (local.get 0) (i32.const 3)))`
    : "";
  return `(module (memory 1) (global $g (mut i32) (i32.const 5)) (global $log (mut i32) (i32.const 0)) ${table}
    (func $side (param i32) (result i32)
      (global.set $log (i32.add (i32.mul (global.get $log) (i32.const 31)) (local.get 0))) (i32.xor (local.get 0) (i32.const 9)))
    ${more}
    (func (export "log") (result i32) (global.get $log))
    (func (export "sum") (result i32) (local i32 i32)
      (loop $l (local.set 1 (i32.add (i32.mul (local.get 1) (i32.const 17)) (i32.load (local.get 0))))
        (br_if $l (i32.lt_u (local.tee 0 (i32.add (local.get 0) (i32.const 4))) (i32.const 4200))))
      (local.get 1))
    ${funcs.join("\n    ")})`;
}


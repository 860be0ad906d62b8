;; examples/hello.wasm is built from this file by scripts/build-example.ts
;; (npm run build:example). A small but real module: it imports a logger,
;; owns a memory with a greeting in it, and exports a handful of functions,
;; several of which repeat each other the way compiled code often does.
(module
  (type $log_t (func (param i32 i32)))
  (import "env" "log" (func $log (type $log_t)))
  (memory (export "memory") 1)
  (data (i32.const 16) "Hello, world!\00")
  (global $calls (mut i32) (i32.const 0))

  ;; length of the NUL-terminated string at $p
  (func $strlen (export "strlen") (param $p i32) (result i32)
    (local $n i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (i32.load8_u (i32.add (local.get $p) (local.get $n)))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $next)))
    (local.get $n))

  (func $hello (export "hello")
    (global.set $calls (i32.add (global.get $calls) (i32.const 1)))
    (call $log (i32.const 16) (call $strlen (i32.const 16))))

  (func $calls (export "calls") (result i32) (global.get $calls))

  ;; two identical functions under different names (identical folding)
  (func $max_a (export "max_a") (param $a i32) (param $b i32) (result i32)
    (select (local.get $a) (local.get $b) (i32.gt_s (local.get $a) (local.get $b))))
  (func $max_b (export "max_b") (param $a i32) (param $b i32) (result i32)
    (select (local.get $a) (local.get $b) (i32.gt_s (local.get $a) (local.get $b))))

  ;; two functions that differ only in a constant (similar-function merging)
  (func $scale3 (export "scale3") (param $x i32) (result i32)
    (i32.add (i32.mul (local.get $x) (i32.const 3)) (i32.shr_s (local.get $x) (i32.const 31))))
  (func $scale5 (export "scale5") (param $x i32) (result i32)
    (i32.add (i32.mul (local.get $x) (i32.const 5)) (i32.shr_s (local.get $x) (i32.const 31))))

  ;; an if whose arms are nearly the same (branch fusion)
  (func $clamp (export "clamp") (param $x i32) (param $lo i32) (param $hi i32) (result i32)
    (if (result i32) (i32.lt_s (local.get $x) (local.get $lo))
      (then (call $log (i32.const 16) (i32.const 5)) (local.get $lo))
      (else
        (if (result i32) (i32.gt_s (local.get $x) (local.get $hi))
          (then (call $log (i32.const 16) (i32.const 6)) (local.get $hi))
          (else (local.get $x))))))

  ;; a repeated instruction sequence (outlining)
  (func $sum3 (export "sum3") (param $p i32) (result i32)
    (i32.add
      (i32.add (i32.load (local.get $p)) (i32.load offset=4 (local.get $p)))
      (i32.load offset=8 (local.get $p))))
  (func $sum3_twice (export "sum3_twice") (param $p i32) (param $q i32) (result i32)
    (i32.sub
      (i32.add
        (i32.add (i32.load (local.get $p)) (i32.load offset=4 (local.get $p)))
        (i32.load offset=8 (local.get $p)))
      (i32.add
        (i32.add (i32.load (local.get $q)) (i32.load offset=4 (local.get $q)))
        (i32.load offset=8 (local.get $q)))))

  (func $fib (export "fib") (param $n i32) (result i64)
    (local $a i64) (local $b i64) (local $t i64)
    (local.set $b (i64.const 1))
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $t (i64.add (local.get $a) (local.get $b)))
        (local.set $a (local.get $b))
        (local.set $b (local.get $t))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $next)))
    (local.get $a))

  (func $fact (export "fact") (param $n i64) (result i64)
    (if (result i64) (i64.le_s (local.get $n) (i64.const 1))
      (then (i64.const 1))
      (else (i64.mul (local.get $n) (call $fact (i64.sub (local.get $n) (i64.const 1))))))))

;; lattice, a wrong answer on purpose: the same answer whatever the input
;; ({"items":[],"sinks":[]}), which a smoke input must catch. The ABI: memory, alloc, simulate.
(module
  (memory (export "memory") 1)
  (data (i32.const 16) "{\"items\":[],\"sinks\":[]}")
  ;; Inputs are written at 1024 (the smoke inputs are small; a stress input is never reached).
  (func (export "alloc") (param i32) (result i32) (i32.const 1024))
  ;; The answer: (pointer << 32) | length.
  (func (export "simulate") (param i32 i32) (result i64)
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 23))))

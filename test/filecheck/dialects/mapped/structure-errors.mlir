// RUN: tilec-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{kernel: buffer arguments live in global memory, got !mapped.buf<4xf32, shared>}}
mapped.kernel @k(%x: !mapped.buf<4xf32, shared>) target cpu {
  mapped.return
}

// -----

// expected-error @+1 {{kernel: an argument must be a global !mapped.buf or a scalar (index, integer, float), got vector<4xf32>}}
mapped.kernel @k(%v: vector<4xf32>) target cpu {
  mapped.return
}

// -----

// expected-error @+1 {{kernel: a cpu kernel takes no `smem` (it runs on host threads)}}
mapped.kernel @k() target cpu smem 1024 {
  mapped.return
}

// -----

// expected-error @+1 {{kernel: a cpu kernel takes no `grid` (it runs on host threads)}}
mapped.kernel @k() target cpu grid [1, 1, 1] block [1, 1, 1] {
  mapped.return
}

// -----

// expected-error @+1 {{kernel: a gpu kernel needs `grid [...]` and `block [...]`}}
mapped.kernel @k() target gpu block [128, 1, 1] {
  mapped.return
}

// -----

// expected-error @+1 {{expected a target (gpu, cpu)}}
mapped.kernel @k() target tpu {
  mapped.return
}

// -----

// expected-error @+1 {{kernel: unknown target 'tpu' (expected gpu or cpu)}}
"mapped.kernel"() <{sym_name = "k", function_type = () -> (), target = "tpu"}> ({
  "mapped.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{kernel: a kernel returns nothing: results leave through global buffers}}
"mapped.kernel"() <{sym_name = "k", function_type = () -> (f32), target = "cpu"}> ({
  "mapped.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{kernel: entry block arguments must match the kernel's argument types}}
"mapped.kernel"() <{sym_name = "k", function_type = (index) -> (), target = "cpu"}> ({
^bb0(%x: f32):
  "mapped.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{kernel: block must be three positive thread counts, got [128, 1]}}
mapped.kernel @k() target gpu grid [1, 1, 1] block [128, 1] {
  mapped.return
}

// -----

// expected-error @+1 {{kernel: block [64, 32, 1] has 2048 threads (at most 1024)}}
mapped.kernel @k() target gpu grid [1, 1, 1] block [64, 32, 1] {
  mapped.return
}

// -----

// expected-error @+1 {{kernel: wave must be 32 or 64, got 16}}
mapped.kernel @k() target gpu grid [1, 1, 1] block [64, 1, 1] wave 16 {
  mapped.return
}

// -----

// expected-error @+1 {{kernel: smem must be >= 0 bytes, got -4}}
mapped.kernel @k() target gpu grid [1, 1, 1] block [64, 1, 1] smem -4 {
  mapped.return
}

// -----

// expected-error @+1 {{kernel: shared buffers need 16384 bytes but the kernel requests smem 8192 (set `smem 16384` or more)}}
mapped.kernel @k() target gpu grid [1, 1, 1] block [64, 1, 1] smem 8192 {
  %s = mapped.alloc : !mapped.buf<64x64xf32, shared>
  mapped.return
}

// -----

// expected-error @+1 {{kernel: body must end with mapped.return}}
mapped.kernel @k() target cpu {
  %c0 = arith.constant 0 : index
}

// -----

// expected-error @+1 {{grid: %B is not an argument of this kernel}}
mapped.kernel @k(%A: !mapped.buf<?xf32, global>) target gpu grid [cdiv(%B:0, 128), 1, 1] block [128, 1, 1] {
  mapped.return
}

// -----

// expected-error @+1 {{kernel: grid extent x uses argument #0 as a count, but it is !mapped.buf<?xf32, global> (a buffer term needs an axis: `%arg:axis`)}}
mapped.kernel @k(%A: !mapped.buf<?xf32, global>) target gpu grid [cdiv(%A, 128), 1, 1] block [128, 1, 1] {
  mapped.return
}

// -----

// expected-error @+1 {{kernel: grid extent y uses argument #1 as a count, but it is f32}}
mapped.kernel @k(%A: !mapped.buf<?xf32, global>, %eps: f32) target gpu grid [1, cdiv(%eps, 2), 1] block [128, 1, 1] {
  mapped.return
}

// -----

// expected-error @+1 {{kernel: grid extent x takes axis 0 of argument #0, which is index, not a buffer}}
mapped.kernel @k(%n: index) target gpu grid [cdiv(%n:0, 128), 1, 1] block [128, 1, 1] {
  mapped.return
}

// -----

// expected-error @+1 {{kernel: grid extent z takes axis 2 of argument #0, which has rank 2}}
mapped.kernel @k(%A: !mapped.buf<?x?xf32, global>) target gpu grid [1, 1, cdiv(%A:2, 4)] block [128, 1, 1] {
  mapped.return
}

// -----

// expected-error @+1 {{kernel: grid extent x refers to argument #3, but the kernel has 1}}
"mapped.kernel"() <{sym_name = "k", function_type = (index) -> (), target = "gpu", grid = #mapped.grid<[cdiv(arg3, 128), 1, 1]>, block = array<i64: 128, 1, 1>}> ({
^bb0(%n: index):
  "mapped.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{a grid has 3 extents (x, y, z), got 2}}
mapped.kernel @k() target gpu grid [1, 1] block [128, 1, 1] {
  mapped.return
}

// -----

// expected-error @+1 {{expected an integer or cdiv(...) in a grid extent}}
mapped.kernel @k(%n: index) target gpu grid [ceil(%n, 4), 1, 1] block [128, 1, 1] {
  mapped.return
}

// -----

// expected-error @+1 {{mapped.grid: a constant factor must be >= 1, got 0}}
mapped.kernel @k() target gpu grid [0, 1, 1] block [128, 1, 1] {
  mapped.return
}

// -----

// expected-error @+1 {{mapped.grid: cdiv tile must be >= 1, got 0}}
mapped.kernel @k(%n: index) target gpu grid [cdiv(%n, 0), 1, 1] block [128, 1, 1] {
  mapped.return
}

// -----

// expected-error @+1 {{expected a grid term argN or argN:axis}}
"mapped.kernel"() <{sym_name = "k", function_type = (index) -> (), target = "gpu", grid = #mapped.grid<[cdiv(n, 128), 1, 1]>, block = array<i64: 128, 1, 1>}> ({
^bb0(%n: index):
  "mapped.return"() : () -> ()
}) : () -> ()

// -----

func.func @f() {
  // expected-error @+1 {{'mapped.return' expects parent op to be one of 'mapped.kernel', 'mapped.host'}}
  mapped.return
}

// -----

func.func @f() {
  // expected-error @+1 {{yield: 'mapped.yield' expects parent op to be one of 'mapped.parallel', 'mapped.pipeline', 'mapped.ws_pipeline', 'mapped.frag_store', 'mapped.frag_map', 'mapped.combine_scan', 'mapped.lookback'}}
  mapped.yield
}

// -----

mapped.kernel @k(%n: index) target cpu {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  mapped.parallel (%i) = (%c0) to (%n) step (%c1) on cores {
    // expected-error @+1 {{yield: 2 value(s) but 1 type(s)}}
    mapped.yield %i, %i : index
  }
  mapped.return
}

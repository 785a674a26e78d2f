// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s

// A vectorized, OpenMP-parallel row softmax-like loop nest.
// CHECK-LABEL: hw.cpu.func @scale_rows(%X: !hw.ptr<generic, f32>, %Y: !hw.ptr<generic, f32>, %rows: i64, %cols: i64, %s: f32) {
hw.cpu.func @scale_rows(%X: !hw.ptr<generic, f32>, %Y: !hw.ptr<generic, f32>, %rows: i64, %cols: i64, %s: f32) {
  // CHECK-NEXT: %c0 = arith.constant 0 : i64
  %c0 = arith.constant 0 : i64
  // CHECK-NEXT: %c1 = arith.constant 1 : i64
  %c1 = arith.constant 1 : i64
  // CHECK-NEXT: %c8 = arith.constant 8 : i64
  %c8 = arith.constant 8 : i64
  // CHECK-NEXT: %sv = hw.cpu.splat %s : f32 -> vector<8xf32>
  %sv = hw.cpu.splat %s : f32 -> vector<8xf32>
  // CHECK-NEXT: hw.cpu.parallel_for %r = %c0 to %rows step %c1 schedule static : i64 {
  hw.cpu.parallel_for %r = %c0 to %rows step %c1 schedule static : i64 {
    // CHECK-NEXT: %base = arith.muli %r, %cols : i64
    %base = arith.muli %r, %cols : i64
    // CHECK-NEXT: %buf = hw.cpu.alloca 1024 align 64 : !hw.ptr<local, f32>
    %buf = hw.cpu.alloca 1024 align 64 : !hw.ptr<local, f32>
    // CHECK-NEXT: scf.for %j = %c0 to %cols step %c8 : i64 {
    scf.for %j = %c0 to %cols step %c8 : i64 {
      // CHECK-NEXT: %off = arith.addi %base, %j : i64
      %off = arith.addi %base, %j : i64
      // CHECK-NEXT: %x = hw.cpu.load %X[%off] : !hw.ptr<generic, f32> -> vector<8xf32>
      %x = hw.cpu.load %X[%off] : !hw.ptr<generic, f32> -> vector<8xf32>
      // CHECK-NEXT: %y = arith.mulf %x, %sv : vector<8xf32>
      %y = arith.mulf %x, %sv : vector<8xf32>
      // CHECK-NEXT: %m = hw.cpu.vreduce max %y : vector<8xf32> -> f32
      %m = hw.cpu.vreduce max %y : vector<8xf32> -> f32
      // CHECK-NEXT: %a = hw.cpu.vreduce add %y : vector<8xf32> -> f32
      %a = hw.cpu.vreduce add %y : vector<8xf32> -> f32
      // CHECK-NEXT: %p = hw.cpu.vreduce mul %y : vector<8xf32> -> f32
      %p = hw.cpu.vreduce mul %y : vector<8xf32> -> f32
      // CHECK-NEXT: %n = hw.cpu.vreduce min %y : vector<8xf32> -> f32
      %n = hw.cpu.vreduce min %y : vector<8xf32> -> f32
      // CHECK-NEXT: %e = hw.cpu.extract %y[7] : vector<8xf32>
      %e = hw.cpu.extract %y[7] : vector<8xf32>
      // CHECK-NEXT: hw.cpu.store %e, %buf[%j] : f32, !hw.ptr<local, f32>
      hw.cpu.store %e, %buf[%j] : f32, !hw.ptr<local, f32>
      // CHECK-NEXT: %z = hw.cpu.load %buf[%j] : !hw.ptr<local, f32> -> f32
      %z = hw.cpu.load %buf[%j] : !hw.ptr<local, f32> -> f32
      // CHECK-NEXT: hw.cpu.store %y, %Y[%off] : vector<8xf32>, !hw.ptr<generic, f32>
      hw.cpu.store %y, %Y[%off] : vector<8xf32>, !hw.ptr<generic, f32>
    // CHECK-NEXT: }
    }
    // CHECK-NEXT: hw.cpu.yield
    hw.cpu.yield
  // CHECK-NEXT: }
  }
  // CHECK-NEXT: hw.cpu.return
  hw.cpu.return
// CHECK-NEXT: }
}

// Collapsed two-dimensional loop with a chunked dynamic schedule over index bounds.
// CHECK-LABEL: hw.cpu.func @fill(%D: !hw.ptr<generic, f64>, %n: i64, %v: f64, %k: i32) attributes {origin = "test"} {
hw.cpu.func @fill(%D: !hw.ptr<generic, f64>, %n: i64, %v: f64, %k: i32) attributes {origin = "test"} {
  // CHECK-NEXT: %z = arith.constant 0 : index
  %z = arith.constant 0 : index
  // CHECK-NEXT: %o = arith.constant 1 : index
  %o = arith.constant 1 : index
  // CHECK-NEXT: %ni = arith.index_cast %n : i64 to index
  %ni = arith.index_cast %n : i64 to index
  // CHECK-NEXT: hw.cpu.parallel_for (%i, %j) = (%z, %z) to (%ni, %ni) step (%o, %o) schedule dynamic 16 : index {
  hw.cpu.parallel_for (%i, %j) = (%z, %z) to (%ni, %ni) step (%o, %o) schedule dynamic 16 : index {
    // CHECK-NEXT: %ii = arith.index_cast %i : index to i64
    %ii = arith.index_cast %i : index to i64
    // CHECK-NEXT: %vv = hw.cpu.splat %v : f64 -> vector<4xf64>
    %vv = hw.cpu.splat %v : f64 -> vector<4xf64>
    // CHECK-NEXT: hw.cpu.store %vv, %D[%ii] : vector<4xf64>, !hw.ptr<generic, f64>
    hw.cpu.store %vv, %D[%ii] : vector<4xf64>, !hw.ptr<generic, f64>
    // CHECK-NEXT: %kv = hw.cpu.splat %k : i32 -> vector<16xi32>
    %kv = hw.cpu.splat %k : i32 -> vector<16xi32>
    // CHECK-NEXT: %ks = hw.cpu.vreduce add %kv {note = 1 : i64} : vector<16xi32> -> i32
    %ks = hw.cpu.vreduce add %kv {note = 1 : i64} : vector<16xi32> -> i32
    // CHECK-NEXT: hw.cpu.yield
    hw.cpu.yield
  // CHECK-NEXT: }
  }
  // CHECK-NEXT: hw.cpu.parallel_for %q = %z to %ni step %o schedule guided : index {
  hw.cpu.parallel_for %q = %z to %ni step %o schedule guided : index {
    // CHECK-NEXT: hw.cpu.yield
    hw.cpu.yield
  // CHECK-NEXT: }
  }
  // CHECK-NEXT: hw.cpu.return
  hw.cpu.return
// CHECK-NEXT: }
}

// RUN: tilec-opt %s --split-input-file --verify-diagnostics

// --- functions and loops

// expected-error @+1 {{cpu.func: parameter %p has type !hw.ptr<generic>; parameters must be typed generic pointers (!hw.ptr<generic, f32>) or scalars (integers, index, f32, f64)}}
hw.cpu.func @f(%p: !hw.ptr<generic>) {
  hw.cpu.return
}

// -----

// expected-error @+1 {{hw.ptr: element type must be f16, bf16, f32, f64, i8, i16, i32 or i64, got i1}}
hw.cpu.func @f(%p: !hw.ptr<generic, i1>) {
  hw.cpu.return
}

// -----

// expected-error @+1 {{cpu.func: body must end with hw.cpu.return}}
hw.cpu.func @f(%n: i64) {
  %c = arith.constant 0 : i64
}

// -----

hw.cpu.func @f(%x: f32) {
  // expected-error @+1 {{cpu.parallel_for: bounds must be an integer or index, got f32}}
  hw.cpu.parallel_for %i = %x to %x step %x : f32 {
    hw.cpu.yield
  }
  hw.cpu.return
}

// -----

hw.cpu.func @f(%n: i64) {
  // expected-error @+1 {{2 induction variable(s) but 1 lower bound(s), 2 upper bound(s) and 2 step(s)}}
  hw.cpu.parallel_for (%i, %j) = (%n) to (%n, %n) step (%n, %n) : i64 {
    hw.cpu.yield
  }
  hw.cpu.return
}

// -----

hw.cpu.func @f(%n: i64) {
  // expected-error @+1 {{cpu.parallel_for: chunk size must be positive, got 0}}
  hw.cpu.parallel_for %i = %n to %n step %n schedule static 0 : i64 {
    hw.cpu.yield
  }
  hw.cpu.return
}

// -----

hw.cpu.func @f(%n: i64) {
  // expected-error @+1 {{expected a schedule kind (static, dynamic, guided)}}
  hw.cpu.parallel_for %i = %n to %n step %n schedule auto : i64 {
    hw.cpu.yield
  }
  hw.cpu.return
}

// -----

// --- memory

hw.cpu.func @f(%X: !hw.ptr<generic, f32>, %n: i64) {
  // expected-error @+1 {{cpu.load: the pointer holds f32 but the value is vector<8xf64>}}
  %v = hw.cpu.load %X[%n] : !hw.ptr<generic, f32> -> vector<8xf64>
  hw.cpu.return
}

// -----

hw.cpu.func @f(%X: !hw.ptr<generic, f32>, %n: i64) {
  // expected-error @+1 {{cpu.load: vector length must be a power of two, got 6}}
  %v = hw.cpu.load %X[%n] : !hw.ptr<generic, f32> -> vector<6xf32>
  hw.cpu.return
}

// -----

hw.cpu.func @f(%X: !hw.ptr<generic, f32>, %n: i64) {
  // expected-error @+1 {{cpu.load: vector<32xf32> is 128 bytes; vectors are at most 64}}
  %v = hw.cpu.load %X[%n] : !hw.ptr<generic, f32> -> vector<32xf32>
  hw.cpu.return
}

// -----

hw.cpu.func @f(%X: !hw.ptr<generic, f32>, %k: i32) {
  // expected-error @+1 {{operand is used with type i64, but has been previously used or defined with type i32}}
  %v = hw.cpu.load %X[%k] : !hw.ptr<generic, f32> -> f32
  hw.cpu.return
}

// -----

hw.cpu.func @f(%n: i64) {
  // expected-error @+1 {{cpu.alloca: alignment must be a power of two of at least the element size, got 2}}
  %p = hw.cpu.alloca 8 align 2 : !hw.ptr<local, f32>
  hw.cpu.return
}

// -----

// expected-error @+1 {{cpu.alloca: must be inside a hw.cpu.func}}
%p = hw.cpu.alloca 8 align 64 : !hw.ptr<local, f32>

// -----

// --- vectors

hw.cpu.func @f(%x: f32) {
  // expected-error @+1 {{cpu.splat: expected a vector type, got f32}}
  %v = hw.cpu.splat %x : f32 -> f32
  hw.cpu.return
}

// -----

hw.cpu.func @f(%x: f32) {
  %v = hw.cpu.splat %x : f32 -> vector<8xf32>
  // expected-error @+1 {{cpu.vreduce: the result is the element type f32, got f64}}
  %r = hw.cpu.vreduce add %v : vector<8xf32> -> f64
  hw.cpu.return
}

// -----

hw.cpu.func @f(%x: f32) {
  %v = hw.cpu.splat %x : f32 -> vector<8xf32>
  // expected-error @+1 {{expected a reduction kind (add, mul, max, min)}}
  %r = hw.cpu.vreduce xor %v : vector<8xf32> -> f32
  hw.cpu.return
}

// -----

hw.cpu.func @f(%x: f32) {
  %v = hw.cpu.splat %x : f32 -> vector<8xf32>
  // expected-error @+1 {{cpu.extract: lane 8 is out of range for vector<8xf32>}}
  %e = hw.cpu.extract %v[8] : vector<8xf32>
  hw.cpu.return
}

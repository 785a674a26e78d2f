// RUN: tilec-opt %s --split-input-file --verify-diagnostics

// --- types

// expected-error @+1 {{mapped.buf: a ? dimension is only allowed in global memory; shared buffers are static (got 4x?xf32)}}
func.func private @f(!mapped.buf<4x?xf32, shared>)

// -----

// expected-error @+1 {{mapped.buf: a reg buffer cannot have a zero dimension (got 0x4xf32)}}
func.func private @f(!mapped.buf<0x4xf32, reg>)

// -----

// expected-error @+1 {{mapped.buf: a buffer needs at least one dimension}}
func.func private @f(!mapped.buf<f32, global>)

// -----

// expected-error @+1 {{expected a memory space (global, shared, reg)}}
func.func private @f(!mapped.buf<4xf32, local>)

// -----

// expected-error @+1 {{element type must be f8E4M3FN, f8E5M2, f16, bf16, f32, f64, an integer of width 1, 8, 16, 32 or 64 or an unsigned integer ui8, ui16, ui32 or ui64, got index}}
func.func private @f(!mapped.buf<4xindex, global>)

// -----

// expected-error @+1 {{mapped.buf: a swizzle layout applies to shared memory only (this buffer is global)}}
func.func private @f(!mapped.buf<8x64xf16, global, swizzle<3, 4, 3>>)

// -----

// expected-error @+1 {{swizzle<3, 4, 2> is not a bijection: shift must be >= bits so the XORed bit ranges do not overlap}}
func.func private @f(!mapped.buf<8x64xf16, shared, swizzle<3, 4, 2>>)

// -----

// expected-error @+1 {{swizzle<0, 4, 3> needs bits >= 1 and base >= 0}}
func.func private @f(!mapped.buf<8x64xf16, shared, swizzle<0, 4, 3>>)

// -----

// expected-error @+1 {{mapped.buf: swizzle<1, 0, 1> moves 1-byte chunks, smaller than one f16 element (2 bytes)}}
func.func private @f(!mapped.buf<8x64xf16, shared, swizzle<1, 0, 1>>)

// -----

// expected-error @+1 {{mapped.buf: swizzle<3, 4, 3> moves 16-byte chunks but the innermost row is 40 bytes (20xf16): a row must hold whole chunks}}
func.func private @f(!mapped.buf<64x20xf16, shared, swizzle<3, 4, 3>>)

// -----

// expected-error @+1 {{mapped.buf: swizzle<3, 4, 3> repeats every 1024 bytes but one 4x64xf16 slice is 512 bytes: each slice of the last two axes must hold whole periods}}
func.func private @f(!mapped.buf<2x4x64xf16, shared, swizzle<3, 4, 3>>)

// -----

// expected-error @+1 {{expected a layout swizzle<bits, base, shift> (the only buffer layout)}}
func.func private @f(!mapped.buf<8x64xf16, shared, strided<[64, 1]>>)

// -----

// expected-error @+1 {{mapped.dist: vector must be a power of two, got 6}}
func.func private @f() attributes {d = #mapped.dist<threads = [8, 16], vector = 6>}

// -----

// expected-error @+1 {{mapped.dist: threads must be a non-empty list of positive counts, got [0, 16]}}
func.func private @f() attributes {d = #mapped.dist<threads = [0, 16], vector = 8>}

// -----

// --- dim, alloc

mapped.kernel @k(%A: !mapped.buf<?x?xf16, global>) target cpu {
  // expected-error @+1 {{dim: axis 2 is out of range for !mapped.buf<?x?xf16, global> (rank 2)}}
  %n = mapped.dim %A 2 : !mapped.buf<?x?xf16, global>
  mapped.return
}

// -----

mapped.kernel @k() target cpu {
  // expected-error @+1 {{alloc: cannot allocate global memory in a kernel: allocate global memory on the host and pass it in}}
  %g = mapped.alloc : !mapped.buf<64xf32, global>
  mapped.return
}

// -----

mapped.kernel @k() target cpu {
  // expected-error @+1 {{alloc: only exists on gpu: the enclosing kernel @k targets cpu}}
  %s = mapped.alloc : !mapped.buf<64xf32, shared>
  mapped.return
}

// -----

mapped.kernel @k(%n: index) target gpu grid [1, 1, 1] block [128, 1, 1] smem 256 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{alloc: shared memory is allocated once per block: put this alloc at the top level of the kernel body, not inside scf.for}}
    %s = mapped.alloc : !mapped.buf<64xf32, shared>
  }
  mapped.return
}

// -----

// --- load, store

mapped.kernel @k(%A: !mapped.buf<?x?xf32, global>) target cpu {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{load: source !mapped.buf<?x?xf32, global> has rank 2 but 1 index operand(s) were given}}
  %v = mapped.load %A[%c0] : !mapped.buf<?x?xf32, global> -> f32
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf32, global>) target cpu {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{load: buffer holds f32 but the loaded value is vector<4xf16>}}
  %v = mapped.load %A[%c0, %c0] : !mapped.buf<?x?xf32, global> -> vector<4xf16>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf32, global>) target cpu {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{load: the loaded value must be a scalar or a 1-D vector along the last axis, got vector<2x4xf32>}}
  %v = mapped.load %A[%c0, %c0] : !mapped.buf<?x?xf32, global> -> vector<2x4xf32>
  mapped.return
}

// -----

mapped.kernel @k() target cpu {
  %c0 = arith.constant 0 : index
  %r = mapped.alloc : !mapped.buf<4x6xf32, reg>
  // expected-error @+1 {{load: vector width 4 does not divide the last dimension 6 of !mapped.buf<4x6xf32, reg>}}
  %v = mapped.load %r[%c0, %c0] : !mapped.buf<4x6xf32, reg> -> vector<4xf32>
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [128, 1, 1] smem 8192 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<64x64xf16, shared, swizzle<3, 4, 3>>
  // expected-error @+1 {{load: a 16xf16 access is 32 bytes, wider than the 16-byte swizzle chunk of !mapped.buf<64x64xf16, shared, swizzle<3, 4, 3>>}}
  %v = mapped.load %s[%c0, %c0] : !mapped.buf<64x64xf16, shared, swizzle<3, 4, 3>> -> vector<16xf16>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf32, global>, %x: f16) target cpu {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{store: buffer holds f32 but the stored value is f16}}
  mapped.store %x, %A[%c0, %c0] : f16, !mapped.buf<?x?xf32, global>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf32, global>, %x: f32) target cpu {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{store: destination !mapped.buf<?x?xf32, global> has rank 2 but 3 index operand(s) were given}}
  mapped.store %x, %A[%c0, %c0, %c0] : f32, !mapped.buf<?x?xf32, global>
  mapped.return
}

// -----

// --- copy, async_copy

mapped.kernel @k(%A: !mapped.buf<?x?xf32, global>, %B: !mapped.buf<?x?xf32, global>) target cpu {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{copy: source !mapped.buf<?x?xf32, global> has rank 2 but 1 index operand(s) were given}}
  mapped.copy %A[%c0] -> %B[%c0, %c0] shape [8, 8] : !mapped.buf<?x?xf32, global>, !mapped.buf<?x?xf32, global>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf32, global>, %B: !mapped.buf<?x?xf32, global>) target cpu {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{copy: destination !mapped.buf<?x?xf32, global> has rank 2 but 3 index operand(s) were given}}
  mapped.copy %A[%c0, %c0] -> %B[%c0, %c0, %c0] shape [8, 8] : !mapped.buf<?x?xf32, global>, !mapped.buf<?x?xf32, global>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf32, global>, %B: !mapped.buf<?x?xf32, global>) target cpu {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{copy: window shape must be non-empty and positive, got [0, 8]}}
  mapped.copy %A[%c0, %c0] -> %B[%c0, %c0] shape [0, 8] : !mapped.buf<?x?xf32, global>, !mapped.buf<?x?xf32, global>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf32, global>, %B: !mapped.buf<?xf32, global>) target cpu {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{copy: window rank 2 exceeds the destination's rank 1}}
  mapped.copy %A[%c0, %c0] -> %B[%c0] shape [8, 8] : !mapped.buf<?x?xf32, global>, !mapped.buf<?xf32, global>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf32, global>, %B: !mapped.buf<?x?xf16, global>) target cpu {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{copy: source holds f32 but destination holds f16}}
  mapped.copy %A[%c0, %c0] -> %B[%c0, %c0] shape [8, 8] : !mapped.buf<?x?xf32, global>, !mapped.buf<?x?xf16, global>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf32, global>) target cpu {
  %c0 = arith.constant 0 : index
  %r = mapped.alloc : !mapped.buf<8x8xf32, reg>
  // expected-error @+1 {{copy: window 8x16 does not fit the destination !mapped.buf<8x8xf32, reg> (its last 2 axes are 8x8)}}
  mapped.copy %A[%c0, %c0] -> %r[%c0, %c0] shape [8, 16] : !mapped.buf<?x?xf32, global>, !mapped.buf<8x8xf32, reg>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf32, global>) target cpu {
  %c0 = arith.constant 0 : index
  %r = mapped.alloc : !mapped.buf<4x8xf32, reg>
  // expected-error @+1 {{copy: window 8x8 does not fit the source !mapped.buf<4x8xf32, reg> (its last 2 axes are 4x8)}}
  mapped.copy %r[%c0, %c0] -> %A[%c0, %c0] shape [8, 8] : !mapped.buf<4x8xf32, reg>, !mapped.buf<?x?xf32, global>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf32, global>) target gpu grid [1, 1, 1] block [128, 1, 1] {
  %c0 = arith.constant 0 : index
  %r = mapped.alloc : !mapped.buf<8x8xf32, reg>
  // expected-error @+1 {{copy: the destination is a reg buffer, private to one thread; a block-wide copy cannot use it (use mapped.load/mapped.store)}}
  mapped.copy %A[%c0, %c0] -> %r[%c0, %c0] shape [8, 8] : !mapped.buf<?x?xf32, global>, !mapped.buf<8x8xf32, reg>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf32, global>) target gpu grid [1, 1, 1] block [128, 1, 1] smem 4096 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %s = mapped.alloc : !mapped.buf<32x32xf32, shared>
  mapped.parallel (%w) = (%c0) to (%c4) step (%c1) on warps {
    // expected-error @+1 {{copy: a cooperative copy needs every thread of the block, but it is inside `mapped.parallel ... on warps` where only part of the block runs each iteration}}
    mapped.copy %A[%c0, %c0] -> %s[%c0, %c0] shape [32, 32] : !mapped.buf<?x?xf32, global>, !mapped.buf<32x32xf32, shared>
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf32, global>, %B: !mapped.buf<?x?xf32, global>) target cpu {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{copy: `dist` spreads a copy over the threads of a gpu block; a cpu copy takes none}}
  mapped.copy %A[%c0, %c0] -> %B[%c0, %c0] shape [8, 8] {dist = #mapped.dist<threads = [1, 1], vector = 4>} : !mapped.buf<?x?xf32, global>, !mapped.buf<?x?xf32, global>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1] smem 8192 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<128x32xf16, shared>
  // expected-error @+1 {{copy: dist arranges threads in 1 axes but the window 128x32 has 2}}
  mapped.copy %A[%c0, %c0] -> %s[%c0, %c0] shape [128, 32] {dist = #mapped.dist<threads = [128], vector = 8>} : !mapped.buf<?x?xf16, global>, !mapped.buf<128x32xf16, shared>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1] smem 8192 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<128x32xf16, shared>
  // expected-error @+1 {{copy: dist uses 256 threads (64x4) but the block has 128}}
  mapped.copy %A[%c0, %c0] -> %s[%c0, %c0] shape [128, 32] {dist = #mapped.dist<threads = [64, 4], vector = 8>} : !mapped.buf<?x?xf16, global>, !mapped.buf<128x32xf16, shared>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1] smem 6144 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<128x24xf16, shared>
  // expected-error @+1 {{copy: dist vector 16 does not divide the window's last dimension 24}}
  mapped.copy %A[%c0, %c0] -> %s[%c0, %c0] shape [128, 24] {dist = #mapped.dist<threads = [64, 2], vector = 16>} : !mapped.buf<?x?xf16, global>, !mapped.buf<128x24xf16, shared>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1] smem 8192 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<128x32xf16, shared>
  // expected-error @+1 {{copy: dist vector 16xf16 is 32 bytes; one thread moves at most 16 bytes per access}}
  mapped.copy %A[%c0, %c0] -> %s[%c0, %c0] shape [128, 32] {dist = #mapped.dist<threads = [64, 2], vector = 16>} : !mapped.buf<?x?xf16, global>, !mapped.buf<128x32xf16, shared>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1] smem 8192 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<128x32xf16, shared, swizzle<3, 3, 3>>
  // expected-error @+1 {{copy: dist vector of 16 bytes crosses the 8-byte swizzle chunks of !mapped.buf<128x32xf16, shared, swizzle<3, 3, 3>>}}
  mapped.copy %A[%c0, %c0] -> %s[%c0, %c0] shape [128, 32] {dist = #mapped.dist<threads = [32, 4], vector = 8>} : !mapped.buf<?x?xf16, global>, !mapped.buf<128x32xf16, shared, swizzle<3, 3, 3>>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf16, global>, %B: !mapped.buf<?x?xf16, global>) target cpu {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{dist must be a #mapped.dist attribute, got 8 : i64}}
  mapped.copy %A[%c0, %c0] -> %B[%c0, %c0] shape [8, 8] {dist = 8 : i64} : !mapped.buf<?x?xf16, global>, !mapped.buf<?x?xf16, global>
  mapped.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf16, global>, %B: !mapped.buf<?x?xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1] {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{async_copy: copies global -> shared only, got global -> global}}
  mapped.async_copy %A[%c0, %c0] -> %B[%c0, %c0] shape [8, 8] : !mapped.buf<?x?xf16, global>, !mapped.buf<?x?xf16, global>
  mapped.return
}

// -----

func.func @f(%A: !mapped.buf<?x?xf16, global>, %s: !mapped.buf<8x8xf16, shared>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{async_copy: must be inside a mapped.kernel with target gpu}}
  mapped.async_copy %A[%c0, %c0] -> %s[%c0, %c0] shape [8, 8] : !mapped.buf<?x?xf16, global>, !mapped.buf<8x8xf16, shared>
  func.return
}

// -----

mapped.kernel @k(%A: !mapped.buf<?x?xf16, global>) target gpu grid [1, 1, 1] block [128, 1, 1] smem 8192 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<128x32xf16, shared>
  // expected-error @+1 {{async_copy: an async copy moves 4, 8 or 16 bytes per thread, but dist vector 1xf16 is 2}}
  mapped.async_copy %A[%c0, %c0] -> %s[%c0, %c0] shape [128, 32] {dist = #mapped.dist<threads = [4, 32], vector = 1>} : !mapped.buf<?x?xf16, global>, !mapped.buf<128x32xf16, shared>
  mapped.return
}

// -----

// --- async_commit, async_wait, barrier

mapped.kernel @k() target cpu {
  // expected-error @+1 {{async_commit: only exists on gpu}}
  mapped.async_commit
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [128, 1, 1] {
  // expected-error @+1 {{async_wait: pending group count must be >= 0, got -1}}
  mapped.async_wait -1
  mapped.return
}

// -----

mapped.kernel @k() target cpu {
  // expected-error @+1 {{async_wait: only exists on gpu}}
  mapped.async_wait 0
  mapped.return
}

// -----

mapped.kernel @k() target cpu {
  // expected-error @+1 {{barrier: only exists on gpu}}
  mapped.barrier
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [128, 1, 1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  mapped.parallel (%w) = (%c0) to (%c4) step (%c1) on warps {
    // expected-error @+1 {{barrier: a block barrier needs every thread of the block, but it is inside `mapped.parallel ... on warps`}}
    mapped.barrier
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [128, 1, 1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  mapped.parallel (%t) = (%c0) to (%c4) step (%c1) on threads {
    // expected-error @+1 {{barrier: a warp barrier needs every thread of the warp, but it is inside `mapped.parallel ... on threads`}}
    mapped.barrier warp
    mapped.yield
  }
  mapped.return
}

// -----

mapped.kernel @k() target gpu grid [1, 1, 1] block [128, 1, 1] {
  // expected-error @+1 {{barrier: unknown scope 'grid' (expected block or warp)}}
  "mapped.barrier"() <{scope = "grid"}> : () -> ()
  mapped.return
}

// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s

mapped.kernel @mem(%A: !mapped.buf<?x?xf16, global>, %X: !mapped.buf<?xf32, global>) target gpu grid [cdiv(%A:0, 128), 1, 1] block [128, 1, 1] smem 40960 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %M = mapped.dim %A 0 : !mapped.buf<?x?xf16, global>
  %sA = mapped.alloc : !mapped.buf<3x128x32xf16, shared, swizzle<3, 4, 3>>
  %sT = mapped.alloc : !mapped.buf<128x64xf16, shared>
  %r = mapped.alloc : !mapped.buf<4x8xf32, reg>
  %v = mapped.load %A[%M, %c0] : !mapped.buf<?x?xf16, global> -> vector<8xf16>
  %h = mapped.load %sT[%c0, %c1] : !mapped.buf<128x64xf16, shared> -> f16
  %x = mapped.load %X[%c1] : !mapped.buf<?xf32, global> -> f32
  %q = mapped.load %r[%c1, %c0] : !mapped.buf<4x8xf32, reg> -> vector<4xf32>
  mapped.store %v, %sA[%c1, %c0, %c0] : vector<8xf16>, !mapped.buf<3x128x32xf16, shared, swizzle<3, 4, 3>>
  mapped.store %x, %r[%c0, %c1] : f32, !mapped.buf<4x8xf32, reg>
  mapped.copy %A[%M, %c0] -> %sT[%c0, %c0] shape [128, 64] {dist = #mapped.dist<threads = [16, 8], vector = 8>} : !mapped.buf<?x?xf16, global>, !mapped.buf<128x64xf16, shared>
  mapped.copy %sT[%c0, %c0] -> %A[%M, %c0] shape [128, 64] {tilec.tag = 1 : i64} : !mapped.buf<128x64xf16, shared>, !mapped.buf<?x?xf16, global>
  mapped.async_copy %A[%M, %c0] -> %sA[%c1, %c0, %c0] shape [128, 32] {dist = #mapped.dist<threads = [32, 4], vector = 8>} : !mapped.buf<?x?xf16, global>, !mapped.buf<3x128x32xf16, shared, swizzle<3, 4, 3>>
  mapped.async_commit
  mapped.async_wait 0
  mapped.barrier
  mapped.barrier warp
  mapped.return
}

// CHECK-LABEL: mapped.kernel @mem
// CHECK-SAME:    smem 40960 {
// CHECK:         %M = mapped.dim %A 0 : !mapped.buf<?x?xf16, global>
// CHECK-NEXT:    %sA = mapped.alloc : !mapped.buf<3x128x32xf16, shared, swizzle<3, 4, 3>>
// CHECK-NEXT:    %sT = mapped.alloc : !mapped.buf<128x64xf16, shared>
// CHECK-NEXT:    %r = mapped.alloc : !mapped.buf<4x8xf32, reg>
// CHECK-NEXT:    %v = mapped.load %A[%M, %c0] : !mapped.buf<?x?xf16, global> -> vector<8xf16>
// CHECK-NEXT:    %h = mapped.load %sT[%c0, %c1] : !mapped.buf<128x64xf16, shared> -> f16
// CHECK-NEXT:    %x = mapped.load %X[%c1] : !mapped.buf<?xf32, global> -> f32
// CHECK-NEXT:    %q = mapped.load %r[%c1, %c0] : !mapped.buf<4x8xf32, reg> -> vector<4xf32>
// CHECK-NEXT:    mapped.store %v, %sA[%c1, %c0, %c0] : vector<8xf16>, !mapped.buf<3x128x32xf16, shared, swizzle<3, 4, 3>>
// CHECK-NEXT:    mapped.store %x, %r[%c0, %c1] : f32, !mapped.buf<4x8xf32, reg>
// CHECK-NEXT:    mapped.copy %A[%M, %c0] -> %sT[%c0, %c0] shape [128, 64] {dist = #mapped.dist<threads = [16, 8], vector = 8>} : !mapped.buf<?x?xf16, global>, !mapped.buf<128x64xf16, shared>
// CHECK-NEXT:    mapped.copy %sT[%c0, %c0] -> %A[%M, %c0] shape [128, 64] {tilec.tag = 1 : i64} : !mapped.buf<128x64xf16, shared>, !mapped.buf<?x?xf16, global>
// CHECK-NEXT:    mapped.async_copy %A[%M, %c0] -> %sA[%c1, %c0, %c0] shape [128, 32] {dist = #mapped.dist<threads = [32, 4], vector = 8>} : !mapped.buf<?x?xf16, global>, !mapped.buf<3x128x32xf16, shared, swizzle<3, 4, 3>>
// CHECK-NEXT:    mapped.async_commit
// CHECK-NEXT:    mapped.async_wait 0
// CHECK-NEXT:    mapped.barrier
// CHECK-NEXT:    mapped.barrier warp
// CHECK-NEXT:    mapped.return

// On cpu the running thread copies alone; reg buffers are local arrays.
mapped.kernel @cpu_mem(%A: !mapped.buf<?x?xf32, global>) target cpu {
  %c0 = arith.constant 0 : index
  %t = mapped.alloc : !mapped.buf<8x8xf32, reg>
  mapped.copy %A[%c0, %c0] -> %t[%c0, %c0] shape [8, 8] : !mapped.buf<?x?xf32, global>, !mapped.buf<8x8xf32, reg>
  %v = mapped.load %t[%c0, %c0] : !mapped.buf<8x8xf32, reg> -> vector<8xf32>
  mapped.return
}

// CHECK-LABEL: mapped.kernel @cpu_mem(%A: !mapped.buf<?x?xf32, global>) target cpu {
// CHECK:         %t = mapped.alloc : !mapped.buf<8x8xf32, reg>
// CHECK-NEXT:    mapped.copy %A[%c0, %c0] -> %t[%c0, %c0] shape [8, 8] : !mapped.buf<?x?xf32, global>, !mapped.buf<8x8xf32, reg>
// CHECK-NEXT:    %v = mapped.load %t[%c0, %c0] : !mapped.buf<8x8xf32, reg> -> vector<8xf32>

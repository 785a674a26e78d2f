// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s

// A gpu kernel: grid extents are products of constants and cdiv(...) of buffer dims / scalars.
mapped.kernel @gemm(%A: !mapped.buf<?x?xf16, global>, %B: !mapped.buf<?x?xf16, global>, %C: !mapped.buf<?x?xf32, global>, %batch: index) target gpu grid [cdiv(%C:1, 128), cdiv(%C:0, 128), cdiv(%batch, 1)] block [128, 1, 1] smem 49152 {
  mapped.return
}

// CHECK-LABEL: mapped.kernel @gemm(%A: !mapped.buf<?x?xf16, global>, %B: !mapped.buf<?x?xf16, global>, %C: !mapped.buf<?x?xf32, global>, %batch: index)
// CHECK-SAME:    target gpu grid [cdiv(%C:1, 128), cdiv(%C:0, 128), cdiv(%batch, 1)] block [128, 1, 1] smem 49152 {
// CHECK-NEXT:    mapped.return
// CHECK-NEXT:  }

// Several terms in one cdiv, several factors in one extent, wave 64 and discardable attributes.
mapped.kernel @flat(%X: !mapped.buf<?x?x?xf32, global>, %n: i32, %eps: f32) target gpu grid [cdiv(%X:0 * %X:1 * %n, 256) * 2, 4, 1] block [64, 4, 1] wave 64 attributes {tilec.origin = "softmax"} {
  mapped.return
}

// CHECK-LABEL: mapped.kernel @flat(%X: !mapped.buf<?x?x?xf32, global>, %n: i32, %eps: f32)
// CHECK-SAME:    target gpu grid [cdiv(%X:0 * %X:1 * %n, 256) * 2, 4, 1] block [64, 4, 1] wave 64 attributes {tilec.origin = "softmax"} {
// CHECK-NEXT:    mapped.return
// CHECK-NEXT:  }

// A cpu kernel takes no grid, block, wave or smem.
mapped.kernel @host(%x: !mapped.buf<16xf64, global>, %s: f64) target cpu {
  mapped.return {tilec.note = 1 : i64}
}

// CHECK-LABEL: mapped.kernel @host(%x: !mapped.buf<16xf64, global>, %s: f64) target cpu {
// CHECK-NEXT:    mapped.return {tilec.note = 1 : i64}
// CHECK-NEXT:  }

mapped.kernel @noargs() target cpu {
  mapped.return
}

// CHECK-LABEL: mapped.kernel @noargs() target cpu {
// CHECK-NEXT:    mapped.return
// CHECK-NEXT:  }

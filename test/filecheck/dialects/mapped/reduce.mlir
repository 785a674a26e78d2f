// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s

mapped.kernel @reductions(%X: !mapped.buf<?xf32, global>, %Y: !mapped.buf<?xi32, global>) target gpu grid [cdiv(%X:0, 256), 1, 1] block [256, 1, 1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %t = mapped.thread_id x
  %x = mapped.load %X[%t] : !mapped.buf<?xf32, global> -> f32
  %y = mapped.load %Y[%t] : !mapped.buf<?xi32, global> -> i32
  %s = mapped.reduce sum %x across warp : f32
  %m = mapped.reduce max %x across block : f32
  %n = mapped.reduce min %y across warp {tilec.tag = 4 : i64} : i32
  %p = mapped.reduce prod %y across block : i32
  mapped.parallel (%w) = (%c0) to (%c8) step (%c1) on warps {
    %r = mapped.reduce sum %x across warp : f32
    mapped.yield
  }
  mapped.return
}

// CHECK-LABEL: mapped.kernel @reductions
// CHECK:         %s = mapped.reduce sum %x across warp : f32
// CHECK-NEXT:    %m = mapped.reduce max %x across block : f32
// CHECK-NEXT:    %n = mapped.reduce min %y across warp {tilec.tag = 4 : i64} : i32
// CHECK-NEXT:    %p = mapped.reduce prod %y across block : i32
// CHECK-NEXT:    mapped.parallel (%w) = (%c0) to (%c8) step (%c1) on warps {
// CHECK-NEXT:      %r = mapped.reduce sum %x across warp : f32

// mapped.scan: exclusive prefix and total across the warp or the block (custom syntax round trip).
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s

mapped.kernel @scans(%X: !mapped.buf<?xf32, global>, %Y: !mapped.buf<?xi32, global>) target gpu grid [cdiv(%X:0, 256), 1, 1] block [256, 1, 1] {
  %t = mapped.thread_id x
  %x = mapped.load %X[%t] : !mapped.buf<?xf32, global> -> f32
  %y = mapped.load %Y[%t] : !mapped.buf<?xi32, global> -> i32
  %e, %s = mapped.scan sum %x across block : f32
  %p, %q = mapped.scan prod %y across warp {tilec.tag = 1 : i64} : i32
  mapped.return
}

// CHECK-LABEL: mapped.kernel @scans
// CHECK:         %e, %s = mapped.scan sum %x across block : f32
// CHECK-NEXT:    %p, %q = mapped.scan prod %y across warp {tilec.tag = 1 : i64} : i32

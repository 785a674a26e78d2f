// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s -p mapped-to-hw-nv -t ptx | filecheck %s --check-prefix=PTX

mapped.kernel @shuffles(%X: !mapped.buf<?xi64, global>, %Y: !mapped.buf<?xf32, global>) target gpu grid [cdiv(%X:0, 64), 1, 1] block [64, 1, 1] {
  %t = mapped.thread_id x
  %x = mapped.load %X[%t] : !mapped.buf<?xi64, global> -> i64
  %y = mapped.load %Y[%t] : !mapped.buf<?xf32, global> -> f32
  %a = mapped.shuffle_xor %x, 16 : i64
  %b = mapped.shuffle_xor %y, 1 {tilec.tag = 4 : i64} : f32
  mapped.store %a, %X[%t] : i64, !mapped.buf<?xi64, global>
  mapped.store %b, %Y[%t] : f32, !mapped.buf<?xf32, global>
  mapped.return
}

// CHECK-LABEL: mapped.kernel @shuffles
// CHECK:         %a = mapped.shuffle_xor %x, 16 : i64
// CHECK-NEXT:    %b = mapped.shuffle_xor %y, 1 {tilec.tag = 4 : i64} : f32

// NVIDIA shuffles 32-bit words: an i64 is two shfl.sync.bfly (its low and high words).
// PTX:      shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 16, 31, 0xffffffff;
// PTX-NEXT: shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 16, 31, 0xffffffff;
// PTX:      shfl.sync.bfly.b32 %f{{[0-9]+}}, %f{{[0-9]+}}, 1, 31, 0xffffffff;

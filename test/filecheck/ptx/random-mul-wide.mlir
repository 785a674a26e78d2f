// tile.random_bits on PTX: Philox's 32x32 -> 64-bit products (marked tilec.mul_wide by the loop
// nest) become mul.wide.u32 (20 per element, one IMAD.WIDE.U32 each); the rest of the integer math as
// arith. The PTX assembles for sm_80 and sm_90a.
// RUN: tilec-opt %s -p lower-to-ptx -t ptx -o %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: tilec-opt %s -p 'lower-to-ptx{sm=sm_80}' -t ptx -o %t.80.ptx
// RUN: ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin
// RUN: tilec-opt %s -p tile-fuse,tile-to-mapped{target=cuda} | filecheck %s --check-prefix=MAPPED

// MAPPED: %[[X:.*]] = arith.extui %{{.*}} : i32 to i64
// MAPPED-NEXT: arith.muli %[[X]], %{{.*}} {tilec.mul_wide} : i64

// CHECK: .visible .entry
// CHECK: mul.wide.u32 %rd{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}};
tile.func @bits(%s: i64) outs(%O: !tile.array<1x1xui32>) {
  %seed = tile.splat %s : i64 to !tile.tile<i64>
  %off = tile.constant 4294967295 : !tile.tile<i64>
  %r = tile.random_bits %seed, %off : !tile.tile<1x1xui32>
  tile.store %r, %O : !tile.tile<1x1xui32>, !tile.array<1x1xui32>
  tile.return
}

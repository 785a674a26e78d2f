// An `a` fragment loaded from a K x M window (`transposed`) is refused by the NVIDIA lowering
// (it was lowered as if stored M x K before); the AMD lowering and the verifier accept it.
// RUN: not tilec-opt %s -p mapped-to-hw-nv 2>&1 | filecheck %s
// CHECK: frag-load-transposed-a.mlir:[[# @LINE + 5]]:3: error: in pass 'mapped-to-hw-nv': mapped-to-hw-nv: `transposed` a fragments (A stored K x M) are not supported yet

mapped.kernel @at(%X: !mapped.buf<16x16xf16, global>) target gpu grid [1, 1, 1] block [32, 1, 1] smem 512 {
  %c0 = arith.constant 0 : index
  %s = mapped.alloc : !mapped.buf<16x16xf16, shared>
  %a = mapped.frag_load %s[%c0, %c0] transposed : !mapped.buf<16x16xf16, shared> -> !mapped.frag<16x16xf16, a, m16n8k16>
  mapped.return
}

// The lower-to-c pipeline level by level, for a matmul and a softmax (Inputs/matmul-softmax.mlir):
// the IR after tile-fuse (tile), tile-to-mapped (mapped) and mapped-to-hw-cpu (hw), printed to
// stderr by --print-ir-after. Every level re-parses with tilec-opt and prints identically, and
// lowering the re-parsed tile level gives the same final IR (vector=8: the pass's own default; the
// pipeline's is the host's vector width).
// RUN: tilec-opt %S/Inputs/matmul-softmax.mlir -p 'lower-to-c{vector=8}' --print-ir-after=tile-fuse,tile-to-mapped,mapped-to-hw-cpu 2> %t.dump > %t.final
// RUN: filecheck %s < %t.dump
// Split the dump into its three levels (one `// -----` chunk each), re-parse and re-print them:
// RUN: sed '1d; s#^// -----// IR Dump After .*#// -----#' %t.dump > %t.levels
// RUN: tilec-opt --split-input-file %t.levels | diff - %t.levels
// RUN: tilec-opt %t.final | diff - %t.final
// Each level, fed back in, continues to the same end:
// RUN: tilec-opt %t.levels --split-input-file -p tile-canonicalize > /dev/null
// RUN: sed -n '2,/IR Dump After tile-to-mapped/p' %t.dump | sed '$d' | tilec-opt -p tile-to-mapped,mapped-to-hw-cpu | diff - %t.final
// RUN: sed -n '/IR Dump After tile-to-mapped/,/IR Dump After mapped-to-hw-cpu/p' %t.dump | sed '1d;$d' | tilec-opt -p mapped-to-hw-cpu | diff - %t.final
// The final IR is what the C emitter takes:
// RUN: tilec-opt %t.final -t c | filecheck %s --check-prefix=C

// CHECK-LABEL: // -----// IR Dump After tile-fuse //----- //
// CHECK:       tile.func @matmul(
// CHECK:         %c = tile.fused contraction (%a, %b)
// CHECK:           tile.contract
// CHECK:       tile.func @softmax(
// CHECK:         %y = tile.fused rowwise (%x)
// CHECK-NOT:   mapped.

// CHECK-LABEL: // -----// IR Dump After tile-to-mapped //----- //
// CHECK:       mapped.kernel @matmul_0_contraction(
// CHECK:         mapped.parallel
// CHECK:           vector.fma
// CHECK:       mapped.host @matmul(
// CHECK:         mapped.temp
// CHECK:         mapped.launch @matmul_0_contraction(
// CHECK:       mapped.kernel @softmax_0_rowwise(
// CHECK:         mapped.parallel
// CHECK:           tilec.reduce = ["max", "or"]
// CHECK:           tilec.reduce = ["add"]
// CHECK:       mapped.host @softmax(
// CHECK:         mapped.launch @softmax_0_rowwise(
// CHECK-NOT:   tile.
// CHECK-NOT:   hw.cpu

// CHECK-LABEL: // -----// IR Dump After mapped-to-hw-cpu //----- //
// CHECK:       hw.cpu.func @matmul_0_contraction(
// CHECK:         hw.cpu.parallel_for
// CHECK:           hw.cpu.splat
// CHECK-NEXT:      vector.fma
// CHECK:       hw.cpu.func @matmul({{.+}}) attributes {tilec.entry} {
// CHECK:         hw.cpu.malloc
// CHECK:         hw.cpu.call @matmul_0_contraction(
// CHECK:         hw.cpu.free
// CHECK:       hw.cpu.func @softmax_0_rowwise(
// CHECK:         hw.cpu.parallel_for
// CHECK:       hw.cpu.func @softmax({{.+}}) attributes {tilec.entry} {
// CHECK-NOT:   mapped.
// CHECK-NOT:   tile.

// C: int tilec_u_matmul(float* restrict A, int64_t A_d0, int64_t A_d1, float* restrict B, int64_t B_d0, int64_t B_d1, float* restrict C, int64_t C_d0, int64_t C_d1) {
// C: int tilec_u_softmax(float* restrict X, float* restrict Y) {

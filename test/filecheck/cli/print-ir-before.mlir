// --print-ir-before=PASS dumps the IR the named pass receives (to standard error).
// RUN: tilec-opt %s -p tile-canonicalize,cse --print-ir-before=tile-canonicalize 2>&1 >/dev/null | filecheck %s
// RUN: tilec-opt %s -p tile-canonicalize,cse --print-ir-before=cse 2>&1 >/dev/null | filecheck %s --check-prefix=CSE
// RUN: tilec-opt %s -p tile-canonicalize,cse --print-ir-before=cse --print-ir-after=cse 2>&1 >/dev/null | filecheck %s --check-prefix=AROUND

// The input, before any pass: both negations are there.
// CHECK: // -----// IR Dump Before tile-canonicalize //----- //
// CHECK-NEXT: builtin.module {
// CHECK: %n1 = tile.neg %x
// CHECK-NEXT: %n2 = tile.neg %n1
// CHECK-NOT: IR Dump
// What cse receives: tile-canonicalize has removed them.
// CSE: // -----// IR Dump Before cse //----- //
// CSE-NOT: tile.neg
// CSE: tile.store %x, %Y
// AROUND: // -----// IR Dump Before cse //----- //
// AROUND: // -----// IR Dump After cse //----- //
tile.func @f(%X: !tile.array<8xf32>) outs(%Y: !tile.array<8xf32>) {
  %x = tile.load %X : !tile.array<8xf32> -> !tile.tile<8xf32>
  %n1 = tile.neg %x : !tile.tile<8xf32>
  %n2 = tile.neg %n1 : !tile.tile<8xf32>
  tile.store %n2, %Y : !tile.tile<8xf32>, !tile.array<8xf32>
  tile.return
}

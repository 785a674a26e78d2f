// --print-ir-after-all dumps the IR after every pass to standard error; standard output keeps only
// the final IR. With --print-op-generic the dumps are generic too.
// RUN: tilec-opt %s -p tile-canonicalize,cse --print-ir-after-all > %t.out 2> %t.err
// RUN: filecheck %s < %t.err
// RUN: filecheck %s --check-prefix=OUT < %t.out
// RUN: tilec-opt %s -p tile-canonicalize --print-ir-after-all --print-op-generic 2>&1 >/dev/null | filecheck %s --check-prefix=GENERIC
// Without passes there is nothing to dump.
// RUN: tilec-opt %s --print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=NONE --allow-empty

// CHECK:      // -----// IR Dump After tile-canonicalize //----- //
// CHECK-NEXT: builtin.module {
// CHECK:        %e1 = tile.exp %x
// CHECK-NEXT:   %e2 = tile.exp %x
// CHECK:      // -----// IR Dump After cse //----- //
// CHECK-NEXT: builtin.module {
// CHECK:        %e1 = tile.exp %x
// CHECK-NOT:    %e2
// CHECK-NOT:  IR Dump
// OUT-NOT: IR Dump
// OUT: %e1 = tile.exp %x
// OUT-NOT: %e2
// GENERIC: // -----// IR Dump After tile-canonicalize //----- //
// GENERIC-NEXT: "builtin.module"() ({
// NONE-NOT: {{.}}
tile.func @f(%X: !tile.array<8xf32>) outs(%Y: !tile.array<8xf32>, %Z: !tile.array<8xf32>) {
  %x = tile.load %X : !tile.array<8xf32> -> !tile.tile<8xf32>
  %n1 = tile.neg %x : !tile.tile<8xf32>
  %n2 = tile.neg %n1 : !tile.tile<8xf32>
  %e1 = tile.exp %n2 : !tile.tile<8xf32>
  %e2 = tile.exp %x : !tile.tile<8xf32>
  tile.store %e1, %Y : !tile.tile<8xf32>, !tile.array<8xf32>
  tile.store %e2, %Z : !tile.tile<8xf32>, !tile.array<8xf32>
  tile.return
}

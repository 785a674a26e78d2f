// --print-ir-after=PASS dumps the IR after the named pass only (to standard error); the flag repeats
// and takes comma-separated names. A pass that runs twice is dumped twice.
// RUN: tilec-opt %s -p tile-canonicalize,cse --print-ir-after=cse 2>&1 >/dev/null | filecheck %s --check-prefix=CSE
// RUN: tilec-opt %s -p tile-canonicalize,cse --print-ir-after tile-canonicalize 2>&1 >/dev/null | filecheck %s --check-prefix=CANON
// RUN: tilec-opt %s -p tile-canonicalize,cse --print-ir-after=cse --print-ir-after=tile-canonicalize 2>&1 >/dev/null | filecheck %s --check-prefix=BOTH
// RUN: tilec-opt %s -p tile-canonicalize,cse --print-ir-after=cse,tile-canonicalize 2>&1 >/dev/null | filecheck %s --check-prefix=BOTH
// RUN: tilec-opt %s -p cse,tile-canonicalize,cse --print-ir-after=cse 2>&1 >/dev/null | filecheck %s --check-prefix=TWICE
// A pass that is not in the pipeline prints nothing.
// RUN: tilec-opt %s -p cse --print-ir-after=dce 2>&1 >/dev/null | filecheck %s --check-prefix=NONE --allow-empty

// CSE-NOT: IR Dump After tile-canonicalize
// CSE: // -----// IR Dump After cse //----- //
// CSE-NEXT: builtin.module {
// CSE-NOT: IR Dump
// CANON: // -----// IR Dump After tile-canonicalize //----- //
// CANON-NOT: IR Dump
// BOTH: // -----// IR Dump After tile-canonicalize //----- //
// BOTH: // -----// IR Dump After cse //----- //
// BOTH-NOT: IR Dump
// TWICE: // -----// IR Dump After cse //----- //
// TWICE-NOT: IR Dump After tile-canonicalize
// TWICE: // -----// IR Dump After cse //----- //
// TWICE-NOT: IR Dump
// NONE-NOT: {{.}}
tile.func @f(%X: !tile.array<8xf32>) outs(%Y: !tile.array<8xf32>) {
  %x = tile.load %X : !tile.array<8xf32> -> !tile.tile<8xf32>
  %n1 = tile.neg %x : !tile.tile<8xf32>
  %n2 = tile.neg %n1 : !tile.tile<8xf32>
  tile.store %n2, %Y : !tile.tile<8xf32>, !tile.array<8xf32>
  tile.return
}

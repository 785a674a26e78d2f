// `-p` runs a pipeline (passes separated by commas; spaces around names are allowed), in order:
// cse merges the two exps only when tile-canonicalize has run before it.
// RUN: tilec-opt %s -p tile-canonicalize | filecheck %s --check-prefix=CANON
// RUN: tilec-opt %s --passes tile-canonicalize | filecheck %s --check-prefix=CANON
// RUN: tilec-opt %s -p 'cse, tile-canonicalize' | filecheck %s --check-prefix=CANON
// RUN: tilec-opt %s -p tile-canonicalize,cse | filecheck %s --check-prefix=CSE
// RUN: tilec-opt %s -p '' | filecheck %s --check-prefix=NONE
// RUN: tilec-opt %s | filecheck %s --check-prefix=NONE

// CANON-LABEL: tile.func @f
// CANON-NEXT:    %x = tile.load %X
// CANON-NEXT:    %e1 = tile.exp %x
// CANON-NEXT:    %e2 = tile.exp %x
// CANON-NEXT:    tile.store %e1, %Y
// CANON-NEXT:    tile.store %e2, %Z
// CANON-NEXT:    tile.return

// CSE-LABEL: tile.func @f
// CSE:         %e1 = tile.exp %x
// CSE-NOT:     tile.exp
// CSE:         tile.store %e1, %Y
// CSE-NEXT:    tile.store %e1, %Z

// NONE: %n1 = tile.neg %x
// NONE-NEXT: %n2 = tile.neg %n1
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

// --split-input-file: each `// -----` chunk is parsed, verified and transformed on its own; the
// outputs are joined by `// -----` lines.
// RUN: tilec-opt %s --split-input-file | filecheck %s
// RUN: tilec-opt %s --split-input-file -p tile-canonicalize | filecheck %s --check-prefix=CANON
// Without the flag the markers are plain comments: one module holds all three functions.
// RUN: tilec-opt %s | filecheck %s --check-prefix=WHOLE

// CHECK:      builtin.module {
// CHECK-NEXT:   tile.func @one() {
// CHECK-NEXT:     tile.return
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: // -----
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   tile.func @two() outs(%Y: !tile.array<4xf32>) {
// CHECK:      // -----
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   tile.func @three() outs(%Y: !tile.array<2xi8>) {
// CHECK-NOT:  // -----

// A marker line may have blanks around the marker, as the last one does.
// Each chunk's SSA names are its own: %a is defined in every chunk.
// CANON: tile.func @two(
// CANON-NEXT: %a = tile.constant -1.000000e+00
// CANON: tile.func @three(
// CANON-NEXT: %a = tile.constant 3 : !tile.tile<2xi8>

// WHOLE: builtin.module {
// WHOLE: tile.func @one
// WHOLE: tile.func @two
// WHOLE: tile.func @three
// WHOLE-NOT: builtin.module
tile.func @one() {
  tile.return
}

// -----

tile.func @two() outs(%Y: !tile.array<4xf32>) {
  %c = tile.constant 1.0 : !tile.tile<4xf32>
  %a = tile.neg %c : !tile.tile<4xf32>
  tile.store %a, %Y : !tile.tile<4xf32>, !tile.array<4xf32>
  tile.return
}

  // -----  
tile.func @three() outs(%Y: !tile.array<2xi8>) {
  %a = tile.constant 3 : !tile.tile<2xi8>
  tile.store %a, %Y : !tile.tile<2xi8>, !tile.array<2xi8>
  tile.return
}

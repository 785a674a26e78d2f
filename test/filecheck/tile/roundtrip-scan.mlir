// tile.scan: every kind (add, mul, logaddexp), the reverse and exclusive flags, dynamic sizes,
// integers, extra attributes, and the generic form.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @scans
tile.func @scans(%X: !tile.array<?x7xf32>, %I: !tile.array<5xi8>) {
  %x = tile.load %X : !tile.array<?x7xf32> -> !tile.tile<?x7xf32>
  %i = tile.load %I : !tile.array<5xi8> -> !tile.tile<5xi8>
  // CHECK: %c = tile.scan add %x axis 1 : !tile.tile<?x7xf32>
  // GENERIC: %c = "tile.scan"(%x) <{kind = "add", axis = #builtin.int<1>}> : (!tile.tile<?x7xf32>) -> !tile.tile<?x7xf32>
  %c = tile.scan add %x axis 1 : !tile.tile<?x7xf32>
  // CHECK-NEXT: %r = tile.scan mul %x axis 0 reverse : !tile.tile<?x7xf32>
  // GENERIC: <{kind = "mul", axis = #builtin.int<0>, reverse}>
  %r = tile.scan mul %x axis 0 reverse : !tile.tile<?x7xf32>
  // CHECK-NEXT: %e = tile.scan add %i axis 0 reverse exclusive {note} : !tile.tile<5xi8>
  // GENERIC: <{kind = "add", axis = #builtin.int<0>, reverse, exclusive}> {note}
  %e = tile.scan add %i axis 0 reverse exclusive {note} : !tile.tile<5xi8>
  // CHECK-NEXT: %l = tile.scan logaddexp %x axis 1 : !tile.tile<?x7xf32>
  %l = tile.scan logaddexp %x axis 1 : !tile.tile<?x7xf32>
  tile.return
}

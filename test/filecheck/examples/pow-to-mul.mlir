// The example plugin from docs/writing-a-pass.md, loaded from its own file.
// RUN: tilec-opt %s --load-pass-plugin %S/../../../examples/passes/pow_to_mul.py -p pow-to-mul | filecheck %s
// RUN: tilec-opt %s --load-pass-plugin %S/../../../examples/passes/pow_to_mul.py -p 'pow-to-mul{max-exponent=2}' | filecheck %s --check-prefix=MAX2
// RUN: not tilec-opt %s --load-pass-plugin %S/../../../examples/passes/pow_to_mul.py -p 'pow-to-mul{max-exponent=two}' 2>&1 | filecheck %s --check-prefix=BADOPT

// CHECK-LABEL: tile.func @squares
// CHECK-NOT: tile.pow
// CHECK: %[[Y2:.*]] = tile.mul %x, %x : !tile.tile<8x16xf32>
// CHECK: %[[SQ:.*]] = tile.mul %x, %x : !tile.tile<8x16xf32>
// CHECK: %[[SQ2:.*]] = tile.mul %[[SQ]], %[[SQ]] : !tile.tile<8x16xf32>
// CHECK: %[[P5:.*]] = tile.mul %x, %[[SQ2]] : !tile.tile<8x16xf32>
// CHECK: tile.store %[[Y2]], %Y2
// CHECK: tile.store %[[P5]], %Y5
// MAX2: tile.mul %x, %x
// MAX2: tile.pow %x, %five
// BADOPT: <pipeline>:1:25: error: option 'max-exponent' of pass 'pow-to-mul' expects an integer, got two
tile.func @squares(%X: !tile.array<8x16xf32>) outs(%Y2: !tile.array<8x16xf32>, %Y5: !tile.array<8x16xf32>) {
  %x = tile.load %X : !tile.array<8x16xf32> -> !tile.tile<8x16xf32>
  %two = tile.constant 2.0 : !tile.tile<8x16xf32>
  %five = tile.constant 5.0 : !tile.tile<8x16xf32>
  %y2 = tile.pow %x, %two : !tile.tile<8x16xf32>
  %y5 = tile.pow %x, %five : !tile.tile<8x16xf32>
  tile.store %y2, %Y2 : !tile.tile<8x16xf32>, !tile.array<8x16xf32>
  tile.store %y5, %Y5 : !tile.tile<8x16xf32>, !tile.array<8x16xf32>
  tile.return
}

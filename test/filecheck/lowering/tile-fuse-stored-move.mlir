// tile-fuse `stored_move`: a chain of data movement (reshapes, transposes, concatenations, slices,
// pads) over group results that is only stored, and holds a concatenation, slice or pad, is ONE
// copy group reading the chain's sources at each output element's index (an interleave of two
// results: stack after the last axis, merge). A lone reshape of a group result stays a view of
// the output (`stored_view`), and a chain with another reader keeps its groups.
// RUN: tilec-opt %s --split-input-file -p tile-fuse | filecheck %s
// RUN: tilec-opt %s --split-input-file -p tile-fuse | tilec-opt --split-input-file -p tile-fuse | filecheck %s
// RUN: tilec-opt %s --split-input-file -p lower-to-c -t c | filecheck %s --check-prefix=C

// CHECK-LABEL: tile.func @interleave
// CHECK:         %[[E:.*]], %[[L:.*]] = tile.fused elementwise
// CHECK:           tile.exp
// CHECK:           tile.log
// CHECK:         %[[I:.*]] = tile.fused elementwise (%[[E]], %[[L]])
// CHECK:           tile.reshape
// CHECK:           tile.reshape
// CHECK:           tile.concat
// CHECK:           tile.reshape
// CHECK:           tile.yield
// CHECK-NOT:     tile.fused
// CHECK:         tile.store %[[I]], %out
// C-LABEL:     tilec_u_interleave_0_elementwise(
// C:           tilec_u_interleave_1_elementwise(
// C-NOT:       tilec_u_interleave_2_
tile.func @interleave(%a: !tile.array<4x6xf32>, %b: !tile.array<4x6xf32>) outs(%out: !tile.array<4x12xf32>) {
  %0 = tile.load %a : !tile.array<4x6xf32> -> !tile.tile<4x6xf32>
  %1 = tile.load %b : !tile.array<4x6xf32> -> !tile.tile<4x6xf32>
  %2 = tile.exp %0 : !tile.tile<4x6xf32>
  %3 = tile.log %1 : !tile.tile<4x6xf32>
  %4 = tile.reshape %2 : !tile.tile<4x6xf32> to !tile.tile<4x6x1xf32>
  %5 = tile.reshape %3 : !tile.tile<4x6xf32> to !tile.tile<4x6x1xf32>
  %6 = tile.concat %4, %5 axis 2 : !tile.tile<4x6x1xf32>, !tile.tile<4x6x1xf32> to !tile.tile<4x6x2xf32>
  %7 = tile.reshape %6 : !tile.tile<4x6x2xf32> to !tile.tile<4x12xf32>
  tile.store %7, %out : !tile.tile<4x12xf32>, !tile.array<4x12xf32>
  tile.return
}

// -----

// CHECK-LABEL: tile.func @lone_reshape
// CHECK:         %[[E:.*]] = tile.fused elementwise
// CHECK-NOT:     tile.fused
// CHECK:         %[[R:.*]] = tile.reshape %[[E]]
// CHECK:         tile.store %[[R]], %out
tile.func @lone_reshape(%a: !tile.array<4x6xf32>) outs(%out: !tile.array<24xf32>) {
  %0 = tile.load %a : !tile.array<4x6xf32> -> !tile.tile<4x6xf32>
  %1 = tile.exp %0 : !tile.tile<4x6xf32>
  %2 = tile.reshape %1 : !tile.tile<4x6xf32> to !tile.tile<24xf32>
  tile.store %2, %out : !tile.tile<24xf32>, !tile.array<24xf32>
  tile.return
}

// -----

// the concatenation is also read by an elementwise op: it keeps its own group
// CHECK-LABEL: tile.func @read_too
// CHECK:         tile.fused elementwise
// CHECK:           tile.exp
// CHECK:         tile.fused elementwise
// CHECK:           tile.concat
// CHECK:           tile.neg
tile.func @read_too(%a: !tile.array<4x6xf32>, %b: !tile.array<4x6xf32>) outs(%out: !tile.array<4x12xf32>, %neg: !tile.array<4x12xf32>) {
  %0 = tile.load %a : !tile.array<4x6xf32> -> !tile.tile<4x6xf32>
  %1 = tile.load %b : !tile.array<4x6xf32> -> !tile.tile<4x6xf32>
  %2 = tile.exp %0 : !tile.tile<4x6xf32>
  %3 = tile.log %1 : !tile.tile<4x6xf32>
  %6 = tile.concat %2, %3 axis 1 : !tile.tile<4x6xf32>, !tile.tile<4x6xf32> to !tile.tile<4x12xf32>
  %7 = tile.neg %6 : !tile.tile<4x12xf32>
  tile.store %6, %out : !tile.tile<4x12xf32>, !tile.array<4x12xf32>
  tile.store %7, %neg : !tile.tile<4x12xf32>, !tile.array<4x12xf32>
  tile.return
}

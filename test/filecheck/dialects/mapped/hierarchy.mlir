// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s

mapped.kernel @ids(%n: index) target gpu grid [cdiv(%n, 128), 2, 3] block [32, 2, 2] {
  %bx = mapped.block_id x
  %by = mapped.block_id y
  %bz = mapped.block_id z
  %tx = mapped.thread_id x
  %ty = mapped.thread_id y
  %tz = mapped.thread_id z
  %nx = mapped.block_dim x
  %gz = mapped.grid_dim z
  %w = mapped.warp_id
  %l = mapped.lane_id
  %g = mapped.warpgroup_id {tilec.tag = 0 : i64}
  mapped.return
}

// CHECK-LABEL: mapped.kernel @ids
// CHECK-NEXT:    %bx = mapped.block_id x
// CHECK-NEXT:    %by = mapped.block_id y
// CHECK-NEXT:    %bz = mapped.block_id z
// CHECK-NEXT:    %tx = mapped.thread_id x
// CHECK-NEXT:    %ty = mapped.thread_id y
// CHECK-NEXT:    %tz = mapped.thread_id z
// CHECK-NEXT:    %nx = mapped.block_dim x
// CHECK-NEXT:    %gz = mapped.grid_dim z
// CHECK-NEXT:    %w = mapped.warp_id
// CHECK-NEXT:    %l = mapped.lane_id
// CHECK-NEXT:    %g = mapped.warpgroup_id {tilec.tag = 0 : i64}
// CHECK-NEXT:    mapped.return

// The ids are plain index values: they feed upstream arith.
mapped.kernel @wave64(%n: index) target gpu grid [cdiv(%n, 256), 1, 1] block [256, 1, 1] wave 64 {
  %c256 = arith.constant 256 : index
  %b = mapped.block_id x
  %t = mapped.thread_id x
  %base = arith.muli %b, %c256 : index
  %i = arith.addi %base, %t : index
  %l = mapped.lane_id
  mapped.return
}

// CHECK-LABEL: mapped.kernel @wave64(%n: index) target gpu grid [cdiv(%n, 256), 1, 1] block [256, 1, 1] wave 64 {
// CHECK:         %b = mapped.block_id x
// CHECK-NEXT:    %t = mapped.thread_id x
// CHECK-NEXT:    %base = arith.muli %b, %c256 : index
// CHECK-NEXT:    %i = arith.addi %base, %t : index
// CHECK-NEXT:    %l = mapped.lane_id

// tile-fuse with in-place updates (a tile.store into an input): the group writing the input
// writes it directly when that is safe, else a temporary that a last copy group writes back.
// RUN: tilec-opt %s --split-input-file -p tile-fuse | filecheck %s
// RUN: tilec-opt %s --split-input-file -p tile-fuse | tilec-opt --split-input-file -p tile-fuse | filecheck %s

// Elementwise, reading %p only at the element it writes: ONE group, stored straight into %p.
// CHECK-LABEL: tile.func @sgd
// CHECK:         %[[F:.*]] = tile.fused elementwise
// CHECK:         tile.store %[[F]], %p
// CHECK-NOT:     tile.fused
tile.func @sgd(%p: !tile.array<?xf32>, %g: !tile.array<?xf32>, %lr: f32) {
  %0 = tile.load %p : !tile.array<?xf32> -> !tile.tile<?xf32>
  %1 = tile.load %g : !tile.array<?xf32> -> !tile.tile<?xf32>
  %n = tile.dim %p 0 : !tile.array<?xf32>
  %2 = tile.splat %lr : f32 to !tile.tile<f32>
  %3 = tile.broadcast %2 sizes(%n) : !tile.tile<f32> to !tile.tile<?xf32>
  %4 = tile.mul %3, %1 : !tile.tile<?xf32>
  %5 = tile.sub %0, %4 : !tile.tile<?xf32>
  tile.store %5, %p : !tile.tile<?xf32>, !tile.array<?xf32>
  tile.return
}

// -----

// p[...] = p[::-1] reads %p at another index: the reversal goes to a temporary, copied into %p last.
// CHECK-LABEL: tile.func @reverse
// CHECK:         %[[R:.*]] = tile.fused elementwise (%{{.*}})
// CHECK:           tile.slice
// CHECK:         %[[C:.*]] = tile.fused elementwise (%[[R]])
// CHECK-NEXT:    ^{{.*}}(%[[A:[^:]*]]: !tile.tile<8xf32>):
// CHECK-NEXT:      tile.yield %[[A]]
// CHECK:         tile.store %[[C]], %p
tile.func @reverse(%p: !tile.array<8xf32>) {
  %0 = tile.load %p : !tile.array<8xf32> -> !tile.tile<8xf32>
  %1 = tile.slice %0 offsets [-1] strides [-1] : !tile.tile<8xf32> to !tile.tile<8xf32>
  tile.store %1, %p : !tile.tile<8xf32>, !tile.array<8xf32>
  tile.return
}

// -----

// The old %p is read by a group after the one that computes the new %p (it needs a reduction
// first): the new value goes through a temporary, and the copy into %p comes after both.
// CHECK-LABEL: tile.func @old_read_later
// CHECK:         %[[NEW:.*]] = tile.fused elementwise
// CHECK:           tile.exp
// CHECK:         tile.fused rowwise
// CHECK:         %[[OLD:.*]] = tile.fused elementwise
// CHECK:         %[[C:.*]] = tile.fused elementwise (%[[NEW]])
// CHECK:         tile.store %[[OLD]], %out
// CHECK:         tile.store %[[C]], %p
tile.func @old_read_later(%p: !tile.array<8xf32>, %x: !tile.array<5xf32>) outs(%out: !tile.array<8xf32>) {
  %0 = tile.load %p : !tile.array<8xf32> -> !tile.tile<8xf32>
  %1 = tile.load %x : !tile.array<5xf32> -> !tile.tile<5xf32>
  %2 = tile.exp %0 : !tile.tile<8xf32>
  %3 = tile.reduce sum %1 [0] : !tile.tile<5xf32> to !tile.tile<f32>
  %4 = tile.broadcast %3 : !tile.tile<f32> to !tile.tile<8xf32>
  %5 = tile.mul %0, %4 : !tile.tile<8xf32>
  tile.store %5, %out : !tile.tile<8xf32>, !tile.array<8xf32>
  tile.store %2, %p : !tile.tile<8xf32>, !tile.array<8xf32>
  tile.return
}

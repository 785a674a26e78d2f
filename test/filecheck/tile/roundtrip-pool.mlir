// tile.pool: custom syntax round trip of every kind (with and without indices, max_grad's indices operand, exclude_pad,
// divisor, dynamic leading axes) and its generic form.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @pools
tile.func @pools(%X: !tile.array<?x3x9x11xf32>, %H: !tile.array<4x17xf16>) {
  %x = tile.load %X : !tile.array<?x3x9x11xf32> -> !tile.tile<?x3x9x11xf32>
  %h = tile.load %H : !tile.array<4x17xf16> -> !tile.tile<4x17xf16>
  // CHECK: %y, %i = tile.pool max %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] : !tile.tile<?x3x9x11xf32> to !tile.tile<?x3x5x6xf32>, !tile.tile<?x3x5x6xi64>
  // GENERIC: %y, %i = "tile.pool"(%x) <{kind = "max", rank = #builtin.int<2>, kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>}> : (!tile.tile<?x3x9x11xf32>) -> (!tile.tile<?x3x5x6xf32>, !tile.tile<?x3x5x6xi64>)
  %y, %i = tile.pool max %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] : !tile.tile<?x3x9x11xf32> to !tile.tile<?x3x5x6xf32>, !tile.tile<?x3x5x6xi64>
  // CHECK-NEXT: %m = tile.pool max %h kernel [3] stride [2] padding [0] dilation [2] {note} : !tile.tile<4x17xf16> to !tile.tile<4x7xf16>
  %m = tile.pool max %h kernel [3] stride [2] padding [0] dilation [2] {note} : !tile.tile<4x17xf16> to !tile.tile<4x7xf16>
  // CHECK-NEXT: %a = tile.pool avg %x kernel [3, 2] stride [2, 3] padding [1, 1] dilation [1, 1] exclude_pad : !tile.tile<?x3x9x11xf32> to !tile.tile<?x3x5x4xf32>
  %a = tile.pool avg %x kernel [3, 2] stride [2, 3] padding [1, 1] dilation [1, 1] exclude_pad : !tile.tile<?x3x9x11xf32> to !tile.tile<?x3x5x4xf32>
  // CHECK-NEXT: %d = tile.pool avg %x kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] divisor -3 : !tile.tile<?x3x9x11xf32> to !tile.tile<?x3x4x5xf32>
  %d = tile.pool avg %x kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] divisor -3 : !tile.tile<?x3x9x11xf32> to !tile.tile<?x3x4x5xf32>
  // CHECK-NEXT: %g = tile.pool avg_grad %a kernel [3, 2] stride [2, 3] padding [1, 1] dilation [1, 1] exclude_pad : !tile.tile<?x3x5x4xf32> to !tile.tile<?x3x9x11xf32>
  %g = tile.pool avg_grad %a kernel [3, 2] stride [2, 3] padding [1, 1] dilation [1, 1] exclude_pad : !tile.tile<?x3x5x4xf32> to !tile.tile<?x3x9x11xf32>
  // CHECK-NEXT: %b = tile.pool adaptive_avg %x rank 2 : !tile.tile<?x3x9x11xf32> to !tile.tile<?x3x1x1xf32>
  // GENERIC: "tile.pool"(%x) <{kind = "adaptive_avg", rank = #builtin.int<2>}> : (!tile.tile<?x3x9x11xf32>) -> !tile.tile<?x3x1x1xf32>
  %b = tile.pool adaptive_avg %x rank 2 : !tile.tile<?x3x9x11xf32> to !tile.tile<?x3x1x1xf32>
  // CHECK-NEXT: %c, %j = tile.pool adaptive_max %h rank 1 : !tile.tile<4x17xf16> to !tile.tile<4x20xf16>, !tile.tile<4x20xi64>
  %c, %j = tile.pool adaptive_max %h rank 1 : !tile.tile<4x17xf16> to !tile.tile<4x20xf16>, !tile.tile<4x20xi64>
  // CHECK-NEXT: %gm = tile.pool max_grad %y[%i] kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] : !tile.tile<?x3x5x6xf32>, !tile.tile<?x3x5x6xi64> to !tile.tile<?x3x9x11xf32>
  // GENERIC: "tile.pool"(%y, %i) <{kind = "max_grad"
  %gm = tile.pool max_grad %y[%i] kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] : !tile.tile<?x3x5x6xf32>, !tile.tile<?x3x5x6xi64> to !tile.tile<?x3x9x11xf32>
  tile.return
}

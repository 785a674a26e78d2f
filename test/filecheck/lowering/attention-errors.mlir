// Errors of attention groups (issue 15): located, one line, exit status 1, no traceback.
// RUN: not tilec-opt %s --split-input-file -p tile-to-mapped 2>&1 | filecheck %s --check-prefix=CPU
// RUN: not tilec-opt %s --split-input-file -p tile-to-mapped{target=cuda} 2>&1 | filecheck %s --check-prefix=GPU

// The CUDA flash kernel takes 16-bit q, k, v only (the CUDA tile-fuse forms no other attention group).
// GPU: attention-errors.mlir:[[# @LINE + 6]]:3: error: in pass 'tile-to-mapped': not supported yet: an attention group the flash kernel does not take (16-bit q, k, v; head sizes multiples of 16 up to 256)
// GPU-NOT: Traceback
tile.func @attn(%q: !tile.array<4x8xf32>, %k: !tile.array<6x8xf32>, %v: !tile.array<6x3xf32>) outs(%out: !tile.array<4x3xf32>) {
  %0 = tile.load %q : !tile.array<4x8xf32> -> !tile.tile<4x8xf32>
  %1 = tile.load %k : !tile.array<6x8xf32> -> !tile.tile<6x8xf32>
  %2 = tile.load %v : !tile.array<6x3xf32> -> !tile.tile<6x3xf32>
  %o = tile.fused attention (%0, %1, %2) : (!tile.tile<4x8xf32>, !tile.tile<6x8xf32>, !tile.tile<6x3xf32>) -> (!tile.tile<4x3xf32>) {
  ^bb0(%a: !tile.tile<4x8xf32>, %b: !tile.tile<6x8xf32>, %c: !tile.tile<6x3xf32>):
    %3 = tile.contract %a, %b axes [[1, 1]] acc f32 : !tile.tile<4x8xf32>, !tile.tile<6x8xf32> -> !tile.tile<4x6xf32>
    %4 = tile.reduce max %3 [1] : !tile.tile<4x6xf32> to !tile.tile<4xf32>
    %5 = tile.reshape %4 : !tile.tile<4xf32> to !tile.tile<4x1xf32>
    %6 = tile.broadcast %5 : !tile.tile<4x1xf32> to !tile.tile<4x6xf32>
    %7 = tile.sub %3, %6 : !tile.tile<4x6xf32>
    %8 = tile.exp %7 : !tile.tile<4x6xf32>
    %9 = tile.reduce sum %8 [1] : !tile.tile<4x6xf32> to !tile.tile<4xf32>
    %10 = tile.reshape %9 : !tile.tile<4xf32> to !tile.tile<4x1xf32>
    %11 = tile.broadcast %10 : !tile.tile<4x1xf32> to !tile.tile<4x6xf32>
    %12 = tile.div %8, %11 : !tile.tile<4x6xf32>
    %13 = tile.contract %12, %c axes [[1, 0]] acc f32 : !tile.tile<4x6xf32>, !tile.tile<6x3xf32> -> !tile.tile<4x3xf32>
    tile.yield %13 : !tile.tile<4x3xf32>
  }
  tile.store %o, %out : !tile.tile<4x3xf32>, !tile.array<4x3xf32>
  tile.return
}

// -----

// An attention group whose body is not softmax(f(q k^T)) v.
// CPU: attention-errors.mlir:[[# @LINE + 4]]:3: error: in pass 'tile-to-mapped': tile.fused attention: the body is not an attention pattern (softmax(f(q k^T)) v with an elementwise epilogue; see tilec/transforms/attention_pattern.py)
// CPU-NOT: Traceback
tile.func @not_attention(%X: !tile.array<8xf32>) outs(%Y: !tile.array<8xf32>) {
  %x = tile.load %X : !tile.array<8xf32> -> !tile.tile<8xf32>
  %e = tile.fused attention (%x) : (!tile.tile<8xf32>) -> (!tile.tile<8xf32>) {
  ^bb0(%a: !tile.tile<8xf32>):
    %b = tile.exp %a : !tile.tile<8xf32>
    tile.yield %b : !tile.tile<8xf32>
  }
  tile.store %e, %Y : !tile.tile<8xf32>, !tile.array<8xf32>
  tile.return
}

// -----

// A stream group whose body is not contractions over values computed from contractions.
// CPU: attention-errors.mlir:[[# @LINE + 4]]:3: error: in pass 'tile-to-mapped': tile.fused stream: the body is not a stream (contractions over one axis of values computed from (B..., L, S) contractions; see tilec/transforms/attention_pattern.py)
// CPU-NOT: Traceback
tile.func @not_stream(%X: !tile.array<8xf32>) outs(%Y: !tile.array<8xf32>) {
  %x = tile.load %X : !tile.array<8xf32> -> !tile.tile<8xf32>
  %e = tile.fused stream (%x) : (!tile.tile<8xf32>) -> (!tile.tile<8xf32>) {
  ^bb0(%a: !tile.tile<8xf32>):
    %b = tile.exp %a : !tile.tile<8xf32>
    tile.yield %b : !tile.tile<8xf32>
  }
  tile.store %e, %Y : !tile.tile<8xf32>, !tile.array<8xf32>
  tile.return
}

// RUN: not tilec-opt %s -p 'mapped-to-hw-nv{sm=sm_70}' 2>&1 | filecheck %s --check-prefix=SM
// RUN: not tilec-opt %s -p 'tile-to-mapped{target=cuda threads=100}' 2>&1 | filecheck %s --check-prefix=THREADS
// RUN: not tilec-opt %s -t ptx 2>&1 | filecheck %s --check-prefix=EMIT
// SM: error: in pass 'mapped-to-hw-nv': mapped-to-hw-nv: unknown target sm_70
// THREADS: <pipeline>:1:28: error: option 'threads' of pass 'tile-to-mapped' must be a multiple of 32 from 32 to 1024, got 100
// EMIT: errors.mlir:[[# @LINE + 1]]:1: error: -t ptx prints hw.nv IR, but the input has tile.func (lower it first, e.g. -p lower-to-ptx)
tile.func @f(%X: !tile.array<8xf32>) outs(%Y: !tile.array<8xf32>) {
  %x = tile.load %X : !tile.array<8xf32> -> !tile.tile<8xf32>
  %y = tile.exp %x : !tile.tile<8xf32>
  tile.store %y, %Y : !tile.tile<8xf32>, !tile.array<8xf32>
  tile.return
}

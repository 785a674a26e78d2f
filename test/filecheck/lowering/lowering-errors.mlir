// Errors of the CPU lowering passes: located, one line, exit status 1, no traceback.
// RUN: not tilec-opt %s --split-input-file -p tile-to-mapped 2>&1 | filecheck %s --check-prefix=NOFUSE
// RUN: not tilec-opt %s --split-input-file -p mapped-to-hw-cpu 2>&1 | filecheck %s --check-prefix=GPU
// RUN: not tilec-opt %s --split-input-file -p 'tile-fuse,tile-to-mapped{nr=12 vector=16}' 2>&1 | filecheck %s --check-prefix=NR
// RUN: not tilec-opt %s --split-input-file -p 'tile-fuse,tile-to-mapped{mr=33}' 2>&1 | filecheck %s --check-prefix=MR
// RUN: not tilec-opt %s --split-input-file -p 'tile-fuse,tile-to-mapped{mr=7 mc=96}' 2>&1 | filecheck %s --check-prefix=MC
// RUN: not tilec-opt %s --split-input-file -p 'tile-fuse,tile-to-mapped{kc=0}' 2>&1 | filecheck %s --check-prefix=KC
// RUN: not tilec-opt %s --split-input-file -p 'tile-fuse,tile-to-mapped{target=tpu}' 2>&1 | filecheck %s --check-prefix=TARGET
// RUN: not tilec-opt %s -p 'tile-fuse,tile-to-mapped{block=4}' 2>&1 | filecheck %s --check-prefix=NAME
// RUN: not tilec-opt %s -p 'tile-fuse,tile-to-mapped{mr=x}' 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not tilec-opt %s --split-input-file -t c 2>&1 | filecheck %s --check-prefix=EMIT

// tile-to-mapped needs the fusion groups of tile-fuse: the first unfused op is reported.
// NOFUSE: lowering-errors.mlir:[[# @LINE + 4]]:3: error: in pass 'tile-to-mapped': tile-to-mapped: tile.exp is outside a fusion group (run tile-fuse first)
// NOFUSE-NOT: Traceback
tile.func @f(%X: !tile.array<8xf32>) outs(%Y: !tile.array<8xf32>) {
  %x = tile.load %X : !tile.array<8xf32> -> !tile.tile<8xf32>
  %e = tile.exp %x : !tile.tile<8xf32>
  tile.store %e, %Y : !tile.tile<8xf32>, !tile.array<8xf32>
  tile.return
}

// Bad mapping options are reported before anything is lowered.
// NR: <pipeline>:1:11: error: options of pass 'tile-to-mapped': nr must be a multiple of the 16-lane vector (got nr=12, vector=16)
// MR: <pipeline>:1:26: error: option 'mr' of pass 'tile-to-mapped' must be from 0 to 32, got 33
// MC: <pipeline>:1:11: error: options of pass 'tile-to-mapped': mc must be a multiple of mr (got mc=96, mr=7)
// KC: <pipeline>:1:26: error: option 'kc' of pass 'tile-to-mapped' must be at least 1, got 0
// TARGET: <pipeline>:1:26: error: option 'target' of pass 'tile-to-mapped' must be one of cpu, cuda, hip, got tpu
// NAME: <pipeline>:1:26: error: pass 'tile-to-mapped' has no option 'block' (options: threads, {{.*}}, mr, nr, kc, mc, parallel-work, vector, target)
// TYPE: <pipeline>:1:29: error: option 'mr' of pass 'tile-to-mapped' expects an integer, got x

// -----

// mapped-to-hw-cpu lowers cpu kernels only.
// GPU: lowering-errors.mlir:[[# @LINE + 1]]:1: error: in pass 'mapped-to-hw-cpu': mapped-to-hw-cpu: kernel @k targets gpu
mapped.kernel @k(%x: !mapped.buf<8xf32, global>) target gpu grid [1, 1, 1] block [256, 1, 1] smem 0 {
  mapped.return
}

// -----

// The C emitter takes hw.cpu functions only (-p lower-to-c makes them): the tile.func and mapped.kernel above are refused, located.
// EMIT: lowering-errors.mlir:16:1: error: -t c prints hw.cpu IR, but the input has tile.func (lower it first, e.g. -p lower-to-c)
// EMIT: lowering-errors.mlir:36:1: error: -t c prints hw.cpu IR, but the input has mapped.kernel

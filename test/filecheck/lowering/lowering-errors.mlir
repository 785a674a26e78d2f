// Errors of the CPU lowering passes: located, one line, exit status 1, no traceback.
// RUN: not tilec-opt %s --split-input-file -p tile-to-mapped 2>&1 | filecheck %s --check-prefix=NOFUSE
// RUN: not tilec-opt %s --split-input-file -p mapped-to-hw-cpu 2>&1 | filecheck %s --check-prefix=GPU
// RUN: not tilec-opt %s --split-input-file -p 'tile-fuse,tile-to-mapped{nr=12}' 2>&1 | filecheck %s --check-prefix=NR
// RUN: not tilec-opt %s --split-input-file -p 'tile-fuse,tile-to-mapped{mr=0}' 2>&1 | filecheck %s --check-prefix=MR
// RUN: not tilec-opt %s --split-input-file -p 'tile-fuse,tile-to-mapped{mr=7}' 2>&1 | filecheck %s --check-prefix=MC
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
// NR: error: in pass 'tile-to-mapped': tile-to-mapped: need nr % 8 == 0, mr >= 1, mc % mr == 0, kc >= 1 (got mr=6 nr=12 mc=96 kc=512)
// MR: error: in pass 'tile-to-mapped': tile-to-mapped: need nr % 8 == 0, mr >= 1, mc % mr == 0, kc >= 1 (got mr=0 nr=16 mc=96 kc=512)
// MC: error: in pass 'tile-to-mapped': tile-to-mapped: need nr % 8 == 0, mr >= 1, mc % mr == 0, kc >= 1 (got mr=7 nr=16 mc=96 kc=512)
// KC: error: in pass 'tile-to-mapped': tile-to-mapped: need nr % 8 == 0, mr >= 1, mc % mr == 0, kc >= 1 (got mr=6 nr=16 mc=96 kc=0)
// TARGET: error: in pass 'tile-to-mapped': tile-to-mapped: unknown target 'tpu' (cpu or gpu)
// NAME: <pipeline>:1:26: error: pass 'tile-to-mapped' has no option 'block' (options: target, mr, nr, kc, mc,
// TYPE: <pipeline>:1:29: error: option 'mr' of pass 'tile-to-mapped' expects an integer, got x

// -----

// mapped-to-hw-cpu lowers cpu kernels only.
// GPU: lowering-errors.mlir:[[# @LINE + 1]]:1: error: in pass 'mapped-to-hw-cpu': mapped-to-hw-cpu: kernel @k targets gpu
mapped.kernel @k(%x: !mapped.buf<8xf32, global>) target gpu grid [1, 1, 1] block [256, 1, 1] smem 0 {
  mapped.return
}

// -----

// The C emitter takes hw.cpu functions only (-p lower-to-c makes them): here, the tile.func.
// EMIT: error: not supported yet: C emission of a module without hw.cpu functions (run -p lower-to-c first)

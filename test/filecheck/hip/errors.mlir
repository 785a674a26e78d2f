// HIP lowering errors: clear messages, located at the kernel where there is one, exit 1. The wave-32
// kernel of the first chunk is fine for the portable (wave 32) lowering.
// RUN: not tilec-opt %s --split-input-file -p mapped-to-hw-amd 2>&1 | filecheck %s --check-prefix=WAVE
// RUN: not tilec-opt %s --split-input-file -p 'mapped-to-hw-amd{arch=gfx1030 portable=true}' 2>&1 | filecheck %s --check-prefix=PORT
// RUN: not tilec-opt %s --split-input-file -p 'mapped-to-hw-amd{arch=sm_90}' 2>&1 | filecheck %s --check-prefix=ARCH
// RUN: not tilec-opt %s --split-input-file -p 'tile-to-mapped{target=hip threads=96}' 2>&1 | filecheck %s --check-prefix=THREADS
// RUN: not tilec-opt %s --split-input-file -p 'tile-to-mapped{target=hip wave=48}' 2>&1 | filecheck %s --check-prefix=WAVE48
// RUN: not tilec-opt %s --split-input-file -p 'lower-to-hip{mfma=m16n8k16}' 2>&1 | filecheck %s --check-prefix=MFMA
// RUN: not tilec-opt %s --split-input-file -t hip 2>&1 | filecheck %s --check-prefix=EMIT

// WAVE: errors.mlir:[[# @LINE + 6]]:1: error: in pass 'mapped-to-hw-amd': mapped-to-hw-amd: kernel @w32: gfx90a runs 64-lane wavefronts only, but the kernel is mapped for wave 32; lower with tile-to-mapped{wave=64}
// ARCH: error: in pass 'mapped-to-hw-amd': mapped-to-hw-amd: unknown target 'sm_90' (a gfx target such as gfx90a or gfx1030)
// THREADS: <pipeline>:1:1: error: options of pass 'tile-to-mapped': threads must be a multiple of the 64-lane wavefront (got 96)
// WAVE48: <pipeline>:1:27: error: option 'wave' of pass 'tile-to-mapped' must be one of 32, 64, got 48
// MFMA: <pipeline>:1:14: error: pipeline 'lower-to-hip': option 'mfma' of target hip must be one of m32n32k8, m16n16k16, got m16n8k16
// EMIT: errors.mlir:[[# @LINE + 1]]:1: error: -t hip prints hw.amd IR, but the input has mapped.kernel (lower it first, e.g. -p lower-to-hip)
mapped.kernel @w32(%X: !mapped.buf<64xf32, global>) target gpu grid [1, 1, 1] block [64, 1, 1] {
  %t = mapped.thread_id x
  %x = mapped.load %X[%t] : !mapped.buf<64xf32, global> -> f32
  %s = mapped.reduce sum %x across warp : f32
  mapped.store %s, %X[%t] : f32, !mapped.buf<64xf32, global>
  mapped.return
}

// -----

// PORT: errors.mlir:[[# @LINE + 1]]:1: error: in pass 'mapped-to-hw-amd': mapped-to-hw-amd: kernel @w64: portable HIP is wave 32, but the kernel is mapped for wave 64
mapped.kernel @w64(%X: !mapped.buf<64xf32, global>) target gpu grid [1, 1, 1] block [64, 1, 1] wave 64 {
  %t = mapped.thread_id x
  %x = mapped.load %X[%t] : !mapped.buf<64xf32, global> -> f32
  mapped.store %x, %X[%t] : f32, !mapped.buf<64xf32, global>
  mapped.return
}

// -----

tile.func @f(%X: !tile.array<8xf32>) outs(%Y: !tile.array<8xf32>) {
  %x = tile.load %X : !tile.array<8xf32> -> !tile.tile<8xf32>
  %y = tile.exp %x : !tile.tile<8xf32>
  tile.store %y, %Y : !tile.tile<8xf32>, !tile.array<8xf32>
  tile.return
}

// tile.conv lowering: the bias + relu after it join its contraction group (one kernel); on the GPU
// the generic kernel is an implicit GEMM whose operands are staged through shared memory with the
// window index map (no temporary: no im2col buffer in global memory); on the CPU the packed GEMM
// reads the input through the window index map while packing A, per task and K block. Input: Inputs/conv-bias-relu.mlir.
// RUN: tilec-opt %S/Inputs/conv-bias-relu.mlir -p tile-fuse | filecheck %s --check-prefix=FUSE
// RUN: tilec-opt %S/Inputs/conv-bias-relu.mlir -p 'tile-fuse,tile-to-mapped{target=cuda}' | filecheck %s --check-prefix=GPU
// RUN: tilec-opt %S/Inputs/conv-bias-relu.mlir -p 'tile-fuse,tile-to-mapped{target=cpu}' | filecheck %s --check-prefix=CPU

// FUSE:      tile.fused contraction
// FUSE-NEXT: ^bb0
// FUSE-NEXT:   tile.conv {{.+}} stride [2, 2] padding [[1, 1], [1, 1]] {{.+}} layout channels_last acc f32
// FUSE-NEXT:   tile.add
// FUSE-NEXT:   tile.constant
// FUSE-NEXT:   tile.max
// FUSE-NEXT:   tile.yield
// FUSE-NOT:  tile.fused

// GPU:     mapped.kernel @conv_bias_relu_0_contraction(%Y: !mapped.buf<2x5x4x6xf32, global>, %X: !mapped.buf<2x9x7x5xf32, global>, %W: !mapped.buf<6x3x3x5xf32, global>, %B: !mapped.buf<6xf32, global>) target gpu
// GPU:       mapped.alloc : !mapped.buf<16x64xf32, shared>
// GPU:       mapped.alloc : !mapped.buf<16x64xf32, shared>
// The window read: a bounds check of the position (q >= lo, q - lo < size), the index replaced by 0 outside.
// GPU:       arith.cmpi uge
// GPU:       arith.select
// GPU:       mapped.load %X[
// GPU:       mapped.store {{.+}} : f32, !mapped.buf<16x64xf32, shared>
// GPU:       mapped.barrier
// GPU:       mapped.load %B[
// GPU:       mapped.store {{.+}}, %Y[
// GPU-NOT: mapped.kernel
// GPU-NOT: mapped.temp
// GPU:     mapped.host

// On the cpu target only B (the weight) is packed up front; each task packs its own A block (rows x one
// K block, on the stack) from the input's windows, then runs the micro-kernel on it.
// CPU:     mapped.kernel @conv_bias_relu_0_contraction(
// CPU-SAME:  %Bpack: !mapped.buf<?xf32, global>
// CPU-NOT:   Apack
// CPU:       mapped.load %W[
// CPU:       mapped.store {{.+}}, %Bpack[
// CPU:       mapped.parallel
// CPU:         mapped.alloc : !mapped.buf<{{[0-9]+}}xf32, reg>
// CPU:         %Ablock = mapped.alloc : !mapped.buf<{{[0-9]+}}xf32, reg>
// CPU:         mapped.load %X[
// CPU:         mapped.store {{.+}}, %Ablock[
// CPU:         mapped.load %Ablock[
// CPU:         vector.fma
// CPU:         mapped.store {{.+}}, %Y[
// CPU-NOT: mapped.kernel

// bf16 operands with B stored N x K (the x @ w.T of a linear layer), bias in the epilogue: the
// bf16_1k MFMA builtin on bf16 bits (vector<4xi16>); both operands read 8 bytes per LDS access.
// RUN: tilec-opt %s -p lower-to-hip | filecheck %s --check-prefix=HW
// RUN: tilec-opt %s -p lower-to-hip -t hip | filecheck %s

// HW: hw.amd.lds @tilec_lds0 16384 align 16
// HW: hw.amd.lds @tilec_lds1 16384 align 16
// HW-NOT: hw.amd.lds_load %{{.*}} : i32 -> i16
// HW: hw.amd.lds_load %{{.*}} : i32 -> vector<4xi16>
// HW: hw.amd.mfma f32_32x32x8bf16_1k {{.*}} : vector<4xi16>, vector<4xi16>, vector<16xf32> -> vector<16xf32>
// CHECK: TILEC_VECTOR(int16_t, 4, tilec_i16x4)
// CHECK: __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(
// CHECK: tilec_bf16_to_f32(
// CHECK: tilec_f32_to_bf16(
tile.func @linear(%X: !tile.array<100x64xbf16>, %W: !tile.array<72x64xbf16>, %b: !tile.array<72xbf16>) outs(%Y: !tile.array<100x72xbf16>) {
  %x = tile.load %X : !tile.array<100x64xbf16> -> !tile.tile<100x64xbf16>
  %w = tile.load %W : !tile.array<72x64xbf16> -> !tile.tile<72x64xbf16>
  %bias = tile.load %b : !tile.array<72xbf16> -> !tile.tile<72xbf16>
  %wt = tile.transpose %w [1, 0] : !tile.tile<72x64xbf16> to !tile.tile<64x72xbf16>
  %c = tile.contract %x, %wt axes [[1, 0]] acc f32 : !tile.tile<100x64xbf16>, !tile.tile<64x72xbf16> -> !tile.tile<100x72xbf16>
  %bb = tile.broadcast %bias : !tile.tile<72xbf16> to !tile.tile<100x72xbf16>
  %y = tile.add %c, %bb : !tile.tile<100x72xbf16>
  tile.store %y, %Y : !tile.tile<100x72xbf16>, !tile.array<100x72xbf16>
  tile.return
}

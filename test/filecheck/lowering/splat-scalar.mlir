// tile.splat of scalar inputs and of a run-time size: the scalars become kernel parameters, converted
// once at the top of the kernel (not per element), on the CPU (C) and NVIDIA (PTX).
// RUN: tilec-opt %s -p lower-to-c -t c | filecheck %s --check-prefix=C
// RUN: tilec-opt %s -p lower-to-ptx -t ptx | filecheck %s --check-prefix=PTX
// RUN: tilec-opt %s -p lower-to-ptx -t ptx -o %t.ptx && ptxas -arch=sm_90a %t.ptx -o %t.cubin

// C: static void tilec_u_scale_0_elementwise({{.*}}, float s, double k) {
// C-NEXT: int64_t v = X_d0 * ((int64_t)5LL);
// C: float v_2 = (float)k;
// C-NEXT: float v_3 = s * v_2;
// C: float v_7 = (float)v_6;
// C-NEXT: #pragma omp parallel for
// C: float v_15 = v_14 * v_5;
// C-NEXT: float v_16 = v_15 / v_7;
// C: int tilec_u_scale(tilec_f16* restrict X, int64_t X_d0, float s, double k, tilec_f16* restrict Y, int64_t Y_d0) {

// PTX: .param .f32 tilec_param_6,
// PTX-NEXT: .param .f64 tilec_param_7
// PTX: ld.param.f32 %f1, [tilec_param_6];
// PTX-NEXT: ld.param.f64 %fd1, [tilec_param_7];
// PTX: cvt.rn.f32.f64 %f2, %fd1;
// PTX: cvt.rn.f32.s64
// PTX-NOT: cvt.rn.f32.s64
// PTX: ret;
tile.func @scale(%X: !tile.array<?x5xf16>, %s: f32, %k: f64) outs(%Y: !tile.array<?x5xf16>) {
  %x = tile.load %X : !tile.array<?x5xf16> -> !tile.tile<?x5xf16>
  %n = tile.dim %X 0 : !tile.array<?x5xf16>
  %s0 = tile.splat %s : f32 to !tile.tile<f32>
  %k0 = tile.splat %k : f64 to !tile.tile<f64>
  %kc = tile.cast %k0 : !tile.tile<f64> to !tile.tile<f32>
  %sk = tile.mul %s0, %kc : !tile.tile<f32>
  %sh = tile.cast %sk : !tile.tile<f32> to !tile.tile<f16>
  %sb = tile.broadcast %sh sizes(%n) : !tile.tile<f16> to !tile.tile<?x5xf16>
  %nf = tile.splat %n sizes(%n) : index to !tile.tile<?x5xf16>
  %y0 = tile.mul %x, %sb : !tile.tile<?x5xf16>
  %y = tile.div %y0, %nf : !tile.tile<?x5xf16>
  tile.store %y, %Y : !tile.tile<?x5xf16>, !tile.array<?x5xf16>
  tile.return
}

// The math library's elementwise ops (tilec/mathfns.py): unary float ops, sign (floats and integers), atan2.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @math
tile.func @math(%X: !tile.array<?x32xf32>, %I: !tile.array<8xi16>) {
  %x = tile.load %X : !tile.array<?x32xf32> -> !tile.tile<?x32xf32>
  // CHECK: %sin = tile.sin %x : !tile.tile<?x32xf32>
  // GENERIC: %sin = "tile.sin"(%x) : (!tile.tile<?x32xf32>) -> !tile.tile<?x32xf32>
  %sin = tile.sin %x : !tile.tile<?x32xf32>
  // CHECK-NEXT: %cos = tile.cos %sin : !tile.tile<?x32xf32>
  // GENERIC: "tile.cos"
  %cos = tile.cos %sin : !tile.tile<?x32xf32>
  // CHECK-NEXT: %tan = tile.tan %cos : !tile.tile<?x32xf32>
  // GENERIC: "tile.tan"
  %tan = tile.tan %cos : !tile.tile<?x32xf32>
  // CHECK-NEXT: %asin = tile.asin %tan : !tile.tile<?x32xf32>
  // GENERIC: "tile.asin"
  %asin = tile.asin %tan : !tile.tile<?x32xf32>
  // CHECK-NEXT: %acos = tile.acos %asin : !tile.tile<?x32xf32>
  // GENERIC: "tile.acos"
  %acos = tile.acos %asin : !tile.tile<?x32xf32>
  // CHECK-NEXT: %atan = tile.atan %acos : !tile.tile<?x32xf32>
  // GENERIC: "tile.atan"
  %atan = tile.atan %acos : !tile.tile<?x32xf32>
  // CHECK-NEXT: %sinh = tile.sinh %atan : !tile.tile<?x32xf32>
  // GENERIC: "tile.sinh"
  %sinh = tile.sinh %atan : !tile.tile<?x32xf32>
  // CHECK-NEXT: %cosh = tile.cosh %sinh : !tile.tile<?x32xf32>
  // GENERIC: "tile.cosh"
  %cosh = tile.cosh %sinh : !tile.tile<?x32xf32>
  // CHECK-NEXT: %asinh = tile.asinh %cosh : !tile.tile<?x32xf32>
  // GENERIC: "tile.asinh"
  %asinh = tile.asinh %cosh : !tile.tile<?x32xf32>
  // CHECK-NEXT: %acosh = tile.acosh %asinh : !tile.tile<?x32xf32>
  // GENERIC: "tile.acosh"
  %acosh = tile.acosh %asinh : !tile.tile<?x32xf32>
  // CHECK-NEXT: %atanh = tile.atanh %acosh : !tile.tile<?x32xf32>
  // GENERIC: "tile.atanh"
  %atanh = tile.atanh %acosh : !tile.tile<?x32xf32>
  // CHECK-NEXT: %expm1 = tile.expm1 %atanh : !tile.tile<?x32xf32>
  // GENERIC: "tile.expm1"
  %expm1 = tile.expm1 %atanh : !tile.tile<?x32xf32>
  // CHECK-NEXT: %log1p = tile.log1p %expm1 : !tile.tile<?x32xf32>
  // GENERIC: "tile.log1p"
  %log1p = tile.log1p %expm1 : !tile.tile<?x32xf32>
  // CHECK-NEXT: %log2 = tile.log2 %log1p : !tile.tile<?x32xf32>
  // GENERIC: "tile.log2"
  %log2 = tile.log2 %log1p : !tile.tile<?x32xf32>
  // CHECK-NEXT: %log10 = tile.log10 %log2 : !tile.tile<?x32xf32>
  // GENERIC: "tile.log10"
  %log10 = tile.log10 %log2 : !tile.tile<?x32xf32>
  // CHECK-NEXT: %exp2 = tile.exp2 %log10 : !tile.tile<?x32xf32>
  // GENERIC: "tile.exp2"
  %exp2 = tile.exp2 %log10 : !tile.tile<?x32xf32>
  // CHECK-NEXT: %sigmoid = tile.sigmoid %exp2 : !tile.tile<?x32xf32>
  // GENERIC: "tile.sigmoid"
  %sigmoid = tile.sigmoid %exp2 : !tile.tile<?x32xf32>
  // CHECK-NEXT: %softplus = tile.softplus %sigmoid : !tile.tile<?x32xf32>
  // GENERIC: "tile.softplus"
  %softplus = tile.softplus %sigmoid : !tile.tile<?x32xf32>
  // CHECK-NEXT: %floor = tile.floor %softplus : !tile.tile<?x32xf32>
  // GENERIC: "tile.floor"
  %floor = tile.floor %softplus : !tile.tile<?x32xf32>
  // CHECK-NEXT: %ceil = tile.ceil %floor : !tile.tile<?x32xf32>
  // GENERIC: "tile.ceil"
  %ceil = tile.ceil %floor : !tile.tile<?x32xf32>
  // CHECK-NEXT: %round = tile.round %ceil : !tile.tile<?x32xf32>
  // GENERIC: "tile.round"
  %round = tile.round %ceil : !tile.tile<?x32xf32>
  // CHECK-NEXT: %trunc = tile.trunc %round : !tile.tile<?x32xf32>
  // GENERIC: "tile.trunc"
  %trunc = tile.trunc %round : !tile.tile<?x32xf32>
  // CHECK-NEXT: %sign = tile.sign %trunc : !tile.tile<?x32xf32>
  // GENERIC: "tile.sign"
  %sign = tile.sign %trunc : !tile.tile<?x32xf32>
  // CHECK-NEXT: %atan2 = tile.atan2 %sign, %x : !tile.tile<?x32xf32>
  // GENERIC: %atan2 = "tile.atan2"(%sign, %x) : (!tile.tile<?x32xf32>, !tile.tile<?x32xf32>) -> !tile.tile<?x32xf32>
  %atan2 = tile.atan2 %sign, %x : !tile.tile<?x32xf32>
  %i = tile.load %I : !tile.array<8xi16> -> !tile.tile<8xi16>
  // CHECK: %isign = tile.sign %i : !tile.tile<8xi16>
  %isign = tile.sign %i : !tile.tile<8xi16>
  %h = tile.constant 2.0 : !tile.tile<bf16>
  // CHECK: %hsin = tile.sin %h {approx = true} : !tile.tile<bf16>
  %hsin = tile.sin %h {approx = true} : !tile.tile<bf16>
  tile.return
}

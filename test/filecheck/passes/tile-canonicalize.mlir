// tile-canonicalize: each pattern of tilec/passes/tile_canonicalize.py, and for each a case it must
// leave alone. Every function stores its results, so only the rewrites (not dead-code removal)
// decide what remains.
// RUN: tilec-opt %s --split-input-file -p tile-canonicalize | filecheck %s
// The result is stable: a second run changes nothing.
// RUN: tilec-opt %s --split-input-file -p tile-canonicalize | tilec-opt --split-input-file -p tile-canonicalize | filecheck %s

// --- IdentityConversion ----------------------------------------------------------------------

// CHECK-LABEL: tile.func @identity_conversions
// CHECK-NEXT:    %x = tile.load %X
// CHECK-NEXT:    tile.store %x, %Y
// CHECK-NEXT:    tile.return
tile.func @identity_conversions(%X: !tile.array<4x8xf32>) outs(%Y: !tile.array<4x8xf32>) {
  %x = tile.load %X : !tile.array<4x8xf32> -> !tile.tile<4x8xf32>
  %c = tile.cast %x : !tile.tile<4x8xf32> to !tile.tile<4x8xf32>
  %b = tile.broadcast %c : !tile.tile<4x8xf32> to !tile.tile<4x8xf32>
  %r = tile.reshape %b : !tile.tile<4x8xf32> to !tile.tile<4x8xf32>
  %t = tile.transpose %r [0, 1] : !tile.tile<4x8xf32> to !tile.tile<4x8xf32>
  tile.store %t, %Y : !tile.tile<4x8xf32>, !tile.array<4x8xf32>
  tile.return
}

// -----

// A cast to the same dynamic type is still the identity.
// CHECK-LABEL: tile.func @identity_cast_dynamic
// CHECK-NEXT:    %x = tile.load %X
// CHECK-NEXT:    tile.store %x, %Y
tile.func @identity_cast_dynamic(%X: !tile.array<?xf16>) outs(%Y: !tile.array<?xf16>) {
  %x = tile.load %X : !tile.array<?xf16> -> !tile.tile<?xf16>
  %c = tile.cast %x : !tile.tile<?xf16> to !tile.tile<?xf16>
  tile.store %c, %Y : !tile.tile<?xf16>, !tile.array<?xf16>
  tile.return
}

// -----

// NOT identities: a real cast, a real transpose, and broadcast/reshape between equal DYNAMIC types,
// whose `?` sizes come from sizes(...) and may differ from the source's (2x8 -> 4x4).
// CHECK-LABEL: tile.func @not_identity
// CHECK:         %h = tile.cast %x : !tile.tile<4x8xf32> to !tile.tile<4x8xf16>
// CHECK:         %t = tile.transpose %y [1, 0] : !tile.tile<8x8xf32> to !tile.tile<8x8xf32>
// CHECK:         %r = tile.reshape %d sizes(%n, %m) : !tile.tile<?x?xf32> to !tile.tile<?x?xf32>
// CHECK:         %b = tile.broadcast %r sizes(%n, %m) : !tile.tile<?x?xf32> to !tile.tile<?x?xf32>
tile.func @not_identity(%X: !tile.array<4x8xf32>, %Z: !tile.array<8x8xf32>, %D: !tile.array<?x?xf32>, %n: index, %m: index)
    outs(%H: !tile.array<4x8xf16>, %T: !tile.array<8x8xf32>, %B: !tile.array<?x?xf32>) {
  %x = tile.load %X : !tile.array<4x8xf32> -> !tile.tile<4x8xf32>
  %h = tile.cast %x : !tile.tile<4x8xf32> to !tile.tile<4x8xf16>
  tile.store %h, %H : !tile.tile<4x8xf16>, !tile.array<4x8xf16>
  %y = tile.load %Z : !tile.array<8x8xf32> -> !tile.tile<8x8xf32>
  %t = tile.transpose %y [1, 0] : !tile.tile<8x8xf32> to !tile.tile<8x8xf32>
  tile.store %t, %T : !tile.tile<8x8xf32>, !tile.array<8x8xf32>
  %d = tile.load %D : !tile.array<?x?xf32> -> !tile.tile<?x?xf32>
  %r = tile.reshape %d sizes(%n, %m) : !tile.tile<?x?xf32> to !tile.tile<?x?xf32>
  %b = tile.broadcast %r sizes(%n, %m) : !tile.tile<?x?xf32> to !tile.tile<?x?xf32>
  tile.store %b, %B : !tile.tile<?x?xf32>, !tile.array<?x?xf32>
  tile.return
}

// -----

// --- FoldTransposeChain ----------------------------------------------------------------------

// transpose [2, 0, 1] of transpose [1, 2, 0] is the identity: both vanish.
// CHECK-LABEL: tile.func @transpose_inverse
// CHECK-NEXT:    %x = tile.load %X
// CHECK-NEXT:    tile.store %x, %Y
tile.func @transpose_inverse(%X: !tile.array<2x3x5xf32>) outs(%Y: !tile.array<2x3x5xf32>) {
  %x = tile.load %X : !tile.array<2x3x5xf32> -> !tile.tile<2x3x5xf32>
  %a = tile.transpose %x [1, 2, 0] : !tile.tile<2x3x5xf32> to !tile.tile<3x5x2xf32>
  %b = tile.transpose %a [2, 0, 1] : !tile.tile<3x5x2xf32> to !tile.tile<2x3x5xf32>
  tile.store %b, %Y : !tile.tile<2x3x5xf32>, !tile.array<2x3x5xf32>
  tile.return
}

// -----

// Two transposes compose into one: result axis i is x's axis p_in[p_out[i]].
// [1, 2, 0] then [1, 0, 2]: axes (3, 5, 2) -> (5, 3, 2), i.e. x's axes [2, 1, 0].
// CHECK-LABEL: tile.func @transpose_compose
// CHECK-NEXT:    %x = tile.load %X
// CHECK-NEXT:    %b = tile.transpose %x [2, 1, 0] : !tile.tile<2x3x5xf32> to !tile.tile<5x3x2xf32>
// CHECK-NEXT:    tile.store %b, %Y
tile.func @transpose_compose(%X: !tile.array<2x3x5xf32>) outs(%Y: !tile.array<5x3x2xf32>) {
  %x = tile.load %X : !tile.array<2x3x5xf32> -> !tile.tile<2x3x5xf32>
  %a = tile.transpose %x [1, 2, 0] : !tile.tile<2x3x5xf32> to !tile.tile<3x5x2xf32>
  %b = tile.transpose %a [1, 0, 2] : !tile.tile<3x5x2xf32> to !tile.tile<5x3x2xf32>
  tile.store %b, %Y : !tile.tile<5x3x2xf32>, !tile.array<5x3x2xf32>
  tile.return
}

// -----

// A chain of three 2-d transposes becomes one; the inner transposes stay only while used elsewhere.
// CHECK-LABEL: tile.func @transpose_chain_shared
// CHECK:         %a = tile.transpose %x [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>
// CHECK-NEXT:    tile.store %a, %A
// CHECK-NEXT:    %c = tile.transpose %x [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>
// CHECK-NEXT:    tile.store %c, %C
tile.func @transpose_chain_shared(%X: !tile.array<4x8xf32>) outs(%A: !tile.array<8x4xf32>, %C: !tile.array<8x4xf32>) {
  %x = tile.load %X : !tile.array<4x8xf32> -> !tile.tile<4x8xf32>
  %a = tile.transpose %x [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>
  tile.store %a, %A : !tile.tile<8x4xf32>, !tile.array<8x4xf32>
  %b = tile.transpose %a [1, 0] : !tile.tile<8x4xf32> to !tile.tile<4x8xf32>
  %c = tile.transpose %b [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>
  tile.store %c, %C : !tile.tile<8x4xf32>, !tile.array<8x4xf32>
  tile.return
}

// -----

// NOT a chain: a transpose of something else.
// CHECK-LABEL: tile.func @transpose_of_neg
// CHECK:         %n = tile.neg %x
// CHECK-NEXT:    %t = tile.transpose %n [1, 0]
tile.func @transpose_of_neg(%X: !tile.array<4x8xf32>) outs(%Y: !tile.array<8x4xf32>) {
  %x = tile.load %X : !tile.array<4x8xf32> -> !tile.tile<4x8xf32>
  %n = tile.neg %x : !tile.tile<4x8xf32>
  %t = tile.transpose %n [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>
  tile.store %t, %Y : !tile.tile<8x4xf32>, !tile.array<8x4xf32>
  tile.return
}

// -----

// --- FoldReshapeChain ------------------------------------------------------------------------

// CHECK-LABEL: tile.func @reshape_chain
// CHECK-NEXT:    %x = tile.load %X
// CHECK-NEXT:    %c = tile.reshape %x : !tile.tile<4x6xf32> to !tile.tile<3x8xf32>
// CHECK-NEXT:    tile.store %c, %Y
tile.func @reshape_chain(%X: !tile.array<4x6xf32>) outs(%Y: !tile.array<3x8xf32>) {
  %x = tile.load %X : !tile.array<4x6xf32> -> !tile.tile<4x6xf32>
  %a = tile.reshape %x : !tile.tile<4x6xf32> to !tile.tile<24xf32>
  %b = tile.reshape %a : !tile.tile<24xf32> to !tile.tile<2x12xf32>
  %c = tile.reshape %b : !tile.tile<2x12xf32> to !tile.tile<3x8xf32>
  tile.store %c, %Y : !tile.tile<3x8xf32>, !tile.array<3x8xf32>
  tile.return
}

// -----

// Back to the original static shape: the chain folds, then the identity reshape vanishes.
// The outer reshape's sizes are kept when it is dynamic.
// CHECK-LABEL: tile.func @reshape_round_trip
// CHECK-NEXT:    %x = tile.load %X
// CHECK-NEXT:    tile.store %x, %Y
// CHECK-NEXT:    %d = tile.load %D
// CHECK-NEXT:    %f = tile.reshape %d sizes(%n) : !tile.tile<?x4xf32> to !tile.tile<?xf32>
// CHECK-NEXT:    tile.store %f, %F
tile.func @reshape_round_trip(%X: !tile.array<4x6xf32>, %D: !tile.array<?x4xf32>, %n: index) outs(%Y: !tile.array<4x6xf32>, %F: !tile.array<?xf32>) {
  %x = tile.load %X : !tile.array<4x6xf32> -> !tile.tile<4x6xf32>
  %a = tile.reshape %x : !tile.tile<4x6xf32> to !tile.tile<24xf32>
  %b = tile.reshape %a : !tile.tile<24xf32> to !tile.tile<4x6xf32>
  tile.store %b, %Y : !tile.tile<4x6xf32>, !tile.array<4x6xf32>
  %d = tile.load %D : !tile.array<?x4xf32> -> !tile.tile<?x4xf32>
  %e = tile.reshape %d sizes(%n) : !tile.tile<?x4xf32> to !tile.tile<2x?xf32>
  %f = tile.reshape %e sizes(%n) : !tile.tile<2x?xf32> to !tile.tile<?xf32>
  tile.store %f, %F : !tile.tile<?xf32>, !tile.array<?xf32>
  tile.return
}

// -----

// --- FoldDoubleNeg ---------------------------------------------------------------------------

// neg(neg(x)) is x; a single neg, neg of abs and a triple neg (one remains) are kept.
// CHECK-LABEL: tile.func @double_neg
// CHECK-NEXT:    %x = tile.load %X
// CHECK-NEXT:    %n1 = tile.neg %x
// CHECK-NEXT:    tile.store %x, %A
// CHECK-NEXT:    tile.store %n1, %B
// CHECK-NEXT:    %a = tile.abs %x
// CHECK-NEXT:    %na = tile.neg %a
// CHECK-NEXT:    tile.store %na, %C
// CHECK-NEXT:    %m3 = tile.neg %x
// CHECK-NEXT:    tile.store %m3, %D
tile.func @double_neg(%X: !tile.array<8xi32>) outs(%A: !tile.array<8xi32>, %B: !tile.array<8xi32>, %C: !tile.array<8xi32>, %D: !tile.array<8xi32>) {
  %x = tile.load %X : !tile.array<8xi32> -> !tile.tile<8xi32>
  %n1 = tile.neg %x : !tile.tile<8xi32>
  %n2 = tile.neg %n1 : !tile.tile<8xi32>
  tile.store %n2, %A : !tile.tile<8xi32>, !tile.array<8xi32>
  tile.store %n1, %B : !tile.tile<8xi32>, !tile.array<8xi32>
  %a = tile.abs %x : !tile.tile<8xi32>
  %na = tile.neg %a : !tile.tile<8xi32>
  tile.store %na, %C : !tile.tile<8xi32>, !tile.array<8xi32>
  %m1 = tile.neg %x : !tile.tile<8xi32>
  %m2 = tile.neg %m1 : !tile.tile<8xi32>
  %m3 = tile.neg %m2 : !tile.tile<8xi32>
  tile.store %m3, %D : !tile.tile<8xi32>, !tile.array<8xi32>
  tile.return
}

// -----

// --- FoldMulByOne ----------------------------------------------------------------------------

// x * 1 and 1 * x are x, for floats and integers; x * 2 stays.
// CHECK-LABEL: tile.func @mul_by_one
// CHECK-NEXT:    %x = tile.load %X
// CHECK-NEXT:    tile.store %x, %A
// CHECK-NEXT:    tile.store %x, %B
// CHECK-NEXT:    %two = tile.constant 2.000000e+00
// CHECK-NEXT:    %m3 = tile.mul %x, %two
// CHECK-NEXT:    tile.store %m3, %C
// CHECK-NEXT:    %i = tile.load %I
// CHECK-NEXT:    tile.store %i, %D
tile.func @mul_by_one(%X: !tile.array<8xf32>, %I: !tile.array<8xi64>) outs(%A: !tile.array<8xf32>, %B: !tile.array<8xf32>, %C: !tile.array<8xf32>, %D: !tile.array<8xi64>) {
  %x = tile.load %X : !tile.array<8xf32> -> !tile.tile<8xf32>
  %one = tile.constant 1.0 : !tile.tile<8xf32>
  %m1 = tile.mul %x, %one : !tile.tile<8xf32>
  tile.store %m1, %A : !tile.tile<8xf32>, !tile.array<8xf32>
  %m2 = tile.mul %one, %x : !tile.tile<8xf32>
  tile.store %m2, %B : !tile.tile<8xf32>, !tile.array<8xf32>
  %two = tile.constant 2.0 : !tile.tile<8xf32>
  %m3 = tile.mul %x, %two : !tile.tile<8xf32>
  tile.store %m3, %C : !tile.tile<8xf32>, !tile.array<8xf32>
  %i = tile.load %I : !tile.array<8xi64> -> !tile.tile<8xi64>
  %ione = tile.constant 1 : !tile.tile<8xi64>
  %m4 = tile.mul %i, %ione : !tile.tile<8xi64>
  tile.store %m4, %D : !tile.tile<8xi64>, !tile.array<8xi64>
  tile.return
}

// -----

// NOT folded: float x + 0 (it would turn -0.0 into +0.0), x - 0, x * 0 (NaN and inf times 0 are NaN),
// and x * 1 where 1 is a dense literal.
// CHECK-LABEL: tile.func @not_folded_identities
// CHECK:         %p = tile.add %x, %zero : !tile.tile<2xf32>
// CHECK:         %s = tile.sub %x, %zero : !tile.tile<2xf32>
// CHECK:         %m = tile.mul %x, %ones : !tile.tile<2xf32>
// CHECK:         %z = tile.mul %x, %zero : !tile.tile<2xf32>
// CHECK-NEXT:    tile.store %z, %Z
tile.func @not_folded_identities(%X: !tile.array<2xf32>) outs(%P: !tile.array<2xf32>, %S: !tile.array<2xf32>, %M: !tile.array<2xf32>, %Z: !tile.array<2xf32>) {
  %x = tile.load %X : !tile.array<2xf32> -> !tile.tile<2xf32>
  %zero = tile.constant 0.0 : !tile.tile<2xf32>
  %p = tile.add %x, %zero : !tile.tile<2xf32>
  tile.store %p, %P : !tile.tile<2xf32>, !tile.array<2xf32>
  %s = tile.sub %x, %zero : !tile.tile<2xf32>
  tile.store %s, %S : !tile.tile<2xf32>, !tile.array<2xf32>
  %ones = tile.constant dense<[1.0, 1.0]> : !tile.tile<2xf32>
  %m = tile.mul %x, %ones : !tile.tile<2xf32>
  tile.store %m, %M : !tile.tile<2xf32>, !tile.array<2xf32>
  %z = tile.mul %x, %zero : !tile.tile<2xf32>
  tile.store %z, %Z : !tile.tile<2xf32>, !tile.array<2xf32>
  tile.return
}

// -----

// --- FoldSplatConstants ----------------------------------------------------------------------

// Float unary ops of a splat become a splat (rounded to the element type).
// CHECK-LABEL: tile.func @splat_unary
// CHECK-NEXT: %neg = tile.constant -4.000000e+00 : !tile.tile<4xf32>
// CHECK-NEXT: tile.store %neg, %A
// CHECK-NEXT: %abs = tile.constant 4.000000e+00 : !tile.tile<4xf32>
// CHECK-NEXT: tile.store %abs, %B
// CHECK-NEXT: %exp = tile.constant 54.5981483 : !tile.tile<4xf32>
// CHECK-NEXT: tile.store %exp, %C
// CHECK-NEXT: %log = tile.constant 1.38629436 : !tile.tile<4xf32>
// CHECK-NEXT: tile.store %log, %D
// CHECK-NEXT: %sqrt = tile.constant 2.000000e+00 : !tile.tile<4xf32>
// CHECK-NEXT: tile.store %sqrt, %E
// CHECK-NEXT: %rsqrt = tile.constant 5.000000e-01 : !tile.tile<4xf32>
// CHECK-NEXT: tile.store %rsqrt, %F
// CHECK-NEXT: %tanh = tile.constant 0.999329329 : !tile.tile<4xf32>
// CHECK-NEXT: tile.store %tanh, %G
// CHECK-NEXT: %erf = tile.constant 1.000000e+00 : !tile.tile<4xf32>
// CHECK-NEXT: tile.store %erf, %H
// CHECK-NEXT: tile.return
tile.func @splat_unary() outs(%A: !tile.array<4xf32>, %B: !tile.array<4xf32>, %C: !tile.array<4xf32>, %D: !tile.array<4xf32>,
                              %E: !tile.array<4xf32>, %F: !tile.array<4xf32>, %G: !tile.array<4xf32>, %H: !tile.array<4xf32>) {
  %four = tile.constant 4.0 : !tile.tile<4xf32>
  %neg = tile.neg %four : !tile.tile<4xf32>
  tile.store %neg, %A : !tile.tile<4xf32>, !tile.array<4xf32>
  %abs = tile.abs %neg : !tile.tile<4xf32>
  tile.store %abs, %B : !tile.tile<4xf32>, !tile.array<4xf32>
  %exp = tile.exp %four : !tile.tile<4xf32>
  tile.store %exp, %C : !tile.tile<4xf32>, !tile.array<4xf32>
  %log = tile.log %four : !tile.tile<4xf32>
  tile.store %log, %D : !tile.tile<4xf32>, !tile.array<4xf32>
  %sqrt = tile.sqrt %four : !tile.tile<4xf32>
  tile.store %sqrt, %E : !tile.tile<4xf32>, !tile.array<4xf32>
  %rsqrt = tile.rsqrt %four : !tile.tile<4xf32>
  tile.store %rsqrt, %F : !tile.tile<4xf32>, !tile.array<4xf32>
  %tanh = tile.tanh %four : !tile.tile<4xf32>
  tile.store %tanh, %G : !tile.tile<4xf32>, !tile.array<4xf32>
  %erf = tile.erf %four : !tile.tile<4xf32>
  tile.store %erf, %H : !tile.tile<4xf32>, !tile.array<4xf32>
  tile.return
}

// -----

// Float binary ops (add, sub, mul, max, min) of splats become a splat.
// CHECK-LABEL: tile.func @splat_binary
// CHECK-NEXT: %add = tile.constant 4.500000e+00 : !tile.tile<2x2xf64>
// CHECK-NEXT: tile.store %add, %A
// CHECK-NEXT: %sub = tile.constant -1.500000e+00 : !tile.tile<2x2xf64>
// CHECK-NEXT: tile.store %sub, %B
// CHECK-NEXT: %mul = tile.constant 4.500000e+00 : !tile.tile<2x2xf64>
// CHECK-NEXT: tile.store %mul, %C
// CHECK-NEXT: %max = tile.constant 3.000000e+00 : !tile.tile<2x2xf64>
// CHECK-NEXT: tile.store %max, %D
// CHECK-NEXT: %min = tile.constant 1.500000e+00 : !tile.tile<2x2xf64>
// CHECK-NEXT: tile.store %min, %E
tile.func @splat_binary() outs(%A: !tile.array<2x2xf64>, %B: !tile.array<2x2xf64>, %C: !tile.array<2x2xf64>, %D: !tile.array<2x2xf64>, %E: !tile.array<2x2xf64>) {
  %a = tile.constant 1.5 : !tile.tile<2x2xf64>
  %b = tile.constant 3.0 : !tile.tile<2x2xf64>
  %add = tile.add %a, %b : !tile.tile<2x2xf64>
  tile.store %add, %A : !tile.tile<2x2xf64>, !tile.array<2x2xf64>
  %sub = tile.sub %a, %b : !tile.tile<2x2xf64>
  tile.store %sub, %B : !tile.tile<2x2xf64>, !tile.array<2x2xf64>
  %mul = tile.mul %a, %b : !tile.tile<2x2xf64>
  tile.store %mul, %C : !tile.tile<2x2xf64>, !tile.array<2x2xf64>
  %max = tile.max %a, %b : !tile.tile<2x2xf64>
  tile.store %max, %D : !tile.tile<2x2xf64>, !tile.array<2x2xf64>
  %min = tile.min %a, %b : !tile.tile<2x2xf64>
  tile.store %min, %E : !tile.tile<2x2xf64>, !tile.array<2x2xf64>
  tile.return
}

// -----

// Broadcast, reshape and transpose of a splat are a splat of the new shape, for any element type;
// a cast of a splat to a float type rounds to that type (0.1 in f16 is 0.0999755859375).
// CHECK-LABEL: tile.func @splat_shape_ops
// CHECK-NEXT: %b = tile.constant 7 : !tile.tile<3x4xi8>
// CHECK-NEXT: tile.store %b, %A
// CHECK-NEXT: %r = tile.constant true : !tile.tile<2x2xi1>
// CHECK-NEXT: tile.store %r, %B
// CHECK-NEXT: %t = tile.constant 2.500000e+00 : !tile.tile<3x2xbf16>
// CHECK-NEXT: tile.store %t, %C
// CHECK-NEXT: %h = tile.constant 9.997560e-02 : !tile.tile<4xf16>
// CHECK-NEXT: tile.store %h, %D
// CHECK-NEXT: %f = tile.constant 3.000000e+00 : !tile.tile<4xf32>
// CHECK-NEXT: tile.store %f, %E
tile.func @splat_shape_ops() outs(%A: !tile.array<3x4xi8>, %B: !tile.array<2x2xi1>, %C: !tile.array<3x2xbf16>, %D: !tile.array<4xf16>, %E: !tile.array<4xf32>) {
  %s = tile.constant 7 : !tile.tile<4xi8>
  %b = tile.broadcast %s : !tile.tile<4xi8> to !tile.tile<3x4xi8>
  tile.store %b, %A : !tile.tile<3x4xi8>, !tile.array<3x4xi8>
  %m = tile.constant true : !tile.tile<4xi1>
  %r = tile.reshape %m : !tile.tile<4xi1> to !tile.tile<2x2xi1>
  tile.store %r, %B : !tile.tile<2x2xi1>, !tile.array<2x2xi1>
  %q = tile.constant 2.5 : !tile.tile<2x3xbf16>
  %t = tile.transpose %q [1, 0] : !tile.tile<2x3xbf16> to !tile.tile<3x2xbf16>
  tile.store %t, %C : !tile.tile<3x2xbf16>, !tile.array<3x2xbf16>
  %tenth = tile.constant 0.1 : !tile.tile<4xf32>
  %h = tile.cast %tenth : !tile.tile<4xf32> to !tile.tile<4xf16>
  tile.store %h, %D : !tile.tile<4xf16>, !tile.array<4xf16>
  %three = tile.constant 3 : !tile.tile<4xi32>
  %f = tile.cast %three : !tile.tile<4xi32> to !tile.tile<4xf32>
  tile.store %f, %E : !tile.tile<4xf32>, !tile.array<4xf32>
  tile.return
}

// -----

// NOT folded: integer arithmetic, div and pow, results that are not finite (log of a negative, exp
// overflowing f16), a cast to an integer type, dense (non-splat) operands, dynamic result shapes.
// CHECK-LABEL: tile.func @splat_not_folded
// CHECK: %iadd = tile.add %i2, %i3 : !tile.tile<4xi32>
// CHECK: %ineg = tile.neg %i2 : !tile.tile<4xi32>
// CHECK: %div = tile.div %f2, %f3 : !tile.tile<4xf32>
// CHECK: %pow = tile.pow %f2, %f3 : !tile.tile<4xf32>
// CHECK: %log = tile.log %fm1 : !tile.tile<4xf32>
// CHECK: %exp = tile.exp %h20 : !tile.tile<4xf16>
// CHECK: %toint = tile.cast %f2 : !tile.tile<4xf32> to !tile.tile<4xi32>
// CHECK: %dneg = tile.neg %dense : !tile.tile<2xf32>
// CHECK: %dyn = tile.broadcast %s sizes(%n) : !tile.tile<f32> to !tile.tile<?xf32>
// CHECK-NOT: = tile.constant
tile.func @splat_not_folded(%n: index) outs(%A: !tile.array<4xi32>, %B: !tile.array<4xi32>, %C: !tile.array<4xf32>, %D: !tile.array<4xf32>,
    %E: !tile.array<4xf32>, %F: !tile.array<4xf16>, %G: !tile.array<4xi32>, %H: !tile.array<2xf32>, %I: !tile.array<?xf32>) {
  %i2 = tile.constant 2 : !tile.tile<4xi32>
  %i3 = tile.constant 3 : !tile.tile<4xi32>
  %iadd = tile.add %i2, %i3 : !tile.tile<4xi32>
  tile.store %iadd, %A : !tile.tile<4xi32>, !tile.array<4xi32>
  %ineg = tile.neg %i2 : !tile.tile<4xi32>
  tile.store %ineg, %B : !tile.tile<4xi32>, !tile.array<4xi32>
  %f2 = tile.constant 2.0 : !tile.tile<4xf32>
  %f3 = tile.constant 3.0 : !tile.tile<4xf32>
  %div = tile.div %f2, %f3 : !tile.tile<4xf32>
  tile.store %div, %C : !tile.tile<4xf32>, !tile.array<4xf32>
  %pow = tile.pow %f2, %f3 : !tile.tile<4xf32>
  tile.store %pow, %D : !tile.tile<4xf32>, !tile.array<4xf32>
  %fm1 = tile.constant -1.0 : !tile.tile<4xf32>
  %log = tile.log %fm1 : !tile.tile<4xf32>
  tile.store %log, %E : !tile.tile<4xf32>, !tile.array<4xf32>
  %h20 = tile.constant 20.0 : !tile.tile<4xf16>
  %exp = tile.exp %h20 : !tile.tile<4xf16>
  tile.store %exp, %F : !tile.tile<4xf16>, !tile.array<4xf16>
  %toint = tile.cast %f2 : !tile.tile<4xf32> to !tile.tile<4xi32>
  tile.store %toint, %G : !tile.tile<4xi32>, !tile.array<4xi32>
  %dense = tile.constant dense<[1.0, 2.0]> : !tile.tile<2xf32>
  %dneg = tile.neg %dense : !tile.tile<2xf32>
  tile.store %dneg, %H : !tile.tile<2xf32>, !tile.array<2xf32>
  %s = tile.constant 1.0 : !tile.tile<f32>
  %dyn = tile.broadcast %s sizes(%n) : !tile.tile<f32> to !tile.tile<?xf32>
  tile.store %dyn, %I : !tile.tile<?xf32>, !tile.array<?xf32>
  tile.return
}

// -----

// --- what the greedy driver does besides: unused pure ops disappear; stores and loads stay ---------

// CHECK-LABEL: tile.func @dead_code
// CHECK-NEXT:    %x = tile.load %X
// CHECK-NEXT:    %unused_load = tile.load %X
// CHECK-NEXT:    tile.store %x, %Y
// CHECK-NEXT:    tile.return
tile.func @dead_code(%X: !tile.array<4xf32>) outs(%Y: !tile.array<4xf32>) {
  %x = tile.load %X : !tile.array<4xf32> -> !tile.tile<4xf32>
  %unused_load = tile.load %X : !tile.array<4xf32> -> !tile.tile<4xf32>
  %e = tile.exp %x : !tile.tile<4xf32>
  %c = tile.contract %e, %e axes [[0, 0]] : !tile.tile<4xf32>, !tile.tile<4xf32> -> !tile.tile<f32>
  tile.store %x, %Y : !tile.tile<4xf32>, !tile.array<4xf32>
  tile.return
}

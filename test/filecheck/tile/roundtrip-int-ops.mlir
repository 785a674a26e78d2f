// The integer ops (and, or, xor, not, shl, shr; floordiv and mod, which also take floats), the
// unsigned element types ui8 .. ui64, and tile.bitcast.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tile.func @bits(%W: !tile.array<7x?xui8>) outs(%O: !tile.array<7x?xui8>)
tile.func @bits(%W: !tile.array<7x?xui8>) outs(%O: !tile.array<7x?xui8>) {
  %w = tile.load %W : !tile.array<7x?xui8> -> !tile.tile<7x?xui8>
  %n = tile.dim %W 1 : !tile.array<7x?xui8>
  // CHECK: %four = tile.constant 4 sizes(%n) : !tile.tile<7x?xui8>
  %four = tile.constant 4 sizes(%n) : !tile.tile<7x?xui8>
  // CHECK-NEXT: %max = tile.constant 255 sizes(%n) : !tile.tile<7x?xui8>
  %max = tile.constant 255 sizes(%n) : !tile.tile<7x?xui8>
  // CHECK-NEXT: %hi = tile.shr %w, %four : !tile.tile<7x?xui8>
  // GENERIC: %hi = "tile.shr"(%w, %four) : (!tile.tile<7x?xui8>, !tile.tile<7x?xui8>) -> !tile.tile<7x?xui8>
  %hi = tile.shr %w, %four : !tile.tile<7x?xui8>
  // CHECK-NEXT: %lo = tile.shl %w, %four : !tile.tile<7x?xui8>
  // GENERIC: "tile.shl"(%w, %four)
  %lo = tile.shl %w, %four : !tile.tile<7x?xui8>
  // CHECK-NEXT: %and = tile.and %hi, %max : !tile.tile<7x?xui8>
  // GENERIC: "tile.and"(%hi, %max)
  %and = tile.and %hi, %max : !tile.tile<7x?xui8>
  // CHECK-NEXT: %or = tile.or %and, %lo : !tile.tile<7x?xui8>
  // GENERIC: "tile.or"(%and, %lo)
  %or = tile.or %and, %lo : !tile.tile<7x?xui8>
  // CHECK-NEXT: %xor = tile.xor %or, %w {note = "x^y"} : !tile.tile<7x?xui8>
  // GENERIC: "tile.xor"(%or, %w) {note = "x^y"}
  %xor = tile.xor %or, %w {note = "x^y"} : !tile.tile<7x?xui8>
  // CHECK-NEXT: %not = tile.not %xor : !tile.tile<7x?xui8>
  // GENERIC: "tile.not"(%xor) : (!tile.tile<7x?xui8>) -> !tile.tile<7x?xui8>
  %not = tile.not %xor : !tile.tile<7x?xui8>
  tile.store %not, %O : !tile.tile<7x?xui8>, !tile.array<7x?xui8>
  tile.return
}

// CHECK-LABEL: tile.func @floor(%A: !tile.array<5xi32>, %B: !tile.array<5xf64>)
tile.func @floor(%A: !tile.array<5xi32>, %B: !tile.array<5xf64>) {
  %a = tile.load %A : !tile.array<5xi32> -> !tile.tile<5xi32>
  %b = tile.load %B : !tile.array<5xf64> -> !tile.tile<5xf64>
  // CHECK: %q = tile.floordiv %a, %a : !tile.tile<5xi32>
  // GENERIC: "tile.floordiv"(%a, %a)
  %q = tile.floordiv %a, %a : !tile.tile<5xi32>
  // CHECK-NEXT: %r = tile.mod %q, %a : !tile.tile<5xi32>
  // GENERIC: "tile.mod"(%q, %a)
  %r = tile.mod %q, %a : !tile.tile<5xi32>
  // CHECK-NEXT: %fq = tile.floordiv %b, %b : !tile.tile<5xf64>
  %fq = tile.floordiv %b, %b : !tile.tile<5xf64>
  // CHECK-NEXT: %fr = tile.mod %fq, %b : !tile.tile<5xf64>
  %fr = tile.mod %fq, %b : !tile.tile<5xf64>
  tile.return
}

// CHECK-LABEL: tile.func @bitcast(%X: !tile.array<3x?xf32>, %H: !tile.array<8xf16>)
tile.func @bitcast(%X: !tile.array<3x?xf32>, %H: !tile.array<8xf16>) {
  %x = tile.load %X : !tile.array<3x?xf32> -> !tile.tile<3x?xf32>
  %h = tile.load %H : !tile.array<8xf16> -> !tile.tile<8xf16>
  // CHECK: %u = tile.bitcast %x : !tile.tile<3x?xf32> to !tile.tile<3x?xui32>
  // GENERIC: %u = "tile.bitcast"(%x) : (!tile.tile<3x?xf32>) -> !tile.tile<3x?xui32>
  %u = tile.bitcast %x : !tile.tile<3x?xf32> to !tile.tile<3x?xui32>
  // CHECK-NEXT: %i = tile.bitcast %u : !tile.tile<3x?xui32> to !tile.tile<3x?xi32>
  %i = tile.bitcast %u : !tile.tile<3x?xui32> to !tile.tile<3x?xi32>
  // CHECK-NEXT: %hb = tile.bitcast %h : !tile.tile<8xf16> to !tile.tile<8xbf16>
  %hb = tile.bitcast %h : !tile.tile<8xf16> to !tile.tile<8xbf16>
  // CHECK-NEXT: %hu = tile.bitcast %hb : !tile.tile<8xbf16> to !tile.tile<8xui16>
  %hu = tile.bitcast %hb : !tile.tile<8xbf16> to !tile.tile<8xui16>
  tile.return
}

// CHECK-LABEL: tile.func @unsigned_types
tile.func @unsigned_types(%A: !tile.array<2xui16>, %B: !tile.array<2xui64>, %C: !tile.array<2xi16>) {
  %a = tile.load %A : !tile.array<2xui16> -> !tile.tile<2xui16>
  // CHECK: %w = tile.cast %a : !tile.tile<2xui16> to !tile.tile<2xui64>
  %w = tile.cast %a : !tile.tile<2xui16> to !tile.tile<2xui64>
  // CHECK-NEXT: %big = tile.constant 18446744073709551615 : !tile.tile<2xui64>
  %big = tile.constant 18446744073709551615 : !tile.tile<2xui64>
  // CHECK-NEXT: %m = tile.max %w, %big : !tile.tile<2xui64>
  %m = tile.max %w, %big : !tile.tile<2xui64>
  // CHECK-NEXT: %lt = tile.cmp lt %m, %big : !tile.tile<2xui64>
  %lt = tile.cmp lt %m, %big : !tile.tile<2xui64>
  tile.return
}

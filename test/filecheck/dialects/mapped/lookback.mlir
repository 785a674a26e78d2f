// Single-pass scans across blocks: mapped.is_aligned, mapped.block_ticket, mapped.lookback,
// mapped.combine_scan and a zeroed mapped.temp (custom syntax round trip).
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s

mapped.kernel @tiles(%X: !mapped.buf<?xf32, global>, %W: !mapped.buf<?x?x1xi64, global>, %D: !mapped.buf<?x?x3xi64, global>) target gpu grid [cdiv(%X:0, 256), 1, 1] block [256, 1, 1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %dzero = arith.constant 0.0 : f64
  %ok = mapped.is_aligned %X 16 : !mapped.buf<?xf32, global>
  %t = mapped.block_ticket %W[%c0, %c0, %c0] : !mapped.buf<?x?x1xi64, global>
  %slot = arith.addi %t, %c1 : index
  %x = mapped.load %X[%t] : !mapped.buf<?xf32, global> -> f32
  %p = mapped.lookback %x, %W[%c0, %slot] tile %t identity %zero : f32, !mapped.buf<?x?x1xi64, global> {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    mapped.yield %c : f32
  }
  %xd = arith.extf %x : f32 to f64
  %pd = mapped.lookback %xd, %D[%c0, %slot] tile %t identity %dzero {tilec.tag = 1 : i64} : f64, !mapped.buf<?x?x3xi64, global> {
  ^bb0(%a: f64, %b: f64):
    %c = arith.addf %a, %b : f64
    mapped.yield %c : f64
  }
  %pm, %ps, %tm, %ts = mapped.combine_scan (%x, %zero) identity (%ninf, %zero) across block : f32, f32 {
  ^bb0(%m1: f32, %s1: f32, %m2: f32, %s2: f32):
    %m = arith.maximumf %m1, %m2 : f32
    %d1 = arith.subf %m1, %m : f32
    %d2 = arith.subf %m2, %m : f32
    %e1 = math.exp %d1 : f32
    %e2 = math.exp %d2 : f32
    %a1 = arith.mulf %s1, %e1 : f32
    %a2 = arith.mulf %s2, %e2 : f32
    %s = arith.addf %a1, %a2 : f32
    mapped.yield %m, %s : f32, f32
  }
  mapped.return
}

mapped.host @h(%X: !mapped.buf<?xf32, global>) {
  %n = mapped.dim %X 0 : !mapped.buf<?xf32, global>
  %c1 = arith.constant 1 : index
  %w = mapped.temp zeroed sizes(%c1, %n) : !mapped.buf<?x?x1xi64, global>
  %d = mapped.temp zeroed sizes(%c1, %n) : !mapped.buf<?x?x3xi64, global>
  mapped.launch @tiles(%X, %w, %d) : !mapped.buf<?xf32, global>, !mapped.buf<?x?x1xi64, global>, !mapped.buf<?x?x3xi64, global>
  mapped.return
}

// CHECK-LABEL: mapped.kernel @tiles
// CHECK:         %ok = mapped.is_aligned %X 16 : !mapped.buf<?xf32, global>
// CHECK-NEXT:    %t = mapped.block_ticket %W[%c0, %c0, %c0] : !mapped.buf<?x?x1xi64, global>
// CHECK:         %p = mapped.lookback %x, %W[%c0, %slot] tile %t identity %zero : f32, !mapped.buf<?x?x1xi64, global> {
// CHECK-NEXT:    ^{{.*}}(%a: f32, %b: f32):
// CHECK-NEXT:      %c = arith.addf %a, %b : f32
// CHECK-NEXT:      mapped.yield %c : f32
// CHECK-NEXT:    }
// CHECK:         %pd = mapped.lookback %xd, %D[%c0, %slot] tile %t identity %dzero {tilec.tag = 1 : i64} : f64, !mapped.buf<?x?x3xi64, global> {
// CHECK:         %pm, %ps, %tm, %ts = mapped.combine_scan (%x, %zero) identity (%ninf, %zero) across block : f32, f32 {
// CHECK:           mapped.yield %m, %s : f32, f32
// CHECK-LABEL: mapped.host @h
// CHECK:         %w = mapped.temp zeroed sizes(%c1, %n) : !mapped.buf<?x?x1xi64, global>
// CHECK-NEXT:    %d = mapped.temp zeroed sizes(%c1, %n) : !mapped.buf<?x?x3xi64, global>

// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s

mapped.kernel @k(%x: !mapped.buf<?x64xf32, global>, %y: !mapped.buf<?xf32, global>) target cpu {
  mapped.return
}

// CHECK-LABEL: mapped.host @f(%X: !mapped.buf<?x64xf32, global>, %s: f32) outs(%Y: !mapped.buf<?x64xf32, global>) {
// CHECK-NEXT:    %n = mapped.dim %X 0 : !mapped.buf<?x64xf32, global>
// CHECK:         %m = arith.muli %n, %c64 : index
// CHECK-NEXT:    %t = mapped.temp sizes(%n) : !mapped.buf<?x64xf32, global>
// CHECK-NEXT:    %s2 = mapped.temp : !mapped.buf<4x4xf16, global>
// CHECK-NEXT:    %v = mapped.view %Y sizes(%m) : !mapped.buf<?x64xf32, global> to !mapped.buf<?xf32, global>
// CHECK-NEXT:    mapped.launch @k(%X, %v) : !mapped.buf<?x64xf32, global>, !mapped.buf<?xf32, global>
// CHECK-NEXT:    mapped.return
mapped.host @f(%X: !mapped.buf<?x64xf32, global>, %s: f32) outs(%Y: !mapped.buf<?x64xf32, global>) {
  %n = mapped.dim %X 0 : !mapped.buf<?x64xf32, global>
  %c64 = arith.constant 64 : index
  %m = arith.muli %n, %c64 : index
  %t = mapped.temp sizes(%n) : !mapped.buf<?x64xf32, global>
  %s2 = mapped.temp : !mapped.buf<4x4xf16, global>
  %v = mapped.view %Y sizes(%m) : !mapped.buf<?x64xf32, global> to !mapped.buf<?xf32, global>
  mapped.launch @k(%X, %v) : !mapped.buf<?x64xf32, global>, !mapped.buf<?xf32, global>
  mapped.return
}

// RUN: tilec-opt %s --split-input-file --verify-diagnostics

mapped.kernel @k(%x: !mapped.buf<?xf32, global>) target cpu {
  // expected-error @+1 {{only runs on the host: it must sit directly in a mapped.host body}}
  %t = mapped.temp : !mapped.buf<4xf32, global>
  mapped.return
}

// -----

// expected-error @+1 {{entry block arguments must be the inputs followed by the outputs}}
"mapped.host"() <{sym_name = "h", function_type = (f32) -> ()}> ({
^bb0(%a: f32, %b: f32):
  "mapped.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{an input must be a global !mapped.buf or a scalar, got !mapped.buf<4xf32, reg>}}
mapped.host @h(%a: !mapped.buf<4xf32, reg>) {
  mapped.return
}

// -----

// expected-error @+1 {{an output must be a global !mapped.buf, got f32}}
mapped.host @h(%a: f32) outs(%b: f32) {
  mapped.return
}

// -----

// expected-error @+1 {{scf.for cannot run on the host (only temp, view, launch, dim and arith ops)}}
mapped.host @h(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
  }
  mapped.return
}

// -----

mapped.host @h() {
  // expected-error @+1 {{temporaries live in global memory, got !mapped.buf<4xf32, reg>}}
  %t = mapped.temp : !mapped.buf<4xf32, reg>
  mapped.return
}

// -----

mapped.host @h(%n: index) {
  // expected-error @+1 {{has 1 dynamic dimension(s) but 0 size operand(s) were given}}
  %t = "mapped.temp"() : () -> !mapped.buf<?xf32, global>
  mapped.return
}

// -----

mapped.host @h(%X: !mapped.buf<4x4xf32, global>) {
  // expected-error @+1 {{views are of global buffers}}
  %v = "mapped.view"(%X) : (!mapped.buf<4x4xf32, global>) -> !mapped.buf<16xf32, reg>
  mapped.return
}

// -----

mapped.host @h(%X: !mapped.buf<4x4xf32, global>) {
  // expected-error @+1 {{element type must not change: f32 vs f16}}
  %v = mapped.view %X : !mapped.buf<4x4xf32, global> to !mapped.buf<16xf16, global>
  mapped.return
}

// -----

mapped.host @h(%X: !mapped.buf<4x4xf32, global>) {
  // expected-error @+1 {{has 1 dynamic dimension(s) but 0 size operand(s) were given}}
  %v = mapped.view %X : !mapped.buf<4x4xf32, global> to !mapped.buf<?xf32, global>
  mapped.return
}

// -----

mapped.host @h(%X: !mapped.buf<4x4xf32, global>) {
  // expected-error @+1 {{!mapped.buf<4x4xf32, global> has 16 elements but !mapped.buf<15xf32, global> has 15}}
  %v = mapped.view %X : !mapped.buf<4x4xf32, global> to !mapped.buf<15xf32, global>
  mapped.return
}

// -----

mapped.host @h(%X: !mapped.buf<4xf32, global>) {
  // expected-error @+1 {{no mapped.kernel named @nope in this module}}
  mapped.launch @nope(%X) : !mapped.buf<4xf32, global>
  mapped.return
}

// -----

mapped.kernel @k(%x: !mapped.buf<?xf32, global>) target cpu {
  mapped.return
}
mapped.host @h(%X: !mapped.buf<4xf32, global>) {
  // expected-error @+1 {{@k takes (!mapped.buf<?xf32, global>) but is given (!mapped.buf<4xf32, global>)}}
  mapped.launch @k(%X) : !mapped.buf<4xf32, global>
  mapped.return
}

// -----

mapped.host @h(%X: !mapped.buf<4xf32, global>) {
  // expected-error @+1 {{launch: 1 argument(s) but 2 type(s)}}
  mapped.launch @k(%X) : !mapped.buf<4xf32, global>, f32
  mapped.return
}

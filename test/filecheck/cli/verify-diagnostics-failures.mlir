// --verify-diagnostics fails (exit 1) when an error has the wrong text, is on another line, or is
// not produced at all, and when an error comes without an expected-error. Each problem is listed.
// RUN: not tilec-opt %s --split-input-file --verify-diagnostics > %t 2>&1
// RUN: filecheck %s < %t
// RUN: filecheck %inputs/no-traceback.check < %t
// Without --split-input-file the first error ends the check; the unmet expectations are still listed.
// RUN: not tilec-opt %s --verify-diagnostics 2>&1 | filecheck %s --check-prefix=WHOLE

// WHOLE: unexpected error: {{.*}}verify-diagnostics-failures.mlir:[[# @LINE + 10]]:3: error: exp: needs a float tile, got i32
// WHOLE: verify-diagnostics-failures.mlir:[[# @LINE + 9]]: error: expected error "exp: wrong text" was not produced

// Wrong text.
tile.func @wrong_text() {
  %a = tile.constant 1 : !tile.tile<4xi32>
  // CHECK: unexpected error: {{.*}}verify-diagnostics-failures.mlir:[[# @LINE + 4]]:3: error: exp: needs a float tile, got i32
  // CHECK-NEXT: {{^}}  %b = tile.exp %a : !tile.tile<4xi32>{{$}}
  // CHECK: verify-diagnostics-failures.mlir:[[# @LINE + 2]]: error: expected error "exp: wrong text" was not produced
  // expected-error @+1 {{exp: wrong text}}
  %b = tile.exp %a : !tile.tile<4xi32>
  tile.return
}

// -----

// Right text, wrong line.
tile.func @wrong_line() {
  %a = tile.constant 1 : !tile.tile<4xi32>
  // CHECK: unexpected error: {{.*}}verify-diagnostics-failures.mlir:[[# @LINE + 3]]:3: error: log: needs a float tile, got i32
  // CHECK: verify-diagnostics-failures.mlir:[[# @LINE + 3]]: error: expected error "log: needs a float tile" was not produced
  // expected-error @+2 {{log: needs a float tile}}
  %b = tile.log %a : !tile.tile<4xi32>
  tile.return
}

// -----

// Expected, but the chunk is fine.
tile.func @missing() {
  // CHECK: verify-diagnostics-failures.mlir:[[# @LINE + 2]]: error: expected error "never happens" was not produced
  // expected-error @+1 {{never happens}}
  %a = tile.constant 1 : !tile.tile<4xi32>
  tile.return
}

// -----

// An error nobody expected.
tile.func @unexpected() {
  %a = tile.constant 1 : !tile.tile<4xi32>
  // CHECK: unexpected error: {{.*}}verify-diagnostics-failures.mlir:[[# @LINE + 1]]:3: error: sqrt: needs a float tile, got i32
  %b = tile.sqrt %a : !tile.tile<4xi32>
  tile.return
}

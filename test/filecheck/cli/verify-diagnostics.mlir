// --verify-diagnostics: every error must be announced by an `expected-error` comment on the line it
// names (@+N, @-N, @above, @below, or the comment's own line); then the exit status is 0 and
// nothing is printed. Parse errors and verifier errors both count.
// RUN: tilec-opt %s --split-input-file --verify-diagnostics > %t 2>&1
// RUN: filecheck %s --allow-empty < %t
// CHECK-NOT: {{.}}

tile.func @plus_one() {
  %a = tile.constant 1 : !tile.tile<4xi32>
  // expected-error @+1 {{exp: needs a float tile, got i32}}
  %b = tile.exp %a : !tile.tile<4xi32>
  tile.return
}

// -----

tile.func @plus_two() {
  %a = tile.constant 1 : !tile.tile<4xi32>
  // expected-error @+2 {{log: needs a float tile}}
  // (a substring of the message is enough)
  %b = tile.log %a : !tile.tile<4xi32>
  tile.return
}

// -----

tile.func @minus_one() {
  %a = tile.constant 1 : !tile.tile<4xi32>
  %b = tile.sqrt %a : !tile.tile<4xi32>
  // expected-error @-1 {{sqrt: needs a float tile, got i32}}
  tile.return
}

// -----

tile.func @above() {
  %a = tile.constant 1 : !tile.tile<4xi32>
  %b = tile.tanh %a : !tile.tile<4xi32>
  // expected-error @above {{tanh}}
  tile.return
}

// -----

tile.func @below() {
  %a = tile.constant 1 : !tile.tile<4xi32>
  // expected-error @below {{erf}}
  %b = tile.erf %a : !tile.tile<4xi32>
  tile.return
}

// -----

tile.func @same_line() {
  %a = tile.constant 1 : !tile.tile<4xi32>
  %b = tile.rsqrt %a : !tile.tile<4xi32> // expected-error {{rsqrt: needs a float tile, got i32}}
  tile.return
}

// -----

tile.func @parse_error() {
  // expected-error @+1 {{use of undefined value %nothing}}
  %b = tile.neg %nothing : !tile.tile<4xf32>
  tile.return
}

// -----

// A chunk without errors and without expectations is fine too.
tile.func @clean() {
  tile.return
}

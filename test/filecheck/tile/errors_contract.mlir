// RUN: not tilec-opt %s 2>&1 | filecheck %s
// RUN: tilec-opt %s --verify-diagnostics

tile.func @bad(%A: !tile.array<16x64xf32>, %B: !tile.array<32x8xf32>) outs(%C: !tile.array<16x8xf32>) {
  %a = tile.load %A : !tile.array<16x64xf32> -> !tile.tile<16x64xf32>
  %b = tile.load %B : !tile.array<32x8xf32> -> !tile.tile<32x8xf32>
  // CHECK: errors_contract.mlir:[[# @LINE + 4]]:3: error: contract: lhs axis 1 has size 64 but rhs axis 0 has size 32
  // CHECK-NEXT: {{^}}  %c = tile.contract
  // CHECK-NEXT: {{^}}  ^
  // expected-error @+1 {{contract: lhs axis 1 has size 64 but rhs axis 0 has size 32}}
  %c = tile.contract %a, %b axes [[1, 0]] : !tile.tile<16x64xf32>, !tile.tile<32x8xf32> -> !tile.tile<16x8xf32>
  tile.store %c, %C : !tile.tile<16x8xf32>, !tile.array<16x8xf32>
  tile.return
}

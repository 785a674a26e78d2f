// --version prints the tilec and xDSL versions and exits 0 without reading input.
// RUN: tilec-opt --version | filecheck %s
// RUN: tilec-opt --version %inputs/does-not-exist.mlir | filecheck %s

// CHECK: {{^tilec-opt [0-9]+\.[0-9]+\.[0-9]+.* \(xDSL 0\.74\.[0-9]+\)$}}

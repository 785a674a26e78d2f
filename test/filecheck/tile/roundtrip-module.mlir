// An explicit builtin.module (with a name) is kept as it is, not wrapped in a second one.
// RUN: tilec-opt %s | tilec-opt | filecheck %s
// RUN: tilec-opt %s --print-op-generic | tilec-opt | filecheck %s

// CHECK:      builtin.module @kernels {
// CHECK-NEXT:   tile.func @a() {
// CHECK-NEXT:     tile.return
// CHECK-NEXT:   }
// CHECK-NEXT:   tile.func @b() {
// CHECK-NEXT:     tile.return
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NOT: builtin.module
builtin.module @kernels {
  tile.func @a() {
    tile.return
  }
  tile.func @b() {
    tile.return
  }
}

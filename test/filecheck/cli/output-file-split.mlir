// -o with --split-input-file: the file gets every chunk's output joined by `// -----`, and reads back
// with --split-input-file into the same chunks.
// RUN: tilec-opt %s --split-input-file -o %t.mlir
// RUN: filecheck %s < %t.mlir
// RUN: tilec-opt %t.mlir --split-input-file | filecheck %s

// CHECK:      tile.func @first()
// CHECK:      {{^}}// -----{{$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   tile.func @second()
tile.func @first() {
  tile.return
}
// -----
tile.func @second() {
  tile.return
}

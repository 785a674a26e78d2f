// A program over lists of arrays (`tilec.foreach`, the DSL's tilec.List) keeps its attribute down
// to the C entry function, and the C emitter adds the one-call wrapper over a pointer table.
// RUN: tilec-opt %s | tilec-opt | filecheck %s --check-prefix=ROUND
// RUN: tilec-opt %s -p lower-to-c -t c | filecheck %s
// RUN: tilec-opt %s -p lower-to-c -t c -o %t.c
// RUN: cc -O2 -std=gnu11 -fopenmp -fPIC -Wall -Werror=implicit-function-declaration -Werror=int-conversion -c %t.c -o %t.o

// ROUND: tile.func @sgd(%p: !tile.array<?xf32>, %g: !tile.array<?xf32>, %lr: f64) attributes {tilec.foreach}

// CHECK:      int tilec_u_sgd(float* restrict p, int64_t p_d0, float* restrict g, int64_t g_d0, double lr) {
// CHECK:      /* @sgd over lists: one call for every position, (position, chunk) pairs on all cores */
// CHECK-NEXT: int tilec_foreach_sgd(int64_t n, void* const* restrict ptrs, const int64_t* restrict sizes, double s4) {
// CHECK:        first[j + 1] = first[j] + (sizes[j] + 32767) / 32768;
// CHECK:      #pragma omp parallel for schedule(dynamic, 1) reduction(|:status) if(elems >= 65536)
// CHECK-NEXT:   for (int64_t c = 0; c < first[n]; c++) {
// CHECK:          int64_t start = (c - first[j]) * 32768, len = sizes[j] - start < 32768 ? sizes[j] - start : 32768;
// CHECK-NEXT:     status |= tilec_u_sgd((float*)ptrs[0 * n + j] + start, len, (float*)ptrs[1 * n + j] + start, len, s4);
// CHECK-NEXT:   }
// CHECK-NEXT:   free(first);
// CHECK-NEXT:   return status;
// CHECK-NEXT: }
tile.func @sgd(%p: !tile.array<?xf32>, %g: !tile.array<?xf32>, %lr: f64) attributes {tilec.foreach} {
  %0 = tile.load %p : !tile.array<?xf32> -> !tile.tile<?xf32>
  %1 = tile.load %g : !tile.array<?xf32> -> !tile.tile<?xf32>
  %n = tile.dim %p 0 : !tile.array<?xf32>
  %2 = tile.splat %lr : f64 to !tile.tile<f64>
  %3 = tile.cast %2 : !tile.tile<f64> to !tile.tile<f32>
  %4 = tile.broadcast %3 sizes(%n) : !tile.tile<f32> to !tile.tile<?xf32>
  %5 = tile.mul %4, %1 : !tile.tile<?xf32>
  %6 = tile.sub %0, %5 : !tile.tile<?xf32>
  tile.store %6, %p : !tile.tile<?xf32>, !tile.array<?xf32>
  tile.return
}

// Named pipelines (`-p lower-to-c` etc.): the tests of their CLI behaviour live in this one file, so
// they are easy to update while the pipelines are built. All three are built now: they lower tile
// IR to hw.cpu functions / hw.nv kernels / hw.amd kernels, and their options are checked like pass
// options. A pipeline that is not built yet says "not supported yet" (exit 1, nothing on stdout):
// the test plugin registers one.
// RUN: tilec-opt %s -p lower-to-c | filecheck %s --check-prefix=C
// RUN: not tilec-opt %s -p 'lower-to-c{sm=90}' 2>&1 | filecheck %s --check-prefix=COPT
// RUN: not tilec-opt %s -p 'lower-to-c{mr=six}' 2>&1 | filecheck %s --check-prefix=CTYPE
// RUN: tilec-opt %s -p lower-to-ptx | filecheck %s --check-prefix=PTX
// RUN: not tilec-opt %s -p 'lower-to-ptx{bogus=1}' 2>&1 | filecheck %s --check-prefix=PTXOPT
// RUN: not tilec-opt %s -p 'lower-to-ptx{threads=many}' 2>&1 | filecheck %s --check-prefix=PTXTYPE
// RUN: tilec-opt %s -p lower-to-hip | filecheck %s --check-prefix=HIP
// RUN: not tilec-opt %s -p 'lower-to-hip{sm=90}' 2>&1 | filecheck %s --check-prefix=HIPOPT
// RUN: not tilec-opt %s --load-pass-plugin %plugins/test_passes.py -p 'cse,test-unbuilt-pipeline' > %t.out 2> %t.err
// RUN: filecheck %s --check-prefix=UNBUILT < %t.err
// RUN: filecheck %s --check-prefix=EMPTY --allow-empty < %t.out

// C: builtin.module {
// C: hw.cpu.func @f_
// C-NOT: tile.
// COPT: <pipeline>:1:12: error: pipeline 'lower-to-c' has no option 'sm' (options: mr, nr, kc, mc, parallel-work, vector)
// COPT-NEXT: {{^}}lower-to-c{sm=90}{{$}}
// COPT-NEXT: {{^}}           ^^{{$}}
// CTYPE: <pipeline>:1:15: error: option 'mr' of pipeline 'lower-to-c' expects an integer, got six
// PTX: hw.nv.kernel @f_
// PTX-NOT: tile.
// PTXOPT: <pipeline>:1:14: error: pipeline 'lower-to-ptx' has no option 'bogus' (options: threads, {{.*}}, sm)
// PTXTYPE: <pipeline>:1:22: error: option 'threads' of pipeline 'lower-to-ptx' expects an integer, got many
// HIP: hw.amd.kernel @f_
// HIP-NOT: tile.
// HIPOPT: <pipeline>:1:14: error: pipeline 'lower-to-hip' has no option 'sm' (options: {{.*}})
// UNBUILT: {{^}}error: not supported yet: the 'test-unbuilt-pipeline' pipeline is not built yet{{$}}
// UNBUILT-NOT: Traceback
// EMPTY-NOT: {{.}}
tile.func @f(%X: !tile.array<4x8xf32>) outs(%Y: !tile.array<8x4xf32>) {
  %x = tile.load %X : !tile.array<4x8xf32> -> !tile.tile<4x8xf32>
  %t = tile.transpose %x [1, 0] : !tile.tile<4x8xf32> to !tile.tile<8x4xf32>
  %e = tile.exp %t : !tile.tile<8x4xf32>
  tile.store %e, %Y : !tile.tile<8x4xf32>, !tile.array<8x4xf32>
  tile.return
}

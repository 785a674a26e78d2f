// Symbols on every target (tilec/symbols.py): an IR name is never printed as it is. The C, PTX and
// HIP name of @name is symbol(name): `tilec_u_` + the name with ASCII letters, digits and `_` kept,
// every other character as Z<hex code point>Z, a `Z` as ZZ and a `_` after a `_` as Z5FZ (C++
// reserves `__`). So it is never a keyword, a PTX directive or a libc / libm / libgomp / CUDA / HIP
// symbol, `x;y` injects nothing, and distinct names stay distinct (`a-b` and `a_2D_b`). The IR
// name stays in a comment above the definition, escaped so that it cannot end the comment.
// The C builds and defines no symbol outside tilec_u_; ptxas and hipcc accept the PTX and HIP
// (the hw.nv and hw.amd modules are the NVIR / AMDIR lines below).
// RUN: tilec-opt %s -t c | filecheck %s --check-prefix=C
// RUN: tilec-opt %s -t c -o %t.c
// RUN: cc -O1 -std=gnu11 -fopenmp -fPIC -shared -Wall -Werror=implicit-function-declaration %t.c -o %t.so -lm
// RUN: nm -D --defined-only --format=just-symbols %t.so > %t.syms
// RUN: not grep -v '^tilec_u_' %t.syms
// RUN: filecheck %s --check-prefix=NM < %t.syms
// RUN: sed -n 's#^// NVIR: ##p' %s > %t.nv.mlir
// RUN: tilec-opt %t.nv.mlir -t ptx | filecheck %s --check-prefix=PTX
// RUN: tilec-opt %t.nv.mlir -t ptx -o %t.ptx
// RUN: ptxas -arch=sm_80 %t.ptx -o %t.cubin
// RUN: sed -n 's#^// AMDIR: ##p' %s > %t.amd.mlir
// RUN: tilec-opt %t.amd.mlir -t hip | filecheck %s --check-prefix=HIP
// RUN: tilec-opt %t.amd.mlir -t hip -o %t.hip
// hipcc, where it is installed (CI installs it):
// RUN: %python -c "import os, shutil, subprocess, sys; h = shutil.which('hipcc'); sys.exit(subprocess.call([h, '--genco', '--offload-arch=gfx90a', '-O1', sys.argv[1], '-o', sys.argv[2]], env={**os.environ, 'HIP_PLATFORM': 'amd'}) if h else 1 if os.environ.get('CI') else 0)" %t.hip %t.co

// Prototypes, then each definition below the IR name:
// C:      static void tilec_u_exp(int32_t* restrict);
// C-NEXT: int tilec_u_omp_get_num_threads(int32_t* restrict);
// C-NEXT: int tilec_u_free(int32_t* restrict);
// C-NEXT: int tilec_u_int(int32_t* restrict);
// C-NEXT: int tilec_u_main(int32_t* restrict);
// C-NEXT: int tilec_u_xZ3BZy(int32_t* restrict);
// C-NEXT: int tilec_u_myZ20Zfunc(int32_t* restrict);
// C-NEXT: int tilec_u_aZ2DZb(int32_t* restrict);
// C-NEXT: int tilec_u_a_2D_b(int32_t* restrict);
// C-NEXT: int tilec_u_fZ2EZg(int32_t* restrict);
// C-NEXT: int tilec_u_0abc(int32_t* restrict);
// C-NEXT: int tilec_u_ZE9Z(int32_t* restrict);
// C-NEXT: int tilec_u_Z2AZZ2FZZ20ZintZ20ZevilZ28ZvoidZ29ZZ20ZZ7BZZ20ZreturnZ20Z1Z3BZZ20ZZ7DZZ20ZZ2FZZ2AZ(int32_t* restrict);
// C-NEXT: int tilec_u_Z5FZ_init_Z5FZ(int32_t* restrict);
// C-NEXT: int tilec_u_ZZed(int32_t* restrict);
// C-NEXT: int tilec_u_tilec_alloc(int32_t* restrict);
// C:      /* @exp */
// C-NEXT: static void tilec_u_exp(int32_t* restrict O) {
// C:      /* @omp_get_num_threads */
// C-NEXT: int tilec_u_omp_get_num_threads(int32_t* restrict O) {
// C-NEXT:   tilec_u_exp(O);
// C:      /* @"x;y" */
// C-NEXT: int tilec_u_xZ3BZy(int32_t* restrict O) {
// C:      /* @"my func" */
// C:      /* @"\C3\A9" */
// C-NEXT: int tilec_u_ZE9Z(int32_t* restrict O) {
// C:      /* @"\2A\2F int evil(void) { return 1; } \2F\2A" */
// C-NEXT: int tilec_u_Z2AZZ2FZZ20ZintZ20ZevilZ28ZvoidZ29ZZ20ZZ7BZZ20ZreturnZ20Z1Z3BZZ20ZZ7DZZ20ZZ2FZZ2AZ(int32_t* restrict O) {
// C-NOT:  evil(void) {

// The library defines tilec_u_ symbols only (not grep -v above), the entries among them:
// NM: tilec_u_free
// NM: tilec_u_omp_get_num_threads

// PTX:      // @omp_get_num_threads
// PTX-NEXT: .visible .entry tilec_u_omp_get_num_threads(
// PTX-NEXT:   .param .u64 tilec_param_0
// PTX:        .shared .align 16 .b8 tilec_u_entry[16];  // @entry
// PTX:        ld.param.u64 %rd1, [tilec_param_0];
// PTX:        mov.u32 %r{{[0-9]+}}, tilec_u_entry;
// PTX:      // @"my func"
// PTX-NEXT: .visible .entry tilec_u_myZ20Zfunc(
// PTX:        .shared .align 16 .b8 tilec_u_Z2EZvisible[16];  // @".visible"
// PTX:      // @f.g
// PTX-NEXT: .visible .entry tilec_u_fZ2EZg(
// PTX:      // @"0abc"
// PTX-NEXT: .visible .entry tilec_u_0abc(
// PTX:      // @"a-b"
// PTX-NEXT: .visible .entry tilec_u_aZ2DZb(
// PTX:      // @"\C3\A9"
// PTX-NEXT: .visible .entry tilec_u_ZE9Z(
// NVIR: hw.nv.kernel @omp_get_num_threads(%O: !hw.ptr<global>) sm 80 {
// NVIR:   hw.nv.shared @entry 16 align 16
// NVIR:   %a = hw.nv.shared_addr @entry : i32
// NVIR:   %c = arith.constant 7 : i32
// NVIR:   hw.nv.st shared %a, %c : i32, i32
// NVIR:   hw.nv.return
// NVIR: }
// NVIR: hw.nv.kernel @"my func"(%O: !hw.ptr<global>) sm 80 {
// NVIR:   hw.nv.shared @".visible" 16 align 16
// NVIR:   %a = hw.nv.shared_addr @".visible" : i32
// NVIR:   %c = arith.constant 7 : i32
// NVIR:   hw.nv.st shared %a, %c : i32, i32
// NVIR:   hw.nv.return
// NVIR: }
// NVIR: hw.nv.kernel @f.g() sm 80 {
// NVIR:   hw.nv.return
// NVIR: }
// NVIR: hw.nv.kernel @"0abc"() sm 80 {
// NVIR:   hw.nv.return
// NVIR: }
// NVIR: hw.nv.kernel @"a-b"() sm 80 {
// NVIR:   hw.nv.return
// NVIR: }
// NVIR: hw.nv.kernel @"é"() sm 80 {
// NVIR:   hw.nv.return
// NVIR: }

// HIP:      // @hipMalloc
// HIP-NEXT: extern "C" __global__ void __launch_bounds__(64) tilec_u_hipMalloc(int32_t* __restrict__ O) {
// HIP:      // @threadIdx
// HIP-NEXT: extern "C" __global__ void __launch_bounds__(64) tilec_u_threadIdx() {
// HIP:      // @"x;y"
// HIP-NEXT: extern "C" __global__ void __launch_bounds__(64) tilec_u_xZ3BZy() {
// HIP:      // @class
// HIP-NEXT: extern "C" __global__ void __launch_bounds__(64) tilec_u_class() {
// AMDIR: hw.amd.kernel @hipMalloc(%O: !hw.ptr<global, i32>) arch "gfx90a" wave 64 launch_bounds 64 {
// AMDIR:   hw.amd.lds @__shared__ 16 align 16
// AMDIR:   %a = hw.amd.lds_addr @__shared__ : i32
// AMDIR:   %c = arith.constant 7 : i32
// AMDIR:   hw.amd.lds_store %a, %c : i32, i32
// AMDIR:   hw.amd.return
// AMDIR: }
// AMDIR: hw.amd.kernel @threadIdx() arch "gfx90a" wave 64 launch_bounds 64 {
// AMDIR:   hw.amd.return
// AMDIR: }
// AMDIR: hw.amd.kernel @"x;y"() arch "gfx90a" wave 64 launch_bounds 64 {
// AMDIR:   hw.amd.return
// AMDIR: }
// AMDIR: hw.amd.kernel @class() arch "gfx90a" wave 64 launch_bounds 64 {
// AMDIR:   hw.amd.return
// AMDIR: }

hw.cpu.func @exp(%O: !hw.ptr<generic, i32>) {
  %c = arith.constant 1 : i32
  %z = arith.constant 0 : i64
  hw.cpu.store %c, %O[%z] : i32, !hw.ptr<generic, i32>
  hw.cpu.return
}
hw.cpu.func @omp_get_num_threads(%O: !hw.ptr<generic, i32>) attributes {tilec.entry} {
  hw.cpu.call @exp(%O) : !hw.ptr<generic, i32>
  hw.cpu.return
}
hw.cpu.func @free(%O: !hw.ptr<generic, i32>) attributes {tilec.entry} {
  hw.cpu.return
}
hw.cpu.func @int(%O: !hw.ptr<generic, i32>) attributes {tilec.entry} {
  hw.cpu.return
}
hw.cpu.func @main(%O: !hw.ptr<generic, i32>) attributes {tilec.entry} {
  hw.cpu.return
}
hw.cpu.func @"x;y"(%O: !hw.ptr<generic, i32>) attributes {tilec.entry} {
  hw.cpu.return
}
hw.cpu.func @"my func"(%O: !hw.ptr<generic, i32>) attributes {tilec.entry} {
  hw.cpu.return
}
hw.cpu.func @"a-b"(%O: !hw.ptr<generic, i32>) attributes {tilec.entry} {
  hw.cpu.return
}
hw.cpu.func @a_2D_b(%O: !hw.ptr<generic, i32>) attributes {tilec.entry} {
  hw.cpu.return
}
hw.cpu.func @f.g(%O: !hw.ptr<generic, i32>) attributes {tilec.entry} {
  hw.cpu.return
}
hw.cpu.func @"0abc"(%O: !hw.ptr<generic, i32>) attributes {tilec.entry} {
  hw.cpu.return
}
hw.cpu.func @"é"(%O: !hw.ptr<generic, i32>) attributes {tilec.entry} {
  hw.cpu.return
}
hw.cpu.func @"*/ int evil(void) { return 1; } /*"(%O: !hw.ptr<generic, i32>) attributes {tilec.entry} {
  hw.cpu.return
}
hw.cpu.func @__init__(%O: !hw.ptr<generic, i32>) attributes {tilec.entry} {
  hw.cpu.return
}
hw.cpu.func @Zed(%O: !hw.ptr<generic, i32>) attributes {tilec.entry} {
  hw.cpu.return
}
hw.cpu.func @tilec_alloc(%O: !hw.ptr<generic, i32>) attributes {tilec.entry} {
  hw.cpu.return
}

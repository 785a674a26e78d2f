// --help (and -h) describe every option and the pipeline syntax, exit 0.
// RUN: tilec-opt --help | filecheck %s
// RUN: tilec-opt -h | filecheck %s

// CHECK: usage: tilec-opt
// CHECK-DAG: -p PIPELINE, --passes PIPELINE
// CHECK-DAG: -t TARGET, --target TARGET
// CHECK-DAG: -o FILE, --output-file FILE
// CHECK-DAG: --split-input-file
// CHECK-DAG: --verify-diagnostics
// CHECK-DAG: --print-op-generic
// CHECK-DAG: --print-debuginfo
// CHECK-DAG: --print-ir-after-all
// CHECK-DAG: --print-ir-after PASS
// CHECK-DAG: --print-ir-before PASS
// CHECK-DAG: --timing
// CHECK-DAG: --no-verify-each
// CHECK-DAG: --load-pass-plugin FILE
// CHECK-DAG: --list-passes
// CHECK-DAG: --allow-unregistered-dialect
// CHECK-DAG: --debug
// CHECK-DAG: --version
// CHECK: pipelines: passes separated by commas, options in braces separated by spaces
// CHECK: named pipelines: lower-to-c, lower-to-ptx, lower-to-hip

// Malformed pipeline strings: located in <pipeline> with the pipeline quoted and a caret; exit 1.
// RUN: not tilec-opt %s -p 'a{b=1,c=2}' 2>&1 | filecheck %s --check-prefix=COMMAS
// RUN: not tilec-opt %s -p 'cse{' 2>&1 | filecheck %s --check-prefix=UNCLOSED
// RUN: not tilec-opt %s -p 'tile-canonicalize{x=1' 2>&1 | filecheck %s --check-prefix=UNCLOSED2
// RUN: not tilec-opt %s -p 'cse}' 2>&1 | filecheck %s --check-prefix=STRAYCLOSE
// RUN: not tilec-opt %s -p 'cse,,dce' 2>&1 | filecheck %s --check-prefix=EMPTYNAME
// RUN: not tilec-opt %s -p ',cse' 2>&1 | filecheck %s --check-prefix=LEADING
// RUN: not tilec-opt %s -p 'cse,' 2>&1 | filecheck %s --check-prefix=TRAILING
// RUN: not tilec-opt %s -p 'cse dce' 2>&1 | filecheck %s --check-prefix=SPACE
// RUN: not tilec-opt %s -p '{x=1}' 2>&1 | filecheck %s --check-prefix=NONAME
// RUN: not tilec-opt %s -p 'cse{x="abc}' 2>&1 | filecheck %s --check-prefix=STRING
// RUN: not tilec-opt %s -p 'cse{x=}' 2>&1 | filecheck %s --check-prefix=NOVALUE
// RUN: not tilec-opt %s -p 'cse{,x=1}' 2>&1 | filecheck %s --check-prefix=LEADCOMMA
// RUN: not tilec-opt %s -p 'cse,,dce' > %t 2>&1
// RUN: filecheck %inputs/no-traceback.check < %t

// COMMAS: <pipeline>:1:6: error: options are separated by spaces, not commas (commas separate list values)
// COMMAS-NEXT: {{^}}a{b=1,c=2}{{$}}
// COMMAS-NEXT: {{^}}     ^{{$}}
// UNCLOSED: <pipeline>:1:5: error: missing '}' at end of pass options
// UNCLOSED-NEXT: {{^}}cse{{[{]$}}
// UNCLOSED-NEXT: {{^}}    ^{{$}}
// UNCLOSED2: <pipeline>:1:22: error: missing '}' at end of pass options
// STRAYCLOSE: <pipeline>:1:4: error: expected ',' between passes, found '}'
// EMPTYNAME: <pipeline>:1:5: error: expected a pass name, found ','
// EMPTYNAME-NEXT: {{^}}cse,,dce{{$}}
// EMPTYNAME-NEXT: {{^}}    ^{{$}}
// LEADING: <pipeline>:1:1: error: expected a pass name, found ','
// TRAILING: <pipeline>:1:5: error: expected a pass name, found 'end of pipeline'
// SPACE: <pipeline>:1:5: error: expected ',' between passes, found 'd'
// NONAME: <pipeline>:1:1: error: expected a pass name, found '{'
// STRING: <pipeline>:1:7: error: unterminated string in pass option
// NOVALUE: <pipeline>:1:7: error: expected an option value
// LEADCOMMA: <pipeline>:1:5: error: options are separated by spaces, not commas (commas separate list values)
tile.func @f() {
  tile.return
}

/* Calls unsigned_ops from emit-c-unsigned.mlir (its C is force-included before this file). */
#include <stdio.h>

int main(void) {
  int32_t out[4];
  tilec_u_unsigned_ops(out, -8, 3);
  printf("%d %d %d %d\n", out[0], out[1], out[2], out[3]);
  tilec_u_unsigned_ops(out, 7, -1);
  printf("%d %d %d %d\n", out[0], out[1], out[2], out[3]);
  return 0;
}

/* Exit status 0 when a usable CUDA device is present, 1 otherwise (the gpu tests then report skipped) */
#include <cuda_runtime.h>
#include <stdio.h>

int main(void)
{
  int         n   = 0;
  cudaError_t err = cudaGetDeviceCount(&n);

  if (err != cudaSuccess || n < 1) {
    printf("no CUDA device: %s\n", err != cudaSuccess ? cudaGetErrorString(err) : "none found");
    return 1;
  }
  return 0;
}

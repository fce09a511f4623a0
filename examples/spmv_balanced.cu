/*
   Balanced CSR kernels for bench_spmv, the yardsticks of the formats on matrices whose x accesses have no
   locality. The balanced kernel does the memory traffic of a product (every column index and value read once,
   x gathered at every column index, y written once) with perfect load balance and no row bookkeeping: thread
   tid adds val[e] x[col[e]] over e = tid, tid + stride, ... in CSR order (a warp reads 32 consecutive
   entries), the sums go to one partial sum per block, and y is only zeroed. It is not a bound for every
   matrix: its SMs take entries a stride apart, so on a matrix with local columns a format that keeps
   neighbouring rows on one SM reuses x in L1 and is faster. The stream kernel adds val[e] col[e] instead, no
   gather: the time of reading the CSR arrays alone, a floor for every format that stores
   4-byte column indices and 8-byte values.
*/
#include "spmv_balanced.h"

#define BALANCED_BLOCK  256
#define BALANCED_UNROLL 8 /* entries each thread loads before it uses the first, as the formats do */

template <bool GATHER>
__global__ static void __launch_bounds__(BALANCED_BLOCK) spmv_balanced_kernel(int m, long long nnz, const int *__restrict__ col, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y, PetscScalar *__restrict__ partial)
{
  __shared__ PetscScalar warpsum[BALANCED_BLOCK / 32];
  const long long        stride = (long long)gridDim.x * blockDim.x, tid = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  PetscScalar            sum = 0.0;

  for (long long e = tid; e < nnz; e += BALANCED_UNROLL * stride) {
    int         c[BALANCED_UNROLL];
    PetscScalar v[BALANCED_UNROLL];

#pragma unroll
    for (int u = 0; u < BALANCED_UNROLL; u++) {
      const bool in = e + u * stride < nnz;

      c[u] = in ? __ldcs(col + e + u * stride) : 0;
      v[u] = in ? __ldcs(val + e + u * stride) : 0.0;
    }
#pragma unroll
    for (int u = 0; u < BALANCED_UNROLL; u++) sum += GATHER ? v[u] * __ldg(x + c[u]) : v[u] * (PetscScalar)c[u];
  }
  for (long long i = tid; i < m; i += stride) y[i] = 0.0;
  for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  if ((threadIdx.x & 31) == 0) warpsum[threadIdx.x >> 5] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    sum = 0.0;
    for (int w = 0; w < BALANCED_BLOCK / 32; w++) sum += warpsum[w];
    partial[blockIdx.x] = sum;
  }
}

/*
  SpMVBalancedBlocks - the blocks of the balanced kernels: as many as are resident on the GPU at once, which is the
  length of the partial-sum array SpMVBalancedLaunch() needs
*/
PetscErrorCode SpMVBalancedBlocks(PetscInt *nblocks)
{
  int dev, nsm, per;

  PetscFunctionBegin;
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
  PetscCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, spmv_balanced_kernel<true>, BALANCED_BLOCK, 0));
  *nblocks = (PetscInt)per * nsm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  SpMVBalancedLaunch - a balanced kernel on device arrays in nblocks blocks (SpMVBalancedBlocks()): with the gather
  (PETSC_TRUE) or the stream kernel; m rows, nnz entries; partial gets nblocks sums whose total is the sum of the
  entries of A x (with the gather)
*/
PetscErrorCode SpMVBalancedLaunch(PetscBool gather, PetscInt nblocks, PetscInt m, PetscInt64 nnz, const int *col, const PetscScalar *val, const PetscScalar *x, PetscScalar *y, PetscScalar *partial, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (gather) spmv_balanced_kernel<true><<<(unsigned)nblocks, BALANCED_BLOCK, 0, stream>>>((int)m, (long long)nnz, col, val, x, y, partial);
  else spmv_balanced_kernel<false><<<(unsigned)nblocks, BALANCED_BLOCK, 0, stream>>>((int)m, (long long)nnz, col, val, x, y, partial);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

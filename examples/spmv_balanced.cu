/*
   Balanced CSR kernels for bench_spmv, the yardsticks of the formats on matrices whose x accesses have no
   locality. The balanced kernel does the memory traffic of a product (every column index and value read once,
   x gathered at every column index, y written once) with perfect load balance and no row bookkeeping: thread
   tid adds val[e] x[col[e]] over e = tid, tid + stride, ... in CSR order (a warp reads 32 consecutive
   entries), the sums go to one partial sum per block, and y is only zeroed. It is not a bound for every
   matrix: its SMs take entries a stride apart, so on a matrix with local columns a format that keeps
   neighbouring rows on one SM reuses x in L1 and is faster. The stream kernel adds val[e] col[e] instead, no
   gather: the time of reading the CSR arrays alone, a floor for every format that stores
   4-byte column indices and 8-byte values. The balanced kernel with hot columns reads the k columns with the
   most entries from a packed copy of x (xh, gathered by a kernel before each product; the column indices hold
   ~j for hot column j), so that their gathers share L1 lines: what a format with perfect balance would gain
   from packing them on a matrix with skewed column use and no locality (R-MAT).
*/
#include "spmv_balanced.h"

#define BALANCED_BLOCK  256
#define BALANCED_UNROLL 8 /* entries each thread loads before it uses the first, as the formats do */

template <SpMVBalancedKind KIND>
__global__ static void __launch_bounds__(BALANCED_BLOCK) spmv_balanced_kernel(int m, long long nnz, const int *__restrict__ col, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ x, const PetscScalar *__restrict__ xh, PetscScalar *__restrict__ y, PetscScalar *__restrict__ partial)
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
    for (int u = 0; u < BALANCED_UNROLL; u++) {
      if (KIND == SPMV_BALANCED_STREAM) sum += v[u] * (PetscScalar)c[u];
      else if (KIND == SPMV_BALANCED_GATHER) sum += v[u] * __ldg(x + c[u]);
      else sum += v[u] * (c[u] < 0 ? __ldg(xh + ~c[u]) : __ldg(x + c[u]));
    }
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

__global__ static void __launch_bounds__(BALANCED_BLOCK) spmv_hot_pack_kernel(int k, const int *__restrict__ hot, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ xh)
{
  const int j = blockIdx.x * blockDim.x + threadIdx.x;

  if (j < k) xh[j] = x[hot[j]];
}

/*
  SpMVBalancedBlocks - the blocks of a balanced kernel: as many as are resident on the GPU at once, which is the
  length of the partial-sum array SpMVBalancedLaunch() needs
*/
PetscErrorCode SpMVBalancedBlocks(SpMVBalancedKind kind, PetscInt *nblocks)
{
  int dev, nsm, per;

  PetscFunctionBegin;
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
  switch (kind) {
  case SPMV_BALANCED_STREAM:
    PetscCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, spmv_balanced_kernel<SPMV_BALANCED_STREAM>, BALANCED_BLOCK, 0));
    break;
  case SPMV_BALANCED_GATHER:
    PetscCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, spmv_balanced_kernel<SPMV_BALANCED_GATHER>, BALANCED_BLOCK, 0));
    break;
  default:
    PetscCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, spmv_balanced_kernel<SPMV_BALANCED_HOT>, BALANCED_BLOCK, 0));
  }
  *nblocks = (PetscInt)per * nsm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  SpMVBalancedLaunch - a balanced kernel on device arrays in nblocks blocks (SpMVBalancedBlocks()); m rows, nnz
  entries; partial gets nblocks sums whose total is the sum of the entries of A x (except the stream kernel).
  With hot columns, col holds ~j for hot column hot[j] (j < k), and xh (k entries) is filled first.
*/
PetscErrorCode SpMVBalancedLaunch(SpMVBalancedKind kind, PetscInt nblocks, PetscInt m, PetscInt64 nnz, const int *col, const PetscScalar *val, const PetscScalar *x, PetscInt k, const int *hot, PetscScalar *xh, PetscScalar *y, PetscScalar *partial, cudaStream_t stream)
{
  PetscFunctionBegin;
  switch (kind) {
  case SPMV_BALANCED_STREAM:
    spmv_balanced_kernel<SPMV_BALANCED_STREAM><<<(unsigned)nblocks, BALANCED_BLOCK, 0, stream>>>((int)m, (long long)nnz, col, val, x, NULL, y, partial);
    break;
  case SPMV_BALANCED_GATHER:
    spmv_balanced_kernel<SPMV_BALANCED_GATHER><<<(unsigned)nblocks, BALANCED_BLOCK, 0, stream>>>((int)m, (long long)nnz, col, val, x, NULL, y, partial);
    break;
  default:
    if (k > 0) spmv_hot_pack_kernel<<<(unsigned)((k + BALANCED_BLOCK - 1) / BALANCED_BLOCK), BALANCED_BLOCK, 0, stream>>>((int)k, hot, x, xh);
    spmv_balanced_kernel<SPMV_BALANCED_HOT><<<(unsigned)nblocks, BALANCED_BLOCK, 0, stream>>>((int)m, (long long)nnz, col, val, x, xh, y, partial);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An empty kernel of a product's two arguments: the floor of one launch (bench_spmv's host floors) */
static __global__ void spmv_empty_kernel(const PetscScalar *x, PetscScalar *y) {}

PetscErrorCode SpMVEmptyLaunch(const PetscScalar *x, PetscScalar *y, cudaStream_t stream)
{
  PetscFunctionBegin;
  spmv_empty_kernel<<<1, 32, 0, stream>>>(x, y);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

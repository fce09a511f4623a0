/* Device helpers shared by every format: row statistics, value gathers, checked allocations */
#include "../gpuformat.h"

#define GPUFORMAT_BLOCK 256

struct RowStatsAccum {
  unsigned long long nzrows;
  int                maxlen;
  double             sumsq;
};

__global__ static void __launch_bounds__(GPUFORMAT_BLOCK) row_stats_kernel(int m, const int *__restrict__ rowptr, double mean, RowStatsAccum *out)
{
  unsigned long long nzrows = 0;
  int                maxlen = 0;
  double             sumsq  = 0.0;

  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < m; i += (long long)gridDim.x * blockDim.x) {
    const int    len = rowptr[i + 1] - rowptr[i];
    const double d   = len - mean;

    nzrows += len > 0;
    maxlen = max(maxlen, len);
    sumsq += d * d;
  }
  for (int off = 16; off > 0; off >>= 1) {
    nzrows += __shfl_down_sync(0xffffffffu, nzrows, off);
    maxlen = max(maxlen, __shfl_down_sync(0xffffffffu, maxlen, off));
    sumsq += __shfl_down_sync(0xffffffffu, sumsq, off);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&out->nzrows, nzrows);
    atomicMax(&out->maxlen, maxlen);
    atomicAdd(&out->sumsq, sumsq);
  }
}

/* Row-length statistics of a device CSR with m > 0 rows; synchronizes the stream */
PetscErrorCode MatGPUFormatRowStats_Private(PetscInt m, const int *rowptr, cudaStream_t stream, MatGPUFormatRowStats *stats)
{
  RowStatsAccum  h = {0, 0, 0.0}, *d;
  int            ends[2];
  const PetscInt nblocks = PetscMin((m + GPUFORMAT_BLOCK - 1) / GPUFORMAT_BLOCK, 4096);

  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpyAsync(&ends[0], rowptr, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaMemcpyAsync(&ends[1], rowptr + m, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  stats->nnz  = ends[1] - ends[0];
  stats->mean = (PetscLogDouble)stats->nnz / m;
  PetscCallCUDA(cudaMalloc((void **)&d, sizeof(*d)));
  PetscCallCUDA(cudaMemcpyAsync(d, &h, sizeof(h), cudaMemcpyHostToDevice, stream));
  row_stats_kernel<<<(unsigned)nblocks, GPUFORMAT_BLOCK, 0, stream>>>((int)m, rowptr, stats->mean, d);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(&h, d, sizeof(h), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaFree(d));
  stats->nzrows = (PetscInt)h.nzrows;
  stats->maxlen = h.maxlen;
  stats->stddev = PetscSqrtReal(h.sumsq / m);
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define GATHER_UNROLL 8 /* slots per thread: their positions in flight, then their values */

__global__ static void __launch_bounds__(GPUFORMAT_BLOCK) gather_kernel(long long n, const int *__restrict__ perm, const PetscScalar *__restrict__ src, PetscScalar *__restrict__ dst)
{
  constexpr long long tile = (long long)GPUFORMAT_BLOCK * GATHER_UNROLL;

  for (long long k = blockIdx.x * tile + threadIdx.x; k < n; k += gridDim.x * tile) {
    int p[GATHER_UNROLL];

#pragma unroll
    for (int u = 0; u < GATHER_UNROLL; u++) p[u] = k + u * GPUFORMAT_BLOCK < n ? __ldcs(perm + k + u * GPUFORMAT_BLOCK) : -1;
#pragma unroll
    for (int u = 0; u < GATHER_UNROLL; u++)
      if (p[u] >= 0) dst[k + u * GPUFORMAT_BLOCK] = __ldg(src + p[u]);
  }
}

/* dst[k] = src[perm[k]] for k < n, leaving dst[k] as it is where perm[k] < 0 (padding); a plain copy when perm is NULL */
PetscErrorCode MatGPUFormatGatherValues_Private(PetscInt64 n, const int *perm, const PetscScalar *src, PetscScalar *dst, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  if (!perm) PetscCallCUDA(cudaMemcpyAsync(dst, src, n * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, stream));
  else {
    gather_kernel<<<MatGPUFormatGrid((n + GATHER_UNROLL - 1) / GATHER_UNROLL, GPUFORMAT_BLOCK), GPUFORMAT_BLOCK, 0, stream>>>(n, perm, src, dst);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Errors, without touching the matrix, when `bytes` more device memory than is free would be needed */
/*
   -mat_gpuformat_stream_alloc (read once, when the package is initialized): the formats' device memory comes from the
   device's default memory pool in stream order (cudaMallocAsync()/cudaFreeAsync() on PETSc's current stream), the pool
   PETSc's own vectors use and keeps cached (PETSc sets its release threshold to the maximum), instead of cudaMalloc() and
   cudaFree(), which waits for the whole device. The choice never changes during a run: a block is freed the way it was
   allocated.
*/
PetscBool MatGPUFormatStreamAlloc = PETSC_FALSE;

/* The device's default memory pool: bytes it holds and does not use (free to it, not to cudaMalloc()) */
static PetscErrorCode MatGPUFormatPoolUnused(size_t *bytes)
{
  int           dev;
  cudaMemPool_t pool;
  cuuint64_t    reserved = 0, used = 0;

  PetscFunctionBegin;
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetDefaultMemPool(&pool, dev));
  PetscCallCUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  PetscCallCUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  *bytes = reserved > used ? (size_t)(reserved - used) : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After a build that ran out of memory: the pool gives back what it caches, so that the failed build holds nothing */
PetscErrorCode MatGPUFormatReleaseCachedMemory_Private(void)
{
  int           dev;
  cudaMemPool_t pool;

  PetscFunctionBegin;
  if (!MatGPUFormatStreamAlloc) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetDefaultMemPool(&pool, dev));
  PetscCallCUDA(cudaMemPoolTrimTo(pool, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGPUFormatCheckDeviceMemory_Private(const char *title, size_t bytes)
{
  size_t freebytes, totalbytes, pooled = 0;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMemGetInfo(&freebytes, &totalbytes));
  if (MatGPUFormatStreamAlloc) PetscCall(MatGPUFormatPoolUnused(&pooled)); /* free to our allocations too */
  freebytes += pooled;
  PetscCheck(bytes <= freebytes, PETSC_COMM_SELF, PETSC_ERR_MEM,
             "The %s format of this matrix needs %zu bytes of device memory, but %zu of %zu are free. The matrix is unchanged; "
             "it can still be used after MatConvert(A, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, &A)",
             title, bytes, freebytes, totalbytes);
  PetscFunctionReturn(PETSC_SUCCESS);
}

MatGPUFormatPhases *MatGPUFormatCurrentPhases = NULL;

PetscErrorCode MatGPUFormatBuildPhase_Private(const MatGPUFormatCSR *csr, const char *name)
{
  MatGPUFormatPhases *ph = csr->phases;
  PetscLogDouble      now;

  PetscFunctionBegin;
  if (!ph || !ph->on || ph->n >= MATGPUFORMAT_MAX_PHASES) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaStreamSynchronize(csr->stream));
  PetscCall(PetscTime(&now));
  ph->name[ph->n]    = name;
  ph->seconds[ph->n] = now - ph->last;
  ph->last           = now;
  ph->n++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGPUFormatDeviceMalloc_Private(const char *title, size_t bytes, void **ptr)
{
  cudaError_t         err;
  MatGPUFormatPhases *ph = MatGPUFormatCurrentPhases;
  PetscLogDouble      t0 = 0, t1;

  PetscFunctionBegin;
  *ptr = NULL;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  if (ph && ph->on) PetscCall(PetscTime(&t0));
  if (MatGPUFormatStreamAlloc) {
    cudaStream_t stream;

    PetscCall(PetscGetCurrentCUDAStream(&stream));
    err = cudaMallocAsync(ptr, bytes, stream);
  } else err = cudaMalloc(ptr, bytes);
  if (ph && ph->on) {
    PetscCall(PetscTime(&t1));
    ph->mallocs++;
    ph->mallocbytes += (PetscLogDouble)bytes;
    ph->mallocseconds += t1 - t0;
  }
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    *ptr = NULL;
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "The %s format could not allocate %zu bytes of device memory", title, bytes);
  }
  PetscCallCUDA(err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGPUFormatDeviceFree_Private(void **ptr)
{
  MatGPUFormatPhases *ph = MatGPUFormatCurrentPhases;
  PetscLogDouble      t0 = 0, t1;

  PetscFunctionBegin;
  if (*ptr && ph && ph->on) PetscCall(PetscTime(&t0));
  if (*ptr && MatGPUFormatStreamAlloc) {
    cudaStream_t stream;

    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCallCUDA(cudaFreeAsync(*ptr, stream));
  } else if (*ptr) PetscCallCUDA(cudaFree(*ptr));
  if (*ptr && ph && ph->on) {
    PetscCall(PetscTime(&t1));
    ph->frees++;
    ph->mallocseconds += t1 - t0;
  }
  *ptr = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGPUFormatScratchMalloc_Private(MatGPUFormatScratch *s, const char *title, size_t bytes, void **ptr)
{
  PetscFunctionBegin;
  PetscCheck(s->n < MATGPUFORMAT_SCRATCH_MAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "More than %d device temporaries in a %s build", MATGPUFORMAT_SCRATCH_MAX, title);
  PetscCall(MatGPUFormatDeviceMalloc_Private(title, bytes, &s->ptr[s->n]));
  *ptr = s->ptr[s->n++];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGPUFormatScratchRelease_Private(MatGPUFormatScratch *s, PetscInt mark)
{
  PetscFunctionBegin;
  while (s->n > mark) PetscCall(MatGPUFormatDeviceFree_Private(&s->ptr[--s->n]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

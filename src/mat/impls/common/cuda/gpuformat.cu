/* Device helpers shared by every format: row statistics, value gathers, checked allocations */
#include "../gpuformat.h"

#define GPUFORMAT_BLOCK 256

#define ROWSTATS_GRID 1024 /* blocks of the statistics' grid: each adds its block's sums to the global ones once */

struct RowStatsAccum {
  unsigned long long nnz, nzrows, sumsq; /* sums of the lengths, of the nonempty rows, of the squared lengths */
  int                maxlen;
};

/* One pass over the row offsets: each thread sums over its rows, each warp and then each block combine, and one lane per
   block adds to the global sums (a global atomic per warp queued thousands on the same addresses) */
__global__ static void __launch_bounds__(GPUFORMAT_BLOCK) row_stats_kernel(int m, const int *__restrict__ rowptr, RowStatsAccum *out)
{
  __shared__ RowStatsAccum warps[GPUFORMAT_BLOCK / 32];
  unsigned long long       nnz = 0, nzrows = 0, sumsq = 0;
  int                      maxlen = 0;
  const int                lane = threadIdx.x % 32, w = threadIdx.x / 32;

  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < m; i += (long long)gridDim.x * blockDim.x) {
    const int len = rowptr[i + 1] - rowptr[i];

    nnz += (unsigned long long)len;
    nzrows += len > 0;
    sumsq += (unsigned long long)len * (unsigned long long)len;
    maxlen = max(maxlen, len);
  }
  for (int off = 16; off > 0; off >>= 1) {
    nnz += __shfl_down_sync(0xffffffffu, nnz, off);
    nzrows += __shfl_down_sync(0xffffffffu, nzrows, off);
    sumsq += __shfl_down_sync(0xffffffffu, sumsq, off);
    maxlen = max(maxlen, __shfl_down_sync(0xffffffffu, maxlen, off));
  }
  if (!lane) warps[w] = RowStatsAccum{nnz, nzrows, sumsq, maxlen};
  __syncthreads();
  if (!threadIdx.x) {
    for (int k = 1; k < GPUFORMAT_BLOCK / 32; k++) {
      nnz += warps[k].nnz;
      nzrows += warps[k].nzrows;
      sumsq += warps[k].sumsq;
      maxlen = max(maxlen, warps[k].maxlen);
    }
    atomicAdd(&out->nnz, nnz);
    atomicAdd(&out->nzrows, nzrows);
    atomicAdd(&out->sumsq, sumsq);
    atomicMax(&out->maxlen, maxlen);
  }
}

/* Row-length statistics of a device CSR with m > 0 rows, in one pass; synchronizes the stream */
PetscErrorCode MatGPUFormatRowStats_Private(const char *title, PetscInt m, const int *rowptr, cudaStream_t stream, MatGPUFormatRowStats *stats)
{
  RowStatsAccum  h, *d = NULL;
  const unsigned nblocks = (unsigned)PetscMin((m + GPUFORMAT_BLOCK - 1) / GPUFORMAT_BLOCK, ROWSTATS_GRID);
  PetscLogDouble var;
  cudaError_t    err;

  PetscFunctionBegin;
  /* through the format's allocator: out of device memory is PETSC_ERR_MEM there, which the build falls back from */
  PetscCall(MatGPUFormatTemporaryMalloc_Private(title, sizeof(*d), (void **)&d));
  err = cudaMemsetAsync(d, 0, sizeof(*d), stream);
  if (err == cudaSuccess) {
    row_stats_kernel<<<nblocks, GPUFORMAT_BLOCK, 0, stream>>>((int)m, rowptr, d);
    err = cudaGetLastError();
  }
  if (err == cudaSuccess) err = cudaMemcpyAsync(&h, d, sizeof(h), cudaMemcpyDeviceToHost, stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
  PetscCall(MatGPUFormatDeviceFreeTemporary_Private((void **)&d)); /* on every path */
  PetscCallCUDA(err);
  /* the lengths and their squares are summed exactly (at most 2^31 entries, so a sum of squares below 2^62) */
  stats->nnz    = (PetscInt)h.nnz;
  stats->nzrows = (PetscInt)h.nzrows;
  stats->maxlen = h.maxlen;
  stats->mean   = (PetscLogDouble)h.nnz / m;
  var           = (PetscLogDouble)h.sumsq / m - stats->mean * stats->mean;
  stats->stddev = var > 0 ? PetscSqrtReal(var) : 0.0;
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

/*
   -mat_gpuformat_stream_alloc (read once, when the package is initialized): with true, the formats' device memory comes
   from the device's default memory pool in stream order (cudaMallocAsync()/cudaFreeAsync() on PETSc's current stream),
   which keeps what it caches (PETSc sets its release threshold to the maximum); with false, from cudaMalloc() and
   cudaFree(), which waits for the whole device. Unset, the formats allocate as PETSc's vectors do: from the pool when
   PETSc's current stream is a stream of its own, from cudaMalloc() on the NULL stream (PETSc's default stream type).
   There the pool would be set up by our first allocation alone, a one-time cost of 7 to 11 ms in a process (an H200,
   examples/first_touch.cu) that a program using aijcusparse never pays. Undetermined until the first allocation, then
   fixed for the run: a block is freed the way it was allocated.
*/
PetscBool3 MatGPUFormatStreamAllocOption = PETSC_BOOL3_UNKNOWN;

PetscErrorCode MatGPUFormatStreamAlloc_Private(PetscBool *pool)
{
  PetscFunctionBegin;
  if (MatGPUFormatStreamAllocOption == PETSC_BOOL3_UNKNOWN) {
    cudaStream_t stream;

    PetscCall(PetscGetCurrentCUDAStream(&stream));
    MatGPUFormatStreamAllocOption = stream ? PETSC_BOOL3_TRUE : PETSC_BOOL3_FALSE;
  }
  *pool = MatGPUFormatStreamAllocOption == PETSC_BOOL3_TRUE ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
  PetscBool     usepool = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatStreamAlloc_Private(&usepool));
  if (!usepool) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetDefaultMemPool(&pool, dev));
  PetscCallCUDA(cudaMemPoolTrimTo(pool, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   With cudaMalloc(), each cudaFree() of a temporary in the middle of a build would wait for the build's kernels queued so
   far, and the device would then idle while the host issues the next ones. During a build (between
   MatGPUFormatBuildTemporariesBegin_Private() and MatGPUFormatBuildTemporariesEnd_Private()) the temporaries released
   (scratch blocks, Thrust's storage; not the format's own arrays, so that a rebuild never holds two formats at once) are
   queued here instead and freed together after one wait: at the build's end, or earlier where the build needs their
   memory (MatGPUFormatCheckDeviceMemory_Private() before a format's large arrays, an allocation that ran out of memory),
   so that the queue never raises a build's peak of device memory above what it was. With the pool they are freed in
   stream order at once.
*/
#define MATGPUFORMAT_DEFERRED_MAX 64
static void     *MatGPUFormatDeferred[MATGPUFORMAT_DEFERRED_MAX];
static PetscInt  MatGPUFormatNDeferred = 0;
static PetscBool MatGPUFormatDeferring = PETSC_FALSE;

/*
   The small temporaries of a build (Thrust's storage for a scan or a count, the row statistics' sums, a format's short
   scratch arrays: up to 64 KiB each) come from one block of 1 MiB, allocated at the first of them and freed at the
   build's end, not from an allocation each. A build on an H100 made up to 24 allocations, about 65 us each with
   cudaMalloc(), 10 of them such temporaries. They are stacked in the order taken; one given back leaves its place until
   the ones above it are given back too. Every use is ordered on the stream the block was taken on (PETSc's current
   stream, that of every build), so a place is reused only after its last kernel: no wait. A temporary on another stream,
   or one that does not fit, is allocated on its own. A block still holding temporaries at the build's end (a build
   stopped by an error: the format's reset() gives its scratch back later) is freed when the last one is given back.
*/
#define MATGPUFORMAT_TEMP_BYTES   ((size_t)1 << 20)
#define MATGPUFORMAT_TEMP_LARGEST ((size_t)1 << 16)
#define MATGPUFORMAT_TEMP_MAX     64
#define MATGPUFORMAT_ALIGN        ((size_t)256)
static struct {
  char        *base;                             /* NULL when there is no block */
  cudaStream_t stream;                           /* the stream its temporaries are ordered on */
  PetscInt     n;                                /* temporaries on the stack, given back or not */
  size_t       start[MATGPUFORMAT_TEMP_MAX];     /* offset of each */
  size_t       end[MATGPUFORMAT_TEMP_MAX];       /* offset past its last byte */
  PetscBool    givenback[MATGPUFORMAT_TEMP_MAX]; /* given back, its place not yet free (one above it is not) */
} MatGPUFormatTemps;

static inline size_t MatGPUFormatAlignUp(size_t bytes)
{
  return (bytes + MATGPUFORMAT_ALIGN - 1) / MATGPUFORMAT_ALIGN * MATGPUFORMAT_ALIGN;
}

/* The block is freed once it holds nothing and no build is running */
static PetscErrorCode MatGPUFormatTempsTrim(void)
{
  PetscFunctionBegin;
  if (MatGPUFormatTemps.base && !MatGPUFormatTemps.n && !MatGPUFormatDeferring) PetscCall(MatGPUFormatDeviceFree_Private((void **)&MatGPUFormatTemps.base));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A temporary of `bytes` (0 < bytes <= MATGPUFORMAT_TEMP_LARGEST) from the block, when a build is running, the stack has
   room, the block is on PETSc's current stream and it fits; *ptr stays NULL otherwise (no bytes: no temporary) */
static PetscErrorCode MatGPUFormatTempsTake(const char *title, size_t bytes, void **ptr)
{
  cudaStream_t stream;
  size_t       start;

  PetscFunctionBegin;
  *ptr = NULL;
  if (!bytes || !MatGPUFormatDeferring || bytes > MATGPUFORMAT_TEMP_LARGEST || MatGPUFormatTemps.n >= MATGPUFORMAT_TEMP_MAX) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (!MatGPUFormatTemps.base) {
    PetscCall(MatGPUFormatDeviceMalloc_Private(title, MATGPUFORMAT_TEMP_BYTES, (void **)&MatGPUFormatTemps.base));
    MatGPUFormatTemps.stream = stream;
  } else if (stream != MatGPUFormatTemps.stream) PetscFunctionReturn(PETSC_SUCCESS);
  start = MatGPUFormatTemps.n ? MatGPUFormatAlignUp(MatGPUFormatTemps.end[MatGPUFormatTemps.n - 1]) : 0;
  if (start + bytes > MATGPUFORMAT_TEMP_BYTES) PetscFunctionReturn(PETSC_SUCCESS);
  MatGPUFormatTemps.start[MatGPUFormatTemps.n]     = start;
  MatGPUFormatTemps.end[MatGPUFormatTemps.n]       = start + bytes;
  MatGPUFormatTemps.givenback[MatGPUFormatTemps.n] = PETSC_FALSE;
  MatGPUFormatTemps.n++;
  *ptr = MatGPUFormatTemps.base + start;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Gives back a temporary taken from the block (*given true; *ptr NULL), or leaves *ptr (*given false) */
static PetscErrorCode MatGPUFormatTempsGive(void **ptr, PetscBool *given)
{
  char    *p = (char *)*ptr;
  PetscInt i;

  PetscFunctionBegin;
  *given = PETSC_FALSE;
  if (!MatGPUFormatTemps.base || p < MatGPUFormatTemps.base || p >= MatGPUFormatTemps.base + MATGPUFORMAT_TEMP_BYTES) PetscFunctionReturn(PETSC_SUCCESS);
  for (i = MatGPUFormatTemps.n - 1; i >= 0; i--)
    if (MatGPUFormatTemps.base + MatGPUFormatTemps.start[i] == p && !MatGPUFormatTemps.givenback[i]) break;
  PetscCheck(i >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A device temporary given back twice, or never taken");
  MatGPUFormatTemps.givenback[i] = PETSC_TRUE;
  while (MatGPUFormatTemps.n && MatGPUFormatTemps.givenback[MatGPUFormatTemps.n - 1]) MatGPUFormatTemps.n--;
  *ptr   = NULL;
  *given = PETSC_TRUE;
  PetscCall(MatGPUFormatTempsTrim());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGPUFormatBuildTemporariesBegin_Private(void)
{
  PetscFunctionBegin;
  MatGPUFormatDeferring = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Frees n blocks of cudaMalloc() after one wait for the kernels queued on PETSc's current stream (cudaFree() itself need
   not wait for them); after a failed wait a kernel may still use the blocks: they are left, not freed under it. Every
   pointer is NULL afterwards (never freed twice). The one place of the wait-then-free of MatGPUFormatDeviceFree_Private()
   and of the queue of a build's temporaries
*/
static PetscErrorCode MatGPUFormatFreeAfterWait(PetscInt n, void *ptrs[])
{
  MatGPUFormatPhases *ph = MatGPUFormatCurrentPhases;
  PetscLogDouble      t0 = 0, t1;
  cudaStream_t        stream;
  cudaError_t         serr, ferr = cudaSuccess;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (ph && ph->on) PetscCall(PetscTime(&t0));
  serr = cudaStreamSynchronize(stream);
  for (PetscInt i = 0; i < n; i++) {
    if (serr == cudaSuccess) {
      cudaError_t err = cudaFree(ptrs[i]);

      if (ferr == cudaSuccess) ferr = err;
    }
    ptrs[i] = NULL;
  }
  if (ph && ph->on) {
    PetscCall(PetscTime(&t1));
    ph->frees += n;
    ph->mallocseconds += t1 - t0;
  }
  PetscCallCUDA(serr);
  PetscCallCUDA(ferr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Frees the queued temporaries after the kernels queued on PETSc's current stream; deferral stays as it is */
static PetscErrorCode MatGPUFormatFreeQueued(void)
{
  const PetscInt n = MatGPUFormatNDeferred;

  PetscFunctionBegin;
  MatGPUFormatNDeferred = 0; /* emptied on every path */
  PetscCall(MatGPUFormatFreeAfterWait(n, MatGPUFormatDeferred));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Ends a build's bracket and frees what it queued, and the block of small temporaries; called on every path out of a build */
PetscErrorCode MatGPUFormatBuildTemporariesEnd_Private(void)
{
  PetscErrorCode ierr;
  PetscBool      usepool = PETSC_TRUE;

  PetscFunctionBegin;
  MatGPUFormatDeferring = PETSC_FALSE;
  PetscCall(MatGPUFormatStreamAlloc_Private(&usepool));
  /* with cudaMalloc(), an empty block of small temporaries goes with the queue, after the same wait */
  if (!usepool && MatGPUFormatTemps.base && !MatGPUFormatTemps.n && MatGPUFormatNDeferred < MATGPUFORMAT_DEFERRED_MAX) {
    MatGPUFormatDeferred[MatGPUFormatNDeferred++] = MatGPUFormatTemps.base;
    MatGPUFormatTemps.base                        = NULL;
  }
  ierr = MatGPUFormatFreeQueued();
  PetscCall(MatGPUFormatTempsTrim()); /* on every path */
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGPUFormatTemporaryMalloc_Private(const char *title, size_t bytes, void **ptr)
{
  PetscFunctionBegin;
  PetscCall(MatGPUFormatTempsTake(title, bytes, ptr));
  if (!*ptr) PetscCall(MatGPUFormatDeviceMalloc_Private(title, bytes, ptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Errors, without touching the matrix, when `bytes` more device memory than is free would be needed (the temporaries
   queued by the build freed first) */
PetscErrorCode MatGPUFormatCheckDeviceMemory_Private(const char *title, size_t bytes)
{
  size_t    freebytes, totalbytes, pooled = 0;
  PetscBool usepool = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatFreeQueued());
  PetscCallCUDA(cudaMemGetInfo(&freebytes, &totalbytes));
  PetscCall(MatGPUFormatStreamAlloc_Private(&usepool));
  if (usepool) PetscCall(MatGPUFormatPoolUnused(&pooled)); /* free to our allocations too */
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
  MatGPUFormatPhases *ph      = MatGPUFormatCurrentPhases;
  PetscLogDouble      t0      = 0, t1;
  PetscBool           usepool = PETSC_TRUE;

  PetscFunctionBegin;
  *ptr = NULL;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGPUFormatStreamAlloc_Private(&usepool));
  if (ph && ph->on) PetscCall(PetscTime(&t0));
  if (usepool) {
    cudaStream_t stream;

    PetscCall(PetscGetCurrentCUDAStream(&stream));
    err = cudaMallocAsync(ptr, bytes, stream);
  } else {
    err = cudaMalloc(ptr, bytes);
    if (err == cudaErrorMemoryAllocation && MatGPUFormatNDeferred) { /* once more, with the build's queued temporaries freed */
      (void)cudaGetLastError();
      PetscCall(MatGPUFormatFreeQueued());
      err = cudaMalloc(ptr, bytes);
    }
  }
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
  cudaStream_t        stream;
  cudaError_t         ferr;
  PetscBool           usepool = PETSC_TRUE;

  PetscFunctionBegin;
  if (!*ptr) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGPUFormatStreamAlloc_Private(&usepool));
  if (!usepool) {
    PetscCall(MatGPUFormatFreeAfterWait(1, ptr));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (ph && ph->on) PetscCall(PetscTime(&t0));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  ferr = cudaFreeAsync(*ptr, stream); /* in stream order */
  *ptr = NULL;                        /* never freed twice */
  if (ph && ph->on) {
    PetscCall(PetscTime(&t1));
    ph->frees++;
    ph->mallocseconds += t1 - t0;
  }
  PetscCallCUDA(ferr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The bytes of one block that holds the arrays, each at a 256-byte boundary */
static size_t MatGPUFormatArraysBytes(PetscInt n, const MatGPUFormatArray arrays[])
{
  size_t total = 0;

  for (PetscInt i = 0; i < n; i++) total += MatGPUFormatAlignUp(arrays[i].bytes);
  return total;
}

/* Each array's pointer into the block (NULL for an array without bytes, or without a block) */
static void MatGPUFormatArraysSet(void *mem, PetscInt n, const MatGPUFormatArray arrays[])
{
  size_t offset = 0;

  for (PetscInt i = 0; i < n; i++) {
    *arrays[i].ptr = mem && arrays[i].bytes ? (char *)mem + offset : NULL;
    offset += MatGPUFormatAlignUp(arrays[i].bytes);
  }
}

PetscErrorCode MatGPUFormatDeviceMallocArrays_Private(const char *title, void **mem, PetscInt n, const MatGPUFormatArray arrays[])
{
  PetscFunctionBegin;
  MatGPUFormatArraysSet(NULL, n, arrays);
  PetscCall(MatGPUFormatDeviceMalloc_Private(title, MatGPUFormatArraysBytes(n, arrays), mem));
  MatGPUFormatArraysSet(*mem, n, arrays);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGPUFormatScratchMalloc_Private(MatGPUFormatScratch *s, const char *title, size_t bytes, void **ptr)
{
  PetscFunctionBegin;
  PetscCheck(s->n < MATGPUFORMAT_SCRATCH_MAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "More than %d device temporaries in a %s build", MATGPUFORMAT_SCRATCH_MAX, title);
  PetscCall(MatGPUFormatTemporaryMalloc_Private(title, bytes, &s->ptr[s->n]));
  *ptr = s->ptr[s->n++];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGPUFormatScratchMallocArrays_Private(MatGPUFormatScratch *s, const char *title, PetscInt n, const MatGPUFormatArray arrays[])
{
  void *mem;

  PetscFunctionBegin;
  MatGPUFormatArraysSet(NULL, n, arrays);
  PetscCall(MatGPUFormatScratchMalloc_Private(s, title, MatGPUFormatArraysBytes(n, arrays), &mem));
  MatGPUFormatArraysSet(mem, n, arrays);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Frees a build's temporary (a scratch block, Thrust's temporary storage): kept for the build's end with cudaMalloc() */
PetscErrorCode MatGPUFormatDeviceFreeTemporary_Private(void **ptr)
{
  PetscBool usepool = PETSC_TRUE, given;

  PetscFunctionBegin;
  if (!*ptr) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGPUFormatTempsGive(ptr, &given));
  if (given) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGPUFormatStreamAlloc_Private(&usepool));
  if (!usepool && MatGPUFormatDeferring && MatGPUFormatNDeferred < MATGPUFORMAT_DEFERRED_MAX) {
    MatGPUFormatDeferred[MatGPUFormatNDeferred++] = *ptr;
    *ptr                                          = NULL;
  } else PetscCall(MatGPUFormatDeviceFree_Private(ptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGPUFormatScratchRelease_Private(MatGPUFormatScratch *s, PetscInt mark)
{
  PetscFunctionBegin;
  while (s->n > mark) PetscCall(MatGPUFormatDeviceFreeTemporary_Private(&s->ptr[--s->n]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

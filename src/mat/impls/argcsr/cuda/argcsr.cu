/*
   ARG-CSR on the GPU (Heller & Oberhuber; docs/reference/seeds-spec.md section 5): the build from cuSPARSE's CSR, the
   paper's kernel (a CUDA block of `block` threads per group of rows, a chunk of consecutive entries of one row per
   thread, the row's partial sums added in order), and the format interface that the common layer turns into the
   MATSEQARGCSR type. The layout is that of argcsr.h, which the host reference (argcsr.c) builds too.
*/
#include "../argcsr.h"
#include <petsc/private/petscimpl.h>
#include <thrust/scan.h>

#define ARGCSR_BUILD_BLOCK 256 /* threads per CUDA block of the build's kernels */

typedef struct {
  /* parameters */
  PetscInt block;   /* threads per group (the paper's blockDim.x) */
  PetscInt desired; /* the paper's desiredChunkSize */
  /* the matrix, on the device (the layout of argcsr.h: groups, map, col and val are device arrays) */
  ARGCSRArrays         d;
  PetscInt64           threads; /* threads mapped to rows, over all groups (the others are free: padding only) */
  MatGPUFormatRowStats stats;
  PetscLogDouble       bytes;
  MatGPUFormatScratch  scratch; /* the build's device temporaries */
  void                *mem;     /* the device allocation that holds every array */
} Mat_ARGCSR;

/* ------------------------------------------------------------------ build */

__device__ __forceinline__ static int argcsr_warp_max(int v)
{
#pragma unroll
  for (int off = 16; off; off >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, off));
  return v;
}

__device__ __forceinline__ static long long argcsr_warp_sum(long long v)
{
#pragma unroll
  for (int off = 16; off; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

/* the sum of v over the lanes below this one */
__device__ __forceinline__ static int argcsr_warp_exclusive_sum(int v)
{
  const int lane = threadIdx.x & 31;
  int       s    = v;

#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const int u = __shfl_up_sync(0xffffffffu, s, off);

    if (lane >= off) s += u;
  }
  return s - v;
}

/* ceil(len / t) without len + t - 1, which overflows for a row of about 2^31 entries */
__device__ __forceinline__ static int argcsr_fill(int len, int t)
{
  return len / t + (len % t != 0);
}

/*
   The threads of each row and the chunk size of each group: a warp per group, lane l taking a run of consecutive rows.
   The paper's greedy assignment in closed form (ARGCSRThreadsClosedForm() in argcsr.c, whose derivation it follows and
   which the CPU test checks against the greedy): the smallest L whose max(1, ceil(len / L)) threads per row fit the
   group, by bisection; then, if L > 1, the threads left to the rows whose chunks are fullest, in row order, each up to
   what brings it below that filling. Writes map (the group's inclusive prefix sum of the rows' threads), chunk[g] and
   count[g]: the group's slots, chunk x block, and its threads mapped to rows, which a scan turns into offsets and totals.
*/
__global__ static void argcsr_assign_kernel(int ngroups, int block, const int *__restrict__ first, const int *__restrict__ rowptr, int *__restrict__ map, int *__restrict__ chunk, longlong2 *__restrict__ count)
{
  const int lane = threadIdx.x & 31;

  for (int g = (int)((blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32); g < ngroups; g += (int)(gridDim.x * (size_t)blockDim.x / 32)) {
    const int r0 = first[g], size = first[g + 1] - r0, per = (size + 31) / 32, q0 = min(lane * per, size), q1 = min(q0 + per, size);
    int       maxlen = 0, lo = 1, hi, most = 0, tsum = 0, dsum = 0, left, dprefix, tprefix = 0, c = 0;

    for (int q = q0; q < q1; q++) maxlen = max(maxlen, rowptr[r0 + q + 1] - rowptr[r0 + q]);
    hi = max(argcsr_warp_max(maxlen), 1);
    while (lo < hi) { /* uniform across the warp */
      const int mid = (lo + hi) / 2;
      long long T   = 0;

      for (int q = q0; q < q1; q++) T += max(1, argcsr_fill(rowptr[r0 + q + 1] - rowptr[r0 + q], mid));
      if (argcsr_warp_sum(T) <= block) hi = mid;
      else lo = mid + 1;
    }
    for (int q = q0; q < q1; q++) {
      const int len = rowptr[r0 + q + 1] - rowptr[r0 + q], t = max(1, argcsr_fill(len, lo));

      tsum += t;
      most = max(most, argcsr_fill(len, t));
    }
    tsum = (int)argcsr_warp_sum(tsum);
    most = argcsr_warp_max(most);
    left = block - tsum;
    if (lo > 1 && most > 1)
      for (int q = q0; q < q1; q++) {
        const int len = rowptr[r0 + q + 1] - rowptr[r0 + q], t = max(1, argcsr_fill(len, lo));

        if (argcsr_fill(len, t) == most) dsum += argcsr_fill(len, most - 1) - t;
      }
    dprefix = argcsr_warp_exclusive_sum(dsum); /* the extra threads the rows before this lane's ask for */
    tsum    = 0;
    for (int pass = 0; pass < 2; pass++) { /* pass 0: this lane's threads; pass 1: the map */
      int before = dprefix, sum = pass ? tprefix : 0;

      for (int q = q0; q < q1; q++) {
        const int len = rowptr[r0 + q + 1] - rowptr[r0 + q];
        int       t   = max(1, argcsr_fill(len, lo));

        if (lo > 1 && most > 1 && argcsr_fill(len, t) == most) {
          const int want = argcsr_fill(len, most - 1) - t;

          t += max(0, min(want, left - before));
          before += want;
        }
        sum += t;
        if (pass) map[r0 + q] = sum;
        else c = max(c, argcsr_fill(len, t));
      }
      if (!pass) tprefix = argcsr_warp_exclusive_sum(sum);
      if (!pass) tsum = sum;
    }
    c    = argcsr_warp_max(c);
    tsum = (int)argcsr_warp_sum(tsum);
    if (lane == 0) {
      chunk[g] = c;
      count[g] = make_longlong2((long long)c * block, tsum);
    }
  }
}

__global__ static void argcsr_groups_kernel(int ngroups, const int *__restrict__ first, const int *__restrict__ chunk, const longlong2 *__restrict__ offset, ARGCSRGroup *__restrict__ groups)
{
  for (int g = blockIdx.x * blockDim.x + threadIdx.x; g < ngroups; g += gridDim.x * blockDim.x) {
    ARGCSRGroup G;

    G.firstRow  = first[g];
    G.size      = first[g + 1] - first[g];
    G.offset    = (int)offset[g].x;
    G.chunkSize = chunk[g];
    groups[g]   = G;
  }
}

/*
   Entry k of the CSR to its slot: its row (a search of rowptr), the row's group (a search of the groups' first rows), the
   row's first thread (map), then thread t0 + j / chunk, slot j % chunk of it. BUILD: the column too (the slots were
   set to column -1 and value 0 before: padding); else (a change of values) the value alone.
*/
template <bool BUILD>
__global__ static void argcsr_fill_kernel(int m, long long nnz, int ngroups, int block, const ARGCSRGroup *__restrict__ groups, const int *__restrict__ map, const int *__restrict__ rowptr, const int *__restrict__ colind, const PetscScalar *__restrict__ csrval, int *__restrict__ col, PetscScalar *__restrict__ val)
{
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < nnz; k += (long long)gridDim.x * blockDim.x) {
    const int r  = MatGPUFormatRowOfEntry(rowptr, m, k);
    int       lo = 0, hi = ngroups - 1;

    while (lo < hi) {
      const int mid = (lo + hi + 1) >> 1;

      if (__ldg(&groups[mid].firstRow) <= r) lo = mid;
      else hi = mid - 1;
    }
    {
      const ARGCSRGroup G  = groups[lo];
      const int         t0 = r > G.firstRow ? __ldg(map + r - 1) : 0, j = (int)(k - __ldg(rowptr + r));
      const size_t      s = (size_t)G.offset + t0 + j / G.chunkSize + (size_t)(j % G.chunkSize) * block;

      if (BUILD) col[s] = colind[k];
      val[s] = csrval[k];
    }
  }
}

/* ------------------------------------------------------------------ product */

/*
   z = A x (ADD false) or z = y + A x (y may equal z), the paper's kernel: a CUDA block of `block` threads per group;
   each thread sums its chunk's entries until its first padding slot (column -1: padding never multiplies x, so an Inf
   or NaN there stays out), then each row of the group adds its threads' partial sums in order, as the host reference.
*/
template <bool ADD>
__global__ static void __launch_bounds__(1024) argcsr_mult_kernel(int block, const ARGCSRGroup *__restrict__ groups, const int *__restrict__ map, const int *__restrict__ col, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ x, const PetscScalar *y, PetscScalar *z)
{
  extern __shared__ PetscScalar argcsr_shared[];
  PetscScalar                  *partial = argcsr_shared;
  int                          *tmap    = (int *)(argcsr_shared + block);
  const ARGCSRGroup             G       = groups[blockIdx.x];
  const int                     tid     = threadIdx.x;
  PetscScalar                   sum     = 0.0;
  size_t                        p       = (size_t)G.offset + tid;

  if (tid < G.size) tmap[tid] = __ldg(map + G.firstRow + tid);
  for (int i = 0; i < G.chunkSize; i++, p += block) {
    const int c = __ldg(col + p);

    if (c < 0) break;
    sum += __ldg(val + p) * __ldg(x + c);
  }
  partial[tid] = sum;
  __syncthreads();
  if (tid < G.size) {
    const int   r = G.firstRow + tid, end = tmap[tid];
    PetscScalar s = 0.0;

    for (int t = tid ? tmap[tid - 1] : 0; t < end; t++) s += partial[t];
    z[r] = (ADD ? y[r] : 0.0) + s;
  }
}

static PetscErrorCode ARGCSRMult(void *fmt, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  const Mat_ARGCSR   *ac  = (const Mat_ARGCSR *)fmt;
  const ARGCSRArrays *d   = &ac->d;
  const size_t        shm = (size_t)d->block * (sizeof(PetscScalar) + sizeof(int));

  PetscFunctionBegin;
  if (y) argcsr_mult_kernel<true><<<(unsigned)d->ngroups, (unsigned)d->block, shm, stream>>>((int)d->block, d->groups, d->map, d->col, d->val, x, y, z);
  else argcsr_mult_kernel<false><<<(unsigned)d->ngroups, (unsigned)d->block, shm, stream>>>((int)d->block, d->groups, d->map, d->col, d->val, x, y, z);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ARGCSRRefresh(void *fmt, const MatGPUFormatCSR *csr)
{
  Mat_ARGCSR         *ac = (Mat_ARGCSR *)fmt;
  const ARGCSRArrays *d  = &ac->d;

  PetscFunctionBegin;
  argcsr_fill_kernel<false><<<MatGPUFormatGrid(d->nnz, ARGCSR_BUILD_BLOCK), ARGCSR_BUILD_BLOCK, 0, csr->stream>>>((int)d->m, (long long)d->nnz, (int)d->ngroups, (int)d->block, d->groups, d->map, csr->rowptr, NULL, csr->val, NULL, d->val);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ARGCSRReset(void *fmt)
{
  Mat_ARGCSR *ac = (Mat_ARGCSR *)fmt;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatScratchRelease_Private(&ac->scratch, 0)); /* temporaries of a build that stopped with an error */
  PetscCall(PetscArrayzero(&ac->d, 1));                           /* the views first, so that none outlives its block */
  PetscCall(MatGPUFormatDeviceFree_Private(&ac->mem));
  ac->bytes   = 0;
  ac->threads = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The paper's groups, from the row pointer brought back (the build's first round trip): first[g] their first rows,
   first[ngroups] = m */
static PetscErrorCode ARGCSRGroupsOnHost(const MatGPUFormatCSR *csr, PetscInt block, PetscInt desired, PetscInt *rowptr, PetscInt *first, PetscInt *ngroups)
{
  PetscInt n = 0;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpyAsync(rowptr, csr->rowptr, (size_t)(csr->m + 1) * sizeof(int), cudaMemcpyDeviceToHost, csr->stream));
  PetscCallCUDA(cudaStreamSynchronize(csr->stream));
  for (PetscInt i = 0; i < csr->m; n++) {
    first[n] = i;
    i += ARGCSRGroupRows(csr->m, rowptr, i, block, desired);
  }
  first[n] = csr->m;
  *ngroups = n;
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "groups (host)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The groups' first rows to the device, done before the host array goes */
static PetscErrorCode ARGCSRUpload(int *first, const PetscInt *hfirst, PetscInt ngroups, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpyAsync(first, hfirst, (size_t)(ngroups + 1) * sizeof(int), cudaMemcpyHostToDevice, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The build: the groups on the host (the paper's grouping is a sequential scan of the row lengths: the row pointer
   comes back, the build's first round trip; the groups go to the device, and the host waits for that copy before it
   frees them); the threads of each row and each group's chunk size on the GPU (a warp per group); the slots' and
   threads' totals from one scan (the second round trip), then one allocation and the fill (a thread per entry).
*/
static PetscErrorCode ARGCSRBuild(void *fmt, const MatGPUFormatCSR *csr)
{
  Mat_ARGCSR    *ac = (Mat_ARGCSR *)fmt;
  ARGCSRArrays  *d  = &ac->d;
  PetscInt      *hrowptr, *hfirst, ngroups = 0, mark;
  PetscErrorCode ierr;
  int           *first, *chunk, *map;
  longlong2     *count, tail;
  size_t         bytes;

  PetscFunctionBegin;
  PetscCall(ARGCSRReset(fmt));
  PetscCheck(sizeof(PetscInt) == sizeof(int), PETSC_COMM_SELF, PETSC_ERR_SUP, "ARG-CSR needs 32-bit PetscInt");
  ac->stats  = csr->stats;
  d->m       = csr->m;
  d->n       = csr->n;
  d->nnz     = csr->nnz;
  d->block   = ac->block;
  d->desired = ac->desired;
  mark       = ac->scratch.n;

  /* the groups, on the host (the host arrays go on every path: an error here, out of device memory above all, is one the
     common layer recovers from) */
  PetscCall(PetscMalloc2(d->m + 1, &hrowptr, d->m + 1, &hfirst));
  ierr = ARGCSRGroupsOnHost(csr, d->block, d->desired, hrowptr, hfirst, &ngroups);
  if (!ierr) {
    const MatGPUFormatArray tmp[] = {
        {(void **)&first, (size_t)(ngroups + 1) * sizeof(int)      },
        {(void **)&chunk, (size_t)ngroups * sizeof(int)            },
        {(void **)&map,   (size_t)d->m * sizeof(int)               },
        {(void **)&count, (size_t)(ngroups + 1) * sizeof(longlong2)}
    };

    ierr = MatGPUFormatScratchMallocArrays_Private(&ac->scratch, "ARGCSR", PETSC_STATIC_ARRAY_LENGTH(tmp), tmp);
  }
  if (!ierr) ierr = ARGCSRUpload(first, hfirst, ngroups, csr->stream);
  PetscCall(PetscFree2(hrowptr, hfirst));
  PetscCall(ierr);
  d->ngroups = ngroups;
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "groups (host)"));

  /* the threads of each row and the chunk size of each group, on the GPU; the slots' offsets and, in the same scan, the
     threads mapped: their totals in one copy */
  PetscCallCUDA(cudaMemsetAsync(count + ngroups, 0, sizeof(longlong2), csr->stream));
  argcsr_assign_kernel<<<MatGPUFormatGrid(32 * (PetscInt64)ngroups, ARGCSR_BUILD_BLOCK), ARGCSR_BUILD_BLOCK, 0, csr->stream>>>((int)ngroups, (int)d->block, first, csr->rowptr, map, chunk, count);
  PetscCallCUDA(cudaGetLastError());
  MatGPUFormatCallThrust(thrust::exclusive_scan(MatGPUFormatThrustPolicy(csr->stream), count, count + ngroups + 1, count, make_longlong2(0, 0), [] __device__(longlong2 a, longlong2 b) { return make_longlong2(a.x + b.x, a.y + b.y); }));
  PetscCallCUDA(cudaMemcpyAsync(&tail, count + ngroups, sizeof(longlong2), cudaMemcpyDeviceToHost, csr->stream));
  PetscCallCUDA(cudaStreamSynchronize(csr->stream));
  ac->threads = tail.y;
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "threads and chunks"));
  PetscCheck(tail.x <= PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "ARG-CSR: %lld slots (%" PetscInt_FMT " entries) exceed the format's 32-bit offsets; raise -mat_argcsr_desired_chunk_size or use another type", tail.x, d->nnz);
  d->nslots = (PetscInt)tail.x;

  /* every array in one allocation */
  {
    const MatGPUFormatArray arrays[] = {
        {(void **)&d->groups, (size_t)ngroups * sizeof(ARGCSRGroup)  },
        {(void **)&d->map,    (size_t)d->m * sizeof(int)             },
        {(void **)&d->col,    (size_t)d->nslots * sizeof(int)        },
        {(void **)&d->val,    (size_t)d->nslots * sizeof(PetscScalar)}
    };

    bytes = 0;
    for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(arrays); i++) bytes += arrays[i].bytes;
    PetscCall(MatGPUFormatCheckDeviceMemory_Private("ARGCSR", bytes));
    PetscCall(MatGPUFormatDeviceMallocArrays_Private("ARGCSR", &ac->mem, PETSC_STATIC_ARRAY_LENGTH(arrays), arrays));
  }
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "allocate"));
  argcsr_groups_kernel<<<MatGPUFormatGrid(ngroups, ARGCSR_BUILD_BLOCK), ARGCSR_BUILD_BLOCK, 0, csr->stream>>>((int)ngroups, first, chunk, count, d->groups);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(d->map, map, (size_t)d->m * sizeof(int), cudaMemcpyDeviceToDevice, csr->stream));
  PetscCallCUDA(cudaMemsetAsync(d->col, 0xff, (size_t)d->nslots * sizeof(int), csr->stream)); /* column -1: padding */
  PetscCallCUDA(cudaMemsetAsync(d->val, 0, (size_t)d->nslots * sizeof(PetscScalar), csr->stream));
  argcsr_fill_kernel<true><<<MatGPUFormatGrid(d->nnz, ARGCSR_BUILD_BLOCK), ARGCSR_BUILD_BLOCK, 0, csr->stream>>>((int)d->m, (long long)d->nnz, (int)ngroups, (int)d->block, d->groups, d->map, csr->rowptr, csr->colind, csr->val, d->col, d->val);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(MatGPUFormatScratchRelease_Private(&ac->scratch, mark)); /* in stream order, after the kernels that read them */
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "fill"));
  ac->bytes = (PetscLogDouble)bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ the format interface */

static PetscErrorCode ARGCSRCreate(void **fmt)
{
  Mat_ARGCSR *ac;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ac));
  ac->block   = ARGCSR_DEFAULT_BLOCK;
  ac->desired = ARGCSR_DEFAULT_DESIRED;
  *fmt        = ac;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ARGCSRCopyParams(const void *src, void *dst)
{
  const Mat_ARGCSR *a = (const Mat_ARGCSR *)src;
  Mat_ARGCSR       *b = (Mat_ARGCSR *)dst;

  PetscFunctionBegin;
  b->block   = a->block;
  b->desired = a->desired;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ARGCSRSameParams(const void *pa, const void *pb, PetscBool *same)
{
  const Mat_ARGCSR *a = (const Mat_ARGCSR *)pa, *b = (const Mat_ARGCSR *)pb;

  PetscFunctionBegin;
  *same = (PetscBool)(a->block == b->block && a->desired == b->desired);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ARGCSRSetFromOptions(void *fmt, MatGPUFormatOptionItems PetscOptionsObject)
{
  Mat_ARGCSR *ac    = (Mat_ARGCSR *)fmt;
  PetscInt    block = ac->block, desired = ac->desired;

  PetscFunctionBegin;
  PetscCall(PetscOptionsInt("-mat_argcsr_block", "Threads per group of rows (the paper's blockDim.x): a multiple of 32 up to 1024", "MATSEQARGCSR", block, &block, NULL));
  PetscCall(PetscOptionsInt("-mat_argcsr_desired_chunk_size", "The paper's desiredChunkSize: a group closes before its entries pass this times the threads per group", "MATSEQARGCSR", desired, &desired, NULL));
  PetscCheck(block >= 32 && block <= 1024 && block % 32 == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_argcsr_block %" PetscInt_FMT ": a multiple of 32 from 32 to 1024", block);
  PetscCheck(desired >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_argcsr_desired_chunk_size %" PetscInt_FMT " is not positive", desired);
  ac->block   = block;
  ac->desired = desired;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ARGCSRView(void *fmt, PetscViewer viewer)
{
  const Mat_ARGCSR   *ac = (const Mat_ARGCSR *)fmt;
  const ARGCSRArrays *d  = &ac->d;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "%" PetscInt_FMT " groups of %" PetscInt_FMT " threads (desired chunk size %" PetscInt_FMT "), %.2f rows per group; %.1f%% of the threads mapped to rows\n", d->ngroups, ac->block, ac->desired,
                                   d->ngroups ? (double)d->m / d->ngroups : 0.0, d->ngroups ? 100.0 * (double)ac->threads / ((double)d->ngroups * ac->block) : 0.0));
  PetscCall(PetscViewerASCIIPrintf(viewer, "%" PetscInt_FMT " slots, %.4g per entry; row lengths: mean %.2f, standard deviation %.2f, longest %" PetscInt_FMT "\n", d->nslots, d->nnz ? (double)d->nslots / d->nnz : 0.0, ac->stats.mean, ac->stats.stddev, ac->stats.maxlen));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ARGCSRMemory(void *fmt, PetscLogDouble *bytes)
{
  PetscFunctionBegin;
  *bytes = ((Mat_ARGCSR *)fmt)->bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

MatGPUFormatOps MatARGCSROps = {"argcsr", "ARGCSR", MATSEQARGCSR, MATMPIARGCSR, ARGCSRCreate, ARGCSRCopyParams, ARGCSRSameParams, ARGCSRSetFromOptions, ARGCSRBuild, ARGCSRRefresh, ARGCSRMult, ARGCSRReset, ARGCSRView, ARGCSRMemory, 0, 0, NULL, NULL};

/*MC
   MATSEQARGCSR - "seqaijcusparseargcsr" - A sequential `MATSEQAIJCUSPARSE` matrix that multiplies on the GPU in ARG-CSR,
   the Adaptive Row-Grouped CSR of Heller and Oberhuber, "Adaptive Row-grouped CSR Format for Storing of Sparse Matrices
   on GPU" (2012).

   Consecutive rows form groups of at most `block` rows whose entries stay within desired x block (a longer row is a group
   of its own); each group is one CUDA block of `block` threads. Each row gets one thread or more (the group's free
   threads go to the rows whose chunks would be fullest), each thread a chunk of consecutive entries of its row, stored
   column-wise as the rows of sliced ELL (padding column -1, never multiplied). A row then adds its threads' partial sums
   in order. The groups are formed on the host (a scan of the row lengths), the threads and the fill on the GPU. All
   other operations are those of `MATSEQAIJCUSPARSE`.

   Options Database Keys:
+  -mat_type argcsr - sets the type (with `MatSetFromOptions()`), or converts an assembled `MATSEQAIJCUSPARSE` in place
.  -mat_argcsr_block <B> - threads per group, a multiple of 32 up to 1024 (default 128, the paper's best)
-  -mat_argcsr_desired_chunk_size <D> - the paper's desiredChunkSize (default 1, the paper's)

   Level: beginner

   Note:
   Issue 18: the paper's format and kernel, tested on an H200; slower than `MATSEQAIJCUSPARSE` on every matrix measured
   (bench/results/h200/argcsr.md): for comparison, not for speed.

.seealso: [](ch_matrices), `Mat`, `MATARGCSR`, `MATSEQAIJCUSPARSE`, `MatARGCSRGetGroups()`
M*/
PetscErrorCode MatCreate_SeqARGCSR(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_SeqGPUFormat_Private(A, &MatARGCSROps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatARGCSRGetGroups - Gets the groups, the slots and the threads mapped to rows of a `MATSEQARGCSR` matrix

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameters:
+ ngroups - groups of rows (CUDA blocks of the product)
. nslots  - slots stored, padding included
- threads - threads mapped to rows, over all groups (the others hold padding only)

  Level: intermediate

  Note:
  The values of the last build: 0 before the first product or for a matrix without entries. Pass `NULL` for values not
  needed.

.seealso: [](ch_matrices), `Mat`, `MATSEQARGCSR`
@*/
PetscErrorCode MatARGCSRGetGroups(Mat A, PetscInt *ngroups, PetscInt *nslots, PetscInt *threads)
{
  Mat_ARGCSR *ac = NULL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(MatGPUFormatRequireFormat_Private(A, &MatARGCSROps, (void **)&ac));
  if (ngroups) *ngroups = ac->d.ngroups;
  if (nslots) *nslots = ac->d.nslots;
  if (threads) *threads = (PetscInt)ac->threads;
  PetscFunctionReturn(PETSC_SUCCESS);
}

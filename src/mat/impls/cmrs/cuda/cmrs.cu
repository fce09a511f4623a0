/*
   CMRS on the GPU: the device build from cuSPARSE's CSR, the choice of the warp-per-strip product (its kernels are in
   cmrsimpl.cuh, instantiated per height in cmrs_h<H>.cu), and the format interface that the common layer turns into the
   MATSEQCMRS type.
*/
#include "cmrsimpl.cuh"
#include <cub/device/device_segmented_sort.cuh>
#include <cub/warp/warp_merge_sort.cuh>
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>

/* The product, and with f the refresh fused into it */
static PetscErrorCode CMRSMultPossiblyRefresh(const Mat_CMRS *cm, const CMRSRefreshArgs *f, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  PetscFunctionBegin;
  switch (cm->d.height) {
  case 1:
    PetscCall(CMRSLaunchHeight<1>(cm, f, x, y, z, stream));
    break;
  case 2:
    PetscCall(CMRSLaunchHeight<2>(cm, f, x, y, z, stream));
    break;
  case 4:
    PetscCall(CMRSLaunchHeight<4>(cm, f, x, y, z, stream));
    break;
  case 8:
    PetscCall(CMRSLaunchHeight<8>(cm, f, x, y, z, stream));
    break;
  case 16:
    PetscCall(CMRSLaunchHeight<16>(cm, f, x, y, z, stream));
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "CMRS strip height %" PetscInt_FMT " has no kernel", cm->d.height);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CMRSMult(void *fmt, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCall(CMRSMultPossiblyRefresh((const Mat_CMRS *)fmt, NULL, x, y, z, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The product that first takes the new values of the device CSR, each entry's through the position map (or in place
   without sorted columns; or, for ranked strips of several rows none of which is split, at its row's start plus the count
   of that row's entries before it, which the warp finds as it goes), as CMRSRefresh() does, in the same pass. Only for strips that are one warp's each and none
   split into chunks: with long strips (R-MAT, the circuit-like matrix) the fused pass took 116 and 146 us on an H200
   where the separate gather and product took 92 and 131 (173 and 255 against 123 and 175 on an H100), so there the
   values are gathered first, then multiplied (two launches). Those were large matrices; in a small one (below
   CMRS_LONG_MIN: long strips split into chunks of CMRS_CHUNK_SMALL_MIN to CMRS_CHUNK_SMALL) the second launch costs more than the fused pass adds, so it stays fused */
static PetscErrorCode CMRSMultRefresh(void *fmt, const MatGPUFormatCSR *csr, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  Mat_CMRS *cm = (Mat_CMRS *)fmt;
  /* ranked strips of several rows, none split into chunks: the kernel finds each entry's CSR position without perm */
  const PetscBool       byrank = (PetscBool)(cm->ranked && !cm->identity && !cm->nlong && cm->d.height > 1);
  const CMRSRefreshArgs f      = {csr->val, cm->identity || byrank ? NULL : cm->perm, cm->d.val, byrank ? csr->rowptr : NULL};

  PetscFunctionBegin;
  if ((cm->nlong && !cm->small) || cm->group > 1) {
    PetscCall(MatGPUFormatGatherValues_Private(cm->d.nnz, cm->identity ? NULL : cm->perm, csr->val, cm->d.val, stream));
    PetscCall(CMRSMultPossiblyRefresh(cm, NULL, x, y, z, stream));
  } else PetscCall(CMRSMultPossiblyRefresh(cm, &f, x, y, z, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ device build */

/* The strips' offsets, and in counts[0] and counts[1] (zero before) the count of strips with more than longthreshold
   entries and of their chunks of `chunk` entries, so that the build learns both with the ranking's flag, in one copy to
   the host */
__global__ static void cmrs_strip_ptr_kernel(int nstrips, int m, int height, int longthreshold, int chunk, const int *__restrict__ rowptr, int *__restrict__ strip_ptr, int *__restrict__ counts)
{
  int nlong = 0, nchunks = 0;

  for (long long s = blockIdx.x * (long long)blockDim.x + threadIdx.x; s <= nstrips; s += (long long)gridDim.x * blockDim.x) {
    const int b = rowptr[min(s * height, (long long)m)];

    strip_ptr[s] = b;
    if (s < nstrips) {
      const int len = rowptr[min((s + 1) * height, (long long)m)] - b;

      if (len > longthreshold) {
        nlong++;
        nchunks += (len + chunk - 1) / chunk;
      }
    }
  }
  for (int off = 16; off > 0; off >>= 1) { /* every thread gets here */
    nlong += __shfl_xor_sync(0xffffffffu, nlong, off);
    nchunks += __shfl_xor_sync(0xffffffffu, nchunks, off);
  }
  if (!(threadIdx.x & 31) && nlong) {
    atomicAdd(counts, nlong);
    atomicAdd(counts + 1, nchunks);
  }
}

/* Entry k gets its row-in-strip: the row is found by binary search, so long rows cost no more than short ones */
__global__ static void cmrs_fill_kernel(int m, int nnz, int height, bool packed, const int *__restrict__ rowptr, const int *__restrict__ colind, unsigned *__restrict__ out, unsigned char *__restrict__ rowin)
{
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < nnz; k += (long long)gridDim.x * blockDim.x) {
    const unsigned r = (unsigned)(MatGPUFormatRowOfEntry(rowptr, m, k) & (height - 1)), c = (unsigned)colind[k];

    if (packed) out[k] = (c << CMRS_BITS) | r;
    else {
      out[k]   = c;
      rowin[k] = (unsigned char)r;
    }
  }
}

/*
   The entries of each strip in (column, row in strip) order in one pass, when the rows of the CSR are sorted by column
   with no column twice (as PETSc's assembly leaves them): the position of entry k (row i of the strip, column c) is its
   position in its row plus, for every other row j of the strip, the count of its columns below c (j > i) or up to c
   (j < i), each by binary search. A row found not strictly increasing sets *unsorted, and the build sorts instead
   (CMRSSortStrips()). start: the nr + 1 row offsets of the strip (shared or global memory).
*/
template <bool PACKED>
__device__ __forceinline__ static void cmrs_place(int k, int i, int nr, const int *start, const int *__restrict__ colind, const PetscScalar *__restrict__ csrval, unsigned *__restrict__ out, unsigned char *__restrict__ rowin, PetscScalar *__restrict__ val, int *__restrict__ perm, int *__restrict__ unsorted)
{
  const int c   = colind[k];
  int       pos = start[0] + (k - start[i]); /* the strip's first entry, then k's place in its row */

  if (k > start[i] && colind[k - 1] >= c) *unsorted = 1;
  for (int j = 0; j < nr; j++) {
    int a = start[j], b = start[j + 1];

    if (j == i) continue;
    while (a < b) { /* j < i: columns up to c come first; j > i: columns below c */
      const int mid = (a + b) / 2, v = colind[mid];

      if (v < c || (j < i && v == c)) a = mid + 1;
      else b = mid;
    }
    pos += a - start[j];
  }
  if (PACKED) out[pos] = ((unsigned)c << CMRS_BITS) | (unsigned)i;
  else {
    out[pos]   = (unsigned)c;
    rowin[pos] = (unsigned char)i;
  }
  perm[pos] = k;
  if (val) val[pos] = csrval[k]; /* the values too (short rows): no gather through perm after the ranking */
}

/* The row of entry k in a strip of nr rows whose offsets are start[0..nr]: the last row that starts at or before k */
__device__ __forceinline__ static int cmrs_row_in_strip(const int *start, int nr, int k)
{
  int lo = 0, hi = nr - 1;

  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;

    if (start[mid] <= k) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* One warp per strip, its row offsets in shared memory: for strips of similar lengths */
template <bool PACKED>
__global__ static void __launch_bounds__(CMRS_BLOCK) cmrs_rank_strips_kernel(int nstrips, int m, int height, const int *__restrict__ rowptr, const int *__restrict__ colind, const PetscScalar *__restrict__ csrval, unsigned *__restrict__ out, unsigned char *__restrict__ rowin, PetscScalar *__restrict__ val, int *__restrict__ perm, int *__restrict__ unsorted)
{
  __shared__ int start[CMRS_WARPS][CMRS_MAX_HEIGHT + 1];
  const int      w = threadIdx.x / 32, lane = threadIdx.x % 32;

  for (long long s = blockIdx.x * (long long)CMRS_WARPS + w; s < nstrips; s += (long long)gridDim.x * CMRS_WARPS) {
    const int r0 = (int)(s * height), nr = min(height, m - r0);

    if (lane <= nr) start[w][lane] = rowptr[r0 + lane];
    __syncwarp();
    for (int k = start[w][0] + lane; k < start[w][nr]; k += 32) {
      cmrs_place<PACKED>(k, cmrs_row_in_strip(start[w], nr, k), nr, start[w], colind, csrval, out, rowin, val, perm, unsorted);
    }
    __syncwarp();
  }
}

struct CMRSKeyLess {
  __device__ bool operator()(unsigned long long a, unsigned long long b) const { return a < b; }
};

/*
   One warp per strip of at most 32 ITEMS entries, packed column indices: the strip's entries as keys (column << 4 | row
   in strip) << 32 | CSR position, sorted by cub's warp merge sort; the warp then holds ranks lane ITEMS .. lane ITEMS +
   ITEMS - 1. The same order as cmrs_rank_strips_kernel() finds by a binary search per entry and other row of the strip
   (whose searches cost more than the sort where the strips are short), and the same check of the rows' order. SKIP:
   longer strips are left to cmrs_rank_long_kernel().
*/
template <int ITEMS, bool SKIP>
__global__ static void __launch_bounds__(CMRS_BLOCK) cmrs_sort_strips_kernel(int nstrips, int m, int height, const int *__restrict__ rowptr, const int *__restrict__ colind, const PetscScalar *__restrict__ csrval, unsigned *__restrict__ out, PetscScalar *__restrict__ val, int *__restrict__ perm, int *__restrict__ unsorted)
{
  using WarpSort = cub::WarpMergeSort<unsigned long long, ITEMS, 32>;
  __shared__ typename WarpSort::TempStorage tmp[CMRS_WARPS];
  __shared__ int                            start[CMRS_WARPS][CMRS_MAX_HEIGHT + 1];
  const int                                 w = threadIdx.x / 32, lane = threadIdx.x % 32;

  for (long long s = blockIdx.x * (long long)CMRS_WARPS + w; s < nstrips; s += (long long)gridDim.x * CMRS_WARPS) {
    const int r0 = (int)(s * height), nr = min(height, m - r0);

    if (lane <= nr) start[w][lane] = rowptr[r0 + lane];
    __syncwarp();
    const int b = start[w][0], e = start[w][nr];

    if (!SKIP || e - b <= 32 * ITEMS) { /* the same for the whole warp */
      unsigned long long key[ITEMS];

#pragma unroll
      for (int u = 0; u < ITEMS; u++) {
        const int k = b + lane + 32 * u;

        key[u] = ~0ull; /* past the strip: sorted last */
        if (k < e) {
          const int lo = cmrs_row_in_strip(start[w], nr, k), c = colind[k];

          if (k > start[w][lo] && colind[k - 1] >= c) *unsorted = 1;
          key[u] = ((unsigned long long)(((unsigned)c << CMRS_BITS) | (unsigned)lo) << 32) | (unsigned)k;
        }
      }
      WarpSort(tmp[w]).Sort(key, CMRSKeyLess());
#pragma unroll
      for (int u = 0; u < ITEMS; u++) {
        const int p = b + lane * ITEMS + u;

        if (p < e) {
          const int k = (int)(key[u] & 0xffffffffu);

          out[p]  = (unsigned)(key[u] >> 32);
          perm[p] = k;
          if (val) val[p] = csrval[k];
        }
      }
    }
    __syncwarp(); /* tmp and start are the next strip's */
  }
}

/* The last strip s in [lo, hi] with strip_ptr[s] <= key, strip_ptr[lo] <= key, by one warp: 32 probes a step */
__device__ static int cmrs_strip_of(const int *__restrict__ strip_ptr, int lo, int hi, int key, int lane)
{
  while (lo < hi) {
    const int      p     = lo + (int)(((long long)(hi - lo) * (lane + 1)) / 32); /* lane 31 probes hi */
    const unsigned below = __ballot_sync(0xffffffffu, strip_ptr[p] <= key);      /* a prefix of the lanes: the offsets grow */
    const int      j     = __popc(below);

    if (j) lo = __shfl_sync(0xffffffffu, p, j - 1);
    if (j < 32) hi = __shfl_sync(0xffffffffu, p, j) - 1;
  }
  return lo;
}

/*
   The entries of the strips of more than `shortmax` entries, which cmrs_sort_strips_kernel<ITEMS, true> leaves, packed
   column indices, a thread each: each CUDA block takes CMRS_RANK_CHUNK consecutive entries, its first two warps find the
   strips of the first and the last (cmrs_strip_of()), its threads look at those strips CMRS_BLOCK at a time, and the block
   places the entries of each long one that lie in its chunk by cmrs_place()'s searches. A long strip's entries are
   spread over its chunks' blocks, so that none of them takes its entries one after the other, and no thread searches
   all rows for an entry's strip (cmrs_rank_entries_kernel()).
*/
__global__ static void __launch_bounds__(CMRS_BLOCK) cmrs_rank_long_kernel(int nnz, int nstrips, int m, int height, int shortmax, const int *__restrict__ strip_ptr, const int *__restrict__ rowptr, const int *__restrict__ colind, const PetscScalar *__restrict__ csrval, unsigned *__restrict__ out, PetscScalar *__restrict__ val, int *__restrict__ perm, int *__restrict__ unsorted)
{
  __shared__ int range[2], nl, list[CMRS_BLOCK], start[CMRS_MAX_HEIGHT + 1];
  const int      tid = (int)threadIdx.x;

  for (long long c = (long long)blockIdx.x * CMRS_RANK_CHUNK; c < nnz; c += (long long)gridDim.x * CMRS_RANK_CHUNK) {
    const int c0 = (int)c, c1 = (int)min(c + CMRS_RANK_CHUNK, (long long)nnz);

    if (tid < 64) { /* warp 0: the strip of entry c0; warp 1: that of entry c1 - 1 */
      const int s = cmrs_strip_of(strip_ptr, 0, nstrips - 1, tid < 32 ? c0 : c1 - 1, tid & 31);

      if (!(tid & 31)) range[tid >> 5] = s;
    }
    __syncthreads();
    const int sa = range[0], sb = range[1];

    for (int t = sa; t <= sb; t += CMRS_BLOCK) { /* the same for the whole block */
      const int s = t + tid;

      __syncthreads(); /* every thread has read the last tile's nl */
      if (tid == 0) nl = 0;
      __syncthreads();
      if (s <= sb && strip_ptr[s + 1] - strip_ptr[s] > shortmax) list[atomicAdd(&nl, 1)] = s;
      __syncthreads();
      for (int i = 0; i < nl; i++) {
        const int l = list[i], r0 = l * height, nr = min(height, m - r0);

        if (tid <= nr) start[tid] = rowptr[r0 + tid];
        __syncthreads();
        for (int k = max(c0, start[0]) + tid; k < min(c1, start[nr]); k += CMRS_BLOCK) cmrs_place<true>(k, cmrs_row_in_strip(start, nr, k), nr, start, colind, csrval, out, NULL, val, perm, unsorted);
        __syncthreads(); /* start is the next strip's */
      }
    }
    __syncthreads(); /* range, nl and list are the next chunk's */
  }
}

/* One thread per entry, its row by binary search over all rows: a strip with a row far longer than the others would
   hold one warp of cmrs_rank_strips_kernel long after the rest of the grid has finished */
template <bool PACKED>
__global__ static void __launch_bounds__(CMRS_BLOCK) cmrs_rank_entries_kernel(int nnz, int m, int height, const int *__restrict__ rowptr, const int *__restrict__ colind, const PetscScalar *__restrict__ csrval, unsigned *__restrict__ out, unsigned char *__restrict__ rowin, PetscScalar *__restrict__ val, int *__restrict__ perm, int *__restrict__ unsorted)
{
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < nnz; k += (long long)gridDim.x * blockDim.x) {
    const int row = MatGPUFormatRowOfEntry(rowptr, m, k), r0 = row & ~(height - 1);

    cmrs_place<PACKED>((int)k, row - r0, min(height, m - r0), rowptr + r0, colind, csrval, out, rowin, val, perm, unsorted);
  }
}

__global__ static void cmrs_wide_keys_kernel(int nnz, const unsigned *__restrict__ colind, const unsigned char *__restrict__ rowin, unsigned long long *__restrict__ keys)
{
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < nnz; k += (long long)gridDim.x * blockDim.x) keys[k] = ((unsigned long long)colind[k] << CMRS_BITS) | rowin[k];
}

__global__ static void cmrs_unwide_keys_kernel(int nnz, const unsigned long long *__restrict__ keys, unsigned *__restrict__ colind, unsigned char *__restrict__ rowin)
{
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < nnz; k += (long long)gridDim.x * blockDim.x) {
    colind[k] = (unsigned)(keys[k] >> CMRS_BITS);
    rowin[k]  = (unsigned char)(keys[k] & (CMRS_MAX_HEIGHT - 1));
  }
}

struct CMRSIsLong {
  const int      *strip_ptr;
  int             threshold;
  __device__ bool operator()(int s) const { return strip_ptr[s + 1] - strip_ptr[s] > threshold; }
};

struct CMRSChunks {
  const int     *strip_ptr;
  int            chunk;
  __device__ int operator()(int s) const { return (strip_ptr[s + 1] - strip_ptr[s] + chunk - 1) / chunk; }
};

static PetscErrorCode CMRSReset(void *fmt)
{
  Mat_CMRS *cm = (Mat_CMRS *)fmt;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatScratchRelease_Private(&cm->scratch, 0)); /* temporaries of a build that stopped with an error */
  PetscCall(PetscArrayzero(&cm->d, 1));
  cm->perm       = NULL;
  cm->longstrips = cm->chunkptr = NULL;
  cm->partial                   = NULL;
  cm->done                      = NULL;
  /* the views first, so that none outlives its block on any path */
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(cm->mem); i++) PetscCall(MatGPUFormatDeviceFree_Private(&cm->mem[i]));
  cm->nlong = cm->nchunks = cm->longthreshold = 0;
  cm->chunk                                   = 0;
  cm->small                                   = PETSC_FALSE;
  cm->identity                                = PETSC_FALSE;
  cm->ranked                                  = PETSC_FALSE;
  cm->group                                   = 1;
  cm->bytes                                   = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sorts the entries of each strip by (column, row in strip); perm receives the CSR position of each entry */
static PetscErrorCode CMRSSortStrips(Mat_CMRS *cm, cudaStream_t stream)
{
  CMRSArrays *d   = &cm->d;
  const int   nnz = (int)d->nnz, nstrips = (int)d->nstrips;
  int        *iota;
  void       *tmp, *work = NULL;
  size_t      workbytes = 0;
  PetscInt    mark      = cm->scratch.n;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatScratchMalloc_Private(&cm->scratch, "CMRS", (size_t)nnz * sizeof(int), (void **)&iota));
  MatGPUFormatCallThrust(thrust::sequence(MatGPUFormatThrustPolicy(stream), iota, iota + nnz));
  if (d->packed) {
    unsigned *keys = (unsigned *)nullptr;

    PetscCall(MatGPUFormatScratchMalloc_Private(&cm->scratch, "CMRS", (size_t)nnz * sizeof(unsigned), &tmp));
    keys = (unsigned *)tmp;
    PetscCallCUDA(cudaMemcpyAsync(keys, d->colind, (size_t)nnz * sizeof(unsigned), cudaMemcpyDeviceToDevice, stream));
    PetscCallCUDA(cub::DeviceSegmentedSort::SortPairs(work, workbytes, keys, d->colind, iota, cm->perm, nnz, nstrips, d->strip_ptr, d->strip_ptr + 1, stream));
    PetscCall(MatGPUFormatScratchMalloc_Private(&cm->scratch, "CMRS", workbytes, &work));
    PetscCallCUDA(cub::DeviceSegmentedSort::SortPairs(work, workbytes, keys, d->colind, iota, cm->perm, nnz, nstrips, d->strip_ptr, d->strip_ptr + 1, stream));
  } else {
    unsigned long long *keys;

    PetscCall(MatGPUFormatScratchMalloc_Private(&cm->scratch, "CMRS", 2 * (size_t)nnz * sizeof(unsigned long long), &tmp));
    keys = (unsigned long long *)tmp;
    cmrs_wide_keys_kernel<<<MatGPUFormatGrid(nnz, CMRS_BLOCK), CMRS_BLOCK, 0, stream>>>(nnz, d->colind, d->rowin, keys);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cub::DeviceSegmentedSort::SortPairs(work, workbytes, keys, keys + nnz, iota, cm->perm, nnz, nstrips, d->strip_ptr, d->strip_ptr + 1, stream));
    PetscCall(MatGPUFormatScratchMalloc_Private(&cm->scratch, "CMRS", workbytes, &work));
    PetscCallCUDA(cub::DeviceSegmentedSort::SortPairs(work, workbytes, keys, keys + nnz, iota, cm->perm, nnz, nstrips, d->strip_ptr, d->strip_ptr + 1, stream));
    cmrs_unwide_keys_kernel<<<MatGPUFormatGrid(nnz, CMRS_BLOCK), CMRS_BLOCK, 0, stream>>>(nnz, keys + nnz, d->colind, d->rowin);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(MatGPUFormatScratchRelease_Private(&cm->scratch, mark)); /* in stream order */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The strips and their column indices already sorted, from CSR rows sorted by column (cmrs_place()), and their values
   where *values is true: *ranked is false when a row was not, and the build then fills and sorts instead. flag: the
   ranking's flag, then the counts of long strips and of their chunks from cmrs_strip_ptr_kernel(), all read in one copy */
static PetscErrorCode CMRSRankStrips(Mat_CMRS *cm, const MatGPUFormatCSR *csr, int *flag, PetscBool *ranked, PetscBool *values)
{
  CMRSArrays  *d      = &cm->d;
  int          got[3] = {0, 0, 0};
  PetscScalar *val    = NULL;

  PetscFunctionBegin;
  *values = (PetscBool)(csr->stats.mean <= CMRS_RANK_VALUES_MEAN);
  if (*values) val = d->val;
  /* a warp per strip, sorting it where every strip is short (at most height * maxlen entries) and the indices packed;
     else searching, unless some strip can be far longer than the mean one: then (packed, more than CMRS_RANK_SPLIT_MIN
     entries) the short strips by warp sorts and the entries of the others a thread each, in chunks of CMRS_RANK_CHUNK
     entries (cmrs_rank_long_kernel()), or one thread per entry */
  const PetscBool skewed = (PetscBool)((PetscLogDouble)csr->stats.maxlen > PetscMax((PetscLogDouble)CMRS_RANK_WARP_MAX / d->height, CMRS_RANK_SKEW * csr->stats.mean));
  const unsigned  grid   = MatGPUFormatGrid(d->nstrips, CMRS_WARPS);

  if (d->packed && cm->warpsort && (PetscInt64)d->height * csr->stats.maxlen <= 32 * CMRS_WARP_SORT_ITEMS) {
    if ((PetscInt64)d->height * csr->stats.maxlen <= 64) cmrs_sort_strips_kernel<2, false><<<grid, CMRS_BLOCK, 0, csr->stream>>>((int)d->nstrips, (int)d->m, (int)d->height, csr->rowptr, csr->colind, csr->val, d->colind, val, cm->perm, flag);
    else cmrs_sort_strips_kernel<4, false><<<grid, CMRS_BLOCK, 0, csr->stream>>>((int)d->nstrips, (int)d->m, (int)d->height, csr->rowptr, csr->colind, csr->val, d->colind, val, cm->perm, flag);
  } else if (skewed && d->packed && cm->warpsort && d->nnz > CMRS_RANK_SPLIT_MIN) {
    cmrs_sort_strips_kernel<CMRS_WARP_SORT_ITEMS, true><<<grid, CMRS_BLOCK, 0, csr->stream>>>((int)d->nstrips, (int)d->m, (int)d->height, csr->rowptr, csr->colind, csr->val, d->colind, val, cm->perm, flag);
    PetscCallCUDA(cudaGetLastError());
    cmrs_rank_long_kernel<<<MatGPUFormatGrid(d->nnz, CMRS_RANK_CHUNK), CMRS_BLOCK, 0, csr->stream>>>((int)d->nnz, (int)d->nstrips, (int)d->m, (int)d->height, 32 * CMRS_WARP_SORT_ITEMS, d->strip_ptr, csr->rowptr, csr->colind, csr->val, d->colind, val, cm->perm, flag);
  } else if (skewed) {
    if (d->packed) cmrs_rank_entries_kernel<true><<<MatGPUFormatGrid(d->nnz, CMRS_BLOCK), CMRS_BLOCK, 0, csr->stream>>>((int)d->nnz, (int)d->m, (int)d->height, csr->rowptr, csr->colind, csr->val, d->colind, d->rowin, val, cm->perm, flag);
    else cmrs_rank_entries_kernel<false><<<MatGPUFormatGrid(d->nnz, CMRS_BLOCK), CMRS_BLOCK, 0, csr->stream>>>((int)d->nnz, (int)d->m, (int)d->height, csr->rowptr, csr->colind, csr->val, d->colind, d->rowin, val, cm->perm, flag);
  } else if (d->packed) cmrs_rank_strips_kernel<true><<<grid, CMRS_BLOCK, 0, csr->stream>>>((int)d->nstrips, (int)d->m, (int)d->height, csr->rowptr, csr->colind, csr->val, d->colind, d->rowin, val, cm->perm, flag);
  else cmrs_rank_strips_kernel<false><<<grid, CMRS_BLOCK, 0, csr->stream>>>((int)d->nstrips, (int)d->m, (int)d->height, csr->rowptr, csr->colind, csr->val, d->colind, d->rowin, val, cm->perm, flag);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(got, flag, sizeof(got), cudaMemcpyDeviceToHost, csr->stream));
  PetscCallCUDA(cudaStreamSynchronize(csr->stream));
  *ranked     = got[0] ? PETSC_FALSE : PETSC_TRUE;
  cm->nlong   = got[1];
  cm->nchunks = got[2];
  if (got[0]) PetscCall(PetscInfo(NULL, "CMRS: a CSR row is not sorted by column, or has a column twice: the strips are sorted instead\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Which strips are too long for one warp, and the entries per chunk of those */
static void CMRSLongThreshold(Mat_CMRS *cm)
{
  const CMRSArrays *d = &cm->d;
  PetscInt          threshold;

  threshold         = (PetscInt)PetscMin(PETSC_INT_MAX, PetscMax(CMRS_CHUNK_SMALL, PetscMin(PetscMax(CMRS_LONG_MIN, CMRS_LONG_FACTOR * (((PetscInt64)d->nnz + d->nstrips - 1) / d->nstrips)), (PetscInt64)d->nnz / CMRS_LONG_SHARE)));
  cm->small         = (PetscBool)(threshold < CMRS_LONG_MIN);
  cm->longthreshold = cm->longstrip ? cm->longstrip : threshold; /* -mat_cmrs_long_strip, -mat_cmrs_chunk */
  cm->chunk         = cm->chunkset ? cm->chunkset : (cm->small ? CMRS_CHUNK_SMALL_MIN : CMRS_CHUNK);
  if (cm->small && !cm->chunkset)
    while (cm->chunk < CMRS_CHUNK_SMALL && cm->stats.maxlen > (PetscInt64)CMRS_CHUNKS_PER_ROW * cm->chunk) cm->chunk *= 2;
}

/* Lays out the chunks of the cm->nlong strips too long for one warp, cm->nchunks in all (both counted by
   cmrs_strip_ptr_kernel()): one allocation and no copy to the host */
static PetscErrorCode CMRSSplitLongStrips(Mat_CMRS *cm, cudaStream_t stream)
{
  CMRSArrays                    *d       = &cm->d;
  const int                      nstrips = (int)d->nstrips;
  const auto                     policy  = MatGPUFormatThrustPolicy(stream);
  thrust::counting_iterator<int> first(0);
  CMRSIsLong                     islong;

  PetscFunctionBegin;
  islong = CMRSIsLong{d->strip_ptr, (int)cm->longthreshold};
  if (!cm->nlong) PetscFunctionReturn(PETSC_SUCCESS);
  {
    const MatGPUFormatArray arrays[] = {
        {(void **)&cm->partial,    (size_t)cm->nchunks * d->height * sizeof(PetscScalar)},
        {(void **)&cm->longstrips, (size_t)cm->nlong * sizeof(int)                      },
        {(void **)&cm->chunkptr,   (size_t)(cm->nlong + 1) * sizeof(int)                },
        {(void **)&cm->done,       (size_t)cm->nlong * sizeof(unsigned)                 }
    };

    PetscCall(MatGPUFormatDeviceMallocArrays_Private("CMRS", &cm->mem[1], PETSC_STATIC_ARRAY_LENGTH(arrays), arrays));
  }
  MatGPUFormatCallThrust(thrust::copy_if(policy, first, first + nstrips, cm->longstrips, islong));
  MatGPUFormatCallThrust(thrust::transform(policy, cm->longstrips, cm->longstrips + cm->nlong, cm->chunkptr, CMRSChunks{d->strip_ptr, (int)cm->chunk}));
  PetscCallCUDA(cudaMemsetAsync(cm->chunkptr + cm->nlong, 0, sizeof(int), stream));
  MatGPUFormatCallThrust(thrust::exclusive_scan(policy, cm->chunkptr, cm->chunkptr + cm->nlong + 1, cm->chunkptr));
  PetscCallCUDA(cudaMemsetAsync(cm->done, 0, (size_t)cm->nlong * sizeof(unsigned), stream));
  cm->bytes += (cm->nlong * 3 + 1) * sizeof(int) + (PetscLogDouble)cm->nchunks * d->height * sizeof(PetscScalar);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CMRSBuild(void *fmt, const MatGPUFormatCSR *csr)
{
  Mat_CMRS   *cm = (Mat_CMRS *)fmt;
  CMRSArrays *d  = &cm->d;
  size_t      persistent, temporary;
  PetscBool   ranked = PETSC_FALSE, values = PETSC_FALSE;
  int        *flag;

  PetscFunctionBegin;
  PetscCall(CMRSReset(fmt));
  cm->stats  = csr->stats;
  d->m       = csr->m;
  d->n       = csr->n;
  d->nnz     = csr->nnz;
  d->height  = cm->height ? cm->height : CMRSDefaultHeight(&csr->stats);
  d->nstrips = (d->m + d->height - 1) / d->height;
  d->packed  = CMRSPackable(d->n, cm->pack);
  d->sorted  = cm->sort;
  persistent = (size_t)(d->nstrips + 4) * sizeof(int) + (size_t)d->nnz * (sizeof(unsigned) + sizeof(PetscScalar) + (d->packed ? 0 : 1) + (d->sorted ? sizeof(int) : 0));
  temporary  = d->sorted ? (size_t)d->nnz * (sizeof(int) + 2 * sizeof(unsigned long long)) : 0;
  PetscCall(MatGPUFormatCheckDeviceMemory_Private("CMRS", persistent + temporary));
  /* three ints more than the strips need: the ranking's flag and the counts of long strips and their chunks, so that
     none allocates */
  {
    const MatGPUFormatArray arrays[] = {
        {(void **)&d->strip_ptr, (size_t)(d->nstrips + 4) * sizeof(int)              },
        {(void **)&d->colind,    (size_t)d->nnz * sizeof(unsigned)                   },
        {(void **)&d->val,       (size_t)d->nnz * sizeof(PetscScalar)                },
        {(void **)&d->rowin,     d->packed ? 0 : (size_t)d->nnz                      },
        {(void **)&cm->perm,     d->sorted ? (size_t)d->nnz * sizeof(int) : (size_t)0}
    };

    PetscCall(MatGPUFormatDeviceMallocArrays_Private("CMRS", &cm->mem[0], PETSC_STATIC_ARRAY_LENGTH(arrays), arrays));
  }
  cm->bytes = (PetscLogDouble)persistent;
  flag      = d->strip_ptr + d->nstrips + 1;
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "allocate"));

  CMRSLongThreshold(cm);
  PetscCallCUDA(cudaMemsetAsync(flag, 0, 3 * sizeof(int), csr->stream));
  cmrs_strip_ptr_kernel<<<MatGPUFormatGrid(d->nstrips + 1, CMRS_BLOCK), CMRS_BLOCK, 0, csr->stream>>>((int)d->nstrips, (int)d->m, (int)d->height, (int)cm->longthreshold, (int)cm->chunk, csr->rowptr, d->strip_ptr, flag + 1);
  PetscCallCUDA(cudaGetLastError());
  if (d->sorted) PetscCall(CMRSRankStrips(cm, csr, flag, &ranked, &values));
  else {
    int counts[2];

    PetscCallCUDA(cudaMemcpyAsync(counts, flag + 1, sizeof(counts), cudaMemcpyDeviceToHost, csr->stream));
    PetscCallCUDA(cudaStreamSynchronize(csr->stream));
    cm->nlong   = counts[0];
    cm->nchunks = counts[1];
  }
  PetscCall(MatGPUFormatBuildPhase_Private(csr, values ? "strips, columns and values ranked" : "strips and columns ranked"));
  if (!ranked) {
    cmrs_fill_kernel<<<MatGPUFormatGrid(d->nnz, CMRS_BLOCK), CMRS_BLOCK, 0, csr->stream>>>((int)d->m, (int)d->nnz, (int)d->height, d->packed, csr->rowptr, csr->colind, d->colind, d->rowin);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(MatGPUFormatBuildPhase_Private(csr, "strips and columns"));
    if (d->sorted) PetscCall(CMRSSortStrips(cm, csr->stream));
    PetscCall(MatGPUFormatBuildPhase_Private(csr, "sort columns"));
  }
  /* strips of one row ranked in place keep each row's entries in the CSR's order */
  cm->ranked   = (PetscBool)(d->sorted && ranked);
  cm->identity = (PetscBool)(cm->ranked && d->height == 1);
  if (!ranked || !values) {
    PetscCall(MatGPUFormatGatherValues_Private(d->nnz, cm->identity ? NULL : cm->perm, csr->val, d->val, csr->stream)); /* a copy without sorting (perm NULL) */
    PetscCall(MatGPUFormatBuildPhase_Private(csr, "values"));
  }
  PetscCall(CMRSSplitLongStrips(cm, csr->stream));
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "long strips"));
  /* short strips of irregular rows (x gathers that miss the caches) want more loads in flight per warp */
  cm->group = cm->spw ? cm->spw : ((PetscInt64)d->nnz <= (PetscInt64)CMRS_SHORT_MEAN * d->nstrips && csr->stats.stddev > csr->stats.mean ? CMRS_GROUP : 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CMRSRefresh(void *fmt, const MatGPUFormatCSR *csr)
{
  Mat_CMRS *cm = (Mat_CMRS *)fmt;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatGatherValues_Private(cm->d.nnz, cm->identity ? NULL : cm->perm, csr->val, cm->d.val, csr->stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ the format interface */

static PetscErrorCode CMRSCreate(void **fmt)
{
  Mat_CMRS *cm;

  PetscFunctionBegin;
  PetscCall(PetscNew(&cm));
  cm->pack     = PETSC_TRUE;
  cm->sort     = PETSC_TRUE;
  cm->warpsort = PETSC_TRUE;
  cm->group    = 1;
  *fmt         = cm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CMRSCopyParams(const void *src, void *dst)
{
  const Mat_CMRS *a = (const Mat_CMRS *)src;
  Mat_CMRS       *b = (Mat_CMRS *)dst;

  PetscFunctionBegin;
  b->height    = a->height;
  b->sort      = a->sort;
  b->warpsort  = a->warpsort;
  b->pack      = a->pack;
  b->spw       = a->spw;
  b->longstrip = a->longstrip;
  b->chunkset  = a->chunkset;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CMRSSameParams(const void *pa, const void *pb, PetscBool *same)
{
  const Mat_CMRS *a = (const Mat_CMRS *)pa, *b = (const Mat_CMRS *)pb;

  PetscFunctionBegin;
  *same = (PetscBool)(a->height == b->height && a->sort == b->sort && a->warpsort == b->warpsort && a->pack == b->pack && a->spw == b->spw && a->longstrip == b->longstrip && a->chunkset == b->chunkset);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CMRSSetFromOptions(void *fmt, MatGPUFormatOptionItems PetscOptionsObject)
{
  Mat_CMRS *cm     = (Mat_CMRS *)fmt;
  PetscInt  height = cm->height, spw, longstrip = cm->longstrip, chunk = cm->chunkset;
  PetscBool set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsInt("-mat_cmrs_height", "Rows per strip: 1, 2, 4, 8 or 16; 0 chooses from the mean row length", "MatCMRSSetHeight", height, &height, &set));
  if (set && height) PetscCall(CMRSCheckHeight(height));
  if (set) cm->height = height;
  PetscCall(PetscOptionsBool("-mat_cmrs_sort_columns", "Sort the entries of each strip by column", "MatCMRSSetSortColumns", cm->sort, &cm->sort, NULL));
  spw = cm->spw;
  PetscCall(PetscOptionsInt("-mat_cmrs_strips_per_warp", "Strips a warp loads at once: 1, 2 or 4; 0 chooses from the mean strip", "MATSEQCMRS", spw, &spw, NULL));
  PetscCheck(spw == 0 || spw == 1 || spw == 2 || spw == 4, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_cmrs_strips_per_warp %" PetscInt_FMT " is not one of 0, 1, 2, 4", spw);
  cm->spw = spw;
  PetscCall(PetscOptionsBool("-mat_cmrs_warp_sort", "Build: a warp sorts each strip of at most 128 entries (packed indices) instead of ranking its entries by binary searches", "MATSEQCMRS", cm->warpsort, &cm->warpsort, NULL));
  PetscCall(PetscOptionsBool("-mat_cmrs_pack_columns", "Pack the row in strip into the column index when the columns fit in 28 bits", "MATSEQCMRS", cm->pack, &cm->pack, NULL));
  PetscCall(PetscOptionsInt("-mat_cmrs_long_strip", "Strips with more entries are split into chunks, a warp each; 0 chooses from the entries", "MATSEQCMRS", longstrip, &longstrip, NULL));
  PetscCheck(longstrip >= 0 && longstrip <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_cmrs_long_strip %" PetscInt_FMT " is not in [0, %d]", longstrip, PETSC_INT32_MAX);
  PetscCall(PetscOptionsInt("-mat_cmrs_chunk", "Entries per chunk of a split strip, 32 to 4096; 0 chooses from the entries", "MATSEQCMRS", chunk, &chunk, NULL));
  PetscCheck(chunk == 0 || (chunk >= 32 && chunk <= CMRS_CHUNK_MAX), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_cmrs_chunk %" PetscInt_FMT " is neither 0 nor in [32, %d]", chunk, CMRS_CHUNK_MAX);
  cm->longstrip = longstrip;
  cm->chunkset  = chunk;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CMRSView(void *fmt, PetscViewer viewer)
{
  const Mat_CMRS *cm = (const Mat_CMRS *)fmt;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "strip height %" PetscInt_FMT " (%s), %" PetscInt_FMT " strips\n", cm->d.height, cm->height ? "set" : "chosen from the mean row length", cm->d.nstrips));
  PetscCall(PetscViewerASCIIPrintf(viewer, "%" PetscInt_FMT " strip%s per warp (%s)\n", cm->group, cm->group > 1 ? "s" : "", cm->spw ? "set" : "chosen from the mean strip length"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "column indices %s; entries %s\n", cm->d.packed ? "packed with the row in strip (28-bit columns)" : "with a separate row-in-strip array",
                                   cm->d.sorted ? "sorted by column within strips" : "in CSR order"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "row lengths: mean %.2f, standard deviation %.2f, longest %" PetscInt_FMT "; %" PetscInt_FMT " of %" PetscInt_FMT " rows nonempty\n", cm->stats.mean, cm->stats.stddev, cm->stats.maxlen,
                                   cm->stats.nzrows, cm->d.m));
  if (cm->nlong)
    PetscCall(PetscViewerASCIIPrintf(viewer, "long strips: %" PetscInt_FMT " strips of more than %" PetscInt_FMT " entries (%s) split into %" PetscInt_FMT " chunks of %" PetscInt_FMT " (%s)\n", cm->nlong, cm->longthreshold, cm->longstrip ? "set" : "chosen", cm->nchunks, cm->chunk,
                                     cm->chunkset ? "set" : "chosen"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CMRSMemory(void *fmt, PetscLogDouble *bytes)
{
  PetscFunctionBegin;
  *bytes = ((Mat_CMRS *)fmt)->bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

MatGPUFormatOps MatCMRSOps = {"cmrs", "CMRS", MATSEQCMRS, MATMPICMRS, CMRSCreate, CMRSCopyParams, CMRSSameParams, CMRSSetFromOptions, CMRSBuild, CMRSRefresh, CMRSMult, CMRSReset, CMRSView, CMRSMemory, 0, 0, CMRSMultRefresh};

/*MC
   MATSEQCMRS - "seqaijcusparsecmrs" - A sequential `MATSEQAIJCUSPARSE` matrix that multiplies on the GPU
   in CMRS (Compressed Multi-Row Storage), the format of Koza, Matyka, Szkoda and Miroslaw, "Compressed
   multirow storage format for sparse matrices on graphics processing units", SIAM J. Sci. Comput. 36 (2014).

   CMRS is CSR whose unit is a strip of `height` consecutive rows, read by one warp: the values and columns
   are those of CSR, `StripPtr` points to the first entry of each strip and the row of each entry within its
   strip is packed into the low 4 bits of its column index. For the 4 x 4 matrix
.vb
      [ 1 7 0 0 ]
      [ 0 2 8 0 ]      height 2:  StripPtr = [0 4 9]
      [ 5 0 3 9 ]                 Val      = [1 7 2 8 | 5 3 9 6 4]
      [ 0 6 0 4 ]                 Col      = [0 1 1 2 | 0 2 3 1 3],  RowInStrip = [0 0 1 1 | 0 0 0 1 1]
.ve
   and the kernel stores Col << 4 | RowInStrip (a separate RowInStrip array when the columns do not fit in
   28 bits). Each lane of the warp sums its entries per row; the warp then reduces the `height` rows.
   Strips much longer than the average are split across several warps. All other operations are those of
   `MATSEQAIJCUSPARSE`; `MatMultTranspose()` uses cuSPARSE.

   Options Database Keys:
+  -mat_type cmrs - sets the type (with `MatSetFromOptions()`), or converts an assembled `MATSEQAIJCUSPARSE` in place
.  -mat_cmrs_height <h> - rows per strip, 1, 2, 4, 8 or 16; 0 (default) chooses from the mean row length
.  -mat_cmrs_sort_columns <bool> - sort the entries of each strip by column (default true: measured faster, see bench/README.md)
.  -mat_cmrs_strips_per_warp <n> - strips a warp loads at once, 1, 2 or 4; 0 (default) chooses from the mean strip length
.  -mat_cmrs_long_strip <n> - strips of more than n entries are split into chunks, a warp each; 0 (default) chooses from the entries
.  -mat_cmrs_chunk <n> - entries per chunk of a split strip, 32 to 4096; 0 (default): under about 2 million entries 128, 256 or 512, the least that leaves at most 64 chunks to the longest row, else 1024
.  -mat_cmrs_warp_sort <bool> - build: a warp sorts each strip where every strip has at most 128 entries and the column indices are packed, instead of placing each entry by binary searches; where the rows are skewed and the matrix has more than 2^20 entries, each strip of at most 128 entries, the longer strips' entries then a thread each (default true)
-  -mat_cmrs_pack_columns <bool> - pack the row in strip into the column index when possible (default true)

   Level: beginner

   Notes:
   Load the plugin with `-dll_append libpetscgpuformats.so` or call `PetscGPUFormatsInitializePackage()`.
   Requires a PETSc with CUDA, real double scalars and 32-bit `PetscInt`. The format is built on the GPU
   at the first product after a change of the nonzero pattern (event CMRSBuild) and its values refreshed
   after a change of values (event CMRSValues).

.seealso: [](ch_matrices), `Mat`, `MATCMRS`, `MATSEQAIJCUSPARSE`, `MatCMRSSetHeight()`, `MatGPUFormatGetDeviceMemory()`
M*/
PetscErrorCode MatCreate_SeqCMRS(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_SeqGPUFormat_Private(A, &MatCMRSOps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatCMRSSetHeight - Sets the number of rows per strip of a `MATSEQCMRS` matrix

  Logically Collective

  Input Parameters:
+ A      - the matrix
- height - 1, 2, 4, 8 or 16; 0 chooses it from the mean row length at the next build

  Options Database Key:
. -mat_cmrs_height <height> - the strip height

  Level: intermediate

  Note:
  Does nothing when `A` is not a `MATSEQCMRS` matrix. The format is rebuilt at the next product.

.seealso: [](ch_matrices), `Mat`, `MATSEQCMRS`, `MatCMRSGetHeight()`
@*/
PetscErrorCode MatCMRSSetHeight(Mat A, PetscInt height)
{
  Mat_CMRS *cm;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveInt(A, height, 2);
  if (height) PetscCall(CMRSCheckHeight(height));
  PetscCall(MatGPUFormatGetFormat_Private(A, &MatCMRSOps, (void **)&cm));
  if (!cm || cm->height == height) PetscFunctionReturn(PETSC_SUCCESS);
  cm->height = height;
  PetscCall(MatGPUFormatInvalidate_Private(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatCMRSGetHeight - Gets the number of rows per strip of a `MATSEQCMRS` matrix

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameter:
. height - the height of the strips built at the last product, or the requested height (0: automatic)
  before the first one

  Level: intermediate

.seealso: [](ch_matrices), `Mat`, `MATSEQCMRS`, `MatCMRSSetHeight()`
@*/
PetscErrorCode MatCMRSGetHeight(Mat A, PetscInt *height)
{
  Mat_CMRS *cm;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(height, 2);
  PetscCall(MatGPUFormatRequireFormat_Private(A, &MatCMRSOps, (void **)&cm));
  *height = cm->d.height ? cm->d.height : cm->height;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatCMRSSetSortColumns - Sets whether the entries of each strip of a `MATSEQCMRS` matrix are sorted by column

  Logically Collective

  Input Parameters:
+ A   - the matrix
- flg - `PETSC_TRUE` to sort (the paper's fourth optimization: neighbouring lanes then read neighbouring parts of x)

  Options Database Key:
. -mat_cmrs_sort_columns <flg> - sort the entries

  Level: intermediate

  Note:
  Does nothing when `A` is not a `MATSEQCMRS` matrix. The format is rebuilt at the next product.

.seealso: [](ch_matrices), `Mat`, `MATSEQCMRS`, `MatCMRSSetHeight()`
@*/
PetscErrorCode MatCMRSSetSortColumns(Mat A, PetscBool flg)
{
  Mat_CMRS *cm;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveBool(A, flg, 2);
  PetscCall(MatGPUFormatGetFormat_Private(A, &MatCMRSOps, (void **)&cm));
  if (!cm || cm->sort == flg) PetscFunctionReturn(PETSC_SUCCESS);
  cm->sort = flg;
  PetscCall(MatGPUFormatInvalidate_Private(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

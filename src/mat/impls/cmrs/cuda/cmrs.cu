/*
   CMRS on the GPU: the device build from cuSPARSE's CSR, the warp-per-strip product, and the format
   interface that the common layer turns into the MATSEQCMRS type.
*/
#include "../cmrs.h"
#include <petsc/private/petscimpl.h>
#include <cub/device/device_segmented_sort.cuh>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>

#define CMRS_BLOCK  256 /* threads per block */
#define CMRS_WARPS  (CMRS_BLOCK / 32)
#define CMRS_UNROLL 4 /* entries each lane loads before it uses the first (memory-level parallelism) */
/*
   A strip with more than max(CMRS_LONG_MIN, CMRS_LONG_FACTOR x the mean strip) entries would keep one warp
   busy long after the others finish (the paper's lp1 weakness): it is split into chunks of CMRS_CHUNK
   entries, one warp each. Each chunk stores its per-row partial sums; the warp that finishes the last chunk
   of a strip (a counter per strip) adds them up in chunk order, so the result does not depend on timing.
   A small matrix has too few warps to hide its longest one, which then is the product's time (a strip of 4,000
   entries is 31 dependent steps of one warp: the circuit-like matrix of 6,000 rows took 14.6 us on an H100, 1.4
   times cuSPARSE): there a strip is also long past 1 / CMRS_LONG_SHARE of all entries (at least CMRS_CHUNK_SMALL),
   and is split into chunks of the fewest entries of CMRS_CHUNK_SMALL_MIN, twice that, ... up to CMRS_CHUNK_SMALL, that
   leave at most CMRS_CHUNKS_PER_ROW chunks to the longest row. A chunk of 128 entries is one step of its warp, but the
   last warp of a strip reads every chunk's partial sums, and the chunks of a strip count on one atomic counter: on an
   H100, chunks of 128 took the circuit-like matrices of 6,000, 20,000 and 100,000 rows (longest rows 3,815, 5,747 and
   3,904) from 6.6, 7.4 and 11.1 us (chunks of 512) to 5.8, 6.6 and 8.7, R-MAT of scale 14 from 8.6 to 7.1, but the
   LP-like matrix (rows of 25,196 entries) from 7.9 to 11.1 (bench/results/h100/cmrs-chunks.md). From about 2 million
   entries on, nnz / CMRS_LONG_SHARE exceeds CMRS_LONG_MIN and the rule is the one above. -mat_cmrs_long_strip and
   -mat_cmrs_chunk set the threshold and the chunk instead.
*/
#define CMRS_LONG_MIN        4096
#define CMRS_LONG_FACTOR     8
#define CMRS_CHUNK           1024
#define CMRS_LONG_SHARE      512
#define CMRS_CHUNK_SMALL     512
#define CMRS_CHUNK_SMALL_MIN 128
#define CMRS_CHUNKS_PER_ROW  64
#define CMRS_CHUNK_MAX       4096 /* -mat_cmrs_chunk: a chunk's end, its first entry plus the chunk, stays within int (MATGPUFORMAT_MAX_NNZ) */
/* The one-pass ranking of a build takes one warp per strip unless the longest row exceeds both CMRS_RANK_WARP_MAX / height
   entries (a warp's 64 passes) and CMRS_RANK_SKEW times the mean row; then one thread per entry */
#define CMRS_RANK_WARP_MAX 2048
#define CMRS_RANK_SKEW     8.0
/*
   A warp may take 2 or 4 consecutive strips and issue all their loads at once (when each has at most
   32 CMRS_UNROLL entries; a longer one in the group sends the warp through the strips one by one). By
   default it takes CMRS_GROUP when the mean strip has at most CMRS_SHORT_MEAN entries and the row lengths
   vary more than their mean (measured in bench/README.md: it pays where x gathers miss the caches, and
   costs 9 to 25% on stencils, whose x stays in cache).
*/
#define CMRS_GROUP      4
#define CMRS_SHORT_MEAN 96

typedef struct {
  /* parameters */
  PetscInt  height;    /* 0: chosen from the row lengths at build time */
  PetscBool sort;      /* sort the entries of each strip by column */
  PetscBool pack;      /* pack the row in strip into the column index when the columns fit */
  PetscInt  spw;       /* strips per warp, 1, 2 or 4; 0: chosen from the mean strip at build time */
  PetscInt  longstrip; /* strips with more entries are split into chunks; 0: chosen at build time */
  PetscInt  chunkset;  /* entries per chunk of a split strip; 0: chosen at build time */
  /* the matrix, on the device */
  CMRSArrays d;
  int       *perm;     /* sorted only: CSR position of each entry, for value refreshes */
  PetscBool  identity; /* perm is the identity (strips of one row ranked from rows sorted by column): not read */
  PetscInt   group;    /* strips per warp in use */
  PetscInt   longthreshold, nlong, nchunks;
  PetscInt   chunk;                /* entries per chunk of a long strip: CMRS_CHUNK, or CMRS_CHUNK_SMALL_MIN to CMRS_CHUNK_SMALL below CMRS_LONG_MIN */
  PetscBool  small;                /* the chosen threshold is below CMRS_LONG_MIN (under about 2 M entries): the fused refresh
                                      stays with split strips */
  int                 *longstrips; /* nlong strips split into chunks */
  int                 *chunkptr;   /* nlong + 1: chunks of long strip l are [chunkptr[l], chunkptr[l+1]) */
  PetscScalar         *partial;    /* nchunks x height partial row sums */
  unsigned            *done;       /* nlong chunk counters, back to 0 after each product */
  MatGPUFormatRowStats stats;
  PetscLogDouble       bytes;
  MatGPUFormatScratch  scratch; /* the build's device temporaries */
  void                *mem[3];  /* the device allocations that hold the arrays: d's and perm; longstrips, chunkptr and done; partial */
} Mat_CMRS;

struct CMRSKernelArgs {
  int                  m, nstrips, nlong, nchunks, longthreshold, chunk;
  const int           *strip_ptr;
  const unsigned      *colind;
  const unsigned char *rowin;
  const PetscScalar   *val;
  const int           *longstrips, *chunkptr;
  PetscScalar         *partial;
  unsigned            *done;
};

/* With the refresh fused into the product: the new values (CSR order), the CSR entry of each CMRS entry (NULL: the same
   order, also when sorted), and the entries' values to store them in */
struct CMRSRefreshArgs {
  const PetscScalar *csrval;
  const int         *perm;
  PetscScalar       *val;
};

/* The new value of CMRS entry j, from the CSR (the refresh fused into the product; the caller stores it in the format) */
template <bool SORTED>
__device__ __forceinline__ PetscScalar cmrs_new_value(const CMRSRefreshArgs &f, int j)
{
  return __ldg(f.csrval + (SORTED && f.perm ? __ldcs(f.perm + j) : j));
}

template <int H, bool PACKED>
__device__ __forceinline__ int cmrs_row(const CMRSKernelArgs &a, unsigned c, int j)
{
  if constexpr (H == 1) return 0;
  else if constexpr (PACKED) return (int)(c & (H - 1));
  else return (int)__ldcs(a.rowin + j);
}

template <bool PACKED>
__device__ __forceinline__ unsigned cmrs_col(unsigned c)
{
  return PACKED ? c >> CMRS_BITS : c;
}

/*
   The per-row sums of one warp over the entries of one strip; finish() leaves row r in lane r < H. Each
   lane accumulates its entries into a private slot per row, buf[r * 32 + lane] (in CSR order a lane's rows
   never decrease, so it writes each slot once, when its row changes); then lane l adds the H slots
   k H .. k H + H - 1 of row r = l mod H (k = l / H), starting at a rotation by r so that the 16 lanes of
   each half warp touch 16 different banks, and the 32 / H lanes of a row combine by shuffles.
*/
template <int H, bool SORTED>
struct CMRSAccumulator {
  PetscScalar *buf;
  int          lane, cur = 0;
  PetscScalar  acc = 0.0;

  __device__ CMRSAccumulator(PetscScalar *b, int l) : buf(b), lane(l)
  {
    if constexpr (H > 1) {
#pragma unroll
      for (int r = 0; r < H; r++) buf[r * 32 + lane] = 0.0;
    }
  }
  __device__ void add(int r, PetscScalar v)
  {
    if constexpr (H == 1) acc += v;
    else if constexpr (SORTED) buf[r * 32 + lane] += v;
    else {
      if (r != cur) {
        buf[cur * 32 + lane] = acc;
        acc                  = 0.0;
        cur                  = r;
      }
      acc += v;
    }
  }
  __device__ PetscScalar finish()
  {
    if constexpr (H == 1) {
      return MatGPUFormatWarpSum(acc);
    } else {
      PetscScalar s = 0.0;
      const int   r = lane & (H - 1), k = lane / H;

      if constexpr (!SORTED) buf[cur * 32 + lane] = acc;
      __syncwarp();
#pragma unroll
      for (int t = 0; t < H; t++) s += buf[r * 32 + k * H + ((t + r) & (H - 1))];
#pragma unroll
      for (int off = H; off < 32; off <<= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
      __syncwarp();
      return s;
    }
  }
};

/* The row sums of the entries [b, e) of one strip (or chunk of a strip), by one warp */
template <int H, bool PACKED, bool SORTED, bool REFRESH>
__device__ __forceinline__ PetscScalar cmrs_warp_sum(const CMRSKernelArgs &a, const CMRSRefreshArgs &f, int b, int e, const PetscScalar *__restrict__ x, PetscScalar *buf, int lane)
{
  CMRSAccumulator<H, SORTED> acc(buf, lane);

  /* all loads of a step are issued before the first product: one memory round trip per 32 CMRS_UNROLL entries */
  for (int j = b + lane; j < e; j += CMRS_UNROLL * 32) {
    unsigned    c[CMRS_UNROLL];
    PetscScalar v[CMRS_UNROLL];

#pragma unroll
    for (int u = 0; u < CMRS_UNROLL; u++) {
      const bool in = j + 32 * u < e;

      c[u] = in ? __ldcs(a.colind + j + 32 * u) : 0;
      if constexpr (REFRESH) v[u] = in ? cmrs_new_value<SORTED>(f, j + 32 * u) : 0.0;
      else v[u] = in ? __ldcs(a.val + j + 32 * u) : 0.0;
    }
    if constexpr (REFRESH) { /* the gathers of x issued before the new values are stored, whatever the compiler concludes
                                about f.val and x aliasing: a step then waits for one round trip less */
      PetscScalar xv[CMRS_UNROLL];

#pragma unroll
      for (int u = 0; u < CMRS_UNROLL; u++) xv[u] = j + 32 * u < e ? __ldg(x + cmrs_col<PACKED>(c[u])) : 0.0;
#pragma unroll
      for (int u = 0; u < CMRS_UNROLL; u++)
        if (j + 32 * u < e) {
          f.val[j + 32 * u] = v[u];
          v[u] *= xv[u];
        }
    } else {
#pragma unroll
      for (int u = 0; u < CMRS_UNROLL; u++)
        if (j + 32 * u < e) v[u] *= __ldg(x + cmrs_col<PACKED>(c[u]));
    }
#pragma unroll
    for (int u = 0; u < CMRS_UNROLL; u++)
      if (j + 32 * u < e) acc.add(cmrs_row<H, PACKED>(a, c[u], j + 32 * u), v[u]);
  }
  return acc.finish();
}

/*
   NS consecutive strips s0 .. s0 + NS - 1 of at most 32 CMRS_UNROLL entries each, by one warp: the loads of
   all of them are issued before the first product, so that short strips do not leave the warp waiting on
   one memory round trip per strip. bnd[k] (lane k <= NS) is the first entry of strip s0 + k.
*/
template <int H, bool PACKED, bool SORTED, bool ADD, int NS, bool REFRESH>
__device__ __forceinline__ void cmrs_short_strips(const CMRSKernelArgs &a, const CMRSRefreshArgs &f, int s0, int bnd, const PetscScalar *__restrict__ x, const PetscScalar *y, PetscScalar *z, PetscScalar *buf, int lane)
{
  int         b[NS + 1];
  unsigned    c[NS][CMRS_UNROLL];
  PetscScalar v[NS][CMRS_UNROLL];

#pragma unroll
  for (int k = 0; k <= NS; k++) b[k] = __shfl_sync(0xffffffffu, bnd, k);
#pragma unroll
  for (int k = 0; k < NS; k++) {
#pragma unroll
    for (int u = 0; u < CMRS_UNROLL; u++) {
      const int  j  = b[k] + lane + 32 * u;
      const bool in = j < b[k + 1];

      c[k][u] = in ? __ldcs(a.colind + j) : 0;
      static_assert(!REFRESH, "the fused refresh runs one strip per warp");
      v[k][u] = in ? __ldcs(a.val + j) : 0.0;
    }
  }
#pragma unroll
  for (int k = 0; k < NS; k++) {
#pragma unroll
    for (int u = 0; u < CMRS_UNROLL; u++)
      if (b[k] + lane + 32 * u < b[k + 1]) v[k][u] *= __ldg(x + cmrs_col<PACKED>(c[k][u]));
  }
#pragma unroll
  for (int k = 0; k < NS; k++) {
    CMRSAccumulator<H, SORTED> acc(buf, lane);

#pragma unroll
    for (int u = 0; u < CMRS_UNROLL; u++) {
      const int j = b[k] + lane + 32 * u;

      if (j < b[k + 1]) acc.add(cmrs_row<H, PACKED>(a, c[k][u], j), v[k][u]);
    }
    const PetscScalar sum = acc.finish();
    const long long   row = (long long)(s0 + k) * H + lane;

    if (s0 + k < a.nstrips && lane < H && row < a.m) z[row] = ADD ? y[row] + sum : sum;
  }
}

/*
   One warp per chunk of the long strips (first, so that they start first), then one warp per NS strips.
   Strips with more than longthreshold entries are left to the chunk warps. y may alias z.
*/
template <int H, bool PACKED, bool SORTED, bool ADD, int NS, bool REFRESH>
__device__ __forceinline__ void cmrs_mult_body(const CMRSKernelArgs a, const CMRSRefreshArgs f, const PetscScalar *__restrict__ x, const PetscScalar *y, PetscScalar *z, PetscScalar (*buf)[H > 1 ? H * 32 : 1])
{
  const int       lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const long long gw      = (long long)blockIdx.x * CMRS_WARPS + w;
  const int       ngroups = (a.nstrips + NS - 1) / NS;

  if (gw >= a.nchunks && gw < (long long)a.nchunks + ngroups) {
    const int s0 = (int)(gw - a.nchunks) * NS;

    if constexpr (NS > 1) {
      const int bnd = a.strip_ptr[min(s0 + min(lane, NS), a.nstrips)];
      int       len = __shfl_down_sync(0xffffffffu, bnd, 1) - bnd;

      len = lane < NS ? len : 0;
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) len = max(len, __shfl_xor_sync(0xffffffffu, len, off));
      if (len <= 32 * CMRS_UNROLL && len <= a.longthreshold) { /* none of them left to the chunk warps (-mat_cmrs_long_strip) */
        cmrs_short_strips<H, PACKED, SORTED, ADD, NS, REFRESH>(a, f, s0, bnd, x, y, z, buf[w], lane);
        return;
      }
    }
    for (int k = 0; k < NS && s0 + k < a.nstrips; k++) {
      const int s = s0 + k, b = a.strip_ptr[s], e = a.strip_ptr[s + 1];

      if (e - b > a.longthreshold) continue;
      const PetscScalar sum = cmrs_warp_sum<H, PACKED, SORTED, REFRESH>(a, f, b, e, x, buf[w], lane);
      const long long   row = (long long)s * H + lane;

      if (lane < H && row < a.m) z[row] = ADD ? y[row] + sum : sum;
    }
  } else if (gw < a.nchunks) {
    const int c  = (int)gw;
    int       lo = 0, hi = a.nlong - 1;
    unsigned  last = 0;

    while (lo < hi) { /* the long strip of chunk c: the last l with chunkptr[l] <= c */
      const int mid = (lo + hi + 1) >> 1;

      if (a.chunkptr[mid] <= c) lo = mid;
      else hi = mid - 1;
    }
    const int         s = a.longstrips[lo], c0 = a.chunkptr[lo], c1 = a.chunkptr[lo + 1];
    const int         b = a.strip_ptr[s] + (c - c0) * a.chunk, e = min(a.strip_ptr[s + 1], b + a.chunk);
    const PetscScalar sum = cmrs_warp_sum<H, PACKED, SORTED, REFRESH>(a, f, b, e, x, buf[w], lane);

    if (lane < H) a.partial[(size_t)c * H + lane] = sum;
    __threadfence(); /* the partial sums are visible before the counter moves */
    __syncwarp();
    if (lane == 0) last = atomicAdd(a.done + lo, 1u) == (unsigned)(c1 - c0 - 1);
    last = __shfl_sync(0xffffffffu, last, 0);
    if (!last) return;
    __threadfence();
    { /* the last chunk of strip s adds the partial sums, lane r mod H for row r, in a fixed order */
      const int       r = lane & (H - 1), k = lane / H;
      const long long row = (long long)s * H + r;
      PetscScalar     t   = 0.0;

#pragma unroll 4
      for (int q = c0 + k; q < c1; q += 32 / H) t += __ldcg(a.partial + (size_t)q * H + r);
#pragma unroll
      for (int off = H; off < 32; off <<= 1) t += __shfl_xor_sync(0xffffffffu, t, off);
      if (k == 0 && row < a.m) z[row] = ADD ? y[row] + t : t;
    }
    if (lane == 0) a.done[lo] = 0;
  }
}

/* The product alone; its signature is that of the product before the fused refresh, so that its code is too */
template <int H, bool PACKED, bool SORTED, bool ADD, int NS>
__global__ static void __launch_bounds__(CMRS_BLOCK) cmrs_mult_kernel(const CMRSKernelArgs a, const PetscScalar *__restrict__ x, const PetscScalar *y, PetscScalar *z)
{
  __shared__ PetscScalar buf[CMRS_WARPS][H > 1 ? H * 32 : 1];
  const CMRSRefreshArgs  none = {NULL, NULL, NULL};

  cmrs_mult_body<H, PACKED, SORTED, ADD, NS, false>(a, none, x, y, z, buf);
}

/* The product with the refresh fused into it, one strip per warp */
template <int H, bool PACKED, bool SORTED, bool ADD>
__global__ static void __launch_bounds__(CMRS_BLOCK) cmrs_mult_refresh_kernel(const CMRSKernelArgs a, const CMRSRefreshArgs f, const PetscScalar *__restrict__ x, const PetscScalar *y, PetscScalar *z)
{
  __shared__ PetscScalar buf[CMRS_WARPS][H > 1 ? H * 32 : 1];

  cmrs_mult_body<H, PACKED, SORTED, ADD, 1, true>(a, f, x, y, z, buf);
}

static inline unsigned CMRSBlocks(long long warps)
{
  return (unsigned)((warps + CMRS_WARPS - 1) / CMRS_WARPS);
}

/* f: NULL for the product alone, else the new values it takes and stores (the refresh fused into it; one strip per warp
   then, whatever the strips per warp: one such product per change of values, and half the kernels to compile) */
template <int H, bool PACKED, bool SORTED>
static PetscErrorCode CMRSLaunch(const Mat_CMRS *cm, const CMRSRefreshArgs *f, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  const CMRSKernelArgs a      = {(int)cm->d.m, (int)cm->d.nstrips, (int)cm->nlong, (int)cm->nchunks, (int)cm->longthreshold, (int)cm->chunk, cm->d.strip_ptr, cm->d.colind, cm->d.rowin, cm->d.val, cm->longstrips, cm->chunkptr, cm->partial, cm->done};
  const unsigned       blocks = CMRSBlocks((cm->d.nstrips + cm->group - 1) / cm->group + cm->nchunks);

  PetscFunctionBegin;
  if (f) {
    const unsigned blocks1 = CMRSBlocks(cm->d.nstrips + cm->nchunks);

    if (y) cmrs_mult_refresh_kernel<H, PACKED, SORTED, true><<<blocks1, CMRS_BLOCK, 0, stream>>>(a, *f, x, y, z);
    else cmrs_mult_refresh_kernel<H, PACKED, SORTED, false><<<blocks1, CMRS_BLOCK, 0, stream>>>(a, *f, x, NULL, z);
    PetscCallCUDA(cudaGetLastError());
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  switch (cm->group) {
  case 1:
    if (y) cmrs_mult_kernel<H, PACKED, SORTED, true, 1><<<blocks, CMRS_BLOCK, 0, stream>>>(a, x, y, z);
    else cmrs_mult_kernel<H, PACKED, SORTED, false, 1><<<blocks, CMRS_BLOCK, 0, stream>>>(a, x, NULL, z);
    break;
  case 2:
    if (y) cmrs_mult_kernel<H, PACKED, SORTED, true, 2><<<blocks, CMRS_BLOCK, 0, stream>>>(a, x, y, z);
    else cmrs_mult_kernel<H, PACKED, SORTED, false, 2><<<blocks, CMRS_BLOCK, 0, stream>>>(a, x, NULL, z);
    break;
  case 4:
    if (y) cmrs_mult_kernel<H, PACKED, SORTED, true, 4><<<blocks, CMRS_BLOCK, 0, stream>>>(a, x, y, z);
    else cmrs_mult_kernel<H, PACKED, SORTED, false, 4><<<blocks, CMRS_BLOCK, 0, stream>>>(a, x, NULL, z);
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "CMRS has no kernel for %" PetscInt_FMT " strips per warp", cm->group);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int H>
static PetscErrorCode CMRSLaunchHeight(const Mat_CMRS *cm, const CMRSRefreshArgs *f, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (cm->d.packed) PetscCall(cm->d.sorted ? CMRSLaunch<H, true, true>(cm, f, x, y, z, stream) : CMRSLaunch<H, true, false>(cm, f, x, y, z, stream));
  else PetscCall(cm->d.sorted ? CMRSLaunch<H, false, true>(cm, f, x, y, z, stream) : CMRSLaunch<H, false, false>(cm, f, x, y, z, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
   without sorted columns), as CMRSRefresh() does, in the same pass. Only for strips that are one warp's each and none
   split into chunks: with long strips (R-MAT, the circuit-like matrix) the fused pass took 116 and 146 us on an H200
   where the separate gather and product took 92 and 131 (173 and 255 against 123 and 175 on an H100), so there the
   values are gathered first, then multiplied (two launches). Those were large matrices; in a small one (below
   CMRS_LONG_MIN: long strips split into chunks of CMRS_CHUNK_SMALL_MIN to CMRS_CHUNK_SMALL) the second launch costs more than the fused pass adds, so it stays fused */
static PetscErrorCode CMRSMultRefresh(void *fmt, const MatGPUFormatCSR *csr, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  Mat_CMRS             *cm = (Mat_CMRS *)fmt;
  const CMRSRefreshArgs f  = {csr->val, cm->identity ? NULL : cm->perm, cm->d.val};

  PetscFunctionBegin;
  if ((cm->nlong && !cm->small) || cm->group > 1) {
    PetscCall(MatGPUFormatGatherValues_Private(cm->d.nnz, cm->identity ? NULL : cm->perm, csr->val, cm->d.val, stream));
    PetscCall(CMRSMultPossiblyRefresh(cm, NULL, x, y, z, stream));
  } else PetscCall(CMRSMultPossiblyRefresh(cm, &f, x, y, z, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ device build */

__global__ static void cmrs_strip_ptr_kernel(int nstrips, int m, int height, const int *__restrict__ rowptr, int *__restrict__ strip_ptr)
{
  for (long long s = blockIdx.x * (long long)blockDim.x + threadIdx.x; s <= nstrips; s += (long long)gridDim.x * blockDim.x) strip_ptr[s] = rowptr[min(s * height, (long long)m)];
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
__device__ __forceinline__ static void cmrs_place(int k, int i, int nr, const int *start, const int *__restrict__ colind, unsigned *__restrict__ out, unsigned char *__restrict__ rowin, int *__restrict__ perm, int *__restrict__ unsorted)
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
}

/* One warp per strip, its row offsets in shared memory: for strips of similar lengths */
template <bool PACKED>
__global__ static void __launch_bounds__(CMRS_BLOCK) cmrs_rank_strips_kernel(int nstrips, int m, int height, const int *__restrict__ rowptr, const int *__restrict__ colind, unsigned *__restrict__ out, unsigned char *__restrict__ rowin, int *__restrict__ perm, int *__restrict__ unsorted)
{
  __shared__ int start[CMRS_WARPS][CMRS_MAX_HEIGHT + 1];
  const int      w = threadIdx.x / 32, lane = threadIdx.x % 32;

  for (long long s = blockIdx.x * (long long)CMRS_WARPS + w; s < nstrips; s += (long long)gridDim.x * CMRS_WARPS) {
    const int r0 = (int)(s * height), nr = min(height, m - r0);

    if (lane <= nr) start[w][lane] = rowptr[r0 + lane];
    __syncwarp();
    for (int k = start[w][0] + lane; k < start[w][nr]; k += 32) {
      int lo = 0, hi = nr - 1;

      while (lo < hi) { /* the row of k: the last row of the strip that starts at or before k */
        const int mid = (lo + hi + 1) / 2;

        if (start[w][mid] <= k) lo = mid;
        else hi = mid - 1;
      }
      cmrs_place<PACKED>(k, lo, nr, start[w], colind, out, rowin, perm, unsorted);
    }
    __syncwarp();
  }
}

/* One thread per entry, its row by binary search over all rows: a strip with a row far longer than the others would
   hold one warp of cmrs_rank_strips_kernel long after the rest of the grid has finished */
template <bool PACKED>
__global__ static void __launch_bounds__(CMRS_BLOCK) cmrs_rank_entries_kernel(int nnz, int m, int height, const int *__restrict__ rowptr, const int *__restrict__ colind, unsigned *__restrict__ out, unsigned char *__restrict__ rowin, int *__restrict__ perm, int *__restrict__ unsorted)
{
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < nnz; k += (long long)gridDim.x * blockDim.x) {
    const int row = MatGPUFormatRowOfEntry(rowptr, m, k), r0 = row & ~(height - 1);

    cmrs_place<PACKED>((int)k, row - r0, min(height, m - r0), rowptr + r0, colind, out, rowin, perm, unsorted);
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

/* The strips and their column indices already sorted, from CSR rows sorted by column (cmrs_rank_kernel): *ranked is false
   when a row was not, and the build then fills and sorts instead */
static PetscErrorCode CMRSRankStrips(Mat_CMRS *cm, const MatGPUFormatCSR *csr, PetscBool *ranked)
{
  CMRSArrays *d    = &cm->d;
  int        *flag = d->strip_ptr + d->nstrips + 1, unsorted = 0; /* the int after the strips' offsets */

  PetscFunctionBegin;
  PetscCallCUDA(cudaMemsetAsync(flag, 0, sizeof(int), csr->stream));
  /* a warp per strip, unless some strip can be far longer than the mean one (a strip holds at most height * maxlen) */
  if ((PetscLogDouble)csr->stats.maxlen > PetscMax((PetscLogDouble)CMRS_RANK_WARP_MAX / d->height, CMRS_RANK_SKEW * csr->stats.mean)) {
    if (d->packed) cmrs_rank_entries_kernel<true><<<MatGPUFormatGrid(d->nnz, CMRS_BLOCK), CMRS_BLOCK, 0, csr->stream>>>((int)d->nnz, (int)d->m, (int)d->height, csr->rowptr, csr->colind, d->colind, d->rowin, cm->perm, flag);
    else cmrs_rank_entries_kernel<false><<<MatGPUFormatGrid(d->nnz, CMRS_BLOCK), CMRS_BLOCK, 0, csr->stream>>>((int)d->nnz, (int)d->m, (int)d->height, csr->rowptr, csr->colind, d->colind, d->rowin, cm->perm, flag);
  } else if (d->packed) cmrs_rank_strips_kernel<true><<<MatGPUFormatGrid(d->nstrips, CMRS_WARPS), CMRS_BLOCK, 0, csr->stream>>>((int)d->nstrips, (int)d->m, (int)d->height, csr->rowptr, csr->colind, d->colind, d->rowin, cm->perm, flag);
  else cmrs_rank_strips_kernel<false><<<MatGPUFormatGrid(d->nstrips, CMRS_WARPS), CMRS_BLOCK, 0, csr->stream>>>((int)d->nstrips, (int)d->m, (int)d->height, csr->rowptr, csr->colind, d->colind, d->rowin, cm->perm, flag);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(&unsorted, flag, sizeof(int), cudaMemcpyDeviceToHost, csr->stream));
  PetscCallCUDA(cudaStreamSynchronize(csr->stream));
  *ranked = unsorted ? PETSC_FALSE : PETSC_TRUE;
  if (unsorted) PetscCall(PetscInfo(NULL, "CMRS: a CSR row is not sorted by column, or has a column twice: the strips are sorted instead\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Finds the strips too long for one warp and lays out their chunks */
static PetscErrorCode CMRSSplitLongStrips(Mat_CMRS *cm, cudaStream_t stream)
{
  CMRSArrays                    *d       = &cm->d;
  const int                      nstrips = (int)d->nstrips;
  const auto                     policy  = MatGPUFormatThrustPolicy(stream);
  thrust::counting_iterator<int> first(0);
  CMRSIsLong                     islong;
  int                            nchunks;
  PetscInt                       threshold;

  PetscFunctionBegin;
  threshold         = (PetscInt)PetscMin(PETSC_INT_MAX, PetscMax(CMRS_CHUNK_SMALL, PetscMin(PetscMax(CMRS_LONG_MIN, CMRS_LONG_FACTOR * (((PetscInt64)d->nnz + d->nstrips - 1) / d->nstrips)), (PetscInt64)d->nnz / CMRS_LONG_SHARE)));
  cm->small         = (PetscBool)(threshold < CMRS_LONG_MIN);
  cm->longthreshold = cm->longstrip ? cm->longstrip : threshold; /* -mat_cmrs_long_strip, -mat_cmrs_chunk */
  cm->chunk         = cm->chunkset ? cm->chunkset : (cm->small ? CMRS_CHUNK_SMALL_MIN : CMRS_CHUNK);
  if (cm->small && !cm->chunkset)
    while (cm->chunk < CMRS_CHUNK_SMALL && cm->stats.maxlen > (PetscInt64)CMRS_CHUNKS_PER_ROW * cm->chunk) cm->chunk *= 2;
  islong = CMRSIsLong{d->strip_ptr, (int)cm->longthreshold};
  MatGPUFormatCallThrust(cm->nlong = thrust::count_if(policy, first, first + nstrips, islong));
  if (!cm->nlong) PetscFunctionReturn(PETSC_SUCCESS);
  {
    const MatGPUFormatArray arrays[] = {
        {(void **)&cm->longstrips, (size_t)cm->nlong * sizeof(int)      },
        {(void **)&cm->chunkptr,   (size_t)(cm->nlong + 1) * sizeof(int)},
        {(void **)&cm->done,       (size_t)cm->nlong * sizeof(unsigned) }
    };

    PetscCall(MatGPUFormatDeviceMallocArrays_Private("CMRS", &cm->mem[1], PETSC_STATIC_ARRAY_LENGTH(arrays), arrays));
  }
  MatGPUFormatCallThrust(thrust::copy_if(policy, first, first + nstrips, cm->longstrips, islong));
  MatGPUFormatCallThrust(thrust::transform(policy, cm->longstrips, cm->longstrips + cm->nlong, cm->chunkptr, CMRSChunks{d->strip_ptr, (int)cm->chunk}));
  PetscCallCUDA(cudaMemsetAsync(cm->chunkptr + cm->nlong, 0, sizeof(int), stream));
  MatGPUFormatCallThrust(thrust::exclusive_scan(policy, cm->chunkptr, cm->chunkptr + cm->nlong + 1, cm->chunkptr));
  PetscCallCUDA(cudaMemcpyAsync(&nchunks, cm->chunkptr + cm->nlong, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  cm->nchunks = nchunks;
  PetscCall(MatGPUFormatDeviceMalloc_Private("CMRS", (size_t)nchunks * d->height * sizeof(PetscScalar), &cm->mem[2]));
  cm->partial = (PetscScalar *)cm->mem[2];
  PetscCallCUDA(cudaMemsetAsync(cm->done, 0, (size_t)cm->nlong * sizeof(unsigned), stream));
  cm->bytes += (cm->nlong * 3 + 1) * sizeof(int) + (PetscLogDouble)nchunks * d->height * sizeof(PetscScalar);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CMRSBuild(void *fmt, const MatGPUFormatCSR *csr)
{
  Mat_CMRS   *cm = (Mat_CMRS *)fmt;
  CMRSArrays *d  = &cm->d;
  size_t      persistent, temporary;
  PetscBool   ranked = PETSC_FALSE;

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
  persistent = (size_t)(d->nstrips + 2) * sizeof(int) + (size_t)d->nnz * (sizeof(unsigned) + sizeof(PetscScalar) + (d->packed ? 0 : 1) + (d->sorted ? sizeof(int) : 0));
  temporary  = d->sorted ? (size_t)d->nnz * (sizeof(int) + 2 * sizeof(unsigned long long)) : 0;
  PetscCall(MatGPUFormatCheckDeviceMemory_Private("CMRS", persistent + temporary));
  /* one int more than the strips need: the flag of CMRSRankStrips(), so that the ranking allocates nothing */
  {
    const MatGPUFormatArray arrays[] = {
        {(void **)&d->strip_ptr, (size_t)(d->nstrips + 2) * sizeof(int)              },
        {(void **)&d->colind,    (size_t)d->nnz * sizeof(unsigned)                   },
        {(void **)&d->val,       (size_t)d->nnz * sizeof(PetscScalar)                },
        {(void **)&d->rowin,     d->packed ? 0 : (size_t)d->nnz                      },
        {(void **)&cm->perm,     d->sorted ? (size_t)d->nnz * sizeof(int) : (size_t)0}
    };

    PetscCall(MatGPUFormatDeviceMallocArrays_Private("CMRS", &cm->mem[0], PETSC_STATIC_ARRAY_LENGTH(arrays), arrays));
  }
  cm->bytes = (PetscLogDouble)persistent;
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "allocate"));

  cmrs_strip_ptr_kernel<<<MatGPUFormatGrid(d->nstrips + 1, CMRS_BLOCK), CMRS_BLOCK, 0, csr->stream>>>((int)d->nstrips, (int)d->m, (int)d->height, csr->rowptr, d->strip_ptr);
  PetscCallCUDA(cudaGetLastError());
  if (d->sorted) PetscCall(CMRSRankStrips(cm, csr, &ranked));
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "strips and columns ranked"));
  if (!ranked) {
    cmrs_fill_kernel<<<MatGPUFormatGrid(d->nnz, CMRS_BLOCK), CMRS_BLOCK, 0, csr->stream>>>((int)d->m, (int)d->nnz, (int)d->height, d->packed, csr->rowptr, csr->colind, d->colind, d->rowin);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(MatGPUFormatBuildPhase_Private(csr, "strips and columns"));
    if (d->sorted) PetscCall(CMRSSortStrips(cm, csr->stream));
    PetscCall(MatGPUFormatBuildPhase_Private(csr, "sort columns"));
  }
  /* strips of one row ranked in place keep each row's entries in the CSR's order */
  cm->identity = (PetscBool)(d->sorted && ranked && d->height == 1);
  PetscCall(MatGPUFormatGatherValues_Private(d->nnz, cm->identity ? NULL : cm->perm, csr->val, d->val, csr->stream));
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "values"));
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
  cm->pack  = PETSC_TRUE;
  cm->sort  = PETSC_TRUE;
  cm->group = 1;
  *fmt      = cm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CMRSCopyParams(const void *src, void *dst)
{
  const Mat_CMRS *a = (const Mat_CMRS *)src;
  Mat_CMRS       *b = (Mat_CMRS *)dst;

  PetscFunctionBegin;
  b->height    = a->height;
  b->sort      = a->sort;
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
  *same = (PetscBool)(a->height == b->height && a->sort == b->sort && a->pack == b->pack && a->spw == b->spw && a->longstrip == b->longstrip && a->chunkset == b->chunkset);
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

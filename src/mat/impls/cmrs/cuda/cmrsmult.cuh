#pragma once
/* CMRS's product: its device code and CMRSLaunchHeight<H>()'s definition, for the units of one height each (cmrs_h<H>.cu) */
#include "cmrsimpl.cuh"

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

/*
   The CSR positions of the entries j + 32 u of strip s, u < CMRS_UNROLL (f.rowptr: ranked strips, one warp's each):
   next[r] holds the position of row r's next entry, starting at the row's start; an entry's is next[r] plus the count of
   the lanes before it with an entry of row r, and the last of them moves next[r] on. Every lane of the warp calls it.
*/
template <int H, bool PACKED>
__device__ __forceinline__ void cmrs_ranked_positions(const CMRSKernelArgs &a, const unsigned *c, int j, int e, int *next, int lane, int *p)
{
#pragma unroll
  for (int u = 0; u < CMRS_UNROLL; u++) {
    const bool     in   = j + 32 * u < e;
    const unsigned act  = __ballot_sync(0xffffffffu, in);
    const int      r    = in ? cmrs_row<H, PACKED>(a, c[u], j + 32 * u) : 0;
    const unsigned same = in ? __match_any_sync(act, r) : 0u;
    const int      at   = in ? next[r] : 0;

    __syncwarp();
    p[u] = at + __popc(same & ((1u << lane) - 1u));
    if (in && (same >> lane) == 1u) next[r] = p[u] + 1;
    __syncwarp();
  }
}

/* The row sums of the entries [b, e) of strip s (or of a chunk of a strip: s < 0), by one warp; next: H ints of shared
   memory for the fused refresh of ranked strips (f.rowptr) */
template <int H, bool PACKED, bool SORTED, bool REFRESH>
__device__ __forceinline__ PetscScalar cmrs_warp_sum(const CMRSKernelArgs &a, const CMRSRefreshArgs &f, int s, int b, int e, const PetscScalar *__restrict__ x, PetscScalar *buf, int *next, int lane)
{
  CMRSAccumulator<H, SORTED> acc(buf, lane);
  bool                       byrank = false;

  if constexpr (REFRESH && H > 1) {
    byrank = f.rowptr && s >= 0;
    if (byrank) {
      if (lane < H) next[lane] = f.rowptr[min((long long)s * H + lane, (long long)a.m)];
      __syncwarp();
    }
  }
  /* all loads of a step are issued before the first product: one memory round trip per 32 CMRS_UNROLL entries (two with
     the ranked refresh: the columns, then the values at the positions found from them); with the refresh the warp steps
     together (cmrs_ranked_positions() synchronizes it), else each lane stops after its last entry */
  for (int j = b + lane; REFRESH ? j - lane < e : j < e; j += CMRS_UNROLL * 32) {
    unsigned    c[CMRS_UNROLL];
    PetscScalar v[CMRS_UNROLL];

#pragma unroll
    for (int u = 0; u < CMRS_UNROLL; u++) {
      const bool in = j + 32 * u < e;

      c[u] = in ? __ldcs(a.colind + j + 32 * u) : 0;
      if constexpr (REFRESH) v[u] = in && !byrank ? cmrs_new_value<SORTED>(f, j + 32 * u) : 0.0;
      else v[u] = in ? __ldcs(a.val + j + 32 * u) : 0.0;
    }
    if constexpr (REFRESH && H > 1) {
      if (byrank) {
        int p[CMRS_UNROLL];

        cmrs_ranked_positions<H, PACKED>(a, c, j, e, next, lane, p);
#pragma unroll
        for (int u = 0; u < CMRS_UNROLL; u++) v[u] = j + 32 * u < e ? __ldg(f.csrval + p[u]) : 0.0;
      }
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
__device__ __forceinline__ void cmrs_mult_body(const CMRSKernelArgs a, const CMRSRefreshArgs f, const PetscScalar *__restrict__ x, const PetscScalar *y, PetscScalar *z, PetscScalar (*buf)[H > 1 ? H * 32 : 1], int *next)
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
      const PetscScalar sum = cmrs_warp_sum<H, PACKED, SORTED, REFRESH>(a, f, s, b, e, x, buf[w], next ? next + w * H : NULL, lane);
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
    const PetscScalar sum = cmrs_warp_sum<H, PACKED, SORTED, REFRESH>(a, f, -1, b, e, x, buf[w], NULL, lane);

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
  const CMRSRefreshArgs  none = {NULL, NULL, NULL, NULL};

  cmrs_mult_body<H, PACKED, SORTED, ADD, NS, false>(a, none, x, y, z, buf, NULL);
}

/* The product with the refresh fused into it, one strip per warp */
template <int H, bool PACKED, bool SORTED, bool ADD>
__global__ static void __launch_bounds__(CMRS_BLOCK) cmrs_mult_refresh_kernel(const CMRSKernelArgs a, const CMRSRefreshArgs f, const PetscScalar *__restrict__ x, const PetscScalar *y, PetscScalar *z)
{
  __shared__ PetscScalar buf[CMRS_WARPS][H > 1 ? H * 32 : 1];
  __shared__ int         next[CMRS_WARPS * H]; /* the ranked refresh's positions, H per warp */

  cmrs_mult_body<H, PACKED, SORTED, ADD, 1, true>(a, f, x, y, z, buf, next);
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
PetscErrorCode CMRSLaunchHeight(const Mat_CMRS *cm, const CMRSRefreshArgs *f, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (cm->d.packed) PetscCall(cm->d.sorted ? CMRSLaunch<H, true, true>(cm, f, x, y, z, stream) : CMRSLaunch<H, true, false>(cm, f, x, y, z, stream));
  else PetscCall(cm->d.sorted ? CMRSLaunch<H, false, true>(cm, f, x, y, z, stream) : CMRSLaunch<H, false, false>(cm, f, x, y, z, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

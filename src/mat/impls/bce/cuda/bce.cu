/*
   BCE on the GPU: the device build from cuSPARSE's CSR (distribution function, rows into blocks, entries),
   the product, one CUDA block per sub-block, and the format interface that the common layer turns into the
   MATSEQBCE type. The partition itself (BCEPartition, O(distinct lengths)) runs on the host.
*/
#include "../bce.h"
#include <petsc/private/petscimpl.h>
#include <petsctime.h>
#include <cub/device/device_radix_sort.cuh>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sequence.h>

#define BCE_UNROLL 8 /* entries each thread loads before it uses the first */
/* CUDA blocks per SM the product with the refresh fused into it must allow (6 for the product alone) */
#define BCE_MIN_BLOCKS_REFRESH 4
#define BCE_WARPS              (BCE_BLOCK / 32)

typedef struct {
  PetscInt L;                  /* requested L; 0: derived from the device */
  PetscInt merge;              /* -mat_bce_merge_lengths; 0: never */
  BCEWide  wide;               /* -mat_bce_wide_row and -mat_bce_wide_entries_per_thread; a field 0: chosen (BCEWideChoose()) */
  PetscInt hot;                /* -mat_bce_hot_columns: the columns with the most entries to read from a packed copy of x; 0: none;
                                  -1: automatic (BCE_HOT_AUTO, bce.h) */
  PetscInt             Lgpu;   /* L derived from the device */
  BCEArrays            h;      /* sizes and blocks, on the host; the row and entry arrays below are on the device */
  BCEBlock            *blocks; /* h.nblocks */
  int                 *rowno, *rowlen, *col;
  int                 *iperm; /* during the build (a temporary): the reordered position of each original row */
  long long           *sched; /* h.nsub: block << 32 | sub-block within the block, that each CUDA block runs */
  PetscScalar         *val;
  PetscScalar         *partial; /* h.nparts partial sums of split rows */
  unsigned            *done;    /* h.nsplit counters, back to 0 after each product */
  PetscInt             nhot;    /* hot columns of the last build: at most hot, and only columns with entries */
  int                 *hotcol;  /* nhot: the hot columns, most entries first; col holds ~j for hotcol[j] */
  PetscScalar         *xh;      /* nhot: x at the hot columns, packed before each product */
  PetscInt64           hotnnz;  /* the entries in the hot columns */
  PetscInt             hotk;    /* the hot columns the last build considered (automatic: 0 where the rows are regular) */
  PetscInt64           hotknnz; /* the entries in those, kept or not */
  MatGPUFormatRowStats stats;
  PetscLogDouble       bytes, partition_ms;
  MatGPUFormatScratch  scratch; /* the build's device temporaries */
  void                *mem[3];  /* the device allocations that hold the arrays: blocks, rowno, rowlen and sched; col, val,
                                   partial and done; hotcol and xh */
} Mat_BCE;

struct BCEKernelArgs {
  const long long   *sched;
  const BCEBlock    *blocks;
  const int         *rowno, *rowlen, *col;
  const PetscScalar *val;
  PetscScalar       *partial;
  unsigned          *done;
};

/*
   With the refresh fused into the product: the new values (CSR order), the CSR's row starts, and the slots' values to
   store them in. Entry j of a row is in CSR order at the row's start + j (the build keeps each row's order), so the
   refresh needs no map of positions: it reads the new values where the product reads the slots' and writes them, 8
   bytes per entry more than the product.
*/
struct BCERefreshArgs {
  const PetscScalar *csrval;
  const int         *rowptr;
  PetscScalar       *val;
};

/* Sum over the BCE_BLOCK threads of the CUDA block, in a fixed order; the result is in thread 0 */
__device__ static PetscScalar bce_block_sum(PetscScalar sum, PetscScalar *smem)
{
  sum = MatGPUFormatWarpSum(sum);
  if ((threadIdx.x & 31) == 0) smem[threadIdx.x >> 5] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    sum = 0.0;
#pragma unroll
    for (int w = 0; w < BCE_WARPS; w++) sum += smem[w];
  }
  __syncthreads(); /* smem may be reused */
  return sum;
}

/*
   Entries [j0, j1) of local row q of block B (j0 a multiple of T), lane `lane` of its T threads. The slots of
   the UNROLL entries a thread loads at once are a stride apart: running pointers, no 64-bit products. With
   REFRESH, nv is the row's new values in CSR order and f.val the slots to store them in.
*/
template <int LOGT, bool REFRESH, bool HOT>
__device__ static PetscScalar bce_row_sum(const BCEKernelArgs &a, const BCERefreshArgs &f, const PetscScalar *__restrict__ nv, const BCEBlock &B, int q, int lane, int j0, int j1, const PetscScalar *__restrict__ x, const PetscScalar *__restrict__ xh)
{
  constexpr int      T      = 1 << LOGT;
  const long long    stride = (long long)B.nrows << LOGT, base = B.pos + ((long long)q << LOGT) + lane + (long long)(j0 >> LOGT) * stride;
  const int         *cp  = a.col + base;
  const PetscScalar *vp  = a.val + base;
  PetscScalar        sum = 0.0;

  for (int j = j0 + lane; j < j1; j += T * BCE_UNROLL) {
    int                c[BCE_UNROLL];
    PetscScalar        v[BCE_UNROLL];
    const int         *cq = cp;
    const PetscScalar *vq = vp;

#pragma unroll
    for (int u = 0; u < BCE_UNROLL; u++) {
      const bool in = j + u * T < j1;

      c[u] = in ? __ldcs(cq) : 0;
      if (REFRESH) v[u] = in ? __ldg(nv + j + u * T) : 0.0; /* the new value, from the CSR */
      else v[u] = in ? __ldcs(vq) : 0.0;
      cq += stride;
      vq += stride;
    }
    if (REFRESH) { /* stored in the slots once all loads of the step are issued */
      const long long s = vp - a.val;

#pragma unroll
      for (int u = 0; u < BCE_UNROLL; u++)
        if (j + u * T < j1) f.val[s + u * stride] = v[u];
    }
#pragma unroll
    for (int u = 0; u < BCE_UNROLL; u++) {
      if (j + u * T < j1) {
        if (HOT) v[u] *= __ldg((c[u] < 0 ? xh : x) + (c[u] < 0 ? ~c[u] : c[u])); /* one load, its base chosen first */
        else v[u] *= __ldg(x + c[u]);
      }
    }
#pragma unroll
    for (int u = 0; u < BCE_UNROLL; u++) sum += v[u];
    cp = cq;
    vp = vq;
  }
  return sum;
}

/* Sub-block `local` of block B: BCE_BLOCK / T rows, T threads each; y may alias z */
template <int LOGT, bool ADD, bool REFRESH, bool HOT>
__device__ static void bce_rows(const BCEKernelArgs &a, const BCERefreshArgs &f, const BCEBlock &B, int local, const PetscScalar *__restrict__ x, const PetscScalar *__restrict__ xh, const PetscScalar *y, PetscScalar *z, PetscScalar *smem)
{
  constexpr int T      = 1 << LOGT;
  const int     q      = local * (BCE_BLOCK / T) + (int)(threadIdx.x >> LOGT);
  const int     lane   = (int)threadIdx.x & (T - 1);
  const bool    active = q < B.nrows;
  const int     r      = B.row0 + q;
  const int     len    = active ? (B.minlen == B.width ? B.width : __ldg(a.rowlen + r)) : 0;
  const int     o      = active ? __ldg(a.rowno + r) : 0; /* loaded with the row length, not after the sum */
  PetscScalar   sum    = bce_row_sum<LOGT, REFRESH, HOT>(a, f, REFRESH && active ? f.csrval + __ldg(f.rowptr + o) : NULL, B, q, lane, 0, len, x, xh);

  if constexpr (T <= 32) {
#pragma unroll
    for (int off = T / 2; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  } else { /* T / 32 warps per row: their sums in order */
    sum = MatGPUFormatWarpSum(sum);
    if ((threadIdx.x & 31) == 0) smem[threadIdx.x >> 5] = sum;
    __syncthreads();
    if (lane == 0) {
      sum = 0.0;
#pragma unroll
      for (int w = 0; w < T / 32; w++) sum += smem[(threadIdx.x >> 5) + w];
    }
  }
  if (active && lane == 0) z[o] = ADD ? y[o] + sum : sum;
}

/*
   Part `local` of the split rows of block B (T = BCE_BLOCK, one row at a time): the partial sum of its
   BCE_GROUPS_PER_PIECE groups; the CUDA block that finishes the last part of a row (a counter per row) adds
   the partial sums in part order, so the result does not depend on timing.
*/
template <bool ADD, bool REFRESH, bool HOT>
__device__ static void bce_part(const BCEKernelArgs &a, const BCERefreshArgs &f, const BCEBlock &B, int local, const PetscScalar *__restrict__ x, const PetscScalar *__restrict__ xh, const PetscScalar *y, PetscScalar *z, PetscScalar *smem)
{
  constexpr int  LOGT = 8, T = 1 << LOGT, PIECE = BCE_GROUPS_PER_PIECE * T;
  __shared__ int last;
  const int      q = local / B.pieces, p = local % B.pieces, r = B.row0 + q;
  const int      len = __ldg(a.rowlen + r), j0 = min(p * PIECE, len), j1 = min(j0 + PIECE, len);
  PetscScalar    sum = bce_block_sum(bce_row_sum<LOGT, REFRESH, HOT>(a, f, REFRESH ? f.csrval + __ldg(f.rowptr + __ldg(a.rowno + r)) : NULL, B, q, (int)threadIdx.x, j0, j1, x, xh), smem);

  static_assert(T == BCE_BLOCK, "split rows take the whole CUDA block");
  if (threadIdx.x == 0) {
    a.partial[B.part0 + (long long)q * B.pieces + p] = sum;
    __threadfence(); /* the partial sum is visible before the counter moves */
    last = atomicAdd(a.done + B.split0 + q, 1u) == (unsigned)(B.pieces - 1);
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  sum = 0.0;
  for (int i = (int)threadIdx.x; i < B.pieces; i += T) sum += __ldcg(a.partial + B.part0 + (long long)q * B.pieces + i);
  sum = bce_block_sum(sum, smem);
  if (threadIdx.x == 0) {
    const int o = __ldg(a.rowno + r);

    z[o]                 = ADD ? y[o] + sum : sum;
    a.done[B.split0 + q] = 0;
  }
}

/* The block's kernel for its threads per row, 2^logt: bce_rows<logt>, or bce_part for split rows */
template <int LOGT, bool ADD, bool REFRESH, bool HOT>
__device__ static void bce_dispatch(const BCEKernelArgs &a, const BCERefreshArgs &f, const BCEBlock &B, int local, const PetscScalar *__restrict__ x, const PetscScalar *__restrict__ xh, const PetscScalar *y, PetscScalar *z, PetscScalar *smem)
{
  if constexpr (LOGT == 8) {
    if (B.pieces > 1) bce_part<ADD, REFRESH, HOT>(a, f, B, local, x, xh, y, z, smem);
    else bce_rows<8, ADD, REFRESH, HOT>(a, f, B, local, x, xh, y, z, smem);
  } else {
    if (B.logt == LOGT) bce_rows<LOGT, ADD, REFRESH, HOT>(a, f, B, local, x, xh, y, z, smem);
    else bce_dispatch<LOGT + 1, ADD, REFRESH, HOT>(a, f, B, local, x, xh, y, z, smem);
  }
}

/*
   One CUDA block per sub-block, in the order of sched: the blocks of several threads per row first, widest
   first (they take longest), then the sub-blocks of one thread per row by their first original row, so that
   the GPU works on nearby original rows of every such block at once: y is written, and x read, about as
   locally as by a CSR product. 40 registers, 6 CUDA blocks per SM. With HOT, the hot columns (a column index ~j) are
   read from xh, x packed at them before the product; xh is an argument of its own, not a field of a (so that the
   argument structure's size stays and the kernels without HOT do not change).
*/
template <bool ADD, bool REFRESH, bool HOT>
__global__ static void __launch_bounds__(BCE_BLOCK, REFRESH ? BCE_MIN_BLOCKS_REFRESH : 6) bce_mult_kernel(const BCEKernelArgs a, const BCERefreshArgs f, const PetscScalar *__restrict__ x, const PetscScalar *__restrict__ xh, const PetscScalar *y, PetscScalar *z)
{
  __shared__ PetscScalar smem[BCE_WARPS];
  const long long        e     = __ldg(a.sched + blockIdx.x);
  const BCEBlock         B     = a.blocks[e >> 32];
  const int              local = (int)(e & 0xffffffff);

  bce_dispatch<0, ADD, REFRESH, HOT>(a, f, B, local, x, xh, y, z, smem);
}

/* xh[j] = x[hot[j]]: the hot columns of x, packed before a product */
__global__ static void __launch_bounds__(BCE_BLOCK) bce_hot_pack_kernel(int k, const int *__restrict__ hot, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ xh)
{
  const int j = blockIdx.x * BCE_BLOCK + threadIdx.x;

  if (j < k) xh[j] = __ldg(x + __ldg(hot + j));
}

template <bool HOT>
static void BCELaunch(const Mat_BCE *bc, const BCEKernelArgs &a, const BCERefreshArgs *f, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  const BCERefreshArgs none = {NULL, NULL, NULL};
  const unsigned       grid = (unsigned)bc->h.nsub;

  if (f) {
    if (y) bce_mult_kernel<true, true, HOT><<<grid, BCE_BLOCK, 0, stream>>>(a, *f, x, bc->xh, y, z);
    else bce_mult_kernel<false, true, HOT><<<grid, BCE_BLOCK, 0, stream>>>(a, *f, x, bc->xh, NULL, z);
  } else {
    if (y) bce_mult_kernel<true, false, HOT><<<grid, BCE_BLOCK, 0, stream>>>(a, none, x, bc->xh, y, z);
    else bce_mult_kernel<false, false, HOT><<<grid, BCE_BLOCK, 0, stream>>>(a, none, x, bc->xh, NULL, z);
  }
}

/* The product, and with f the refresh fused into it (f: NULL for the product alone) */
static PetscErrorCode BCEMultPossiblyRefresh(const Mat_BCE *bc, const BCERefreshArgs *f, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  const BCEKernelArgs a = {bc->sched, bc->blocks, bc->rowno, bc->rowlen, bc->col, bc->val, bc->partial, bc->done};

  PetscFunctionBegin;
  if (bc->nhot) {
    bce_hot_pack_kernel<<<(unsigned)((bc->nhot + BCE_BLOCK - 1) / BCE_BLOCK), BCE_BLOCK, 0, stream>>>((int)bc->nhot, bc->hotcol, x, bc->xh);
    PetscCallCUDA(cudaGetLastError());
    BCELaunch<true>(bc, a, f, x, y, z, stream);
  } else BCELaunch<false>(bc, a, f, x, y, z, stream);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BCEMult(void *fmt, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCall(BCEMultPossiblyRefresh((const Mat_BCE *)fmt, NULL, x, y, z, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The product that first takes the new values of the device CSR, as BCERefresh() does, in the same pass */
static PetscErrorCode BCEMultRefresh(void *fmt, const MatGPUFormatCSR *csr, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  Mat_BCE             *bc = (Mat_BCE *)fmt;
  const BCERefreshArgs f  = {csr->val, csr->rowptr, bc->val};

  PetscFunctionBegin;
  PetscCall(BCEMultPossiblyRefresh(bc, &f, x, y, z, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ device build */

/* Lengths counted in each block's shared memory before the global histogram, and blocks of the histogram's grid (each
   adds its nonzero shared counts to the global ones once) */
#define BCE_HIST_SHARED 256
#define BCE_HIST_GRID   1024

/*
   The distribution function: hist[l] = rows of length l. Most rows of a matrix share a few lengths (a stencil: one), so
   one global atomic per row would queue on one address: the lanes of a warp with the same length add once, into the
   block's shared counts for short rows, and each block adds its counts to hist at the end.
*/
__global__ static void bce_histogram_kernel(int m, int maxlen, const int *__restrict__ rowptr, int *__restrict__ hist)
{
  __shared__ int counts[BCE_HIST_SHARED];

  for (int t = threadIdx.x; t < BCE_HIST_SHARED; t += blockDim.x) counts[t] = 0;
  __syncthreads();
  for (long long i0 = blockIdx.x * (long long)blockDim.x; i0 < m; i0 += (long long)gridDim.x * blockDim.x) {
    const long long i      = i0 + threadIdx.x;
    const unsigned  lane   = threadIdx.x % 32;
    const unsigned  inside = __ballot_sync(0xffffffffu, i < m); /* every lane reaches this: i0 is the block's */

    if (i < m) {
      const int      l     = rowptr[i + 1] - rowptr[i];
      const unsigned peers = __match_any_sync(inside, l);

      if (lane == (unsigned)(__ffs(peers) - 1)) atomicAdd(l < BCE_HIST_SHARED ? counts + l : hist + l, __popc(peers));
    }
  }
  __syncthreads();
  for (int t = threadIdx.x; t < BCE_HIST_SHARED && t <= maxlen; t += blockDim.x)
    if (counts[t]) atomicAdd(hist + t, counts[t]);
}

struct BCENonzeroBin {
  const int      *hist;
  __device__ bool operator()(int l) const { return hist[l] > 0; }
};

/* counts of the distinct lengths, as 64-bit integers for the partition */
__global__ static void bce_counts_kernel(int q, const int *__restrict__ lengths, const int *__restrict__ hist, long long *__restrict__ cnt)
{
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < q; i += (long long)gridDim.x * blockDim.x) cnt[i] = hist[lengths[i]];
}

/* The block of a row of length l (BCEBlockOf of the host reference): a binary search over the widths */
__device__ static int bce_block_of(int nblocks, int empty, const BCEBlock *__restrict__ blocks, int l)
{
  int lo = empty, hi = nblocks - 1;

  if (!l) return 0;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;

    if (blocks[mid].width >= l) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

__global__ static void bce_keys_kernel(int m, int nblocks, int empty, const BCEBlock *__restrict__ blocks, const int *__restrict__ rowptr, int *__restrict__ key)
{
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < m; i += (long long)gridDim.x * blockDim.x) key[i] = bce_block_of(nblocks, empty, blocks, rowptr[i + 1] - rowptr[i]);
}

__global__ static void bce_rows_kernel(int m, const int *__restrict__ rowptr, const int *__restrict__ rowno, int *__restrict__ rowlen, int *__restrict__ iperm)
{
  for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < m; r += (long long)gridDim.x * blockDim.x) {
    const int o = rowno[r];

    rowlen[r] = rowptr[o + 1] - rowptr[o];
    iperm[o]  = (int)r;
  }
}

/*
   Entry e of the CSR goes to its slot: its row is found by binary search, so long rows cost no more than short ones.
   Entry j of a row goes to the row's j-th slot, so a value refresh finds it at the row's start + j in the CSR. With map
   (hot columns), the slot's column is map[column].
*/
__global__ static void bce_fill_kernel(int m, int nnz, int nblocks, int empty, const BCEBlock *__restrict__ blocks, const int *__restrict__ rowptr, const int *__restrict__ colind, const PetscScalar *__restrict__ csrval, const int *__restrict__ iperm, const int *__restrict__ map, int *__restrict__ col, PetscScalar *__restrict__ val)
{
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < nnz; e += (long long)gridDim.x * blockDim.x) {
    const int       lo = MatGPUFormatRowOfEntry(rowptr, m, e);
    const int       b = bce_block_of(nblocks, empty, blocks, rowptr[lo + 1] - rowptr[lo]), logt = blocks[b].logt, j = (int)(e - rowptr[lo]);
    const long long slot = blocks[b].pos + (long long)(j >> logt) * ((long long)blocks[b].nrows << logt) + ((long long)(iperm[lo] - blocks[b].row0) << logt) + (j & ((1 << logt) - 1));

    col[slot] = map ? map[colind[e]] : colind[e]; /* map: ~j for the j-th hot column */
    val[slot] = csrval[e];
  }
}

/*
   Sort keys of the sub-blocks and their (block, sub-block) pairs: nblocks - 1 - b for the blocks of several
   threads per row (widest first), nblocks + the original index of the first row for the others
*/
__global__ static void bce_sched_keys_kernel(int nsub, int nblocks, const BCEBlock *__restrict__ blocks, const int *__restrict__ rowno, int *__restrict__ key, long long *__restrict__ pair)
{
  for (long long s = blockIdx.x * (long long)blockDim.x + threadIdx.x; s < nsub; s += (long long)gridDim.x * blockDim.x) {
    int lo = 0, hi = nblocks - 1;

    while (lo < hi) {
      const int mid = (lo + hi + 1) >> 1;

      if (blocks[mid].sub0 <= s) lo = mid;
      else hi = mid - 1;
    }
    const int local = (int)s - blocks[lo].sub0;

    key[s]  = blocks[lo].logt ? nblocks - 1 - lo : nblocks + rowno[blocks[lo].row0 + local * BCE_BLOCK];
    pair[s] = ((long long)lo << 32) | local;
  }
}

/* The order of the sub-blocks (see bce_mult_kernel), a stable radix sort of their keys */
static PetscErrorCode BCESchedule(Mat_BCE *bc, cudaStream_t stream)
{
  const int  n   = (int)bc->h.nsub;
  int       *key = NULL, *keysorted = NULL, endbit = 1;
  long long *pair      = NULL;
  void      *work      = NULL;
  size_t     workbytes = 0;
  PetscInt   mark      = bc->scratch.n;

  PetscFunctionBegin;
  while ((1LL << endbit) <= bc->h.m + bc->h.nblocks) endbit++;
  /* the sort's storage asked for first (no array is read then), so that its temporaries are one allocation */
  PetscCallCUDA(cub::DeviceRadixSort::SortPairs(work, workbytes, key, keysorted, pair, bc->sched, n, 0, endbit, stream));
  {
    const MatGPUFormatArray arrays[] = {
        {(void **)&pair,      (size_t)n * sizeof(long long)},
        {(void **)&key,       (size_t)n * sizeof(int)      },
        {(void **)&keysorted, (size_t)n * sizeof(int)      },
        {&work,               workbytes                    }
    };

    PetscCall(MatGPUFormatScratchMallocArrays_Private(&bc->scratch, "BCE", PETSC_STATIC_ARRAY_LENGTH(arrays), arrays));
  }
  bce_sched_keys_kernel<<<MatGPUFormatGrid(n, BCE_BLOCK), BCE_BLOCK, 0, stream>>>(n, (int)bc->h.nblocks, bc->blocks, bc->rowno, key, pair);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cub::DeviceRadixSort::SortPairs(work, workbytes, key, keysorted, pair, bc->sched, n, 0, endbit, stream));
  PetscCall(MatGPUFormatScratchRelease_Private(&bc->scratch, mark)); /* in stream order */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BCEReset(void *fmt)
{
  Mat_BCE *bc = (Mat_BCE *)fmt;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatScratchRelease_Private(&bc->scratch, 0)); /* temporaries of a build that stopped with an error */
  bc->blocks = NULL;
  bc->rowno = bc->rowlen = bc->col = bc->iperm = NULL;
  bc->sched                                    = NULL;
  bc->val = bc->partial = NULL;
  bc->done              = NULL;
  bc->hotcol            = NULL;
  bc->xh                = NULL;
  bc->nhot              = 0;
  bc->hotnnz            = 0;
  bc->hotk              = 0;
  bc->hotknnz           = 0;
  /* the views first, so that none outlives its block on any path */
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(bc->mem); i++) PetscCall(MatGPUFormatDeviceFree_Private(&bc->mem[i]));
  PetscCall(BCEDestroyHost(&bc->h));
  PetscCall(PetscArrayzero(&bc->h, 1));
  bc->bytes        = 0;
  bc->partition_ms = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The default L, for the GPU at hand. An SM keeps at most R threads of this kernel resident (the occupancy
   calculator) in at most Bmax CUDA blocks (the device's limit). A block of the partition whose rows keep fewer
   than R / Bmax threads busy fills its CUDA block so little that even an SM full of such CUDA blocks is not
   full: it costs what a block of R / Bmax threads costs. So L = R / Bmax (6 x 256 / 32 = 48 on an H100 or
   H200, where the kernel's 40 registers allow 6 CUDA blocks per SM). The number of SMs does not enter: all
   blocks run in one launch and share the SMs.
*/
static PetscErrorCode BCEDeviceL(PetscInt *L)
{
  int dev, maxblocks, active;

  PetscFunctionBegin;
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&maxblocks, cudaDevAttrMaxBlocksPerMultiprocessor, dev));
  PetscCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, bce_mult_kernel<false, false, false>, BCE_BLOCK, 0));
  *L = PetscMax(1, (PetscInt)active * BCE_BLOCK / PetscMax(1, maxblocks));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Longest rows whose histogram comes to the host whole, in one copy (256 KB at most); beyond, only its nonzero bins */
#define BCE_HIST_HOST 65536

/* The distribution function on the device, as q distinct nonzero lengths and their counts on the host (freed with PetscFree2) */
static PetscErrorCode BCEDistribution(const MatGPUFormatCSR *csr, MatGPUFormatScratch *scratch, PetscInt *q, PetscInt **len, PetscInt64 **cnt)
{
  const auto policy = MatGPUFormatThrustPolicy(csr->stream);
  const int  maxlen = (int)csr->stats.maxlen;
  int       *hist, *dlen, nq;
  long long *dcnt;
  int       *hlen;
  PetscInt   mark = scratch->n;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatScratchMalloc_Private(scratch, "BCE", (size_t)(maxlen + 1) * sizeof(int), (void **)&hist));
  PetscCallCUDA(cudaMemsetAsync(hist, 0, (size_t)(maxlen + 1) * sizeof(int), csr->stream));
  bce_histogram_kernel<<<PetscMin(MatGPUFormatGrid(csr->m, BCE_BLOCK), BCE_HIST_GRID), BCE_BLOCK, 0, csr->stream>>>((int)csr->m, maxlen, csr->rowptr, hist);
  PetscCallCUDA(cudaGetLastError());
  if (maxlen < BCE_HIST_HOST) { /* one trip to the host: the whole histogram */
    int        *hhist;
    cudaError_t cerr;

    PetscCall(PetscMalloc1(maxlen + 1, &hhist));
    cerr = cudaMemcpyAsync(hhist, hist, (size_t)(maxlen + 1) * sizeof(int), cudaMemcpyDeviceToHost, csr->stream);
    if (cerr == cudaSuccess) cerr = cudaStreamSynchronize(csr->stream);
    if (cerr != cudaSuccess) PetscCall(PetscFree(hhist)); /* then the error */
    PetscCallCUDA(cerr);
    nq = 0;
    for (int l = 1; l <= maxlen; l++) nq += hhist[l] > 0;
    {
      PetscErrorCode ierr = PetscMalloc2(nq, len, nq, cnt);

      if (ierr) PetscCall(PetscFree(hhist));
      PetscCall(ierr);
    }
    nq = 0;
    for (int l = 1; l <= maxlen; l++) {
      if (hhist[l] > 0) {
        (*len)[nq]   = l;
        (*cnt)[nq++] = hhist[l];
      }
    }
    *q = nq;
    PetscCall(PetscFree(hhist));
    PetscCall(MatGPUFormatScratchRelease_Private(scratch, mark));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  MatGPUFormatCallThrust(nq = (int)thrust::count_if(policy, thrust::counting_iterator<int>(1), thrust::counting_iterator<int>(maxlen + 1), BCENonzeroBin{hist}));
  {
    const MatGPUFormatArray arrays[] = {
        {(void **)&dlen, (size_t)nq * sizeof(int)      },
        {(void **)&dcnt, (size_t)nq * sizeof(long long)}
    };

    PetscCall(MatGPUFormatScratchMallocArrays_Private(scratch, "BCE", PETSC_STATIC_ARRAY_LENGTH(arrays), arrays));
  }
  MatGPUFormatCallThrust(thrust::copy_if(policy, thrust::counting_iterator<int>(1), thrust::counting_iterator<int>(maxlen + 1), dlen, BCENonzeroBin{hist}));
  bce_counts_kernel<<<MatGPUFormatGrid(nq, BCE_BLOCK), BCE_BLOCK, 0, csr->stream>>>(nq, dlen, hist, dcnt);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscMalloc1(nq, &hlen));
  {
    PetscErrorCode ierr = PetscMalloc2(nq, len, nq, cnt);
    cudaError_t    cerr = cudaSuccess;

    if (ierr) PetscCall(PetscFree(hlen)); /* then the error */
    PetscCall(ierr);
    cerr = cudaMemcpyAsync(hlen, dlen, (size_t)nq * sizeof(int), cudaMemcpyDeviceToHost, csr->stream);
    if (cerr == cudaSuccess) cerr = cudaMemcpyAsync(*cnt, dcnt, (size_t)nq * sizeof(long long), cudaMemcpyDeviceToHost, csr->stream);
    if (cerr == cudaSuccess) cerr = cudaStreamSynchronize(csr->stream);
    if (cerr != cudaSuccess) {
      PetscCall(PetscFree(hlen));
      PetscCall(PetscFree2(*len, *cnt));
    }
    PetscCallCUDA(cerr);
  }
  for (int i = 0; i < nq; i++) (*len)[i] = hlen[i];
  *q = nq;
  PetscCall(PetscFree(hlen));
  PetscCall(MatGPUFormatScratchRelease_Private(scratch, mark));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Entries per column: count[c] += 1 for each entry; the lanes of a warp with the same column add once */
__global__ static void bce_column_count_kernel(long long nnz, const int *__restrict__ colind, int *__restrict__ count)
{
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e - (threadIdx.x & 31) < nnz; e += (long long)gridDim.x * blockDim.x) {
    const bool     in   = e < nnz;
    const int      c    = in ? colind[e] : -1;
    const unsigned same = __match_any_sync(0xffffffffu, c);

    if (in && (threadIdx.x & 31) == __ffs(same) - 1) atomicAdd(count + c, __popc(same));
  }
}

/* map[hot[j]] = ~j: the column index the slots of hot column j hold */
__global__ static void bce_hot_map_kernel(int k, const int *__restrict__ hot, int *__restrict__ map)
{
  const int j = blockIdx.x * BCE_BLOCK + threadIdx.x;

  if (j < k) map[hot[j]] = ~j;
}

/*
   The hot columns (-mat_bce_hot_columns k): the k columns with the most entries (ties: the lower column first; columns
   without entries never), into bc->hotcol, and the map of every column to the index the slots hold (the column, or ~j
   for the j-th hot column), a temporary in the scratch that the caller releases after the fill. *map is NULL when there
   are none. One round trip: the counts of the k columns. Automatic (k = -1): the rule of BCE_HOT_AUTO (bce.h)
*/
static PetscErrorCode BCEHotColumns(Mat_BCE *bc, const MatGPUFormatCSR *csr, int **map)
{
  const PetscBool automatic = (PetscBool)(bc->hot < 0);
  const PetscBool irregular = (PetscBool)(csr->stats.stddev > csr->stats.mean && csr->n >= BCE_HOT_MIN_COLUMNS);
  const PetscInt  n = csr->n, k = automatic ? (irregular ? PetscMin(BCE_HOT_AUTO, n / BCE_HOT_FRACTION) : 0) : PetscMin(bc->hot, csr->n);
  const auto      policy = MatGPUFormatThrustPolicy(csr->stream);
  int            *count, *countsorted, *ids, *idssorted, *hcount;
  void           *work      = NULL;
  size_t          workbytes = 0;
  PetscInt        mark, nhot = 0;
  PetscInt64      hotnnz = 0;
  cudaError_t     cerr;

  PetscFunctionBegin;
  *map = NULL;
  if (k <= 0 || !csr->nnz) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGPUFormatScratchMalloc_Private(&bc->scratch, "BCE", (size_t)n * sizeof(int), (void **)map)); /* kept to the fill */
  mark = bc->scratch.n;
  PetscCall(MatGPUFormatScratchMalloc_Private(&bc->scratch, "BCE", (size_t)n * sizeof(int), (void **)&count));
  PetscCall(MatGPUFormatScratchMalloc_Private(&bc->scratch, "BCE", (size_t)n * sizeof(int), (void **)&countsorted));
  PetscCall(MatGPUFormatScratchMalloc_Private(&bc->scratch, "BCE", (size_t)n * sizeof(int), (void **)&ids));
  PetscCall(MatGPUFormatScratchMalloc_Private(&bc->scratch, "BCE", (size_t)n * sizeof(int), (void **)&idssorted));
  PetscCallCUDA(cudaMemsetAsync(count, 0, (size_t)n * sizeof(int), csr->stream));
  bce_column_count_kernel<<<PetscMin(MatGPUFormatGrid(csr->nnz, BCE_BLOCK), 4096), BCE_BLOCK, 0, csr->stream>>>((long long)csr->nnz, csr->colind, count);
  PetscCallCUDA(cudaGetLastError());
  MatGPUFormatCallThrust(thrust::sequence(policy, ids, ids + n));
  /* stable: among columns of equal counts the lower comes first, so the choice is deterministic */
  PetscCallCUDA(cub::DeviceRadixSort::SortPairsDescending(work, workbytes, count, countsorted, ids, idssorted, (int)n, 0, 32, csr->stream));
  PetscCall(MatGPUFormatScratchMalloc_Private(&bc->scratch, "BCE", workbytes, &work));
  PetscCallCUDA(cub::DeviceRadixSort::SortPairsDescending(work, workbytes, count, countsorted, ids, idssorted, (int)n, 0, 32, csr->stream));
  PetscCall(PetscMalloc1(k, &hcount));
  cerr = cudaMemcpyAsync(hcount, countsorted, (size_t)k * sizeof(int), cudaMemcpyDeviceToHost, csr->stream);
  if (cerr == cudaSuccess) cerr = cudaStreamSynchronize(csr->stream);
  if (cerr == cudaSuccess)
    for (; nhot < k && hcount[nhot] > 0; nhot++) hotnnz += hcount[nhot];
  PetscCall(PetscFree(hcount));
  PetscCallCUDA(cerr);
  bc->hotk    = k;
  bc->hotknnz = hotnnz;
  if (automatic && (PetscReal)hotnnz < PetscMax(BCE_HOT_MIN_SHARE, BCE_HOT_SKEW * (PetscReal)k / (PetscReal)n) * (PetscReal)csr->nnz) { /* too few entries in them to pay */
    nhot   = 0;
    hotnnz = 0;
  }
  if (nhot) {
    const MatGPUFormatArray arrays[] = {
        {(void **)&bc->hotcol, (size_t)nhot * sizeof(int)        },
        {(void **)&bc->xh,     (size_t)nhot * sizeof(PetscScalar)}
    };

    PetscCall(MatGPUFormatDeviceMallocArrays_Private("BCE", &bc->mem[2], PETSC_STATIC_ARRAY_LENGTH(arrays), arrays));
    PetscCallCUDA(cudaMemcpyAsync(bc->hotcol, idssorted, (size_t)nhot * sizeof(int), cudaMemcpyDeviceToDevice, csr->stream));
    MatGPUFormatCallThrust(thrust::sequence(policy, *map, *map + n));
    bce_hot_map_kernel<<<(unsigned)((nhot + BCE_BLOCK - 1) / BCE_BLOCK), BCE_BLOCK, 0, csr->stream>>>((int)nhot, bc->hotcol, *map);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(MatGPUFormatScratchRelease_Private(&bc->scratch, mark)); /* in stream order */
  bc->nhot   = nhot;
  bc->hotnnz = hotnnz;
  if (!nhot) {
    PetscCall(MatGPUFormatScratchRelease_Private(&bc->scratch, mark - 1));
    *map = NULL;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BCEBuild(void *fmt, const MatGPUFormatCSR *csr)
{
  Mat_BCE       *bc = (Mat_BCE *)fmt;
  BCEArrays     *h  = &bc->h;
  PetscInt       q = 0, k, *len = NULL, *ends, nempty, mark, markhot;
  PetscInt64    *cnt = NULL, rows = 0;
  PetscLogDouble t0, t1;
  int           *key = NULL, *keysorted = NULL, *iota = NULL, *map = NULL, endbit = 1;
  void          *work      = NULL;
  size_t         workbytes = 0, bytes;

  PetscFunctionBegin;
  PetscCall(BCEReset(fmt));
  bc->stats = csr->stats;
  h->m      = csr->m;
  h->n      = csr->n;
  h->nnz    = csr->nnz;
  PetscCall(BCEDeviceL(&bc->Lgpu));
  h->L = bc->L ? bc->L : bc->Lgpu;

  /* the partition, of the distribution function */
  PetscCall(BCEDistribution(csr, &bc->scratch, &q, &len, &cnt));
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "distribution"));
  for (PetscInt i = 0; i < q; i++) rows += cnt[i];
  nempty = csr->m - (PetscInt)rows;
  PetscCall(PetscMalloc1(q, &ends));
  PetscCall(PetscTime(&t0));
  h->maxgroups = bc->merge;
  h->wide      = BCEWideChoose(q, len, cnt, bc->wide);
  PetscCall(BCEPartitionMerged(q, len, cnt, h->L, h->wide, h->maxgroups, &h->ngroups, &k, ends, &h->cost));
  PetscCall(PetscTime(&t1));
  bc->partition_ms = 1e3 * (t1 - t0);
  PetscCall(BCESetBlocks(q, len, cnt, nempty, k, ends, h));
  PetscCall(PetscFree(ends));
  PetscCall(PetscFree2(len, cnt));
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "partition"));
  markhot = bc->scratch.n;
  PetscCall(BCEHotColumns(bc, csr, &map));
  if (bc->hot) PetscCall(MatGPUFormatBuildPhase_Private(csr, "hot columns"));

  /* the rows into their blocks: a stable radix sort of the rows by block, on the bits of the block index */
  {
    const MatGPUFormatArray arrays[] = {
        {(void **)&bc->blocks, (size_t)h->nblocks * sizeof(BCEBlock)},
        {(void **)&bc->rowno,  (size_t)h->m * sizeof(int)           },
        {(void **)&bc->rowlen, (size_t)h->m * sizeof(int)           },
        {(void **)&bc->sched,  (size_t)h->nsub * sizeof(long long)  }
    };

    PetscCall(MatGPUFormatDeviceMallocArrays_Private("BCE", &bc->mem[0], PETSC_STATIC_ARRAY_LENGTH(arrays), arrays));
  }
  PetscCallCUDA(cudaMemcpyAsync(bc->blocks, h->blocks, (size_t)h->nblocks * sizeof(BCEBlock), cudaMemcpyHostToDevice, csr->stream));
  while ((1LL << endbit) < h->nblocks) endbit++;
  mark = bc->scratch.n;
  PetscCall(MatGPUFormatScratchMalloc_Private(&bc->scratch, "BCE", (size_t)h->m * sizeof(int), (void **)&bc->iperm)); /* to the fill */
  /* allocated one by one, CUB's storage asked for after the keys: with the four in one allocation and the size asked for
     first, a process's first BCE build of ex45 200^3 spent 6 to 10 ms more in this step under lazy module loading
     (bench/results/h100/ex45-first-build.md) */
  PetscCall(MatGPUFormatScratchMalloc_Private(&bc->scratch, "BCE", (size_t)h->m * sizeof(int), (void **)&key));
  PetscCall(MatGPUFormatScratchMalloc_Private(&bc->scratch, "BCE", (size_t)h->m * sizeof(int), (void **)&keysorted));
  PetscCall(MatGPUFormatScratchMalloc_Private(&bc->scratch, "BCE", (size_t)h->m * sizeof(int), (void **)&iota));
  MatGPUFormatCallThrust(thrust::sequence(MatGPUFormatThrustPolicy(csr->stream), iota, iota + h->m));
  bce_keys_kernel<<<MatGPUFormatGrid(h->m, BCE_BLOCK), BCE_BLOCK, 0, csr->stream>>>((int)h->m, (int)h->nblocks, nempty ? 1 : 0, bc->blocks, csr->rowptr, key);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cub::DeviceRadixSort::SortPairs(work, workbytes, key, keysorted, iota, bc->rowno, (int)h->m, 0, endbit, csr->stream));
  PetscCall(MatGPUFormatScratchMalloc_Private(&bc->scratch, "BCE", workbytes, &work));
  PetscCallCUDA(cub::DeviceRadixSort::SortPairs(work, workbytes, key, keysorted, iota, bc->rowno, (int)h->m, 0, endbit, csr->stream));
  bce_rows_kernel<<<MatGPUFormatGrid(h->m, BCE_BLOCK), BCE_BLOCK, 0, csr->stream>>>((int)h->m, csr->rowptr, bc->rowno, bc->rowlen, bc->iperm);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(MatGPUFormatScratchRelease_Private(&bc->scratch, mark + 1)); /* in stream order; iperm stays */
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "rows into blocks"));
  PetscCall(BCESchedule(bc, csr->stream));
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "schedule"));

  /* the entries, padding zeroed, and the partial sums of the split rows */
  bytes = (size_t)h->nslots * (sizeof(int) + sizeof(PetscScalar));
  PetscCall(MatGPUFormatCheckDeviceMemory_Private("BCE", bytes));
  {
    const MatGPUFormatArray arrays[] = {
        {(void **)&bc->col,     (size_t)h->nslots * sizeof(int)        },
        {(void **)&bc->val,     (size_t)h->nslots * sizeof(PetscScalar)},
        {(void **)&bc->partial, (size_t)h->nparts * sizeof(PetscScalar)},
        {(void **)&bc->done,    (size_t)h->nsplit * sizeof(unsigned)   }
    };

    PetscCall(MatGPUFormatDeviceMallocArrays_Private("BCE", &bc->mem[1], PETSC_STATIC_ARRAY_LENGTH(arrays), arrays));
  }
  PetscCallCUDA(cudaMemsetAsync(bc->col, 0, (size_t)h->nslots * sizeof(int), csr->stream));
  PetscCallCUDA(cudaMemsetAsync(bc->val, 0, (size_t)h->nslots * sizeof(PetscScalar), csr->stream));
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "allocate"));
  bce_fill_kernel<<<MatGPUFormatGrid(h->nnz, BCE_BLOCK), BCE_BLOCK, 0, csr->stream>>>((int)h->m, (int)h->nnz, (int)h->nblocks, nempty ? 1 : 0, bc->blocks, csr->rowptr, csr->colind, csr->val, bc->iperm, map, bc->col, bc->val);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(MatGPUFormatScratchRelease_Private(&bc->scratch, markhot)); /* iperm and the map, in stream order */
  (void)mark;
  bc->iperm = NULL;
  if (h->nsplit) PetscCallCUDA(cudaMemsetAsync(bc->done, 0, (size_t)h->nsplit * sizeof(unsigned), csr->stream));
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "fill"));
  bc->bytes = (PetscLogDouble)bytes + (PetscLogDouble)h->nblocks * sizeof(BCEBlock) + 2.0 * h->m * sizeof(int) + (PetscLogDouble)h->nsub * sizeof(long long) + (PetscLogDouble)h->nparts * sizeof(PetscScalar) + (PetscLogDouble)h->nsplit * sizeof(unsigned) + (PetscLogDouble)bc->nhot * (sizeof(int) + sizeof(PetscScalar));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The value refresh, val[s] = the CSR's value of the slot's entry (padding left at 0), in the product's schedule: a
   CUDA block takes one sub-block's slots, BCE_UNROLL groups at a time. Entry j of a row is at the row's start + j in
   the CSR, so the T threads of a row read T consecutive values of it per group, and no map of positions is stored or
   read. (In slot order, the common gather through such a map, each group of a block of many rows swept all their
   values again: 441 and 535 µs on the 3D Laplacian and circuit-like matrix of results/h200/refresh-447f9b3.md.)
*/
__global__ static void __launch_bounds__(BCE_BLOCK) bce_refresh_kernel(const long long *__restrict__ sched, const BCEBlock *__restrict__ blocks, const int *__restrict__ rowno, const int *__restrict__ rowlen, const int *__restrict__ rowptr, const PetscScalar *__restrict__ csrval, PetscScalar *__restrict__ val)
{
  const long long e      = __ldg(sched + blockIdx.x);
  const BCEBlock  B      = blocks[e >> 32];
  const int       local  = (int)(e & 0xffffffff);
  const int       T      = 1 << B.logt;
  const long long lanes  = (long long)B.nrows << B.logt; /* slots per group */
  const int       groups = (B.width + T - 1) >> B.logt;
  const bool      split  = B.pieces > 1; /* one part of one row (bce_part) */
  const long long lane   = (long long)(split ? local / B.pieces : local) * BCE_BLOCK + threadIdx.x;
  const int       g0     = split ? local % B.pieces * BCE_GROUPS_PER_PIECE : 0;
  const int       g1     = split ? min(g0 + BCE_GROUPS_PER_PIECE, groups) : groups;

  if (lane >= lanes) return;
  {
    const int          r = B.row0 + (int)(lane >> B.logt), j0 = (int)(lane & (T - 1));
    const int          len = B.minlen == B.width ? B.width : __ldg(rowlen + r);
    const PetscScalar *nv  = csrval + __ldg(rowptr + __ldg(rowno + r)); /* the row's values in CSR order */

    for (int g = g0; g < g1; g += BCE_UNROLL) { /* up to 64 groups: BCE_UNROLL values in flight, then their stores */
      const long long s = B.pos + g * lanes + lane;
      PetscScalar     v[BCE_UNROLL];

#pragma unroll
      for (int u = 0; u < BCE_UNROLL; u++) {
        const int j = (g + u) * T + j0;

        v[u] = g + u < g1 && j < len ? __ldg(nv + j) : 0.0;
      }
#pragma unroll
      for (int u = 0; u < BCE_UNROLL; u++)
        if (g + u < g1 && (g + u) * T + j0 < len) val[s + u * lanes] = v[u];
    }
  }
}

static PetscErrorCode BCERefresh(void *fmt, const MatGPUFormatCSR *csr)
{
  Mat_BCE *bc = (Mat_BCE *)fmt;

  PetscFunctionBegin;
  if (!bc->h.nsub) PetscFunctionReturn(PETSC_SUCCESS);
  bce_refresh_kernel<<<(unsigned)bc->h.nsub, BCE_BLOCK, 0, csr->stream>>>(bc->sched, bc->blocks, bc->rowno, bc->rowlen, csr->rowptr, csr->val, bc->val);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ the format interface */

static PetscErrorCode BCECreate(void **fmt)
{
  Mat_BCE *bc;

  PetscFunctionBegin;
  PetscCall(PetscNew(&bc));
  bc->hot = -1; /* automatic */
  *fmt    = bc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BCECopyParams(const void *src, void *dst)
{
  PetscFunctionBegin;
  ((Mat_BCE *)dst)->L     = ((const Mat_BCE *)src)->L;
  ((Mat_BCE *)dst)->merge = ((const Mat_BCE *)src)->merge;
  ((Mat_BCE *)dst)->wide  = ((const Mat_BCE *)src)->wide;
  ((Mat_BCE *)dst)->hot   = ((const Mat_BCE *)src)->hot;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BCESameParams(const void *pa, const void *pb, PetscBool *same)
{
  const Mat_BCE *a = (const Mat_BCE *)pa, *b = (const Mat_BCE *)pb;

  PetscFunctionBegin;
  *same = (PetscBool)(a->L == b->L && a->merge == b->merge && a->wide.row == b->wide.row && a->wide.entries == b->wide.entries && a->hot == b->hot);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BCESetFromOptions(void *fmt, MatGPUFormatOptionItems PetscOptionsObject)
{
  Mat_BCE *bc = (Mat_BCE *)fmt;
  PetscInt L = bc->L, merge = bc->merge, wrow = bc->wide.row, wide = bc->wide.entries, hot = bc->hot;

  PetscFunctionBegin;
  PetscCall(PetscOptionsInt("-mat_bce_l", "The cost model's L, in threads: a block keeping fewer threads busy costs as much as one of L; 0 derives it from the GPU", "MATSEQBCE", L, &L, NULL));
  PetscCall(PetscOptionsInt("-mat_bce_merge_lengths", "Merge the distinct row lengths into at most this many groups before the partition (the paper merges past 100); 0: never, the partition is exact", "MATSEQBCE", merge, &merge, NULL));
  PetscCall(PetscOptionsInt("-mat_bce_wide_row", "Rows of more than this many entries are wide; 0 chooses: 16 in a matrix of at most 2^20 entries, else 512", "MATSEQBCE", wrow, &wrow, NULL));
  PetscCall(PetscOptionsInt("-mat_bce_wide_entries_per_thread", "Entries per thread at most in wide rows, 1 to 64 (64 in the others); 0 chooses: 16 when wide rows hold at most 2^21 entries, else 64", "MATSEQBCE", wide, &wide, NULL));
  PetscCall(PetscOptionsInt("-mat_bce_hot_columns", "Read the entries of this many columns with the most entries from a copy of x packed before each product, so that their reads share cache lines; 0: none; -1: automatic, where the row lengths vary more than their mean and the most used columns hold enough entries", "MATSEQBCE", hot, &hot, NULL));
  PetscCheck(L >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_bce_l %" PetscInt_FMT " is negative", L);
  PetscCheck(hot >= -1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_bce_hot_columns %" PetscInt_FMT " is below -1 (automatic)", hot);
  PetscCheck(merge >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_bce_merge_lengths %" PetscInt_FMT " is negative", merge);
  PetscCheck(wrow >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_bce_wide_row %" PetscInt_FMT " is negative", wrow);
  PetscCheck(wide >= 0 && wide <= BCE_ENTRIES_PER_THREAD, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_bce_wide_entries_per_thread %" PetscInt_FMT " is not in [0, %d]", wide, BCE_ENTRIES_PER_THREAD);
  bc->L            = L;
  bc->merge        = merge;
  bc->wide.row     = wrow;
  bc->wide.entries = wide;
  bc->hot          = hot;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BCEView(void *fmt, PetscViewer viewer)
{
  const Mat_BCE   *bc = (const Mat_BCE *)fmt;
  const BCEArrays *h  = &bc->h;
  const PetscInt   b0 = h->nempty ? 1 : 0;

  PetscFunctionBegin;
  if (h->ngroups < h->nlengths) PetscCall(PetscViewerASCIIPrintf(viewer, "the %" PetscInt_FMT " distinct row lengths merged into %" PetscInt_FMT " groups (-mat_bce_merge_lengths %" PetscInt_FMT ")\n", h->nlengths, h->ngroups, h->maxgroups));
  PetscCall(PetscViewerASCIIPrintf(viewer, "L %" PetscInt_FMT " threads (%s; the GPU's is %" PetscInt_FMT "); %" PetscInt_FMT " distinct row lengths into k = %" PetscInt_FMT " block%s in %.3f ms, model cost %g\n", h->L, bc->L ? "set" : "derived from the GPU", bc->Lgpu, h->nlengths, h->k,
                                   h->k == 1 ? "" : "s", bc->partition_ms, (double)h->cost));
  PetscCall(PetscViewerASCIIPrintf(viewer, "row lengths: mean %.2f, standard deviation %.2f, longest %" PetscInt_FMT "; %" PetscInt_FMT " empty rows\n", bc->stats.mean, bc->stats.stddev, bc->stats.maxlen, h->nempty));
  PetscCall(PetscViewerASCIIPrintf(viewer, "threads per row: at most %d entries each, %" PetscInt_FMT " (%s) in rows of more than %" PetscInt_FMT " entries (%s)\n", BCE_ENTRIES_PER_THREAD, h->wide.entries, bc->wide.entries ? "set" : "chosen", h->wide.row, bc->wide.row ? "set" : "chosen"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "%" PetscInt64_FMT " slots for %" PetscInt_FMT " entries: padding ratio %.4f (never read); %" PetscInt_FMT " CUDA blocks of %d threads, %" PetscInt_FMT " rows split in parts\n", h->nslots, h->nnz, (double)BCEPaddingRatio(h), h->nsub, BCE_BLOCK, h->nsplit));
  if (bc->hot > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "hot columns: %" PetscInt_FMT " (of %" PetscInt_FMT " requested) hold %.1f%% of the entries, read from x packed before each product\n", bc->nhot, bc->hot, h->nnz ? 100.0 * (double)bc->hotnnz / (double)h->nnz : 0.0));
  else if (bc->hot < 0 && bc->nhot) PetscCall(PetscViewerASCIIPrintf(viewer, "hot columns (automatic): %" PetscInt_FMT " hold %.1f%% of the entries, read from x packed before each product\n", bc->nhot, h->nnz ? 100.0 * (double)bc->hotnnz / (double)h->nnz : 0.0));
  else if (bc->hot < 0 && bc->hotk) PetscCall(PetscViewerASCIIPrintf(viewer, "hot columns (automatic): none; the %" PetscInt_FMT " most used (%.1f%% of the columns) hold %.1f%% of the entries, below %.0f%% or %g times their share of the columns\n", bc->hotk, h->n ? 100.0 * (double)bc->hotk / (double)h->n : 0.0, h->nnz ? 100.0 * (double)bc->hotknnz / (double)h->nnz : 0.0, 100.0 * BCE_HOT_MIN_SHARE, (double)BCE_HOT_SKEW));
  else if (bc->hot < 0) PetscCall(PetscViewerASCIIPrintf(viewer, "hot columns (automatic): none; the row lengths vary less than their mean, or fewer than %d columns\n", BCE_HOT_MIN_COLUMNS));
  PetscCall(PetscViewerASCIIPrintf(viewer, "blocks (M_i = width, rows, threads per row):"));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
  for (PetscInt b = b0; b < h->nblocks; b++) {
    if (b - b0 == 64 && h->nblocks - b > 8) {
      PetscCall(PetscViewerASCIIPrintf(viewer, " ... (%" PetscInt_FMT " more)", h->nblocks - b - 4));
      b = h->nblocks - 4;
    }
    PetscCall(PetscViewerASCIIPrintf(viewer, " %d:%d:%d", h->blocks[b].width, h->blocks[b].nrows, 1 << h->blocks[b].logt));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BCEMemory(void *fmt, PetscLogDouble *bytes)
{
  PetscFunctionBegin;
  *bytes = ((Mat_BCE *)fmt)->bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

MatGPUFormatOps MatBCEOps = {"bce", "BCE", MATSEQBCE, MATMPIBCE, BCECreate, BCECopyParams, BCESameParams, BCESetFromOptions, BCEBuild, BCERefresh, BCEMult, BCEReset, BCEView, BCEMemory, 0, 0, BCEMultRefresh};

/*MC
   MATSEQBCE - "seqaijcusparsebce" - A sequential `MATSEQAIJCUSPARSE` matrix that multiplies on the GPU in BCE,
   the blocked CSR/ELL format with the optimal partitioning algorithm of Yang, Li and Li, "Performance analysis
   and optimization for SpMV on GPU using probabilistic modeling", IEEE Trans. Parallel Distrib. Syst. 26 (2015).

   The rows are grouped by length into k blocks, block i holding the rows of lengths in (M_{i-1}, M_i], and each
   block is stored as ELL of width M_i. The boundaries minimize the paper's cost model, the sum over blocks of
   W max(N, L) (W the width, N the rows; here N and L count threads, t per row), exactly, by a dynamic program in
   time linear in the number of distinct row lengths. For the 4 x 4 matrix with rows {1 2 3 .}, {. 4 . .},
   {5 . 6 7}, {. . . 8} (lengths 3 1 3 1) and a small L, the blocks are {rows 1, 3} of width 1 and {rows 0, 2}
   of width 3:
.vb
      rowno = [1 3 0 2], Ap = [0 2 4], Aw = [1 3]
      val = [4 8 | 1 5 2 6 3 7],  col = [1 3 | 0 0 1 2 2 3]
.ve
   A CUDA block runs BCE_BLOCK / t rows of one block, t threads per row (t from the block's width); a thread
   stops at its row's length, so padding is never read, and y is written in the original order through rowno:
   the permutation stays inside the type. Rows too long for one CUDA block are split in parts whose partial
   sums the last part adds in order. After a change of values only, the next product reads the new values from the
   CSR (entry j of a row at the row's start + j) and stores them in the slots as it goes. All other operations
   are those of `MATSEQAIJCUSPARSE`; `MatMultTranspose()` uses cuSPARSE.

   Options Database Keys:
+  -mat_type bce - sets the type (with `MatSetFromOptions()`), or converts an assembled `MATSEQAIJCUSPARSE` in place
.  -mat_bce_l <L> - the cost model's L, in threads; 0 (default) derives it from the GPU's occupancy limits
.  -mat_bce_merge_lengths <G> - merge the distinct row lengths into at most G groups first (the paper's rule past 100 lengths); 0 (default): never, the partition is exact
.  -mat_bce_wide_row <W> - rows of more than W entries are wide; 0 (default): 16 in a matrix of at most 2^20 entries, else 512
.  -mat_bce_wide_entries_per_thread <n> - entries per thread at most in wide rows, 1 to 64 (64 in the others); 0 (default): 16 when the wide rows hold at most 2^21 entries, else 64
-  -mat_bce_hot_columns <k> - the k columns with the most entries are read from a copy of x packed before each product (an extra kernel), so that the reads of those entries share cache lines; 0: none; -1 (default): automatic: where the row lengths' standard deviation exceeds their mean and the matrix has n >= 262144 columns, the min(131072, n / 8) most used columns, kept if they hold at least 20% of the entries and 4 times their share of the columns

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATBCE`, `MATSEQAIJCUSPARSE`, `MATSEQSELLCS`, `MatBCEGetPartition()`, `MatBCEGetWideRows()`, `MatBCEGetHotColumns()`, `MatGPUFormatGetDeviceMemory()`
M*/
PetscErrorCode MatCreate_SeqBCE(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_SeqGPUFormat_Private(A, &MatBCEOps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatBCEGetPartition - Gets the cost model's L and the blocks of a `MATSEQBCE` matrix

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameters:
+ L      - the cost model's L in use (before the first product: the requested value, 0 for automatic)
. k      - the number of blocks of nonempty rows (0 before the first product)
- widths - the block boundaries M_1 < ... < M_k, the width of each block; an array of k entries that the
           caller frees with `PetscFree()`, or `NULL` when not needed

  Level: intermediate

.seealso: [](ch_matrices), `Mat`, `MATSEQBCE`
@*/
PetscErrorCode MatBCEGetPartition(Mat A, PetscInt *L, PetscInt *k, PetscInt **widths)
{
  Mat_BCE *bc;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(MatGPUFormatRequireFormat_Private(A, &MatBCEOps, (void **)&bc));
  if (L) *L = bc->h.L ? bc->h.L : bc->L;
  if (k) *k = bc->h.k;
  if (widths) {
    PetscCall(PetscMalloc1(bc->h.k, widths));
    for (PetscInt i = 0; i < bc->h.k; i++) (*widths)[i] = bc->h.blocks[i + (bc->h.nempty ? 1 : 0)].width;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatBCEGetHotColumns - Gets the hot columns of a `MATSEQBCE` matrix's last build: the columns with the most entries,
  whose entries its product reads from a copy of x packed before each product

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameters:
+ requested - the hot columns requested (-mat_bce_hot_columns; 0: none, -1: automatic)
. nhot      - the hot columns of the last build: the requested number, or fewer where fewer columns have entries
- hotnnz    - the entries in those columns

  Level: intermediate

  Note:
  0 before the first build. Pass `NULL` for values not needed.

.seealso: [](ch_matrices), `Mat`, `MATSEQBCE`, `MatBCEGetPartition()`
@*/
PetscErrorCode MatBCEGetHotColumns(Mat A, PetscInt *requested, PetscInt *nhot, PetscInt64 *hotnnz)
{
  Mat_BCE *bc;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(MatGPUFormatRequireFormat_Private(A, &MatBCEOps, (void **)&bc));
  if (requested) *requested = bc->hot;
  if (nhot) *nhot = bc->nhot;
  if (hotnnz) *hotnnz = bc->hotnnz;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatBCEGetWideRows - Gets the rule for wide rows of a `MATSEQBCE` matrix: rows of more than `row` entries get at most
  `entries` entries per thread, the others at most 64

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameters:
+ row     - the length past which a row is wide, as the last build chose it (before the first build, and while the
            matrix has no entries: the requested value, 0 for chosen)
- entries - the entries per thread at most in wide rows, likewise

  Level: intermediate

  Note:
  Set with `-mat_bce_wide_row` and `-mat_bce_wide_entries_per_thread`; see `MATSEQBCE` for the choice. A change of
  these options takes effect at the next build (the next product), and only then shows here.

.seealso: [](ch_matrices), `Mat`, `MATSEQBCE`, `MatBCEGetPartition()`
@*/
PetscErrorCode MatBCEGetWideRows(Mat A, PetscInt *row, PetscInt *entries)
{
  Mat_BCE *bc;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(MatGPUFormatRequireFormat_Private(A, &MatBCEOps, (void **)&bc));
  if (row) *row = bc->h.wide.entries ? bc->h.wide.row : bc->wide.row; /* h.wide is set by a build */
  if (entries) *entries = bc->h.wide.entries ? bc->h.wide.entries : bc->wide.entries;
  PetscFunctionReturn(PETSC_SUCCESS);
}

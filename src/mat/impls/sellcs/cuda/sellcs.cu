/*
   SELL-C-sigma on the GPU: the device build from cuSPARSE's CSR, the product with T threads per row, and
   the format interface that the common layer turns into the MATSEQSELLCS type.
*/
#include "../sellcs.h"
#include <petsc/private/petscimpl.h>
#include <cub/device/device_segmented_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/transform_reduce.h>

#define SELLCS_BLOCK 256 /* threads per block of the build kernels, and at most of the product */
/*
   Threads per block of the product: with sorting, 256, so that a block runs 256 neighbouring sorted rows on one
   SM (the circuit-like matrix took 145 us against 171 us with 64); without, 64, 2 to 3% faster on the Laplacians
*/
#define SELLCS_BLOCK_SORTED   256
#define SELLCS_BLOCK_UNSORTED 64
#define SELLCS_UNROLL         8    /* entries each thread loads before it uses the first: rows of up to 8 take one round trip */
#define SELLCS_CHUNK          1024 /* entries per warp in the long part */
/* resident threads per SM the register count must allow: 48 registers with one thread per row, 64 with more */
#define SELLCS_MIN_THREADS(T) ((T) == 1 ? 1280 : 1024)
/* the product with the refresh fused into it (one product after each change of values) also gathers each entry's new
   value from its row's CSR entries (a sorted row's entries keep the CSR order) and stores it: it loads
   SELLCS_UNROLL_REFRESH entries ahead instead of SELLCS_UNROLL, so that it keeps as many threads resident as the product
   alone without spilling (with 8 ahead, and a position map read per slot then, it needed 96 to 114 registers, 512
   threads per SM, and the gathers waited: circuit, H200, 227 us where the refresh alone took 143) */
#define SELLCS_UNROLL_REFRESH      4
#define SELLCS_MIN_THREADS_REFRESH 1024

typedef struct {
  /* parameters */
  PetscInt  C;        /* rows per chunk */
  PetscInt  sigma;    /* sorting scope; 0: chosen at build time */
  PetscInt  threads;  /* threads per row; 0: chosen at build time */
  PetscInt  rthreads; /* threads per row of the product with the refresh fused into it; 0: chosen at build time */
  PetscInt  longrow;  /* rows longer than this go to the long part; 0: chosen at build time */
  PetscBool readpad;  /* read the padded slots of a chunk (column 0, value 0) instead of stopping at each row's length */
  /* the matrix, on the device */
  SELLCSArrays         d;
  int                 *lchunkptr; /* nlong + 1: chunks of long row l are [lchunkptr[l], lchunkptr[l+1]) */
  int                 *lchunkrow; /* nlchunks: the long row of each chunk */
  PetscScalar         *lpartial;  /* nlchunks partial sums */
  unsigned            *ldone;     /* nlong chunk counters, back to 0 after each product */
  PetscInt             nlchunks;
  PetscInt64           nlongnnz; /* entries in the long part */
  PetscInt             T;        /* threads per row in use */
  PetscInt             Tr;       /* threads per row in use by the product with the refresh fused into it */
  PetscInt             block;    /* threads per CUDA block of the product */
  PetscReal            beta_unsorted;
  MatGPUFormatRowStats stats;
  PetscLogDouble       bytes;
  MatGPUFormatScratch  scratch; /* the build's device temporaries */
  void                *mem[3];  /* the device allocations that hold the arrays: the long part's (lrow, lptr, lchunkptr, ldone,
                                   lcol, lval, lpartial, lchunkrow); rowlen, perm and chunk_ptr; col and val */
} Mat_SELLCS;

/*
   The product's arguments, 128 bytes: with one more pointer (136 bytes) nvcc addressed the structure in memory
   instead of reading its fields, and the same kernel ran the 2D Laplacian 8% slower (bench/README.md); pass
   anything more as a separate kernel argument
*/
struct SELLCSKernelArgs {
  int                m, logC;
  const int         *rowlen, *perm, *col;
  const long long   *chunk_ptr;
  const PetscScalar *val;
  int                nlong, nlchunks, lblocks; /* the long part, done by the first lblocks blocks */
  const int         *lrow, *lptr, *lcol, *lchunkptr, *lchunkrow;
  const PetscScalar *lval;
  PetscScalar       *lpartial;
  unsigned          *ldone;
};

/* With the refresh fused into the product: the new values (CSR order), the CSR's row offsets (a sorted row r takes its
   values from the start of its original row, perm[r]) and where they go; a separate kernel argument, since
   SELLCSKernelArgs must stay at 128 bytes */
struct SELLCSRefreshArgs {
  const PetscScalar *csrval;
  const int         *rowptr;
  PetscScalar       *val, *lval;
};

/*
   Chunk c of the long part, by one warp: the partial sum of its SELLCS_CHUNK entries; the warp that finishes
   the last chunk of a row (a counter per row) adds the partial sums in chunk order, so the result does not
   depend on timing.
*/
template <bool ADD, bool REFRESH>
__device__ static void sellcs_long_chunk(const SELLCSKernelArgs &a, const SELLCSRefreshArgs &f, int c, const PetscScalar *__restrict__ x, const PetscScalar *y, PetscScalar *z, int lane)
{
  const int   lo   = __ldg(a.lchunkrow + c); /* the long row of chunk c */
  unsigned    last = 0;
  PetscScalar sum  = 0.0;
  const int   c0 = a.lchunkptr[lo], c1 = a.lchunkptr[lo + 1];
  const int   b = a.lptr[lo] + (c - c0) * SELLCS_CHUNK, e = min(a.lptr[lo + 1], b + SELLCS_CHUNK);
  const int   d = REFRESH ? f.rowptr[a.lrow[lo]] - a.lptr[lo] : 0; /* with REFRESH: the CSR entry of long entry j is j + d */

  for (int j = b + lane; j < e; j += 32 * SELLCS_UNROLL) {
    int         cc[SELLCS_UNROLL];
    PetscScalar v[SELLCS_UNROLL];

#pragma unroll
    for (int u = 0; u < SELLCS_UNROLL; u++) {
      const bool in = j + 32 * u < e;

      cc[u] = in ? __ldcs(a.lcol + j + 32 * u) : 0;
      if (REFRESH) v[u] = in ? __ldcs(f.csrval + j + 32 * u + d) : 0.0;
      else v[u] = in ? __ldcs(a.lval + j + 32 * u) : 0.0;
    }
    if (REFRESH) {
#pragma unroll
      for (int u = 0; u < SELLCS_UNROLL; u++)
        if (j + 32 * u < e) f.lval[j + 32 * u] = v[u];
    }
#pragma unroll
    for (int u = 0; u < SELLCS_UNROLL; u++)
      if (j + 32 * u < e) v[u] *= __ldg(x + cc[u]);
#pragma unroll
    for (int u = 0; u < SELLCS_UNROLL; u++) sum += v[u];
  }
  sum = MatGPUFormatWarpSum(sum);
  if (c1 - c0 == 1) { /* a row of one chunk needs no partial sums */
    if (lane == 0) {
      const int o = a.lrow[lo];

      z[o] = ADD ? y[o] + sum : sum;
    }
    return;
  }
  if (lane == 0) a.lpartial[c] = sum;
  __threadfence(); /* the partial sum is visible before the counter moves */
  __syncwarp();
  if (lane == 0) last = atomicAdd(a.ldone + lo, 1u) == (unsigned)(c1 - c0 - 1);
  last = __shfl_sync(0xffffffffu, last, 0);
  if (!last) return;
  __threadfence();
  sum = 0.0;
  for (int q = c0 + lane; q < c1; q += 32) sum += __ldcg(a.lpartial + q);
  sum = MatGPUFormatWarpSum(sum);
  if (lane == 0) {
    const int o = a.lrow[lo];

    z[o]        = ADD ? y[o] + sum : sum;
    a.ldone[lo] = 0;
  }
}

/*
   T threads per sorted row r (T = 1 is the paper's GPU kernel, T > 1 its Sliced ELLR-T variant): thread t
   of the row adds entries t, t + T, ..., stopping at the row's length, so padding is never read (with PAD,
   at the chunk's width instead: padded slots hold column 0 and value 0); the T partial sums combine by
   shuffles and the row is written in the original order, z[perm[r]]. The first lblocks blocks do the long
   part instead. y may alias z.
*/
template <int T, bool ADD, bool PAD, bool REFRESH>
__global__ static void __launch_bounds__(SELLCS_BLOCK_SORTED, (REFRESH ? SELLCS_MIN_THREADS_REFRESH : SELLCS_MIN_THREADS(T)) / SELLCS_BLOCK_SORTED) sellcs_mult_kernel(const SELLCSKernelArgs a, const SELLCSRefreshArgs f, const PetscScalar *__restrict__ x, const PetscScalar *y, PetscScalar *z)
{
  if ((int)blockIdx.x < a.lblocks) { /* the long part first, so that it starts first */
    const int c = (int)(blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5));

    if (c < a.nlchunks) sellcs_long_chunk<ADD, REFRESH>(a, f, c, x, y, z, threadIdx.x & 31);
    return;
  }
  const long long tid    = (long long)(blockIdx.x - a.lblocks) * blockDim.x + threadIdx.x;
  const long long r      = tid / T;
  const int       t      = (int)(tid % T);
  const bool      active = r < a.m;
  const int       C      = 1 << a.logC;
  const int       len    = active ? __ldg(a.rowlen + r) : 0;
  const long long base   = active ? a.chunk_ptr[r >> a.logC] + (r & (C - 1)) : 0;
  const int       end    = PAD && active ? (int)((a.chunk_ptr[(r >> a.logC) + 1] - a.chunk_ptr[r >> a.logC]) >> a.logC) : len;
  const int       e0     = REFRESH && len > 0 ? __ldg(f.rowptr + (a.perm ? __ldg(a.perm + r) : (int)r)) : 0; /* the row's CSR start */
  PetscScalar     sum    = 0.0;

  constexpr int U = REFRESH ? SELLCS_UNROLL_REFRESH : SELLCS_UNROLL;

  for (int j = t; j < end; j += T * U) {
    int         c[U];
    PetscScalar v[U];

#pragma unroll
    for (int u = 0; u < U; u++) {
      const int       jj   = j + u * T;
      const long long slot = base + (long long)jj * C;

      c[u] = jj < end ? __ldcs(a.col + slot) : 0;
      if (REFRESH) v[u] = jj < len ? __ldg(f.csrval + e0 + jj) : 0.0; /* the new value: entry jj of the row in the CSR (padding 0) */
      else v[u] = jj < end ? __ldcs(a.val + slot) : 0.0;
    }
    if (REFRESH) { /* stored in the format once all loads of the step are issued */
#pragma unroll
      for (int u = 0; u < U; u++)
        if (j + u * T < end) f.val[base + (long long)(j + u * T) * C] = v[u];
    }
#pragma unroll
    for (int u = 0; u < U; u++)
      if (j + u * T < end) v[u] *= __ldg(x + c[u]);
#pragma unroll
    for (int u = 0; u < U; u++) sum += v[u];
  }
  if constexpr (T > 1) {
#pragma unroll
    for (int off = T / 2; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  }
  if (active && t == 0 && len >= 0) { /* a long row (-1) is the long part's */
    const int o = a.perm ? a.perm[r] : (int)r;

    z[o] = ADD ? y[o] + sum : sum;
  }
}

template <int T, bool REFRESH>
static void SELLCSLaunchKernel(const SELLCSKernelArgs &a, const SELLCSRefreshArgs &f, unsigned blocks, int bs, PetscBool pad, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  if (pad) {
    if (y) sellcs_mult_kernel<T, true, true, REFRESH><<<blocks, bs, 0, stream>>>(a, f, x, y, z);
    else sellcs_mult_kernel<T, false, true, REFRESH><<<blocks, bs, 0, stream>>>(a, f, x, NULL, z);
  } else {
    if (y) sellcs_mult_kernel<T, true, false, REFRESH><<<blocks, bs, 0, stream>>>(a, f, x, y, z);
    else sellcs_mult_kernel<T, false, false, REFRESH><<<blocks, bs, 0, stream>>>(a, f, x, NULL, z);
  }
}

/* f: NULL for the product alone, else the new values the product takes and stores (the refresh fused into it) */
template <int T>
static PetscErrorCode SELLCSLaunch(const SELLCSKernelArgs &a, const SELLCSRefreshArgs *f, int bs, PetscBool pad, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  const unsigned          blocks = (unsigned)(a.lblocks + ((long long)a.m * T + bs - 1) / bs);
  const SELLCSRefreshArgs none   = {NULL, NULL, NULL, NULL};

  PetscFunctionBegin;
  if (f) SELLCSLaunchKernel<T, true>(a, *f, blocks, bs, pad, x, y, z, stream);
  else SELLCSLaunchKernel<T, false>(a, none, blocks, bs, pad, x, y, z, stream);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int SELLCSLog2(PetscInt v)
{
  int l = 0;

  while ((1 << l) < v) l++;
  return l;
}

/* The product, and with f the refresh fused into it */
static PetscErrorCode SELLCSMultPossiblyRefresh(const Mat_SELLCS *sc, const SELLCSRefreshArgs *f, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  const SELLCSKernelArgs a = {(int)sc->d.m, SELLCSLog2(sc->d.C), sc->d.rowlen, sc->d.perm, sc->d.col, (const long long *)sc->d.chunk_ptr, sc->d.val, (int)sc->d.nlong, (int)sc->nlchunks, (int)((sc->nlchunks + sc->block / 32 - 1) / (sc->block / 32)), sc->d.lrow, sc->d.lptr, sc->d.lcol, sc->lchunkptr, sc->lchunkrow, sc->d.lval, sc->lpartial, sc->ldone};

  PetscFunctionBegin;
  switch (f ? sc->Tr : sc->T) { /* the slots do not depend on the threads per row: the fused refresh takes its own */
  case 1:
    PetscCall(SELLCSLaunch<1>(a, f, (int)sc->block, sc->readpad, x, y, z, stream));
    break;
  case 2:
    PetscCall(SELLCSLaunch<2>(a, f, (int)sc->block, sc->readpad, x, y, z, stream));
    break;
  case 4:
    PetscCall(SELLCSLaunch<4>(a, f, (int)sc->block, sc->readpad, x, y, z, stream));
    break;
  case 8:
    PetscCall(SELLCSLaunch<8>(a, f, (int)sc->block, sc->readpad, x, y, z, stream));
    break;
  case 16:
    PetscCall(SELLCSLaunch<16>(a, f, (int)sc->block, sc->readpad, x, y, z, stream));
    break;
  case 32:
    PetscCall(SELLCSLaunch<32>(a, f, (int)sc->block, sc->readpad, x, y, z, stream));
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "SELL-C-sigma has no kernel for %" PetscInt_FMT " threads per row", f ? sc->Tr : sc->T);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SELLCSMult(void *fmt, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCall(SELLCSMultPossiblyRefresh((const Mat_SELLCS *)fmt, NULL, x, y, z, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The product that first takes the new values of the device CSR: each row's from its CSR entries, the long part's
   whole, as SELLCSRefresh() does, in the same pass */
static PetscErrorCode SELLCSMultRefresh(void *fmt, const MatGPUFormatCSR *csr, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  Mat_SELLCS             *sc = (Mat_SELLCS *)fmt;
  const SELLCSRefreshArgs f  = {csr->val, csr->rowptr, sc->d.val, sc->d.lval};

  PetscFunctionBegin;
  PetscCall(SELLCSMultPossiblyRefresh(sc, &f, x, y, z, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ device build */

/* Row lengths, -1 for the long rows */
__global__ static void sellcs_row_lengths_kernel(int m, int longrow, const int *__restrict__ rowptr, int *__restrict__ len)
{
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < m; i += (long long)gridDim.x * blockDim.x) {
    const int l = rowptr[i + 1] - rowptr[i];

    len[i] = l > longrow ? -1 : l;
  }
}

/* A long row of the CSR (length -1 in len), by its index: what the long part's selection keeps */
struct SELLCSIsLongRow {
  const int      *len;
  __device__ bool operator()(int i) const { return len[i] < 0; }
};

/*
   What the build needs on the host, in one reduction over the chunks of C unsorted rows (len: a row's length, -1 for a
   long row): the long part's rows, their entries and their chunks of SELLCS_CHUNK entries, and the slots of the chunks
   without sorting (C x the longest short row of each; rows past m have length 0)
*/
struct SELLCSSizes {
  long long rows, nnz, chunks, slots;
};

struct SELLCSSizesOfChunk {
  const int             *rowptr, *len;
  int                    m, C;
  __device__ SELLCSSizes operator()(int c) const
  {
    SELLCSSizes t = {0, 0, 0, 0};
    int         w = 0;

    for (int k = 0; k < C && c * C + k < m; k++) {
      const int i = c * C + k, l = len[i];

      if (l < 0) {
        const long long e = (long long)rowptr[i + 1] - rowptr[i];

        t.rows++;
        t.nnz += e;
        t.chunks += (e + SELLCS_CHUNK - 1) / SELLCS_CHUNK;
      } else w = max(w, l);
    }
    t.slots = (long long)C * w;
    return t;
  }
};

struct SELLCSSizesSum {
  __host__ __device__ SELLCSSizes operator()(const SELLCSSizes &a, const SELLCSSizes &b) const { return {a.rows + b.rows, a.nnz + b.nnz, a.chunks + b.chunks, a.slots + b.slots}; }
};

/* Length and chunk count of each long row */
__global__ static void sellcs_long_sizes_kernel(int nlong, const int *__restrict__ rowptr, const int *__restrict__ lrow, int *__restrict__ lptr, int *__restrict__ lchunkptr)
{
  for (long long l = blockIdx.x * (long long)blockDim.x + threadIdx.x; l < nlong; l += (long long)gridDim.x * blockDim.x) {
    const int len = rowptr[lrow[l] + 1] - rowptr[lrow[l]];

    lptr[l]      = len;
    lchunkptr[l] = (len + SELLCS_CHUNK - 1) / SELLCS_CHUNK;
  }
}

/* The long row of each chunk of the long part */
__global__ static void sellcs_chunk_rows_kernel(int nlong, const int *__restrict__ lchunkptr, int *__restrict__ lchunkrow)
{
  for (long long l = blockIdx.x * (long long)blockDim.x + threadIdx.x; l < nlong; l += (long long)gridDim.x * blockDim.x) {
    for (int c = lchunkptr[l]; c < lchunkptr[l + 1]; c++) lchunkrow[c] = (int)l;
  }
}

/*
   The long part's entries from the CSR, and its columns unless lcol is NULL (the value refresh): one warp per chunk
   of SELLCS_CHUNK entries as in the product, so that the longest row does not keep one warp busy to the end
*/
__global__ static void sellcs_long_fill_kernel(int nlchunks, const int *__restrict__ rowptr, const int *__restrict__ colind, const PetscScalar *__restrict__ csrval, const int *__restrict__ lrow, const int *__restrict__ lptr, const int *__restrict__ lchunkptr, const int *__restrict__ lchunkrow, int *__restrict__ lcol, PetscScalar *__restrict__ lval)
{
  const int lane = threadIdx.x & 31;

  for (long long c = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32; c < nlchunks; c += (long long)gridDim.x * blockDim.x / 32) {
    const int lo = lchunkrow[c], b = lptr[lo] + ((int)c - lchunkptr[lo]) * SELLCS_CHUNK, e = min(lptr[lo + 1], b + SELLCS_CHUNK);
    const int d = rowptr[lrow[lo]] - lptr[lo]; /* CSR entry of long entry k: k + d */

#pragma unroll 4
    for (int k = b + lane; k < e; k += 32) {
      if (lcol) lcol[k] = colind[k + d];
      lval[k] = csrval[k + d];
    }
  }
}

__global__ static void sellcs_windows_kernel(int nwin, int m, int sigma, int *__restrict__ offsets)
{
  for (long long w = blockIdx.x * (long long)blockDim.x + threadIdx.x; w <= nwin; w += (long long)gridDim.x * blockDim.x) offsets[w] = (int)min((long long)w * sigma, (long long)m);
}

/* chunk_ptr[c] = C x (longest row of chunk c), before the exclusive scan */
__global__ static void sellcs_widths_kernel(int nchunks, int C, const int *__restrict__ rowlen, long long *__restrict__ width)
{
  for (long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x; c < nchunks; c += (long long)gridDim.x * blockDim.x) {
    int w = 0;

    for (int k = 0; k < C; k++) w = max(w, rowlen[c * C + k]);
    width[c] = (long long)C * w;
  }
}

#define SELLCS_FILL_UNROLL 8 /* entries a thread of the fill loads before it stores the first */

/*
   The chunks' slots in order: one thread per row of a chunk (lane r of chunk c, the sorted row c C + r) writes the row's
   entries and then the padding up to the chunk's width (column 0, value 0), so consecutive threads write consecutive
   slots and nothing needs zeroing first; each thread loads SELLCS_FILL_UNROLL entries of its row at a time. A long row
   (length -1) is all padding here: it lives in the long part. perm: the original row of each sorted row (NULL when
   sigma = 1). With COLS the build (columns and values), without it the value refresh (the values of the rows' entries
   alone; the entries of a sorted row keep the order of its CSR row).
*/
template <bool COLS>
__global__ static void __launch_bounds__(SELLCS_BLOCK) sellcs_fill_kernel(int m, int nchunks, int logC, const int *__restrict__ rowptr, const int *__restrict__ colind, const PetscScalar *__restrict__ csrval, const int *__restrict__ perm, const int *__restrict__ rowlen, const long long *__restrict__ chunk_ptr, int *__restrict__ col, PetscScalar *__restrict__ val)
{
  const long long nthreads = (long long)nchunks << logC;

  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < nthreads; t += (long long)gridDim.x * blockDim.x) {
    const long long c = t >> logC, base = chunk_ptr[c] + (t & ((1LL << logC) - 1)), w = (chunk_ptr[c + 1] - chunk_ptr[c]) >> logC;
    const int       l    = t < m ? max(rowlen[t], 0) : 0;
    const int       e0   = l ? rowptr[perm ? perm[t] : t] : 0;
    const long long wend = COLS ? w : l; /* the refresh leaves the padding alone: zero since the build */

    for (long long j0 = 0; j0 < wend; j0 += SELLCS_FILL_UNROLL) {
      int         cj[SELLCS_FILL_UNROLL];
      PetscScalar vj[SELLCS_FILL_UNROLL];

#pragma unroll
      for (int u = 0; u < SELLCS_FILL_UNROLL; u++) {
        const long long j = j0 + u;

        if (COLS) cj[u] = j < l ? colind[e0 + j] : 0;
        vj[u] = j < l ? csrval[e0 + j] : 0.0;
      }
#pragma unroll
      for (int u = 0; u < SELLCS_FILL_UNROLL; u++) {
        const long long j = j0 + u, slot = base + (j << logC);

        if (j < wend) {
          if (COLS) col[slot] = cj[u];
          val[slot] = vj[u];
        }
      }
    }
  }
}

static PetscErrorCode SELLCSReset(void *fmt)
{
  Mat_SELLCS *sc = (Mat_SELLCS *)fmt;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatScratchRelease_Private(&sc->scratch, 0)); /* temporaries of a build that stopped with an error */
  PetscCall(PetscArrayzero(&sc->d, 1));
  sc->lchunkptr = sc->lchunkrow = NULL;
  sc->lpartial                  = NULL;
  sc->ldone                     = NULL;
  /* the views first, so that none outlives its block on any path */
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(sc->mem); i++) PetscCall(MatGPUFormatDeviceFree_Private(&sc->mem[i]));
  sc->T        = 0;
  sc->Tr       = 0;
  sc->nlchunks = 0;
  sc->nlongnnz = 0;
  sc->bytes    = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Sorts the rows by descending length within windows of sigma rows (stable); rowlen gets the sorted lengths,
   and perm the original row of each sorted row
*/
static PetscErrorCode SELLCSSortRows(SELLCSArrays *d, const int *len, MatGPUFormatScratch *scratch, cudaStream_t stream)
{
  const int m = (int)d->m, nwin = (int)((d->m + d->sigma - 1) / d->sigma);
  int      *iota = NULL, *offsets = NULL;
  void     *work      = NULL;
  size_t    workbytes = 0;
  PetscInt  mark      = scratch->n;

  PetscFunctionBegin;
  /* the sort's storage asked for first (no array is read then, and offsets is still NULL: no arithmetic on it), so that
     its temporaries are one allocation */
  PetscCallCUDA(cub::DeviceSegmentedSort::StableSortPairsDescending(work, workbytes, len, d->rowlen, iota, d->perm, m, nwin, offsets, offsets, stream));
  {
    const MatGPUFormatArray arrays[] = {
        {(void **)&iota,    (size_t)m * sizeof(int)         },
        {(void **)&offsets, (size_t)(nwin + 1) * sizeof(int)},
        {&work,             workbytes                       }
    };

    PetscCall(MatGPUFormatScratchMallocArrays_Private(scratch, "SELL-C-sigma", PETSC_STATIC_ARRAY_LENGTH(arrays), arrays));
  }
  MatGPUFormatCallThrust(thrust::sequence(MatGPUFormatThrustPolicy(stream), iota, iota + m));
  sellcs_windows_kernel<<<MatGPUFormatGrid(nwin + 1, SELLCS_BLOCK), SELLCS_BLOCK, 0, stream>>>(nwin, m, (int)d->sigma, offsets);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cub::DeviceSegmentedSort::StableSortPairsDescending(work, workbytes, len, d->rowlen, iota, d->perm, m, nwin, offsets, offsets + 1, stream));
  PetscCall(MatGPUFormatScratchRelease_Private(scratch, mark)); /* in stream order */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The long part: the rows marked -1 in len, as CSR, and the chunks its warps take. Its sizes are known (SELLCSSizes), so
   all its arrays are one allocation and the rest is queued on the stream: the rows are selected by CUB, which leaves
   their count on the device (Thrust's copy_if would wait for it)
*/
static PetscErrorCode SELLCSLongPart(Mat_SELLCS *sc, const int *len, const SELLCSSizes *sizes, const MatGPUFormatCSR *csr)
{
  SELLCSArrays *d         = &sc->d;
  const auto    policy    = MatGPUFormatThrustPolicy(csr->stream);
  int          *nselected = NULL;
  void         *work      = NULL;
  size_t        workbytes = 0, bytes = 0;
  PetscInt      mark = sc->scratch.n;

  PetscFunctionBegin;
  if (!sizes->rows) PetscFunctionReturn(PETSC_SUCCESS);
  d->nlong     = (PetscInt)sizes->rows;
  sc->nlongnnz = sizes->nnz; /* at most the matrix's entries, MATGPUFORMAT_MAX_NNZ: an int */
  sc->nlchunks = (PetscInt)sizes->chunks;
  {
    const MatGPUFormatArray arrays[] = {
        {(void **)&d->lrow,       (size_t)d->nlong * sizeof(int)            },
        {(void **)&d->lptr,       (size_t)(d->nlong + 1) * sizeof(int)      },
        {(void **)&sc->lchunkptr, (size_t)(d->nlong + 1) * sizeof(int)      },
        {(void **)&sc->ldone,     (size_t)d->nlong * sizeof(unsigned)       },
        {(void **)&d->lcol,       (size_t)sc->nlongnnz * sizeof(int)        },
        {(void **)&d->lval,       (size_t)sc->nlongnnz * sizeof(PetscScalar)},
        {(void **)&sc->lpartial,  (size_t)sc->nlchunks * sizeof(PetscScalar)},
        {(void **)&sc->lchunkrow, (size_t)sc->nlchunks * sizeof(int)        }
    };

    for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(arrays); i++) bytes += arrays[i].bytes;
    PetscCall(MatGPUFormatCheckDeviceMemory_Private("SELL-C-sigma", bytes));
    PetscCall(MatGPUFormatDeviceMallocArrays_Private("SELL-C-sigma", &sc->mem[0], PETSC_STATIC_ARRAY_LENGTH(arrays), arrays));
  }
  /* the selection's storage asked for first (nothing is read then), so that its temporaries are one allocation */
  PetscCallCUDA(cub::DeviceSelect::If(work, workbytes, thrust::counting_iterator<int>(0), d->lrow, nselected, (int)d->m, SELLCSIsLongRow{len}, csr->stream));
  {
    const MatGPUFormatArray arrays[] = {
        {(void **)&nselected, sizeof(int)},
        {&work,               workbytes  }
    };

    PetscCall(MatGPUFormatScratchMallocArrays_Private(&sc->scratch, "SELL-C-sigma", PETSC_STATIC_ARRAY_LENGTH(arrays), arrays));
  }
  PetscCallCUDA(cub::DeviceSelect::If(work, workbytes, thrust::counting_iterator<int>(0), d->lrow, nselected, (int)d->m, SELLCSIsLongRow{len}, csr->stream));
  PetscCall(MatGPUFormatScratchRelease_Private(&sc->scratch, mark)); /* in stream order */
  sellcs_long_sizes_kernel<<<MatGPUFormatGrid(d->nlong, SELLCS_BLOCK), SELLCS_BLOCK, 0, csr->stream>>>((int)d->nlong, csr->rowptr, d->lrow, d->lptr, sc->lchunkptr);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemsetAsync(d->lptr + d->nlong, 0, sizeof(int), csr->stream));
  PetscCallCUDA(cudaMemsetAsync(sc->lchunkptr + d->nlong, 0, sizeof(int), csr->stream));
  PetscCallCUDA(cudaMemsetAsync(sc->ldone, 0, (size_t)d->nlong * sizeof(unsigned), csr->stream));
  MatGPUFormatCallThrust(thrust::exclusive_scan(policy, d->lptr, d->lptr + d->nlong + 1, d->lptr));
  MatGPUFormatCallThrust(thrust::exclusive_scan(policy, sc->lchunkptr, sc->lchunkptr + d->nlong + 1, sc->lchunkptr));
  sellcs_chunk_rows_kernel<<<MatGPUFormatGrid(d->nlong, SELLCS_BLOCK), SELLCS_BLOCK, 0, csr->stream>>>((int)d->nlong, sc->lchunkptr, sc->lchunkrow);
  PetscCallCUDA(cudaGetLastError());
  sellcs_long_fill_kernel<<<MatGPUFormatGrid(32 * sc->nlchunks, SELLCS_BLOCK), SELLCS_BLOCK, 0, csr->stream>>>((int)sc->nlchunks, csr->rowptr, csr->colind, csr->val, d->lrow, d->lptr, sc->lchunkptr, sc->lchunkrow, d->lcol, d->lval);
  PetscCallCUDA(cudaGetLastError());
  sc->bytes = (PetscLogDouble)bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SELLCSBuild(void *fmt, const MatGPUFormatCSR *csr)
{
  Mat_SELLCS   *sc     = (Mat_SELLCS *)fmt;
  SELLCSArrays *d      = &sc->d;
  const auto    policy = MatGPUFormatThrustPolicy(csr->stream);
  int          *len;
  SELLCSSizes   sizes;
  long long     nslots_unsorted, nslots;
  PetscInt64    nnzchunks;
  size_t        bytes;

  PetscFunctionBegin;
  PetscCall(SELLCSReset(fmt));
  sc->stats  = csr->stats;
  d->m       = csr->m;
  d->n       = csr->n;
  d->nnz     = csr->nnz;
  d->C       = sc->C;
  d->nchunks = (d->m + d->C - 1) / d->C;
  sc->T      = sc->threads ? sc->threads : SELLCSDefaultThreads(d->m, &csr->stats);
  sc->Tr     = sc->rthreads ? sc->rthreads : SELLCSDefaultRefreshThreads(sc->T, &csr->stats);
  d->longrow = sc->longrow ? sc->longrow : SELLCSDefaultLongRow(sc->T, &csr->stats);
  PetscCall(MatGPUFormatScratchMalloc_Private(&sc->scratch, "SELL-C-sigma", (size_t)d->m * sizeof(int), (void **)&len)); /* released below, or by reset() */
  sellcs_row_lengths_kernel<<<MatGPUFormatGrid(d->m, SELLCS_BLOCK), SELLCS_BLOCK, 0, csr->stream>>>((int)d->m, (int)PetscMin(d->longrow, PETSC_INT_MAX), csr->rowptr, len);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "row lengths"));
  /* the build's one round trip before the sort: the sizes of the long part and of the chunks unsorted */
  MatGPUFormatCallThrust(sizes = thrust::transform_reduce(policy, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>((int)d->nchunks), SELLCSSizesOfChunk{csr->rowptr, len, (int)d->m, (int)d->C}, SELLCSSizes{0, 0, 0, 0}, SELLCSSizesSum{}));
  nslots_unsorted = sizes.slots;
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "sizes"));
  PetscCall(SELLCSLongPart(sc, len, &sizes, csr));
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "long rows"));
  nnzchunks         = d->nnz - sc->nlongnnz; /* the entries in the chunks, that is not in the long part */
  sc->beta_unsorted = nslots_unsorted ? (PetscReal)nnzchunks / (PetscReal)nslots_unsorted : 1.0;
  d->sigma          = sc->sigma ? sc->sigma : SELLCSDefaultSigma(d->C, sc->beta_unsorted);
  PetscCall(SELLCSCheckParameters(d->C, d->sigma));
  sc->block = d->sigma > 1 ? SELLCS_BLOCK_SORTED : SELLCS_BLOCK_UNSORTED;
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "occupancy"));

  /* rows, chunks and their offsets */
  {
    const MatGPUFormatArray arrays[] = {
        {(void **)&d->rowlen,    (size_t)d->nchunks * d->C * sizeof(int)              },
        {(void **)&d->perm,      d->sigma > 1 ? (size_t)d->m * sizeof(int) : (size_t)0},
        {(void **)&d->chunk_ptr, (size_t)(d->nchunks + 1) * sizeof(long long)         }
    };

    PetscCall(MatGPUFormatDeviceMallocArrays_Private("SELL-C-sigma", &sc->mem[1], PETSC_STATIC_ARRAY_LENGTH(arrays), arrays));
  }
  PetscCallCUDA(cudaMemsetAsync(d->rowlen, 0, (size_t)d->nchunks * d->C * sizeof(int), csr->stream));
  if (d->sigma > 1) PetscCall(SELLCSSortRows(d, len, &sc->scratch, csr->stream));
  else PetscCallCUDA(cudaMemcpyAsync(d->rowlen, len, (size_t)d->m * sizeof(int), cudaMemcpyDeviceToDevice, csr->stream));
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "sort"));
  sellcs_widths_kernel<<<MatGPUFormatGrid(d->nchunks, SELLCS_BLOCK), SELLCS_BLOCK, 0, csr->stream>>>((int)d->nchunks, (int)d->C, d->rowlen, (long long *)d->chunk_ptr);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemsetAsync(d->chunk_ptr + d->nchunks, 0, sizeof(long long), csr->stream));
  MatGPUFormatCallThrust(thrust::exclusive_scan(policy, (long long *)d->chunk_ptr, (long long *)d->chunk_ptr + d->nchunks + 1, (long long *)d->chunk_ptr));
  PetscCallCUDA(cudaMemcpyAsync(&nslots, d->chunk_ptr + d->nchunks, sizeof(long long), cudaMemcpyDeviceToHost, csr->stream));
  PetscCallCUDA(cudaStreamSynchronize(csr->stream));
  PetscCall(MatGPUFormatScratchRelease_Private(&sc->scratch, 0));
  d->nslots = nslots;
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "chunk offsets"));

  /* the entries, padding zeroed, written in slot order */
  bytes = (size_t)nslots * (sizeof(int) + sizeof(PetscScalar));
  PetscCall(MatGPUFormatCheckDeviceMemory_Private("SELL-C-sigma", bytes));
  {
    const MatGPUFormatArray arrays[] = {
        {(void **)&d->col, (size_t)nslots * sizeof(int)        },
        {(void **)&d->val, (size_t)nslots * sizeof(PetscScalar)}
    };

    PetscCall(MatGPUFormatDeviceMallocArrays_Private("SELL-C-sigma", &sc->mem[2], PETSC_STATIC_ARRAY_LENGTH(arrays), arrays));
  }
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "allocate"));
  sellcs_fill_kernel<true><<<MatGPUFormatGrid(d->nchunks * d->C, SELLCS_BLOCK), SELLCS_BLOCK, 0, csr->stream>>>((int)d->m, (int)d->nchunks, SELLCSLog2(d->C), csr->rowptr, csr->colind, csr->val, d->perm, d->rowlen, (const long long *)d->chunk_ptr, d->col, d->val);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "fill"));
  sc->bytes += (PetscLogDouble)bytes + (PetscLogDouble)d->nchunks * d->C * sizeof(int) + (d->nchunks + 1) * sizeof(long long) + (d->sigma > 1 ? d->m * sizeof(int) : 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SELLCSRefresh(void *fmt, const MatGPUFormatCSR *csr)
{
  Mat_SELLCS         *sc = (Mat_SELLCS *)fmt;
  const SELLCSArrays *d  = &sc->d;

  PetscFunctionBegin;
  if (d->nslots) { /* the short part, in slot order, as the build fills it */
    sellcs_fill_kernel<false><<<MatGPUFormatGrid(d->nchunks * d->C, SELLCS_BLOCK), SELLCS_BLOCK, 0, csr->stream>>>((int)d->m, (int)d->nchunks, SELLCSLog2(d->C), csr->rowptr, NULL, csr->val, d->perm, d->rowlen, (const long long *)d->chunk_ptr, NULL, d->val);
    PetscCallCUDA(cudaGetLastError());
  }
  if (sc->d.nlong) { /* the long part is CSR: its rows' values are copied whole */
    sellcs_long_fill_kernel<<<MatGPUFormatGrid(32 * sc->nlchunks, SELLCS_BLOCK), SELLCS_BLOCK, 0, csr->stream>>>((int)sc->nlchunks, csr->rowptr, NULL, csr->val, sc->d.lrow, sc->d.lptr, sc->lchunkptr, sc->lchunkrow, NULL, sc->d.lval);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ the format interface */

static PetscErrorCode SELLCSCreate(void **fmt)
{
  Mat_SELLCS *sc;

  PetscFunctionBegin;
  PetscCall(PetscNew(&sc));
  sc->C = 32;
  *fmt  = sc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SELLCSCopyParams(const void *src, void *dst)
{
  const Mat_SELLCS *a = (const Mat_SELLCS *)src;
  Mat_SELLCS       *b = (Mat_SELLCS *)dst;

  PetscFunctionBegin;
  b->C        = a->C;
  b->sigma    = a->sigma;
  b->threads  = a->threads;
  b->rthreads = a->rthreads;
  b->longrow  = a->longrow;
  b->readpad  = a->readpad;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SELLCSSameParams(const void *pa, const void *pb, PetscBool *same)
{
  const Mat_SELLCS *a = (const Mat_SELLCS *)pa, *b = (const Mat_SELLCS *)pb;

  PetscFunctionBegin;
  *same = (PetscBool)(a->C == b->C && a->sigma == b->sigma && a->threads == b->threads && a->rthreads == b->rthreads && a->longrow == b->longrow && a->readpad == b->readpad);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SELLCSSetFromOptions(void *fmt, MatGPUFormatOptionItems PetscOptionsObject)
{
  Mat_SELLCS *sc = (Mat_SELLCS *)fmt;
  PetscInt    C = sc->C, sigma = sc->sigma, T = sc->threads, Tr = sc->rthreads, longrow = sc->longrow;

  PetscFunctionBegin;
  PetscCall(PetscOptionsInt("-mat_sellcs_c", "Rows per chunk: 4, 8, 16 or 32", "MATSEQSELLCS", C, &C, NULL));
  PetscCall(PetscOptionsInt("-mat_sellcs_sigma", "Sorting scope: 1 or a power-of-two multiple of C; 0 chooses from the chunk occupancy", "MATSEQSELLCS", sigma, &sigma, NULL));
  PetscCall(PetscOptionsInt("-mat_sellcs_threads_per_row", "Threads per row: 1, 2, 4, 8, 16 or 32; 0 chooses from the mean row length (and, in a small matrix of regular rows, the row count)", "MATSEQSELLCS", T, &T, NULL));
  PetscCall(PetscOptionsInt("-mat_sellcs_refresh_threads_per_row", "Threads per row of the first product after a change of values, which also takes the new values: 1, 2, 4, 8, 16 or 32; 0 chooses from the mean row length", "MATSEQSELLCS", Tr, &Tr, NULL));
  PetscCall(PetscOptionsInt("-mat_sellcs_long_row", "Rows longer than this leave the chunks for the long part; 0 chooses from the threads per row", "MATSEQSELLCS", longrow, &longrow, NULL));
  PetscCall(PetscOptionsBool("-mat_sellcs_read_padding", "Read the padded slots of a chunk (column 0, value 0) up to its width instead of stopping at each row's length", "MATSEQSELLCS", sc->readpad, &sc->readpad, NULL));
  PetscCall(SELLCSCheckParameters(C, sigma ? sigma : 1));
  PetscCheck(longrow >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_sellcs_long_row %" PetscInt_FMT " is negative", longrow);
  PetscCheck(T == 0 || (T <= 32 && (T & (T - 1)) == 0 && T > 0), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_sellcs_threads_per_row %" PetscInt_FMT " is not one of 0, 1, 2, 4, 8, 16, 32", T);
  PetscCheck(Tr == 0 || (Tr <= 32 && (Tr & (Tr - 1)) == 0 && Tr > 0), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_sellcs_refresh_threads_per_row %" PetscInt_FMT " is not one of 0, 1, 2, 4, 8, 16, 32", Tr);
  sc->C        = C;
  sc->sigma    = sigma;
  sc->threads  = T;
  sc->rthreads = Tr;
  sc->longrow  = longrow;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SELLCSView(void *fmt, PetscViewer viewer)
{
  const Mat_SELLCS *sc = (const Mat_SELLCS *)fmt;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "C %" PetscInt_FMT ", sigma %" PetscInt_FMT " (%s), %" PetscInt_FMT " thread%s per row (%s)\n", sc->d.C, sc->d.sigma, sc->sigma ? "set" : "chosen from the chunk occupancy", sc->T, sc->T > 1 ? "s" : "",
                                   sc->threads ? "set" : "chosen from the row lengths and count"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "%" PetscInt_FMT " chunks, %" PetscInt64_FMT " slots; chunk occupancy beta %.3f unsorted, %.3f with sigma %" PetscInt_FMT "\n", sc->d.nchunks, sc->d.nslots, (double)sc->beta_unsorted, (double)SELLCSOccupancy(&sc->d), sc->d.sigma));
  PetscCall(PetscViewerASCIIPrintf(viewer, "first product after a change of values (the refresh fused into it): %" PetscInt_FMT " thread%s per row (%s)\n", sc->Tr, sc->Tr > 1 ? "s" : "", sc->rthreads ? "set" : "chosen from the row lengths"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "row lengths: mean %.2f, standard deviation %.2f, longest %" PetscInt_FMT "; padding is %s\n", sc->stats.mean, sc->stats.stddev, sc->stats.maxlen, sc->readpad ? "read (column 0, value 0)" : "never read"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "product in CUDA blocks of %" PetscInt_FMT " threads (%s)\n", sc->block, sc->d.sigma > 1 ? "sorted rows" : "unsorted rows"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "long part: %" PetscInt_FMT " rows of more than %" PetscInt_FMT " entries (%s), in %" PetscInt_FMT " chunks of %d\n", sc->d.nlong, sc->d.longrow, sc->longrow ? "set" : "chosen from the threads per row", sc->nlchunks, SELLCS_CHUNK));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SELLCSMemory(void *fmt, PetscLogDouble *bytes)
{
  PetscFunctionBegin;
  *bytes = ((Mat_SELLCS *)fmt)->bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

MatGPUFormatOps MatSELLCSOps = {"sellcs", "SELLCS", MATSEQSELLCS, MATMPISELLCS, SELLCSCreate, SELLCSCopyParams, SELLCSSameParams, SELLCSSetFromOptions, SELLCSBuild, SELLCSRefresh, SELLCSMult, SELLCSReset, SELLCSView, SELLCSMemory, 0, 0, SELLCSMultRefresh};

/*MC
   MATSEQSELLCS - "seqaijcusparsesellcs" - A sequential `MATSEQAIJCUSPARSE` matrix that multiplies on the GPU
   in SELL-C-sigma, the format of Kreutzer, Hager, Wellein, Fehske and Bishop, "A unified sparse matrix data
   format for efficient general sparse matrix-vector multiplication on modern processors with wide SIMD units",
   SIAM J. Sci. Comput. 36 (2014).

   Rows are sorted by descending length within windows of sigma rows and cut into chunks of C rows; a chunk is
   stored column-major and is as wide as its longest row. For the 4 x 4 matrix with rows {1 2 3 .}, {. 4 . .},
   {5 . 6 7}, {. . . 8} (lengths 3 1 3 1), C = 2 and sigma = 4:
.vb
      sorted rows (perm) = [0 2 1 3], rowlen = [3 3 1 1], chunk_ptr = [0 6 8]
      val = [1 5 2 6 3 7 | 4 8],  col = [0 0 1 2 2 3 | 1 3]
.ve
   T threads per row (T = 1 is the paper's GPU kernel, T > 1 the Sliced ELLR-T variant for long rows) add the
   entries of a row up to its length, so padding is never read, and write y in the original order: the
   permutation stays inside the type. Rows longer than a threshold leave the chunks and are summed by warps
   over chunks of 1024 entries (the long part), so one very long row neither serialises a thread nor widens
   its chunk. After a change of values only, the values are read again from the CSR: entry j of a sorted row at its
   original CSR row's start + j (a row keeps the CSR's order); no map is stored. All other operations are those of
   `MATSEQAIJCUSPARSE`; `MatMultTranspose()` uses cuSPARSE.

   Options Database Keys:
+  -mat_type sellcs - sets the type (with `MatSetFromOptions()`), or converts an assembled `MATSEQAIJCUSPARSE` in place
.  -mat_sellcs_c <C> - rows per chunk, 4, 8, 16 or 32 (default 32, a warp)
.  -mat_sellcs_sigma <sigma> - sorting scope, 1 or a power-of-two multiple of C; 0 (default) chooses from the chunk occupancy
.  -mat_sellcs_threads_per_row <T> - 1, 2, 4, 8, 16 or 32; 0 (default) chooses from the mean row length, and in a matrix of regular rows (standard deviation at most the mean) doubles it while the rows times the threads per row are fewer than 2^17 before the doubling and each thread keeps 6 entries of the mean row or more
.  -mat_sellcs_refresh_threads_per_row <T> - threads per row of the first product after a change of values, which also takes the new values: 1, 2, 4, 8, 16 or 32; 0 (default) doubles them from 1 while each keeps 12 entries of the mean row, for rows of regular lengths that are not long, never fewer than the product's
.  -mat_sellcs_long_row <len> - rows longer than this leave the chunks for the long part, split across warps; 0 (default) 128 T, or in a matrix of fewer than 2^21 entries whose row lengths have a standard deviation above their mean, max(32 T, 2 x the mean row) if less
-  -mat_sellcs_read_padding <bool> - read the padded slots (column 0, value 0) up to the chunk's width instead of stopping at each row's length (default false)

   Level: beginner

   Note:
   PETSc's `MATSELL` and `MATSEQSELLCUDA` are SELL-C without sorting, and a different implementation.

.seealso: [](ch_matrices), `Mat`, `MATSELLCS`, `MATSEQAIJCUSPARSE`, `MATSEQCMRS`, `MatGPUFormatGetDeviceMemory()`
M*/
PetscErrorCode MatCreate_SeqSELLCS(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_SeqGPUFormat_Private(A, &MatSELLCSOps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatSELLCSGetParameters - Gets the chunk height, sorting scope, threads per row and long-row length of a `MATSEQSELLCS` matrix

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameters:
+ C       - rows per chunk
. sigma   - sorting scope
. T       - threads per row
- longrow - rows longer than this are in the long part

  Level: intermediate

  Note:
  After a product these are the values in use, including those chosen automatically; before the first
  product, the requested values (0 for automatic). Pass `NULL` for values not needed.

.seealso: [](ch_matrices), `Mat`, `MATSEQSELLCS`
@*/
PetscErrorCode MatSELLCSGetParameters(Mat A, PetscInt *C, PetscInt *sigma, PetscInt *T, PetscInt *longrow)
{
  Mat_SELLCS *sc;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(MatGPUFormatRequireFormat_Private(A, &MatSELLCSOps, (void **)&sc));
  if (C) *C = sc->C;
  if (sigma) *sigma = sc->d.sigma ? sc->d.sigma : sc->sigma;
  if (T) *T = sc->T ? sc->T : sc->threads;
  if (longrow) *longrow = sc->d.longrow ? sc->d.longrow : sc->longrow;
  PetscFunctionReturn(PETSC_SUCCESS);
}

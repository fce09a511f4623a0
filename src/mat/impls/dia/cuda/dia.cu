/*
   DIA on the GPU: the device build from cuSPARSE's CSR (the occupied diagonals marked and counted, then filled), the
   product with one thread per row, and the format interface that the common layer turns into the MATSEQDIA type. A
   matrix whose diagonals would hold more than -mat_dia_max_fill slots per entry is declined before anything is
   allocated: its products are then aijcusparse's (or, with -mat_dia_fallback false, the build fails).
*/
#include "../dia.h"
#include <petsc/private/petscimpl.h>
#include <thrust/scan.h>

#define DIA_BLOCK 256 /* threads per CUDA block, a row each */

typedef struct {
  /* parameters */
  MatGPUFormatFillBound bound; /* slots per entry (ndiag m / nnz) above which the matrix is declined */
  /* the matrix, on the device (the layout of dia.h) */
  DIAArrays            d;
  PetscBool            sorted;   /* every row in increasing column: a row's k-th entry is on its k-th diagonal with a mask bit */
  PetscBool            declined; /* the last build declined the matrix: nothing is allocated */
  PetscReal            fill;     /* slots per entry of the last build */
  int                  offmin, offmax;
  MatGPUFormatRowStats stats;
  PetscLogDouble       bytes;
  MatGPUFormatScratch  scratch; /* the build's device temporaries */
  void                *mem;     /* the device allocation that holds offsets, val and mask */
} Mat_DIA;

/* ------------------------------------------------------------------ build */

/*
   Marks the occupied diagonals of an m-row CSR matrix: flag[c - r + m - 1] = 1 for each entry (r, c), written only where
   it is still 0, so that the many entries of one diagonal read it rather than store it. The words past the L = m + n - 1
   flags: flag[L] stays 0 (the exclusive scan then ends with the count there), flag[L + 1] is set by a row whose columns do
   not increase, flag[L + 2] and flag[L + 3] take the largest L - t and t + 1 of the occupied diagonals t (both 0 before).
*/
__global__ static void dia_mark_kernel(int m, int L, const int *__restrict__ rowptr, const int *__restrict__ colind, int *flag)
{
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) {
    const int end      = rowptr[r + 1];
    int       prev     = -1;
    bool      unsorted = false;

    for (int k = rowptr[r]; k < end; k++) {
      const int c = colind[k], t = c - r + m - 1;

      if (!flag[t]) {
        flag[t] = 1;
        atomicMax(flag + L + 2, L - t);
        atomicMax(flag + L + 3, t + 1);
      }
      unsorted = unsorted || c <= prev;
      prev     = c;
    }
    if (unsorted) flag[L + 1] = 1;
  }
}

/* After the exclusive scan of the flags, map[t] is the place of diagonal t among the occupied ones */
__global__ static void dia_offsets_kernel(int L, int m, const int *__restrict__ map, int *__restrict__ offsets)
{
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < L; t += gridDim.x * blockDim.x)
    if (map[t + 1] > map[t]) offsets[map[t]] = t - (m - 1);
}

/*
   The fill of sorted rows: a thread per slot row r < pitch (whole warps: the pitch is a multiple of 32) walks the
   diagonals in increasing offset and its row's entries in increasing column together, so each slot is written once
   (0 in padding, no memset) and each mask word by the ballot of its warp's 32 rows.
*/
__global__ static void dia_fill_kernel(int m, int pitch, int ndiag, const int *__restrict__ offsets, const int *__restrict__ rowptr, const int *__restrict__ colind, const PetscScalar *__restrict__ csrval, PetscScalar *__restrict__ val, unsigned *__restrict__ mask)
{
  const size_t words = (size_t)pitch / 32;

  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < pitch; r += gridDim.x * blockDim.x) {
    int k = 0, end = 0, c = 0;

    if (r < m) {
      k   = rowptr[r];
      end = rowptr[r + 1];
      if (k < end) c = colind[k];
    }
    for (int d = 0; d < ndiag; d++) {
      const bool  hit = k < end && c == r + __ldg(offsets + d);
      PetscScalar v   = 0.0;
      unsigned    b;

      if (hit) {
        v = csrval[k++];
        if (k < end) c = colind[k];
      }
      val[(size_t)d * pitch + r] = v;
      b                          = __ballot_sync(0xffffffffu, hit);
      if ((threadIdx.x & 31) == 0) mask[(size_t)d * words + r / 32] = b;
    }
  }
}

/* The place of offset off among the ndiag increasing offsets (it is one of them) */
__device__ __forceinline__ static int dia_find(const int *__restrict__ offsets, int ndiag, int off)
{
  int lo = 0, hi = ndiag - 1;

  while (lo < hi) {
    const int mid = (lo + hi) >> 1;

    if (__ldg(offsets + mid) < off) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/*
   Rows in any column order: each entry to its diagonal, found by a binary search of the offsets; with MASK (the build,
   after val and mask were zeroed) its mask bit too, else (a refresh) the value alone
*/
template <bool MASK>
__global__ static void dia_scatter_kernel(int m, int pitch, int ndiag, const int *__restrict__ offsets, const int *__restrict__ rowptr, const int *__restrict__ colind, const PetscScalar *__restrict__ csrval, PetscScalar *__restrict__ val, unsigned *__restrict__ mask)
{
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) {
    const int end = rowptr[r + 1];

    for (int k = rowptr[r]; k < end; k++) {
      const int d = dia_find(offsets, ndiag, colind[k] - r);

      val[(size_t)d * pitch + r] = csrval[k];
      if (MASK) atomicOr(mask + (size_t)d * (pitch / 32) + r / 32, 1u << (r & 31));
    }
  }
}

/* The refresh of sorted rows: a row's k-th entry goes to its k-th diagonal with a mask bit; the columns are not read */
__global__ static void dia_refresh_kernel(int m, int pitch, int ndiag, const unsigned *__restrict__ mask, const int *__restrict__ rowptr, const PetscScalar *__restrict__ csrval, PetscScalar *__restrict__ val)
{
  const size_t words = (size_t)pitch / 32;

  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) {
    const int end = rowptr[r + 1];
    int       k   = rowptr[r];

    for (int d = 0; d < ndiag && k < end; d++)
      if (__ldg(mask + (size_t)d * words + r / 32) >> (r & 31) & 1u) val[(size_t)d * pitch + r] = csrval[k++];
  }
}

/* ------------------------------------------------------------------ product */

/*
   z = A x (ADD false) or z = y + A x (y may equal z): a thread per row adds its entries in increasing column (diagonal
   order), each where its slot's mask bit is set, so padding never multiplies x. The rows of a warp share their mask
   words: where the next 4 diagonals are full for all 32 rows (a stencil's inside), the warp loads their 4 entries and x
   values without a test, all before the first sum; elsewhere each slot is tested. With REFRESH (sorted rows), the
   values come from the CSR, the row's k-th entry on its k-th diagonal with a bit, and are stored as
   dia_refresh_kernel() stores them.
*/
/* Entry j of a row: with REFRESH the next value of its CSR row (k), stored in the slot too; else the slot's value */
template <bool REFRESH>
__device__ __forceinline__ static PetscScalar dia_value(PetscScalar *__restrict__ val, size_t slot, const PetscScalar *__restrict__ csrval, int k)
{
  if (!REFRESH) return __ldg(val + slot);
  {
    const PetscScalar v = csrval[k];

    val[slot] = v;
    return v;
  }
}

template <bool ADD, bool REFRESH>
__global__ static void __launch_bounds__(DIA_BLOCK) dia_mult_kernel(int m, int pitch, int ndiag, const int *__restrict__ offsets, const unsigned *__restrict__ mask, PetscScalar *__restrict__ val, const int *__restrict__ rowptr, const PetscScalar *__restrict__ csrval, const PetscScalar *__restrict__ x, const PetscScalar *y, PetscScalar *z)
{
  const size_t words = (size_t)pitch / 32;

  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) {
    const unsigned  bit = 1u << (r & 31);
    const unsigned *mw  = mask + r / 32;
    PetscScalar     sum = 0.0;
    int             k = REFRESH ? rowptr[r] : 0, d = 0;

    for (; d + 4 <= ndiag; d += 4) {
      const unsigned w0 = __ldg(mw + (size_t)d * words), w1 = __ldg(mw + (size_t)(d + 1) * words), w2 = __ldg(mw + (size_t)(d + 2) * words), w3 = __ldg(mw + (size_t)(d + 3) * words);
      const size_t   s0 = (size_t)d * pitch + r;

      if ((w0 & w1 & w2 & w3) == 0xffffffffu) { /* the same words for the whole warp: no divergence */
        const PetscScalar v0 = dia_value<REFRESH>(val, s0, csrval, k), v1 = dia_value<REFRESH>(val, s0 + pitch, csrval, k + 1), v2 = dia_value<REFRESH>(val, s0 + 2 * (size_t)pitch, csrval, k + 2), v3 = dia_value<REFRESH>(val, s0 + 3 * (size_t)pitch, csrval, k + 3);
        const PetscScalar x0 = __ldg(x + r + __ldg(offsets + d)), x1 = __ldg(x + r + __ldg(offsets + d + 1)), x2 = __ldg(x + r + __ldg(offsets + d + 2)), x3 = __ldg(x + r + __ldg(offsets + d + 3));

        k += 4;
        sum += v0 * x0;
        sum += v1 * x1;
        sum += v2 * x2;
        sum += v3 * x3;
      } else {
        if (w0 & bit) sum += dia_value<REFRESH>(val, s0, csrval, k++) * __ldg(x + r + __ldg(offsets + d));
        if (w1 & bit) sum += dia_value<REFRESH>(val, s0 + pitch, csrval, k++) * __ldg(x + r + __ldg(offsets + d + 1));
        if (w2 & bit) sum += dia_value<REFRESH>(val, s0 + 2 * (size_t)pitch, csrval, k++) * __ldg(x + r + __ldg(offsets + d + 2));
        if (w3 & bit) sum += dia_value<REFRESH>(val, s0 + 3 * (size_t)pitch, csrval, k++) * __ldg(x + r + __ldg(offsets + d + 3));
      }
    }
    for (; d < ndiag; d++)
      if (__ldg(mw + (size_t)d * words) & bit) sum += dia_value<REFRESH>(val, (size_t)d * pitch + r, csrval, k++) * __ldg(x + r + __ldg(offsets + d));
    z[r] = ADD ? y[r] + sum : sum;
  }
}

static PetscErrorCode DIALaunch(const Mat_DIA *dc, const MatGPUFormatCSR *csr, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  const DIAArrays   *d    = &dc->d;
  const unsigned     grid = MatGPUFormatGrid(d->m, DIA_BLOCK);
  const int         *rp   = csr ? csr->rowptr : NULL;
  const PetscScalar *cv   = csr ? csr->val : NULL;

  PetscFunctionBegin;
  if (csr && y) dia_mult_kernel<true, true><<<grid, DIA_BLOCK, 0, stream>>>((int)d->m, (int)d->pitch, (int)d->ndiag, d->offsets, d->mask, d->val, rp, cv, x, y, z);
  else if (csr) dia_mult_kernel<false, true><<<grid, DIA_BLOCK, 0, stream>>>((int)d->m, (int)d->pitch, (int)d->ndiag, d->offsets, d->mask, d->val, rp, cv, x, y, z);
  else if (y) dia_mult_kernel<true, false><<<grid, DIA_BLOCK, 0, stream>>>((int)d->m, (int)d->pitch, (int)d->ndiag, d->offsets, d->mask, d->val, NULL, NULL, x, y, z);
  else dia_mult_kernel<false, false><<<grid, DIA_BLOCK, 0, stream>>>((int)d->m, (int)d->pitch, (int)d->ndiag, d->offsets, d->mask, d->val, NULL, NULL, x, y, z);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DIAMult(void *fmt, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCall(DIALaunch((const Mat_DIA *)fmt, NULL, x, y, z, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DIARefresh(void *fmt, const MatGPUFormatCSR *csr)
{
  Mat_DIA         *dc = (Mat_DIA *)fmt;
  const DIAArrays *d  = &dc->d;

  PetscFunctionBegin;
  if (dc->sorted) dia_refresh_kernel<<<MatGPUFormatGrid(d->m, DIA_BLOCK), DIA_BLOCK, 0, csr->stream>>>((int)d->m, (int)d->pitch, (int)d->ndiag, d->mask, csr->rowptr, csr->val, d->val);
  else dia_scatter_kernel<false><<<MatGPUFormatGrid(d->m, DIA_BLOCK), DIA_BLOCK, 0, csr->stream>>>((int)d->m, (int)d->pitch, (int)d->ndiag, d->offsets, csr->rowptr, csr->colind, csr->val, d->val, NULL);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The refresh fused into the product for sorted rows; rows in another order are refreshed first */
static PetscErrorCode DIAMultRefresh(void *fmt, const MatGPUFormatCSR *csr, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  Mat_DIA *dc = (Mat_DIA *)fmt;

  PetscFunctionBegin;
  if (dc->sorted) PetscCall(DIALaunch(dc, csr, x, y, z, stream));
  else {
    PetscCall(DIARefresh(fmt, csr));
    PetscCall(DIALaunch(dc, NULL, x, y, z, stream));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DIAReset(void *fmt)
{
  Mat_DIA *dc = (Mat_DIA *)fmt;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatScratchRelease_Private(&dc->scratch, 0)); /* temporaries of a build that stopped with an error */
  PetscCall(PetscArrayzero(&dc->d, 1));                           /* the views first, so that none outlives its block */
  PetscCall(MatGPUFormatDeviceFree_Private(&dc->mem));
  dc->bytes    = 0;
  dc->declined = PETSC_FALSE;
  dc->sorted   = PETSC_FALSE;
  dc->fill     = 0;
  dc->offmin = dc->offmax = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DIABuild(void *fmt, const MatGPUFormatCSR *csr)
{
  Mat_DIA   *dc = (Mat_DIA *)fmt;
  DIAArrays *d  = &dc->d;
  PetscInt   mark;
  int       *flag, L, tail[4];
  size_t     bytes;

  PetscFunctionBegin;
  PetscCall(DIAReset(fmt));
  dc->stats = csr->stats;
  d->m      = csr->m;
  d->n      = csr->n;
  d->nnz    = csr->nnz;
  PetscCheck((PetscInt64)d->m + d->n + 4 * DIA_ALIGN <= PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "DIA: rows + columns = %" PetscInt64_FMT " exceed the format's 32-bit diagonal offsets; use another type", (PetscInt64)d->m + d->n);
  L = (int)(d->m + d->n - 1);

  /* the occupied diagonals, counted: the build's one round trip, before anything of the format is allocated */
  mark = dc->scratch.n;
  PetscCall(MatGPUFormatScratchMalloc_Private(&dc->scratch, "DIA", (size_t)(L + 4) * sizeof(int), (void **)&flag));
  PetscCallCUDA(cudaMemsetAsync(flag, 0, (size_t)(L + 4) * sizeof(int), csr->stream));
  dia_mark_kernel<<<MatGPUFormatGrid(d->m, DIA_BLOCK), DIA_BLOCK, 0, csr->stream>>>((int)d->m, L, csr->rowptr, csr->colind, flag);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "mark diagonals"));
  MatGPUFormatCallThrust(thrust::exclusive_scan(MatGPUFormatThrustPolicy(csr->stream), flag, flag + L + 1, flag));
  PetscCallCUDA(cudaMemcpyAsync(tail, flag + L, sizeof(tail), cudaMemcpyDeviceToHost, csr->stream));
  PetscCallCUDA(cudaStreamSynchronize(csr->stream));
  d->ndiag   = tail[0];
  dc->sorted = (PetscBool)!tail[1];
  dc->offmin = (L - tail[2]) - (int)(d->m - 1);
  dc->offmax = (tail[3] - 1) - (int)(d->m - 1);
  dc->fill   = (PetscReal)d->ndiag * (PetscReal)d->m / (PetscReal)d->nnz;
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "count diagonals"));
  if (MatGPUFormatFillBoundExceeded(&dc->bound, dc->fill)) {
    char what[128];

    PetscCall(MatGPUFormatScratchRelease_Private(&dc->scratch, mark));
    PetscCall(PetscSNPrintf(what, sizeof(what), "the %" PetscInt_FMT " x %" PetscInt_FMT " matrix's %" PetscInt_FMT " entries lie on %" PetscInt_FMT " diagonals", d->m, d->n, d->nnz, d->ndiag));
    PetscCall(MatGPUFormatFillBoundRefuse_Private(&dc->bound, "dia", "DIA", dc->fill, what, "use another type"));
    dc->declined = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  /* offsets, values and mask in one allocation */
  d->pitch = (d->m + DIA_ALIGN - 1) / DIA_ALIGN * DIA_ALIGN;
  bytes    = (size_t)d->ndiag * (sizeof(int) + (size_t)d->pitch * sizeof(PetscScalar) + (size_t)d->pitch / 32 * sizeof(unsigned));
  PetscCall(MatGPUFormatCheckDeviceMemory_Private("DIA", bytes));
  {
    const MatGPUFormatArray arrays[] = {
        {(void **)&d->offsets, (size_t)d->ndiag * sizeof(int)                       },
        {(void **)&d->val,     (size_t)d->ndiag * d->pitch * sizeof(PetscScalar)    },
        {(void **)&d->mask,    (size_t)d->ndiag * (d->pitch / 32) * sizeof(unsigned)}
    };

    PetscCall(MatGPUFormatDeviceMallocArrays_Private("DIA", &dc->mem, PETSC_STATIC_ARRAY_LENGTH(arrays), arrays));
  }
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "allocate"));
  dia_offsets_kernel<<<MatGPUFormatGrid(L, DIA_BLOCK), DIA_BLOCK, 0, csr->stream>>>(L, (int)d->m, flag, d->offsets);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(MatGPUFormatScratchRelease_Private(&dc->scratch, mark)); /* the flags, in stream order */
  if (dc->sorted) {
    dia_fill_kernel<<<MatGPUFormatGrid(d->pitch, DIA_BLOCK), DIA_BLOCK, 0, csr->stream>>>((int)d->m, (int)d->pitch, (int)d->ndiag, d->offsets, csr->rowptr, csr->colind, csr->val, d->val, d->mask);
  } else {
    PetscCallCUDA(cudaMemsetAsync(d->val, 0, (size_t)d->ndiag * d->pitch * sizeof(PetscScalar), csr->stream));
    PetscCallCUDA(cudaMemsetAsync(d->mask, 0, (size_t)d->ndiag * (d->pitch / 32) * sizeof(unsigned), csr->stream));
    dia_scatter_kernel<true><<<MatGPUFormatGrid(d->m, DIA_BLOCK), DIA_BLOCK, 0, csr->stream>>>((int)d->m, (int)d->pitch, (int)d->ndiag, d->offsets, csr->rowptr, csr->colind, csr->val, d->val, d->mask);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "fill"));
  dc->bytes = (PetscLogDouble)bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ the format interface */

static PetscErrorCode DIACreate(void **fmt)
{
  Mat_DIA *dc;

  PetscFunctionBegin;
  PetscCall(PetscNew(&dc));
  dc->bound.maxfill  = DIA_DEFAULT_MAX_FILL;
  dc->bound.fallback = PETSC_TRUE;
  *fmt               = dc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DIACopyParams(const void *src, void *dst)
{
  const Mat_DIA *a = (const Mat_DIA *)src;
  Mat_DIA       *b = (Mat_DIA *)dst;

  PetscFunctionBegin;
  b->bound = a->bound;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DIASameParams(const void *pa, const void *pb, PetscBool *same)
{
  const Mat_DIA *a = (const Mat_DIA *)pa, *b = (const Mat_DIA *)pb;

  PetscFunctionBegin;
  *same = (PetscBool)(a->bound.maxfill == b->bound.maxfill && a->bound.fallback == b->bound.fallback);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DIASetFromOptions(void *fmt, MatGPUFormatOptionItems PetscOptionsObject)
{
  Mat_DIA *dc = (Mat_DIA *)fmt;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatFillBoundSetFromOptions_Private(&dc->bound, "dia", "DIA", "MATSEQDIA", "diagonals x rows / entries", PetscOptionsObject));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DIAView(void *fmt, PetscViewer viewer)
{
  const Mat_DIA *dc = (const Mat_DIA *)fmt;
  char           bound[64];

  PetscFunctionBegin;
  PetscCall(MatGPUFormatFillBoundString_Private(&dc->bound, "dia", bound, sizeof(bound)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "%" PetscInt_FMT " diagonals, offsets %d to %d; %.4g slots per entry, %s\n", dc->d.ndiag, dc->offmin, dc->offmax, (double)dc->fill, bound));
  PetscCall(MatGPUFormatFillBoundViewDeclined_Private("dia", dc->declined, viewer));
  if (!dc->declined)
    PetscCall(PetscViewerASCIIPrintf(viewer, "%" PetscInt64_FMT " slots of %" PetscInt_FMT " rows (pitch %" PetscInt_FMT "), a mask bit each: padding is never multiplied; values refreshed %s\n", (PetscInt64)dc->d.ndiag * dc->d.pitch, dc->d.m, dc->d.pitch,
                                     dc->sorted ? "in each row's order, without its columns" : "through a search of each entry's diagonal (rows not in increasing column order)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DIAMemory(void *fmt, PetscLogDouble *bytes)
{
  PetscFunctionBegin;
  *bytes = ((Mat_DIA *)fmt)->bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DIADeclined(void *fmt, PetscBool *declined)
{
  PetscFunctionBegin;
  *declined = ((Mat_DIA *)fmt)->declined;
  PetscFunctionReturn(PETSC_SUCCESS);
}

MatGPUFormatOps MatDIAOps = {"dia", "DIA", MATSEQDIA, MATMPIDIA, DIACreate, DIACopyParams, DIASameParams, DIASetFromOptions, DIABuild, DIARefresh, DIAMult, DIAReset, DIAView, DIAMemory, 0, 0, DIAMultRefresh, DIADeclined};

/*MC
   MATSEQDIA - "seqaijcusparsedia" - A sequential `MATSEQAIJCUSPARSE` matrix that multiplies on the GPU in DIA, the
   diagonal format of Bell and Garland, "Efficient sparse matrix-vector multiplication on CUDA", NVIDIA Technical Report
   NVR-2008-004 (2008).

   The entries lie on a few diagonals, each stored as a column of values, one per row (padded to a multiple of 32 rows),
   with no column index: the column of row r on the diagonal of offset o is r + o. For the 4 x 4 matrix with rows
   {1 7 . .}, {. 2 8 .}, {5 . 3 9}, {. 6 . 4}:
.vb
      offsets = [-2 0 1]
      val     = [* * 5 6 | 1 2 3 4 | 7 8 9 *]   (* padding, 0)
.ve
   Unlike the paper, a bit per slot says which slots are entries, so that padding never multiplies x (an Inf or NaN of
   x stays out of rows that do not hold its column) and an entry stored as 0 multiplies x as in CSR. The product takes
   a thread per row, adding its entries in increasing column. The build counts the occupied diagonals on the GPU before
   it allocates anything; a matrix whose diagonals would hold more than -mat_dia_max_fill slots per entry is declined
   (its products are then aijcusparse's, which `MatView()` with `PETSC_VIEWER_ASCII_INFO` says), or with
   -mat_dia_fallback false its first product fails with `PETSC_ERR_SUP`. After a change of values only, a row's k-th
   entry goes to its k-th diagonal with a mask bit (rows in increasing column order; otherwise each entry's diagonal
   is searched). All other operations are those of `MATSEQAIJCUSPARSE`; `MatMultTranspose()` uses cuSPARSE.

   Options Database Keys:
+  -mat_type dia - sets the type (with `MatSetFromOptions()`), or converts an assembled `MATSEQAIJCUSPARSE` in place
.  -mat_dia_max_fill <r> - slots per entry (diagonals x rows / entries) above which the matrix is declined; 0 for no bound (default 2.5)
-  -mat_dia_fallback <bool> - a declined matrix multiplies with aijcusparse's product (default true); false: an error

   Level: beginner

   Note:
   DIA suits matrices of a few full diagonals, such as the stencils of `DMDA`: 8 bytes per entry against CSR's 12.

.seealso: [](ch_matrices), `Mat`, `MATDIA`, `MATSEQAIJCUSPARSE`, `MatDIAGetDiagonals()`, `MatGPUFormatGetDeviceMemory()`
M*/
PetscErrorCode MatCreate_SeqDIA(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_SeqGPUFormat_Private(A, &MatDIAOps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatDIAGetDiagonals - Gets the number of occupied diagonals of a `MATSEQDIA` matrix, its slots per entry, and whether
  the format declined it

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameters:
+ ndiag    - occupied diagonals
. fill     - slots per entry, diagonals x rows / entries
- declined - `PETSC_TRUE` when fill exceeds -mat_dia_max_fill and the products are aijcusparse's

  Level: intermediate

  Note:
  The values of the last build: 0 and `PETSC_FALSE` before the first product or for a matrix without entries. Pass
  `NULL` for values not needed.

.seealso: [](ch_matrices), `Mat`, `MATSEQDIA`
@*/
PetscErrorCode MatDIAGetDiagonals(Mat A, PetscInt *ndiag, PetscReal *fill, PetscBool *declined)
{
  Mat_DIA *dc;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(MatGPUFormatRequireFormat_Private(A, &MatDIAOps, (void **)&dc));
  if (ndiag) *ndiag = dc->d.ndiag;
  if (fill) *fill = dc->fill;
  if (declined) *declined = dc->declined;
  PetscFunctionReturn(PETSC_SUCCESS);
}

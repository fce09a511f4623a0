/*
   HYB and ELL on the GPU: the device build from cuSPARSE's CSR, the ELL product with a thread per row, the COO part's
   product by the paper's segmented reduction, and the format interfaces that the common layer turns into the MATSEQHYB
   and MATSEQELL types (ELL is HYB with the longest row's width and no COO part; it declines a matrix whose slots would
   exceed -mat_ell_max_fill per entry).
*/
#include "../hyb.h"
#include <petsc/private/petscimpl.h>
#include <climits>
#include <thrust/scan.h>

#define HYB_BLOCK   256 /* threads per CUDA block of the build and the ELL product */
#define HYB_WINDOWS 16  /* windows of 32 COO entries per warp of the COO product: 512 entries */
#define HYB_HIST    256 /* row lengths below this are counted in shared memory first (one global atomic per block and length) */

typedef struct {
  /* parameters */
  PetscBool             ell;     /* the ELL type: the width is the longest row's, no COO part; declined above maxfill */
  PetscInt              width;   /* HYB: requested width; 0: the paper's rule */
  PetscBool             readpad; /* read every ELL slot up to the width (padding: column -1, skipped) instead of stopping at the row's length */
  MatGPUFormatFillBound bound;   /* ELL: slots per entry (width m / nnz) above which the matrix is declined */
  /* the matrix, on the device (the layout of hyb.h) */
  HYBArrays            d;
  int                 *len;      /* m: the ELL slots of each row that hold entries, unless readpad */
  int                 *carryrow; /* ncarry: the row each warp of the COO product carries out, or -1, level after level */
  PetscScalar         *carryval; /* ncarry: its partial sum */
  PetscInt             ncoowarps;
  PetscInt             ncarry;   /* the carries of every level but the last (whose single warp adds its own) */
  PetscBool            declined; /* the last build declined the matrix (ELL): nothing is allocated */
  PetscReal            fill;     /* ELL slots per entry of the last build */
  MatGPUFormatRowStats stats;
  PetscLogDouble       bytes;
  MatGPUFormatScratch  scratch; /* the build's device temporaries */
  PetscInt            *hcount;  /* the build's host copy of the row lengths' histogram (freed by HYBReset() if the build stops) */
  void                *mem;     /* the device allocation that holds every array */
} Mat_HYB;

/* ------------------------------------------------------------------ build */

/* The histogram of the row lengths (count[0..maxlen]), for the paper's width: lengths below HYB_HIST in shared memory
   first, since on a regular matrix every row would add to the same global counter */
__global__ static void hyb_histogram_kernel(int m, int maxlen, const int *__restrict__ rowptr, PetscInt *__restrict__ count)
{
  __shared__ int h[HYB_HIST];

  for (int i = threadIdx.x; i < HYB_HIST; i += blockDim.x) h[i] = 0;
  __syncthreads();
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) {
    const int l = rowptr[r + 1] - rowptr[r];

    if (l < HYB_HIST) atomicAdd(h + l, 1);
    else atomicAdd(count + l, 1);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < HYB_HIST && i <= maxlen; i += blockDim.x)
    if (h[i]) atomicAdd(count + i, (PetscInt)h[i]);
}

/* The entries of each row past the width, into cnt[r] (the exclusive scan makes them the rows' first COO places) */
__global__ static void hyb_coo_count_kernel(int m, int width, const int *__restrict__ rowptr, int *__restrict__ cnt)
{
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) cnt[r] = max(rowptr[r + 1] - rowptr[r] - width, 0);
}

/*
   The ELL slots: a thread per slot row r < pitch writes its row's first `width` entries (BUILD: columns, values and the
   row's count of slots used; else the values alone, up to that count) and, with BUILD, column -1 and value 0 in padding,
   slot j of row r at j pitch + r
*/
template <bool BUILD>
__global__ static void hyb_ell_fill_kernel(int m, int pitch, int width, const int *__restrict__ rowptr, const int *__restrict__ colind, const PetscScalar *__restrict__ csrval, int *__restrict__ col, PetscScalar *__restrict__ val, int *__restrict__ len)
{
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < (BUILD ? pitch : m); r += gridDim.x * blockDim.x) {
    const int start = r < m ? rowptr[r] : 0, used = r < m ? min(rowptr[r + 1] - start, width) : 0;

    if (BUILD && len && r < m) len[r] = used;
    for (int j = 0; j < (BUILD ? width : used); j++) {
      const size_t slot = (size_t)j * pitch + r;

      if (j < used) {
        if (BUILD) col[slot] = colind[start + j];
        val[slot] = csrval[start + j];
      } else if (BUILD) {
        col[slot] = -1;
        val[slot] = 0.0;
      }
    }
  }
}

/*
   The COO part, a thread per COO entry q: its row r (the last with first[r] <= q, first[] the exclusive scan of the
   counts), its CSR entry rowptr[r] + width + q - first[r]. With BUILD the row, the column and the value; else (a refresh,
   first == NULL) the row is read back and its first COO place found in the sorted rows, and the value alone is written.
*/
template <bool BUILD>
__global__ static void hyb_coo_fill_kernel(int m, int ncoo, int width, const int *__restrict__ first, const int *__restrict__ rowptr, const int *__restrict__ colind, const PetscScalar *__restrict__ csrval, int *__restrict__ coorow, int *__restrict__ coocol, PetscScalar *__restrict__ cooval)
{
  for (int q = blockIdx.x * blockDim.x + threadIdx.x; q < ncoo; q += gridDim.x * blockDim.x) {
    int r, f;

    if (BUILD) {
      r = MatGPUFormatRowOfEntry(first, m, q);
      f = first[r];
    } else { /* the first place of row r among the sorted COO rows: a binary search */
      int lo = 0, hi = q;

      r = coorow[q];
      while (lo < hi) {
        const int mid = (lo + hi) >> 1;

        if (__ldg(coorow + mid) < r) lo = mid + 1;
        else hi = mid;
      }
      f = lo;
    }
    {
      const int k = rowptr[r] + width + (q - f);

      if (BUILD) {
        coorow[q] = r;
        coocol[q] = colind[k];
      }
      cooval[q] = csrval[k];
    }
  }
}

/* ------------------------------------------------------------------ product */

/*
   z = A x (ADD false) or z = y + A x (y may equal z) of the ELL part: a thread per row adds its slots in order, up to the
   width skipping padding (READPAD: column -1, never multiplied) or up to its count of slots used
*/
template <bool ADD, bool READPAD>
__global__ static void __launch_bounds__(HYB_BLOCK) hyb_ell_mult_kernel(int m, int pitch, int width, const int *__restrict__ col, const PetscScalar *__restrict__ val, const int *__restrict__ len, const PetscScalar *__restrict__ x, const PetscScalar *y, PetscScalar *z)
{
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) {
    const int   lim = READPAD ? width : __ldg(len + r);
    PetscScalar sum = 0.0;

#pragma unroll 4
    for (int j = 0; j < lim; j++) {
      const size_t slot = (size_t)j * pitch + r;
      const int    c    = __ldg(col + slot);

      if (!READPAD || c >= 0) sum += __ldg(val + slot) * __ldg(x + c);
    }
    z[r] = ADD ? y[r] + sum : sum;
  }
}

/*
   The COO part added into z, by the paper's segmented reduction: each warp takes HYB_WINDOWS windows of 32 consecutive
   entries (sorted by row). In a window each lane forms its entry's product, the lanes of a row are summed by a segmented
   inclusive scan of shuffles, and the last lane of each row adds the row's sum into z, but for the window's last row,
   which may go on: its sum is carried into the next window (added to its first row if the same, else into z there).
   A row ends (and is written) in one warp only, so no two warps write one entry of z. The warp's last carry goes to
   outrow and outval; those carries, sorted by row as the entries, are reduced in turn by the same kernel (PRODUCT
   false: the values are the sums themselves) with one window per warp, level after level, until a single warp (FINAL)
   holds them all and adds its last carry itself. So no thread walks a run of carries, however long the row (an LP row
   of 2 M COO entries carries out of 3,900 warps), and no warp of a level walks more than one window of them (a level
   of few warps, each walking 16 windows one after another, costs about as much as a whole product of a small part).
   The last warp of a level may carry nothing (-1). Deterministic: a fixed order of additions for every row.
*/
template <bool PRODUCT, bool FINAL, int WINDOWS>
__global__ static void hyb_coo_reduce_kernel(int n, int nwarps, const int *__restrict__ row, const int *__restrict__ col, const PetscScalar *__restrict__ val, const PetscScalar *__restrict__ x, PetscScalar *z, int *__restrict__ outrow, PetscScalar *__restrict__ outval)
{
  const int lane = threadIdx.x & 31;

  for (int w = (int)((blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32); w < nwarps; w += (int)(gridDim.x * (size_t)blockDim.x / 32)) {
    const long long begin = (long long)w * 32 * WINDOWS, end = PetscMin(begin + 32 * WINDOWS, (long long)n);
    int             crow = -1;
    PetscScalar     cval = 0.0;

    for (long long base = begin; base < end; base += 32) {
      const long long e     = base + lane;
      const int       re    = e < end ? row[e] : -1;
      const bool      valid = re >= 0;
      const int       r     = valid ? re : INT_MAX; /* after every row: the sentinel keeps the rows sorted */
      PetscScalar     v     = valid ? (PRODUCT ? val[e] * __ldg(x + col[e]) : val[e]) : 0.0;
      int             rnext;

      if (lane == 0 && crow >= 0) { /* the carry: into this window's first row, or it ended at the window's start */
        if (r == crow) v = cval + v;
        else z[crow] += cval;
      }
#pragma unroll
      for (int off = 1; off < 32; off <<= 1) {
        const PetscScalar vu = __shfl_up_sync(0xffffffffu, v, off);
        const int         ru = __shfl_up_sync(0xffffffffu, r, off);

        if (lane >= off && ru == r) v = vu + v;
      }
      rnext = __shfl_down_sync(0xffffffffu, r, 1);
      if (valid && lane < 31 && rnext != r) z[r] += v; /* a row that ends in the window (the last one of the part too) */
      crow = __shfl_sync(0xffffffffu, r, 31);
      cval = __shfl_sync(0xffffffffu, v, 31);
      if (crow == INT_MAX) crow = -1; /* the part's last, partial window: its rows were written above */
    }
    if (lane == 0) {
      if (FINAL) {
        if (crow >= 0) z[crow] += cval;
      } else {
        outrow[w] = crow;
        outval[w] = cval;
      }
    }
  }
}

/* The levels of the COO part's reduction: the product's ncoowarps warps of carries, then ceil(nw / 32) warps of carries
   per level, down to one; the carries of all levels, and the number of levels (kernel launches) */
static void HYBCarryLevels(PetscInt ncoowarps, PetscInt *ncarry, PetscInt *levels)
{
  PetscInt total = 0, l = 1;

  for (PetscInt nw = ncoowarps; nw > 1; nw = (nw + 31) / 32, l++) total += nw;
  if (ncarry) *ncarry = total;
  if (levels) *levels = ncoowarps ? l : 0;
}

/* The COO part's product and the levels of its carries, added into z */
static PetscErrorCode HYBCOOLaunch(const Mat_HYB *hc, const PetscScalar *x, PetscScalar *z, cudaStream_t stream)
{
  const HYBArrays *d = &hc->d;
  PetscInt         n = d->ncoo, nw = hc->ncoowarps, off = 0;
  int             *out = hc->carryrow;
  PetscScalar     *ov  = hc->carryval;

  PetscFunctionBegin;
  if (nw == 1) hyb_coo_reduce_kernel<true, true, HYB_WINDOWS><<<1, 32, 0, stream>>>((int)n, 1, d->coo_row, d->coo_col, d->coo_val, x, z, NULL, NULL);
  else hyb_coo_reduce_kernel<true, false, HYB_WINDOWS><<<MatGPUFormatGrid(32 * (PetscInt64)nw, HYB_BLOCK), HYB_BLOCK, 0, stream>>>((int)n, (int)nw, d->coo_row, d->coo_col, d->coo_val, x, z, out, ov);
  PetscCallCUDA(cudaGetLastError());
  while (nw > 1) {
    const int         *inrow = out;
    const PetscScalar *inval = ov;

    off += nw;
    n   = nw;
    nw  = (n + 31) / 32;
    out = hc->carryrow + off;
    ov  = hc->carryval + off;
    if (nw == 1) hyb_coo_reduce_kernel<false, true, 1><<<1, 32, 0, stream>>>((int)n, 1, inrow, NULL, inval, NULL, z, NULL, NULL);
    else hyb_coo_reduce_kernel<false, false, 1><<<MatGPUFormatGrid(32 * (PetscInt64)nw, HYB_BLOCK), HYB_BLOCK, 0, stream>>>((int)n, (int)nw, inrow, NULL, inval, NULL, z, out, ov);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HYBMult(void *fmt, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  const Mat_HYB   *hc   = (const Mat_HYB *)fmt;
  const HYBArrays *d    = &hc->d;
  const unsigned   grid = MatGPUFormatGrid(d->m, HYB_BLOCK);
  const int        m = (int)d->m, pitch = (int)d->pitch, width = (int)d->width;

  PetscFunctionBegin;
  if (hc->readpad) {
    if (y) hyb_ell_mult_kernel<true, true><<<grid, HYB_BLOCK, 0, stream>>>(m, pitch, width, d->ell_col, d->ell_val, NULL, x, y, z);
    else hyb_ell_mult_kernel<false, true><<<grid, HYB_BLOCK, 0, stream>>>(m, pitch, width, d->ell_col, d->ell_val, NULL, x, y, z);
  } else {
    if (y) hyb_ell_mult_kernel<true, false><<<grid, HYB_BLOCK, 0, stream>>>(m, pitch, width, d->ell_col, d->ell_val, hc->len, x, y, z);
    else hyb_ell_mult_kernel<false, false><<<grid, HYB_BLOCK, 0, stream>>>(m, pitch, width, d->ell_col, d->ell_val, hc->len, x, y, z);
  }
  PetscCallCUDA(cudaGetLastError());
  if (d->ncoo) PetscCall(HYBCOOLaunch(hc, x, z, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HYBRefresh(void *fmt, const MatGPUFormatCSR *csr)
{
  Mat_HYB         *hc = (Mat_HYB *)fmt;
  const HYBArrays *d  = &hc->d;

  PetscFunctionBegin;
  if (d->width) {
    hyb_ell_fill_kernel<false><<<MatGPUFormatGrid(d->m, HYB_BLOCK), HYB_BLOCK, 0, csr->stream>>>((int)d->m, (int)d->pitch, (int)d->width, csr->rowptr, NULL, csr->val, NULL, d->ell_val, NULL);
    PetscCallCUDA(cudaGetLastError());
  }
  if (d->ncoo) {
    hyb_coo_fill_kernel<false><<<MatGPUFormatGrid(d->ncoo, HYB_BLOCK), HYB_BLOCK, 0, csr->stream>>>((int)d->m, (int)d->ncoo, (int)d->width, NULL, csr->rowptr, NULL, csr->val, d->coo_row, NULL, d->coo_val);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HYBReset(void *fmt)
{
  Mat_HYB *hc = (Mat_HYB *)fmt;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatScratchRelease_Private(&hc->scratch, 0)); /* temporaries of a build that stopped with an error */
  PetscCall(PetscFree(hc->hcount));
  PetscCall(PetscArrayzero(&hc->d, 1)); /* the views first, so that none outlives its block */
  hc->len      = NULL;
  hc->carryrow = NULL;
  hc->carryval = NULL;
  PetscCall(MatGPUFormatDeviceFree_Private(&hc->mem));
  hc->ncoowarps = 0;
  hc->ncarry    = 0;
  hc->bytes     = 0;
  hc->declined  = PETSC_FALSE;
  hc->fill      = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HYBBuild(void *fmt, const MatGPUFormatCSR *csr)
{
  Mat_HYB    *hc    = (Mat_HYB *)fmt;
  HYBArrays  *d     = &hc->d;
  const char *title = hc->ell ? "ELL" : "HYB";
  PetscInt    mark;
  int        *first = NULL;
  size_t      bytes;

  PetscFunctionBegin;
  PetscCall(HYBReset(fmt));
  hc->stats = csr->stats;
  d->m      = csr->m;
  d->n      = csr->n;
  d->nnz    = csr->nnz;
  d->pitch  = (d->m + HYB_ALIGN - 1) / HYB_ALIGN * HYB_ALIGN;
  mark      = hc->scratch.n;

  /* the width: the longest row's (ELL), the one set, or the paper's rule; HYB's width and COO size come from the histogram
     of the row lengths, the build's one round trip */
  d->width = hc->ell ? csr->stats.maxlen : PetscMin(hc->width ? hc->width : csr->stats.maxlen, csr->stats.maxlen); /* past the longest row: padding only */
  if (!hc->ell && (!hc->width || hc->width < csr->stats.maxlen)) {
    PetscInt  *count;
    PetscInt64 ncoo = 0;

    PetscCall(MatGPUFormatScratchMalloc_Private(&hc->scratch, title, (size_t)(csr->stats.maxlen + 1) * sizeof(PetscInt), (void **)&count));
    PetscCallCUDA(cudaMemsetAsync(count, 0, (size_t)(csr->stats.maxlen + 1) * sizeof(PetscInt), csr->stream));
    hyb_histogram_kernel<<<MatGPUFormatGrid(d->m, HYB_BLOCK), HYB_BLOCK, 0, csr->stream>>>((int)d->m, (int)csr->stats.maxlen, csr->rowptr, count);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscMalloc1(csr->stats.maxlen + 1, &hc->hcount));
    PetscCallCUDA(cudaMemcpyAsync(hc->hcount, count, (size_t)(csr->stats.maxlen + 1) * sizeof(PetscInt), cudaMemcpyDeviceToHost, csr->stream));
    PetscCallCUDA(cudaStreamSynchronize(csr->stream));
    PetscCall(MatGPUFormatScratchRelease_Private(&hc->scratch, mark));
    if (!hc->width) PetscCall(HYBWidthFromCounts(d->m, csr->stats.maxlen, hc->hcount, &d->width));
    for (PetscInt l = d->width + 1; l <= csr->stats.maxlen; l++) ncoo += (PetscInt64)hc->hcount[l] * (l - d->width);
    PetscCall(PetscFree(hc->hcount));
    d->ncoo       = (PetscInt)ncoo; /* at most the entries */
    hc->ncoowarps = (d->ncoo + 32 * HYB_WINDOWS - 1) / (32 * HYB_WINDOWS);
    HYBCarryLevels(hc->ncoowarps, &hc->ncarry, NULL);
  }
  hc->fill = (PetscReal)d->width * (PetscReal)d->m / (PetscReal)d->nnz;
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "width"));
  if (hc->ell && MatGPUFormatFillBoundExceeded(&hc->bound, hc->fill)) {
    char what[128];

    PetscCall(PetscSNPrintf(what, sizeof(what), "the %" PetscInt_FMT " x %" PetscInt_FMT " matrix's longest row has %" PetscInt_FMT " of its %" PetscInt_FMT " entries", d->m, d->n, d->width, d->nnz));
    PetscCall(MatGPUFormatFillBoundRefuse_Private(&hc->bound, "ell", "ELL", hc->fill, what, "use -mat_type hyb"));
    hc->declined = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck((PetscInt64)d->width * d->pitch <= PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: %" PetscInt_FMT " slots per row of %" PetscInt_FMT " rows exceed the format's 32-bit slot count; use another type", title, d->width, d->pitch);

  /* each row's first COO place, for the fill (no round trip: the size is known) */
  if (d->ncoo) {
    PetscCall(MatGPUFormatScratchMalloc_Private(&hc->scratch, title, (size_t)(d->m + 1) * sizeof(int), (void **)&first));
    hyb_coo_count_kernel<<<MatGPUFormatGrid(d->m, HYB_BLOCK), HYB_BLOCK, 0, csr->stream>>>((int)d->m, (int)d->width, csr->rowptr, first);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cudaMemsetAsync(first + d->m, 0, sizeof(int), csr->stream));
    MatGPUFormatCallThrust(thrust::exclusive_scan(MatGPUFormatThrustPolicy(csr->stream), first, first + d->m + 1, first));
  }
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "COO offsets"));

  /* every array in one allocation */
  {
    const MatGPUFormatArray arrays[] = {
        {(void **)&d->ell_col,   (size_t)d->width * d->pitch * sizeof(int)        },
        {(void **)&d->ell_val,   (size_t)d->width * d->pitch * sizeof(PetscScalar)},
        {(void **)&hc->len,      hc->readpad ? 0 : (size_t)d->m * sizeof(int)     },
        {(void **)&d->coo_row,   (size_t)d->ncoo * sizeof(int)                    },
        {(void **)&d->coo_col,   (size_t)d->ncoo * sizeof(int)                    },
        {(void **)&d->coo_val,   (size_t)d->ncoo * sizeof(PetscScalar)            },
        {(void **)&hc->carryrow, (size_t)hc->ncarry * sizeof(int)                 },
        {(void **)&hc->carryval, (size_t)hc->ncarry * sizeof(PetscScalar)         }
    };

    bytes = 0;
    for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(arrays); i++) bytes += arrays[i].bytes;
    PetscCall(MatGPUFormatCheckDeviceMemory_Private(title, bytes));
    PetscCall(MatGPUFormatDeviceMallocArrays_Private(title, &hc->mem, PETSC_STATIC_ARRAY_LENGTH(arrays), arrays));
  }
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "allocate"));
  if (d->width || !hc->readpad) { /* with no ELL slots the kernel still writes each row's count, 0 */
    hyb_ell_fill_kernel<true><<<MatGPUFormatGrid(d->pitch, HYB_BLOCK), HYB_BLOCK, 0, csr->stream>>>((int)d->m, (int)d->pitch, (int)d->width, csr->rowptr, csr->colind, csr->val, d->ell_col, d->ell_val, hc->len);
    PetscCallCUDA(cudaGetLastError());
  }
  if (d->ncoo) {
    hyb_coo_fill_kernel<true><<<MatGPUFormatGrid(d->ncoo, HYB_BLOCK), HYB_BLOCK, 0, csr->stream>>>((int)d->m, (int)d->ncoo, (int)d->width, first, csr->rowptr, csr->colind, csr->val, d->coo_row, d->coo_col, d->coo_val);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(MatGPUFormatScratchRelease_Private(&hc->scratch, mark)); /* first, in stream order */
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "fill"));
  hc->bytes = (PetscLogDouble)bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ the format interfaces */

static PetscErrorCode HYBCreate(void **fmt)
{
  Mat_HYB *hc;

  PetscFunctionBegin;
  PetscCall(PetscNew(&hc));
  hc->bound.maxfill  = ELL_DEFAULT_MAX_FILL;
  hc->bound.fallback = PETSC_TRUE;
  *fmt               = hc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ELLCreate(void **fmt)
{
  PetscFunctionBegin;
  PetscCall(HYBCreate(fmt));
  ((Mat_HYB *)*fmt)->ell = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HYBCopyParams(const void *src, void *dst)
{
  const Mat_HYB *a = (const Mat_HYB *)src;
  Mat_HYB       *b = (Mat_HYB *)dst;

  PetscFunctionBegin;
  b->ell     = a->ell;
  b->width   = a->width;
  b->readpad = a->readpad;
  b->bound   = a->bound;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HYBSameParams(const void *pa, const void *pb, PetscBool *same)
{
  const Mat_HYB *a = (const Mat_HYB *)pa, *b = (const Mat_HYB *)pb;

  PetscFunctionBegin;
  *same = (PetscBool)(a->ell == b->ell && a->width == b->width && a->readpad == b->readpad && a->bound.maxfill == b->bound.maxfill && a->bound.fallback == b->bound.fallback);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HYBSetFromOptions(void *fmt, MatGPUFormatOptionItems PetscOptionsObject)
{
  Mat_HYB *hc    = (Mat_HYB *)fmt;
  PetscInt width = hc->width;

  PetscFunctionBegin;
  PetscCall(PetscOptionsInt("-mat_hyb_width", "ELL slots per row, the rest of each row in COO; 0: the paper's rule (the largest K that a third of the rows fill)", "MATSEQHYB", width, &width, NULL));
  PetscCall(PetscOptionsBool("-mat_hyb_read_padding", "Read every ELL slot up to the width (padding skipped by its column -1) instead of stopping at each row's length", "MATSEQHYB", hc->readpad, &hc->readpad, NULL));
  PetscCheck(width >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_hyb_width %" PetscInt_FMT " is negative", width);
  hc->width = width;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ELLSetFromOptions(void *fmt, MatGPUFormatOptionItems PetscOptionsObject)
{
  Mat_HYB *hc = (Mat_HYB *)fmt;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatFillBoundSetFromOptions_Private(&hc->bound, "ell", "ELL", "MATSEQELL", "longest row x rows / entries", PetscOptionsObject));
  PetscCall(PetscOptionsBool("-mat_ell_read_padding", "Read every slot up to the width (padding skipped by its column -1) instead of stopping at each row's length", "MATSEQELL", hc->readpad, &hc->readpad, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HYBView(void *fmt, PetscViewer viewer)
{
  const Mat_HYB *hc = (const Mat_HYB *)fmt;

  PetscFunctionBegin;
  if (hc->ell) {
    char bound[64];

    PetscCall(MatGPUFormatFillBoundString_Private(&hc->bound, "ell", bound, sizeof(bound)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "width %" PetscInt_FMT " (the longest row), %.4g slots per entry, %s\n", hc->d.width, (double)hc->fill, bound));
    PetscCall(MatGPUFormatFillBoundViewDeclined_Private("ell", hc->declined, viewer));
  } else {
    PetscInt levels;

    HYBCarryLevels(hc->ncoowarps, NULL, &levels);
    PetscCall(PetscViewerASCIIPrintf(viewer, "ELL width %" PetscInt_FMT " (%s), %.4g slots per entry; COO part %" PetscInt_FMT " entries (%.1f%%), in %" PetscInt_FMT " warps of %d, reduced in %" PetscInt_FMT " levels\n", hc->d.width,
                                     hc->width ? "set" : "the paper's rule", (double)hc->fill, hc->d.ncoo, hc->d.nnz ? 100.0 * hc->d.ncoo / hc->d.nnz : 0.0, hc->ncoowarps, 32 * HYB_WINDOWS, levels));
  }
  if (!hc->declined) PetscCall(PetscViewerASCIIPrintf(viewer, "ELL padding %s; row lengths: mean %.2f, standard deviation %.2f, longest %" PetscInt_FMT "\n", hc->readpad ? "read (column -1, skipped)" : "never read (each row's count of slots)", hc->stats.mean, hc->stats.stddev, hc->stats.maxlen));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HYBMemory(void *fmt, PetscLogDouble *bytes)
{
  PetscFunctionBegin;
  *bytes = ((Mat_HYB *)fmt)->bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HYBDeclined(void *fmt, PetscBool *declined)
{
  PetscFunctionBegin;
  *declined = ((Mat_HYB *)fmt)->declined;
  PetscFunctionReturn(PETSC_SUCCESS);
}

MatGPUFormatOps MatHYBOps = {"hyb", "HYB", MATSEQHYB, MATMPIHYB, HYBCreate, HYBCopyParams, HYBSameParams, HYBSetFromOptions, HYBBuild, HYBRefresh, HYBMult, HYBReset, HYBView, HYBMemory, 0, 0, NULL, HYBDeclined};
MatGPUFormatOps MatELLOps = {"ell", "ELL", MATSEQELL, MATMPIELL, ELLCreate, HYBCopyParams, HYBSameParams, ELLSetFromOptions, HYBBuild, HYBRefresh, HYBMult, HYBReset, HYBView, HYBMemory, 0, 0, NULL, HYBDeclined};

/*MC
   MATSEQHYB - "seqaijcusparsehyb" - A sequential `MATSEQAIJCUSPARSE` matrix that multiplies on the GPU in HYB, the hybrid
   ELL and COO format of Bell and Garland, "Efficient sparse matrix-vector multiplication on CUDA", NVIDIA Technical
   Report NVR-2008-004 (2008).

   The first K entries of each row are stored in ELL (column-major: slot j of row r at j x pitch + r, padding column -1
   and value 0, never multiplied), the rest in COO, sorted by row. K follows the paper's rule: the largest K that at least
   a third of the rows fill. The product runs the ELL part with a thread per row, then adds the COO part by the paper's
   segmented reduction: warps of 16 windows of 32 entries, each window's rows summed by a segmented scan, a row that
   goes past a window carried into the next one; the warps' last carries are reduced by the same kernel, 32 to a warp,
   level after level, until one warp adds the last (a fixed order of additions: the product is deterministic). All
   other operations are those of `MATSEQAIJCUSPARSE`.

   Options Database Keys:
+  -mat_type hyb - sets the type (with `MatSetFromOptions()`), or converts an assembled `MATSEQAIJCUSPARSE` in place
.  -mat_hyb_width <K> - ELL slots per row; 0 (default) the paper's rule
-  -mat_hyb_read_padding <bool> - read every ELL slot up to K, skipping padding by its column -1, instead of stopping at each row's length (default false)

   Level: beginner

   Note:
   Issue 18; its figures and when to choose it are in the README (section "HYB and ELL options").

.seealso: [](ch_matrices), `Mat`, `MATHYB`, `MATSEQELL`, `MATSEQAIJCUSPARSE`, `MatHYBGetWidth()`
M*/
PetscErrorCode MatCreate_SeqHYB(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_SeqGPUFormat_Private(A, &MatHYBOps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATSEQELL - "seqaijcusparseell" - A sequential `MATSEQAIJCUSPARSE` matrix that multiplies on the GPU in ELL (ITPACK), as
   in Bell and Garland, NVR-2008-004: `MATSEQHYB` with the longest row's width and no COO part. A matrix whose slots
   would exceed -mat_ell_max_fill per entry (one long row makes every row as wide) is declined before anything is
   allocated: its products are then aijcusparse's, or with -mat_ell_fallback false its first product fails with
   `PETSC_ERR_SUP`.

   Options Database Keys:
+  -mat_type ell - sets the type (with `MatSetFromOptions()`), or converts an assembled `MATSEQAIJCUSPARSE` in place
.  -mat_ell_max_fill <r> - slots per entry above which the matrix is declined; 0 for no bound (default 3)
.  -mat_ell_fallback <bool> - a declined matrix multiplies with aijcusparse's product (default true); false: an error
-  -mat_ell_read_padding <bool> - read every slot up to the width, skipping padding by its column -1, instead of stopping at each row's length (default false)

   Level: beginner

   Note:
   Issue 18; its figures and when to choose it are in the README (section "HYB and ELL options").

.seealso: [](ch_matrices), `Mat`, `MATELL`, `MATSEQHYB`, `MATSEQAIJCUSPARSE`, `MatHYBGetWidth()`
M*/
PetscErrorCode MatCreate_SeqELL(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_SeqGPUFormat_Private(A, &MatELLOps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatHYBGetWidth - Gets the ELL width of a `MATSEQHYB` or `MATSEQELL` matrix, the entries of its COO part, and whether
  the format declined it

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameters:
+ width    - ELL slots per row
. ncoo     - entries in the COO part (0 for `MATSEQELL`)
- declined - `PETSC_TRUE` when a `MATSEQELL` matrix exceeds -mat_ell_max_fill and the products are aijcusparse's

  Level: intermediate

  Note:
  The values of the last build: 0 and `PETSC_FALSE` before the first product or for a matrix without entries. Pass
  `NULL` for values not needed.

.seealso: [](ch_matrices), `Mat`, `MATSEQHYB`, `MATSEQELL`
@*/
PetscErrorCode MatHYBGetWidth(Mat A, PetscInt *width, PetscInt *ncoo, PetscBool *declined)
{
  Mat_HYB *hc = NULL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(MatGPUFormatGetFormat_Private(A, &MatHYBOps, (void **)&hc));
  if (!hc) PetscCall(MatGPUFormatRequireFormat_Private(A, &MatELLOps, (void **)&hc));
  if (width) *width = hc->d.width;
  if (ncoo) *ncoo = hc->d.ncoo;
  if (declined) *declined = hc->declined;
  PetscFunctionReturn(PETSC_SUCCESS);
}

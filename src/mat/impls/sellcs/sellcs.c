/*
   SELL-C-sigma host reference: the build from CSR and the product as plain loops over the arrays the CUDA
   kernel reads. It is the oracle of the tests and needs no GPU.
*/
#include "sellcs.h"

/*
   Defaults (bench/README.md): no sorting (sigma = 1) when the unsorted chunks are already at least
   SELLCS_BETA_SORT full, otherwise windows of SELLCS_SIGMA_CHUNKS chunks; threads per row from the mean row
   length, one thread per SELLCS_ENTRIES_PER_THREAD entries, at most SELLCS_MAX_THREADS, and one when the mean
   row is long (past SELLCS_LONG_PER_THREAD T entries), since long rows leave the chunks (one thread per row was
   the fastest on every large matrix measured; on a dense matrix, 32 threads per row with rows long only past 256 T
   took 3.5 times as long); small matrices below.
*/
#define SELLCS_BETA_SORT          0.9
#define SELLCS_SIGMA_CHUNKS       32
#define SELLCS_ENTRIES_PER_THREAD 64
#define SELLCS_MAX_THREADS        4
#define SELLCS_LONG_PER_THREAD    128 /* a row is long past this many entries per thread of its row */
/*
   Small matrices whose rows do not vary much (standard deviation at most the mean): with fewer than SELLCS_FILL_THREADS
   threads one per row leave most of the GPU idle and each thread's row is a chain of memory round trips, so the threads
   per row double (up to SELLCS_MAX_THREADS) while the rows times the threads per row are fewer than that before the
   doubling (so up to twice as many after it) and each thread keeps at least SELLCS_SMALL_ENTRIES_PER_THREAD entries of
   the mean row; not where the rule above sets one thread per row because the mean row is long (the long part takes
   such rows, and its threshold of 128 T must not rise with T there). Measured on an H200 (-interleave 10, 005f18d): the banded matrix of 20,000 rows of 40 took 6.5 us with one thread per row and
   5.0 with four (10.6 and 5.0 in interleaved rounds), the FEM-like matrix of 5,000 rows of 27 4.7 and 3.5 to 3.7; the
   2D Laplacian (rows of 5) keeps one.
*/
#define SELLCS_FILL_THREADS             (1 << 17)
#define SELLCS_SMALL_ENTRIES_PER_THREAD 6
/*
   Skewed row lengths (standard deviation above the mean: R-MAT, circuits, LP) in a small matrix (fewer than
   SELLCS_SMALL_NNZ entries): a thread's row is a chain of memory round trips, one per SELLCS_UNROLL entries, and with
   too few chunks to hide it behind other work, the chunk of the longest short rows is the product's time: R-MAT of
   4,096 rows (mean 13, rows of up to 88 entries left in the chunks at 128) took 10.4 us on an H100 where cuSPARSE took
   8.1. There rows past SELLCS_SKEW_LONG_PER_THREAD T entries (4 round trips), or twice the mean row if longer, are
   long, never more than with the rule above (so rows of matrices whose lengths do not vary stay where they are).
   Larger matrices keep the rule above, which their records measure.
*/
#define SELLCS_SKEW_LONG_PER_THREAD 32
#define SELLCS_SMALL_NNZ            (1 << 21)

/* C in {4, 8, 16, 32}; sigma = 1 or a power-of-two multiple of C */
PetscErrorCode SELLCSCheckParameters(PetscInt C, PetscInt sigma)
{
  PetscFunctionBegin;
  PetscCheck(C == 4 || C == 8 || C == 16 || C == 32, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "SELL-C-sigma chunk height C = %" PetscInt_FMT " is not one of 4, 8, 16, 32", C);
  PetscCheck(sigma == 1 || (sigma >= C && sigma % C == 0 && ((sigma / C) & (sigma / C - 1)) == 0), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "SELL-C-sigma sorting scope sigma = %" PetscInt_FMT " is neither 1 nor a power-of-two multiple of C = %" PetscInt_FMT, sigma, C);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscInt SELLCSDefaultSigma(PetscInt C, PetscReal beta_unsorted)
{
  return beta_unsorted >= SELLCS_BETA_SORT ? 1 : SELLCS_SIGMA_CHUNKS * C;
}

PetscInt SELLCSDefaultThreads(PetscInt m, const MatGPUFormatRowStats *stats)
{
  PetscInt T = 1;

  while (T < SELLCS_MAX_THREADS && T * SELLCS_ENTRIES_PER_THREAD < stats->mean) T *= 2;
  if (stats->mean > SELLCS_LONG_PER_THREAD * T) return 1; /* most rows are long: the long part's warps sum them, whatever T */
  if (stats->stddev <= stats->mean) {                     /* a small matrix of regular rows: more threads per row fill the GPU */
    while (T < SELLCS_MAX_THREADS && (PetscInt64)m * T < SELLCS_FILL_THREADS && 2 * T * SELLCS_SMALL_ENTRIES_PER_THREAD <= stats->mean) T *= 2;
  }
  return T;
}

/*
   Threads per row of the product with the refresh fused into it (the first product after a change of values). It
   reads each row's new values from the CSR, where a row's entries are consecutive: one thread per row reads 32 rows
   at a stride per load, and with rows of 27 to 50 entries the lines were gone from L1 before their next entries were
   read. Measured on an H200 (sellcs/mat_sellcs_threads_per_row=T in bench_spmv, product + refresh): the banded matrix
   of 2 M rows of 50 took 648 us with one thread per row, 602 with two, 582 with four and 635 with eight; the 27-point
   Laplacian (1 M rows) 165, 149, 157 and 190 us. So the threads per row double while each keeps at least
   SELLCS_REFRESH_ENTRIES_PER_THREAD entries of the mean row, where the rows do not vary much (standard deviation at most
   the mean) and are not long (the long part takes those); never fewer than the product's T.
*/
#define SELLCS_REFRESH_ENTRIES_PER_THREAD 12
#define SELLCS_REFRESH_MAX_THREADS        32

PetscInt SELLCSDefaultRefreshThreads(PetscInt T, const MatGPUFormatRowStats *stats)
{
  PetscInt Tr = 1;

  if (stats->stddev <= stats->mean && stats->mean <= SELLCS_LONG_PER_THREAD * T)
    while (Tr < SELLCS_REFRESH_MAX_THREADS && 2 * Tr * SELLCS_REFRESH_ENTRIES_PER_THREAD <= stats->mean) Tr *= 2;
  return PetscMax(Tr, T);
}

/* Rows longer than this leave the chunks for the long part, whose warps split them */
PetscInt SELLCSDefaultLongRow(PetscInt T, const MatGPUFormatRowStats *stats)
{
  PetscInt longrow = SELLCS_LONG_PER_THREAD * T;

  if (stats->nnz < SELLCS_SMALL_NNZ && stats->stddev > stats->mean) longrow = PetscMin(longrow, PetscMax(SELLCS_SKEW_LONG_PER_THREAD * T, (PetscInt)PetscCeilReal(2 * stats->mean)));
  return longrow;
}

/* Fraction of the slots that hold entries (the paper's chunk occupancy beta); 1 for an empty matrix */
PetscReal SELLCSOccupancy(const SELLCSArrays *A)
{
  return A->nslots ? (PetscReal)A->nnz / (PetscReal)A->nslots : 1.0;
}

typedef struct {
  PetscInt len, row;
} SELLCSRow;

/* descending length, then ascending row: a stable sort by length */
static int SELLCSRowCompare(const void *a, const void *b)
{
  const SELLCSRow *p = (const SELLCSRow *)a, *q = (const SELLCSRow *)b;

  if (p->len != q->len) return p->len > q->len ? -1 : 1;
  return p->row < q->row ? -1 : (p->row > q->row ? 1 : 0);
}

/* Builds the SELL-C-sigma arrays of an m x n CSR matrix (rowptr[0] = 0); rows longer than longrow go to the long part */
PetscErrorCode SELLCSBuildHost(PetscInt m, PetscInt n, const PetscInt *rowptr, const PetscInt *colind, const PetscScalar *val, PetscInt C, PetscInt sigma, PetscInt longrow, SELLCSArrays *A)
{
  SELLCSRow *rows;
  PetscInt   nl = 0;

  PetscFunctionBegin;
  PetscCall(SELLCSCheckParameters(C, sigma));
  PetscCall(PetscArrayzero(A, 1));
  A->m       = m;
  A->n       = n;
  A->nnz     = m ? rowptr[m] : 0;
  A->C       = C;
  A->sigma   = sigma;
  A->nchunks = (m + C - 1) / C;
  A->longrow = longrow;
  PetscCall(PetscMalloc1(m, &rows));
  for (PetscInt i = 0; i < m; i++) {
    rows[i].len = rowptr[i + 1] - rowptr[i];
    rows[i].row = i;
    if (rows[i].len > longrow) {
      rows[i].len = -1; /* long: out of the chunks */
      A->nlong++;
    }
  }
  PetscCall(PetscMalloc2(A->nlong, &A->lrow, A->nlong + 1, &A->lptr));
  A->lptr[0] = 0;
  for (PetscInt i = 0; i < m; i++)
    if (rows[i].len < 0) {
      A->lrow[nl]     = (int)i;
      A->lptr[nl + 1] = A->lptr[nl] + (int)(rowptr[i + 1] - rowptr[i]);
      nl++;
    }
  PetscCall(PetscMalloc2(A->lptr[A->nlong], &A->lcol, A->lptr[A->nlong], &A->lval));
  for (PetscInt l = 0; l < A->nlong; l++) {
    for (PetscInt j = 0; j < A->lptr[l + 1] - A->lptr[l]; j++) {
      A->lcol[A->lptr[l] + j] = (int)colind[rowptr[A->lrow[l]] + j];
      A->lval[A->lptr[l] + j] = val[rowptr[A->lrow[l]] + j];
    }
  }
  if (sigma > 1) {
    for (PetscInt w = 0; w < m; w += sigma) qsort(rows + w, (size_t)PetscMin(sigma, m - w), sizeof(SELLCSRow), SELLCSRowCompare);
    PetscCall(PetscMalloc1(m, &A->perm));
    for (PetscInt r = 0; r < m; r++) A->perm[r] = (int)rows[r].row;
  }
  PetscCall(PetscCalloc1(A->nchunks * C, &A->rowlen));
  for (PetscInt r = 0; r < m; r++) A->rowlen[r] = (int)rows[r].len;
  PetscCall(PetscMalloc1(A->nchunks + 1, &A->chunk_ptr));
  A->chunk_ptr[0] = 0;
  for (PetscInt c = 0; c < A->nchunks; c++) {
    int width = 0;

    for (PetscInt k = 0; k < C; k++) width = PetscMax(width, A->rowlen[c * C + k]);
    A->chunk_ptr[c + 1] = A->chunk_ptr[c] + (PetscInt64)C * width; /* long rows (-1) take no width */
  }
  A->nslots = A->chunk_ptr[A->nchunks];
  PetscCall(PetscCalloc1(A->nslots, &A->col));
  PetscCall(PetscCalloc1(A->nslots, &A->val));
  for (PetscInt r = 0; r < m; r++) {
    const PetscInt o = rows[r].row;

    for (PetscInt j = 0; j < A->rowlen[r]; j++) {
      const PetscInt64 slot = A->chunk_ptr[r / C] + (PetscInt64)j * C + r % C;

      A->col[slot] = (int)colind[rowptr[o] + j];
      A->val[slot] = val[rowptr[o] + j];
    }
  }
  PetscCall(PetscFree(rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = A x (y == NULL) or z = y + A x, in the original row order; y may equal z */
PetscErrorCode SELLCSMultHost(const SELLCSArrays *A, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  PetscFunctionBegin;
  for (PetscInt r = 0; r < A->m; r++) {
    const PetscInt   o    = A->perm ? A->perm[r] : r;
    const PetscInt64 base = A->chunk_ptr[r / A->C] + r % A->C;
    PetscScalar      sum  = 0;

    if (A->rowlen[r] < 0) continue; /* a long row */
    for (PetscInt j = 0; j < A->rowlen[r]; j++) sum += A->val[base + (PetscInt64)j * A->C] * x[A->col[base + (PetscInt64)j * A->C]];
    z[o] = (y ? y[o] : 0.0) + sum;
  }
  for (PetscInt l = 0; l < A->nlong; l++) {
    const PetscInt o   = A->lrow[l];
    PetscScalar    sum = 0;

    for (PetscInt k = A->lptr[l]; k < A->lptr[l + 1]; k++) sum += A->lval[k] * x[A->lcol[k]];
    z[o] = (y ? y[o] : 0.0) + sum;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SELLCSDestroyHost(SELLCSArrays *A)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(A->perm));
  PetscCall(PetscFree(A->rowlen));
  PetscCall(PetscFree(A->chunk_ptr));
  PetscCall(PetscFree(A->col));
  PetscCall(PetscFree(A->val));
  PetscCall(PetscFree2(A->lrow, A->lptr));
  PetscCall(PetscFree2(A->lcol, A->lval));
  PetscFunctionReturn(PETSC_SUCCESS);
}

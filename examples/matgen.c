/*
   Test matrices for the benchmarks (matgen.h): generators, loaders, a Matrix Market writer, row statistics.
*/
#include "matgen.h"
#include <petscbt.h>
#include <stdio.h>
#include <string.h>
#include <ctype.h>

/* Uniform random integer in [0, n); rnd must produce values in [0, 1) */
static PetscErrorCode RandomIndex(PetscRandom rnd, PetscInt n, PetscInt *idx)
{
  PetscReal u;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomGetValueReal(rnd, &u));
  *idx = (PetscInt)(u * (PetscReal)n);
  if (*idx >= n) *idx = n - 1; /* guard against u rounding to 1 */
  if (*idx < 0) *idx = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n uniform random values in [-1, 1]; rnd must produce values in [0, 1) */
static PetscErrorCode RandomSigned(PetscRandom rnd, PetscInt n, PetscScalar v[])
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) {
    PetscReal u;

    PetscCall(PetscRandomGetValueReal(rnd, &u));
    v[i] = 2.0 * u - 1.0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Checks that a 64-bit count fits in PetscInt (the 32-bit index type of this PETSc build) */
static PetscErrorCode CheckFitsInt(PetscInt64 v, const char what[])
{
  PetscFunctionBeginUser;
  PetscCheck(v >= 0 && v <= (PetscInt64)PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s = %" PetscInt64_FMT " does not fit in PetscInt (max %" PetscInt_FMT ")", what, v, (PetscInt)PETSC_INT_MAX);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Creates an m x n MATSEQAIJ with exactly nnzrow[i] entries preallocated in row i */
static PetscErrorCode CreatePreallocated(PetscInt m, PetscInt n, const PetscInt nnzrow[], Mat *A)
{
  PetscInt64 total = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < m; i++) total += nnzrow[i];
  PetscCall(CheckFitsInt(total, "number of nonzeros"));
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, m, n, m, n));
  PetscCall(MatSetType(*A, MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocation(*A, 0, nnzrow));
  /* the preallocation is exact: any extra entry is a bug of the generator */
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* Matrix generators                                                                                */
/* ------------------------------------------------------------------------------------------------ */

/*
  Laplacian on an N^dim grid (3D: N x N x Nz) with Dirichlet boundary (neighbours outside the grid are dropped).
  box = PETSC_FALSE: star stencil (5-point in 2D, 7-point in 3D); box = PETSC_TRUE: full box
  stencil (9-point in 2D, 27-point in 3D). The diagonal is the number of neighbours of an interior
  point, every neighbour is -1. Rows are numbered lexicographically with x fastest.
*/
static PetscErrorCode GenerateLaplacian(PetscInt N, PetscInt Nz, PetscInt dim, PetscBool box, Mat *A)
{
  const PetscInt nz = (dim == 3) ? Nz : 1;
  PetscInt       m, nsten = 0, off[27][3], cols[27], *nnzrow; /* 27 = 3^3: largest stencil */
  PetscScalar    vals[27], diag;

  PetscFunctionBeginUser;
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Dimension must be 2 or 3, not %" PetscInt_FMT, dim);
  PetscCheck(N >= 1 && nz >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-grid and -grid_z must be positive, not %" PetscInt_FMT " and %" PetscInt_FMT, N, nz);
  PetscCall(CheckFitsInt((PetscInt64)N * N * nz, "number of rows (grid^2 grid_z)"));
  m = N * N * nz;

  /* Stencil offsets in lexicographic (dz, dy, dx) order, so the columns of every row come out sorted */
  for (PetscInt dz = (dim == 3 ? -1 : 0); dz <= (dim == 3 ? 1 : 0); dz++) {
    for (PetscInt dy = -1; dy <= 1; dy++) {
      for (PetscInt dx = -1; dx <= 1; dx++) {
        const PetscInt dist = PetscAbsInt(dx) + PetscAbsInt(dy) + PetscAbsInt(dz);

        if (!box && dist > 1) continue;
        off[nsten][0] = dx;
        off[nsten][1] = dy;
        off[nsten][2] = dz;
        nsten++;
      }
    }
  }
  diag = (PetscScalar)(nsten - 1);

  PetscCall(PetscMalloc1(m, &nnzrow));
  for (PetscInt k = 0; k < nz; k++) {
    for (PetscInt j = 0; j < N; j++) {
      for (PetscInt i = 0; i < N; i++) {
        PetscInt cnt = 0;

        for (PetscInt s = 0; s < nsten; s++) {
          const PetscInt ii = i + off[s][0], jj = j + off[s][1], kk = k + off[s][2];

          if (ii >= 0 && ii < N && jj >= 0 && jj < N && kk >= 0 && kk < nz) cnt++;
        }
        nnzrow[(k * N + j) * N + i] = cnt;
      }
    }
  }
  PetscCall(CreatePreallocated(m, m, nnzrow, A));
  PetscCall(PetscFree(nnzrow));

  for (PetscInt k = 0; k < nz; k++) {
    for (PetscInt j = 0; j < N; j++) {
      for (PetscInt i = 0; i < N; i++) {
        const PetscInt row = (k * N + j) * N + i;
        PetscInt       cnt = 0;

        for (PetscInt s = 0; s < nsten; s++) {
          const PetscInt ii = i + off[s][0], jj = j + off[s][1], kk = k + off[s][2];

          if (ii < 0 || ii >= N || jj < 0 || jj >= N || kk < 0 || kk >= nz) continue;
          cols[cnt] = (kk * N + jj) * N + ii;
          vals[cnt] = (cols[cnt] == row) ? diag : -1.0;
          cnt++;
        }
        PetscCall(MatSetValues(*A, 1, &row, cnt, cols, vals, INSERT_VALUES));
      }
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Banded M x M matrix: row i holds the W consecutive columns starting at max(0, min(i - W/2, M - W)).
  Values are uniform in [-1, 1] except the diagonal, which is W (diagonally dominant).
*/
static PetscErrorCode GenerateBanded(PetscInt M, PetscInt W, PetscRandom rnd, Mat *A)
{
  PetscInt    *nnzrow, *cols;
  PetscScalar *vals;

  PetscFunctionBeginUser;
  PetscCheck(M >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-rows must be positive, not %" PetscInt_FMT, M);
  PetscCheck(W >= 1 && W <= M, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-width must be in [1, rows = %" PetscInt_FMT "], not %" PetscInt_FMT, M, W);
  PetscCall(CheckFitsInt((PetscInt64)M * W, "number of nonzeros (rows * width)"));
  PetscCall(PetscMalloc1(M, &nnzrow));
  for (PetscInt i = 0; i < M; i++) nnzrow[i] = W;
  PetscCall(CreatePreallocated(M, M, nnzrow, A));
  PetscCall(PetscFree(nnzrow));

  PetscCall(PetscMalloc2(W, &cols, W, &vals));
  for (PetscInt i = 0; i < M; i++) {
    const PetscInt start = PetscMax(0, PetscMin(i - W / 2, M - W));

    PetscCall(RandomSigned(rnd, W, vals));
    for (PetscInt c = 0; c < W; c++) {
      cols[c] = start + c;
      if (cols[c] == i) vals[c] = (PetscScalar)W;
    }
    PetscCall(MatSetValues(*A, 1, &i, W, cols, vals, INSERT_VALUES));
  }
  PetscCall(PetscFree2(cols, vals));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Diagonals: an M x M matrix on K diagonals of offsets (j - (K - 1) / 2) x stride, j = 0 .. K - 1 (the main diagonal
  among them when K is odd), the main diagonal full and every other slot that lies in the matrix an entry with
  probability p. Its DIA fill (slots per entry) is about K / (1 + (K - 1) p): the matrices of DIA's bound.
*/
static PetscErrorCode GenerateDiagonals(PetscInt M, PetscInt K, PetscInt stride, PetscReal p, PetscRandom rnd, Mat *A)
{
  PetscInt    *nnzrow, *cols;
  PetscScalar *vals;

  PetscFunctionBeginUser;
  PetscCheck(M >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-rows must be positive, not %" PetscInt_FMT, M);
  PetscCheck(K >= 1 && (K - 1) / 2 * stride < M, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-diagonals %" PetscInt_FMT " of -stride %" PetscInt_FMT " do not fit in %" PetscInt_FMT " rows", K, stride, M);
  PetscCall(PetscMalloc1(M, &nnzrow));
  for (PetscInt i = 0; i < M; i++) nnzrow[i] = K;
  PetscCall(CreatePreallocated(M, M, nnzrow, A));
  PetscCall(PetscFree(nnzrow));
  PetscCall(PetscMalloc2(K, &cols, K, &vals));
  for (PetscInt i = 0; i < M; i++) {
    PetscInt nc = 0;

    for (PetscInt j = 0; j < K; j++) {
      const PetscInt c = i + (j - (K - 1) / 2) * stride;
      PetscReal      u;

      if (c < 0 || c >= M) continue;
      PetscCall(PetscRandomGetValueReal(rnd, &u));
      if (c != i && u >= p) continue;
      cols[nc] = c;
      vals[nc] = c == i ? (PetscScalar)K : 2.0 * u - 1.0;
      nc++;
    }
    PetscCall(MatSetValues(*A, 1, &i, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(PetscFree2(cols, vals));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  R-MAT (Kronecker) power-law graph with the Graph500 parameters a = 0.57, b = c = 0.19, d = 0.05:
  2^scale vertices, edge_factor x 2^scale directed edges, each placed by choosing a quadrant per bit;
  vertex labels are then permuted at random (as Graph500 does) and repeated edges dropped. Values are
  uniform in [-1, 1].
*/
static PetscErrorCode GenerateRMAT(PetscInt scale, PetscInt edge_factor, PetscRandom rnd, Mat *A)
{
  const PetscReal a = 0.57, b = 0.19, c = 0.19;
  const PetscInt  N = (PetscInt)1 << scale;
  PetscInt64      E, nuniq = 0;
  PetscInt64     *keys;
  PetscInt       *label, *nnzrow, *cols;
  PetscReal      *r;
  PetscScalar    *vals;

  PetscFunctionBeginUser;
  PetscCheck(scale >= 1 && scale <= 28, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-scale must be in [1, 28], not %" PetscInt_FMT, scale);
  E = (PetscInt64)edge_factor << scale;
  PetscCall(CheckFitsInt(E, "number of edges"));
  PetscCall(PetscMalloc3(E, &keys, N, &label, scale, &r));
  for (PetscInt i = 0; i < N; i++) label[i] = i;
  for (PetscInt i = N - 1; i > 0; i--) { /* Fisher-Yates */
    PetscInt j, t;

    PetscCall(RandomIndex(rnd, i + 1, &j));
    t        = label[i];
    label[i] = label[j];
    label[j] = t;
  }
  for (PetscInt64 e = 0; e < E; e++) {
    PetscInt i = 0, j = 0;

    PetscCall(PetscRandomGetValuesReal(rnd, scale, r));
    for (PetscInt bit = 0; bit < scale; bit++) {
      const PetscInt ib = r[bit] >= a + b, jb = (r[bit] >= a && r[bit] < a + b) || r[bit] >= a + b + c;

      i = (i << 1) | ib;
      j = (j << 1) | jb;
    }
    keys[e] = (PetscInt64)label[i] * N + label[j];
  }
  PetscCall(PetscSortInt64((PetscCount)E, keys));
  for (PetscInt64 e = 0; e < E; e++)
    if (e == 0 || keys[e] != keys[e - 1]) keys[nuniq++] = keys[e];
  PetscCall(PetscCalloc1(N, &nnzrow));
  for (PetscInt64 e = 0; e < nuniq; e++) nnzrow[keys[e] / N]++;
  PetscCall(CreatePreallocated(N, N, nnzrow, A));
  PetscCall(PetscMalloc2(N, &cols, N, &vals));
  for (PetscInt64 e = 0; e < nuniq;) {
    const PetscInt row = (PetscInt)(keys[e] / N);
    PetscInt       len = 0;

    for (; e < nuniq && keys[e] / N == row; e++) cols[len++] = (PetscInt)(keys[e] % N);
    PetscCall(RandomSigned(rnd, len, vals));
    PetscCall(MatSetValues(*A, 1, &row, len, cols, vals, INSERT_VALUES));
  }
  PetscCall(PetscFree2(cols, vals));
  PetscCall(PetscFree(nnzrow));
  PetscCall(PetscFree3(keys, label, r));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  M x M circuit-like matrix. An ordinary row holds its diagonal and 1 to 9 more distinct columns
  (uniformly 2 to 10 entries in all), each within 1000 columns of the diagonal with probability 4/5 and
  anywhere otherwise. K distinct rows at random places (the supply and ground nets) hold their diagonal
  and distinct random columns, L/2 to 2L entries in all (uniform). Off-diagonal values are uniform in
  [-1, 1] and the diagonal is the row length, so every row is strictly diagonally dominant.
*/
static PetscErrorCode GenerateCircuit(PetscInt M, PetscInt K, PetscInt L, PetscRandom rnd, Mat *A)
{
  const PetscInt near = 1000, short_min = 2, short_max = 10;
  PetscInt      *nnzrow, *cols;
  PetscInt       maxlen = short_max; /* longest row */
  PetscScalar   *vals;
  PetscBT        isnet;

  PetscFunctionBeginUser;
  PetscCheck(M >= short_max, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-rows must be at least %" PetscInt_FMT " for circuit, not %" PetscInt_FMT, short_max, M);
  PetscCheck(K >= 0 && K <= M, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-circuit_long_rows must be in [0, rows = %" PetscInt_FMT "], not %" PetscInt_FMT, M, K);
  PetscCheck(L >= 2 && L <= M / 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-circuit_long_len must be in [2, rows / 2 = %" PetscInt_FMT "], not %" PetscInt_FMT, M / 2, L);
  PetscCall(PetscBTCreate(M, &isnet));
  PetscCall(PetscMalloc1(M, &nnzrow));
  for (PetscInt i = 0; i < M; i++) {
    PetscCall(RandomIndex(rnd, short_max - short_min + 1, &nnzrow[i]));
    nnzrow[i] += short_min;
  }
  for (PetscInt k = 0; k < K; k++) {
    PetscInt row, len;

    do { /* K distinct rows */
      PetscCall(RandomIndex(rnd, M, &row));
    } while (PetscBTLookup(isnet, row));
    PetscCall(PetscBTSet(isnet, row));
    PetscCall(RandomIndex(rnd, 2 * L - L / 2 + 1, &len));
    nnzrow[row] = L / 2 + len;
    maxlen      = PetscMax(maxlen, nnzrow[row]);
  }
  PetscCall(CreatePreallocated(M, M, nnzrow, A));

  PetscCall(PetscMalloc2(maxlen, &cols, maxlen, &vals));
  for (PetscInt i = 0; i < M; i++) {
    PetscInt len = 1;

    cols[0] = i;
    if (PetscBTLookup(isnet, i)) { /* a net: draw random columns, drop repeats, until there are enough */
      while (len < nnzrow[i]) {
        PetscInt n = nnzrow[i];

        for (PetscInt q = len; q < n; q++) PetscCall(RandomIndex(rnd, M, &cols[q]));
        PetscCall(PetscSortRemoveDupsInt(&n, cols));
        len = n;
      }
    } else { /* rejection sampling of distinct columns, mostly near the diagonal */
      while (len < nnzrow[i]) {
        PetscInt  c, pick;
        PetscBool dup = PETSC_FALSE;

        PetscCall(RandomIndex(rnd, 5, &pick));
        if (pick) {
          const PetscInt64 lo = (PetscInt64)i - near; /* 64-bit: i + near may overflow PetscInt */

          PetscCall(RandomIndex(rnd, 2 * near + 1, &c));
          if (lo + c < 0 || lo + c >= M) continue; /* outside the matrix: draw again */
          c = (PetscInt)(lo + c);
        } else PetscCall(RandomIndex(rnd, M, &c));
        for (PetscInt q = 0; q < len && !dup; q++) dup = (cols[q] == c) ? PETSC_TRUE : PETSC_FALSE;
        if (!dup) cols[len++] = c;
      }
      PetscCall(PetscSortInt(len, cols));
    }
    PetscCall(RandomSigned(rnd, len, vals));
    for (PetscInt q = 0; q < len; q++)
      if (cols[q] == i) vals[q] = (PetscScalar)len;
    PetscCall(MatSetValues(*A, 1, &i, len, cols, vals, INSERT_VALUES));
  }
  PetscCall(PetscFree2(cols, vals));
  PetscCall(PetscFree(nnzrow));
  PetscCall(PetscBTDestroy(&isnet));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  M x M matrix with a few very long rows: every row holds its diagonal plus S - 1 distinct random
  columns, except rows k M / (L + 1), k = 1..L, which hold K distinct columns spaced by a random
  stride from a random start. All values are uniform in [-1, 1].
*/
static PetscErrorCode GenerateLongRows(PetscInt M, PetscInt S, PetscInt L, PetscInt K, PetscRandom rnd, Mat *A)
{
  PetscInt    *nnzrow, *cols, maxlen;
  PetscScalar *vals;
  PetscBT      islong;

  PetscFunctionBeginUser;
  PetscCheck(M >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-rows must be positive, not %" PetscInt_FMT, M);
  PetscCheck(S >= 1 && S <= M, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-short_len must be in [1, rows = %" PetscInt_FMT "], not %" PetscInt_FMT, M, S);
  PetscCheck(L >= 0 && L < M, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-long_rows must be in [0, rows = %" PetscInt_FMT "), not %" PetscInt_FMT, M, L);
  PetscCheck(K >= 1 && K <= M, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-long_len must be in [1, rows = %" PetscInt_FMT "], not %" PetscInt_FMT, M, K);
  PetscCall(CheckFitsInt((PetscInt64)M * S + (PetscInt64)L * K, "number of nonzeros"));

  PetscCall(PetscBTCreate(M, &islong));
  PetscCall(PetscMalloc1(M, &nnzrow));
  for (PetscInt i = 0; i < M; i++) nnzrow[i] = S;
  for (PetscInt k = 1; k <= L; k++) {
    /* 64-bit product: k * M may overflow PetscInt */
    const PetscInt row = (PetscInt)(((PetscInt64)k * M) / (L + 1));

    PetscCall(PetscBTSet(islong, row));
    nnzrow[row] = K;
  }
  PetscCall(CreatePreallocated(M, M, nnzrow, A));
  PetscCall(PetscFree(nnzrow));

  maxlen = PetscMax(S, K);
  PetscCall(PetscMalloc2(maxlen, &cols, maxlen, &vals));
  for (PetscInt i = 0; i < M; i++) {
    PetscInt len;

    if (PetscBTLookup(islong, i)) {
      const PetscInt maxstride = (K > 1) ? PetscMax(1, (M - 1) / (K - 1)) : 1;
      PetscInt       stride, start;

      PetscCall(RandomIndex(rnd, maxstride, &stride));
      stride += 1; /* stride in [1, maxstride] keeps all K columns inside [0, M) */
      PetscCall(RandomIndex(rnd, M - (K - 1) * stride, &start));
      for (PetscInt c = 0; c < K; c++) cols[c] = start + c * stride;
      len = K;
    } else {
      /* rejection sampling of distinct columns: meant for short rows (S much smaller than M) */
      cols[0] = i;
      len     = 1;
      while (len < S) {
        PetscInt  c;
        PetscBool dup = PETSC_FALSE;

        PetscCall(RandomIndex(rnd, M, &c));
        for (PetscInt q = 0; q < len && !dup; q++) dup = (cols[q] == c) ? PETSC_TRUE : PETSC_FALSE;
        if (!dup) cols[len++] = c;
      }
      PetscCall(PetscSortInt(len, cols));
    }
    PetscCall(RandomSigned(rnd, len, vals));
    PetscCall(MatSetValues(*A, 1, &i, len, cols, vals, INSERT_VALUES));
  }
  PetscCall(PetscFree2(cols, vals));
  PetscCall(PetscBTDestroy(&islong));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Row length statistics of a host MATSEQAIJ matrix */
PetscErrorCode MatGenRowStatistics(Mat A, PetscInt64 *nnz, PetscReal *mean, PetscReal *std, PetscInt *maxlen)
{
  PetscInt        m;
  const PetscInt *ia, *ja;
  PetscBool       done;
  PetscReal       sum = 0.0, sumsq = 0.0;

  PetscFunctionBeginUser;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetRowIJ() is not supported by the host matrix");
  *maxlen = 0;
  for (PetscInt i = 0; i < m; i++) {
    const PetscInt len = ia[i + 1] - ia[i];

    *maxlen = PetscMax(*maxlen, len);
    sum += (PetscReal)len;
  }
  *nnz  = ia[m];
  *mean = m ? sum / (PetscReal)m : 0.0;
  for (PetscInt i = 0; i < m; i++) {
    const PetscReal d = (PetscReal)(ia[i + 1] - ia[i]) - *mean;

    sumsq += d * d;
  }
  *std = m ? PetscSqrtReal(sumsq / (PetscReal)m) : 0.0;
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Unstructured FEM-like matrix: N random points in the unit cube, numbered along a space-filling (Morton)
  curve; row i holds i and its k nearest points among those of the 27 grid cells around it (cells of about two
  points), so rows near the boundary are a little shorter. Off-diagonal values are -1 / (1 + 10 distance) and
  the diagonal makes each row diagonally dominant.
*/
static PetscErrorCode GenerateFEM(PetscInt N, PetscInt k, PetscRandom rnd, Mat *A)
{
  PetscReal   *p, *q, *dist;
  PetscInt64  *key;
  PetscInt     G, *cellstart, *cellof, *order, *nnzrow, *cols, *cand, maxcand;
  PetscScalar *vals;

  PetscFunctionBeginUser;
  PetscCheck(N >= 2 && k >= 1 && k < N, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "fem needs 2 <= -rows and 1 <= -neighbours < -rows");
  G = PetscMax(1, (PetscInt)PetscFloorReal(PetscPowReal((PetscReal)N / 2.0, 1.0 / 3.0)));
  PetscCall(CheckFitsInt((PetscInt64)G * G * G + 1, "grid cells"));
  PetscCall(PetscMalloc5(3 * N, &p, 3 * N, &q, N, &key, N, &order, N, &cellof));
  PetscCall(PetscRandomGetValuesReal(rnd, 3 * N, p));
  for (PetscInt i = 0; i < N; i++) { /* Morton code of 10 bits per axis, then the index */
    PetscInt64 code = 0;

    for (int bit = 9; bit >= 0; bit--)
      for (int d = 0; d < 3; d++) code = (code << 1) | (((PetscInt64)(p[3 * i + d] * 1024.0) >> bit) & 1);
    key[i] = (code << 31) | i;
  }
  PetscCall(PetscSortInt64(N, key));
  for (PetscInt i = 0; i < N; i++) {
    const PetscInt o = (PetscInt)(key[i] & 0x7fffffff);

    for (int d = 0; d < 3; d++) q[3 * i + d] = p[3 * o + d];
  }
  /* points by cell: a counting sort */
  PetscCall(PetscCalloc1(G * G * G + 1, &cellstart));
  for (PetscInt i = 0; i < N; i++) {
    PetscInt c[3];

    for (int d = 0; d < 3; d++) c[d] = PetscMin(G - 1, (PetscInt)(q[3 * i + d] * G));
    cellof[i] = (c[2] * G + c[1]) * G + c[0];
    cellstart[cellof[i] + 1]++;
  }
  for (PetscInt c = 0; c < G * G * G; c++) cellstart[c + 1] += cellstart[c];
  {
    PetscInt *next;

    PetscCall(PetscMalloc1(G * G * G, &next));
    PetscCall(PetscArraycpy(next, cellstart, G * G * G));
    for (PetscInt i = 0; i < N; i++) order[next[cellof[i]]++] = i;
    PetscCall(PetscFree(next));
  }
  maxcand = 0;
  for (PetscInt c = 0; c < G * G * G; c++) maxcand = PetscMax(maxcand, cellstart[c + 1] - cellstart[c]);
  maxcand *= 27;
  PetscCall(PetscMalloc5(N, &nnzrow, maxcand, &cand, maxcand, &dist, k + 1, &cols, k + 1, &vals));
  for (int pass = 0; pass < 2; pass++) { /* the row lengths, then the rows */
    if (pass) PetscCall(CreatePreallocated(N, N, nnzrow, A));
    for (PetscInt i = 0; i < N; i++) {
      const PetscInt cz = cellof[i] / (G * G), cy = (cellof[i] / G) % G, cx = cellof[i] % G;
      PetscInt       nc   = 0, len;
      PetscScalar    diag = 0;

      for (PetscInt z = PetscMax(cz - 1, 0); z <= PetscMin(cz + 1, G - 1); z++)
        for (PetscInt y = PetscMax(cy - 1, 0); y <= PetscMin(cy + 1, G - 1); y++)
          for (PetscInt x = PetscMax(cx - 1, 0); x <= PetscMin(cx + 1, G - 1); x++) {
            const PetscInt c = (z * G + y) * G + x;

            for (PetscInt t = cellstart[c]; t < cellstart[c + 1]; t++) {
              const PetscInt j  = order[t];
              PetscReal      d2 = 0;

              if (j == i) continue;
              for (int d = 0; d < 3; d++) d2 += (q[3 * i + d] - q[3 * j + d]) * (q[3 * i + d] - q[3 * j + d]);
              cand[nc]   = j;
              dist[nc++] = d2;
            }
          }
      PetscCall(PetscSortRealWithArrayInt(nc, dist, cand));
      len = PetscMin(nc, k);
      if (!pass) {
        nnzrow[i] = len + 1;
        continue;
      }
      for (PetscInt t = 0; t < len; t++) {
        cols[t] = cand[t];
        vals[t] = -1.0 / (1.0 + 10.0 * PetscSqrtReal(dist[t]));
        diag -= vals[t];
      }
      cols[len] = i;
      vals[len] = diag + 1.0;
      PetscCall(PetscSortIntWithScalarArray(len + 1, cols, vals));
      PetscCall(MatSetValues(*A, 1, &i, len + 1, cols, vals, INSERT_VALUES));
    }
  }
  PetscCall(PetscFree5(nnzrow, cand, dist, cols, vals));
  PetscCall(PetscFree(cellstart));
  PetscCall(PetscFree5(p, q, key, order, cellof));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  M x N matrix of the shapes of linear programs. square = PETSC_TRUE, lp1-like: rows of 2 to 6 random columns
  plus D rows holding each column with probability f. square = PETSC_FALSE, a rectangular LP-like matrix: rows
  of 5 to 40 random columns plus D rows of about f N columns.
*/
static PetscErrorCode GenerateLP(PetscInt M, PetscInt N, PetscInt D, PetscReal f, PetscBool square, PetscRandom rnd, Mat *A)
{
  PetscInt    *nnzrow, *cols, *dense, lo = square ? 2 : 5, hi = square ? 6 : 40;
  PetscScalar *vals;
  PetscBT      isdense;

  PetscFunctionBeginUser;
  PetscCheck(M >= 1 && N >= hi && D >= 0 && D <= M && f > 0 && f <= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "lp: needs rows >= 1, columns >= %" PetscInt_FMT ", 0 <= dense rows <= rows, 0 < fraction <= 1", hi);
  PetscCall(PetscBTCreate(M, &isdense));
  PetscCall(PetscMalloc3(M, &nnzrow, N, &cols, N, &vals));
  PetscCall(PetscMalloc1(D, &dense));
  for (PetscInt d = 0; d < D; d++) { /* distinct rows */
    do PetscCall(RandomIndex(rnd, M, &dense[d]));
    while (PetscBTLookup(isdense, dense[d]));
    PetscCall(PetscBTSet(isdense, dense[d]));
  }
  for (PetscInt i = 0; i < M; i++) {
    PetscCall(RandomIndex(rnd, hi - lo + 1, &nnzrow[i]));
    nnzrow[i] += lo;
    if (PetscBTLookup(isdense, i)) nnzrow[i] = N; /* an upper bound; assembly drops what is not used */
  }
  PetscCall(CreatePreallocated(M, N, nnzrow, A));
  for (PetscInt i = 0; i < M; i++) {
    PetscInt len = 0;

    if (PetscBTLookup(isdense, i)) {
      for (PetscInt j = 0; j < N; j++) {
        PetscReal u;

        PetscCall(PetscRandomGetValueReal(rnd, &u));
        if (u < f) cols[len++] = j;
      }
    } else {
      while (len < nnzrow[i]) {
        PetscInt n = len;

        for (; n < nnzrow[i]; n++) PetscCall(RandomIndex(rnd, N, &cols[n]));
        PetscCall(PetscSortRemoveDupsInt(&n, cols));
        len = n;
      }
    }
    PetscCall(RandomSigned(rnd, len, vals));
    PetscCall(MatSetValues(*A, 1, &i, len, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree(dense));
  PetscCall(PetscFree3(nnzrow, cols, vals));
  PetscCall(PetscBTDestroy(&isdense));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* M x M random permutation matrix (the CMRS paper's p7): one entry per row, every column once */
static PetscErrorCode GeneratePermutation(PetscInt M, PetscRandom rnd, Mat *A)
{
  PetscInt   *perm, *one;
  PetscScalar v;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(M, &perm, M, &one));
  for (PetscInt i = 0; i < M; i++) {
    perm[i] = i;
    one[i]  = 1;
  }
  for (PetscInt i = M - 1; i > 0; i--) {
    PetscInt j, t;

    PetscCall(RandomIndex(rnd, i + 1, &j));
    t       = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  PetscCall(CreatePreallocated(M, M, one, A));
  for (PetscInt i = 0; i < M; i++) {
    PetscCall(RandomSigned(rnd, 1, &v));
    PetscCall(MatSetValues(*A, 1, &i, 1, &perm[i], &v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree2(perm, one));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* M x N dense matrix stored sparse: every entry, random */
static PetscErrorCode GenerateDense(PetscInt M, PetscInt N, PetscRandom rnd, Mat *A)
{
  PetscInt    *nnzrow, *cols;
  PetscScalar *vals;

  PetscFunctionBeginUser;
  PetscCall(CheckFitsInt((PetscInt64)M * N, "number of nonzeros"));
  PetscCall(PetscMalloc3(M, &nnzrow, N, &cols, N, &vals));
  for (PetscInt i = 0; i < M; i++) nnzrow[i] = N;
  for (PetscInt j = 0; j < N; j++) cols[j] = j;
  PetscCall(CreatePreallocated(M, N, nnzrow, A));
  for (PetscInt i = 0; i < M; i++) {
    PetscCall(RandomSigned(rnd, N, vals));
    PetscCall(MatSetValues(*A, 1, &i, N, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree3(nnzrow, cols, vals));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* Files                                                                                            */
/* ------------------------------------------------------------------------------------------------ */

/*
  Matrix Market "matrix coordinate" file (real, integer or pattern; general, symmetric or skew-symmetric) as
  MATSEQAIJ. Entries are 1-based; repeated entries are added; pattern entries are 1.
*/
static PetscErrorCode LoadMatrixMarket(const char file[], Mat *A)
{
  FILE        *fp;
  char         line[1024], object[64], format[64], field[64], symmetry[64];
  long long    m, n, nz, i, j;
  PetscInt    *rowptr, *ci, *next;
  PetscScalar *cv;
  PetscInt64   total;
  PetscBool    pattern, sym, skew;

  PetscFunctionBeginUser;
  fp = fopen(file, "r");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", file);
  PetscCheck(fgets(line, sizeof(line), fp), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: empty file", file);
  for (char *c = line; *c; c++) *c = (char)tolower(*c);
  PetscCheck(sscanf(line, "%%%%matrixmarket %63s %63s %63s %63s", object, format, field, symmetry) == 4, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: no Matrix Market banner", file);
  PetscCheck(!strcmp(object, "matrix") && !strcmp(format, "coordinate"), PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: only 'matrix coordinate' Matrix Market files are supported, not '%s %s'", file, object, format);
  PetscCheck(!strcmp(field, "real") || !strcmp(field, "integer") || !strcmp(field, "pattern"), PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: field '%s' (real, integer and pattern are supported)", file, field);
  PetscCheck(!strcmp(symmetry, "general") || !strcmp(symmetry, "symmetric") || !strcmp(symmetry, "skew-symmetric"), PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: symmetry '%s' (general, symmetric and skew-symmetric are supported)", file, symmetry);
  pattern = (PetscBool)!strcmp(field, "pattern");
  sym     = (PetscBool)strcmp(symmetry, "general");
  skew    = (PetscBool)!strcmp(symmetry, "skew-symmetric");
  do PetscCheck(fgets(line, sizeof(line), fp), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: no size line", file);
  while (line[0] == '%');
  PetscCheck(sscanf(line, "%lld %lld %lld", &m, &n, &nz) == 3 && m >= 0 && n >= 0 && nz >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: bad size line", file);
  PetscCheck(!sym || m == n, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: a symmetric matrix must be square", file);
  PetscCall(CheckFitsInt(m, "rows"));
  PetscCall(CheckFitsInt(n, "columns"));
  PetscCall(CheckFitsInt(sym ? 2 * nz : nz, "number of entries"));
  total = sym ? 2 * nz : nz;
  PetscCall(PetscMalloc2(total, &ci, total, &cv));
  PetscCall(PetscCalloc1(m + 1, &rowptr));
  {
    PetscInt  *ri;
    PetscInt64 e = 0;

    PetscCall(PetscMalloc1(total, &ri));
    for (long long k = 0; k < nz; k++) {
      double v = 1.0;

      do PetscCheck(fgets(line, sizeof(line), fp), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: %lld entries of %lld", file, k, nz);
      while (line[0] == '%' || line[0] == '\n');
      PetscCheck(sscanf(line, "%lld %lld %lf", &i, &j, &v) >= (pattern ? 2 : 3), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: bad entry line %lld", file, k + 1);
      PetscCheck(i >= 1 && i <= m && j >= 1 && j <= n, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: entry (%lld, %lld) outside %lld x %lld", file, i, j, m, n);
      if (pattern) v = 1.0;
      ri[e]   = (PetscInt)(i - 1);
      ci[e]   = (PetscInt)(j - 1);
      cv[e++] = v;
      if (sym && i != j) {
        ri[e]   = (PetscInt)(j - 1);
        ci[e]   = (PetscInt)(i - 1);
        cv[e++] = skew ? -v : v;
      }
    }
    total = e;
    for (PetscInt64 t = 0; t < total; t++) rowptr[ri[t] + 1]++;
    for (PetscInt r = 0; r < m; r++) rowptr[r + 1] += rowptr[r];
    PetscCall(PetscMalloc1(m, &next));
    PetscCall(PetscArraycpy(next, rowptr, m));
    { /* by row, stably */
      PetscInt    *cj;
      PetscScalar *vj;

      PetscCall(PetscMalloc2(total, &cj, total, &vj));
      for (PetscInt64 t = 0; t < total; t++) {
        cj[next[ri[t]]]   = ci[t];
        vj[next[ri[t]]++] = cv[t];
      }
      PetscCall(PetscArraycpy(ci, cj, total));
      PetscCall(PetscArraycpy(cv, vj, total));
      PetscCall(PetscFree2(cj, vj));
    }
    PetscCall(PetscFree(next));
    PetscCall(PetscFree(ri));
  }
  fclose(fp);
  {
    PetscInt *nnzrow;

    PetscCall(PetscMalloc1(m, &nnzrow));
    for (PetscInt r = 0; r < m; r++) nnzrow[r] = rowptr[r + 1] - rowptr[r];
    PetscCall(CreatePreallocated((PetscInt)m, (PetscInt)n, nnzrow, A));
    PetscCall(PetscFree(nnzrow));
  }
  for (PetscInt r = 0; r < m; r++) {
    PetscCall(PetscSortIntWithScalarArray(rowptr[r + 1] - rowptr[r], ci + rowptr[r], cv + rowptr[r]));
    PetscCall(MatSetValues(*A, 1, &r, rowptr[r + 1] - rowptr[r], ci + rowptr[r], cv + rowptr[r], ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree(rowptr));
  PetscCall(PetscFree2(ci, cv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  MatGenLoad - Loads a matrix file as `MATSEQAIJ`: Matrix Market when the file starts with its banner, else PETSc binary

  Input Parameter:
. file - the file

  Output Parameter:
. A - the matrix
@*/
PetscErrorCode MatGenLoad(const char file[], Mat *A)
{
  FILE       *fp;
  char        head[16] = "";
  PetscViewer viewer;

  PetscFunctionBeginUser;
  fp = fopen(file, "r");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", file);
  if (!fgets(head, sizeof(head), fp)) head[0] = 0;
  fclose(fp);
  if (!strncmp(head, "%%MatrixMarket", 14)) {
    PetscCall(LoadMatrixMarket(file, A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_SELF, file, FILE_MODE_READ, &viewer));
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetType(*A, MATSEQAIJ));
  PetscCall(MatLoad(*A, viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  MatGenWriteMatrixMarket - Writes a `MATSEQAIJ` matrix as a Matrix Market "matrix coordinate real general" file

  Input Parameters:
+ A    - the matrix
- file - the file
@*/
PetscErrorCode MatGenWriteMatrixMarket(Mat A, const char file[])
{
  FILE              *fp;
  PetscInt           m, n;
  const PetscInt    *ia, *ja;
  const PetscScalar *a;
  PetscBool          done;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetRowIJ() is not supported by this matrix");
  PetscCall(MatSeqAIJGetArrayRead(A, &a));
  fp = fopen(file, "w");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", file);
  fprintf(fp, "%%%%MatrixMarket matrix coordinate real general\n%" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT "\n", m, n, ia[m]);
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt k = ia[i]; k < ia[i + 1]; k++) fprintf(fp, "%" PetscInt_FMT " %" PetscInt_FMT " %.17g\n", i + 1, ja[k] + 1, (double)PetscRealPart(a[k]));
  PetscCheck(!fclose(fp), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write %s", file);
  PetscCall(MatSeqAIJRestoreArrayRead(A, &a));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* From the options database                                                                        */
/* ------------------------------------------------------------------------------------------------ */

typedef enum {
  MATRIX_LAP2D5,
  MATRIX_LAP3D7,
  MATRIX_LAP3D27,
  MATRIX_BANDED,
  MATRIX_LONGROWS,
  MATRIX_RMAT,
  MATRIX_CIRCUIT,
  MATRIX_FEM,
  MATRIX_LP1,
  MATRIX_PERMUTATION,
  MATRIX_DENSE,
  MATRIX_LPRECT,
  MATRIX_DIAGONALS,
  MATRIX_FILE
} MatrixKind;
const char *const MatGenKinds[] = {"lap2d5", "lap3d7", "lap3d27", "banded", "longrows", "rmat", "circuit", "fem", "lp1", "permutation", "dense", "lprect", "diagonals", "file", "MatrixKind", "MATRIX_", NULL};

/*@C
  MatGenFromOptions - Generates (or loads) the host `MATSEQAIJ` matrix the options ask for

  Output Parameters:
+ A      - the matrix; NULL with -help, which prints the options and generates nothing
. name   - its kind (or the file's base name), of length namelen
- params - its parameters as "key=value ...", of length paramslen

  Options Database Keys:
+ -matrix <kind> - lap2d5, lap3d7, lap3d27, banded, longrows, rmat, circuit, fem, lp1, permutation, dense, lprect, diagonals, or file (with -f)
. -f <file>      - PETSc binary or Matrix Market file
- -seed <s>      - seed of the random generators; and each kind's size options (-help)
@*/
PetscErrorCode MatGenFromOptions(Mat *A, char name[], size_t namelen, char params[], size_t paramslen)
{
  PetscEnum   kind = MATRIX_LAP2D5;
  PetscInt    grid = 2048, grid_z = 0, rows = 1000000, diagonals = 9, stride = 1000, cols = 0, width = 50, short_len = 4, long_rows = 4, long_len = 100000, seed = 0, scale = 21, edge_factor = 16, circuit_long_rows = 16, circuit_long_len = 5000, neighbours = 26, dense_rows = 4;
  PetscReal   fraction = 0.5, occupancy = 0.5;
  char        file[PETSC_MAX_PATH_LEN] = "";
  PetscBool   flg_file;
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscOptionsBegin(PETSC_COMM_SELF, NULL, "Test matrix options", NULL);
  PetscCall(PetscOptionsEnum("-matrix", "Matrix generator, or file for -f", NULL, MatGenKinds, kind, &kind, NULL));
  switch ((MatrixKind)kind) { /* per-matrix defaults: working sets of 250 MB or more */
  case MATRIX_LAP2D5:
    grid = 2048;
    break;
  case MATRIX_LAP3D7:
    grid = 160;
    break;
  case MATRIX_LAP3D27:
    grid = 100;
    break;
  case MATRIX_BANDED:
    rows = 2000000;
    break;
  case MATRIX_LONGROWS:
    rows = 4000000;
    break;
  case MATRIX_CIRCUIT:
  case MATRIX_LP1:
    rows = 4000000;
    break;
  case MATRIX_FEM:
    rows = 1000000;
    break;
  case MATRIX_PERMUTATION:
    rows = 12000000;
    break;
  case MATRIX_DENSE:
    rows = 5000;
    break;
  case MATRIX_LPRECT:
    rows       = 1000000;
    dense_rows = 20;
    fraction   = 0.01;
    break;
  case MATRIX_DIAGONALS:
    rows = 4000000;
    break;
  case MATRIX_RMAT:
  case MATRIX_FILE:
    break;
  }
  PetscCall(PetscOptionsBoundedInt("-grid", "Grid points per direction (lap2d5, lap3d7, lap3d27)", NULL, grid, &grid, NULL, 1));
  PetscCall(PetscOptionsBoundedInt("-grid_z", "Grid points in z (lap3d7, lap3d27; default -grid): the same rows per process on P processes with P times grid_z", NULL, grid_z, &grid_z, NULL, 0));
  PetscCall(PetscOptionsBoundedInt("-rows", "Number of rows (banded, longrows, circuit, fem, lp1, permutation, dense, lprect, diagonals)", NULL, rows, &rows, NULL, 1));
  PetscCall(PetscOptionsBoundedInt("-cols", "Number of columns (dense: default rows; lprect: default 4 rows; lp1: rows)", NULL, cols, &cols, NULL, 0));
  PetscCall(PetscOptionsBoundedInt("-width", "Entries per row (banded)", NULL, width, &width, NULL, 1));
  PetscCall(PetscOptionsBoundedInt("-diagonals", "Diagonals (diagonals)", NULL, diagonals, &diagonals, NULL, 1));
  PetscCall(PetscOptionsBoundedInt("-stride", "Distance between neighbouring diagonals (diagonals)", NULL, stride, &stride, NULL, 1));
  PetscCall(PetscOptionsRangeReal("-occupancy", "Probability of an entry in a slot off the main diagonal (diagonals)", NULL, occupancy, &occupancy, NULL, 0.0, 1.0));
  PetscCall(PetscOptionsBoundedInt("-short_len", "Entries per ordinary row (longrows)", NULL, short_len, &short_len, NULL, 1));
  PetscCall(PetscOptionsBoundedInt("-long_rows", "Number of long rows (longrows)", NULL, long_rows, &long_rows, NULL, 0));
  PetscCall(PetscOptionsBoundedInt("-long_len", "Entries per long row (longrows)", NULL, long_len, &long_len, NULL, 1));
  PetscCall(PetscOptionsBoundedInt("-circuit_long_rows", "Rows of the supply nets (circuit)", NULL, circuit_long_rows, &circuit_long_rows, NULL, 0));
  PetscCall(PetscOptionsBoundedInt("-circuit_long_len", "Typical entries of a supply-net row: L/2 to 2L (circuit)", NULL, circuit_long_len, &circuit_long_len, NULL, 2));
  PetscCall(PetscOptionsBoundedInt("-neighbours", "Nearest neighbours per point (fem)", NULL, neighbours, &neighbours, NULL, 1));
  PetscCall(PetscOptionsBoundedInt("-dense_rows", "Rows holding a fraction of the columns (lp1, lprect)", NULL, dense_rows, &dense_rows, NULL, 0));
  PetscCall(PetscOptionsBoundedReal("-fraction", "Fraction of the columns in those rows (lp1, lprect)", NULL, fraction, &fraction, NULL, 0.0));
  PetscCall(PetscOptionsBoundedInt("-scale", "log2 of the number of vertices (rmat)", NULL, scale, &scale, NULL, 1));
  PetscCall(PetscOptionsBoundedInt("-edge_factor", "Edges per vertex before duplicates are dropped (rmat)", NULL, edge_factor, &edge_factor, NULL, 1));
  PetscCall(PetscOptionsString("-f", "PETSc binary or Matrix Market file (with -matrix file)", NULL, file, file, sizeof(file), &flg_file));
  PetscCall(PetscOptionsBoundedInt("-seed", "Seed of the random values", NULL, seed, &seed, NULL, 0));
  PetscOptionsEnd();
  {
    PetscBool help;

    PetscCall(PetscOptionsHasHelp(NULL, &help));
    if (help) { /* -help printed the options above: nothing to generate */
      *A = NULL;
      if (namelen) name[0] = 0;
      if (paramslen) params[0] = 0;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCheck(kind != MATRIX_FILE || flg_file, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "-matrix file needs -f <PETSc binary or Matrix Market file>");
  PetscCheck(kind == MATRIX_FILE || !flg_file, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "-f needs -matrix file");
  PetscCheck(kind != MATRIX_LAP2D5 || !grid_z, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "-grid_z is for the 3D Laplacians (lap3d7, lap3d27), not lap2d5");

  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, 0.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)seed));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(PetscStrncpy(name, MatGenKinds[kind], namelen));
  switch ((MatrixKind)kind) {
  case MATRIX_LAP2D5:
  case MATRIX_LAP3D7:
  case MATRIX_LAP3D27:
    if (!grid_z) grid_z = grid;
    PetscCall(GenerateLaplacian(grid, grid_z, kind == MATRIX_LAP2D5 ? 2 : 3, (PetscBool)(kind == MATRIX_LAP3D27), A));
    if (grid_z == grid) PetscCall(PetscSNPrintf(params, paramslen, "grid=%" PetscInt_FMT, grid));
    else PetscCall(PetscSNPrintf(params, paramslen, "grid=%" PetscInt_FMT " grid_z=%" PetscInt_FMT, grid, grid_z));
    break;
  case MATRIX_BANDED:
    PetscCall(GenerateBanded(rows, width, rnd, A));
    PetscCall(PetscSNPrintf(params, paramslen, "rows=%" PetscInt_FMT " width=%" PetscInt_FMT " seed=%" PetscInt_FMT, rows, width, seed));
    break;
  case MATRIX_DIAGONALS:
    PetscCall(GenerateDiagonals(rows, diagonals, stride, occupancy, rnd, A));
    PetscCall(PetscSNPrintf(params, paramslen, "rows=%" PetscInt_FMT " diagonals=%" PetscInt_FMT " stride=%" PetscInt_FMT " occupancy=%g seed=%" PetscInt_FMT, rows, diagonals, stride, (double)occupancy, seed));
    break;
  case MATRIX_LONGROWS:
    PetscCall(GenerateLongRows(rows, short_len, long_rows, long_len, rnd, A));
    PetscCall(PetscSNPrintf(params, paramslen, "rows=%" PetscInt_FMT " short_len=%" PetscInt_FMT " long_rows=%" PetscInt_FMT " long_len=%" PetscInt_FMT " seed=%" PetscInt_FMT, rows, short_len, long_rows, long_len, seed));
    break;
  case MATRIX_RMAT:
    PetscCall(GenerateRMAT(scale, edge_factor, rnd, A));
    PetscCall(PetscSNPrintf(params, paramslen, "scale=%" PetscInt_FMT " edge_factor=%" PetscInt_FMT " seed=%" PetscInt_FMT, scale, edge_factor, seed));
    break;
  case MATRIX_CIRCUIT:
    PetscCall(GenerateCircuit(rows, circuit_long_rows, circuit_long_len, rnd, A));
    PetscCall(PetscSNPrintf(params, paramslen, "rows=%" PetscInt_FMT " long_rows=%" PetscInt_FMT " long_len=%" PetscInt_FMT " seed=%" PetscInt_FMT, rows, circuit_long_rows, circuit_long_len, seed));
    break;
  case MATRIX_FEM:
    PetscCall(GenerateFEM(rows, neighbours, rnd, A));
    PetscCall(PetscSNPrintf(params, paramslen, "rows=%" PetscInt_FMT " neighbours=%" PetscInt_FMT " seed=%" PetscInt_FMT, rows, neighbours, seed));
    break;
  case MATRIX_LP1:
  case MATRIX_LPRECT:
    if (!cols) cols = kind == MATRIX_LP1 ? rows : 4 * rows;
    PetscCall(GenerateLP(rows, cols, dense_rows, fraction, (PetscBool)(kind == MATRIX_LP1), rnd, A));
    PetscCall(PetscSNPrintf(params, paramslen, "rows=%" PetscInt_FMT " cols=%" PetscInt_FMT " dense_rows=%" PetscInt_FMT " fraction=%g seed=%" PetscInt_FMT, rows, cols, dense_rows, (double)fraction, seed));
    break;
  case MATRIX_PERMUTATION:
    PetscCall(GeneratePermutation(rows, rnd, A));
    PetscCall(PetscSNPrintf(params, paramslen, "rows=%" PetscInt_FMT " seed=%" PetscInt_FMT, rows, seed));
    break;
  case MATRIX_DENSE:
    if (!cols) cols = rows;
    PetscCall(GenerateDense(rows, cols, rnd, A));
    PetscCall(PetscSNPrintf(params, paramslen, "rows=%" PetscInt_FMT " cols=%" PetscInt_FMT " seed=%" PetscInt_FMT, rows, cols, seed));
    break;
  case MATRIX_FILE: {
    char *base;

    PetscCall(MatGenLoad(file, A));
    PetscCall(PetscStrrchr(file, '/', &base));
    PetscCall(PetscStrncpy(name, base, namelen));
    PetscCall(PetscSNPrintf(params, paramslen, "file=%s", file));
  } break;
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

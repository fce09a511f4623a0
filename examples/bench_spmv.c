static char help[] = "SpMV benchmark: times MatMult() of one matrix stored in a list of GPU matrix types.\n\
Prints one JSON record per type on stdout (lines start with '{').\n\
  -matrix <lap2d5,lap3d7,lap3d27,banded,longrows,rmat,circuit,file> : matrix generator (or -f <file> with -matrix file)\n\
  -grid <N>          : grid points per direction of the Laplacians\n\
  -rows <M> -width <W> : banded matrix with W consecutive columns per row\n\
  -rows <M> -short_len <S> -long_rows <L> -long_len <K> : S entries per row, L rows with K entries\n\
  -rows <M> -circuit_long_rows <K> -circuit_long_len <L> : circuit-like, 2 to 10 entries per row, K rows of L/2 to 2L\n\
  -types <list>      : comma separated entries type[/option=value[/...]], e.g. cmrs/mat_cmrs_height=8\n\
  -json_out <file>   : also append the JSON records to this file\n\n";

/*
   bench_spmv - SpMV benchmark of the GPU matrix types of petsc-gpuformats against MATSEQAIJCUSPARSE

   Synopsis:
     bench_spmv [-matrix lap2d5|lap3d7|lap3d27|banded|longrows|rmat|circuit|file] [-grid N] [-rows M] [-width W]
                [-short_len S] [-long_rows L] [-long_len K] [-circuit_long_rows K] [-circuit_long_len L]
                [-scale s] [-edge_factor e] [-f file] [-seed s]
                [-types aijcusparse,cmrs,cmrs/mat_cmrs_height=8,sellcuda] [-tol t]
                [-warmup n] [-batches b] [-reps r] [-bw_mib mib] [-bw_reps n] [-json_out file]

   Description:
     A matrix is generated (or loaded) on the host as MATSEQAIJ with exact preallocation and converted
     to MATSEQAIJCUSPARSE, which is the reference. Each entry of -types is a matrix type name optionally
     followed by '/'-separated option assignments. Entry number k (counting from 0) gets the options
     prefix "b<k>_" and each assignment opt=value is inserted in the options database as
     -b<k>_opt value. The entry's matrix is a MatDuplicate() of the reference converted in place to
     the type (except "sellcuda", which PETSc converts from the host MATSEQAIJ matrix).

     For every type the program checks y = B x against the reference product, times the first product
     (which includes any lazy build of the format), then times -batches batches of -reps products
     each with CUDA events on PETSc's current stream, after -warmup untimed products. The median time per
     product is compared with a traffic model of CSR SpMV,
       model_bytes = 12 nnz + 4 (m + 1) + 8 n + 8 m
     (8-byte values and 4-byte column indices, 4-byte row offsets, x read once, y written once)
     and with the device-to-device copy bandwidth measured once at start-up.

     The exit code is nonzero when any type's relative error exceeds -tol or is not a number; all records
     are printed first.

   Output keys:
     device, copy_bw_GBs, l2_bytes, matrix, matrix_params, rows, cols, nnz, row_mean, row_std, row_max,
     type, entry, median_us, min_us, max_us, wall_median_us, reps, batches, gflops, frac_copy_bw,
     model_bytes, first_ms, build_ms, build_products, device_bytes, csr_bytes, cmrs_height, rel_err,
     correct

   Level: intermediate

.seealso: `MATCMRS`, `MatGPUFormatGetDeviceMemory()`, `MatGPUFormatGetBuildTime()`, `MATSEQAIJCUSPARSE`
*/

#include <math.h>
#include <petscmat.h>
#include <petscbt.h>
#include <petsctime.h>
#include <petscdevice_cuda.h>
#include <petscgpuformats.h>

/* Capacity of one JSON record; paths are at most PETSC_MAX_PATH_LEN, every other field is short */
#define JSON_LINE_MAX (4 * PETSC_MAX_PATH_LEN)
/* Capacity of the -types option string */
#define TYPES_MAX_LEN PETSC_MAX_PATH_LEN
/* Bytes in one MiB */
#define MIB ((size_t)1024 * 1024)

typedef enum {
  MATRIX_LAP2D5,
  MATRIX_LAP3D7,
  MATRIX_LAP3D27,
  MATRIX_BANDED,
  MATRIX_LONGROWS,
  MATRIX_RMAT,
  MATRIX_CIRCUIT,
  MATRIX_FILE
} MatrixKind;
static const char *const MatrixKinds[] = {"lap2d5", "lap3d7", "lap3d27", "banded", "longrows", "rmat", "circuit", "file"};
#define NUM_MATRIX_KINDS ((PetscInt)(sizeof(MatrixKinds) / sizeof(MatrixKinds[0])))

/* ------------------------------------------------------------------------------------------------ */
/* JSON record builder                                                                              */
/* ------------------------------------------------------------------------------------------------ */

typedef struct {
  char      buf[JSON_LINE_MAX];
  PetscBool empty; /* no key written yet */
} JSONLine;

static PetscErrorCode JSONAppendRaw(JSONLine *j, const char piece[])
{
  size_t have, add;

  PetscFunctionBeginUser;
  PetscCall(PetscStrlen(j->buf, &have));
  PetscCall(PetscStrlen(piece, &add));
  PetscCheck(have + add < sizeof(j->buf), PETSC_COMM_SELF, PETSC_ERR_SUP, "JSON record longer than %d characters", (int)sizeof(j->buf));
  PetscCall(PetscStrlcat(j->buf, piece, sizeof(j->buf)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode JSONBegin(JSONLine *j)
{
  PetscFunctionBeginUser;
  j->buf[0] = 0;
  j->empty  = PETSC_TRUE;
  PetscCall(JSONAppendRaw(j, "{"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode JSONKey(JSONLine *j, const char key[])
{
  PetscFunctionBeginUser;
  if (!j->empty) PetscCall(JSONAppendRaw(j, ", "));
  j->empty = PETSC_FALSE;
  PetscCall(JSONAppendRaw(j, "\""));
  PetscCall(JSONAppendRaw(j, key));
  PetscCall(JSONAppendRaw(j, "\": "));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* String value with JSON escaping; a NULL value is written as null */
static PetscErrorCode JSONAddString(JSONLine *j, const char key[], const char val[])
{
  char   esc[2 * PETSC_MAX_PATH_LEN];
  size_t len, o = 0;

  PetscFunctionBeginUser;
  PetscCall(JSONKey(j, key));
  if (!val) {
    PetscCall(JSONAppendRaw(j, "null"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscStrlen(val, &len));
  esc[o++] = '"';
  for (size_t i = 0; i < len; i++) {
    const unsigned char c = (unsigned char)val[i];
    /* worst case: a control character becomes \u00XX (6 characters), plus closing quote and 0 */
    PetscCheck(o + 8 < sizeof(esc), PETSC_COMM_SELF, PETSC_ERR_SUP, "JSON string value for key %s is too long", key);
    if (c == '"' || c == '\\') {
      esc[o++] = '\\';
      esc[o++] = (char)c;
    } else if (c < 0x20) { /* control characters must be escaped in JSON */
      PetscCall(PetscSNPrintf(esc + o, sizeof(esc) - o, "\\u%04x", (unsigned)c));
      o += 6;
    } else esc[o++] = (char)c;
  }
  esc[o++] = '"';
  esc[o]   = 0;
  PetscCall(JSONAppendRaw(j, esc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Real value; infinities and NaN (not representable in JSON) are written as null */
static PetscErrorCode JSONAddReal(JSONLine *j, const char key[], PetscReal val)
{
  char tmp[64];

  PetscFunctionBeginUser;
  PetscCall(JSONKey(j, key));
  if (PetscIsInfOrNanReal(val)) PetscCall(PetscStrncpy(tmp, "null", sizeof(tmp)));
  else PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%.9g", (double)val));
  PetscCall(JSONAppendRaw(j, tmp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode JSONAddInt(JSONLine *j, const char key[], PetscInt64 val)
{
  char tmp[64];

  PetscFunctionBeginUser;
  PetscCall(JSONKey(j, key));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%" PetscInt64_FMT, val));
  PetscCall(JSONAppendRaw(j, tmp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode JSONAddBool(JSONLine *j, const char key[], PetscBool val)
{
  PetscFunctionBeginUser;
  PetscCall(JSONKey(j, key));
  PetscCall(JSONAppendRaw(j, val ? "true" : "false"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode JSONAddNull(JSONLine *j, const char key[])
{
  PetscFunctionBeginUser;
  PetscCall(JSONKey(j, key));
  PetscCall(JSONAppendRaw(j, "null"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode JSONEnd(JSONLine *j)
{
  PetscFunctionBeginUser;
  PetscCall(JSONAppendRaw(j, "}\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* Small helpers                                                                                    */
/* ------------------------------------------------------------------------------------------------ */

/* Median of n values (n > 0); the values are sorted in place */
static PetscErrorCode MedianReal(PetscInt n, PetscReal v[], PetscReal *median)
{
  PetscFunctionBeginUser;
  PetscCheck(n > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Median of an empty set");
  PetscCall(PetscSortReal(n, v));
  *median = (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
  Laplacian on an N^dim grid with Dirichlet boundary (neighbours outside the grid are dropped).
  box = PETSC_FALSE: star stencil (5-point in 2D, 7-point in 3D); box = PETSC_TRUE: full box
  stencil (9-point in 2D, 27-point in 3D). The diagonal is the number of neighbours of an interior
  point, every neighbour is -1. Rows are numbered lexicographically with x fastest.
*/
static PetscErrorCode GenerateLaplacian(PetscInt N, PetscInt dim, PetscBool box, Mat *A)
{
  const PetscInt nz = (dim == 3) ? N : 1;
  PetscInt       m, nsten = 0, off[27][3], cols[27], *nnzrow; /* 27 = 3^3: largest stencil */
  PetscScalar    vals[27], diag;

  PetscFunctionBeginUser;
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Dimension must be 2 or 3, not %" PetscInt_FMT, dim);
  PetscCheck(N >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-grid must be positive, not %" PetscInt_FMT, N);
  PetscCall(CheckFitsInt((PetscInt64)N * N * nz, "number of rows (grid^dim)"));
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

static PetscErrorCode LoadMatrix(const char file[], Mat *A)
{
  PetscViewer viewer;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_SELF, file, FILE_MODE_READ, &viewer));
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetType(*A, MATSEQAIJ));
  PetscCall(MatLoad(*A, viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Row length statistics of a host MATSEQAIJ matrix */
static PetscErrorCode RowStatistics(Mat A, PetscInt64 *nnz, PetscReal *mean, PetscReal *std, PetscInt *maxlen)
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

/* ------------------------------------------------------------------------------------------------ */
/* Device information                                                                               */
/* ------------------------------------------------------------------------------------------------ */

/*
  Device-to-device copy bandwidth: median over reps timed cudaMemcpy() of mib MiB, counting each byte
  once read and once written. Returned in GB/s (1e9 bytes per second).
*/
static PetscErrorCode MeasureCopyBandwidth(PetscInt mib, PetscInt reps, PetscReal *gbs)
{
  const size_t bytes = (size_t)mib * MIB;
  void        *src, *dst;
  cudaEvent_t  start, stop;
  PetscReal   *secs, median;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(reps, &secs));
  PetscCallCUDA(cudaMalloc(&src, bytes));
  PetscCallCUDA(cudaMalloc(&dst, bytes));
  PetscCallCUDA(cudaMemset(src, 0, bytes));
  PetscCallCUDA(cudaMemset(dst, 0, bytes));
  PetscCallCUDA(cudaEventCreate(&start));
  PetscCallCUDA(cudaEventCreate(&stop));
  /* warm-up copy */
  PetscCallCUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
  PetscCallCUDA(cudaDeviceSynchronize());
  for (PetscInt r = 0; r < reps; r++) {
    float ms;

    PetscCallCUDA(cudaEventRecord(start, 0));
    PetscCallCUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
    PetscCallCUDA(cudaEventRecord(stop, 0));
    PetscCallCUDA(cudaEventSynchronize(stop));
    PetscCallCUDA(cudaEventElapsedTime(&ms, start, stop));
    secs[r] = 1e-3 * (PetscReal)ms; /* milliseconds to seconds */
  }
  PetscCall(MedianReal(reps, secs, &median));
  *gbs = 2.0 * (PetscReal)bytes / median / 1e9; /* read + write, in units of 1e9 bytes/s */
  PetscCallCUDA(cudaEventDestroy(start));
  PetscCallCUDA(cudaEventDestroy(stop));
  PetscCallCUDA(cudaFree(src));
  PetscCallCUDA(cudaFree(dst));
  PetscCall(PetscFree(secs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* Benchmark of one type                                                                            */
/* ------------------------------------------------------------------------------------------------ */

/* ||y - yref||_2 / ||yref||_2 (absolute error if yref = 0); NaN anywhere in y gives NaN */
static PetscErrorCode RelativeError(Vec y, Vec yref, PetscReal nrmref, Vec work, PetscReal *err)
{
  PetscReal   nrm;
  PetscScalar sum;

  PetscFunctionBeginUser;
  PetscCall(VecWAXPY(work, -1.0, yref, y));
  PetscCall(VecNorm(work, NORM_2, &nrm));
  *err = (nrmref > 0.0) ? nrm / nrmref : nrm;
  /* a plain sum propagates NaN whatever the norm implementation does with it */
  PetscCall(VecSum(work, &sum));
  if (PetscIsInfOrNanScalar(sum)) *err = NAN;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Splits a -types entry "type/opt=value/..." at the '/'s, inserts every assignment in the options
  database as -<prefix>opt value, and returns the type name (to be freed with PetscFree()).
*/
static PetscErrorCode ParseEntry(const char entry[], const char prefix[], char **tname)
{
  int    nparts;
  char **parts;

  PetscFunctionBeginUser;
  PetscCall(PetscStrToArray(entry, '/', &nparts, &parts));
  PetscCheck(nparts >= 1 && parts[0][0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Empty type name in -types entry \"%s\"", entry);
  PetscCall(PetscStrallocpy(parts[0], tname));
  for (int p = 1; p < nparts; p++) {
    char  name[PETSC_MAX_PATH_LEN], *eq, *opt = parts[p];
    char *value = NULL;

    if (opt[0] == '-') opt++; /* accept both "opt=value" and "-opt=value" */
    PetscCheck(opt[0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Empty option in -types entry \"%s\"", entry);
    PetscCall(PetscStrchr(opt, '=', &eq));
    if (eq) {
      *eq   = 0;
      value = eq + 1;
    }
    PetscCall(PetscSNPrintf(name, sizeof(name), "-%s%s", prefix, opt));
    PetscCall(PetscOptionsSetValue(NULL, name, value));
  }
  PetscCall(PetscStrToArrayDestroy(nparts, parts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  /* device */
  char      device[256];
  PetscReal copy_bw; /* GB/s */
  PetscInt  l2_bytes;
  /* matrix */
  char       matrix[PETSC_MAX_PATH_LEN];
  char       params[PETSC_MAX_PATH_LEN];
  PetscInt   m, n, row_max;
  PetscInt64 nnz;
  PetscReal  row_mean, row_std;
  /* benchmark parameters */
  PetscInt  warmup, batches, reps;
  PetscReal tol;
  FILE     *json; /* -json_out file or NULL */
} BenchCtx;

static PetscErrorCode BenchEntry(BenchCtx *ctx, PetscInt k, const char entry[], Mat Ahost, Mat Aref, Vec x, Vec y, Vec yref, PetscReal nrmref, Vec work, PetscBool *correct)
{
  char           prefix[32], *tname;
  const char    *actual;
  Mat            B;
  PetscBool      isaij, issell, iscmrs, ours;
  PetscLogDouble t0, t1, build_s = 0.0;
  PetscReal      first_s, err1, err2, err, *secs, *wall, median_s, min_s, max_s, wall_median_s;
  PetscReal      model_bytes, fmt_bytes = -1.0, csr_bytes = -1.0;
  PetscInt       height = -1;
  cudaStream_t   stream;
  cudaEvent_t    start, stop;
  JSONLine      *line;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "b%" PetscInt_FMT "_", k));
  PetscCall(ParseEntry(entry, prefix, &tname));
  PetscCall(PetscStrcmpAny(tname, &isaij, "aijcusparse", MATSEQAIJCUSPARSE, ""));
  PetscCall(PetscStrcmpAny(tname, &issell, "sellcuda", MATSEQSELLCUDA, ""));

  /* Build the matrix of this entry */
  if (issell) {
    /* PETSc's SELL converts from the host AIJ format */
    PetscCall(MatConvert(Ahost, MATSEQSELLCUDA, MAT_INITIAL_MATRIX, &B));
    PetscCall(MatSetOptionsPrefix(B, prefix));
  } else {
    PetscCall(MatDuplicate(Aref, MAT_COPY_VALUES, &B));
    PetscCall(MatSetOptionsPrefix(B, prefix));
    if (!isaij) {
      PetscBool isroot;

      /* the benchmark is sequential, so the root name resolves to the sequential type */
      PetscCall(PetscStrcmp(tname, MATCMRS, &isroot));
      PetscCall(MatConvert(B, isroot ? MATSEQCMRS : tname, MAT_INPLACE_MATRIX, &B));
    }
  }
  PetscCall(PetscObjectGetType((PetscObject)B, &actual));
  PetscCall(PetscStrcmp(actual, MATSEQAIJCUSPARSE, &isaij));
  PetscCall(PetscStrcmp(actual, MATSEQSELLCUDA, &issell));
  PetscCall(PetscStrcmp(actual, MATSEQCMRS, &iscmrs));
  /* types of this plugin derive from MATSEQAIJCUSPARSE and extend its name */
  PetscCall(PetscStrbeginswith(actual, MATSEQAIJCUSPARSE, &ours));
  ours = (ours && !isaij) ? PETSC_TRUE : PETSC_FALSE;

  /* First product, poisoned output, includes any lazy construction of the format */
  PetscCall(VecSet(y, NAN));
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(PetscTime(&t0));
  PetscCall(MatMult(B, x, y));
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(PetscTime(&t1));
  first_s = (PetscReal)(t1 - t0);
  PetscCall(RelativeError(y, yref, nrmref, work, &err1));
  if (ours) PetscCall(MatGPUFormatGetBuildTime(B, &build_s));
  if (iscmrs) PetscCall(MatCMRSGetHeight(B, &height));

  /* Timed products */
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaEventCreate(&start));
  PetscCallCUDA(cudaEventCreate(&stop));
  for (PetscInt r = 0; r < ctx->warmup; r++) PetscCall(MatMult(B, x, y));
  PetscCall(PetscMalloc2(ctx->batches, &secs, ctx->batches, &wall));
  for (PetscInt b = 0; b < ctx->batches; b++) {
    float ms;

    PetscCallCUDA(cudaDeviceSynchronize());
    PetscCall(PetscTime(&t0));
    PetscCallCUDA(cudaEventRecord(start, stream));
    for (PetscInt r = 0; r < ctx->reps; r++) PetscCall(MatMult(B, x, y));
    PetscCallCUDA(cudaEventRecord(stop, stream));
    PetscCallCUDA(cudaDeviceSynchronize());
    PetscCall(PetscTime(&t1));
    PetscCallCUDA(cudaEventElapsedTime(&ms, start, stop));
    secs[b] = 1e-3 * (PetscReal)ms / (PetscReal)ctx->reps; /* milliseconds to seconds per product */
    wall[b] = (PetscReal)(t1 - t0) / (PetscReal)ctx->reps;
  }
  PetscCall(MedianReal(ctx->batches, secs, &median_s)); /* sorts secs */
  min_s = secs[0];
  max_s = secs[ctx->batches - 1];
  PetscCall(MedianReal(ctx->batches, wall, &wall_median_s));
  PetscCall(PetscFree2(secs, wall));
  PetscCallCUDA(cudaEventDestroy(start));
  PetscCallCUDA(cudaEventDestroy(stop));

  /* Check again after the repeated products */
  PetscCall(VecSet(y, NAN));
  PetscCall(MatMult(B, x, y));
  PetscCall(RelativeError(y, yref, nrmref, work, &err2));
  if (PetscIsNanReal(err1) || PetscIsNanReal(err2)) err = NAN;
  else err = PetscMax(err1, err2);
  *correct = (!PetscIsNanReal(err) && err <= ctx->tol) ? PETSC_TRUE : PETSC_FALSE;

  /* Build time: reported by our types; otherwise first product minus a steady-state product */
  if (!ours) build_s = first_s - median_s;

  /* Device memory */
  if (ours) PetscCall(MatGPUFormatGetDeviceMemory(B, &fmt_bytes, &csr_bytes));
  else if (isaij) {
    /* CSR: 8-byte values + 4-byte column indices per nonzero, 4-byte row offsets */
    csr_bytes = 12.0 * (PetscReal)ctx->nnz + 4.0 * (PetscReal)(ctx->m + 1);
    fmt_bytes = csr_bytes;
  }

  /* Traffic model of CSR SpMV (see the manual comment at the top) */
  model_bytes = 12.0 * (PetscReal)ctx->nnz + 4.0 * (PetscReal)(ctx->m + 1) + 8.0 * (PetscReal)ctx->n + 8.0 * (PetscReal)ctx->m;

  PetscCall(PetscNew(&line));
  PetscCall(JSONBegin(line));
  PetscCall(JSONAddString(line, "device", ctx->device));
  PetscCall(JSONAddReal(line, "copy_bw_GBs", ctx->copy_bw));
  PetscCall(JSONAddInt(line, "l2_bytes", ctx->l2_bytes));
  PetscCall(JSONAddString(line, "matrix", ctx->matrix));
  PetscCall(JSONAddString(line, "matrix_params", ctx->params));
  PetscCall(JSONAddInt(line, "rows", ctx->m));
  PetscCall(JSONAddInt(line, "cols", ctx->n));
  PetscCall(JSONAddInt(line, "nnz", ctx->nnz));
  PetscCall(JSONAddReal(line, "row_mean", ctx->row_mean));
  PetscCall(JSONAddReal(line, "row_std", ctx->row_std));
  PetscCall(JSONAddInt(line, "row_max", ctx->row_max));
  PetscCall(JSONAddString(line, "type", actual));
  PetscCall(JSONAddString(line, "entry", entry));
  PetscCall(JSONAddReal(line, "median_us", 1e6 * median_s)); /* seconds to microseconds */
  PetscCall(JSONAddReal(line, "min_us", 1e6 * min_s));
  PetscCall(JSONAddReal(line, "max_us", 1e6 * max_s));
  PetscCall(JSONAddReal(line, "wall_median_us", 1e6 * wall_median_s));
  PetscCall(JSONAddInt(line, "reps", ctx->reps));
  PetscCall(JSONAddInt(line, "batches", ctx->batches));
  PetscCall(JSONAddReal(line, "gflops", 2.0 * (PetscReal)ctx->nnz / median_s / 1e9)); /* 1e9 flop per GFLOP */
  PetscCall(JSONAddReal(line, "frac_copy_bw", model_bytes / median_s / (ctx->copy_bw * 1e9)));
  PetscCall(JSONAddReal(line, "model_bytes", model_bytes));
  PetscCall(JSONAddReal(line, "first_ms", 1e3 * first_s)); /* seconds to milliseconds */
  PetscCall(JSONAddReal(line, "build_ms", 1e3 * (PetscReal)build_s));
  PetscCall(JSONAddReal(line, "build_products", (PetscReal)build_s / median_s));
  if (fmt_bytes >= 0.0) {
    PetscCall(JSONAddReal(line, "device_bytes", fmt_bytes));
    PetscCall(JSONAddReal(line, "csr_bytes", csr_bytes));
  } else {
    PetscCall(JSONAddNull(line, "device_bytes"));
    PetscCall(JSONAddNull(line, "csr_bytes"));
  }
  if (iscmrs) PetscCall(JSONAddInt(line, "cmrs_height", height));
  else PetscCall(JSONAddNull(line, "cmrs_height"));
  PetscCall(JSONAddReal(line, "rel_err", err));
  PetscCall(JSONAddBool(line, "correct", *correct));
  PetscCall(JSONEnd(line));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s", line->buf));
  if (ctx->json) {
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, ctx->json, "%s", line->buf));
    PetscCall(PetscFFlush(ctx->json));
  }
  if (!*correct) PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "bench_spmv: entry \"%s\" (type %s) relative error %g exceeds -tol %g\n", entry, actual, (double)err, (double)ctx->tol));

  PetscCall(PetscFree(line));
  PetscCall(PetscFree(tname));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
  BenchCtx              ctx;
  PetscInt              kind = MATRIX_LAP2D5, grid = 2048, rows = 1000000, width = 50, short_len = 4, long_rows = 4, long_len = 100000, seed = 0, scale = 20, edge_factor = 16, circuit_long_rows = 16, circuit_long_len = 5000, bw_mib = 1024, bw_reps = 20;
  char                  file[PETSC_MAX_PATH_LEN] = "", types[TYPES_MAX_LEN] = "aijcusparse,cmrs", json_out[PETSC_MAX_PATH_LEN] = "";
  PetscBool             flg_file, flg_json;
  PetscRandom           rnd;
  Mat                   Ahost, Aref;
  Vec                   x, y, yref, work;
  PetscReal             nrmref;
  int                   ntypes, dev;
  char                **entries;
  struct cudaDeviceProp prop;
  PetscInt              nfailed = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUFormatsInitializePackage());
  PetscCall(PetscMemzero(&ctx, sizeof(ctx)));
  ctx.warmup  = 10;
  ctx.batches = 7;
  ctx.reps    = 100;
  ctx.tol     = 1e-12;

  PetscOptionsBegin(PETSC_COMM_SELF, NULL, "SpMV benchmark options", NULL);
  PetscCall(PetscOptionsEList("-matrix", "Matrix generator, or file for -f", NULL, MatrixKinds, NUM_MATRIX_KINDS, MatrixKinds[kind], &kind, NULL));
  switch ((MatrixKind)kind) { /* per-matrix defaults: about 1M to 4M rows */
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
    rows = 1000000;
    break;
  case MATRIX_CIRCUIT:
    rows = 4000000;
    break;
  case MATRIX_RMAT:
  case MATRIX_FILE:
    break;
  }
  PetscCall(PetscOptionsBoundedInt("-grid", "Grid points per direction (lap2d5, lap3d7, lap3d27)", NULL, grid, &grid, NULL, 1));
  PetscCall(PetscOptionsBoundedInt("-rows", "Number of rows (banded, longrows, circuit)", NULL, rows, &rows, NULL, 1));
  PetscCall(PetscOptionsBoundedInt("-width", "Entries per row (banded)", NULL, width, &width, NULL, 1));
  PetscCall(PetscOptionsBoundedInt("-short_len", "Entries per ordinary row (longrows)", NULL, short_len, &short_len, NULL, 1));
  PetscCall(PetscOptionsBoundedInt("-long_rows", "Number of long rows (longrows)", NULL, long_rows, &long_rows, NULL, 0));
  PetscCall(PetscOptionsBoundedInt("-long_len", "Entries per long row (longrows)", NULL, long_len, &long_len, NULL, 1));
  PetscCall(PetscOptionsBoundedInt("-circuit_long_rows", "Rows of the supply nets (circuit)", NULL, circuit_long_rows, &circuit_long_rows, NULL, 0));
  PetscCall(PetscOptionsBoundedInt("-circuit_long_len", "Typical entries of a supply-net row: L/2 to 2L (circuit)", NULL, circuit_long_len, &circuit_long_len, NULL, 2));
  PetscCall(PetscOptionsBoundedInt("-scale", "log2 of the number of vertices (rmat)", NULL, scale, &scale, NULL, 1));
  PetscCall(PetscOptionsBoundedInt("-edge_factor", "Edges per vertex before duplicates are dropped (rmat)", NULL, edge_factor, &edge_factor, NULL, 1));
  PetscCall(PetscOptionsString("-f", "PETSc binary matrix file (with -matrix file)", NULL, file, file, sizeof(file), &flg_file));
  PetscCall(PetscOptionsBoundedInt("-seed", "Seed of the random values", NULL, seed, &seed, NULL, 0));
  PetscCall(PetscOptionsString("-types", "Comma separated list of type[/option=value...] entries", NULL, types, types, sizeof(types), NULL));
  PetscCall(PetscOptionsBoundedReal("-tol", "Largest accepted relative error against MATSEQAIJCUSPARSE", NULL, ctx.tol, &ctx.tol, NULL, 0.0));
  PetscCall(PetscOptionsBoundedInt("-warmup", "Untimed products before timing", NULL, ctx.warmup, &ctx.warmup, NULL, 0));
  PetscCall(PetscOptionsBoundedInt("-batches", "Number of timed batches", NULL, ctx.batches, &ctx.batches, NULL, 1));
  PetscCall(PetscOptionsBoundedInt("-reps", "Products per timed batch", NULL, ctx.reps, &ctx.reps, NULL, 1));
  PetscCall(PetscOptionsBoundedInt("-bw_mib", "MiB per buffer of the copy bandwidth measurement", NULL, bw_mib, &bw_mib, NULL, 1));
  PetscCall(PetscOptionsBoundedInt("-bw_reps", "Timed copies of the copy bandwidth measurement", NULL, bw_reps, &bw_reps, NULL, 1));
  PetscCall(PetscOptionsString("-json_out", "Also append the JSON records to this file", NULL, json_out, json_out, sizeof(json_out), &flg_json));
  PetscOptionsEnd();
  PetscCheck(kind != MATRIX_FILE || flg_file, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "-matrix file needs -f <PETSc binary matrix>");
  PetscCheck(kind == MATRIX_FILE || !flg_file, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "-f needs -matrix file");

  /* Device */
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaGetDeviceProperties(&prop, dev));
  PetscCall(PetscStrncpy(ctx.device, prop.name, sizeof(ctx.device)));
  ctx.l2_bytes = (PetscInt)prop.l2CacheSize;
  PetscCall(MeasureCopyBandwidth(bw_mib, bw_reps, &ctx.copy_bw));

  /* Host matrix */
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, 0.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)seed));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(PetscStrncpy(ctx.matrix, MatrixKinds[kind], sizeof(ctx.matrix)));
  switch ((MatrixKind)kind) {
  case MATRIX_LAP2D5:
    PetscCall(GenerateLaplacian(grid, 2, PETSC_FALSE, &Ahost));
    PetscCall(PetscSNPrintf(ctx.params, sizeof(ctx.params), "grid=%" PetscInt_FMT, grid));
    break;
  case MATRIX_LAP3D7:
    PetscCall(GenerateLaplacian(grid, 3, PETSC_FALSE, &Ahost));
    PetscCall(PetscSNPrintf(ctx.params, sizeof(ctx.params), "grid=%" PetscInt_FMT, grid));
    break;
  case MATRIX_LAP3D27:
    PetscCall(GenerateLaplacian(grid, 3, PETSC_TRUE, &Ahost));
    PetscCall(PetscSNPrintf(ctx.params, sizeof(ctx.params), "grid=%" PetscInt_FMT, grid));
    break;
  case MATRIX_BANDED:
    PetscCall(GenerateBanded(rows, width, rnd, &Ahost));
    PetscCall(PetscSNPrintf(ctx.params, sizeof(ctx.params), "rows=%" PetscInt_FMT " width=%" PetscInt_FMT " seed=%" PetscInt_FMT, rows, width, seed));
    break;
  case MATRIX_LONGROWS:
    PetscCall(GenerateLongRows(rows, short_len, long_rows, long_len, rnd, &Ahost));
    PetscCall(PetscSNPrintf(ctx.params, sizeof(ctx.params), "rows=%" PetscInt_FMT " short_len=%" PetscInt_FMT " long_rows=%" PetscInt_FMT " long_len=%" PetscInt_FMT " seed=%" PetscInt_FMT, rows, short_len, long_rows, long_len, seed));
    break;
  case MATRIX_RMAT:
    PetscCall(GenerateRMAT(scale, edge_factor, rnd, &Ahost));
    PetscCall(PetscSNPrintf(ctx.params, sizeof(ctx.params), "scale=%" PetscInt_FMT " edge_factor=%" PetscInt_FMT " seed=%" PetscInt_FMT, scale, edge_factor, seed));
    break;
  case MATRIX_CIRCUIT:
    PetscCall(GenerateCircuit(rows, circuit_long_rows, circuit_long_len, rnd, &Ahost));
    PetscCall(PetscSNPrintf(ctx.params, sizeof(ctx.params), "rows=%" PetscInt_FMT " long_rows=%" PetscInt_FMT " long_len=%" PetscInt_FMT " seed=%" PetscInt_FMT, rows, circuit_long_rows, circuit_long_len, seed));
    break;
  case MATRIX_FILE: {
    char *base;

    PetscCall(LoadMatrix(file, &Ahost));
    PetscCall(PetscStrrchr(file, '/', &base));
    PetscCall(PetscStrncpy(ctx.matrix, base, sizeof(ctx.matrix)));
    PetscCall(PetscSNPrintf(ctx.params, sizeof(ctx.params), "file=%s", file));
  } break;
  }
  PetscCall(MatGetSize(Ahost, &ctx.m, &ctx.n));
  PetscCall(RowStatistics(Ahost, &ctx.nnz, &ctx.row_mean, &ctx.row_std, &ctx.row_max));

  /* Reference and vectors */
  PetscCall(MatConvert(Ahost, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &Aref));
  PetscCall(MatCreateVecs(Aref, &x, &y));
  PetscCall(VecDuplicate(y, &yref));
  PetscCall(VecDuplicate(y, &work));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)seed));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(MatMult(Aref, x, yref));
  PetscCall(VecNorm(yref, NORM_2, &nrmref));

  if (flg_json) PetscCall(PetscFOpen(PETSC_COMM_SELF, json_out, "a", &ctx.json));

  /* Types */
  PetscCall(PetscStrToArray(types, ',', &ntypes, &entries));
  PetscCheck(ntypes > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "-types is empty");
  for (int k = 0; k < ntypes; k++) {
    PetscBool correct;

    PetscCall(BenchEntry(&ctx, (PetscInt)k, entries[k], Ahost, Aref, x, y, yref, nrmref, work, &correct));
    if (!correct) nfailed++;
  }
  PetscCall(PetscStrToArrayDestroy(ntypes, entries));
  if (nfailed) PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "bench_spmv: %" PetscInt_FMT " of %d entries failed the correctness check\n", nfailed, ntypes));

  if (ctx.json) PetscCall(PetscFClose(PETSC_COMM_SELF, ctx.json));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yref));
  PetscCall(VecDestroy(&work));
  PetscCall(MatDestroy(&Aref));
  PetscCall(MatDestroy(&Ahost));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return nfailed ? 1 : 0;
}

static const char help[] = "gpuauto (MATSEQGPUAUTO) on the GPU (-part choices, the default, or options_errors): the format it chooses for matrices of each kind of its model, with\n"
                           "-mat_gpuauto_formats, -mat_gpuauto_tune and a candidate's own option; a pattern change that changes\n"
                           "the choice; the same choice twice; the products (MatMult, MatMultAdd with y == z, Inf and NaN in x,\n"
                           "after new values) against MATSEQAIJCUSPARSE; an empty, a small and a rectangular matrix; bad options.\n";

#include <math.h>
#include <petscmat.h>
#include <petscgpuformats.h>
#include "../common/testcsr.h"

static PetscRandom rnd;
static PetscInt    nchecks;

/* ya against yr (VecFirstDifference(): NaN where NaN, the same infinities, the rest within a relative 1e-12) */
static PetscErrorCode SameVec(Vec ya, Vec yr, const char *what)
{
  PetscInt bad;

  PetscFunctionBeginUser;
  PetscCall(VecFirstDifference(ya, yr, 1e-12, what, &bad));
  PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: differs from aijcusparse", what);
  nchecks++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatMult, MatMultAdd (y != z and y == z) of A against B (MATSEQAIJCUSPARSE), x random, then x with an Inf and a NaN */
static PetscErrorCode CheckProducts(Mat A, Mat B, const char *what)
{
  Vec      x, ya, yb, za, zb;
  PetscInt n;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, &x, &ya));
  PetscCall(VecDuplicate(ya, &yb));
  PetscCall(VecDuplicate(ya, &za));
  PetscCall(VecDuplicate(ya, &zb));
  PetscCall(VecGetSize(x, &n));
  for (PetscInt pass = 0; pass < 2; pass++) {
    PetscCall(VecSetRandom(x, rnd));
    if (pass && n > 1) {
      PetscCall(VecSetValue(x, 0, (PetscScalar)INFINITY, INSERT_VALUES)); /* IEEE (PETSC_INFINITY is a large finite number) */
      PetscCall(VecSetValue(x, n - 1, (PetscScalar)NAN, INSERT_VALUES));
      PetscCall(VecAssemblyBegin(x));
      PetscCall(VecAssemblyEnd(x));
    }
    PetscCall(MatMult(A, x, ya));
    PetscCall(MatMult(B, x, yb));
    PetscCall(SameVec(ya, yb, what));
    PetscCall(VecSetRandom(za, rnd));
    PetscCall(VecCopy(za, zb));
    PetscCall(MatMultAdd(A, x, za, ya));
    PetscCall(MatMultAdd(B, x, zb, yb));
    PetscCall(SameVec(ya, yb, what));
    PetscCall(MatMultAdd(A, x, za, za)); /* y == z */
    PetscCall(MatMultAdd(B, x, zb, zb));
    PetscCall(SameVec(za, zb, what));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&yb));
  PetscCall(VecDestroy(&za));
  PetscCall(VecDestroy(&zb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The choice of A (after a product) against the expected: a format's name, or one of two with tuning (alt), and the kind */
static PetscErrorCode CheckChoice(Mat A, const char *expect, const char *alt, const char *kind, const char *what)
{
  const char *f, *k;
  PetscBool   same = PETSC_FALSE, samealt = PETSC_FALSE, samekind = PETSC_FALSE, declined;

  PetscFunctionBeginUser;
  PetscCall(MatGPUAutoGetChoice(A, &f, &k));
  if (!expect) {
    PetscCheck(!f && !k, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: chose %s for a matrix without entries", what, f);
    nchecks++;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(f && k, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: nothing chosen after a product", what);
  PetscCall(PetscStrcmp(f, expect, &same));
  if (alt) PetscCall(PetscStrcmp(f, alt, &samealt));
  PetscCall(PetscStrcmp(k, kind, &samekind));
  PetscCheck((same || samealt) && samekind, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: chose %s (%s), expected %s%s%s (%s)", what, f, k, expect, alt ? " or " : "", alt ? alt : "", kind);
  PetscCall(PetscStrcmp(f, "aijcusparse", &same));
  PetscCall(MatGPUFormatGetDeclined(A, &declined));
  PetscCheck(declined == same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: chose %s, MatGPUFormatGetDeclined() %s", what, f, declined ? "true" : "false");
  nchecks++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   H (MATSEQAIJ) as gpuauto with the options opts (pairs of name and value, NULL-terminated; set for the conversion, which
   reads them, then cleared): its products against aijcusparse's, the choice, new values, the view; twice, the same choice
*/
static PetscErrorCode CheckCase(Mat H, const char *const *opts, const char *expect, const char *alt, const char *kind, const char *what)
{
  Mat         A, B, A2;
  const char *f1, *f2;
  PetscBool   same;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "-- %s\n", what));
  for (PetscInt i = 0; opts && opts[i]; i += 2) PetscCall(PetscOptionsSetValue(NULL, opts[i], opts[i + 1]));
  PetscCall(MatConvert(H, MATSEQGPUAUTO, MAT_INITIAL_MATRIX, &A));
  PetscCall(MatConvert(H, MATSEQGPUAUTO, MAT_INITIAL_MATRIX, &A2));
  for (PetscInt i = 0; opts && opts[i]; i += 2) PetscCall(PetscOptionsClearValue(NULL, opts[i]));
  PetscCall(MatConvert(H, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &B));
  PetscCall(CheckProducts(A, B, what));
  PetscCall(CheckChoice(A, expect, alt, kind, what));
  if (!alt) { /* without tuning the choice is the matrix's and the options' alone */
    Vec x, y;

    PetscCall(MatCreateVecs(A2, &x, &y));
    PetscCall(VecSet(x, 1.0));
    PetscCall(MatMult(A2, x, y));
    PetscCall(MatGPUAutoGetChoice(A, &f1, NULL));
    PetscCall(MatGPUAutoGetChoice(A2, &f2, NULL));
    PetscCall(PetscStrcmp(f1, f2, &same));
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: two conversions chose %s and %s", what, f1, f2);
    nchecks++;
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
  }
  /* new values, the same pattern: the chosen format's refresh */
  PetscCall(MatScale(A, -2.0));
  PetscCall(MatScale(B, -2.0));
  PetscCall(CheckProducts(A, B, what));
  PetscCall(CheckChoice(A, expect, alt, kind, what));
  PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_SELF, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(A, PETSC_VIEWER_STDOUT_SELF));
  PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_SELF));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&A2));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The g x g 2D 5-point Laplacian, and with extra one entry per row at a scattered column (its diagonals: about all) */
static PetscErrorCode Laplacian(PetscInt g, PetscBool scatter, Mat *H)
{
  const PetscInt N = g * g;

  PetscFunctionBeginUser;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, N, N, 6, NULL, H));
  for (PetscInt i = 0; i < N; i++) {
    PetscInt    cols[6], n = 0;
    PetscScalar v[6];

    if (i >= g) cols[n++] = i - g;
    if (i % g) cols[n++] = i - 1;
    cols[n++] = i;
    if ((i + 1) % g) cols[n++] = i + 1;
    if (i + g < N) cols[n++] = i + g;
    for (PetscInt k = 0; k < n; k++) v[k] = cols[k] == i ? 4.0 : -1.0;
    if (scatter) {
      PetscInt c = (PetscInt)(((PetscInt64)i * 7919 + 13) % N);
      PetscInt k;

      for (k = 0; k < n && cols[k] != c; k++) {}
      if (k == n) {
        cols[n] = c;
        v[n++]  = 0.5;
      }
    }
    PetscCall(MatSetValues(*H, 1, &i, n, cols, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*H, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*H, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An m x n matrix of random columns: rows of `base` entries, every `every`-th of `longlen` (every 0: none) */
static PetscErrorCode RandomRows(PetscInt m, PetscInt n, PetscInt base, PetscInt every, PetscInt longlen, Mat *H)
{
  PetscInt *len;
  CSR       csr;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(m, &len));
  for (PetscInt i = 0; i < m; i++) len[i] = every && i % every == every / 2 ? longlen : base;
  PetscCall(CSRCreate(rnd, m, n, len, PETSC_TRUE, &csr));
  PetscCall(CSRToMat(&csr, H));
  PetscCall(CSRDestroy(&csr));
  PetscCall(PetscFree(len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A pattern change (MatAXPY() with entries at scattered columns) changes the 2D Laplacian's choice from DIA to HYB */
static PetscErrorCode CheckPatternChange(Mat L, Mat S)
{
  Mat A, B;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "-- pattern change\n"));
  PetscCall(MatConvert(L, MATSEQGPUAUTO, MAT_INITIAL_MATRIX, &A));
  PetscCall(MatConvert(L, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &B));
  PetscCall(CheckProducts(A, B, "2D Laplacian before the change"));
  PetscCall(CheckChoice(A, "dia", NULL, "regular rows, short", "2D Laplacian before the change"));
  PetscCall(MatAXPY(A, 1.0, S, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatAXPY(B, 1.0, S, DIFFERENT_NONZERO_PATTERN));
  PetscCall(CheckProducts(A, B, "2D Laplacian after entries at scattered columns"));
  PetscCall(CheckChoice(A, "hyb", NULL, "regular rows, short", "2D Laplacian after entries at scattered columns"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bad options: an error from MatSetFromOptions(), the parameters as before, the matrix still right */
static PetscErrorCode CheckBadOptions(Mat H)
{
  const char *bad[][2] = {
      {"-mat_gpuauto_formats",         "sellcs,coo"},
      {"-mat_gpuauto_tune_candidates", "0"         },
      {"-mat_gpuauto_tune_products",   "-3"        }
  };
  PetscErrorCode expect[] = {PETSC_ERR_ARG_UNKNOWN_TYPE, PETSC_ERR_ARG_OUTOFRANGE, PETSC_ERR_ARG_OUTOFRANGE};
  Mat            A, B;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "-- bad options\n"));
  PetscCall(MatConvert(H, MATSEQGPUAUTO, MAT_INITIAL_MATRIX, &A));
  PetscCall(MatConvert(H, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &B));
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(expect); k++) {
    PetscErrorCode ierr;

    PetscCall(PetscOptionsSetValue(NULL, bad[k][0], bad[k][1]));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatSetFromOptions(A);
    PetscCall(PetscPopErrorHandler());
    PetscCall(PetscOptionsClearValue(NULL, bad[k][0]));
    PetscCheck(ierr == expect[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s %s: error %d, expected %d", bad[k][0], bad[k][1], (int)ierr, (int)expect[k]);
    nchecks++;
  }
  PetscCall(CheckProducts(A, B, "after bad options"));
  PetscCall(CheckChoice(A, "sellcs", NULL, "irregular rows", "after bad options"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat         L, LS, S, irregular, power, small, empty;
  const char *formats_hyb[] = {"-mat_gpuauto_formats", "hyb,sellcs", NULL};
  const char *formats_csr[] = {"-mat_gpuauto_formats", "aijcusparse", NULL};
  const char *formats_dia[] = {"-mat_gpuauto_formats", "dia", NULL};
  const char *dia_bound[]   = {"-mat_dia_max_fill", "1", NULL};
  const char *tune[]        = {"-mat_gpuauto_tune", "1", "-mat_gpuauto_tune_products", "5", NULL};
  const char *tune_power[]  = {"-mat_gpuauto_tune", "1", "-mat_gpuauto_formats", "bce,aijcusparse", NULL};
  const char *tune_one[]    = {"-mat_gpuauto_tune", "1", "-mat_gpuauto_tune_candidates", "1", NULL};
  const char *dia_refuses[] = {"-mat_dia_fallback", "0", NULL};

  char      part[64] = "choices";
  PetscBool errors;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUFormatsInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-part", part, sizeof(part), NULL));
  PetscCall(PetscStrcmp(part, "options_errors", &errors));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 20261128));
  PetscCall(PetscRandomSeed(rnd));
  if (errors) { /* a test of its own: PETSc's options block leaks two strings at each error (tests/gpu/debug_petsc.sh) */
    PetscCall(RandomRows(400000, 400000, 3, 50, 200, &irregular));
    PetscCall(CheckBadOptions(irregular));
    PetscCall(MatDestroy(&irregular));
    PetscCall(PetscRandomDestroy(&rnd));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "gpuauto, bad options: %" PetscInt_FMT " checks passed\n", nchecks));
    PetscCall(PetscFinalize());
    return 0;
  }

  /* regular, short rows: the 2D Laplacian of 1 M rows (5 M entries) */
  PetscCall(Laplacian(1000, PETSC_FALSE, &L));
  PetscCall(CheckCase(L, NULL, "dia", NULL, "regular rows, short", "2D Laplacian"));
  PetscCall(CheckCase(L, formats_hyb, "hyb", NULL, "regular rows, short", "2D Laplacian, -mat_gpuauto_formats hyb,sellcs"));
  PetscCall(CheckCase(L, formats_csr, "aijcusparse", NULL, "regular rows, short", "2D Laplacian, -mat_gpuauto_formats aijcusparse"));
  PetscCall(CheckCase(L, dia_bound, "hyb", NULL, "regular rows, short", "2D Laplacian, -mat_dia_max_fill 1 (DIA declines)"));
  PetscCall(CheckCase(L, tune, "dia", "hyb", "regular rows, short", "2D Laplacian, -mat_gpuauto_tune"));
  PetscCall(CheckCase(L, tune_one, "dia", NULL, "regular rows, short", "2D Laplacian, -mat_gpuauto_tune with one candidate"));
  /* the same with a scattered entry a row: DIA declines, HYB holds it; DIA alone: cuSPARSE's CSR */
  PetscCall(Laplacian(1000, PETSC_TRUE, &LS));
  PetscCall(CheckCase(LS, NULL, "hyb", NULL, "regular rows, short", "2D Laplacian with scattered entries"));
  PetscCall(CheckCase(LS, formats_dia, "aijcusparse", NULL, "regular rows, short", "2D Laplacian with scattered entries, DIA alone"));
  PetscCall(CheckCase(LS, dia_refuses, "hyb", NULL, "regular rows, short", "2D Laplacian with scattered entries, DIA refusing (-mat_dia_fallback 0)"));
  PetscCall(MatAXPY(LS, -1.0, L, SUBSET_NONZERO_PATTERN)); /* the scattered entries alone (and explicit zeros) */
  PetscCall(MatConvert(LS, MATSEQAIJ, MAT_INITIAL_MATRIX, &S));
  PetscCall(CheckPatternChange(L, S));
  /* irregular rows: 400 k rows of 3, every 50th of 200 */
  PetscCall(RandomRows(400000, 400000, 3, 50, 200, &irregular));
  PetscCall(CheckCase(irregular, NULL, "sellcs", NULL, "irregular rows", "irregular rows"));
  /* power-law-like: 200 k rows of 8, 20 of 50 k */
  PetscCall(RandomRows(200000, 200000, 8, 10000, 50000, &power));
  PetscCall(CheckCase(power, NULL, "bce", NULL, "power-law rows", "power-law rows"));
  PetscCall(CheckCase(power, tune_power, "bce", "aijcusparse", "power-law rows", "power-law rows, -mat_gpuauto_tune"));
  /* small and rectangular, m < 32; no entries */
  PetscCall(RandomRows(20, 80, 5, 0, 0, &small));
  PetscCall(CheckCase(small, NULL, "bce", NULL, "small", "20 x 80"));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, 50, 40, 0, NULL, &empty));
  PetscCall(MatAssemblyBegin(empty, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(empty, MAT_FINAL_ASSEMBLY));
  PetscCall(CheckCase(empty, NULL, NULL, NULL, NULL, "50 x 40 without entries"));

  PetscCall(MatDestroy(&L));
  PetscCall(MatDestroy(&LS));
  PetscCall(MatDestroy(&S));
  PetscCall(MatDestroy(&irregular));
  PetscCall(MatDestroy(&power));
  PetscCall(MatDestroy(&small));
  PetscCall(MatDestroy(&empty));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "gpuauto: %" PetscInt_FMT " checks passed\n", nchecks));
  PetscCall(PetscFinalize());
  return 0;
}

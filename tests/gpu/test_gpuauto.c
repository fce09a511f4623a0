static const char help[] = "gpuauto (MATSEQGPUAUTO) on the GPU (-part choices, the default, build_after or options_errors): the format it chooses for matrices of each kind of its model, with\n"
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

/* A pattern change (MatAXPY() with entries at scattered columns) changes the 2D Laplacian's choice from DIA to SELL-C-sigma */
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
  PetscCall(CheckChoice(A, "sellcs", NULL, "regular rows, short", "2D Laplacian after entries at scattered columns"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether A's ascii_info view says that its format is not built yet (the wait of -mat_gpuformat_build_after): the view
   written to a temporary file through an ASCII viewer (the type's view prints to ASCII viewers only), then read back */
static PetscErrorCode ViewWaiting(Mat A, PetscBool *waiting)
{
  PetscViewer v;
  FILE       *fp = tmpfile();
  char        buf[16384];
  size_t      len;

  PetscFunctionBeginUser;
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "tmpfile() failed");
  PetscCall(PetscViewerASCIIOpenWithFILE(PETSC_COMM_SELF, fp, &v));
  PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(A, v));
  PetscCall(PetscViewerPopFormat(v));
  PetscCall(PetscViewerDestroy(&v)); /* flushes, leaves fp open */
  rewind(fp);
  len      = fread(buf, 1, sizeof(buf) - 1, fp);
  buf[len] = 0;
  PetscCheck(!fclose(fp), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "fclose() failed");
  PetscCheck(strstr(buf, "GPUAuto GPU format"), PETSC_COMM_SELF, PETSC_ERR_PLIB, "no GPUAuto GPU format in the view:\n%s", buf);
  *waiting = strstr(buf, "not built yet") ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* count products of A (vectors of A's, or host vectors: staged products, counted once each), each against B's (with host
   vectors B is a host matrix, MATSEQAIJ: aijcusparse's product of a host vector would not see VecSetRandom()'s values) */
static PetscErrorCode Products(Mat A, Mat B, PetscInt count, PetscBool host, const char *what)
{
  Vec      x, ya, yb;
  PetscInt m, n;

  PetscFunctionBeginUser;
  PetscCall(MatGetLocalSize(A, &m, &n));
  if (host) {
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, &x));
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, m, &ya));
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, m, &yb));
  } else {
    PetscCall(MatCreateVecs(A, &x, &ya));
    PetscCall(MatCreateVecs(B, NULL, &yb));
  }
  for (PetscInt k = 0; k < count; k++) {
    PetscCall(VecSetRandom(x, rnd));
    PetscCall(MatMult(A, x, ya));
    PetscCall(MatMult(B, x, yb));
    PetscCall(SameVec(ya, yb, what));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&yb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A (gpuauto, its format not built) waits for n products more, then builds at the next: the view says it waits until
   then, and builds nothing; every product right; nothing chosen after the n products where nothing was before (fresh) */
static PetscErrorCode CheckWait(Mat A, Mat B, PetscInt n, PetscBool host, PetscBool fresh, const char *what)
{
  const char *f;
  PetscBool   waiting;

  PetscFunctionBeginUser;
  PetscCall(ViewWaiting(A, &waiting));
  PetscCheck(waiting, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the view does not say that the format waits", what);
  PetscCall(Products(A, B, n - 1, host, what));
  PetscCall(ViewWaiting(A, &waiting)); /* the view builds nothing while the wait lasts */
  PetscCheck(waiting, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: built before the wait ended, or by the view", what);
  PetscCall(Products(A, B, 1, host, what));
  if (fresh) {
    PetscCall(MatGPUAutoGetChoice(A, &f, NULL));
    PetscCheck(!f, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: built within the wait (chose %s)", what, f);
  }
  PetscCall(Products(A, B, 1, host, what));
  PetscCall(MatGPUAutoGetChoice(A, &f, NULL));
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: nothing built after the wait", what);
  PetscCall(ViewWaiting(A, &waiting));
  PetscCheck(!waiting, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the view still says it waits", what);
  nchecks += 4;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   -mat_gpuformat_build_after: gpuauto's default wait (GPUAUTO_BUILD_AFTER products through cuSPARSE's CSR); new values
   neither restart nor end it; a pattern change restarts it; a set value; host vectors (staged products) count once each
*/
static PetscErrorCode CheckBuildAfter(Mat L, Mat S)
{
  Mat A, B;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "-- -mat_gpuformat_build_after\n"));
  PetscCall(MatConvert(L, MATSEQGPUAUTO, MAT_INITIAL_MATRIX, &A));
  PetscCall(MatConvert(L, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &B));
  PetscCall(Products(A, B, 10, PETSC_FALSE, "the default wait"));
  PetscCall(MatScale(A, 3.0)); /* new values during the wait */
  PetscCall(MatScale(B, 3.0));
  PetscCall(CheckWait(A, B, 40, PETSC_FALSE, PETSC_TRUE, "the default wait (50 products), new values after 10"));
  PetscCall(MatScale(A, -1.0)); /* new values after the build: refreshed, no wait */
  PetscCall(MatScale(B, -1.0));
  PetscCall(Products(A, B, 1, PETSC_FALSE, "new values after the build"));
  PetscCall(MatAXPY(A, 1.0, S, DIFFERENT_NONZERO_PATTERN)); /* a new pattern: the wait again */
  PetscCall(MatAXPY(B, 1.0, S, DIFFERENT_NONZERO_PATTERN));
  PetscCall(CheckWait(A, B, 50, PETSC_FALSE, PETSC_FALSE, "a new pattern"));
  PetscCall(MatDestroy(&A));
  /* a wait of 3 set as an option, with host vectors */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_gpuformat_build_after", "3"));
  PetscCall(MatConvert(L, MATSEQGPUAUTO, MAT_INITIAL_MATRIX, &A));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gpuformat_build_after"));
  PetscCall(MatDestroy(&B));
  PetscCall(CheckWait(A, L, 3, PETSC_TRUE, PETSC_TRUE, "-mat_gpuformat_build_after 3, host vectors"));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bad options: an error from MatSetFromOptions(), the parameters as before, the matrix still right */
static PetscErrorCode CheckBadOptions(Mat H)
{
  const char *bad[][2] = {
      {"-mat_gpuauto_formats",         "sellcs,coo"},
      {"-mat_gpuauto_tune_candidates", "0"         },
      {"-mat_gpuauto_tune_products",   "-3"        },
      {"-mat_gpuformat_build_after",   "-1"        }
  };
  PetscErrorCode expect[] = {PETSC_ERR_ARG_UNKNOWN_TYPE, PETSC_ERR_ARG_OUTOFRANGE, PETSC_ERR_ARG_OUTOFRANGE, PETSC_ERR_ARG_OUTOFRANGE};
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
  const char *formats_hyb[] = {"-mat_gpuauto_formats", "hyb,cmrs", NULL};
  const char *formats_csr[] = {"-mat_gpuauto_formats", "aijcusparse", NULL};
  const char *formats_dia[] = {"-mat_gpuauto_formats", "dia", NULL};
  const char *dia_bound[]   = {"-mat_dia_max_fill", "1", NULL};
  const char *tune[]        = {"-mat_gpuauto_tune", "1", "-mat_gpuauto_tune_products", "5", "-mat_gpuauto_formats", "dia,sellcs,aijcusparse", NULL};
  const char *tune_power[]  = {"-mat_gpuauto_tune", "1", "-mat_gpuauto_formats", "bce,aijcusparse", NULL};
  const char *tune_one[]    = {"-mat_gpuauto_tune", "1", "-mat_gpuauto_tune_candidates", "1", NULL};
  const char *dia_refuses[] = {"-mat_dia_fallback", "0", NULL};

  char      part[64] = "choices";
  PetscBool errors, wait;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUFormatsInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-part", part, sizeof(part), NULL));
  PetscCall(PetscStrcmp(part, "options_errors", &errors));
  PetscCall(PetscStrcmp(part, "build_after", &wait));
  PetscCheck(errors || wait || !strcmp(part, "choices"), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-part %s: choices, build_after or options_errors", part);
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 20261128));
  PetscCall(PetscRandomSeed(rnd));
  /* the choices and bad options: the format built at the first product (the wait of -mat_gpuformat_build_after: the part
     build_after) */
  if (!wait) PetscCall(PetscOptionsSetValue(NULL, "-mat_gpuformat_build_after", "0"));
  if (errors) { /* a test of its own: PETSc's options block leaks two strings at each error (tests/gpu/debug_petsc.sh) */
    PetscCall(RandomRows(400000, 400000, 3, 50, 200, &irregular));
    PetscCall(CheckBadOptions(irregular));
    PetscCall(MatDestroy(&irregular));
    PetscCall(PetscRandomDestroy(&rnd));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "gpuauto, bad options: %" PetscInt_FMT " checks passed\n", nchecks));
    PetscCall(PetscFinalize());
    return 0;
  }

  if (wait) { /* the default wait, on the 2D Laplacian of 1 M rows */
    PetscCall(Laplacian(1000, PETSC_FALSE, &L));
    PetscCall(Laplacian(1000, PETSC_TRUE, &LS));
    PetscCall(MatAXPY(LS, -1.0, L, SUBSET_NONZERO_PATTERN));
    PetscCall(MatConvert(LS, MATSEQAIJ, MAT_INITIAL_MATRIX, &S));
    PetscCall(CheckBuildAfter(L, S));
    PetscCall(MatDestroy(&L));
    PetscCall(MatDestroy(&LS));
    PetscCall(MatDestroy(&S));
    PetscCall(PetscRandomDestroy(&rnd));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "gpuauto, -mat_gpuformat_build_after: %" PetscInt_FMT " checks passed\n", nchecks));
    PetscCall(PetscFinalize());
    return 0;
  }

  /* regular, short rows: the 2D Laplacian of 1 M rows (5 M entries) */
  PetscCall(Laplacian(1000, PETSC_FALSE, &L));
  PetscCall(CheckCase(L, NULL, "dia", NULL, "regular rows, short", "2D Laplacian"));
  PetscCall(CheckCase(L, formats_hyb, "hyb", NULL, "regular rows, short", "2D Laplacian, -mat_gpuauto_formats hyb,cmrs"));
  PetscCall(CheckCase(L, formats_csr, "aijcusparse", NULL, "regular rows, short", "2D Laplacian, -mat_gpuauto_formats aijcusparse"));
  PetscCall(CheckCase(L, dia_bound, "sellcs", NULL, "regular rows, short", "2D Laplacian, -mat_dia_max_fill 1 (DIA declines)"));
  PetscCall(CheckCase(L, tune, "dia", "sellcs", "regular rows, short", "2D Laplacian, -mat_gpuauto_tune of dia, sellcs and aijcusparse"));
  PetscCall(CheckCase(L, tune_one, "dia", NULL, "regular rows, short", "2D Laplacian, -mat_gpuauto_tune with one candidate"));
  /* the same with a scattered entry a row: DIA declines, SELL-C-sigma holds it; DIA alone: cuSPARSE's CSR */
  PetscCall(Laplacian(1000, PETSC_TRUE, &LS));
  PetscCall(CheckCase(LS, NULL, "sellcs", NULL, "regular rows, short", "2D Laplacian with scattered entries"));
  PetscCall(CheckCase(LS, formats_dia, "aijcusparse", NULL, "regular rows, short", "2D Laplacian with scattered entries, DIA alone"));
  PetscCall(CheckCase(LS, dia_refuses, "sellcs", NULL, "regular rows, short", "2D Laplacian with scattered entries, DIA refusing (-mat_dia_fallback 0)"));
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

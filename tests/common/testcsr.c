#include "testcsr.h"

PetscErrorCode CSRDestroy(CSR *A)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(A->rowptr));
  PetscCall(PetscFree(A->colind));
  PetscCall(PetscFree(A->val));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Random m x n matrix; row i gets len[i] distinct sorted columns; integer values in [-4, 4] or reals in [-1, 1] */
PetscErrorCode CSRCreate(PetscRandom rnd, PetscInt m, PetscInt n, const PetscInt *len, PetscBool integer, CSR *A)
{
  PetscBool *used;

  PetscFunctionBeginUser;
  A->m = m;
  A->n = n;
  PetscCall(PetscMalloc1(m + 1, &A->rowptr));
  A->rowptr[0] = 0;
  for (PetscInt i = 0; i < m; i++) A->rowptr[i + 1] = A->rowptr[i] + PetscMin(len[i], n);
  A->nnz = A->rowptr[m];
  PetscCall(PetscMalloc1(A->nnz, &A->colind));
  PetscCall(PetscMalloc1(A->nnz, &A->val));
  PetscCall(PetscCalloc1(n, &used));
  for (PetscInt i = 0; i < m; i++) {
    PetscInt k = A->rowptr[i], want = A->rowptr[i + 1] - k;

    if (want == n) {
      for (PetscInt c = 0; c < n; c++) A->colind[k + c] = c;
    } else {
      PetscInt got = 0;

      while (got < want) {
        PetscReal r;
        PetscInt  c;

        PetscCall(PetscRandomGetValueReal(rnd, &r));
        c = PetscMin((PetscInt)(r * n), n - 1);
        if (!used[c]) {
          used[c]              = PETSC_TRUE;
          A->colind[k + got++] = c;
        }
      }
      PetscCall(PetscSortInt(want, A->colind + k));
      for (PetscInt q = 0; q < want; q++) used[A->colind[k + q]] = PETSC_FALSE;
    }
    for (PetscInt q = k; q < A->rowptr[i + 1]; q++) {
      PetscReal r;

      PetscCall(PetscRandomGetValueReal(rnd, &r));
      A->val[q] = integer ? (PetscScalar)((PetscInt)(9 * r) - 4) : 2 * r - 1;
    }
  }
  PetscCall(PetscFree(used));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A MATSEQAIJ copy of the CSR matrix */
PetscErrorCode CSRToMat(const CSR *A, Mat *B)
{
  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_SELF, B));
  PetscCall(MatSetSizes(*B, A->m, A->n, A->m, A->n));
  PetscCall(MatSetType(*B, MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocationCSR(*B, A->rowptr, A->colind, A->val));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The first local entry where ya differs from the reference yr, -1 where none: NaN must stand where the reference has NaN,
   the same infinity where it has one, other values within rtol times the largest finite magnitude of yr (at least 1). A
   difference is printed (on PETSC_COMM_SELF) with the label what */
PetscErrorCode VecFirstDifference(Vec ya, Vec yr, PetscReal rtol, const char *what, PetscInt *bad)
{
  const PetscScalar *a, *r;
  PetscInt           n;
  PetscReal          scale = 0;

  PetscFunctionBeginUser;
  *bad = -1;
  PetscCall(VecGetLocalSize(yr, &n));
  PetscCall(VecGetArrayRead(ya, &a));
  PetscCall(VecGetArrayRead(yr, &r));
  for (PetscInt i = 0; i < n; i++)
    if (!PetscIsInfOrNanScalar(r[i])) scale = PetscMax(scale, PetscAbsScalar(r[i]));
  for (PetscInt i = 0; i < n && *bad < 0; i++) {
    PetscBool an = PetscIsNanScalar(a[i]), rn = PetscIsNanScalar(r[i]), ai = PetscIsInfScalar(a[i]), ri = PetscIsInfScalar(r[i]);

    if (an != rn || ai != ri) *bad = i;
    else if (ai && PetscRealPart(a[i]) != PetscRealPart(r[i])) *bad = i;
    else if (!an && !ai && PetscAbsScalar(a[i] - r[i]) > rtol * PetscMax(1.0, scale)) *bad = i;
  }
  if (*bad >= 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %s: local entry %" PetscInt_FMT ": %g, reference %g\n", what, *bad, (double)PetscRealPart(a[*bad]), (double)PetscRealPart(r[*bad])));
  PetscCall(VecRestoreArrayRead(ya, &a));
  PetscCall(VecRestoreArrayRead(yr, &r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A reads the option (no prefix) set to value (MatSetFromOptions()), which is then cleared from the database */
PetscErrorCode TestSetMatOption(Mat A, const char *option, const char *value)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, option, value));
  PetscCall(MatSetFromOptions(A));
  PetscCall(PetscOptionsClearValue(NULL, option));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The error of y = A x with the option set to value (TestSetMatOption()), caught, not raised; collective on A */
PetscErrorCode TestMultErrorWithOption(Mat A, const char *option, const char *value, Vec x, Vec y, PetscErrorCode *ierr)
{
  PetscFunctionBeginUser;
  PetscCall(TestSetMatOption(A, option, value));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  *ierr = MatMult(A, x, y);
  PetscCall(PetscPopErrorHandler());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   DIA host reference: the build from CSR and the product as plain loops over the arrays the CUDA kernel is to read. It
   is the oracle of the tests and needs no GPU.
*/
#include "dia.h"
#include <petscbt.h>

/* The count of occupied diagonals of an m x n CSR matrix (columns in range, no duplicate entries in a row), apart from
   the build, which counts them as it places them: the tests check the build's count with it */
PetscErrorCode DIACount(PetscInt m, PetscInt n, const PetscInt *rowptr, const PetscInt *colind, PetscInt *ndiag)
{
  PetscBT occupied;

  PetscFunctionBegin;
  *ndiag = 0;
  if (!m || !n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscBTCreate(m + n - 1, &occupied)); /* diagonal c - r + m - 1, 0 .. m + n - 2 */
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++)
      if (!PetscBTLookupSet(occupied, colind[k] - i + m - 1)) (*ndiag)++;
  PetscCall(PetscBTDestroy(&occupied));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Builds the DIA arrays of an m x n CSR matrix (rowptr[0] = 0, columns in range, no duplicate entries in a row).
   maxfill > 0: refuses (PETSC_ERR_SUP) a matrix whose diagonals hold more than maxfill slots per entry (ndiag m / nnz),
   before it allocates them; a few scattered entries can occupy thousands of diagonals.
*/
PetscErrorCode DIABuildHost(PetscInt m, PetscInt n, const PetscInt *rowptr, const PetscInt *colind, const PetscScalar *val, PetscReal maxfill, DIAArrays *A)
{
  PetscInt *diag = NULL; /* diagonal c - r + m - 1 -> its place among the stored ones, -1 if empty */
  PetscInt  words;

  PetscFunctionBegin;
  PetscCall(PetscArrayzero(A, 1));
  A->m   = m;
  A->n   = n;
  A->nnz = m ? rowptr[m] : 0;
  if (m && n) { /* mark the occupied diagonals and count them, before any of the format's arrays is allocated */
    PetscCall(PetscMalloc1(m + n - 1, &diag));
    for (PetscInt t = 0; t < m + n - 1; t++) diag[t] = -1;
    for (PetscInt i = 0; i < m; i++)
      for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) diag[colind[k] - i + m - 1] = 0;
    for (PetscInt t = 0; t < m + n - 1; t++) A->ndiag += diag[t] == 0;
  }
  if (maxfill > 0 && (PetscLogDouble)A->ndiag * m > maxfill * (PetscLogDouble)A->nnz) {
    PetscCall(PetscFree(diag));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "DIA: the %" PetscInt_FMT " x %" PetscInt_FMT " matrix's %" PetscInt_FMT " entries lie on %" PetscInt_FMT " diagonals, %g slots per entry, more than the bound %g", m, n, A->nnz, A->ndiag, A->nnz ? (double)A->ndiag * (double)m / (double)A->nnz : 0.0, (double)maxfill);
  }
  A->pitch = (m + DIA_ALIGN - 1) / DIA_ALIGN * DIA_ALIGN;
  words    = A->pitch / 32;
  PetscCall(PetscMalloc1(A->ndiag, &A->offsets));
  PetscCall(PetscCalloc1(A->ndiag * A->pitch, &A->val));
  PetscCall(PetscCalloc1(A->ndiag * words, &A->mask));
  if (A->ndiag) {
    PetscInt d = 0;

    for (PetscInt t = 0; t < m + n - 1; t++) /* increasing offset t - (m - 1); each t once, so a place given is not 0 again */
      if (diag[t] == 0) {
        A->offsets[d] = (int)(t - (m - 1));
        diag[t]       = d++;
      }
    for (PetscInt i = 0; i < m; i++)
      for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
        const PetscInt dd = diag[colind[k] - i + m - 1];

        A->val[dd * A->pitch + i] = val[k];
        A->mask[dd * words + i / 32] |= 1u << (i % 32);
      }
  }
  PetscCall(PetscFree(diag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = A x (y == NULL) or z = y + A x; y may equal z. Each row adds its entries in increasing column */
PetscErrorCode DIAMultHost(const DIAArrays *A, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  const PetscInt words = A->pitch / 32;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < A->m; i++) {
    PetscScalar sum = 0.0;

    for (PetscInt d = 0; d < A->ndiag; d++)
      if (A->mask[d * words + i / 32] >> (i % 32) & 1u) sum += A->val[d * A->pitch + i] * x[i + A->offsets[d]];
    z[i] = (y ? y[i] : 0.0) + sum;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DIADestroyHost(DIAArrays *A)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(A->offsets));
  PetscCall(PetscFree(A->val));
  PetscCall(PetscFree(A->mask));
  PetscFunctionReturn(PETSC_SUCCESS);
}

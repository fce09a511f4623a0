/*
   HYB host reference (ELL when the width is the longest row's): the build from CSR and the product as plain loops over
   the arrays the CUDA kernels are to read. It is the oracle of the tests and needs no GPU.
*/
#include "hyb.h"

/*
   The paper's width (section 2.4) from the histogram of the row lengths (count[l]: the rows of l entries, l = 0 ..
   maxlen): the largest K such that at least m / HYB_ELL_SHARE rows have K entries or more (an ELL column is worth its
   padding while that many rows fill it; ELL is taken to be about 3 times faster than COO per entry). 0 for a matrix
   without entries. The device build counts the lengths on the GPU and calls this too.
*/
PetscErrorCode HYBWidthFromCounts(PetscInt m, PetscInt maxlen, const PetscInt *count, PetscInt *width)
{
  PetscInt atleast = 0;

  PetscFunctionBegin;
  *width = 0;
  for (PetscInt k = maxlen; k >= 1; k--) { /* atleast: the rows of k entries or more */
    atleast += count[k];
    if (HYB_ELL_SHARE * (PetscLogDouble)atleast >= (PetscLogDouble)m) {
      *width = k;
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The paper's width of an m-row CSR matrix */
PetscErrorCode HYBDefaultWidth(PetscInt m, const PetscInt *rowptr, PetscInt *width)
{
  PetscInt maxlen = 0, *count;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < m; i++) maxlen = PetscMax(maxlen, rowptr[i + 1] - rowptr[i]);
  PetscCall(PetscCalloc1(maxlen + 1, &count));
  for (PetscInt i = 0; i < m; i++) count[rowptr[i + 1] - rowptr[i]]++;
  PetscCall(HYBWidthFromCounts(m, maxlen, count, width));
  PetscCall(PetscFree(count));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Builds the HYB arrays of an m x n CSR matrix (rowptr[0] = 0, rows sorted by column) with `width` ELL slots per row */
PetscErrorCode HYBBuildHost(PetscInt m, PetscInt n, const PetscInt *rowptr, const PetscInt *colind, const PetscScalar *val, PetscInt width, HYBArrays *A)
{
  PetscInt q = 0;

  PetscFunctionBegin;
  PetscCheck(width >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "HYB width %" PetscInt_FMT " is negative", width);
  PetscCall(PetscArrayzero(A, 1));
  A->m     = m;
  A->n     = n;
  A->nnz   = m ? rowptr[m] : 0;
  A->width = width;
  A->pitch = (m + HYB_ALIGN - 1) / HYB_ALIGN * HYB_ALIGN;
  for (PetscInt i = 0; i < m; i++) A->ncoo += PetscMax(0, rowptr[i + 1] - rowptr[i] - width);
  PetscCall(PetscMalloc1(width * A->pitch, &A->ell_col));
  PetscCall(PetscCalloc1(width * A->pitch, &A->ell_val));
  PetscCall(PetscMalloc3(A->ncoo, &A->coo_row, A->ncoo, &A->coo_col, A->ncoo, &A->coo_val));
  for (PetscInt s = 0; s < width * A->pitch; s++) A->ell_col[s] = -1;
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
      const PetscInt j = k - rowptr[i];

      if (j < width) {
        A->ell_col[j * A->pitch + i] = (int)colind[k];
        A->ell_val[j * A->pitch + i] = val[k];
      } else {
        A->coo_row[q] = (int)i;
        A->coo_col[q] = (int)colind[k];
        A->coo_val[q] = val[k];
        q++;
      }
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = A x (y == NULL) or z = y + A x; y may equal z */
PetscErrorCode HYBMultHost(const HYBArrays *A, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < A->m; i++) {
    PetscScalar sum = 0.0;

    for (PetscInt j = 0; j < A->width; j++) {
      const int c = A->ell_col[j * A->pitch + i];

      if (c >= 0) sum += A->ell_val[j * A->pitch + i] * x[c];
    }
    z[i] = (y ? y[i] : 0.0) + sum;
  }
  for (PetscInt q = 0; q < A->ncoo; q++) z[A->coo_row[q]] += A->coo_val[q] * x[A->coo_col[q]];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode HYBDestroyHost(HYBArrays *A)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(A->ell_col));
  PetscCall(PetscFree(A->ell_val));
  PetscCall(PetscFree3(A->coo_row, A->coo_col, A->coo_val));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   CMRS host reference: the build from CSR and the product as plain loops over the arrays the CUDA
   kernel reads. It is the oracle of the tests and needs no GPU.
*/
#include "cmrs.h"

/*
   Default strip height: the smallest power of two whose strips hold at least CMRS_TARGET_STRIP_NNZ
   entries on average, at most CMRS_MAX_HEIGHT. A warp reads 32 entries per step; strips of a few steps
   keep its lanes busy while short strips waste the tail of their only step. The value comes from the
   height sweep in bench/README.md.
*/
#define CMRS_TARGET_STRIP_NNZ 128

PetscErrorCode CMRSCheckHeight(PetscInt height)
{
  PetscFunctionBegin;
  PetscCheck(height == 1 || height == 2 || height == 4 || height == 8 || height == 16, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "CMRS strip height %" PetscInt_FMT " is not one of 1, 2, 4, 8, 16", height);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscInt CMRSDefaultHeight(const MatGPUFormatRowStats *stats)
{
  PetscInt height = 1;

  while (height < CMRS_MAX_HEIGHT && height * stats->mean < CMRS_TARGET_STRIP_NNZ) height *= 2;
  return height;
}

/* Whether column indices of a matrix with n columns are packed with the row-in-strip field */
PetscBool CMRSPackable(PetscInt n, PetscBool allow)
{
  return (PetscBool)(allow && (PetscInt64)n <= (PetscInt64)CMRS_MAX_PACKED_COLS);
}

typedef struct {
  PetscInt64  key; /* (column << CMRS_BITS) | row-in-strip */
  PetscScalar val;
} CMRSEntry;

static int CMRSEntryCompare(const void *a, const void *b)
{
  const PetscInt64 ka = ((const CMRSEntry *)a)->key, kb = ((const CMRSEntry *)b)->key;

  return ka < kb ? -1 : (ka > kb ? 1 : 0);
}

/*
   Builds the CMRS arrays of an m x n CSR matrix (rowptr[0] = 0, no duplicate entries in a row) with
   strips of `height` rows; `pack` allows packing the row-in-strip field into the column index and
   `sort` orders the entries of each strip by column.
*/
PetscErrorCode CMRSBuildHost(PetscInt m, PetscInt n, const PetscInt *rowptr, const PetscInt *colind, const PetscScalar *val, PetscInt height, PetscBool pack, PetscBool sort, CMRSArrays *A)
{
  PetscFunctionBegin;
  PetscCall(CMRSCheckHeight(height));
  PetscCall(PetscArrayzero(A, 1));
  A->m       = m;
  A->n       = n;
  A->nnz     = m ? rowptr[m] : 0;
  A->height  = height;
  A->nstrips = (m + height - 1) / height;
  A->packed  = CMRSPackable(n, pack);
  A->sorted  = sort;
  PetscCall(PetscMalloc1(A->nstrips + 1, &A->strip_ptr));
  PetscCall(PetscMalloc1(A->nnz, &A->colind));
  PetscCall(PetscMalloc1(A->nnz, &A->val));
  if (!A->packed) PetscCall(PetscMalloc1(A->nnz, &A->rowin));
  for (PetscInt s = 0; s <= A->nstrips; s++) A->strip_ptr[s] = m ? rowptr[PetscMin(s * height, m)] : 0;
  for (PetscInt i = 0; i < m; i++) {
    const unsigned r = (unsigned)(i % height);

    for (PetscInt k = rowptr[i]; k < rowptr[i + 1]; k++) {
      if (A->packed) A->colind[k] = ((unsigned)colind[k] << CMRS_BITS) | r;
      else {
        A->colind[k] = (unsigned)colind[k];
        A->rowin[k]  = (unsigned char)r;
      }
      A->val[k] = val[k];
    }
  }
  if (sort) {
    CMRSEntry *e;

    PetscCall(PetscMalloc1(A->nnz, &e));
    for (PetscInt s = 0; s < A->nstrips; s++) {
      const PetscInt b = A->strip_ptr[s], len = A->strip_ptr[s + 1] - b;

      for (PetscInt k = 0; k < len; k++) {
        const unsigned c = A->colind[b + k];

        e[k].key = A->packed ? (PetscInt64)c : ((PetscInt64)c << CMRS_BITS) | A->rowin[b + k];
        e[k].val = A->val[b + k];
      }
      qsort(e, (size_t)len, sizeof(CMRSEntry), CMRSEntryCompare);
      for (PetscInt k = 0; k < len; k++) {
        if (A->packed) A->colind[b + k] = (unsigned)e[k].key;
        else {
          A->colind[b + k] = (unsigned)(e[k].key >> CMRS_BITS);
          A->rowin[b + k]  = (unsigned char)(e[k].key & (CMRS_MAX_HEIGHT - 1));
        }
        A->val[b + k] = e[k].val;
      }
    }
    PetscCall(PetscFree(e));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = A x (y == NULL) or z = y + A x; y may equal z */
PetscErrorCode CMRSMultHost(const CMRSArrays *A, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  PetscFunctionBegin;
  for (PetscInt s = 0; s < A->nstrips; s++) {
    PetscScalar sum[CMRS_MAX_HEIGHT] = {0};

    for (PetscInt k = A->strip_ptr[s]; k < A->strip_ptr[s + 1]; k++) {
      const unsigned c   = A->colind[k];
      const unsigned r   = A->packed ? c & (CMRS_MAX_HEIGHT - 1) : A->rowin[k];
      const unsigned col = A->packed ? c >> CMRS_BITS : c;

      sum[r] += A->val[k] * x[col];
    }
    for (PetscInt r = 0; r < A->height; r++) {
      const PetscInt row = s * A->height + r;

      if (row < A->m) z[row] = (y ? y[row] : 0.0) + sum[r];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CMRSDestroyHost(CMRSArrays *A)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(A->strip_ptr));
  PetscCall(PetscFree(A->colind));
  PetscCall(PetscFree(A->rowin));
  PetscCall(PetscFree(A->val));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#pragma once

/*
   SELL-C-sigma (Kreutzer, Hager, Wellein, Fehske, Bishop, SIAM J. Sci. Comput. 36, 2014): rows sorted by
   descending length within windows of sigma rows, cut into chunks of C rows stored column-major, each chunk as
   wide as its longest row. The arrays below describe the format both on the host (the reference, sellcs.c)
   and on the device (cuda/sellcs.cu): the kernel reads exactly these. Padding slots hold column 0 and value 0
   and are never read: a row stops at its length. Rows longer than `longrow` entries would keep one thread
   busy and widen their chunk: they leave the chunks (rowlen -1, sorted last in their window) and are kept
   as CSR in the long part, which the device splits across warps.
*/
#include "../common/gpuformat.h"

typedef struct {
  PetscInt     m, n, nnz, C, sigma, nchunks; /* nchunks = ceil(m / C) */
  PetscInt     longrow, nlong;               /* rows longer than longrow are long; nlong of them */
  int         *lrow;                         /* nlong: original index of each long row */
  int         *lptr;                         /* nlong + 1: entries of long row l are [lptr[l], lptr[l+1]) */
  int         *lcol;                         /* lptr[nlong] */
  PetscScalar *lval;                         /* lptr[nlong] */
  PetscInt64   nslots;                       /* chunk_ptr[nchunks]: entries plus padding */
  int         *perm;                         /* m: original row of sorted row r (NULL when sigma = 1) */
  int         *rowlen;                       /* nchunks C: length of sorted row r, 0 past m, -1 for a long row */
  PetscInt64  *chunk_ptr;                    /* nchunks + 1: entry j of sorted row r is at chunk_ptr[r / C] + j C + r mod C */
  int         *col;                          /* nslots */
  PetscScalar *val;                          /* nslots */
} SELLCSArrays;

PETSC_INTERN PetscErrorCode SELLCSCheckParameters(PetscInt, PetscInt);
PETSC_INTERN PetscErrorCode SELLCSBuildHost(PetscInt, PetscInt, const PetscInt *, const PetscInt *, const PetscScalar *, PetscInt, PetscInt, PetscInt, SELLCSArrays *);
PETSC_INTERN PetscErrorCode SELLCSMultHost(const SELLCSArrays *, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode SELLCSDestroyHost(SELLCSArrays *);
PETSC_INTERN PetscReal      SELLCSOccupancy(const SELLCSArrays *);
PETSC_INTERN PetscInt       SELLCSDefaultSigma(PetscInt, PetscReal);
PETSC_INTERN PetscInt       SELLCSDefaultThreads(PetscInt, const MatGPUFormatRowStats *);
PETSC_INTERN PetscInt       SELLCSDefaultLongRow(PetscInt, const MatGPUFormatRowStats *);
PETSC_INTERN PetscInt       SELLCSDefaultRefreshThreads(PetscInt, const MatGPUFormatRowStats *);

PETSC_INTERN MatGPUFormatOps MatSELLCSOps;
PETSC_INTERN PetscErrorCode  MatCreate_SeqSELLCS(Mat);

#pragma once

/*
   CMRS, Compressed Multi-Row Storage (Koza, Matyka, Szkoda, Miroslaw, 2014): CSR in which the row unit is
   a strip of `height` consecutive rows, processed by one warp. The arrays below describe the format both
   on the host (the reference, cmrs.c) and on the device (cuda/cmrs.cu): the kernel reads exactly these.
*/
#include "../common/gpuformat.h"

#define CMRS_BITS            4                        /* bits of the row-in-strip field of a packed index */
#define CMRS_MAX_HEIGHT      (1 << CMRS_BITS)         /* 16 */
#define CMRS_MAX_PACKED_COLS (1u << (32 - CMRS_BITS)) /* columns that fit in the 28 upper bits */

typedef struct {
  PetscInt       m, n, nnz, height, nstrips;
  PetscBool      packed;    /* row-in-strip in the low CMRS_BITS bits of colind */
  PetscBool      sorted;    /* the entries of each strip are sorted by (column, row) */
  int           *strip_ptr; /* nstrips + 1: entries of strip s are [strip_ptr[s], strip_ptr[s+1]) */
  unsigned int  *colind;    /* nnz: (column << CMRS_BITS) | row-in-strip when packed, else the column */
  unsigned char *rowin;     /* nnz: row-in-strip when not packed, else NULL */
  PetscScalar   *val;       /* nnz */
} CMRSArrays;

PETSC_INTERN PetscErrorCode CMRSCheckHeight(PetscInt);
PETSC_INTERN PetscInt       CMRSDefaultHeight(const MatGPUFormatRowStats *);
PETSC_INTERN PetscBool      CMRSPackable(PetscInt, PetscBool);
PETSC_INTERN PetscErrorCode CMRSBuildHost(PetscInt, PetscInt, const PetscInt *, const PetscInt *, const PetscScalar *, PetscInt, PetscBool, PetscBool, CMRSArrays *);
PETSC_INTERN PetscErrorCode CMRSMultHost(const CMRSArrays *, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode CMRSDestroyHost(CMRSArrays *);

PETSC_INTERN MatGPUFormatOps MatCMRSOps;
PETSC_INTERN PetscErrorCode  MatCreate_SeqCMRS(Mat);

#pragma once

/*
   HYB (Bell & Garland, NVR-2008-004, sections 2.1 and 2.2): the first `width` entries of every row in ELL (column-major:
   slot j of row r at j * pitch + r, so a warp of 32 consecutive rows reads 32 consecutive slots), the entries past them
   in COO, sorted by row and column. ELL is HYB with the longest row's width (no COO part). A padding slot holds column -1
   and value 0 and is never multiplied (an Inf or NaN in x stays out of the rows that do not hold its column). The product
   adds a row's ELL slots in order into z = y + ..., then its COO entries in order, so a row's terms come in increasing
   column, as in a CSR product of sorted rows. The arrays below describe the format on the host (the reference, hyb.c);
   the device keeps the same layout.
*/
#include "../common/gpuformat.h"

#define HYB_ALIGN     32  /* the ELL pitch: the rows rounded up to a multiple of 32 */
#define HYB_ELL_SHARE 3.0 /* the paper's rule: an ELL column pays while at least 1 / HYB_ELL_SHARE of the rows fill it */
/* -mat_ell_max_fill's default: ELL slots per entry (width m / nnz) above which the ELL type declines a matrix. Measured
   (bench/results/h200/ell.md): stopping at each row's length, ELL is level with the best other type up to 2.65 slots per
   entry and 0.86 of it at 4.1, where it holds 3.7 times the CSR's memory; 3 keeps the first and declines the second */
#define ELL_DEFAULT_MAX_FILL 3.0

typedef struct {
  PetscInt     m, n, nnz;
  PetscInt     width;             /* ELL slots per row (K) */
  PetscInt     pitch;             /* m rounded up to HYB_ALIGN */
  PetscInt     ncoo;              /* entries past the width of their row */
  int         *ell_col;           /* width * pitch: column of slot j of row r at j * pitch + r, -1 in padding */
  PetscScalar *ell_val;           /* width * pitch, 0 in padding */
  int         *coo_row, *coo_col; /* ncoo, sorted by row, then column */
  PetscScalar *coo_val;           /* ncoo */
} HYBArrays;

PETSC_INTERN PetscErrorCode HYBWidthFromCounts(PetscInt, PetscInt, const PetscInt *, PetscInt *);
PETSC_INTERN PetscErrorCode HYBDefaultWidth(PetscInt, const PetscInt *, PetscInt *);
PETSC_INTERN PetscErrorCode HYBBuildHost(PetscInt, PetscInt, const PetscInt *, const PetscInt *, const PetscScalar *, PetscInt, HYBArrays *);
PETSC_INTERN PetscErrorCode HYBMultHost(const HYBArrays *, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode HYBDestroyHost(HYBArrays *);

PETSC_INTERN MatGPUFormatOps MatHYBOps, MatELLOps;
PETSC_INTERN PetscErrorCode  MatCreate_SeqHYB(Mat);
PETSC_INTERN PetscErrorCode  MatCreate_SeqELL(Mat);

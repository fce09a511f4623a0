#pragma once

/*
   DIA (Bell & Garland, NVR-2008-004, section 2.1): the entries of a matrix on a few diagonals, each diagonal stored as a
   column of `pitch` values, one per row (column-major: consecutive rows of a diagonal are adjacent, so a warp of 32
   consecutive rows reads 32 consecutive values), and no column index: the column of row r on diagonal d is
   r + offsets[d]. A slot of a diagonal that holds no entry of the matrix (a row where the diagonal leaves the matrix, or
   a gap such as a 2D stencil's neighbour across the grid's edge) is padding, value 0; unlike the paper, a bit per slot
   (mask) says which slots are entries, so that the product adds exactly the matrix's terms: padding never multiplies x
   (an Inf or NaN there stays out of the row), and an entry stored as 0 multiplies it as in CSR. Diagonals are in
   increasing offset, so a row's terms are added in increasing column, as a CSR product of sorted rows adds them.
   The arrays below describe the format on the host (the reference, dia.c); the device keeps the same layout.
*/
#include "../common/gpuformat.h"

#define DIA_ALIGN 32 /* the pitch: the rows rounded up to a multiple of 32, so that each diagonal starts a word of the mask */
/* -mat_dia_max_fill's default: slots per entry (ndiag m / nnz) above which the device type declines a matrix. On an H200
   (bench/results/h200/dia.md) DIA was 1.35 times aijcusparse at 1.80 slots per entry, 1.09 times at 2.65 (with 1.63 times
   its memory, and SELL-C-sigma faster), 0.94 times at 4.09 */
#define DIA_DEFAULT_MAX_FILL 2.5

typedef struct {
  PetscInt     m, n, nnz;
  PetscInt     ndiag;   /* stored diagonals */
  PetscInt     pitch;   /* slots per diagonal: m rounded up to DIA_ALIGN */
  int         *offsets; /* ndiag, increasing: column - row on each diagonal */
  PetscScalar *val;     /* ndiag * pitch: the entry (r, r + offsets[d]) at val[d * pitch + r], 0 in padding */
  unsigned    *mask;    /* ndiag * pitch / 32: bit r % 32 of mask[d * (pitch / 32) + r / 32] set where that slot is an entry */
} DIAArrays;

PETSC_INTERN PetscErrorCode DIACount(PetscInt, PetscInt, const PetscInt *, const PetscInt *, PetscInt *);
PETSC_INTERN PetscErrorCode DIABuildHost(PetscInt, PetscInt, const PetscInt *, const PetscInt *, const PetscScalar *, PetscReal, DIAArrays *);
PETSC_INTERN PetscErrorCode DIAMultHost(const DIAArrays *, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode DIADestroyHost(DIAArrays *);

PETSC_INTERN MatGPUFormatOps MatDIAOps;
PETSC_INTERN PetscErrorCode  MatCreate_SeqDIA(Mat);

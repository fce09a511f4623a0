#pragma once

#include <petscmat.h>

/* SUBMANSEC = Mat */

/*MC
   MATCMRS - "cmrs" - root name of the CMRS (Compressed Multi-Row Storage) GPU matrix type.
   It resolves to `MATSEQCMRS` on one MPI process and to `MATMPICMRS` (a `MATMPIAIJCUSPARSE` whose diagonal blocks are
   `MATSEQCMRS`) on several.

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATSEQCMRS`, `MATSEQAIJCUSPARSE`
M*/
#define MATCMRS    "cmrs"
#define MATSEQCMRS "seqaijcusparsecmrs"
#define MATMPICMRS "mpiaijcusparsecmrs"

/*MC
   MATSELLCS - "sellcs" - root name of the SELL-C-sigma GPU matrix type.
   It resolves to `MATSEQSELLCS` on one MPI process and to `MATMPISELLCS` (a `MATMPIAIJCUSPARSE` whose diagonal blocks are
   `MATSEQSELLCS`) on several.

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATSEQSELLCS`, `MATSEQAIJCUSPARSE`
M*/
#define MATSELLCS    "sellcs"
#define MATSEQSELLCS "seqaijcusparsesellcs"
#define MATMPISELLCS "mpiaijcusparsesellcs"

/*MC
   MATBCE - "bce" - root name of the BCE GPU matrix type (blocked CSR/ELL with optimal partitioning).
   It resolves to `MATSEQBCE` on one MPI process and to `MATMPIBCE` (a `MATMPIAIJCUSPARSE` whose diagonal blocks are
   `MATSEQBCE`) on several.

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATSEQBCE`, `MATSEQAIJCUSPARSE`
M*/
#define MATBCE    "bce"
#define MATSEQBCE "seqaijcusparsebce"
#define MATMPIBCE "mpiaijcusparsebce"

/*MC
   MATDIA - "dia" - root name of the DIA (diagonal) GPU matrix type.
   It resolves to `MATSEQDIA` on one MPI process and to `MATMPIDIA` (a `MATMPIAIJCUSPARSE` whose diagonal blocks are
   `MATSEQDIA`) on several.

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATSEQDIA`, `MATSEQAIJCUSPARSE`
M*/
#define MATDIA    "dia"
#define MATSEQDIA "seqaijcusparsedia"
#define MATMPIDIA "mpiaijcusparsedia"

/*MC
   MATHYB - "hyb" - root name of the HYB (ELL and COO) GPU matrix type.
   It resolves to `MATSEQHYB` on one MPI process and to `MATMPIHYB` (a `MATMPIAIJCUSPARSE` whose diagonal blocks are
   `MATSEQHYB`) on several.

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATSEQHYB`, `MATELL`, `MATSEQAIJCUSPARSE`
M*/
#define MATHYB    "hyb"
#define MATSEQHYB "seqaijcusparsehyb"
#define MATMPIHYB "mpiaijcusparsehyb"

/*MC
   MATELL - "ell" - root name of the ELL GPU matrix type.
   It resolves to `MATSEQELL` on one MPI process and to `MATMPIELL` (a `MATMPIAIJCUSPARSE` whose diagonal blocks are
   `MATSEQELL`) on several.

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATSEQELL`, `MATHYB`, `MATSEQAIJCUSPARSE`
M*/
#define MATELL    "ell"
#define MATSEQELL "seqaijcusparseell"
#define MATMPIELL "mpiaijcusparseell"

/*MC
   MATARGCSR - "argcsr" - root name of the ARG-CSR (Adaptive Row-Grouped CSR) GPU matrix type.
   It resolves to `MATSEQARGCSR` on one MPI process and to `MATMPIARGCSR` (a `MATMPIAIJCUSPARSE` whose diagonal blocks are
   `MATSEQARGCSR`) on several.

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATSEQARGCSR`, `MATSEQAIJCUSPARSE`
M*/
#define MATARGCSR    "argcsr"
#define MATSEQARGCSR "seqaijcusparseargcsr"
#define MATMPIARGCSR "mpiaijcusparseargcsr"

/*MC
   MATGPUAUTO - "gpuauto" - root name of the GPU matrix type that chooses its format for each matrix (one of the library's
   formats or cuSPARSE's CSR). It resolves to `MATSEQGPUAUTO` on one MPI process and to `MATMPIGPUAUTO` (a
   `MATMPIAIJCUSPARSE` whose diagonal blocks are `MATSEQGPUAUTO`, each choosing for itself) on several.

   Level: beginner

.seealso: [](ch_matrices), `Mat`, `MATSEQGPUAUTO`, `MATSEQAIJCUSPARSE`, `MatGPUAutoGetChoice()`
M*/
#define MATGPUAUTO    "gpuauto"
#define MATSEQGPUAUTO "seqaijcusparsegpuauto"
#define MATMPIGPUAUTO "mpiaijcusparsegpuauto"

PETSC_EXTERN PetscErrorCode PetscGPUFormatsInitializePackage(void);
PETSC_EXTERN PetscErrorCode PetscGPUFormatsFinalizePackage(void);

PETSC_EXTERN PetscErrorCode MatCMRSSetHeight(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatCMRSGetHeight(Mat, PetscInt *);
PETSC_EXTERN PetscErrorCode MatCMRSSetSortColumns(Mat, PetscBool);

PETSC_EXTERN PetscErrorCode MatSELLCSGetParameters(Mat, PetscInt *, PetscInt *, PetscInt *, PetscInt *);

PETSC_EXTERN PetscErrorCode MatBCEGetPartition(Mat, PetscInt *, PetscInt *, PetscInt **);
PETSC_EXTERN PetscErrorCode MatBCEGetWideRows(Mat, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode MatBCEGetHotColumns(Mat, PetscInt *, PetscInt *, PetscInt64 *);

PETSC_EXTERN PetscErrorCode MatDIAGetDiagonals(Mat, PetscInt *, PetscReal *, PetscBool *);

PETSC_EXTERN PetscErrorCode MatHYBGetWidth(Mat, PetscInt *, PetscInt *, PetscBool *);

PETSC_EXTERN PetscErrorCode MatARGCSRGetGroups(Mat, PetscInt *, PetscInt *, PetscInt *);

PETSC_EXTERN PetscErrorCode MatGPUAutoGetChoice(Mat, const char **, const char **);

PETSC_EXTERN PetscErrorCode MatGPUFormatGetDeviceMemory(Mat, PetscLogDouble *, PetscLogDouble *);
PETSC_EXTERN PetscErrorCode MatGPUFormatGetBuildTime(Mat, PetscLogDouble *);
PETSC_EXTERN PetscErrorCode MatGPUFormatGetDeclined(Mat, PetscBool *);
PETSC_EXTERN PetscErrorCode MatGPUFormatGetStreamAlloc(Mat, PetscBool *);

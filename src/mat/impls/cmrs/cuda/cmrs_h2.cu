/* CMRS's product kernels for strips of 2 rows, in a translation unit of their own (cmrsimpl.cuh says why) */
#include "cmrsmult.cuh"

template PetscErrorCode CMRSLaunchHeight<2>(const Mat_CMRS *, const CMRSRefreshArgs *, const PetscScalar *, const PetscScalar *, PetscScalar *, cudaStream_t);

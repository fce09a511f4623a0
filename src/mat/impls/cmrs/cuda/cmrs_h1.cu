/* CMRS's product kernels for strips of 1 row, in a translation unit of their own (cmrsimpl.cuh says why) */
#include "cmrsmult.cuh"

template PetscErrorCode CMRSLaunchHeight<1>(const Mat_CMRS *, const CMRSRefreshArgs *, const PetscScalar *, const PetscScalar *, PetscScalar *, cudaStream_t);

#pragma once

/*
   gpuauto (issue 19): a type that chooses, at each build, one of the library's formats or cuSPARSE's CSR for the matrix
   in hand. The model (gpuauto.c, host code, tested on the CPU) ranks the candidates from the row statistics that the
   common layer computes for every build; the device side (cuda/gpuauto.cu) builds the first candidate that holds the
   matrix (DIA and ELL may decline it), or with -mat_gpuauto_tune times the first few and keeps the fastest.
*/
#include "../common/gpuformat.h"

typedef enum {
  GPUAUTO_CSR, /* cuSPARSE's CSR: aijcusparse's own product, nothing built */
  GPUAUTO_CMRS,
  GPUAUTO_SELLCS,
  GPUAUTO_BCE,
  GPUAUTO_DIA,
  GPUAUTO_HYB,
  GPUAUTO_ELL,
  GPUAUTO_ARGCSR,
  GPUAUTO_NCANDIDATES
} GPUAutoCandidate;

/* the candidates' names, as in -mat_gpuauto_formats: aijcusparse, cmrs, sellcs, bce, dia, hyb, ell, argcsr */
PETSC_INTERN const char *const GPUAutoCandidateNames[];

/* The kind of matrix the model sees, and why; GPUAutoRank() returns it with the order */
typedef enum {
  GPUAUTO_RULE_SMALL,           /* few entries: a product is a few microseconds, launch latency dominates */
  GPUAUTO_RULE_REGULAR_SHORT,   /* rows of nearly one length, short: stencils, banded, FEM-like */
  GPUAUTO_RULE_REGULAR_LONG,    /* rows of nearly one length, long: dense-like */
  GPUAUTO_RULE_POWER_LAW,       /* rows of very uneven length around a mean of 10 or more: R-MAT, graphs */
  GPUAUTO_RULE_POWER_LAW_LARGE, /* the same, past GPUAUTO_POWER_LARGE_NNZ entries */
  GPUAUTO_RULE_IRREGULAR,       /* other uneven rows: circuit-like, LP-like */
  GPUAUTO_NRULES
} GPUAutoRule;

PETSC_INTERN const char *const GPUAutoRuleNames[];

/* The model's thresholds (gpuauto.c says where each comes from) */
#define GPUAUTO_SMALL_NNZ       1048576  /* at most this many entries: small */
#define GPUAUTO_REGULAR_CV      0.5      /* standard deviation of the row lengths over their mean, at most: regular */
#define GPUAUTO_SHORT_ROW       128      /* a regular matrix's longest row, at most: short */
#define GPUAUTO_POWER_CV        5.0      /* at least, with ... */
#define GPUAUTO_POWER_MEAN      10.0     /* ... a mean row length of at least this: power-law */
#define GPUAUTO_BUILD_AFTER     50       /* -mat_gpuformat_build_after's default: products through cuSPARSE's CSR before the build */
#define GPUAUTO_POWER_LARGE_NNZ 50000000 /* a power-law matrix of more entries: large */

PETSC_INTERN PetscErrorCode GPUAutoClassify(PetscInt, const MatGPUFormatRowStats *, GPUAutoRule *);
PETSC_INTERN PetscErrorCode GPUAutoRank(PetscInt, const MatGPUFormatRowStats *, PetscInt, GPUAutoCandidate[], PetscInt *, GPUAutoRule *);
PETSC_INTERN PetscErrorCode GPUAutoParseFormats(const char *, PetscInt *);
PETSC_INTERN PetscErrorCode GPUAutoFormatsString(PetscInt, char *, size_t);

PETSC_INTERN MatGPUFormatOps MatGPUAutoOps;
PETSC_INTERN PetscErrorCode  MatCreate_SeqGPUAuto(Mat);

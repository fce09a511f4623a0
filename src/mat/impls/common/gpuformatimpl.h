#pragma once

/*
   Private to the common layer (gpuformat.c, gpuformatproduct.c): the state that the common layer composes on
   every matrix of a petsc-gpuformats type, and the functions its files share. Formats never include this.
*/
#include "gpuformat.h"
#include <petsc/private/matimpl.h>

#define MATGPUFORMAT_CTX "MatGPUFormat_ctx"

/* Names that changed between PETSc 3.22 and 3.25: the default destructor of a composed context (3.23), and the MPI
   type of PetscBool, which became C's bool (3.24) */
#if PETSC_VERSION_GE(3, 23, 0)
  #define MatGPUFormatCtxDestroyDefault PetscCtxDestroyDefault
#else
  #define MatGPUFormatCtxDestroyDefault PetscContainerUserDestroyDefault
#endif
/* The context that a destructor given to PetscObjectContainerCompose() receives: the context itself up to PETSc 3.22,
   its address since 3.23 (PetscCtxDestroyFn) */
#if PETSC_VERSION_GE(3, 23, 0)
  #define MatGPUFormatDestroyArgCtx(arg) (*(void **)(arg))
#else
  #define MatGPUFormatDestroyArgCtx(arg) (arg)
#endif
#if PETSC_VERSION_GE(3, 24, 0)
  #define MATGPUFORMAT_MPI_BOOL MPI_C_BOOL
#else
  #define MATGPUFORMAT_MPI_BOOL MPIU_BOOL
#endif

typedef struct {
  MatGPUFormatOps *ops;
  void            *fmt;
  PetscBool        built; /* fmt holds the matrix of nzstate/state */
  PetscObjectState state, nzstate;
  PetscObjectId    id; /* of the Mat whose data fmt holds: MatHeaderMerge() gives A the data and id of another */
  PetscInt         nnz, nzrows;
  PetscLogDouble   buildtime; /* seconds, last build */
  PetscInt         nbuilds, nrefreshes;
  PetscBool        refreshpending;   /* new values (state) not yet in fmt: the next product takes them (ops->multrefresh) */
  PetscInt         product_min_rows; /* -mat_gpuformat_product_min_rows: products with fewer rows stay MATSEQAIJCUSPARSE */
  /* -mat_gpuformat_build_after (one process; a parallel matrix's blocks build at once): the first buildafter products after
     each change of the nonzero pattern (waitnzstate/waitid) are cuSPARSE's, waited of them so far; waitnow: this one is */
  PetscInt         buildafter, waited;
  PetscBool        waitset, waitnow;
  PetscObjectState waitnzstate;
  PetscObjectId    waitid;
  /* parallel matrices (gpuformatmpi.c): fmt holds only the parameters, which the blocks take; nothing is built */
  PetscBool mpi;
  PetscBool offdiag;  /* -mat_gpuformat_offdiag: the off-diagonal blocks in the format too */
  PetscBool overlap;  /* -mat_gpuformat_overlap: MatMult() runs the diagonal block on a stream of its own (gpuformatmpi.c) */
  void     *ghost;    /* with overlap: MatMult()'s own scatter of the ghost values, its stream and events (gpuformatmpi.c) */
  PetscBool hostinfo; /* the one-time PetscInfo() about host vectors has been given */
  /* a build that ran out of device memory: products go through cuSPARSE's CSR until the pattern or a parameter changes */
  PetscBool        oom, oominfo;
  PetscBool        paramschanged; /* a parameter changed since the build that ran out of memory */
  PetscObjectState oomnzstate;
  PetscObjectId    oomid;
  /* the format declined the matrix of nzstate/id at its last build (ops->declined): products go through cuSPARSE's CSR */
  PetscBool declined;
  /* parallel: what every process had when all last agreed that their blocks were built (MatGPUFormatMPIPrepare_Private()):
     the parallel nonzero state (PETSc makes it the same on every process), the blocks' ids (new blocks are made by every
     process together), and whether a collective call (a conversion, new parameters) asked for a new agreement */
  PetscObjectState syncnzstate;
  PetscObjectId    syncid[2];
  PetscBool        syncneeded;
} Mat_GPUFormat;

/* The operations of a freshly created MATSEQAIJCUSPARSE matrix, not bound to the CPU (gpuformat.c) */
PETSC_INTERN struct _MatOps MatGPUFormatBaseOps;

PETSC_INTERN PetscErrorCode MatGPUFormatGetCtx_Private(Mat, Mat_GPUFormat **);
PETSC_INTERN PetscErrorCode MatGPUFormatIsOurs_Private(Mat, Mat_GPUFormat **);
PETSC_INTERN PetscErrorCode MatGPUFormatCheckDebugPETSc_Private(MPI_Comm, const char *, MatGPUFormatOps *);
PETSC_INTERN PetscErrorCode MatGPUFormatReadOptions_Private(Mat, Mat_GPUFormat *);
PETSC_INTERN PetscErrorCode MatGPUFormatSetFromOptions_Private(Mat, Mat_GPUFormat *, MatGPUFormatOptionItems);
PETSC_INTERN PetscErrorCode MatGPUFormatComposeFunctions_Private(Mat, const char *, const char *, const char *, PetscBool);
PETSC_INTERN PetscErrorCode MatGPUFormatCtxCreate_Private(MatGPUFormatOps *, PetscBool, Mat_GPUFormat **);
PETSC_INTERN PetscErrorCode MatGPUFormatConvertInPlace_Private(Mat, MatGPUFormatOps *);
PETSC_INTERN PetscErrorCode MatGPUFormatCopyParams_Private(Mat_GPUFormat *, Mat);
PETSC_INTERN PetscErrorCode MatGPUFormatStrip_Private(Mat);
PETSC_INTERN PetscErrorCode MatGPUFormatCommonOptions_Private(Mat_GPUFormat *, MatGPUFormatOptionItems);
PETSC_INTERN PetscErrorCode MatGPUFormatHostValuesCurrent_Private(Mat);
PETSC_INTERN PetscErrorCode MatGPUFormatCopyValues_Private(Mat, Mat);
PETSC_INTERN PetscErrorCode MatGPUFormatSamePattern_Private(Mat, Mat, PetscBool *);
PETSC_INTERN PetscErrorCode MatGPUFormatPrepare_Private(Mat);
PETSC_INTERN PetscErrorCode MatGPUFormatVecIsCUDA_Private(Vec, PetscBool *);
PETSC_INTERN PetscErrorCode MatGPUFormatMultOnStream_Private(Mat, Vec, Vec, cudaStream_t, cudaStream_t, cudaEvent_t, PetscBool *);

/* gpuformatmpi.c: the parallel types */
PETSC_INTERN PetscInt       MatGPUFormatMasqueradeDepth; /* > 0 while a product phase runs under the masquerade (gpuformatproduct.c) */
PETSC_INTERN struct _MatOps MatGPUFormatMPIBaseOps;
PETSC_INTERN PetscErrorCode MatGPUFormatMPIConvertInPlace_Private(Mat, MatGPUFormatOps *);
PETSC_INTERN PetscErrorCode MatGPUFormatMPISyncBlocks_Private(Mat);
PETSC_INTERN PetscErrorCode MatGPUFormatMPIPropagateParams_Private(Mat);
PETSC_INTERN PetscErrorCode MatGPUFormatMPIStrip_Private(Mat);
PETSC_INTERN PetscErrorCode MatGPUFormatMPICopyValues_Private(Mat, Mat);
PETSC_INTERN PetscErrorCode MatGPUFormatMPIDeviceMemory_Private(Mat, PetscLogDouble *, PetscLogDouble *, PetscLogDouble *);
PETSC_INTERN PetscErrorCode MatGPUFormatFind_Private(MatType, MatGPUFormatOps **);

/* What the conversions to and from our types need of a sequential or a parallel matrix (gpuformat.c, gpuformatmpi.c) */
typedef struct {
  MatType cusparse, host; /* MATSEQAIJCUSPARSE and MATSEQAIJ, or MATMPIAIJCUSPARSE and MATMPIAIJ */
  PetscErrorCode (*convertinplace)(Mat, MatGPUFormatOps *);
  PetscErrorCode (*strip)(Mat);
  PetscErrorCode (*copyvalues)(Mat, Mat); /* MAT_REUSE_MATRIX: the values into a matrix of the same pattern */
} MatGPUFormatKind;
PETSC_INTERN const MatGPUFormatKind MatGPUFormatSeqKind, MatGPUFormatMPIKind;
PETSC_INTERN PetscErrorCode         MatConvertFrom_GPUFormat(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode         MatConvert_GPUFormat_AIJCUSPARSE(Mat, MatType, MatReuse, Mat *);

/* gpuformatproduct.c: the operations the common layer installs on every matrix of our types */
PETSC_INTERN PetscErrorCode MatProductSetFromOptions_GPUFormat(Mat);
PETSC_INTERN PetscErrorCode MatGetBlockDiagonal_GPUFormat(Mat, Mat *);
PETSC_INTERN PetscErrorCode MatGPUFormatRegisterSolvers_Private(MatGPUFormatOps *);

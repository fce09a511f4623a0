/*
   The PETSc plumbing of every petsc-gpuformats matrix type, written once.

   A type is MATSEQAIJCUSPARSE with a composed container (Mat_GPUFormat) that holds a format object
   and the state it was built from. A->data stays PETSc's Mat_SeqAIJ and A->spptr stays cuSPARSE's;
   the operations of cuSPARSE that this file overrides are called through MatGPUFormatBaseOps, the ops table
   of a freshly created seqaijcusparse matrix (libpetsc does not export those functions).
*/
#include "gpuformatimpl.h"

PETSC_EXTERN PetscErrorCode MatCreate_SeqAIJCUSPARSE(Mat);

struct _MatOps   MatGPUFormatBaseOps;
static PetscBool MatGPUFormatBaseOpsSet;

#define MATGPUFORMAT_MAX 16
static MatGPUFormatOps *MatGPUFormatList[MATGPUFORMAT_MAX];
static PetscInt         MatGPUFormatCount;

static PetscErrorCode MatMult_GPUFormat(Mat, Vec, Vec);
static PetscErrorCode MatMultAdd_GPUFormat(Mat, Vec, Vec, Vec);
static PetscErrorCode MatDuplicate_GPUFormat(Mat, MatDuplicateOption, Mat *);
static PetscErrorCode MatCopy_GPUFormat(Mat, Mat, MatStructure);
static PetscErrorCode MatTranspose_GPUFormat(Mat, MatReuse, Mat *);
static PetscErrorCode MatBindToCPU_GPUFormat(Mat, PetscBool);
static PetscErrorCode MatDestroy_GPUFormat(Mat);
static PetscErrorCode MatSetFromOptions_GPUFormat(Mat, MatGPUFormatOptionItems);
static PetscErrorCode MatView_GPUFormat(Mat, PetscViewer);

PetscErrorCode MatGPUFormatRegister_Private(MatGPUFormatOps *ops)
{
  char name[64];

  PetscFunctionBegin;
  for (PetscInt i = 0; i < MatGPUFormatCount; i++)
    if (MatGPUFormatList[i] == ops) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(MatGPUFormatCount < MATGPUFORMAT_MAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Too many formats");
  MatGPUFormatList[MatGPUFormatCount++] = ops;
  PetscCall(MatGPUFormatRegisterSolvers_Private(ops));
  PetscCall(PetscSNPrintf(name, sizeof(name), "%sBuild", ops->title));
  PetscCall(PetscLogEventRegister(name, MAT_CLASSID, &ops->event_build));
  PetscCall(PetscSNPrintf(name, sizeof(name), "%sValues", ops->title));
  PetscCall(PetscLogEventRegister(name, MAT_CLASSID, &ops->event_values));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Forget the registered formats; PetscGPUFormatsFinalizePackage() calls this */
PETSC_INTERN PetscErrorCode MatGPUFormatRegisterReset_Private(void)
{
  PetscFunctionBegin;
  MatGPUFormatCount = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The format whose root, sequential or parallel type name is `type`, or NULL */
PetscErrorCode MatGPUFormatFind_Private(MatType type, MatGPUFormatOps **ops)
{
  PetscFunctionBegin;
  *ops = NULL;
  for (PetscInt i = 0; i < MatGPUFormatCount && !*ops; i++) {
    PetscBool match;

    PetscCall(PetscStrcmp(type, MatGPUFormatList[i]->name, &match));
    if (!match) PetscCall(PetscStrcmp(type, MatGPUFormatList[i]->seqtype, &match));
    if (!match) PetscCall(PetscStrcmp(type, MatGPUFormatList[i]->mpitype, &match));
    if (match) *ops = MatGPUFormatList[i];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGPUFormatGetBaseOps_Private(void)
{
  Mat B;

  PetscFunctionBegin;
  if (MatGPUFormatBaseOpsSet) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatCreate(PETSC_COMM_SELF, &B));
  PetscCall(MatSetSizes(B, 0, 0, 0, 0));
  PetscCall(MatSetType(B, MATSEQAIJCUSPARSE));
  MatGPUFormatBaseOps    = *B->ops;
  MatGPUFormatBaseOpsSet = PETSC_TRUE;
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A format object that create() made, and its device data: ops->destroy() or, for a plain host object, PetscFree() */
PetscErrorCode MatGPUFormatObjectDestroy_Private(MatGPUFormatOps *ops, void **fmt)
{
  PetscFunctionBegin;
  if (!*fmt) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ops->reset(*fmt));
  if (ops->destroy) PetscCall(ops->destroy(*fmt));
  else PetscCall(PetscFree(*fmt));
  *fmt = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGPUFormatCtxDestroy(void *ptr)
{
  Mat_GPUFormat *ctx = (Mat_GPUFormat *)MatGPUFormatDestroyArgCtx(ptr);

  PetscFunctionBegin;
  PetscCall(MatGPUFormatObjectDestroy_Private(ctx->ops, &ctx->fmt));
  PetscCall(PetscFree(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGPUFormatGetCtx_Private(Mat A, Mat_GPUFormat **ctx)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)A, MATGPUFORMAT_CTX, (void **)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The operations the common layer installs on a matrix of our types (on) or gives back to cuSPARSE (off). Binding
   to the CPU installs SeqAIJ's host operations over the GPU ones, unbinding cuSPARSE's: MatBindToCPU_GPUFormat()
   puts ours back with MatGPUFormatSetGPUOps_Private().
*/
static PetscErrorCode MatGPUFormatSetGPUOps_Private(Mat A, PetscBool on)
{
  PetscFunctionBegin;
  A->ops->mult                  = on ? MatMult_GPUFormat : MatGPUFormatBaseOps.mult;
  A->ops->multadd               = on ? MatMultAdd_GPUFormat : MatGPUFormatBaseOps.multadd;
  A->ops->productsetfromoptions = on ? MatProductSetFromOptions_GPUFormat : MatGPUFormatBaseOps.productsetfromoptions;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The functions composed on a matrix of one of our types (on) or removed from it: MatConvert() from type to the cuSPARSE
   and host types of its kind, and the "anytype" product hook, which PETSc's product dispatch asks for when the operands'
   product operations differ (ours with aijcusparse, aij, dense). One place for the sequential and parallel types.
*/
PetscErrorCode MatGPUFormatComposeFunctions_Private(Mat A, const char *type, const char *cusparse, const char *host, PetscBool on)
{
  const char *targets[] = {cusparse, host};
  char        name[256];

  PetscFunctionBegin;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(targets); i++) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_%s_C", type, targets[i]));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, name, on ? MatConvert_GPUFormat_AIJCUSPARSE : NULL));
  }
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_anytype_C", on ? MatProductSetFromOptions_GPUFormat : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGPUFormatSetOps_Private(Mat A, MatGPUFormatOps *ops, PetscBool on)
{
  PetscFunctionBegin;
  if (!A->boundtocpu) PetscCall(MatGPUFormatSetGPUOps_Private(A, on));
  A->ops->duplicate         = on ? MatDuplicate_GPUFormat : MatGPUFormatBaseOps.duplicate;
  A->ops->copy              = on ? MatCopy_GPUFormat : MatGPUFormatBaseOps.copy;
  A->ops->transpose         = on ? MatTranspose_GPUFormat : MatGPUFormatBaseOps.transpose;
  A->ops->bindtocpu         = on ? MatBindToCPU_GPUFormat : MatGPUFormatBaseOps.bindtocpu;
  A->ops->destroy           = on ? MatDestroy_GPUFormat : MatGPUFormatBaseOps.destroy;
  A->ops->setfromoptions    = on ? MatSetFromOptions_GPUFormat : MatGPUFormatBaseOps.setfromoptions;
  A->ops->view              = on ? MatView_GPUFormat : MatGPUFormatBaseOps.view;
  A->ops->convertfrom       = on ? MatConvertFrom_GPUFormat : MatGPUFormatBaseOps.convertfrom;
  A->ops->getblockdiagonal  = on ? MatGetBlockDiagonal_GPUFormat : MatGPUFormatBaseOps.getblockdiagonal;
  A->ops->getvblockdiagonal = on ? MatGetBlockDiagonal_GPUFormat : MatGPUFormatBaseOps.getvblockdiagonal;
  PetscCall(MatGPUFormatComposeFunctions_Private(A, ops->seqtype, MATSEQAIJCUSPARSE, MATSEQAIJ, on));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new context of the format ops (of a parallel matrix with mpi) with its format object; nothing is kept on an error */
PetscErrorCode MatGPUFormatCtxCreate_Private(MatGPUFormatOps *ops, PetscBool mpi, Mat_GPUFormat **ctx)
{
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscNew(ctx));
  (*ctx)->ops        = ops;
  (*ctx)->mpi        = mpi;
  (*ctx)->buildafter = mpi ? 0 : ops->build_after;
  ierr               = ops->create(&(*ctx)->fmt);
  if (ierr) PetscCall(PetscFree(*ctx)); /* out of host memory */
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Turns a MATSEQAIJCUSPARSE matrix (assembled or not) into the format's type, in place */
PetscErrorCode MatGPUFormatConvertInPlace_Private(Mat A, MatGPUFormatOps *ops)
{
  Mat_GPUFormat *ctx;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatGetBaseOps_Private());
  PetscCall(MatGPUFormatCtxCreate_Private(ops, PETSC_FALSE, &ctx));
  PetscCall(PetscObjectContainerCompose((PetscObject)A, MATGPUFORMAT_CTX, ctx, MatGPUFormatCtxDestroy));
  PetscCall(MatGPUFormatSetOps_Private(A, ops, PETSC_TRUE));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, ops->seqtype));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Turns a matrix of one of our types back into a plain MATSEQAIJCUSPARSE, in place; frees the format */
PetscErrorCode MatGPUFormatStrip_Private(Mat A)
{
  Mat_GPUFormat *ctx;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatGetCtx_Private(A, &ctx));
  if (ctx) PetscCall(MatGPUFormatSetOps_Private(A, ctx->ops, PETSC_FALSE));
  PetscCall(PetscObjectCompose((PetscObject)A, MATGPUFORMAT_CTX, NULL));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATSEQAIJCUSPARSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ctx is the context of A and A has ctx's type name: A is one of ours (not masquerading as aijcusparse, see gpuformatproduct.c) */
PetscErrorCode MatGPUFormatIsOurs_Private(Mat A, Mat_GPUFormat **ctx)
{
  PetscBool match = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatGetCtx_Private(A, ctx));
  if (*ctx) PetscCall(PetscObjectTypeCompare((PetscObject)A, (*ctx)->mpi ? (*ctx)->ops->mpitype : (*ctx)->ops->seqtype, &match));
  if (!match) *ctx = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   A debug PETSc (PETSC_USE_DEBUG) compiles PetscCheckTypeName(A, MATSEQAIJCUSPARSE) into aijcusparse's accessors
   (MatSeqAIJCUSPARSEGetArrayRead(), ...), which then reject every derived type name. conf/petsc/patch-derived-types.sh
   lets them accept names that begin with seqaijcusparse. Once per process: does this PETSc's aijcusparse accept a
   derived name? If not, the types refuse to be created with a clear error, instead of failing in some later call.
*/
PetscErrorCode MatGPUFormatCheckDebugPETSc_Private(MPI_Comm comm, const char *type, MatGPUFormatOps *ops)
{
#if defined(PETSC_USE_DEBUG) && !defined(MATGPUFORMAT_UNSUPPORTED_BUILD)
  static PetscBool   probed = PETSC_FALSE, accepted = PETSC_FALSE;
  Mat                P;
  const PetscScalar *a;
  char              *name;
  PetscErrorCode     ierr;
#endif

  PetscFunctionBegin;
#if defined(PETSC_USE_DEBUG) && !defined(MATGPUFORMAT_UNSUPPORTED_BUILD)
  if (!probed) {
    PetscCall(MatCreate(PETSC_COMM_SELF, &P));
    PetscCall(MatSetSizes(P, 1, 1, 1, 1));
    PetscCall(MatSetType(P, MATSEQAIJCUSPARSE));
    PetscCall(MatSeqAIJSetPreallocation(P, 1, NULL));
    PetscCall(MatSetValue(P, 0, 0, 1.0, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(P, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(P, MAT_FINAL_ASSEMBLY));
    name                        = ((PetscObject)P)->type_name; /* the derived name, for the one call */
    ((PetscObject)P)->type_name = (char *)ops->seqtype;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatSeqAIJCUSPARSEGetArrayRead(P, &a);
    if (!ierr) ierr = MatSeqAIJCUSPARSERestoreArrayRead(P, &a);
    PetscCall(PetscPopErrorHandler());
    ((PetscObject)P)->type_name = name;
    PetscCall(MatDestroy(&P));
    accepted = (PetscBool)(ierr == PETSC_SUCCESS);
    probed   = PETSC_TRUE;
    PetscCall(PetscInfo(NULL, "This debug PETSc's aijcusparse %s derived type names\n", accepted ? "accepts" : "rejects"));
  }
  PetscCheck(accepted, comm, PETSC_ERR_SUP, "Matrix type %s needs an optimized PETSc (--with-debugging=0), or a debug PETSc whose aijcusparse accepts derived types: this one's debug checks want the exact name seqaijcusparse (petsc-gpuformats' conf/petsc/patch-derived-types.sh patches PETSc's source)", type);
#else
  (void)comm;
  (void)type;
  (void)ops;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCreate_SeqGPUFormat_Private(Mat A, MatGPUFormatOps *ops)
{
  PetscFunctionBegin;
#if defined(MATGPUFORMAT_UNSUPPORTED_BUILD)
  SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "Matrix type %s needs a PETSc configured with real double-precision scalars and 32-bit PetscInt", ops->seqtype);
#else
  PetscCall(MatGPUFormatCheckDebugPETSc_Private(PetscObjectComm((PetscObject)A), ops->seqtype, ops));
  PetscCall(MatCreate_SeqAIJCUSPARSE(A));
  PetscCall(MatGPUFormatConvertInPlace_Private(A, ops)); /* options: at MatSetFromOptions(), as for every PETSc type */
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGPUFormatGetFormat_Private(Mat A, MatGPUFormatOps *ops, void **fmt)
{
  Mat_GPUFormat *ctx;

  PetscFunctionBegin;
  *fmt = NULL;
  PetscCall(MatGPUFormatGetCtx_Private(A, &ctx));
  if (ctx && ctx->ops == ops) *fmt = ctx->fmt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The format object of A, which must be of the sequential type of ops (the formats' getters): else an error naming both */
PetscErrorCode MatGPUFormatRequireFormat_Private(Mat A, MatGPUFormatOps *ops, void **fmt)
{
  PetscFunctionBegin;
  PetscCall(MatGPUFormatGetFormat_Private(A, ops, fmt));
  PetscCheck(*fmt, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Matrix of type %s is not %s", ((PetscObject)A)->type_name, ops->seqtype);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Forces a rebuild at the next product, after a parameter change */
PetscErrorCode MatGPUFormatInvalidate_Private(Mat A)
{
  Mat_GPUFormat *ctx;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatGetCtx_Private(A, &ctx));
  if (ctx) {
    ctx->built         = PETSC_FALSE;
    ctx->paramschanged = PETSC_TRUE;
  }
  if (ctx && ctx->mpi) PetscCall(MatGPUFormatMPIPropagateParams_Private(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The options of every type, -mat_gpuformat_<param> */
PetscErrorCode MatGPUFormatCommonOptions_Private(Mat_GPUFormat *ctx, MatGPUFormatOptionItems PetscOptionsObject)
{
  PetscInt minrows = ctx->product_min_rows;

  PetscFunctionBegin;
  PetscCall(PetscOptionsInt("-mat_gpuformat_product_min_rows", "Products (MatPtAP(), MatMatMult(), ...) of this matrix with fewer rows stay aijcusparse", "MatProductSetFromOptions", minrows, &minrows, NULL));
  PetscCheck(minrows >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_gpuformat_product_min_rows %" PetscInt_FMT " must be at least 0", minrows);
  ctx->product_min_rows = minrows;
  if (!ctx->mpi) {
    PetscInt after = ctx->buildafter;

    PetscCall(PetscOptionsInt("-mat_gpuformat_build_after", "Products through cuSPARSE's CSR (aijcusparse's product) after each change of the nonzero pattern before the format is built; one process", "MatMult", after, &after, NULL));
    PetscCheck(after >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_gpuformat_build_after %" PetscInt_FMT " must be at least 0", after);
    ctx->buildafter = after;
  }
  if (ctx->mpi) {
    PetscBool offdiag = ctx->offdiag;

    PetscCall(PetscOptionsBool("-mat_gpuformat_offdiag", "The off-diagonal blocks of a parallel matrix in the format too (else cuSPARSE's CSR)", "MatSetFromOptions", offdiag, &offdiag, NULL));
    if (offdiag != ctx->offdiag) ctx->syncneeded = PETSC_TRUE; /* every process builds the off-diagonal block's format together */
    ctx->offdiag = offdiag;
  }
  if (ctx->mpi) {
    PetscBool overlap = ctx->overlap;

    PetscCall(PetscOptionsBool("-mat_gpuformat_overlap", "MatMult() of a parallel matrix runs the diagonal block's product on a stream of its own during the whole ghost scatter (else mpiaijcusparse's MatMult())", "MatMult", overlap, &overlap, NULL));
    if (overlap != ctx->overlap) ctx->syncneeded = PETSC_TRUE; /* every process sets up the scatter at the next product */
    ctx->overlap = overlap;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Reads the options of every type and of the format (with A's prefix) inside an options block, and applies them: a
   parameter of the format that changed invalidates the format (and a parallel matrix's blocks take it); otherwise a
   parallel matrix's blocks only follow -mat_gpuformat_offdiag. Options are read here, at a conversion to one of our
   types and in MatSetFromOptions(), never in a product.
*/
PetscErrorCode MatGPUFormatSetFromOptions_Private(Mat A, Mat_GPUFormat *ctx, MatGPUFormatOptionItems PetscOptionsObject)
{
  void          *before;
  PetscBool      same = PETSC_FALSE;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(ctx->ops->create(&before));
  ierr = ctx->ops->copyparams(ctx->fmt, before);
  if (!ierr) {
    ierr = MatGPUFormatCommonOptions_Private(ctx, PetscOptionsObject);
    if (!ierr) ierr = ctx->ops->setfromoptions(ctx->fmt, PetscOptionsObject);
    /* an out-of-range value: the parameters stay those before (the common ones are assigned only when valid) */
    if (ierr) PetscCall(ctx->ops->copyparams(before, ctx->fmt));
    else ierr = ctx->ops->sameparams(before, ctx->fmt, &same);
  }
  PetscCall(MatGPUFormatObjectDestroy_Private(ctx->ops, &before)); /* a fresh object: no device data; freed on every path */
  PetscCall(ierr);
  if (!same) PetscCall(MatGPUFormatInvalidate_Private(A)); /* rebuilt at the next product; not when no parameter changed */
  else if (ctx->mpi) PetscCall(MatGPUFormatMPISyncBlocks_Private(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads the options of a matrix outside MatSetFromOptions(): at its conversion to one of our types */
PetscErrorCode MatGPUFormatReadOptions_Private(Mat A, Mat_GPUFormat *ctx)
{
  PetscBool printed;

  PetscFunctionBegin;
  printed = ((PetscObject)A)->optionsprinted;
  PetscObjectOptionsBegin((PetscObject)A);
  PetscCall(MatGPUFormatSetFromOptions_Private(A, ctx, PetscOptionsObject));
  PetscOptionsEnd();
  ((PetscObject)A)->optionsprinted = printed; /* MatSetFromOptions() -help still prints the options of A afterwards */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* B (of ctx's format, freshly converted) takes the parameters of the matrix whose context is ctx */
PetscErrorCode MatGPUFormatCopyParams_Private(Mat_GPUFormat *ctx, Mat B)
{
  Mat_GPUFormat *bctx;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatGetCtx_Private(B, &bctx));
  PetscCheck(bctx && bctx->ops == ctx->ops, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Parameters of %s copied to a matrix of type %s", ctx->ops->seqtype, ((PetscObject)B)->type_name);
  PetscCall(ctx->ops->copyparams(ctx->fmt, bctx->fmt));
  bctx->product_min_rows = ctx->product_min_rows;
  bctx->buildafter       = ctx->mpi ? 0 : ctx->buildafter; /* a parallel matrix's blocks build at once: every process agrees */
  if (bctx->mpi) {
    bctx->offdiag = ctx->offdiag;
    bctx->overlap = ctx->overlap;
    PetscCall(MatGPUFormatMPIPropagateParams_Private(B));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGPUFormatNonzeros_Private(Mat A, PetscInt *nnz)
{
  MatInfo info;

  PetscFunctionBegin;
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  *nnz = (PetscInt)info.nz_used;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if !defined(MATGPUFORMAT_UNSUPPORTED_BUILD)
/* The build from the device CSR: its row statistics, then the format's own build */
static PetscErrorCode MatGPUFormatBuildSteps(Mat_GPUFormat *ctx, MatGPUFormatCSR *csr)
{
  PetscFunctionBegin;
  PetscCall(MatGPUFormatRowStats_Private(ctx->ops->title, csr->m, csr->rowptr, csr->stream, &csr->stats));
  PetscCheck(csr->stats.nnz == ctx->nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Device CSR has %" PetscInt_FMT " entries, host %" PetscInt_FMT, csr->stats.nnz, ctx->nnz);
  PetscCall(MatGPUFormatBuildPhase_Private(csr, "row statistics"));
  csr->nnz    = ctx->nnz;
  ctx->nzrows = csr->stats.nzrows;
  PetscCall(ctx->ops->build(ctx->fmt, csr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The build, between the brackets of its temporaries (and its allocations' count, for -info) */
static PetscErrorCode MatGPUFormatBuildFromCSR_Private(Mat_GPUFormat *ctx, MatGPUFormatCSR *csr, MatGPUFormatPhases *phases)
{
  PetscErrorCode ierr, ferr;

  PetscFunctionBegin;
  MatGPUFormatCurrentPhases = phases;
  PetscCall(MatGPUFormatBuildTemporariesBegin_Private());
  ierr = MatGPUFormatBuildSteps(ctx, csr);
  /* the temporaries kept with cudaMalloc(), on every path; a failure there is reported unless the build's own came first */
  ferr                      = MatGPUFormatBuildTemporariesEnd_Private();
  MatGPUFormatCurrentPhases = NULL;
  PetscCall(ierr);
  PetscCall(ferr);
  /* a build waits for its kernels (its time is recorded, and their errors belong to it); a refresh stays asynchronous,
     ordered before the product on the same stream as a product is */
  PetscCallCUDA(cudaStreamSynchronize(csr->stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The format from the device CSR of A: built, or its values refreshed; the accessors are closed on every path */
static PetscErrorCode MatGPUFormatFromCSR_Private(Mat A, Mat_GPUFormat *ctx, PetscBool build, MatGPUFormatCSR *csr, MatGPUFormatPhases *phases)
{
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJCUSPARSEGetIJ(A, PETSC_FALSE, &csr->rowptr, &csr->colind));
  ierr = MatSeqAIJCUSPARSEGetArrayRead(A, &csr->val);
  if (ierr) {
    PetscCall(MatSeqAIJCUSPARSERestoreIJ(A, PETSC_FALSE, &csr->rowptr, &csr->colind));
    PetscCall(ierr);
  }
  ierr = PetscGetCurrentCUDAStream(&csr->stream);
  if (!ierr && build) {
    ierr = MatGPUFormatBuildPhase_Private(csr, "device CSR");
    if (!ierr) ierr = MatGPUFormatBuildFromCSR_Private(ctx, csr, phases);
  } else if (!ierr) {
    csr->nnz = ctx->nnz;
    ierr     = ctx->ops->refresh(ctx->fmt, csr);
  }
  PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(A, &csr->val));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(A, PETSC_FALSE, &csr->rowptr, &csr->colind));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/*
   The nonzero state and id of A, and whether its format needs a build: none yet, or a new nonzero pattern. MatHeaderMerge()
   (MatAXPY() with a new pattern, MatTranspose() in place) puts the data of another matrix under A and brings A's old
   context back with it: a nonzero state of that other matrix is not comparable with ours, its id differs
*/
static PetscErrorCode MatGPUFormatNeedsBuild_Private(Mat A, const Mat_GPUFormat *ctx, PetscObjectState *nzstate, PetscObjectId *id, PetscBool *build)
{
  PetscFunctionBegin;
  PetscCall(MatGetNonzeroState(A, nzstate));
  PetscCall(PetscObjectGetId((PetscObject)A, id));
  *build = (PetscBool)(!ctx->built || *nzstate != ctx->nzstate || *id != ctx->id);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Brings the format up to date with the matrix: a full build after a change of the nonzero pattern (or
   of a parameter), a values-only refresh after a change of values, nothing otherwise. Empty matrices
   have no format. With defer (a product follows on PETSc's stream) and a format with multrefresh(), a
   values-only refresh is left to that product (ctx->refreshpending); without defer a pending one is done.
*/
static PetscErrorCode MatGPUFormatUpdate_Private(Mat A, Mat_GPUFormat *ctx, PetscBool defer)
{
  PetscObjectState nzstate, state;
  PetscObjectId    id;
  PetscBool        build = PETSC_FALSE, refresh;
  PetscErrorCode   ierr  = PETSC_SUCCESS;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatNeedsBuild_Private(A, ctx, &nzstate, &id, &build));
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  refresh = (PetscBool)(!build && (state != ctx->state || A->offloadmask == PETSC_OFFLOAD_CPU || (ctx->refreshpending && !defer)));
  if (!build && !refresh) PetscFunctionReturn(PETSC_SUCCESS);
  if (!build && ctx->declined) { /* the products are cuSPARSE's, which take the new values themselves */
    PetscCall(PetscObjectStateGet((PetscObject)A, &ctx->state));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  ctx->refreshpending = PETSC_FALSE; /* a build takes the values; a refresh is done below or left to the product */
  if (refresh && defer && ctx->ops->multrefresh && ctx->nnz && A->rmap->n) {
    ctx->refreshpending = PETSC_TRUE; /* counted (nrefreshes, the <Title>Values event) when the product does it */
    PetscCall(PetscObjectStateGet((PetscObject)A, &ctx->state));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (build) {
    PetscCall(ctx->ops->reset(ctx->fmt));
    ctx->declined = PETSC_FALSE;
    PetscCall(MatGPUFormatNonzeros_Private(A, &ctx->nnz));
    PetscCheck(ctx->nnz <= MATGPUFORMAT_MAX_NNZ, PETSC_COMM_SELF, PETSC_ERR_SUP, "Matrix type %s supports at most %d entries, this matrix has %" PetscInt_FMT "; it can be used as MATSEQAIJCUSPARSE", ((PetscObject)A)->type_name, MATGPUFORMAT_MAX_NNZ, ctx->nnz);
    ctx->nzrows = 0;
  }
  if (ctx->nnz && A->rmap->n) {
#if !defined(MATGPUFORMAT_UNSUPPORTED_BUILD)
    MatGPUFormatCSR    csr;
    MatGPUFormatPhases phases;
    PetscLogDouble     t0, t1;

    PetscCall(PetscLogEventBegin(build ? ctx->ops->event_build : ctx->ops->event_values, A, 0, 0, 0));
    PetscCall(PetscArrayzero(&phases, 1));
    if (build) PetscCall(PetscInfoEnabled(MAT_CLASSID, &phases.on));
    if (phases.on) PetscCallCUDA(cudaDeviceSynchronize()); /* the build's phases alone */
    PetscCall(PetscTime(&t0));
    phases.last = t0;
    PetscCall(PetscArrayzero(&csr, 1));
    csr.m      = A->rmap->n;
    csr.n      = A->cmap->n;
    csr.phases = build ? &phases : NULL;
    /* an error, out of device memory among them, is handled below, after the log event is closed */
    ierr = MatGPUFormatFromCSR_Private(A, ctx, build, &csr, &phases);
    PetscCall(PetscTime(&t1));
    PetscCall(PetscLogEventEnd(build ? ctx->ops->event_build : ctx->ops->event_values, A, 0, 0, 0));
    if (ierr) {
      /* nothing stays held: reset() frees what the build had allocated, its temporaries too; out of device memory, the
         products go through cuSPARSE's CSR until the pattern or a parameter changes (MatGPUFormatFallback_Private()) */
      PetscCall(ctx->ops->reset(ctx->fmt));
      ctx->built = PETSC_FALSE;
      if (ierr == PETSC_ERR_MEM) {
        PetscErrorCode terr;

        ctx->oom           = PETSC_TRUE;
        ctx->oominfo       = PETSC_FALSE;
        ctx->paramschanged = PETSC_FALSE;
        ctx->oomnzstate    = nzstate;
        ctx->oomid         = id;
        /* the stream-ordered pool (the default) keeps nothing either; the out-of-memory error stays the one reported */
        terr = MatGPUFormatReleaseCachedMemory_Private();
        (void)terr;
      }
      PetscCall(ierr);
    }
    if (build) ctx->buildtime = t1 - t0;
    if (build && ctx->ops->declined) {
      PetscCall(ctx->ops->declined(ctx->fmt, &ctx->declined));
      if (ctx->declined) PetscCall(PetscInfo(A, "%s: the format declined this matrix (-mat_view ::ascii_info says why); products use cuSPARSE's CSR (aijcusparse's product) until the nonzero pattern or a parameter changes\n", ((PetscObject)A)->type_name));
    }
    if (phases.on && !ierr) {
      char   line[1024] = "";
      size_t len;

      for (PetscInt i = 0; i < phases.n; i++) {
        PetscCall(PetscStrlen(line, &len));
        PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, "%s%s %.3f ms", i ? ", " : "", phases.name[i], 1e3 * phases.seconds[i]));
      }
      PetscCall(PetscInfo(A, "%s build of %" PetscInt_FMT " rows, %" PetscInt_FMT " entries: %.3f ms; phases: %s; %" PetscInt_FMT " device allocations (%.1f MB) and %" PetscInt_FMT " frees took %.3f ms\n", ctx->ops->title, csr.m, ctx->nnz, 1e3 * ctx->buildtime, line, phases.mallocs, 1e-6 * phases.mallocbytes, phases.frees, 1e3 * phases.mallocseconds));
    }
#endif
  }
  if (build) ctx->nbuilds++;
  else ctx->nrefreshes++;
  ctx->built = PETSC_TRUE;
  /* read the states after the accessors above, which may have moved values to the device */
  PetscCall(MatGetNonzeroState(A, &ctx->nzstate));
  PetscCall(PetscObjectStateGet((PetscObject)A, &ctx->state));
  ctx->id = id;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The last build of A ran out of device memory, and neither the pattern nor a parameter has changed since: its products
   go through cuSPARSE's CSR (one PetscInfo()); else the next product builds again */
static PetscErrorCode MatGPUFormatFallback_Private(Mat A, Mat_GPUFormat *ctx, PetscBool *fallback)
{
  PetscObjectState nzstate;
  PetscObjectId    id;

  PetscFunctionBegin;
  *fallback = PETSC_FALSE;
  if (ctx->declined && ctx->built) { /* declined at the last build, which a new pattern or parameter redoes */
    PetscCall(MatGetNonzeroState(A, &nzstate));
    PetscCall(PetscObjectGetId((PetscObject)A, &id));
    *fallback = (PetscBool)(nzstate == ctx->nzstate && id == ctx->id);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!ctx->oom) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetNonzeroState(A, &nzstate));
  PetscCall(PetscObjectGetId((PetscObject)A, &id));
  if (nzstate == ctx->oomnzstate && id == ctx->oomid && !ctx->paramschanged) {
    if (!ctx->oominfo) {
      PetscCall(PetscInfo(A, "%s: the format did not fit in device memory; products use cuSPARSE's CSR (aijcusparse's product) until the nonzero pattern or a parameter changes\n", ((PetscObject)A)->type_name));
      ctx->oominfo = PETSC_TRUE;
    }
    *fallback = PETSC_TRUE;
  } else ctx->oom = ctx->oominfo = ctx->paramschanged = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Whether the next product of A would wait for the build (MatGPUFormatWait_Private() without counting it; the viewer's),
   the products of this pattern that have waited so far, and whether its wait has started (else the next product starts it)
*/
static PetscErrorCode MatGPUFormatWaiting_Private(Mat A, Mat_GPUFormat *ctx, PetscBool *waiting, PetscInt *done, PetscBool *started)
{
  PetscObjectState nzstate;
  PetscObjectId    id;
  PetscBool        build = PETSC_FALSE, same;

  PetscFunctionBegin;
  *waiting = PETSC_FALSE;
  *done    = 0;
  if (started) *started = PETSC_FALSE;
  if (ctx->buildafter <= 0 || ctx->mpi) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGPUFormatNeedsBuild_Private(A, ctx, &nzstate, &id, &build));
  if (!build) PetscFunctionReturn(PETSC_SUCCESS);
  same     = (PetscBool)(ctx->waitset && nzstate == ctx->waitnzstate && id == ctx->waitid);
  *done    = same ? ctx->waited : 0;
  *waiting = (PetscBool)(*done < ctx->buildafter);
  if (started) *started = same;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   -mat_gpuformat_build_after: whether this product of A (on one process) waits for the build and goes through cuSPARSE's
   CSR: the first ctx->buildafter products after each change of the nonzero pattern do, counted here once per product
   (staged: the inner call of a staged product, which follows the outer call's answer, ctx->waitnow). A parameter
   changed after the wait builds at once; a change of values alone neither restarts nor ends the wait
*/
static PetscErrorCode MatGPUFormatWait_Private(Mat A, Mat_GPUFormat *ctx, PetscBool staged, PetscBool *wait)
{
  PetscInt  done;
  PetscBool started;

  PetscFunctionBegin;
  if (staged) {
    *wait = ctx->waitnow;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  ctx->waitnow = PETSC_FALSE;
  PetscCall(MatGPUFormatWaiting_Private(A, ctx, wait, &done, &started));
  if (!*wait) PetscFunctionReturn(PETSC_SUCCESS);
  if (!started) { /* a new pattern: the wait starts */
    ctx->waitset = PETSC_TRUE;
    PetscCall(MatGetNonzeroState(A, &ctx->waitnzstate));
    PetscCall(PetscObjectGetId((PetscObject)A, &ctx->waitid));
    ctx->waited = 0;
    PetscCall(PetscInfo(A, "%s: the first %" PetscInt_FMT " products of this nonzero pattern use cuSPARSE's CSR (aijcusparse's product), then the format is built (-mat_gpuformat_build_after)\n", ((PetscObject)A)->type_name, ctx->buildafter));
  }
  ctx->waited++;
  ctx->waitnow = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Brings the format of A (of ours, not bound to the CPU) up to date, unless its products fall back to cuSPARSE's;
   the parallel products call it for their blocks before they start, so that every process learns of an error */
PetscErrorCode MatGPUFormatPrepare_Private(Mat A)
{
  Mat_GPUFormat *ctx;
  PetscBool      fallback;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatIsOurs_Private(A, &ctx));
  if (!ctx || ctx->mpi || A->boundtocpu) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGPUFormatFallback_Private(A, ctx, &fallback));
  if (!fallback) PetscCall(MatGPUFormatUpdate_Private(A, ctx, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* v is a CUDA vector (or NULL), whose array the kernels can read or write on the device */
PetscErrorCode MatGPUFormatVecIsCUDA_Private(Vec v, PetscBool *cuda)
{
  PetscFunctionBegin;
  *cuda = PETSC_TRUE;
  if (v) PetscCall(PetscObjectTypeCompareAny((PetscObject)v, cuda, VECSEQCUDA, VECMPICUDA, ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   dst = src, or dst = 0 when src is NULL, on the local arrays only. A parallel matrix (MATMPIAIJCUSPARSE) hands its
   parallel vectors to its blocks' products, which must use their local parts alone: VecSet() is collective (a debug
   PETSc checks the value over the communicator, and waits for ranks that never call it) and VecCopy() wants vectors of
   one type and communicator.
*/
static PetscErrorCode MatGPUFormatLocalCopy_Private(Vec src, Vec dst)
{
  const PetscScalar *sa;
  PetscScalar       *da;
  PetscMemType       ms = PETSC_MEMTYPE_HOST, md;
  PetscInt           n;
  cudaStream_t       stream;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(dst, &n));
  if (!n) { /* nothing to copy, but dst changed as on the other processes: its cached norms go (see MatMultKernel_GPUFormat()) */
    PetscCall(PetscObjectStateIncrease((PetscObject)dst));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(VecGetArrayWriteAndMemType(dst, &da, &md));
  if (src) {
    PetscCall(VecGetArrayReadAndMemType(src, &sa, &ms));
    if (PetscMemTypeHost(ms) && PetscMemTypeHost(md)) PetscCall(PetscArraycpy(da, sa, n));
    else {
      PetscCallCUDA(cudaMemcpyAsync(da, sa, (size_t)n * sizeof(PetscScalar), cudaMemcpyDefault, stream));
      if (PetscMemTypeHost(ms) || PetscMemTypeHost(md)) PetscCallCUDA(cudaStreamSynchronize(stream)); /* a host array is used next */
    }
    PetscCall(VecRestoreArrayReadAndMemType(src, &sa));
  } else if (PetscMemTypeDevice(md)) PetscCallCUDA(cudaMemsetAsync(da, 0, (size_t)n * sizeof(PetscScalar), stream));
  else PetscCall(PetscArrayzero(da, n));
  PetscCall(VecRestoreArrayWriteAndMemType(dst, &da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if !defined(MATGPUFORMAT_UNSUPPORTED_BUILD)
/* The product that also takes A's new values from its device CSR (the format's multrefresh(); the accessors are
   closed on every path). The <Title>Values event, nested in MatMult, times that whole product; the GPU timer encloses
   the kernel alone, not the accessors (which may copy the values from the host and wait for it) */
static PetscErrorCode MatGPUFormatMultRefresh_Private(Mat A, Mat_GPUFormat *ctx, const PetscScalar *xa, const PetscScalar *ya, PetscScalar *za, cudaStream_t stream)
{
  MatGPUFormatCSR csr;
  PetscErrorCode  ierr;

  PetscFunctionBegin;
  PetscCall(PetscArrayzero(&csr, 1));
  csr.m      = A->rmap->n;
  csr.n      = A->cmap->n;
  csr.nnz    = ctx->nnz;
  csr.stream = stream;
  PetscCall(MatSeqAIJCUSPARSEGetIJ(A, PETSC_FALSE, &csr.rowptr, &csr.colind));
  ierr = MatSeqAIJCUSPARSEGetArrayRead(A, &csr.val);
  if (!ierr) {
    PetscCall(PetscLogEventBegin(ctx->ops->event_values, A, 0, 0, 0));
    PetscCall(PetscLogGpuTimeBegin());
    ierr = ctx->ops->multrefresh(ctx->fmt, &csr, xa, ya, za, stream);
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogEventEnd(ctx->ops->event_values, A, 0, 0, 0));
    PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(A, &csr.val));
  }
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(A, PETSC_FALSE, &csr.rowptr, &csr.colind));
  PetscCall(ierr);
  ctx->refreshpending = PETSC_FALSE;
  ctx->nrefreshes++;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode MatMultKernel_GPUFormat(Mat, Vec, Vec, Vec, PetscBool);

/* z = y + A x (y NULL: z = A x) through CUDA copies of x, y and z: for host vectors (VECSEQ, ...) and CUDA vectors bound
   to the CPU. The copies are destroyed on every path: a build in the product may fail (out of device memory) */
static PetscErrorCode MatMultStaged_GPUFormat(Mat A, Mat_GPUFormat *ctx, Vec x, Vec y, Vec z)
{
  Vec            xw = NULL, yw = NULL, zw = NULL;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  if (!ctx->hostinfo) {
    PetscCall(PetscInfo(A, "%s multiplies host vectors through CUDA copies of them; vectors of MatCreateVecs() (or -vec_type cuda) avoid the copies\n", ((PetscObject)A)->type_name));
    ctx->hostinfo = PETSC_TRUE;
  }
  ierr = VecCreateSeqCUDA(PETSC_COMM_SELF, A->cmap->n, &xw);
  if (!ierr) ierr = VecCreateSeqCUDA(PETSC_COMM_SELF, A->rmap->n, &zw);
  if (!ierr) ierr = MatGPUFormatLocalCopy_Private(x, xw);
  if (!ierr && y) ierr = VecDuplicate(zw, &yw);
  if (!ierr && y) ierr = MatGPUFormatLocalCopy_Private(y, yw);
  if (!ierr) ierr = MatMultKernel_GPUFormat(A, xw, yw, zw, PETSC_TRUE);
  if (!ierr) ierr = MatGPUFormatLocalCopy_Private(zw, z);
  PetscCall(VecDestroy(&xw));
  PetscCall(VecDestroy(&yw));
  PetscCall(VecDestroy(&zw));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = y + A x (y NULL: z = A x). The vectors' types are not compared on the way of a product: their arrays' memory
   types say whether the kernel can use them, else the product is staged (staged: this is the staged product, whose
   vectors are CUDA vectors of its own) */
static PetscErrorCode MatMultKernel_GPUFormat(Mat A, Vec x, Vec y, Vec z, PetscBool staged)
{
  Mat_GPUFormat     *ctx;
  const PetscScalar *xa;
  const PetscScalar *ya = NULL;
  PetscScalar       *za;
  PetscMemType       mx, my = PETSC_MEMTYPE_DEVICE, mz;
  PetscBool          fallback, device;
  PetscErrorCode     ierr = PETSC_SUCCESS;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatGetCtx_Private(A, &ctx));
  PetscCall(MatGPUFormatFallback_Private(A, ctx, &fallback));
  if (!fallback) PetscCall(MatGPUFormatWait_Private(A, ctx, staged, &fallback));
  if (!fallback) {
    PetscCall(MatGPUFormatUpdate_Private(A, ctx, PETSC_TRUE));
    fallback = ctx->declined; /* the build just now declined the matrix */
  }
  if (fallback) { /* cuSPARSE's product, which wants CUDA vectors whose arrays are on the device, not bound to the CPU */
    PetscBool cx, cy, cz, bx = PETSC_FALSE, by = PETSC_FALSE, bz = PETSC_FALSE;

    PetscCall(MatGPUFormatVecIsCUDA_Private(x, &cx));
    PetscCall(MatGPUFormatVecIsCUDA_Private(y, &cy));
    PetscCall(MatGPUFormatVecIsCUDA_Private(z, &cz));
    if (cx) PetscCall(VecBoundToCPU(x, &bx));
    if (y && cy) PetscCall(VecBoundToCPU(y, &by));
    if (cz) PetscCall(VecBoundToCPU(z, &bz));
    if (!cx || !cy || !cz || bx || by || bz) PetscCall(MatMultStaged_GPUFormat(A, ctx, x, y, z));
    else if (y) PetscCall(MatGPUFormatBaseOps.multadd(A, x, y, z));
    else PetscCall(MatGPUFormatBaseOps.mult(A, x, z));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!ctx->nnz || !A->rmap->n) {
    /* z = y, or z = 0. z's state goes up in every case, as a product's output does (through its array) on the processes
       whose blocks have entries: else a norm of the parallel vector cached before stays valid here only, and VecNorm()
       skips its MPI_Allreduce() here alone (a process without rows of a product's result, waiting for ever) */
    if (y != z) PetscCall(MatGPUFormatLocalCopy_Private(y, z));
    else PetscCall(PetscObjectStateIncrease((PetscObject)z));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#if !defined(MATGPUFORMAT_UNSUPPORTED_BUILD)
  PetscCall(VecGetArrayReadAndMemType(x, &xa, &mx));
  if (y == z) {
    PetscCall(VecGetArrayAndMemType(z, &za, &mz));
    ya = za;
    my = mz;
  } else {
    if (y) PetscCall(VecGetArrayReadAndMemType(y, &ya, &my));
    PetscCall(VecGetArrayWriteAndMemType(z, &za, &mz));
  }
  device = (PetscBool)(PetscMemTypeDevice(mx) && PetscMemTypeDevice(my) && PetscMemTypeDevice(mz));
  if (device) { /* an error here (a failed launch) is returned after the arrays are given back */
    cudaStream_t stream;

    ierr = PetscGetCurrentCUDAStream(&stream);
    if (!ierr && ctx->refreshpending) ierr = MatGPUFormatMultRefresh_Private(A, ctx, xa, ya, za, stream);
    else if (!ierr) {
      ierr = PetscLogGpuTimeBegin();
      if (!ierr) ierr = ctx->ops->mult(ctx->fmt, xa, ya, za, stream);
      if (!ierr) ierr = PetscLogGpuTimeEnd();
    }
  }
  PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  if (y == z) PetscCall(VecRestoreArrayAndMemType(z, &za));
  else {
    if (y) PetscCall(VecRestoreArrayReadAndMemType(y, &ya));
    PetscCall(VecRestoreArrayWriteAndMemType(z, &za));
  }
  PetscCall(ierr);
  if (!device) { /* a host vector, or a CUDA vector bound to the CPU */
    PetscCheck(!staged, PetscObjectComm((PetscObject)A), PETSC_ERR_PLIB, "Matrix type %s was given a CUDA vector without a device array", ((PetscObject)A)->type_name);
    PetscCall(MatMultStaged_GPUFormat(A, ctx, x, y, z));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogGpuFlops(y ? 2.0 * ctx->nnz : 2.0 * ctx->nnz - ctx->nzrows));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The product y = A x of a block of a parallel matrix on a stream of its own (stream), which first waits for the work
   queued so far on PETSc's stream (base) through the event ready; *launched is PETSC_FALSE, and nothing is done, when
   A is not of ours, its product falls back to cuSPARSE's, it has no entries, or x or y is not a CUDA vector or has no
   device array (bound to the CPU): the caller then multiplies as usual. Once *launched is PETSC_TRUE, stream holds
   work, also if an error is returned: the caller makes PETSc's stream wait for it before anything reads y. A build
   (after a change of A that the parallel matrix's agreement did not see, see MatGPUFormatMPIPrepare_Private()) can
   fail here: the caller scatters before it passes the error on, so that no other process waits for it.
*/
PetscErrorCode MatGPUFormatMultOnStream_Private(Mat A, Vec x, Vec y, cudaStream_t base, cudaStream_t stream, cudaEvent_t ready, PetscBool *launched)
{
  Mat_GPUFormat *ctx;
  PetscBool      cx, cy, fallback;

  PetscFunctionBegin;
  *launched = PETSC_FALSE;
  PetscCall(MatGPUFormatIsOurs_Private(A, &ctx));
  if (!ctx || ctx->mpi || A->boundtocpu) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGPUFormatVecIsCUDA_Private(x, &cx));
  PetscCall(MatGPUFormatVecIsCUDA_Private(y, &cy));
  if (!cx || !cy) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGPUFormatFallback_Private(A, ctx, &fallback));
  if (fallback) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGPUFormatUpdate_Private(A, ctx, PETSC_FALSE));
  if (ctx->declined || !ctx->nnz || !A->rmap->n) PetscFunctionReturn(PETSC_SUCCESS);
#if !defined(MATGPUFORMAT_UNSUPPORTED_BUILD)
  {
    const PetscScalar *xa;
    PetscScalar       *ya;
    PetscMemType       mx, my;
    PetscErrorCode     ierr = PETSC_SUCCESS;
    cudaError_t        cerr = cudaSuccess;

    PetscCall(VecGetArrayReadAndMemType(x, &xa, &mx));
    PetscCall(VecGetArrayWriteAndMemType(y, &ya, &my));
    if (PetscMemTypeDevice(mx) && PetscMemTypeDevice(my)) { /* else a vector bound to the CPU: the caller's product */
      /* x's values, and every earlier use of y, on PETSc's stream */
      cerr = cudaEventRecord(ready, base);
      if (cerr == cudaSuccess) cerr = cudaStreamWaitEvent(stream, ready, 0);
      if (cerr == cudaSuccess) { /* from here on stream holds work: the caller waits for it, even after an error */
        *launched = PETSC_TRUE;
        ierr      = ctx->ops->mult(ctx->fmt, xa, NULL, ya, stream);
      }
    }
    if (cerr != cudaSuccess) (void)cudaGetLastError(); /* reported here, not again by a later cudaGetLastError() */
    PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
    PetscCall(VecRestoreArrayWriteAndMemType(y, &ya));
    PetscCallCUDA(cerr);
    PetscCall(ierr);
    if (!*launched) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(PetscLogGpuFlops(2.0 * ctx->nnz - ctx->nzrows));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_GPUFormat(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultKernel_GPUFormat(A, x, NULL, y, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_GPUFormat(Mat A, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  PetscCall(MatMultKernel_GPUFormat(A, x, y, z, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDuplicate_GPUFormat(Mat A, MatDuplicateOption op, Mat *B)
{
  Mat_GPUFormat *ctx;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatGetCtx_Private(A, &ctx));
  PetscCall(MatGPUFormatBaseOps.duplicate(A, op, B)); /* a MATSEQAIJCUSPARSE */
  ierr = MatGPUFormatConvertInPlace_Private(*B, ctx->ops);
  if (!ierr) ierr = MatGPUFormatCopyParams_Private(ctx, *B);
  if (ierr) PetscCall(MatDestroy(B)); /* the new matrix is not handed out half made */
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A and B, both SeqAIJ-derived, have the same sizes and nonzero pattern (host CSR: row offsets and column indices); no error */
PetscErrorCode MatGPUFormatSamePattern_Private(Mat A, Mat B, PetscBool *same)
{
  const PetscInt *ai, *aj, *bi, *bj;
  PetscInt        am, bm, nza = 0, nzb = 0;
  PetscBool       adone, bdone;

  PetscFunctionBegin;
  *same = PETSC_FALSE;
  PetscCall(MatGPUFormatNonzeros_Private(A, &nza));
  PetscCall(MatGPUFormatNonzeros_Private(B, &nzb));
  if (A->rmap->n != B->rmap->n || A->cmap->n != B->cmap->n || nza != nzb) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &am, &ai, &aj, &adone));
  PetscCall(MatGetRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &bm, &bi, &bj, &bdone));
  PetscCheck(adone && bdone, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No row structure to compare");
  PetscCall(PetscArraycmp(ai, bi, am + 1, same));
  if (*same && nza) PetscCall(PetscArraycmp(aj, bj, nza, same));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &am, &ai, &aj, &adone));
  PetscCall(MatRestoreRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &bm, &bi, &bj, &bdone));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Copies the values of A into B, which has the same nonzero pattern; both are SeqAIJ-derived */
PetscErrorCode MatGPUFormatCopyValues_Private(Mat A, Mat B)
{
  const PetscScalar *a;
  PetscScalar       *b;
  PetscInt           nza, nzb;
  PetscBool          aij, baij;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &aij));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)B, MATSEQAIJ, &baij));
  PetscCheck(aij && baij, PETSC_COMM_SELF, PETSC_ERR_SUP, "MAT_REUSE_MATRIX conversion from %s to %s is not supported; use MAT_INITIAL_MATRIX", ((PetscObject)A)->type_name, ((PetscObject)B)->type_name);
  PetscCall(MatGPUFormatNonzeros_Private(A, &nza));
  PetscCall(MatGPUFormatNonzeros_Private(B, &nzb));
  PetscCheck(A->rmap->n == B->rmap->n && A->cmap->n == B->cmap->n && nza == nzb, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
             "MAT_REUSE_MATRIX needs a matrix of the same nonzero pattern: %" PetscInt_FMT " x %" PetscInt_FMT " with %" PetscInt_FMT " entries, given %" PetscInt_FMT " x %" PetscInt_FMT " with %" PetscInt_FMT,
             A->rmap->n, A->cmap->n, nza, B->rmap->n, B->cmap->n, nzb);
  {
    PetscBool same;

    PetscCall(MatGPUFormatSamePattern_Private(A, B, &same));
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "MAT_REUSE_MATRIX needs a matrix of the same nonzero pattern: the %" PetscInt_FMT " entries of both lie in other places", nza);
  }
  PetscCall(MatSeqAIJGetArrayRead(A, &a));
  PetscCall(MatSeqAIJGetArrayWrite(B, &b));
  PetscCall(PetscArraycpy(b, a, nza));
  PetscCall(MatSeqAIJRestoreArrayWrite(B, &b));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &a));
  B->offloadmask = PETSC_OFFLOAD_CPU;
  PetscCall(PetscObjectStateIncrease((PetscObject)B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc wrote every host value of B without marking its device copy stale: when B is a cuSPARSE matrix (ours included)
   with a device copy, its host values are now the current ones */
PetscErrorCode MatGPUFormatHostValuesCurrent_Private(Mat B)
{
  PetscBool cusparse;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)B, MATSEQAIJCUSPARSE, &cusparse));
  if (cusparse && B->offloadmask != PETSC_OFFLOAD_UNALLOCATED) B->offloadmask = PETSC_OFFLOAD_CPU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCopy_GPUFormat(Mat A, Mat B, MatStructure str)
{
  const PetscScalar *a;

  PetscFunctionBegin;
  /* the base copy reads A's host values: bring them up to date first */
  PetscCall(MatSeqAIJGetArrayRead(A, &a));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &a));
  PetscCall(MatGPUFormatBaseOps.copy(A, B, str));
  /* PETSc 3.22's SeqAIJ copy writes B's host values without marking the device copy stale */
  PetscCall(MatGPUFormatHostValuesCurrent_Private(B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatTranspose_GPUFormat(Mat A, MatReuse reuse, Mat *B)
{
  PetscFunctionBegin;
  PetscCall(MatGPUFormatBaseOps.transpose(A, reuse, B));
  /* with MAT_REUSE_MATRIX, PETSc 3.22's SeqAIJ transpose writes every value of B into its host array without marking
     the device copy stale (the values of an aijcusparse B that was used on the GPU stay the old ones there) */
  if (reuse == MAT_REUSE_MATRIX) PetscCall(MatGPUFormatHostValuesCurrent_Private(*B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatBindToCPU_GPUFormat(Mat A, PetscBool flg)
{
  Mat_GPUFormat *ctx;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatGetCtx_Private(A, &ctx));
  PetscCall(MatGPUFormatBaseOps.bindtocpu(A, flg));
  if (flg) {
    PetscCall(ctx->ops->reset(ctx->fmt));
    ctx->built = PETSC_FALSE;
  } else {
    PetscCall(MatGPUFormatSetGPUOps_Private(A, PETSC_TRUE));
    /* while bound, PETSc's host operations (MatScale, MatDiagonalScale, ...) write the host values without
       marking the device copy stale: after unbinding, the host values are the current ones */
    if (A->offloadmask == PETSC_OFFLOAD_BOTH) A->offloadmask = PETSC_OFFLOAD_CPU;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_GPUFormat(Mat A)
{
  PetscFunctionBegin;
  /* MatHeaderMerge() destroys the data of A with its type name and composed objects hidden: nothing to strip then */
  if (((PetscObject)A)->type_name) PetscCall(MatGPUFormatStrip_Private(A));
  PetscCall(MatGPUFormatBaseOps.destroy(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetFromOptions_GPUFormat(Mat A, MatGPUFormatOptionItems PetscOptionsObject)
{
  Mat_GPUFormat *ctx;
  char           head[64];

  PetscFunctionBegin;
  PetscCall(MatGPUFormatGetCtx_Private(A, &ctx));
  PetscCall(MatGPUFormatBaseOps.setfromoptions(A, PetscOptionsObject));
  PetscCall(PetscSNPrintf(head, sizeof(head), "%s options", ctx->ops->title));
  PetscOptionsHeadBegin(PetscOptionsObject, head);
  PetscCall(MatGPUFormatSetFromOptions_Private(A, ctx, PetscOptionsObject));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_GPUFormat(Mat A, PetscViewer viewer)
{
  Mat_GPUFormat    *ctx;
  PetscBool         isascii, waiting = PETSC_FALSE;
  PetscInt          done = 0;
  PetscViewerFormat format;
  PetscErrorCode    berr = PETSC_SUCCESS;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatBaseOps.view(A, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format != PETSC_VIEWER_ASCII_INFO && format != PETSC_VIEWER_ASCII_INFO_DETAIL) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGPUFormatGetCtx_Private(A, &ctx));
  /* the view builds, to show what the build chose; a build that fails is reported here, not raised: a view may run on
     some processes alone (a block's, through a subviewer), where an error would leave the others waiting */
  if (A->assembled && !A->boundtocpu) PetscCall(MatGPUFormatWaiting_Private(A, ctx, &waiting, &done, NULL));
  if (A->assembled && !A->boundtocpu && !ctx->oom && !waiting) {
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    berr = MatGPUFormatUpdate_Private(A, ctx, PETSC_FALSE);
    PetscCall(PetscPopErrorHandler());
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s GPU format:\n", ctx->ops->title));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  if (ctx->oom) PetscCall(PetscViewerASCIIPrintf(viewer, "not built: it did not fit in device memory; products use cuSPARSE's CSR until the pattern or a parameter changes\n"));
  else if (waiting) PetscCall(PetscViewerASCIIPrintf(viewer, "not built yet: the first %" PetscInt_FMT " products of this nonzero pattern use cuSPARSE's CSR (-mat_gpuformat_build_after), %" PetscInt_FMT " so far; the view does not build it\n", ctx->buildafter, done));
  else if (berr) PetscCall(PetscViewerASCIIPrintf(viewer, "not built: the build failed (PETSc error %d); the next product builds again and reports the error\n", (int)berr));
  else if (!ctx->built) PetscCall(PetscViewerASCIIPrintf(viewer, "not built (the matrix is bound to the CPU or not assembled)\n"));
  else if (!ctx->nnz || !A->rmap->n) PetscCall(PetscViewerASCIIPrintf(viewer, "empty matrix: products need no format\n"));
  else if (ctx->declined) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "not built: the format declined this matrix; products use cuSPARSE's CSR (aijcusparse's product) until the pattern or a parameter changes\n"));
    PetscCall(ctx->ops->view(ctx->fmt, viewer));
  } else {
    PetscLogDouble bytes, csrbytes = 12.0 * ctx->nnz + 4.0 * (A->rmap->n + 1);
    PetscBool      usepool;

    PetscCall(ctx->ops->view(ctx->fmt, viewer));
    PetscCall(ctx->ops->memory(ctx->fmt, &bytes));
    PetscCall(PetscViewerASCIIPrintf(viewer, "device memory: %.0f bytes, %.3f x the CSR arrays (%.0f bytes)\n", bytes, bytes / csrbytes, csrbytes));
    PetscCall(MatGPUFormatStreamAlloc_Private(&usepool));
    PetscCall(PetscViewerASCIIPrintf(viewer, "last build: %.3g s; builds %" PetscInt_FMT ", value refreshes %" PetscInt_FMT "; device memory from %s\n", ctx->buildtime, ctx->nbuilds, ctx->nrefreshes, usepool ? "the stream-ordered pool" : "cudaMalloc()"));
  }
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What the conversions need of a sequential matrix of ours (gpuformatmpi.c has the parallel one) */
const MatGPUFormatKind MatGPUFormatSeqKind = {MATSEQAIJCUSPARSE, MATSEQAIJ, MatGPUFormatConvertInPlace_Private, MatGPUFormatStrip_Private, MatGPUFormatCopyValues_Private};

/*
   MatConvert() into one of our types, from any matrix that converts to MATSEQAIJCUSPARSE or MATMPIAIJCUSPARSE
   (MATSEQAIJ, MATMPIAIJ, aijcusparse, our other types); PETSc finds it as the target type's convertfrom. The kind is the
   one named (our sequential or parallel type name, as MatConvert() to seqaijcusparse or mpiaijcusparse gives that kind
   on any number of processes); for the generic name (cmrs) it follows the source: its type name for the AIJ kinds (a
   parallel source on one process gives the parallel type), its communicator for the others (a MATTRANSPOSEVIRTUAL or a
   MATSHELL, which PETSc converts through MatConvert_Basic()). With MAT_REUSE_MATRIX, the kind of the matrix reused.
*/
PetscErrorCode MatConvertFrom_GPUFormat(Mat A, MatType newtype, MatReuse reuse, Mat *newmat)
{
  const MatGPUFormatKind *kind;
  MatGPUFormatOps        *ops;
  Mat_GPUFormat          *actx;
  PetscBool               cusparse, mpi, seq;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatFind_Private(newtype, &ops));
  PetscCheck(ops, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "Unknown petsc-gpuformats type %s", newtype);
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(PetscStrbeginswith(((PetscObject)*newmat)->type_name, "mpi", &mpi));
  } else {
    PetscCall(PetscStrcmp(newtype, ops->mpitype, &mpi));
    PetscCall(PetscStrcmp(newtype, ops->seqtype, &seq));
    if (!mpi && !seq) {
      PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, "mpi", &mpi));
      PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, "seq", &seq));
      if (!mpi && !seq) {
        PetscMPIInt size;

        PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
        mpi = (PetscBool)(size > 1);
      }
    }
  }
  kind = mpi ? &MatGPUFormatMPIKind : &MatGPUFormatSeqKind;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(kind->copyvalues(A, *newmat));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) {
    PetscCall(MatConvert(A, kind->cusparse, MAT_INITIAL_MATRIX, newmat));
  } else {
    PetscCall(MatGPUFormatGetCtx_Private(A, &actx));
    if (actx) PetscCall((actx->mpi ? &MatGPUFormatMPIKind : &MatGPUFormatSeqKind)->strip(A)); /* one of our other types, of its own kind */
    PetscCall(PetscObjectTypeCompare((PetscObject)A, kind->cusparse, &cusparse));
    if (!cusparse) PetscCall(MatConvert(A, kind->cusparse, MAT_INPLACE_MATRIX, &A));
    *newmat = A;
  }
  PetscCall(kind->convertinplace(*newmat, ops));
  PetscCall(MatGPUFormatGetCtx_Private(*newmat, &actx));
  PetscCall(MatGPUFormatReadOptions_Private(*newmat, actx)); /* a parallel matrix's blocks then take the parameters */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatConvert() from one of our types to aijcusparse (sequential or parallel) or to aij */
PetscErrorCode MatConvert_GPUFormat_AIJCUSPARSE(Mat A, MatType newtype, MatReuse reuse, Mat *newmat)
{
  const MatGPUFormatKind *kind;
  Mat_GPUFormat          *ctx;
  Mat                     B;
  PetscBool               tocusparse;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatGetCtx_Private(A, &ctx));
  kind = ctx && ctx->mpi ? &MatGPUFormatMPIKind : &MatGPUFormatSeqKind;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(kind->copyvalues(A, *newmat));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else B = A;
  PetscCall(kind->strip(B));
  PetscCall(PetscStrendswith(newtype, MATAIJCUSPARSE, &tocusparse)); /* aijcusparse, seqaijcusparse or mpiaijcusparse */
  if (!tocusparse) PetscCall(MatConvert(B, kind->host, MAT_INPLACE_MATRIX, &B));
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The context of A, which must be of our types (the public getters' check) */
static PetscErrorCode MatGPUFormatRequireCtx_Private(Mat A, Mat_GPUFormat **ctx)
{
  PetscFunctionBegin;
  PetscCall(MatGPUFormatGetCtx_Private(A, ctx));
  PetscCheck(*ctx, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Matrix of type %s is not a petsc-gpuformats type", ((PetscObject)A)->type_name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The context of A, or of a parallel A's diagonal block on this process (NULL while that block is not yet in the format):
   what the getters of a parallel matrix report */
static PetscErrorCode MatGPUFormatLocalCtx_Private(Mat A, Mat_GPUFormat **ctx)
{
  PetscFunctionBegin;
  PetscCall(MatGPUFormatRequireCtx_Private(A, ctx));
  if ((*ctx)->mpi) {
    Mat Ad;

    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
    *ctx = NULL;
    if (Ad) PetscCall(MatGPUFormatGetCtx_Private(Ad, ctx));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The format object of A, which must be of ops' sequential or parallel type; of a parallel A, that of its diagonal block on
   this process (NULL while the block is not yet in the format) */
PetscErrorCode MatGPUFormatGetLocalFormat_Private(Mat A, MatGPUFormatOps *ops, void **fmt)
{
  Mat_GPUFormat *ctx;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatRequireCtx_Private(A, &ctx));
  PetscCheck(ctx->ops == ops, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Matrix of type %s is not %s or %s", ((PetscObject)A)->type_name, ops->seqtype, ops->mpitype);
  PetscCall(MatGPUFormatLocalCtx_Private(A, &ctx));
  *fmt = ctx && ctx->ops == ops ? ctx->fmt : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatGPUFormatGetStreamAlloc - Whether the GPU formats of petsc-gpuformats take their device memory from CUDA's
  stream-ordered memory pool or from `cudaMalloc()`

  Not Collective

  Input Parameter:
. A - a matrix of a petsc-gpuformats type (for example `MATSEQCMRS` or `MATMPICMRS`)

  Output Parameter:
. pool - `PETSC_TRUE`: the device's default memory pool, in the order of PETSc's current stream; `PETSC_FALSE`: `cudaMalloc()`

  Options Database Key:
. -mat_gpuformat_stream_alloc <bool> - the pool (true) or `cudaMalloc()` (false)

  Note:
  Without the option, the formats allocate as PETSc's vectors do: from the pool where PETSc's current stream is a stream
  of its own, from `cudaMalloc()` on the NULL stream (PETSc's default). The choice is made once per process, at the
  first allocation of a format or this call, whichever comes first, and holds for every matrix.

  Level: advanced

.seealso: [](ch_matrices), `Mat`, `MATSEQCMRS`, `MatGPUFormatGetDeviceMemory()`, `MatGPUFormatGetBuildTime()`
@*/
PetscErrorCode MatGPUFormatGetStreamAlloc(Mat A, PetscBool *pool)
{
  Mat_GPUFormat *ctx;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(pool, 2);
  PetscCall(MatGPUFormatRequireCtx_Private(A, &ctx));
  PetscCall(MatGPUFormatStreamAlloc_Private(pool));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatGPUFormatGetDeviceMemory - Device memory held by the GPU format of a petsc-gpuformats matrix, and
  the size of the CSR arrays it shadows

  Not Collective

  Input Parameter:
. A - a matrix of a petsc-gpuformats type (for example `MATSEQCMRS`; of a parallel type, `MATMPICMRS`, the blocks on this rank)

  Output Parameters:
+ bytes    - bytes of device memory the format holds now (0 before the first product)
- csrbytes - bytes of the CSR arrays of the same matrix: 12 nnz + 4 (m + 1)

  Level: intermediate

.seealso: [](ch_matrices), `Mat`, `MATSEQCMRS`, `MatGPUFormatGetBuildTime()`
@*/
PetscErrorCode MatGPUFormatGetDeviceMemory(Mat A, PetscLogDouble *bytes, PetscLogDouble *csrbytes)
{
  Mat_GPUFormat *ctx;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(MatGPUFormatRequireCtx_Private(A, &ctx));
  if (ctx->mpi) {
    PetscLogDouble b, c, t;

    PetscCall(MatGPUFormatMPIDeviceMemory_Private(A, &b, &c, &t));
    if (bytes) *bytes = b;
    if (csrbytes) *csrbytes = c;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (bytes) {
    *bytes = 0;
    if (ctx->built && ctx->nnz && A->rmap->n) PetscCall(ctx->ops->memory(ctx->fmt, bytes));
  }
  if (csrbytes) {
    PetscInt nnz = 0;

    PetscCall(MatGPUFormatNonzeros_Private(A, &nnz));
    *csrbytes = 12.0 * nnz + 4.0 * (A->rmap->n + 1);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The fill bound's options for the format `name` (title: as in the viewer; type: its manual page; slots: how its slots per
   entry are counted, for -help)
*/
PetscErrorCode MatGPUFormatFillBoundSetFromOptions_Private(MatGPUFormatFillBound *b, const char *name, const char *title, const char *type, const char *slots, MatGPUFormatOptionItems PetscOptionsObject)
{
  char      opt[64], fopt[64], text[256];
  PetscReal maxfill = b->maxfill;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-mat_%s_max_fill", name));
  PetscCall(PetscSNPrintf(fopt, sizeof(fopt), "-mat_%s_fallback", name));
  PetscCall(PetscSNPrintf(text, sizeof(text), "Slots per entry (%s) above which the matrix is not stored in %s; 0: no bound", slots, title));
  PetscCall(PetscOptionsReal(opt, text, type, maxfill, &maxfill, NULL));
  PetscCall(PetscOptionsBool(fopt, "A matrix above the bound multiplies with aijcusparse's product (else its build fails with an error)", type, b->fallback, &b->fallback, NULL));
  PetscCheck(maxfill == 0 || maxfill >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s %g: 0 (no bound) or at least 1 (a slot per entry)", opt, (double)maxfill);
  b->maxfill = maxfill;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   A build past the bound (MatGPUFormatFillBoundExceeded()): nothing with -mat_<name>_fallback true (the format then
   declines the matrix), else PETSC_ERR_SUP naming the bound. what: the format's account of the matrix; instead: the
   way out it suggests besides the two options
*/
PetscErrorCode MatGPUFormatFillBoundRefuse_Private(const MatGPUFormatFillBound *b, const char *name, const char *title, PetscReal fill, const char *what, const char *instead)
{
  PetscFunctionBegin;
  PetscCheck(b->fallback, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: %s, %g slots per entry, more than -mat_%s_max_fill %g. Raise the bound (0: none), set -mat_%s_fallback to multiply with aijcusparse's product instead, or %s", title, what, (double)fill, name, (double)b->maxfill, name, instead);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The bound, for the format's line of the viewer */
PetscErrorCode MatGPUFormatFillBoundString_Private(const MatGPUFormatFillBound *b, const char *name, char *buf, size_t len)
{
  PetscFunctionBegin;
  if (b->maxfill > 0) PetscCall(PetscSNPrintf(buf, len, "bound %g (-mat_%s_max_fill)", (double)b->maxfill, name));
  else PetscCall(PetscSNPrintf(buf, len, "no bound (-mat_%s_max_fill 0)", name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The viewer's line of a declined matrix */
PetscErrorCode MatGPUFormatFillBoundViewDeclined_Private(const char *name, PetscBool declined, PetscViewer viewer)
{
  PetscFunctionBegin;
  if (declined) PetscCall(PetscViewerASCIIPrintf(viewer, "declined: more slots per entry than the bound; products are aijcusparse's (-mat_%s_fallback false makes this an error)\n", name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatGPUFormatGetDeclined - Whether the GPU format of a petsc-gpuformats matrix declined it at its last build (DIA, ELL:
  more slots per entry than their bound; gpuauto: it chose cuSPARSE's CSR), so that its products are `MATSEQAIJCUSPARSE`'s

  Not Collective

  Input Parameter:
. A - a matrix of a petsc-gpuformats type (of a parallel type: its diagonal block on this process)

  Output Parameter:
. declined - `PETSC_TRUE` when the last build declined the matrix and neither its nonzero pattern nor a parameter has
  changed since; `PETSC_FALSE` before the first product and for the formats that never decline

  Level: intermediate

.seealso: [](ch_matrices), `Mat`, `MATSEQDIA`, `MATSEQELL`, `MatGPUFormatGetDeviceMemory()`
@*/
PetscErrorCode MatGPUFormatGetDeclined(Mat A, PetscBool *declined)
{
  Mat_GPUFormat *ctx;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(declined, 2);
  PetscCall(MatGPUFormatLocalCtx_Private(A, &ctx));
  *declined = (PetscBool)(ctx && ctx->built && ctx->declined);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatGPUFormatGetBuildTime - Wall-clock time of the last construction of the GPU format of a
  petsc-gpuformats matrix

  Not Collective

  Input Parameter:
. A - a matrix of a petsc-gpuformats type

  Output Parameter:
. seconds - time of the last build, device synchronized (0 before the first product)

  Level: intermediate

.seealso: [](ch_matrices), `Mat`, `MATSEQCMRS`, `MatGPUFormatGetDeviceMemory()`
@*/
PetscErrorCode MatGPUFormatGetBuildTime(Mat A, PetscLogDouble *seconds)
{
  Mat_GPUFormat *ctx;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(MatGPUFormatRequireCtx_Private(A, &ctx));
  if (ctx->mpi) {
    PetscLogDouble b, c;

    PetscCall(MatGPUFormatMPIDeviceMemory_Private(A, &b, &c, seconds));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *seconds = ctx->buildtime;
  PetscFunctionReturn(PETSC_SUCCESS);
}

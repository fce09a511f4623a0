/*
   The parallel petsc-gpuformats types (MATMPICMRS, ...), written once for every format.

   A parallel matrix of ours is PETSc's MATMPIAIJCUSPARSE (PETSc's distributed engine: the row distribution, the
   stash, the ghost-value scatter, COO assembly) whose diagonal block, a MATSEQAIJCUSPARSE, is turned in place into
   the sequential type of the format, and whose off-diagonal block is too with -mat_gpuformat_offdiag. PETSc's own
   MatMult() of MATMPIAIJCUSPARSE then runs: it starts the scatter of the ghost values, multiplies by the diagonal
   block (our kernel) while the messages travel, and adds the off-diagonal block's product (MatMultTranspose() and
   everything else stay MATMPIAIJCUSPARSE's). With -mat_gpuformat_overlap, MatMult() is ours: it starts the diagonal
   block's product on a stream of its own before the scatter, so that the product runs during the whole scatter, and
   not only while the messages travel (the packing and, with an MPI that is not GPU-aware, the copies to and from host
   memory come before and after that in MATMPIAIJCUSPARSE's); the scatter is then one of our own, of the same ghost
   columns, set up by every process together whenever the off-diagonal block's columns change.

   PETSc recreates the blocks as MATSEQAIJCUSPARSE whenever it rebuilds them (preallocation, COO preallocation, a new
   off-process pattern): MatGPUFormatMPISyncBlocks_Private() puts the format back after every assembly and before
   every product. The blocks' own state tracking then builds or refreshes their formats, as on one process.

   The Mat_GPUFormat of a parallel matrix (ctx->mpi) holds the format's parameters only (-mat_<fmt>_ options read
   with the parallel matrix's prefix), which every block takes.
*/
#include "gpuformatimpl.h"

PETSC_EXTERN PetscErrorCode MatCreate_MPIAIJCUSPARSE(Mat);

struct _MatOps   MatGPUFormatMPIBaseOps;
static PetscBool MatGPUFormatMPIBaseOpsSet;

static PetscErrorCode MatMult_MPIGPUFormat(Mat, Vec, Vec);
static PetscErrorCode MatMultAdd_MPIGPUFormat(Mat, Vec, Vec, Vec);
static PetscErrorCode MatAssemblyEnd_MPIGPUFormat(Mat, MatAssemblyType);
static PetscErrorCode MatDuplicate_MPIGPUFormat(Mat, MatDuplicateOption, Mat *);
static PetscErrorCode MatTranspose_MPIGPUFormat(Mat, MatReuse, Mat *);
static PetscErrorCode MatDestroy_MPIGPUFormat(Mat);
static PetscErrorCode MatSetFromOptions_MPIGPUFormat(Mat, MatGPUFormatOptionItems);
static PetscErrorCode MatView_MPIGPUFormat(Mat, PetscViewer);
static PetscErrorCode MatShift_MPIGPUFormat(Mat, PetscScalar);
static PetscErrorCode MatDiagonalSet_MPIGPUFormat(Mat, Vec, InsertMode);
static PetscErrorCode MatEliminateZeros_MPIGPUFormat(Mat, PetscBool);
static PetscErrorCode MatBindToCPU_MPIGPUFormat(Mat, PetscBool);

static PetscErrorCode MatGPUFormatMPIGetBaseOps_Private(void)
{
  Mat B;

  PetscFunctionBegin;
  if (MatGPUFormatMPIBaseOpsSet) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatCreate(PETSC_COMM_SELF, &B));
  PetscCall(MatSetSizes(B, 0, 0, 0, 0));
  PetscCall(MatSetType(B, MATMPIAIJCUSPARSE));
  MatGPUFormatMPIBaseOps    = *B->ops;
  MatGPUFormatMPIBaseOpsSet = PETSC_TRUE;
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mat_gpuformat_overlap: MatMult()'s own scatter of the ghost values, what it was set up for, its stream and events */
typedef struct {
  VecScatter   sc;
  Vec          lvec;   /* the ghost values: the off-diagonal block's columns */
  PetscInt    *garray; /* a copy of the global columns it gathers */
  PetscInt     nghost, cstart, cn;
  PetscInt     nlaunched; /* products whose diagonal block ran on stream, since the set-up (MatView() shows it) */
  PetscInt     nsetups;   /* set-ups that succeeded (MatView() shows it) */
  cudaStream_t stream;    /* the diagonal block's product */
  cudaEvent_t  ready, diagdone;
} MatGPUFormatGhost;

static PetscErrorCode MatGPUFormatGhostReset_Private(MatGPUFormatGhost *g)
{
  PetscFunctionBegin;
  PetscCall(VecScatterDestroy(&g->sc));
  PetscCall(VecDestroy(&g->lvec));
  PetscCall(PetscFree(g->garray));
  g->nghost = g->cstart = g->cn = g->nlaunched = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGPUFormatGhostDestroy_Private(Mat_GPUFormat *ctx)
{
  MatGPUFormatGhost *g = (MatGPUFormatGhost *)ctx->ghost;

  PetscFunctionBegin;
  if (!g) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGPUFormatGhostReset_Private(g));
#if !defined(MATGPUFORMAT_UNSUPPORTED_BUILD)
  if (g->stream) {
    PetscCallCUDA(cudaEventDestroy(g->ready));
    PetscCallCUDA(cudaEventDestroy(g->diagdone));
    PetscCallCUDA(cudaStreamDestroy(g->stream));
  }
#endif
  PetscCall(PetscFree(ctx->ghost));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the scatter of ctx (if any) gathers other ghost columns than A's off-diagonal block now has (local) */
static PetscErrorCode MatGPUFormatGhostStale_Private(Mat A, Mat_GPUFormat *ctx, PetscBool *stale)
{
  MatGPUFormatGhost *g = (MatGPUFormatGhost *)ctx->ghost;
  Mat                Ao;
  const PetscInt    *garray;
  PetscBool          same = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, NULL, &Ao, &garray));
  if (g && g->sc && Ao && g->nghost == Ao->cmap->n && g->cstart == A->cmap->rstart && g->cn == A->cmap->n) {
    same = PETSC_TRUE;
    if (g->nghost) PetscCall(PetscArraycmp(g->garray, garray, g->nghost, &same));
  }
  *stale = (PetscBool)!same;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if !defined(MATGPUFORMAT_UNSUPPORTED_BUILD)
/* The stream and events of g: all three, or none (and no CUDA error left behind for a later cudaGetLastError()) */
static PetscErrorCode MatGPUFormatGhostStream_Private(MatGPUFormatGhost *g)
{
  cudaStream_t s;
  cudaEvent_t  e[2];
  cudaError_t  cerr;

  PetscFunctionBegin;
  if (g->stream) PetscFunctionReturn(PETSC_SUCCESS);
  cerr = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  if (cerr == cudaSuccess) {
    cerr = cudaEventCreateWithFlags(&e[0], cudaEventDisableTiming);
    if (cerr == cudaSuccess) {
      cerr = cudaEventCreateWithFlags(&e[1], cudaEventDisableTiming);
      if (cerr != cudaSuccess) (void)cudaEventDestroy(e[0]);
    }
    if (cerr != cudaSuccess) (void)cudaStreamDestroy(s);
  }
  if (cerr != cudaSuccess) (void)cudaGetLastError();
  PetscCallCUDA(cerr);
  g->stream   = s;
  g->ready    = e[0];
  g->diagdone = e[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/*
   Collective: the scatter of A's ghost columns, from a vector of A's column layout into a sequential CUDA vector. Each
   process first does its own part, and all learn whether every one succeeded before any enters VecScatterCreate()
   (collective), and again after it: every process keeps a scatter, or none does, and all return an error together
   (except for a failure inside VecScatterCreate() itself, which has collectives of its own).
*/
static PetscErrorCode MatGPUFormatGhostSetUp_Private(Mat A, Mat_GPUFormat *ctx)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);
  MatGPUFormatGhost *g    = NULL;
  Mat                Ao;
  const PetscInt    *garray;
  PetscInt           nghost;
  IS                 from = NULL;
  Vec                x    = NULL;
  PetscErrorCode     ierr = PETSC_SUCCESS;
  int                ok, allok;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, NULL, &Ao, &garray));
  nghost = Ao ? Ao->cmap->n : 0;
  if (!ctx->ghost) ierr = PetscNew((MatGPUFormatGhost **)&ctx->ghost);
  if (!ierr) {
    g    = (MatGPUFormatGhost *)ctx->ghost;
    ierr = MatGPUFormatGhostReset_Private(g);
  }
#if !defined(MATGPUFORMAT_UNSUPPORTED_BUILD)
  if (!ierr) ierr = MatGPUFormatGhostStream_Private(g);
#endif
  if (!ierr) ierr = PetscMalloc1(nghost, &g->garray);
  if (!ierr) ierr = PetscArraycpy(g->garray, garray, nghost);
  if (!ierr) ierr = ISCreateGeneral(PETSC_COMM_SELF, nghost, g->garray, PETSC_USE_POINTER, &from);
  if (!ierr) ierr = MatCreateVecs(A, &x, NULL);
  if (!ierr) ierr = VecCreateSeqCUDA(PETSC_COMM_SELF, nghost, &g->lvec);
  ok = !ierr;
  PetscCallMPI(MPIU_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, comm));
  if (allok) {
    ierr = VecScatterCreate(x, from, g->lvec, NULL, &g->sc);
    ok   = !ierr;
    PetscCallMPI(MPIU_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, comm));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(ISDestroy(&from));
  if (!allok && g) PetscCall(MatGPUFormatGhostReset_Private(g));
  PetscCheck(allok, comm, PETSC_ERR_LIB, "The scatter of -mat_gpuformat_overlap could not be set up on %s process (error %d)", ierr ? "this" : "another", (int)ierr);
  g->nghost = nghost; /* set up: what it was set up for */
  g->cstart = A->cmap->rstart;
  g->cn     = A->cmap->n;
  g->nsetups++;
  PetscCall(PetscInfo(A, "%s: MatMult() with its own scatter of %" PetscInt_FMT " ghost values on this process (-mat_gpuformat_overlap)\n", ((PetscObject)A)->type_name, g->nghost));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGPUFormatMPICtxDestroy(void *ptr)
{
  Mat_GPUFormat *ctx = (Mat_GPUFormat *)MatGPUFormatDestroyArgCtx(ptr);

  PetscFunctionBegin;
  PetscCall(MatGPUFormatGhostDestroy_Private(ctx));
  PetscCall(MatGPUFormatObjectDestroy_Private(ctx->ops, &ctx->fmt)); /* holds no device data; the parameters only */
  PetscCall(PetscFree(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGPUFormatMPISetOps_Private(Mat A, MatGPUFormatOps *ops, PetscBool on)
{
  PetscFunctionBegin;
  A->ops->mult                  = on ? MatMult_MPIGPUFormat : MatGPUFormatMPIBaseOps.mult;
  A->ops->multadd               = on ? MatMultAdd_MPIGPUFormat : MatGPUFormatMPIBaseOps.multadd;
  A->ops->assemblyend           = on ? MatAssemblyEnd_MPIGPUFormat : MatGPUFormatMPIBaseOps.assemblyend;
  A->ops->duplicate             = on ? MatDuplicate_MPIGPUFormat : MatGPUFormatMPIBaseOps.duplicate;
  A->ops->transpose             = on ? MatTranspose_MPIGPUFormat : MatGPUFormatMPIBaseOps.transpose;
  A->ops->destroy               = on ? MatDestroy_MPIGPUFormat : MatGPUFormatMPIBaseOps.destroy;
  A->ops->setfromoptions        = on ? MatSetFromOptions_MPIGPUFormat : MatGPUFormatMPIBaseOps.setfromoptions;
  A->ops->view                  = on ? MatView_MPIGPUFormat : MatGPUFormatMPIBaseOps.view;
  A->ops->convertfrom           = on ? MatConvertFrom_GPUFormat : MatGPUFormatMPIBaseOps.convertfrom;
  A->ops->productsetfromoptions = on ? MatProductSetFromOptions_GPUFormat : MatGPUFormatMPIBaseOps.productsetfromoptions;
  /* operations that may change a block's pattern without a new parallel nonzero state or new blocks (see
     MatGPUFormatMPIPrepare_Private()); wrapped only where MATMPIAIJCUSPARSE has them */
  if (MatGPUFormatMPIBaseOps.shift) A->ops->shift = on ? MatShift_MPIGPUFormat : MatGPUFormatMPIBaseOps.shift;
  if (MatGPUFormatMPIBaseOps.diagonalset) A->ops->diagonalset = on ? MatDiagonalSet_MPIGPUFormat : MatGPUFormatMPIBaseOps.diagonalset;
  if (MatGPUFormatMPIBaseOps.eliminatezeros) A->ops->eliminatezeros = on ? MatEliminateZeros_MPIGPUFormat : MatGPUFormatMPIBaseOps.eliminatezeros;
  if (MatGPUFormatMPIBaseOps.bindtocpu) A->ops->bindtocpu = on ? MatBindToCPU_MPIGPUFormat : MatGPUFormatMPIBaseOps.bindtocpu;
  PetscCall(MatGPUFormatComposeFunctions_Private(A, ops->mpitype, MATMPIAIJCUSPARSE, MATMPIAIJ, on));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Turns a MATMPIAIJCUSPARSE matrix (assembled or not) into the format's parallel type, in place */
PetscErrorCode MatGPUFormatMPIConvertInPlace_Private(Mat A, MatGPUFormatOps *ops)
{
  Mat_GPUFormat *ctx;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatMPIGetBaseOps_Private());
  PetscCall(MatGPUFormatCtxCreate_Private(ops, PETSC_TRUE, &ctx));
  PetscCall(PetscObjectContainerCompose((PetscObject)A, MATGPUFORMAT_CTX, ctx, MatGPUFormatMPICtxDestroy));
  PetscCall(MatGPUFormatMPISetOps_Private(A, ops, PETSC_TRUE));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, ops->mpitype));
  ctx->syncneeded = PETSC_TRUE;
  PetscCall(MatGPUFormatMPISyncBlocks_Private(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Turns a matrix of one of our parallel types back into MATMPIAIJCUSPARSE, in place, its blocks included */
PetscErrorCode MatGPUFormatMPIStrip_Private(Mat A)
{
  Mat_GPUFormat *ctx, *bctx;
  Mat            blocks[2];

  PetscFunctionBegin;
  PetscCall(MatGPUFormatGetCtx_Private(A, &ctx));
  PetscCall(MatMPIAIJGetSeqAIJ(A, &blocks[0], &blocks[1], NULL));
  for (PetscInt i = 0; i < 2; i++) {
    if (!blocks[i]) continue;
    PetscCall(MatGPUFormatIsOurs_Private(blocks[i], &bctx));
    if (bctx) PetscCall(MatGPUFormatStrip_Private(blocks[i]));
  }
  if (ctx) PetscCall(MatGPUFormatMPISetOps_Private(A, ctx->ops, PETSC_FALSE));
  PetscCall(PetscObjectCompose((PetscObject)A, MATGPUFORMAT_CTX, NULL));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATMPIAIJCUSPARSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Block X (diagonal or off-diagonal) of the parallel matrix whose context is ctx takes the format (on) or gives it up */
static PetscErrorCode MatGPUFormatMPISyncBlock_Private(Mat_GPUFormat *ctx, Mat X, PetscBool on)
{
  Mat_GPUFormat *xctx;
  PetscBool      cusparse;

  PetscFunctionBegin;
  /* a block in PETSc's hash mode (no preallocation) gets its operations back at assembly: converted after that */
  if (!X || X->hash_active) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGPUFormatIsOurs_Private(X, &xctx));
  if (xctx && xctx->ops != ctx->ops) { /* a block of another of our formats (MatConvert() between two of ours) */
    PetscCall(MatGPUFormatStrip_Private(X));
    xctx = NULL;
  }
  if (on && !xctx) {
    PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQAIJCUSPARSE, &cusparse));
    if (!cusparse) PetscFunctionReturn(PETSC_SUCCESS); /* not a block of a MATMPIAIJCUSPARSE (bound to the CPU) */
    PetscCall(MatGPUFormatConvertInPlace_Private(X, ctx->ops));
    PetscCall(MatGPUFormatCopyParams_Private(ctx, X));
  } else if (on) { /* PETSc made the block of our type itself (COO preallocation, MatDisAssemble(), MatAXPY()): A's parameters */
    PetscBool same;

    PetscCall(ctx->ops->sameparams(ctx->fmt, xctx->fmt, &same));
    if (!same) {
      PetscCall(MatGPUFormatCopyParams_Private(ctx, X));
      PetscCall(MatGPUFormatInvalidate_Private(X));
    }
    xctx->product_min_rows = ctx->product_min_rows;
    xctx->buildafter       = 0; /* a block builds at once: every process agrees */
  } else if (xctx) PetscCall(MatGPUFormatStrip_Private(X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The blocks of A in the format that A's options ask for; nothing while a product phase presents them as cuSPARSE's */
PetscErrorCode MatGPUFormatMPISyncBlocks_Private(Mat A)
{
  Mat_GPUFormat *ctx;
  Mat            Ad, Ao;

  PetscFunctionBegin;
  if (MatGPUFormatMasqueradeDepth || A->hash_active) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGPUFormatIsOurs_Private(A, &ctx));
  if (!ctx || !ctx->mpi) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(MatGPUFormatMPISyncBlock_Private(ctx, Ad, PETSC_TRUE));
  PetscCall(MatGPUFormatMPISyncBlock_Private(ctx, Ao, ctx->offdiag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After a parameter change of A (MatSetFromOptions(), MatCMRSSetHeight(), ...): its blocks take the new parameters and
   are rebuilt at their next product */
PetscErrorCode MatGPUFormatMPIPropagateParams_Private(Mat A)
{
  Mat_GPUFormat *ctx, *bctx;
  Mat            blocks[2];

  PetscFunctionBegin;
  PetscCall(MatGPUFormatGetCtx_Private(A, &ctx));
  ctx->syncneeded = PETSC_TRUE;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &blocks[0], &blocks[1], NULL));
  for (PetscInt i = 0; i < 2; i++) {
    if (!blocks[i]) continue;
    PetscCall(MatGPUFormatGetCtx_Private(blocks[i], &bctx));
    if (!bctx || bctx->ops != ctx->ops) continue;
    PetscCall(MatGPUFormatCopyParams_Private(ctx, blocks[i]));
    PetscCall(MatGPUFormatInvalidate_Private(blocks[i]));
  }
  PetscCall(MatGPUFormatMPISyncBlocks_Private(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCreate_MPIGPUFormat_Private(Mat A, MatGPUFormatOps *ops)
{
  PetscFunctionBegin;
#if defined(MATGPUFORMAT_UNSUPPORTED_BUILD)
  SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "Matrix type %s needs a PETSc configured with real double-precision scalars and 32-bit PetscInt", ops->mpitype);
#else
  PetscCall(MatGPUFormatCheckDebugPETSc_Private(PetscObjectComm((PetscObject)A), ops->mpitype, ops));
  PetscCall(MatCreate_MPIAIJCUSPARSE(A));
  PetscCall(MatGPUFormatMPIConvertInPlace_Private(A, ops));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The blocks in the format and their formats up to date before a product starts its scatter. A build can fail on one
   process only (out of device memory), so after a change that may need one (a new nonzero pattern, new blocks, a
   conversion or new parameters), every process builds first and all learn of an error together, so that none is left
   waiting in the scatter. Whether to agree rests only on what every process changes together: the parallel nonzero
   state (PETSc sums the blocks' over the processes at assembly), the blocks' ids (new blocks are made by every process
   in the same collective call, and ids are never reused) and a flag that collective calls set. A change of values alone
   (the object state) needs no agreement and costs no MPI_Allreduce(): each block refreshes its values in its own
   product, without allocating.
*/
static PetscErrorCode MatGPUFormatMPIPrepare_Private(Mat A)
{
  Mat_GPUFormat   *ctx;
  PetscObjectState nzstate;
  PetscObjectId    id[2] = {0, 0};
  Mat              Ad, Ao;
  PetscErrorCode   ierr, serr;
  PetscBool        stale = PETSC_FALSE;
  int              local[2], global[2];

  PetscFunctionBegin;
  /* during a product phase the blocks present themselves as cuSPARSE's and build nothing here: no agreement is recorded
     then, so that the next product after the phase makes it */
  if (MatGPUFormatMasqueradeDepth) PetscFunctionReturn(PETSC_SUCCESS);
  /* the blocks into the format: work only after new blocks or an option change, which the agreement below follows, so
     that a failure there (out of host memory) is agreed on too */
  serr = MatGPUFormatMPISyncBlocks_Private(A);
  PetscCall(MatGPUFormatGetCtx_Private(A, &ctx));
  PetscCall(MatGetNonzeroState(A, &nzstate));
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  if (Ad) PetscCall(PetscObjectGetId((PetscObject)Ad, &id[0]));
  if (Ao) PetscCall(PetscObjectGetId((PetscObject)Ao, &id[1]));
  if (!ctx->syncneeded && nzstate == ctx->syncnzstate && id[0] == ctx->syncid[0] && id[1] == ctx->syncid[1]) {
    PetscCall(serr);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscInfo(A, "%s: every process brings its blocks up to date before the product (nonzero state %" PetscInt64_FMT ")\n", ((PetscObject)A)->type_name, (PetscInt64)nzstate));
  ierr = serr;
  if (!ierr && Ad) ierr = MatGPUFormatPrepare_Private(Ad);
  if (!ierr && Ao) ierr = MatGPUFormatPrepare_Private(Ao);
  /* -mat_gpuformat_overlap: the scatter is set up again by every process when the ghost columns changed on any */
  if (ctx->overlap) PetscCall(MatGPUFormatGhostStale_Private(A, ctx, &stale));
  local[0] = (int)ierr;
  local[1] = (int)stale;
  PetscCallMPI(MPIU_Allreduce(local, global, 2, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
  /* a process whose build failed now falls back to cuSPARSE's product (out of memory) or retries: with the others, at the
     next product */
  ctx->syncneeded  = global[0] ? PETSC_TRUE : PETSC_FALSE;
  ctx->syncnzstate = nzstate;
  ctx->syncid[0]   = id[0];
  ctx->syncid[1]   = id[1];
  /* the scatter of the new ghost columns, before the build's error, which a caller may catch to multiply again; if it
     fails (on every process alike), none keeps one and the next product tries again */
  if (global[1]) {
    PetscErrorCode gerr = MatGPUFormatGhostSetUp_Private(A, ctx);

    if (gerr) ctx->syncneeded = PETSC_TRUE;
    PetscCall(gerr);
  }
  /* out of memory and a refusal (a format's bound, PETSC_ERR_SUP) keep their codes on every process */
  PetscCheck(!global[0], PetscObjectComm((PetscObject)A), global[0] == PETSC_ERR_MEM || global[0] == PETSC_ERR_SUP ? global[0] : PETSC_ERR_LIB, "The GPU format of a block of %s could not be built on %s process (error %d)", ((PetscObject)A)->type_name, local[0] ? "this" : "another", global[0]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   -mat_gpuformat_overlap: y = A x with the diagonal block's product on the scatter's own stream, started before the
   scatter, and the off-diagonal block's after it on PETSc's stream, which first waits for the diagonal one. Every
   process scatters (the scatter is collective), also one whose diagonal block is multiplied the usual way, between the
   scatter's start and end as in MATMPIAIJCUSPARSE's MatMult(): no rows or entries, a product that fell back to
   cuSPARSE's, a block bound to the CPU (a CUDA vector bound to the CPU with a block that is not: the block's product
   stages the local arrays through CUDA copies, here after the scatter). An error before
   the scatter is passed on after it, and PETSc's stream (or else the host) waits for the diagonal product whatever
   happened, so that no other process waits in the scatter and nothing later on PETSc's stream races the kernel.
*/
static PetscErrorCode MatMultOverlap_MPIGPUFormat(Mat A, MatGPUFormatGhost *g, Vec x, Vec y)
{
  Mat Ad, Ao;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
#if !defined(MATGPUFORMAT_UNSUPPORTED_BUILD)
  {
    cudaStream_t   base;
    PetscBool      launched = PETSC_FALSE;
    PetscErrorCode ierr, serr;
    cudaError_t    cerr = cudaSuccess;

    PetscCall(PetscGetCurrentCUDAStream(&base));
    ierr = MatGPUFormatMultOnStream_Private(Ad, x, y, base, g->stream, g->ready, &launched);
    if (launched) {
      cerr = cudaEventRecord(g->diagdone, g->stream);
      if (!ierr && cerr == cudaSuccess) g->nlaunched++;
    }
    serr = VecScatterBegin(g->sc, x, g->lvec, INSERT_VALUES, SCATTER_FORWARD);
    if (!ierr && !launched) ierr = (*Ad->ops->mult)(Ad, x, y);
    if (!serr) serr = VecScatterEnd(g->sc, x, g->lvec, INSERT_VALUES, SCATTER_FORWARD);
    if (launched) { /* y complete before anything else on PETSc's stream (without the event: the host waits for it) */
      if (cerr == cudaSuccess) cerr = cudaStreamWaitEvent(base, g->diagdone, 0);
      if (cerr != cudaSuccess) {
        (void)cudaGetLastError();
        (void)cudaStreamSynchronize(g->stream);
      }
    }
    PetscCallCUDA(cerr);
    PetscCall(serr);
    PetscCall(ierr);
    PetscCall((*Ao->ops->multadd)(Ao, g->lvec, y, y));
  }
#else
  SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "%s needs a PETSc configured with real double-precision scalars and 32-bit PetscInt", ((PetscObject)A)->type_name);
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MATMPIAIJCUSPARSE's products (scatter overlapped with the diagonal block's product), on blocks in the format; with
   -mat_gpuformat_overlap and CUDA vectors, MatMult() is MatMultOverlap_MPIGPUFormat(). The choice rests only on what
   is the same on every process (the option, the scatter's collective set-up, the vectors' type names), not on what
   one process may have alone (a block or vector bound to the CPU: see MatMultOverlap_MPIGPUFormat()) */
static PetscErrorCode MatMult_MPIGPUFormat(Mat A, Vec x, Vec y)
{
  Mat_GPUFormat     *ctx;
  MatGPUFormatGhost *g;
  PetscBool          cx, cy;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatMPIPrepare_Private(A));
  PetscCall(MatGPUFormatGetCtx_Private(A, &ctx));
  g = (MatGPUFormatGhost *)ctx->ghost;
  if (ctx->overlap && g && g->sc && !MatGPUFormatMasqueradeDepth) { /* in a product phase the scatter may be stale */
    PetscCall(MatGPUFormatVecIsCUDA_Private(x, &cx));
    PetscCall(MatGPUFormatVecIsCUDA_Private(y, &cy));
  } else cx = cy = PETSC_FALSE;
  if (cx && cy) PetscCall(MatMultOverlap_MPIGPUFormat(A, g, x, y));
  else PetscCall(MatGPUFormatMPIBaseOps.mult(A, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_MPIGPUFormat(Mat A, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  PetscCall(MatGPUFormatMPIPrepare_Private(A));
  PetscCall(MatGPUFormatMPIBaseOps.multadd(A, x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every process agrees again on its blocks' builds at the next product: called after the collective operations that can
   change a block's pattern while the parallel nonzero state and the blocks stay (MatShift() and MatDiagonalSet() insert
   missing diagonal entries into a block alone, MatEliminateZeros() compacts them, MatBindToCPU() drops the formats) */
static PetscErrorCode MatGPUFormatMPISyncNeeded_Private(Mat A)
{
  Mat_GPUFormat *ctx;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatGetCtx_Private(A, &ctx));
  if (ctx) ctx->syncneeded = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatShift_MPIGPUFormat(Mat A, PetscScalar a)
{
  PetscFunctionBegin;
  PetscCall(MatGPUFormatMPIBaseOps.shift(A, a));
  PetscCall(MatGPUFormatMPISyncNeeded_Private(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagonalSet_MPIGPUFormat(Mat A, Vec d, InsertMode mode)
{
  PetscFunctionBegin;
  PetscCall(MatGPUFormatMPIBaseOps.diagonalset(A, d, mode));
  PetscCall(MatGPUFormatMPISyncNeeded_Private(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatEliminateZeros_MPIGPUFormat(Mat A, PetscBool keep)
{
  PetscFunctionBegin;
  PetscCall(MatGPUFormatMPIBaseOps.eliminatezeros(A, keep));
  PetscCall(MatGPUFormatMPISyncNeeded_Private(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatBindToCPU_MPIGPUFormat(Mat A, PetscBool flg)
{
  PetscFunctionBegin;
  PetscCall(MatGPUFormatMPIBaseOps.bindtocpu(A, flg));
  PetscCall(MatGPUFormatMPISyncNeeded_Private(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAssemblyEnd_MPIGPUFormat(Mat A, MatAssemblyType mode)
{
  PetscFunctionBegin;
  PetscCall(MatGPUFormatMPIBaseOps.assemblyend(A, mode));
  PetscCall(MatGPUFormatMPISyncBlocks_Private(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatTranspose() in place builds another matrix of the type, with default parameters, and puts its data under A with
   MatHeaderMerge(), which keeps A's context: the new blocks take A's parameters at once. (MatAXPY() with a new pattern
   does the same, but is not wrapped: PETSc's MatAXPY() takes the type's own fast path only for operands whose axpy
   operations are the same function, so a wrapper would send ours with mpiaijcusparse to the generic one; its blocks
   take A's parameters before the next product, in MatGPUFormatMPIPrepare_Private().) A new transpose, of the type,
   takes A's parameters, as a duplicate does. */
static PetscErrorCode MatTranspose_MPIGPUFormat(Mat A, MatReuse reuse, Mat *B)
{
  Mat_GPUFormat *ctx, *bctx;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatGetCtx_Private(A, &ctx));
  PetscCall(MatGPUFormatMPIBaseOps.transpose(A, reuse, B));
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatGPUFormatMPISyncBlocks_Private(A));
  else if (reuse == MAT_INITIAL_MATRIX) {
    PetscErrorCode ierr = MatGPUFormatIsOurs_Private(*B, &bctx);

    if (!ierr && ctx && bctx && bctx->ops == ctx->ops) ierr = MatGPUFormatCopyParams_Private(ctx, *B);
    if (ierr) PetscCall(MatDestroy(B)); /* the new matrix is not handed out half made */
    PetscCall(ierr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDuplicate_MPIGPUFormat(Mat A, MatDuplicateOption op, Mat *B)
{
  Mat_GPUFormat *ctx;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatGetCtx_Private(A, &ctx));
  PetscCall(MatGPUFormatMPIBaseOps.duplicate(A, op, B)); /* of A's type, through the registry, with duplicated blocks */
  ierr = MatGPUFormatCopyParams_Private(ctx, *B);        /* also checks that *B is of A's type */
  if (ierr) PetscCall(MatDestroy(B));                    /* the new matrix is not handed out half made */
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatHeaderMerge() hides the composed context and functions, and the type name, while it destroys the data: they stay
   for the merged matrix. The blocks, of our sequential type or not, destroy themselves. */
static PetscErrorCode MatDestroy_MPIGPUFormat(Mat A)
{
  Mat_GPUFormat *ctx;

  PetscFunctionBegin;
  if (((PetscObject)A)->type_name) { /* MatSetType() to another type keeps the header: our functions and context go */
    PetscCall(MatGPUFormatGetCtx_Private(A, &ctx));
    if (ctx) PetscCall(MatGPUFormatMPISetOps_Private(A, ctx->ops, PETSC_FALSE));
    PetscCall(PetscObjectCompose((PetscObject)A, MATGPUFORMAT_CTX, NULL));
  }
  PetscCall(MatGPUFormatMPIBaseOps.destroy(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetFromOptions_MPIGPUFormat(Mat A, MatGPUFormatOptionItems PetscOptionsObject)
{
  Mat_GPUFormat *ctx;
  char           head[64];

  PetscFunctionBegin;
  PetscCall(MatGPUFormatGetCtx_Private(A, &ctx));
  PetscCall(MatGPUFormatMPIBaseOps.setfromoptions(A, PetscOptionsObject));
  PetscCall(PetscSNPrintf(head, sizeof(head), "%s options (parallel)", ctx->ops->title));
  PetscOptionsHeadBegin(PetscOptionsObject, head);
  PetscCall(MatGPUFormatSetFromOptions_Private(A, ctx, PetscOptionsObject));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_MPIGPUFormat(Mat A, PetscViewer viewer)
{
  Mat_GPUFormat    *ctx;
  PetscBool         isascii;
  PetscViewerFormat format;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatMPIBaseOps.view(A, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format != PETSC_VIEWER_ASCII_INFO && format != PETSC_VIEWER_ASCII_INFO_DETAIL) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGPUFormatGetCtx_Private(A, &ctx));
  /* no collective here: PETSc views matrices also through viewers of part of their communicator */
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s GPU format in the diagonal blocks (%s); off-diagonal blocks %s (-mat_gpuformat_offdiag %s)\n", ctx->ops->title, ctx->ops->seqtype, ctx->offdiag ? ctx->ops->seqtype : MATSEQAIJCUSPARSE, PetscBools[ctx->offdiag]));
  if (ctx->overlap) { /* nothing otherwise: the view is then as before the option existed */
    MatGPUFormatGhost *g = (MatGPUFormatGhost *)ctx->ghost;

    if (g && g->sc) PetscCall(PetscViewerASCIIPrintf(viewer, "MatMult(): the diagonal block's product on a stream of its own during the whole ghost scatter (-mat_gpuformat_overlap true), its own scatter of %" PetscInt_FMT " ghost values (set-up %" PetscInt_FMT ") and %" PetscInt_FMT " products so on the first process\n", g->nghost, g->nsetups, g->nlaunched));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "MatMult(): the diagonal block's product on a stream of its own during the whole ghost scatter (-mat_gpuformat_overlap true), set up at the next product\n"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MAT_REUSE_MATRIX: the values of A into B, two parallel AIJ matrices of the same layout and pattern, block by block
   (the checks and the host copy of the sequential blocks, which marks B's device values stale) */
PetscErrorCode MatGPUFormatMPICopyValues_Private(Mat A, Mat B)
{
  Mat             Ad, Ao, Bd, Bo;
  const PetscInt *ga, *gb;
  PetscBool       same = PETSC_TRUE, all;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &ga));
  PetscCall(MatMPIAIJGetSeqAIJ(B, &Bd, &Bo, &gb));
  if (A->rmap->n != B->rmap->n || A->cmap->n != B->cmap->n || Ao->cmap->n != Bo->cmap->n) same = PETSC_FALSE;
  else if (Ao->cmap->n) PetscCall(PetscArraycmp(ga, gb, Ao->cmap->n, &same));
  if (same) PetscCall(MatGPUFormatSamePattern_Private(Ad, Bd, &same));
  if (same) PetscCall(MatGPUFormatSamePattern_Private(Ao, Bo, &same));
  /* every rank learns of a mismatch on any rank, so that all of them stop with the error */
  PetscCallMPI(MPIU_Allreduce(&same, &all, 1, MATGPUFORMAT_MPI_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  PetscCheck(all, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_INCOMP, "MAT_REUSE_MATRIX needs a matrix of the same layout and nonzero pattern");
  PetscCall(MatGPUFormatCopyValues_Private(Ad, Bd));
  PetscCall(MatGPUFormatCopyValues_Private(Ao, Bo));
  PetscCall(PetscObjectStateIncrease((PetscObject)B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What the conversions (gpuformat.c) need of a parallel matrix of ours */
const MatGPUFormatKind MatGPUFormatMPIKind = {MATMPIAIJCUSPARSE, MATMPIAIJ, MatGPUFormatMPIConvertInPlace_Private, MatGPUFormatMPIStrip_Private, MatGPUFormatMPICopyValues_Private};

/* Device memory of the formats of A's blocks on this rank, and of their CSR arrays */
PetscErrorCode MatGPUFormatMPIDeviceMemory_Private(Mat A, PetscLogDouble *bytes, PetscLogDouble *csrbytes, PetscLogDouble *buildtime)
{
  Mat blocks[2];

  PetscFunctionBegin;
  *bytes = *csrbytes = *buildtime = 0;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &blocks[0], &blocks[1], NULL));
  for (PetscInt i = 0; i < 2; i++) {
    Mat_GPUFormat *bctx;
    PetscLogDouble b, c, t;

    if (!blocks[i]) continue;
    PetscCall(MatGPUFormatIsOurs_Private(blocks[i], &bctx));
    if (!bctx) continue;
    PetscCall(MatGPUFormatGetDeviceMemory(blocks[i], &b, &c));
    PetscCall(MatGPUFormatGetBuildTime(blocks[i], &t));
    *bytes += b;
    *csrbytes += c;
    *buildtime += t;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

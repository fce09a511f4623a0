/*
   PETSc citizenship of the petsc-gpuformats types beyond MatMult: matrix-matrix products (MatProduct and
   MatMatMult(), MatPtAP(), ...), the point-block Jacobi preconditioners' GPU path, and cuSPARSE's
   factorizations. Written once for every format.

   Products. cuSPARSE's product code (MatProductSetFromOptions_SeqAIJCUSPARSE() and the symbolic and numeric
   phases it installs) takes its GPU path only for operands whose type name is exactly MATSEQAIJCUSPARSE, and
   PETSc's product dispatch finds it only when the operands' product operations agree. Our matrices are
   MATSEQAIJCUSPARSE matrices in every field that code reads (A->data, A->spptr, the device CSR): for the
   duration of each product phase they present that type name and cuSPARSE's product operation (a
   "masquerade"), so PETSc takes exactly the path it takes for aijcusparse: cuSPARSE's SpGEMM on the GPU, or
   its CPU fallback where aijcusparse has one. The phases that PETSc then installs on the result are wrapped
   so that every later phase runs under the same masquerade. The result, a MATSEQAIJCUSPARSE, then takes the
   format of the first of our operands (A, else B, else C), so that a multigrid hierarchy stays in the user's
   format, unless it has fewer rows than -mat_gpuformat_product_min_rows.
   A host MATSEQAIJ or MATSEQMAIJ operand B or C of a product whose A is one of ours (not bound to the CPU) is
   moved to the GPU first, converted in place to MATSEQAIJCUSPARSE, as cuSPARSE does with a host dense B: DMDA
   gives interpolations the type MATAIJ (MAIJ for several fields) for any -dm_mat_type that does not begin with
   "aij", so without this the Galerkin products of PCMG would run on the CPU, as would the interpolation itself.
*/
#include "gpuformatimpl.h"

PETSC_EXTERN PetscErrorCode MatGetFactor_seqaijcusparse_cusparse(Mat, MatFactorType, Mat *);

#define MATGPUFORMAT_PRODUCT_CTX "MatGPUFormatProduct_ctx"
#define MATGPUFORMAT_MASQUERADE  12 /* A, B, C and the result, each with its two blocks when parallel */

/* The phases PETSc installed on a product's result, which ours wrap */
typedef struct {
  PetscErrorCode (*symbolic)(Mat);
  PetscErrorCode (*numeric)(Mat);
} MatGPUFormatProduct;

typedef struct {
  PetscInt n;
  Mat      mat[MATGPUFORMAT_MASQUERADE];
  char    *type[MATGPUFORMAT_MASQUERADE]; /* the type names the matrices had, kept alive (see MatGPUFormatMasqueradeAdd_Private()) */
  PetscErrorCode (*productsetfromoptions[MATGPUFORMAT_MASQUERADE])(Mat);
} MatGPUFormatMasquerade;

PetscInt MatGPUFormatMasqueradeDepth; /* > 0 while any masquerade is in effect */

static PetscErrorCode MatGPUFormatMasqueradeAdd_Private(MatGPUFormatMasquerade *mq, Mat X)
{
  Mat_GPUFormat *ctx;

  PetscFunctionBegin;
  if (!X) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < mq->n; i++)
    if (mq->mat[i] == X) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGPUFormatIsOurs_Private(X, &ctx));
  if (!ctx) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(mq->n < MATGPUFORMAT_MASQUERADE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Too many matrices in a product");
  /* held until the end: PETSc may replace the blocks of a parallel result during a phase (COO preallocation) */
  PetscCall(PetscObjectReference((PetscObject)X));
  mq->mat[mq->n]                   = X;
  mq->type[mq->n]                  = ((PetscObject)X)->type_name;
  mq->productsetfromoptions[mq->n] = X->ops->productsetfromoptions;
  mq->n++;
  /* the name string itself stays alive and comes back at the end: a program may hold it (MatGetType() before a
     product, as PETSc's mat/tests/ex62.c does), so PetscObjectChangeTypeName(), which frees it, is not used */
  ((PetscObject)X)->type_name = NULL;
  PetscCall(PetscStrallocpy(ctx->mpi ? MATMPIAIJCUSPARSE : MATSEQAIJCUSPARSE, &((PetscObject)X)->type_name));
  if (X->ops->productsetfromoptions == MatProductSetFromOptions_GPUFormat) X->ops->productsetfromoptions = ctx->mpi ? MatGPUFormatMPIBaseOps.productsetfromoptions : MatGPUFormatBaseOps.productsetfromoptions;
  /* and no "anytype" hook of ours: PETSc asks A's before B's, and ours would hide B's (MATTRANSPOSEVIRTUAL, MATSHELL) */
  PetscCall(PetscObjectComposeFunction((PetscObject)X, "MatProductSetFromOptions_anytype_C", NULL));
  if (ctx->mpi) { /* and its blocks, which PETSc's parallel product code multiplies as MATSEQAIJCUSPARSE */
    Mat Ad, Ao;

    PetscCall(MatMPIAIJGetSeqAIJ(X, &Ad, &Ao, NULL));
    PetscCall(MatGPUFormatMasqueradeAdd_Private(mq, Ad));
    PetscCall(MatGPUFormatMasqueradeAdd_Private(mq, Ao));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGPUFormatMasqueradeEnd_Private(MatGPUFormatMasquerade *);

/* Our matrices among A, B, C (of an ABC product) and D present themselves as MATSEQAIJCUSPARSE; if that fails part of
   the way, those already renamed get their names back */
static PetscErrorCode MatGPUFormatMasqueradeBegin_Private(Mat D, PetscBool withD, MatGPUFormatMasquerade *mq)
{
  Mat_Product   *product = D->product;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  mq->n = 0;
  MatGPUFormatMasqueradeDepth++;
  ierr = MatGPUFormatMasqueradeAdd_Private(mq, product->A);
  if (!ierr) ierr = MatGPUFormatMasqueradeAdd_Private(mq, product->B);
  if (!ierr && product->type == MATPRODUCT_ABC) ierr = MatGPUFormatMasqueradeAdd_Private(mq, product->C);
  if (!ierr && withD) ierr = MatGPUFormatMasqueradeAdd_Private(mq, D);
  if (ierr) PetscCall(MatGPUFormatMasqueradeEnd_Private(mq));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGPUFormatMasqueradeEnd_Private(MatGPUFormatMasquerade *mq)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < mq->n; i++) {
    PetscObject obj = (PetscObject)mq->mat[i];

    PetscCall(PetscFree(obj->type_name)); /* MATSEQAIJCUSPARSE, or whatever PETSc named it during the phase */
    obj->type_name                         = mq->type[i];
    mq->type[i]                            = NULL;
    mq->mat[i]->ops->productsetfromoptions = mq->productsetfromoptions[i];
    PetscCall(PetscObjectComposeFunction(obj, "MatProductSetFromOptions_anytype_C", MatProductSetFromOptions_GPUFormat));
  }
  for (PetscInt i = 0; i < mq->n; i++) PetscCall(MatDestroy(&mq->mat[i]));
  mq->n = 0;
  MatGPUFormatMasqueradeDepth--;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGPUFormatProductGet_Private(Mat D, MatGPUFormatProduct **pd)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)D, MATGPUFORMAT_PRODUCT_CTX, (void **)pd));
  if (!*pd) {
    PetscCall(PetscNew(pd));
    PetscCall(PetscObjectContainerCompose((PetscObject)D, MATGPUFORMAT_PRODUCT_CTX, *pd, MatGPUFormatCtxDestroyDefault));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductSymbolic_GPUFormat(Mat);
static PetscErrorCode MatProductNumeric_GPUFormat(Mat);

/* Puts our wrappers in front of the phases PETSc (re)installed on D */
static PetscErrorCode MatGPUFormatProductWrap_Private(Mat D)
{
  MatGPUFormatProduct *pd;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatProductGet_Private(D, &pd));
  if (D->ops->productsymbolic && D->ops->productsymbolic != MatProductSymbolic_GPUFormat) {
    pd->symbolic            = D->ops->productsymbolic;
    D->ops->productsymbolic = MatProductSymbolic_GPUFormat;
  }
  if (D->ops->productnumeric && D->ops->productnumeric != MatProductNumeric_GPUFormat) {
    pd->numeric            = D->ops->productnumeric;
    D->ops->productnumeric = MatProductNumeric_GPUFormat;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A MATSEQAIJCUSPARSE result takes the format of the first of our operands, unless it is small */
static PetscErrorCode MatGPUFormatProductResultType_Private(Mat D)
{
  Mat_Product   *product = D->product;
  Mat            operands[3];
  Mat_GPUFormat *ctx = NULL;
  PetscBool      cusparse;

  PetscFunctionBegin;
  operands[0] = product->A;
  operands[1] = product->B;
  operands[2] = product->type == MATPRODUCT_ABC ? product->C : NULL;
  for (PetscInt i = 0; i < 3 && !ctx; i++) {
    if (operands[i]) PetscCall(MatGPUFormatIsOurs_Private(operands[i], &ctx));
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)D, ctx && ctx->mpi ? MATMPIAIJCUSPARSE : MATSEQAIJCUSPARSE, &cusparse));
  if (!ctx || !cusparse || D->boundtocpu) PetscFunctionReturn(PETSC_SUCCESS);
  if (D->rmap->N < ctx->product_min_rows) {
    PetscCall(PetscInfo(D, "Product of %" PetscInt_FMT " rows stays %s (-mat_gpuformat_product_min_rows %" PetscInt_FMT ")\n", D->rmap->N, ((PetscObject)D)->type_name, ctx->product_min_rows));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (ctx->mpi) PetscCall(MatGPUFormatMPIConvertInPlace_Private(D, ctx->ops));
  else PetscCall(MatGPUFormatConvertInPlace_Private(D, ctx->ops));
  PetscCall(MatGPUFormatCopyParams_Private(ctx, D));
  PetscCall(PetscInfo(D, "Product of %" PetscInt_FMT " rows takes the type %s of its operand\n", D->rmap->N, ((PetscObject)D)->type_name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   An operand built on MATSEQAIJCUSPARSE (ours or not; a parallel one's blocks) whose values are newer on the GPU than on
   the host (offloadmask GPU: after MatScale(), or MatSetValuesCOO() with device values) gets its host values brought up
   to date before a symbolic phase. PETSc 3.22's cuSPARSE PtAP, RARt and ABC (MatProductSymbolic_ABC_Basic()) otherwise
   copy their intermediate product's uninitialized host values over its device ones (the intermediate is marked
   unallocated when an operand is not current on both sides, and the next product uploads it), and the first numeric
   phase keeps the result (its values count as computed by the symbolic phase): aijcusparse's own result is wrong there.
   One device-to-host copy of the operand, which the symbolic phase costs far more than; nothing when it is current.
*/
static PetscErrorCode MatGPUFormatProductHostCurrent_Private(Mat X)
{
  PetscBool          mpi, seq;
  const PetscScalar *a;

  PetscFunctionBegin;
  if (!X || !X->assembled) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)X, MATMPIAIJCUSPARSE, &mpi));
  if (mpi) {
    Mat Ad, Ao;

    PetscCall(MatMPIAIJGetSeqAIJ(X, &Ad, &Ao, NULL));
    PetscCall(MatGPUFormatProductHostCurrent_Private(Ad));
    PetscCall(MatGPUFormatProductHostCurrent_Private(Ao));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)X, MATSEQAIJCUSPARSE, &seq));
  if (!seq || X->offloadmask != PETSC_OFFLOAD_GPU) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSeqAIJGetArrayRead(X, &a)); /* aijcusparse's accessor copies the values from the device */
  PetscCall(MatSeqAIJRestoreArrayRead(X, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductSymbolic_GPUFormat(Mat D)
{
  MatGPUFormatProduct   *pd;
  MatGPUFormatMasquerade mq;
  Mat_GPUFormat         *dctx;
  PetscErrorCode         ierr;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatProductGet_Private(D, &pd));
  PetscCheck(pd->symbolic, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Missing symbolic phase");
  PetscCall(MatGPUFormatIsOurs_Private(D, &dctx)); /* a result of ours given by the caller keeps its type */
  PetscCall(MatGPUFormatProductHostCurrent_Private(D->product->A));
  PetscCall(MatGPUFormatProductHostCurrent_Private(D->product->B));
  if (D->product->type == MATPRODUCT_ABC) PetscCall(MatGPUFormatProductHostCurrent_Private(D->product->C));
  PetscCall(MatGPUFormatMasqueradeBegin_Private(D, PETSC_TRUE, &mq));
  ierr = pd->symbolic(D);
  PetscCall(MatGPUFormatMasqueradeEnd_Private(&mq));
  PetscCall(ierr);
  PetscCall(MatGPUFormatProductWrap_Private(D));
  if (!dctx) PetscCall(MatGPUFormatProductResultType_Private(D));
  PetscCall(MatGPUFormatMPISyncBlocks_Private(D)); /* a parallel result of ours: blocks PETSc made during the phase */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   A host MATSEQDENSE result of a product whose A is one of ours on the GPU goes to the GPU before each numeric phase.
   cuSPARSE's (MatProductNumeric_SeqAIJCUSPARSE_SeqDENSECUDA() in PETSc 3.22) gives such a result back to the host at the
   end of the phase but takes its array as a device one in the next: the second numeric phase wrote to a host address
   (PETSc's mat/tests/ex237, which turns its dense operands into MATSEQDENSECUDA for aijcusparse and so never meets it).
   The phase still gives the result back to the host as it was.
*/
static PetscErrorCode MatGPUFormatProductDenseResult_Private(Mat D)
{
  Mat_Product   *product = D->product;
  Mat_GPUFormat *actx;
  PetscBool      hostdense;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatIsOurs_Private(product->A, &actx));
  if (!actx || actx->mpi || product->A->boundtocpu) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)D, MATSEQDENSE, &hostdense));
  if (!hostdense) PetscFunctionReturn(PETSC_SUCCESS); /* a host type reports itself bound to the CPU: not looked at */
  PetscCall(PetscInfo(D, "The host dense result of a product with %s goes to the GPU for the numeric phase\n", ((PetscObject)product->A)->type_name));
  PetscCall(MatConvert(D, MATSEQDENSECUDA, MAT_INPLACE_MATRIX, &D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductNumeric_GPUFormat(Mat D)
{
  MatGPUFormatProduct   *pd;
  MatGPUFormatMasquerade mq;
  PetscErrorCode         ierr;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatProductGet_Private(D, &pd));
  PetscCheck(pd->numeric, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Missing numeric phase");
  PetscCall(MatGPUFormatProductDenseResult_Private(D));
  PetscCall(MatGPUFormatMasqueradeBegin_Private(D, PETSC_TRUE, &mq));
  ierr = pd->numeric(D);
  PetscCall(MatGPUFormatMasqueradeEnd_Private(&mq));
  PetscCall(ierr);
  PetscCall(MatGPUFormatProductWrap_Private(D)); /* some numeric phases (PETSc's ABC) reinstall themselves */
  PetscCall(MatGPUFormatMPISyncBlocks_Private(D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* B and C of a product whose A is one of ours on the GPU move to the GPU when they are host MATSEQAIJ or MATSEQMAIJ (the
   interpolation of a DMDA of several fields), as MatCreateMAIJ() moves a MAIJ of an aijcusparse matrix there */
static PetscErrorCode MatGPUFormatProductUploadOperands_Private(Mat D)
{
  Mat_Product   *product = D->product;
  Mat_GPUFormat *actx;
  Mat            X[2];

  PetscFunctionBegin;
  PetscCall(MatGPUFormatIsOurs_Private(product->A, &actx));
  if (!actx || product->A->boundtocpu) PetscFunctionReturn(PETSC_SUCCESS);
  X[0] = product->B;
  X[1] = product->type == MATPRODUCT_ABC ? product->C : NULL;
  for (PetscInt i = 0; i < 2; i++) {
    PetscBool host;

    if (!X[i] || !X[i]->assembled) continue; /* a host type reports itself bound to the CPU: not a choice of the user's */
    MatType to = actx->mpi ? MATMPIAIJCUSPARSE : MATSEQAIJCUSPARSE;

    if (actx->mpi) PetscCall(PetscObjectTypeCompareAny((PetscObject)X[i], &host, MATMPIAIJ, MATMPIMAIJ, ""));
    else PetscCall(PetscObjectTypeCompareAny((PetscObject)X[i], &host, MATSEQAIJ, MATSEQMAIJ, ""));
    if (!host) continue;
    PetscCall(PetscInfo(D, "Operand %s of a product with %s moves to the GPU: %s in place\n", i ? "C" : "B", ((PetscObject)product->A)->type_name, to));
    PetscCall(MatConvert(X[i], to, MAT_INPLACE_MATRIX, &X[i]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The product operation of our types, and "MatProductSetFromOptions_anytype_C" on them: PETSc's own dispatch,
   run again under the masquerade, chooses what it chooses for aijcusparse. Reached again from that dispatch:
   - with operands of ours not yet masqueraded, because a MATTRANSPOSEVIRTUAL's "anytype" replaced B with its inner
     matrix (AB with B = T(Y) becomes ABt with Y), it masquerades those too and runs the dispatch again;
   - otherwise (PETSc has nothing for the masqueraded operands either) it does nothing, so PETSc goes on to the
     fallbacks it has for aijcusparse.
*/
PetscErrorCode MatProductSetFromOptions_GPUFormat(Mat D)
{
  MatGPUFormatMasquerade mq;
  PetscErrorCode         ierr;

  PetscFunctionBegin;
  MatCheckProduct(D, 1);
  PetscCall(MatGPUFormatProductUploadOperands_Private(D));
  PetscCall(MatGPUFormatMasqueradeBegin_Private(D, PETSC_FALSE, &mq));
  if (!mq.n) { /* every operand of ours is masqueraded already */
    PetscCall(MatGPUFormatMasqueradeEnd_Private(&mq));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  ierr = MatProductSetFromOptions(D);
  PetscCall(MatGPUFormatMasqueradeEnd_Private(&mq));
  PetscCall(ierr);
  PetscCall(MatGPUFormatProductWrap_Private(D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   MATOP_GET_BLOCK_DIAGONAL and MATOP_GET_VBLOCK_DIAGONAL: a MATSEQAIJCUSPARSE view of A (its host CSR arrays,
   not copied). PCPBJACOBI and PCVPBJACOBI take their GPU path for a MATSEQAIJCUSPARSE pmat or block diagonal
   matrix only; they invert the blocks of this one on the host, as they do for aijcusparse, and destroy it.
*/
PetscErrorCode MatGetBlockDiagonal_GPUFormat(Mat A, Mat *D)
{
  const PetscInt    *ia, *ja;
  const PetscScalar *a;
  PetscInt           n;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetArrayRead(A, &a)); /* the host values, current */
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No row structure for %s", ((PetscObject)A)->type_name);
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, A->rmap->n, A->cmap->n, (PetscInt *)ia, (PetscInt *)ja, (PetscScalar *)a, D));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &a));
  PetscCall(MatSetBlockSizesFromMats(*D, A, A));
  PetscCall(MatConvert(*D, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define MATGPUFORMAT_FACTOR_CTX "MatGPUFormatFactor_ctx"

/* The symbolic factorization that cuSPARSE's MatGetFactor() installed on a factor of one of our matrices */
typedef struct {
  PetscErrorCode (*lu)(Mat, Mat, IS, IS, const MatFactorInfo *); /* LU or ILU */
  PetscErrorCode (*chol)(Mat, Mat, IS, const MatFactorInfo *);   /* Cholesky or ICC */
} MatGPUFormatFactor;

/* PETSc's symbolic factorizations of AIJ copy the functions composed on A onto the factor (MatDuplicateNoCreate_SeqAIJ()):
   ours come off it again, so that the factor, a MATSEQAIJCUSPARSE, ends as a factor of aijcusparse does, with none of
   them (what -checkfunctionlist, which PETSc's test harness passes, reports at its destruction) */
static PetscErrorCode MatGPUFormatFactorStrip_Private(Mat fact, Mat A)
{
  Mat_GPUFormat *ctx;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatGetCtx_Private(A, &ctx));
  if (ctx && ctx->ops) PetscCall(MatGPUFormatComposeFunctions_Private(fact, ctx->ops->seqtype, MATSEQAIJCUSPARSE, MATSEQAIJ, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGPUFormatFactorGet_Private(Mat fact, MatGPUFormatFactor **f)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)fact, MATGPUFORMAT_FACTOR_CTX, (void **)f));
  PetscCheck(*f, PetscObjectComm((PetscObject)fact), PETSC_ERR_PLIB, "The factor of a petsc-gpuformats matrix has lost its symbolic factorization");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatLUFactorSymbolic_GPUFormatFactor(Mat fact, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  MatGPUFormatFactor *f;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatFactorGet_Private(fact, &f));
  PetscCheck(f->lu, PetscObjectComm((PetscObject)fact), PETSC_ERR_PLIB, "The factor of a petsc-gpuformats matrix has no LU or ILU symbolic factorization");
  PetscCall((*f->lu)(fact, A, row, col, info));
  PetscCall(MatGPUFormatFactorStrip_Private(fact, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCholeskyFactorSymbolic_GPUFormatFactor(Mat fact, Mat A, IS perm, const MatFactorInfo *info)
{
  MatGPUFormatFactor *f;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatFactorGet_Private(fact, &f));
  PetscCheck(f->chol, PetscObjectComm((PetscObject)fact), PETSC_ERR_PLIB, "The factor of a petsc-gpuformats matrix has no Cholesky or ICC symbolic factorization");
  PetscCall((*f->chol)(fact, A, perm, info));
  PetscCall(MatGPUFormatFactorStrip_Private(fact, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cuSPARSE's factor of A, as for aijcusparse, with its symbolic factorization wrapped (MatGPUFormatFactorStrip_Private())
   when A is one of ours; for aijcusparse itself, cuSPARSE's factor unchanged */
static PetscErrorCode MatGetFactor_GPUFormat_cusparse(Mat A, MatFactorType ftype, Mat *B)
{
  MatGPUFormatFactor *f;
  Mat_GPUFormat      *actx;
  Mat                 F;

  PetscFunctionBegin;
  PetscCall(MatGetFactor_seqaijcusparse_cusparse(A, ftype, B));
  F = *B;
  if (!F) PetscFunctionReturn(PETSC_SUCCESS); /* that factorization is not available */
  PetscCall(MatGPUFormatIsOurs_Private(A, &actx));
  if (!actx) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscNew(&f));
  PetscCall(PetscObjectContainerCompose((PetscObject)F, MATGPUFORMAT_FACTOR_CTX, f, MatGPUFormatCtxDestroyDefault));
  switch (ftype) {
  case MAT_FACTOR_LU:
    f->lu = F->ops->lufactorsymbolic;
    if (f->lu) F->ops->lufactorsymbolic = MatLUFactorSymbolic_GPUFormatFactor;
    break;
  case MAT_FACTOR_ILU:
    f->lu = F->ops->ilufactorsymbolic;
    if (f->lu) F->ops->ilufactorsymbolic = MatLUFactorSymbolic_GPUFormatFactor;
    break;
  case MAT_FACTOR_CHOLESKY:
    f->chol = F->ops->choleskyfactorsymbolic;
    if (f->chol) F->ops->choleskyfactorsymbolic = MatCholeskyFactorSymbolic_GPUFormatFactor;
    break;
  case MAT_FACTOR_ICC:
    f->chol = F->ops->iccfactorsymbolic;
    if (f->chol) F->ops->iccfactorsymbolic = MatCholeskyFactorSymbolic_GPUFormatFactor;
    break;
  default:
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cuSPARSE's LU, Cholesky, ILU and ICC for our type, as for aijcusparse (its default factorization) */
PetscErrorCode MatGPUFormatRegisterSolvers_Private(MatGPUFormatOps *ops)
{
  const MatFactorType ftypes[] = {MAT_FACTOR_LU, MAT_FACTOR_CHOLESKY, MAT_FACTOR_ILU, MAT_FACTOR_ICC};

  PetscFunctionBegin;
  /* MatSolverTypeRegister() reads its list before it initializes the package, whose own registrations it would then
     drop: the package must be initialized first */
  PetscCall(MatInitializePackage());
  /* and for aijcusparse: a solver named explicitly (-pc_factor_mat_solver_type cusparse) is looked up by the first type
     registered that begins the matrix's type name, aijcusparse's before ours (MatSolverTypeGet()) */
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(ftypes); i++) {
    PetscCall(MatSolverTypeRegister(MATSOLVERCUSPARSE, MATSEQAIJCUSPARSE, ftypes[i], MatGetFactor_GPUFormat_cusparse));
    PetscCall(MatSolverTypeRegister(MATSOLVERCUSPARSE, ops->seqtype, ftypes[i], MatGetFactor_GPUFormat_cusparse));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

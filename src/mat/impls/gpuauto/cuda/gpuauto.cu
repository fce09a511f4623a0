/*
   gpuauto on the GPU: a format whose object holds one object of every candidate format and, after a build, the one it
   chose. The build ranks the candidates by the model (gpuauto.c) and builds the first that holds the matrix (DIA and ELL
   may decline it); with -mat_gpuauto_tune it builds the first few in turn, times a few products of each (cuSPARSE's CSR
   product too, when it is among them) and keeps the fastest, one candidate held at a time besides the best so far. The
   products, refreshes and views are the chosen format's; when the choice is cuSPARSE's CSR the format declines the
   matrix, and the common layer multiplies with aijcusparse's product.
*/
#include "../gpuauto.h"
#include "../../cmrs/cmrs.h"
#include "../../sellcs/sellcs.h"
#include "../../bce/bce.h"
#include "../../dia/dia.h"
#include "../../hyb/hyb.h"
#include "../../argcsr/argcsr.h"
#include <petsc/private/petscimpl.h>
#include <cusparse.h>

#define GPUAUTO_DEFAULT_TUNE_CANDIDATES 3
#define GPUAUTO_DEFAULT_TUNE_PRODUCTS   20
#define GPUAUTO_TUNE_BATCHES            3 /* the time of a candidate: the median of this many batches */

/* every candidate's operations; cuSPARSE's CSR has none (the common layer's fallback) */
static MatGPUFormatOps *const GPUAutoCandidateOps[GPUAUTO_NCANDIDATES] = {NULL, &MatCMRSOps, &MatSELLCSOps, &MatBCEOps, &MatDIAOps, &MatHYBOps, &MatELLOps, &MatARGCSROps};

typedef struct {
  /* parameters */
  PetscInt  mask;                     /* the candidates allowed, -mat_gpuauto_formats (1 << GPUAutoCandidate) */
  PetscBool tune;                     /* -mat_gpuauto_tune */
  PetscInt  ntune;                    /* -mat_gpuauto_tune_candidates: candidates timed */
  PetscInt  ntuneprods;               /* -mat_gpuauto_tune_products: products per batch */
  void     *fmt[GPUAUTO_NCANDIDATES]; /* the candidates' objects (their parameters; the chosen one's device data) */
  /* the last build */
  PetscInt         chosen; /* a GPUAutoCandidate, or -1 before a build */
  GPUAutoRule      rule;
  GPUAutoCandidate order[GPUAUTO_NCANDIDATES];
  PetscInt         norder;
  PetscBool        declined[GPUAUTO_NCANDIDATES]; /* declined the matrix at this build */
  PetscErrorCode   failed[GPUAUTO_NCANDIDATES];   /* its build or timing failed: PETSC_ERR_SUP (a format's limit, or its
                                                      bound with its fallback off), PETSC_ERR_MEM, PETSC_ERR_GPU_RESOURCE */
  PetscBool            timed[GPUAUTO_NCANDIDATES];
  PetscReal            us[GPUAUTO_NCANDIDATES]; /* with tune: microseconds per product */
  PetscLogDouble       tuneseconds;             /* with tune: the whole build's host time */
  MatGPUFormatRowStats stats;
  PetscInt             m, n;
  MatGPUFormatScratch  scratch; /* the tuning's vectors and cuSPARSE's buffer */
} Mat_GPUAuto;

/* ------------------------------------------------------------------ tuning */

/* The timed batches of GPUAutoTime(): the median of GPUAUTO_TUNE_BATCHES batches of a->ntuneprods products, after one */
static PetscErrorCode GPUAutoTimeBatches(Mat_GPUAuto *a, PetscInt c, const MatGPUFormatCSR *csr, const PetscScalar *x, PetscScalar *z, cusparseHandle_t handle, cusparseSpMatDescr_t mat, cusparseDnVecDescr_t vx, cusparseDnVecDescr_t vz, void *buffer, cudaEvent_t ev[2], PetscReal *us)
{
  const PetscScalar one = 1.0, zero = 0.0;
  PetscReal         t[GPUAUTO_TUNE_BATCHES];

  PetscFunctionBegin;
  for (PetscInt b = -1; b < GPUAUTO_TUNE_BATCHES; b++) {
    const PetscInt reps = b < 0 ? 1 : a->ntuneprods;
    float          ms;

    PetscCallCUDA(cudaEventRecord(ev[0], csr->stream));
    for (PetscInt r = 0; r < reps; r++) {
      if (c == GPUAUTO_CSR) PetscCallCUSPARSE(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero, vz, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, buffer));
      else PetscCall(GPUAutoCandidateOps[c]->mult(a->fmt[c], x, NULL, z, csr->stream));
    }
    PetscCallCUDA(cudaEventRecord(ev[1], csr->stream));
    PetscCallCUDA(cudaEventSynchronize(ev[1]));
    PetscCallCUDA(cudaEventElapsedTime(&ms, ev[0], ev[1]));
    if (b >= 0) t[b] = 1e3 * (PetscReal)ms / (PetscReal)reps;
  }
  PetscCall(PetscSortReal(GPUAUTO_TUNE_BATCHES, t));
  *us = t[GPUAUTO_TUNE_BATCHES / 2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Microseconds per product z = A x of candidate c (built), or of cuSPARSE's CSR SpMV for GPUAUTO_CSR: the median of
   GPUAUTO_TUNE_BATCHES batches. The cuSPARSE objects and the events are destroyed on every path (the buffer is a scratch
   entry, which reset() releases too); a failure of cuSPARSE or CUDA to give them, out of memory among its causes, is
   PETSC_ERR_GPU_RESOURCE
*/
static PetscErrorCode GPUAutoTime(Mat_GPUAuto *a, PetscInt c, const MatGPUFormatCSR *csr, const PetscScalar *x, PetscScalar *z, PetscReal *us)
{
  cudaEvent_t          ev[2]  = {NULL, NULL};
  cusparseHandle_t     handle = NULL;
  cusparseSpMatDescr_t mat    = NULL;
  cusparseDnVecDescr_t vx = NULL, vz = NULL;
  void                *buffer = NULL;
  const PetscScalar    one = 1.0, zero = 0.0;
  PetscInt             mark = a->scratch.n;
  PetscErrorCode       ierr = PETSC_SUCCESS;

  PetscFunctionBegin;
  if (c == GPUAUTO_CSR) {
    size_t bytes = 0;

    if (cusparseCreate(&handle) != CUSPARSE_STATUS_SUCCESS) ierr = PETSC_ERR_GPU_RESOURCE;
    if (!ierr && cusparseSetStream(handle, csr->stream) != CUSPARSE_STATUS_SUCCESS) ierr = PETSC_ERR_GPU_RESOURCE;
    if (!ierr && cusparseCreateCsr(&mat, csr->m, csr->n, csr->nnz, (void *)csr->rowptr, (void *)csr->colind, (void *)csr->val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F) != CUSPARSE_STATUS_SUCCESS) ierr = PETSC_ERR_GPU_RESOURCE;
    if (!ierr && cusparseCreateDnVec(&vx, csr->n, (void *)x, CUDA_R_64F) != CUSPARSE_STATUS_SUCCESS) ierr = PETSC_ERR_GPU_RESOURCE;
    if (!ierr && cusparseCreateDnVec(&vz, csr->m, (void *)z, CUDA_R_64F) != CUSPARSE_STATUS_SUCCESS) ierr = PETSC_ERR_GPU_RESOURCE;
    if (!ierr && cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero, vz, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &bytes) != CUSPARSE_STATUS_SUCCESS) ierr = PETSC_ERR_GPU_RESOURCE;
    if (!ierr && bytes) ierr = MatGPUFormatScratchMalloc_Private(&a->scratch, "GPUAuto", bytes, &buffer);
  }
  if (!ierr && cudaEventCreate(&ev[0]) != cudaSuccess) ierr = PETSC_ERR_GPU_RESOURCE;
  if (!ierr && cudaEventCreate(&ev[1]) != cudaSuccess) ierr = PETSC_ERR_GPU_RESOURCE;
  if (!ierr) ierr = GPUAutoTimeBatches(a, c, csr, x, z, handle, mat, vx, vz, buffer, ev, us);
  if (ev[0]) (void)cudaEventDestroy(ev[0]);
  if (ev[1]) (void)cudaEventDestroy(ev[1]);
  if (vx) (void)cusparseDestroyDnVec(vx);
  if (vz) (void)cusparseDestroyDnVec(vz);
  if (mat) (void)cusparseDestroySpMat(mat);
  if (handle) (void)cusparseDestroy(handle);
  if (!ierr) ierr = MatGPUFormatScratchRelease_Private(&a->scratch, mark);
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ build */

/* An error that a candidate may give and the choice goes on from (the candidate is then reset and passed over): a format's
   own limit, or its bound with its fallback off (PETSC_ERR_SUP), out of device memory (PETSC_ERR_MEM, or
   PETSC_ERR_GPU_RESOURCE from the timing's cuSPARSE objects). Any other error is raised. */
static PetscBool GPUAutoRecoverable(PetscErrorCode ierr)
{
  return (PetscBool)(ierr == PETSC_ERR_SUP || ierr == PETSC_ERR_MEM || ierr == PETSC_ERR_GPU_RESOURCE);
}

/* After candidate c failed with ierr: nothing of it held, the pool trimmed after out of memory, the error raised unless
   recoverable */
static PetscErrorCode GPUAutoCandidateFailed(Mat_GPUAuto *a, PetscInt c, PetscErrorCode ierr)
{
  PetscFunctionBegin;
  if (c > GPUAUTO_CSR) PetscCall(GPUAutoCandidateOps[c]->reset(a->fmt[c]));
  PetscCheck(GPUAutoRecoverable(ierr), PETSC_COMM_SELF, ierr, "gpuauto: candidate %s failed (PETSc error %d)", GPUAutoCandidateNames[c], (int)ierr);
  a->failed[c] = ierr;
  if (ierr != PETSC_ERR_SUP) PetscCall(MatGPUFormatReleaseCachedMemory_Private());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Candidate c (a format) builds the matrix, under its own log event; *held when it holds it: not when it declined it (DIA,
   ELL past their bounds) nor when its build failed with a recoverable error (then reset; the others are raised) */
static PetscErrorCode GPUAutoBuildCandidate(Mat_GPUAuto *a, PetscInt c, const MatGPUFormatCSR *csr, PetscBool *held)
{
  MatGPUFormatOps *ops      = GPUAutoCandidateOps[c];
  PetscBool        declined = PETSC_FALSE;
  PetscErrorCode   ierr;

  PetscFunctionBegin;
  *held = PETSC_FALSE;
  PetscCall(PetscLogEventBegin(ops->event_build, 0, 0, 0, 0));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); /* a refusal or out of memory is not printed */
  ierr = ops->build(a->fmt[c], csr);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscLogEventEnd(ops->event_build, 0, 0, 0, 0));
  if (ierr) {
    PetscCall(GPUAutoCandidateFailed(a, c, ierr));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (ops->declined) PetscCall(ops->declined(a->fmt[c], &declined));
  if (declined) PetscCall(ops->reset(a->fmt[c]));
  a->declined[c] = declined;
  *held          = (PetscBool)!declined;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GPUAutoReset(void *fmt)
{
  Mat_GPUAuto *a = (Mat_GPUAuto *)fmt;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatScratchRelease_Private(&a->scratch, 0));
  for (PetscInt c = 0; c < GPUAUTO_NCANDIDATES; c++)
    if (a->fmt[c]) PetscCall(GPUAutoCandidateOps[c]->reset(a->fmt[c]));
  a->chosen = -1;
  a->norder = 0;
  PetscCall(PetscArrayzero(a->declined, GPUAUTO_NCANDIDATES));
  PetscCall(PetscArrayzero(a->failed, GPUAUTO_NCANDIDATES));
  PetscCall(PetscArrayzero(a->timed, GPUAUTO_NCANDIDATES));
  PetscCall(PetscArrayzero(a->us, GPUAUTO_NCANDIDATES));
  a->tuneseconds = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The choice: the candidates in the model's order; without tuning the first that holds the matrix (cuSPARSE's CSR
   always does), with tuning the fastest of the first ntune that hold it, each timed right after its build and reset
   unless it is the fastest so far
*/
static PetscErrorCode GPUAutoBuild(void *fmt, const MatGPUFormatCSR *csr)
{
  Mat_GPUAuto   *a      = (Mat_GPUAuto *)fmt;
  PetscInt       ntimed = 0, mark;
  PetscReal      best   = PETSC_MAX_REAL;
  PetscScalar   *x = NULL, *z = NULL;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(GPUAutoReset(fmt));
  PetscCall(PetscTime(&t0));
  a->stats = csr->stats;
  a->m     = csr->m;
  a->n     = csr->n;
  PetscCall(GPUAutoRank(csr->m, &csr->stats, a->mask, a->order, &a->norder, &a->rule));
  mark = a->scratch.n;
  if (a->tune) {
    const MatGPUFormatArray vecs[] = {
        {(void **)&x, (size_t)csr->n * sizeof(PetscScalar)},
        {(void **)&z, (size_t)csr->m * sizeof(PetscScalar)}
    };

    PetscCall(MatGPUFormatScratchMallocArrays_Private(&a->scratch, "GPUAuto", PETSC_STATIC_ARRAY_LENGTH(vecs), vecs));
    PetscCallCUDA(cudaMemsetAsync(x, 0, (size_t)csr->n * sizeof(PetscScalar), csr->stream)); /* the time does not depend on x's values */
  }
  for (PetscInt i = 0; i < a->norder && (!a->tune || ntimed < a->ntune); i++) {
    const PetscInt c    = a->order[i];
    PetscBool      held = PETSC_TRUE;
    PetscReal      us   = 0;
    PetscErrorCode ierr;

    if (c != GPUAUTO_CSR) PetscCall(GPUAutoBuildCandidate(a, c, csr, &held));
    if (!held) continue;
    if (!a->tune) {
      a->chosen = c;
      break;
    }
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = GPUAutoTime(a, c, csr, x, z, &us);
    PetscCall(PetscPopErrorHandler());
    if (ierr) {
      PetscCall(GPUAutoCandidateFailed(a, c, ierr));
      continue;
    }
    a->timed[c] = PETSC_TRUE;
    a->us[c]    = us;
    ntimed++;
    if (us < best) { /* the new best; the previous one's device data goes */
      if (a->chosen > GPUAUTO_CSR) PetscCall(GPUAutoCandidateOps[a->chosen]->reset(a->fmt[a->chosen]));
      a->chosen = c;
      best      = us;
    } else if (c != GPUAUTO_CSR) PetscCall(GPUAutoCandidateOps[c]->reset(a->fmt[c]));
  }
  PetscCall(MatGPUFormatScratchRelease_Private(&a->scratch, mark));
  /* every candidate allowed declined (DIA or ELL alone): cuSPARSE's CSR, as a declining format does */
  if (a->chosen < 0) a->chosen = GPUAUTO_CSR;
  PetscCall(PetscTime(&t1));
  a->tuneseconds = a->tune ? t1 - t0 : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ products: the chosen format's */

static PetscErrorCode GPUAutoChosen(const Mat_GPUAuto *a, MatGPUFormatOps **ops, void **fmt)
{
  PetscFunctionBegin;
  PetscCheck(a->chosen > GPUAUTO_CSR, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpuauto: no format chosen (%" PetscInt_FMT ")", a->chosen);
  *ops = GPUAutoCandidateOps[a->chosen];
  *fmt = a->fmt[a->chosen];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GPUAutoRefresh(void *fmt, const MatGPUFormatCSR *csr)
{
  MatGPUFormatOps *ops;
  void            *f;

  PetscFunctionBegin;
  PetscCall(GPUAutoChosen((Mat_GPUAuto *)fmt, &ops, &f));
  PetscCall(PetscLogEventBegin(ops->event_values, 0, 0, 0, 0));
  PetscCall(ops->refresh(f, csr));
  PetscCall(PetscLogEventEnd(ops->event_values, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GPUAutoMult(void *fmt, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  MatGPUFormatOps *ops;
  void            *f;

  PetscFunctionBegin;
  PetscCall(GPUAutoChosen((Mat_GPUAuto *)fmt, &ops, &f));
  PetscCall(ops->mult(f, x, y, z, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GPUAutoMultRefresh(void *fmt, const MatGPUFormatCSR *csr, const PetscScalar *x, const PetscScalar *y, PetscScalar *z, cudaStream_t stream)
{
  MatGPUFormatOps *ops;
  void            *f;

  PetscFunctionBegin;
  PetscCall(GPUAutoChosen((Mat_GPUAuto *)fmt, &ops, &f));
  PetscCall(PetscLogEventBegin(ops->event_values, 0, 0, 0, 0));
  if (ops->multrefresh) PetscCall(ops->multrefresh(f, csr, x, y, z, stream));
  else {
    PetscCall(ops->refresh(f, csr));
    PetscCall(ops->mult(f, x, y, z, stream));
  }
  PetscCall(PetscLogEventEnd(ops->event_values, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GPUAutoDeclined(void *fmt, PetscBool *declined)
{
  PetscFunctionBegin;
  *declined = (PetscBool)(((Mat_GPUAuto *)fmt)->chosen == GPUAUTO_CSR);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ the format interface */

static PetscErrorCode GPUAutoDestroy(void *fmt)
{
  Mat_GPUAuto *a = (Mat_GPUAuto *)fmt;

  PetscFunctionBegin;
  for (PetscInt c = 0; c < GPUAUTO_NCANDIDATES; c++)
    if (a->fmt[c]) PetscCall(MatGPUFormatObjectDestroy_Private(GPUAutoCandidateOps[c], &a->fmt[c]));
  PetscCall(PetscFree(a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GPUAutoCreate(void **fmt)
{
  Mat_GPUAuto   *a;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBegin;
  PetscCall(PetscNew(&a));
  a->mask       = (1 << GPUAUTO_NCANDIDATES) - 1;
  a->ntune      = GPUAUTO_DEFAULT_TUNE_CANDIDATES;
  a->ntuneprods = GPUAUTO_DEFAULT_TUNE_PRODUCTS;
  a->chosen     = -1;
  for (PetscInt c = 1; c < GPUAUTO_NCANDIDATES && !ierr; c++) ierr = GPUAutoCandidateOps[c]->create(&a->fmt[c]);
  if (ierr) PetscCall(GPUAutoDestroy(a)); /* out of host memory: nothing kept */
  PetscCall(ierr);
  *fmt = a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GPUAutoCopyParams(const void *src, void *dst)
{
  const Mat_GPUAuto *a = (const Mat_GPUAuto *)src;
  Mat_GPUAuto       *b = (Mat_GPUAuto *)dst;

  PetscFunctionBegin;
  b->mask       = a->mask;
  b->tune       = a->tune;
  b->ntune      = a->ntune;
  b->ntuneprods = a->ntuneprods;
  for (PetscInt c = 1; c < GPUAUTO_NCANDIDATES; c++) PetscCall(GPUAutoCandidateOps[c]->copyparams(a->fmt[c], b->fmt[c]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GPUAutoSameParams(const void *pa, const void *pb, PetscBool *same)
{
  const Mat_GPUAuto *a = (const Mat_GPUAuto *)pa, *b = (const Mat_GPUAuto *)pb;

  PetscFunctionBegin;
  *same = (PetscBool)(a->mask == b->mask && a->tune == b->tune && a->ntune == b->ntune && a->ntuneprods == b->ntuneprods);
  for (PetscInt c = 1; c < GPUAUTO_NCANDIDATES && *same; c++) PetscCall(GPUAutoCandidateOps[c]->sameparams(a->fmt[c], b->fmt[c], same));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* gpuauto's own options, then every candidate's (-mat_sellcs_c and the like apply to the candidate) */
static PetscErrorCode GPUAutoSetFromOptions(void *fmt, MatGPUFormatOptionItems PetscOptionsObject)
{
  Mat_GPUAuto *a = (Mat_GPUAuto *)fmt;
  char         list[256];
  PetscBool    set, tune = a->tune;
  PetscInt     mask = a->mask, ntune = a->ntune, nprods = a->ntuneprods;

  PetscFunctionBegin;
  PetscCall(GPUAutoFormatsString(a->mask, list, sizeof(list)));
  PetscCall(PetscOptionsString("-mat_gpuauto_formats", "Candidate formats, by name: aijcusparse, cmrs, sellcs, bce, dia, hyb, ell, argcsr", "MATSEQGPUAUTO", list, list, sizeof(list), &set));
  if (set) PetscCall(GPUAutoParseFormats(list, &mask));
  PetscCall(PetscOptionsBool("-mat_gpuauto_tune", "Time the first candidates that hold the matrix and keep the fastest", "MATSEQGPUAUTO", tune, &tune, NULL));
  PetscCall(PetscOptionsInt("-mat_gpuauto_tune_candidates", "Candidates timed with -mat_gpuauto_tune", "MATSEQGPUAUTO", ntune, &ntune, NULL));
  PetscCall(PetscOptionsInt("-mat_gpuauto_tune_products", "Products per batch of each candidate's timing (the median of 3 batches)", "MATSEQGPUAUTO", nprods, &nprods, NULL));
  PetscCheck(ntune >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_gpuauto_tune_candidates %" PetscInt_FMT " is not positive", ntune);
  PetscCheck(nprods >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_gpuauto_tune_products %" PetscInt_FMT " is not positive", nprods);
  for (PetscInt c = 1; c < GPUAUTO_NCANDIDATES; c++) PetscCall(GPUAutoCandidateOps[c]->setfromoptions(a->fmt[c], PetscOptionsObject));
  a->mask       = mask;
  a->tune       = tune;
  a->ntune      = ntune;
  a->ntuneprods = nprods;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GPUAutoView(void *fmt, PetscViewer viewer)
{
  const Mat_GPUAuto *a         = (const Mat_GPUAuto *)fmt;
  char               line[512] = "", list[256];
  size_t             len;

  PetscFunctionBegin;
  if (a->chosen < 0) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < a->norder; i++) {
    const PetscInt c = a->order[i];

    PetscCall(PetscStrlen(line, &len));
    if (a->timed[c]) PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, "%s%s %.1f us", i ? ", " : "", GPUAutoCandidateNames[c], (double)a->us[c]));
    else PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, "%s%s%s", i ? ", " : "", GPUAutoCandidateNames[c], a->declined[c] ? " (declined)" : (a->failed[c] == PETSC_ERR_SUP ? " (refused)" : (a->failed[c] ? " (out of memory)" : ""))));
  }
  PetscCall(GPUAutoFormatsString(a->mask, list, sizeof(list)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "chose %s: %s (row lengths: mean %.2f, standard deviation %.2f, longest %" PetscInt_FMT "; %" PetscInt_FMT " entries)%s\n", GPUAutoCandidateNames[a->chosen], GPUAutoRuleNames[a->rule], a->stats.mean, a->stats.stddev,
                                   a->stats.maxlen, a->stats.nnz, a->tune && a->timed[a->chosen] ? ", the fastest timed" : ", the model's first that holds it"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "candidates in order (-mat_gpuauto_formats %s): %s\n", list, line));
  if (a->tune) PetscCall(PetscViewerASCIIPrintf(viewer, "tuning (-mat_gpuauto_tune, %" PetscInt_FMT " candidates, %" PetscInt_FMT " products a batch): %.3f ms in all, builds included\n", a->ntune, a->ntuneprods, 1e3 * a->tuneseconds));
  if (a->chosen > GPUAUTO_CSR) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "%s GPU format:\n", GPUAutoCandidateOps[a->chosen]->title));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(GPUAutoCandidateOps[a->chosen]->view(a->fmt[a->chosen], viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GPUAutoMemory(void *fmt, PetscLogDouble *bytes)
{
  const Mat_GPUAuto *a = (const Mat_GPUAuto *)fmt;

  PetscFunctionBegin;
  *bytes = 0;
  if (a->chosen > GPUAUTO_CSR) PetscCall(GPUAutoCandidateOps[a->chosen]->memory(a->fmt[a->chosen], bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

MatGPUFormatOps MatGPUAutoOps = {"gpuauto", "GPUAuto", MATSEQGPUAUTO, MATMPIGPUAUTO, GPUAutoCreate, GPUAutoCopyParams, GPUAutoSameParams, GPUAutoSetFromOptions, GPUAutoBuild, GPUAutoRefresh, GPUAutoMult, GPUAutoReset, GPUAutoView, GPUAutoMemory, 0, 0, GPUAutoMultRefresh, GPUAutoDeclined, GPUAutoDestroy, GPUAUTO_BUILD_AFTER};

/*MC
   MATSEQGPUAUTO - "seqaijcusparsegpuauto" - A sequential `MATSEQAIJCUSPARSE` matrix that multiplies on the GPU in the
   format that it chooses for the matrix at each build: one of `MATSEQCMRS`, `MATSEQSELLCS`, `MATSEQBCE`, `MATSEQDIA`,
   `MATSEQHYB`, `MATSEQELL`, `MATSEQARGCSR`, or cuSPARSE's CSR (the product of `MATSEQAIJCUSPARSE`)

   A model ranks the candidates from the row statistics (the mean, standard deviation and longest of the row lengths, the
   entries); the first that holds the matrix is built (DIA and ELL decline matrices past their fill bounds). With
   `-mat_gpuauto_tune` the first few that hold it are built and timed in turn and the fastest is kept. All other
   operations are those of `MATSEQAIJCUSPARSE`.

   Options Database Keys:
+  -mat_type gpuauto - sets the type (with `MatSetFromOptions()`), or converts an assembled `MATSEQAIJCUSPARSE` in place
.  -mat_gpuauto_formats <list> - the candidates, by name: aijcusparse, cmrs, sellcs, bce, dia, hyb, ell, argcsr (default all)
.  -mat_gpuauto_tune <bool> - time the first candidates that hold the matrix and keep the fastest (default false)
.  -mat_gpuauto_tune_candidates <n> - candidates timed (default 3)
.  -mat_gpuauto_tune_products <n> - products per batch of a candidate's timing, the median of 3 batches (default 20)
-  -mat_gpuformat_build_after <n> - products through cuSPARSE's CSR after each change of the nonzero pattern before the
                                    choice and the build, on one process (default 50, so that a short solve never pays a build)

   Level: beginner

   Notes:
   The candidates' own options (`-mat_sellcs_c`, `-mat_dia_max_fill`, ...) apply to them. The choice without
   `-mat_gpuauto_tune` depends only on the matrix and the options. `-mat_view ::ascii_info` says what was chosen and why.

   The model is fitted on the records of the project's suite (bench/gpuauto_fit.py, see the README). A parallel matrix's
   blocks choose and build at the first product (every process together).

.seealso: [](ch_matrices), `Mat`, `MATGPUAUTO`, `MATSEQAIJCUSPARSE`, `MatGPUAutoGetChoice()`
M*/
PetscErrorCode MatCreate_SeqGPUAuto(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_SeqGPUFormat_Private(A, &MatGPUAutoOps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  MatGPUAutoGetChoice - Gets the format that a `MATSEQGPUAUTO` matrix (of a `MATMPIGPUAUTO` matrix: its diagonal block on
  this process) chose at its last build

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameters:
+ format - the name of the format: "aijcusparse" (cuSPARSE's CSR), "cmrs", "sellcs", "bce", "dia", "hyb", "ell" or
           "argcsr"; NULL before the first build (after -mat_gpuformat_build_after products, 50 by default) or for a
           matrix without entries
- kind   - the kind of matrix the model saw ("small", "regular rows, short", "regular rows, long", "power-law rows",
           "power-law rows, large", "irregular rows"), NULL as format is

  Level: intermediate

  Note:
  Pass `NULL` for a value not needed.

.seealso: [](ch_matrices), `Mat`, `MATSEQGPUAUTO`
@*/
PetscErrorCode MatGPUAutoGetChoice(Mat A, const char **format, const char **kind)
{
  Mat_GPUAuto *a = NULL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(MatGPUFormatGetLocalFormat_Private(A, &MatGPUAutoOps, (void **)&a));
  if (format) *format = a && a->chosen >= 0 ? GPUAutoCandidateNames[a->chosen] : NULL;
  if (kind) *kind = a && a->chosen >= 0 ? GPUAutoRuleNames[a->rule] : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

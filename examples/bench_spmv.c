static char help[] = "SpMV benchmark: times MatMult() of one matrix stored in a list of GPU matrix types.\n\
Prints one JSON record per type on stdout (lines start with '{').\n\
  -matrix <lap2d5,lap3d7,lap3d27,banded,longrows,rmat,circuit,fem,lp1,permutation,dense,lprect,file> : matrix generator\n\
     (or -f <PETSc binary or Matrix Market file> with -matrix file); sizes: -help, and examples/matgen.c\n\
  -types <list>      : comma separated entries type[/option=value[/...]], e.g. cmrs/mat_cmrs_height=8;\n\
                       balanced, balanced_hot (/hot_columns=k, default 16384) and stream time the kernels of\n\
                       spmv_balanced.cu instead of a type\n\
  -json_out <file>   : also append the JSON records to this file\n\
  -interleave <R>    : then R rounds of one batch per type, the types in turn (records with \"mode\": \"interleaved\")\n\
  -view_formats      : MatView() (ascii_info) of each matrix after its timed batches and after the interleaved rounds\n\n";

/*
   bench_spmv - SpMV benchmark of the GPU matrix types of petsc-gpuformats against MATSEQAIJCUSPARSE

   Synopsis:
     bench_spmv [-matrix KIND and its size options, or -matrix file -f FILE (matgen.c)] [-seed s]
                [-types aijcusparse,cmrs,cmrs/mat_cmrs_height=8,sellcuda] [-tol t]
                [-warmup n] [-batches b] [-reps r] [-bw_mib mib] [-bw_reps n] [-json_out file] [-interleave R]
                [-view_formats]

   Description:
     A matrix is generated (or loaded) on the host as MATSEQAIJ with exact preallocation and converted
     to MATSEQAIJCUSPARSE, which is the reference. Each entry of -types is a matrix type name optionally
     followed by '/'-separated option assignments. Entry number k (counting from 0) gets the options
     prefix "b<k>_" and each assignment opt=value is inserted in the options database as
     -b<k>_opt value. The entry's matrix is a MatDuplicate() of the reference converted in place to
     the type (except "sellcuda", which PETSc converts from the host MATSEQAIJ matrix to MATSEQSELL and then in place
     to MATSEQSELLCUDA, its own path; a PETSc without it gives a record with "status": "type not available" and the
     run goes on); convert_ms is the time of those MatConvert()s. The entries "balanced",
     "balanced_hot" and "stream" are no type: they time the kernels of spmv_balanced.cu on the reference's CSR
     arrays (the traffic of a product with perfect load balance, with and without the gathers of x;
     balanced_hot gathers the hot_columns columns with the most entries, 16,384 by default, from a copy of x
     packed before each product, and records hot_columns and hot_share, the fraction of the entries in them).
     The balanced kernels are checked by the sum of their partial sums against the sum of the reference
     product; the stream kernel computes nothing to check (rel_err and correct are null).

     For every type the program checks y = B x against the reference product, times the first product
     (which includes any lazy build of the format) and the first 20 (first20_ms), then times -batches batches of -reps products
     each with CUDA events on PETSc's current stream, after -warmup untimed products; then, for the matrix types
     but sellcuda, as many batches of MatScale(B, -1) followed by a product (value_change_us: what a product costs
     right after a change of values, the format's refresh included). wall_median_us is a batch's host time per product,
     its final wait included; issue_us the host's time per product to issue the batch, before that wait: a product is
     bound by the host's work (launch latency, PETSc's calls) where issue_us is about median_us. launch_floor_us and
     access_floor_us are the host's floors, measured once per matrix: the time to issue an empty kernel, and the same kernel
     inside a MatMult() that does what PETSc's GPU products do around theirs (a MATSHELL: the device accessors of x and y,
     the GPU timer, the flop count); a type whose issue_us is about access_floor_us is at the floor. The median time per
     product is compared with a traffic model of CSR SpMV,
       model_bytes = 12 nnz + 4 (m + 1) + 8 n + 8 m
     (8-byte values and 4-byte column indices, 4-byte row offsets, x read once, y written once)
     and with the device-to-device copy bandwidth measured once at start-up.

     With -interleave R the matrix types are then timed again in R rounds: in each round every type times one batch of
     -reps products, the types in turn and the first moving on by one each round, so that a drift of the host's speed
     during the run touches every type alike. One more record per type, with "mode": "interleaved", rounds, and the
     medians over the rounds in median_us (min_us, max_us) and issue_us, checked against the reference once more.

     A type that waits for some products before its build (gpuauto at its defaults, -mat_gpuformat_build_after 50) builds
     nothing at a matrix's first product: its first_ms, rebuild_ms, device_build_ms and host_first_ms are those of
     cuSPARSE's product, its build falls in the first timed batch (max_us) and build_ms is read after the batches.

     The exit code is nonzero when any type's relative error exceeds -tol or is not a number; all records
     are printed first.

   Output keys:
     device, commit, dirty, cuda_driver, cuda_runtime, petsc, copy_bw_GBs, l2_bytes, matrix, matrix_params, rows, cols, nnz, row_mean, row_std, row_max,
     type, entry, median_us, min_us, max_us, wall_median_us, issue_us, launch_floor_us, access_floor_us, value_change_us, reps, batches, gflops, frac_copy_bw,
     model_bytes, first_ms, first20_ms (the first 20 products, the first included), build_ms, build_products, rebuild_ms, rebuild_products, host_first_ms, device_build_ms (median of
     -build_reps builds, default 5), device_build_min_ms, device_build_max_ms, build_reps, device_bytes,
     csr_bytes, cmrs_height, stream_alloc (our types: -mat_gpuformat_stream_alloc), declined (our types: MatGPUFormatGetDeclined()), hot_columns,
     hot_share (balanced_hot, and BCE: MatBCEGetHotColumns()), gpuauto_choice and gpuauto_kind (gpuauto: MatGPUAutoGetChoice()), convert_ms, rel_err, correct (commit: GIT_COMMIT of the environment, else the commit at configure
     time; dirty: GIT_DIRTY, 0 or 1, else null)

   Level: intermediate

.seealso: `MATCMRS`, `MatGPUFormatGetDeviceMemory()`, `MatGPUFormatGetBuildTime()`, `MATSEQAIJCUSPARSE`
*/

#include <math.h>
#include <petscmat.h>
#include <petscbt.h>
#include <petsctime.h>
#include <petscdevice_cuda.h>
#include <nvtx3/nvToolsExt.h>
#include <petscgpuformats.h>
#include "matgen.h"
#include "spmv_balanced.h"
#include "benchutil.h"

/* Capacity of one JSON record; paths are at most PETSC_MAX_PATH_LEN, every other field is short */
#define JSON_LINE_MAX (4 * PETSC_MAX_PATH_LEN)
/* Capacity of the -types option string */
#define TYPES_MAX_LEN PETSC_MAX_PATH_LEN
/* Bytes in one MiB */

/* ------------------------------------------------------------------------------------------------ */
/* JSON record builder                                                                              */
/* ------------------------------------------------------------------------------------------------ */

typedef struct {
  char      buf[JSON_LINE_MAX];
  PetscBool empty; /* no key written yet */
} JSONLine;

static PetscErrorCode JSONAppendRaw(JSONLine *j, const char piece[])
{
  size_t have, add;

  PetscFunctionBeginUser;
  PetscCall(PetscStrlen(j->buf, &have));
  PetscCall(PetscStrlen(piece, &add));
  PetscCheck(have + add < sizeof(j->buf), PETSC_COMM_SELF, PETSC_ERR_SUP, "JSON record longer than %d characters", (int)sizeof(j->buf));
  PetscCall(PetscStrlcat(j->buf, piece, sizeof(j->buf)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode JSONBegin(JSONLine *j)
{
  PetscFunctionBeginUser;
  j->buf[0] = 0;
  j->empty  = PETSC_TRUE;
  PetscCall(JSONAppendRaw(j, "{"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode JSONKey(JSONLine *j, const char key[])
{
  PetscFunctionBeginUser;
  if (!j->empty) PetscCall(JSONAppendRaw(j, ", "));
  j->empty = PETSC_FALSE;
  PetscCall(JSONAppendRaw(j, "\""));
  PetscCall(JSONAppendRaw(j, key));
  PetscCall(JSONAppendRaw(j, "\": "));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* String value with JSON escaping; a NULL value is written as null */
static PetscErrorCode JSONAddString(JSONLine *j, const char key[], const char val[])
{
  char   esc[2 * PETSC_MAX_PATH_LEN];
  size_t len, o = 0;

  PetscFunctionBeginUser;
  PetscCall(JSONKey(j, key));
  if (!val) {
    PetscCall(JSONAppendRaw(j, "null"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscStrlen(val, &len));
  esc[o++] = '"';
  for (size_t i = 0; i < len; i++) {
    const unsigned char c = (unsigned char)val[i];
    /* worst case: a control character becomes \u00XX (6 characters), plus closing quote and 0 */
    PetscCheck(o + 8 < sizeof(esc), PETSC_COMM_SELF, PETSC_ERR_SUP, "JSON string value for key %s is too long", key);
    if (c == '"' || c == '\\') {
      esc[o++] = '\\';
      esc[o++] = (char)c;
    } else if (c < 0x20) { /* control characters must be escaped in JSON */
      PetscCall(PetscSNPrintf(esc + o, sizeof(esc) - o, "\\u%04x", (unsigned)c));
      o += 6;
    } else esc[o++] = (char)c;
  }
  esc[o++] = '"';
  esc[o]   = 0;
  PetscCall(JSONAppendRaw(j, esc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Real value; infinities and NaN (not representable in JSON) are written as null */
static PetscErrorCode JSONAddReal(JSONLine *j, const char key[], PetscReal val)
{
  char tmp[64];

  PetscFunctionBeginUser;
  PetscCall(JSONKey(j, key));
  if (PetscIsInfOrNanReal(val)) PetscCall(PetscStrncpy(tmp, "null", sizeof(tmp)));
  else PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%.9g", (double)val));
  PetscCall(JSONAppendRaw(j, tmp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode JSONAddInt(JSONLine *j, const char key[], PetscInt64 val)
{
  char tmp[64];

  PetscFunctionBeginUser;
  PetscCall(JSONKey(j, key));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%" PetscInt64_FMT, val));
  PetscCall(JSONAppendRaw(j, tmp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode JSONAddBool(JSONLine *j, const char key[], PetscBool val)
{
  PetscFunctionBeginUser;
  PetscCall(JSONKey(j, key));
  PetscCall(JSONAppendRaw(j, val ? "true" : "false"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode JSONAddNull(JSONLine *j, const char key[])
{
  PetscFunctionBeginUser;
  PetscCall(JSONKey(j, key));
  PetscCall(JSONAppendRaw(j, "null"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode JSONEnd(JSONLine *j)
{
  PetscFunctionBeginUser;
  PetscCall(JSONAppendRaw(j, "}\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* Small helpers                                                                                    */
/* ------------------------------------------------------------------------------------------------ */

/* Median of n values (n > 0); the values are sorted in place */
/* ------------------------------------------------------------------------------------------------ */
/* Device information                                                                               */
/* ------------------------------------------------------------------------------------------------ */

/* ------------------------------------------------------------------------------------------------ */
/* Benchmark of one type                                                                            */
/* ------------------------------------------------------------------------------------------------ */

/* ||y - yref||_2 / ||yref||_2 (absolute error if yref = 0); NaN anywhere in y gives NaN */
static PetscErrorCode RelativeError(Vec y, Vec yref, PetscReal nrmref, Vec work, PetscReal *err)
{
  PetscReal   nrm;
  PetscScalar sum;

  PetscFunctionBeginUser;
  PetscCall(VecWAXPY(work, -1.0, yref, y));
  PetscCall(VecNorm(work, NORM_2, &nrm));
  *err = (nrmref > 0.0) ? nrm / nrmref : nrm;
  /* a plain sum propagates NaN whatever the norm implementation does with it */
  PetscCall(VecSum(work, &sum));
  if (PetscIsInfOrNanScalar(sum)) *err = NAN;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Splits a -types entry "type/opt=value/..." at the '/'s, inserts every assignment in the options
  database as -<prefix>opt value, and returns the type name (to be freed with PetscFree()).
*/
static PetscErrorCode ParseEntry(const char entry[], const char prefix[], char **tname)
{
  int    nparts;
  char **parts;

  PetscFunctionBeginUser;
  PetscCall(PetscStrToArray(entry, '/', &nparts, &parts));
  PetscCheck(nparts >= 1 && parts[0][0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Empty type name in -types entry \"%s\"", entry);
  PetscCall(PetscStrallocpy(parts[0], tname));
  for (int p = 1; p < nparts; p++) {
    char  name[PETSC_MAX_PATH_LEN], *eq, *opt = parts[p];
    char *value = NULL;

    if (opt[0] == '-') opt++; /* accept both "opt=value" and "-opt=value" */
    PetscCheck(opt[0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Empty option in -types entry \"%s\"", entry);
    PetscCall(PetscStrchr(opt, '=', &eq));
    if (eq) {
      *eq   = 0;
      value = eq + 1;
    }
    PetscCall(PetscSNPrintf(name, sizeof(name), "-%s%s", prefix, opt));
    PetscCall(PetscOptionsSetValue(NULL, name, value));
  }
  PetscCall(PetscStrToArrayDestroy(nparts, parts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  /* device */
  char            device[256];
  PetscReal       copy_bw; /* GB/s */
  PetscInt        l2_bytes;
  BenchProvenance prov; /* where the records come from */
  /* matrix */
  char       matrix[PETSC_MAX_PATH_LEN];
  char       params[PETSC_MAX_PATH_LEN];
  PetscInt   m, n, row_max;
  PetscInt64 nnz;
  PetscReal  row_mean, row_std;
  /* benchmark parameters */
  PetscInt  warmup, batches, reps;
  PetscInt  build_reps; /* -build_reps: device builds timed, their median in device_build_ms */
  PetscReal tol;
  PetscReal launch_floor, access_floor; /* seconds: MeasureHostFloors() */
  FILE     *json;                       /* -json_out file or NULL */
  PetscBool view_formats;               /* -view_formats: ViewFormat() */
} BenchCtx;

/* What an entry times: MatMult() of its matrix, or a balanced kernel (spmv_balanced.cu) on the reference's CSR */
typedef struct {
  Mat                B;
  PetscBool          balanced; /* a balanced kernel, of this kind */
  SpMVBalancedKind   kind;
  const int         *rowptr, *col;
  const PetscScalar *val;
  PetscScalar       *partial; /* device, nblocks partial sums of a balanced kernel */
  PetscInt           nblocks, m;
  PetscInt64         nnz;
  PetscInt           k;     /* hot columns (balanced_hot) */
  PetscReal          share; /* fraction of the entries in them */
  int               *hot;   /* device, k: the hot columns, most entries first */
  int               *hcol;  /* device, nnz: col with ~j for hot column j */
  PetscScalar       *xh;    /* device, k: x at the hot columns */
} Product;

/* balanced_hot: the k columns of the host matrix with the most entries, and its column indices with ~j for hot column j, on the device */
static PetscErrorCode HotColumns(Mat Ahost, PetscInt k, Product *p)
{
  const PetscInt *ia, *ja;
  PetscInt        m, n, nrows, *count, *order, *rank;
  int            *hot, *hcol;
  PetscInt64      nnz, inhot = 0;
  PetscBool       done;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(Ahost, &m, &n));
  PetscCall(MatGetRowIJ(Ahost, 0, PETSC_FALSE, PETSC_FALSE, &nrows, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "balanced_hot needs the host CSR");
  nnz  = ia[m];
  p->k = PetscMin(k, n);
  PetscCall(PetscCalloc3(n, &count, n, &order, n, &rank));
  for (PetscInt64 e = 0; e < nnz; e++) count[ja[e]]--; /* negative: most entries first */
  for (PetscInt c = 0; c < n; c++) order[c] = c;
  PetscCall(PetscSortIntWithArray(n, count, order));
  PetscCall(PetscMalloc2(p->k, &hot, nnz, &hcol));
  for (PetscInt c = 0; c < n; c++) rank[c] = -1;
  for (PetscInt j = 0; j < p->k; j++) {
    hot[j]         = (int)order[j];
    rank[order[j]] = j;
    inhot -= count[j];
  }
  for (PetscInt64 e = 0; e < nnz; e++) hcol[e] = rank[ja[e]] >= 0 ? ~(int)rank[ja[e]] : (int)ja[e];
  p->share = nnz ? (PetscReal)inhot / (PetscReal)nnz : 0.0;
  PetscCallCUDA(cudaMalloc((void **)&p->hot, (size_t)PetscMax(p->k, 1) * sizeof(int)));
  PetscCallCUDA(cudaMalloc((void **)&p->xh, (size_t)PetscMax(p->k, 1) * sizeof(PetscScalar)));
  PetscCallCUDA(cudaMalloc((void **)&p->hcol, (size_t)PetscMax(nnz, 1) * sizeof(int)));
  PetscCallCUDA(cudaMemcpy(p->hot, hot, (size_t)p->k * sizeof(int), cudaMemcpyHostToDevice));
  PetscCallCUDA(cudaMemcpy(p->hcol, hcol, (size_t)nnz * sizeof(int), cudaMemcpyHostToDevice));
  PetscCall(PetscFree2(hot, hcol));
  PetscCall(PetscFree3(count, order, rank));
  PetscCall(MatRestoreRowIJ(Ahost, 0, PETSC_FALSE, PETSC_FALSE, &nrows, &ia, &ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ProductApply(Product *p, Vec x, Vec y)
{
  const PetscScalar *xa;
  PetscScalar       *ya;
  cudaStream_t       stream;

  PetscFunctionBeginUser;
  if (!p->balanced) {
    PetscCall(MatMult(p->B, x, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(VecCUDAGetArrayRead(x, &xa));
  PetscCall(VecCUDAGetArrayWrite(y, &ya));
  PetscCall(SpMVBalancedLaunch(p->kind, p->nblocks, p->m, p->nnz, p->kind == SPMV_BALANCED_HOT ? p->hcol : p->col, p->val, xa, p->k, p->hot, p->xh, ya, p->partial, stream));
  PetscCall(VecCUDARestoreArrayWrite(y, &ya));
  PetscCall(VecCUDARestoreArrayRead(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Balanced kernels: |sum of their partial sums - sum of yref| / ||yref||_1 (NaN propagates); the stream kernel computes nothing to check */
static PetscErrorCode BalancedError(Product *p, Vec yref, PetscReal *err)
{
  PetscScalar *partial, sum = 0.0, sumref;
  PetscReal    nrm1;

  PetscFunctionBeginUser;
  *err = 0.0;
  if (p->kind == SPMV_BALANCED_STREAM) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(p->nblocks, &partial));
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCallCUDA(cudaMemcpy(partial, p->partial, (size_t)p->nblocks * sizeof(PetscScalar), cudaMemcpyDeviceToHost));
  for (PetscInt b = 0; b < p->nblocks; b++) sum += partial[b];
  PetscCall(PetscFree(partial));
  PetscCall(VecSum(yref, &sumref));
  PetscCall(VecNorm(yref, NORM_1, &nrm1));
  *err = PetscAbsScalar(sum - sumref) / (nrm1 > 0.0 ? nrm1 : 1.0);
  if (PetscIsInfOrNanScalar(sum)) *err = NAN;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode JSONAddProvenance(JSONLine *line, const BenchCtx *ctx)
{
  char members[512];

  PetscFunctionBeginUser;
  PetscCall(BenchProvenanceJSON(&ctx->prov, members, sizeof(members)));
  if (!line->empty) PetscCall(JSONAppendRaw(line, ", "));
  line->empty = PETSC_FALSE;
  PetscCall(JSONAppendRaw(line, members));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether this PETSc has the matrix type (sellcuda needs a PETSc configured with CUDA) */
static PetscErrorCode TypeAvailable(MatType type, PetscBool *available)
{
  PetscErrorCode (*create)(Mat) = NULL;

  PetscFunctionBeginUser;
  /* the registry, not a matrix: PETSc 3.22 leaks 80 bytes when a SELLCUDA matrix is destroyed unpreallocated */
  PetscCall(MatInitializePackage());
  PetscCall(PetscFunctionListFind(MatList, type, &create));
  *available = create ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A record's start: what every record of this run says of the device, the provenance and the matrix */
static PetscErrorCode RecordBegin(BenchCtx *ctx, JSONLine **line)
{
  PetscFunctionBeginUser;
  PetscCall(PetscNew(line));
  PetscCall(JSONBegin(*line));
  PetscCall(JSONAddString(*line, "device", ctx->device));
  PetscCall(JSONAddProvenance(*line, ctx));
  PetscCall(JSONAddReal(*line, "copy_bw_GBs", ctx->copy_bw));
  PetscCall(JSONAddInt(*line, "l2_bytes", ctx->l2_bytes));
  PetscCall(JSONAddString(*line, "matrix", ctx->matrix));
  PetscCall(JSONAddString(*line, "matrix_params", ctx->params));
  PetscCall(JSONAddInt(*line, "rows", ctx->m));
  PetscCall(JSONAddInt(*line, "cols", ctx->n));
  PetscCall(JSONAddInt(*line, "nnz", ctx->nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A record's end: printed, appended to the -json_out file, freed */
static PetscErrorCode RecordEnd(BenchCtx *ctx, JSONLine **line)
{
  PetscFunctionBeginUser;
  PetscCall(JSONEnd(*line));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s", (*line)->buf));
  if (ctx->json) {
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, ctx->json, "%s", (*line)->buf));
    PetscCall(PetscFFlush(ctx->json));
  }
  PetscCall(PetscFree(*line));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The record of an entry whose type this PETSc does not have: the run goes on with the other entries */
static PetscErrorCode NotAvailableRecord(BenchCtx *ctx, const char entry[], MatType type)
{
  JSONLine *line;

  PetscFunctionBeginUser;
  PetscCall(RecordBegin(ctx, &line));
  PetscCall(JSONAddString(line, "type", type));
  PetscCall(JSONAddString(line, "entry", entry));
  PetscCall(JSONAddString(line, "status", "type not available"));
  PetscCall(RecordEnd(ctx, &line));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "bench_spmv: entry \"%s\": type %s not available in this PETSc\n", entry, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *err becomes the larger of *err and y's relative error, NaN if either is */
static PetscErrorCode MaxRelativeError(Vec y, Vec yref, PetscReal nrmref, Vec work, PetscReal *err)
{
  PetscReal e;

  PetscFunctionBeginUser;
  PetscCall(RelativeError(y, yref, nrmref, work, &e));
  *err = PetscIsNanReal(e) || PetscIsNanReal(*err) ? NAN : PetscMax(*err, e);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A second matrix B2 from Aref (MatDuplicate(): aijcusparse duplicates on the host), its CSR uploaded by one aijcusparse
   product first when upload_first, converted in place to type (none: NULL); then its first product on y (set to NaN
   first), timed with the device synchronised before and after */
static PetscErrorCode SecondMatrixFirstProduct(Mat Aref, const char prefix[], const char type[], PetscBool upload_first, Vec x, Vec y, Mat *B2, PetscLogDouble *seconds)
{
  PetscLogDouble s0, s1;

  PetscFunctionBeginUser;
  PetscCall(MatDuplicate(Aref, MAT_COPY_VALUES, B2));
  PetscCall(MatSetOptionsPrefix(*B2, prefix));
  if (upload_first) PetscCall(MatMult(*B2, x, y));
  if (type) PetscCall(MatConvert(*B2, type, MAT_INPLACE_MATRIX, B2));
  PetscCall(VecSet(y, NAN));
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(PetscTime(&s0));
  PetscCall(MatMult(*B2, x, y));
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(PetscTime(&s1));
  *seconds = s1 - s0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The host's floors of a product, each the median over the batches of the time per product to issue -reps of them (as
   issue_us): an empty kernel launched on PETSc's stream (launch_floor_us), and the same launch inside what every GPU
   MatMult() of PETSc does around its kernel: MatMult()'s checks and log event, the device accessors of x and y, the GPU
   timer and the flop count (access_floor_us; here through a MATSHELL, whose own dispatch is a few calls more). A product
   whose issue_us is about access_floor_us is at the host's floor: no type with one launch can be issued faster. The
   shell's products count in -log_view's MatMult event.
*/
typedef struct {
  PetscInt64 nnz; /* the flops logged are a product's, 2 nnz */
} FloorCtx;

static PetscErrorCode FloorMult(Mat S, Vec x, Vec y)
{
  const PetscScalar *xa;
  PetscScalar       *ya;
  cudaStream_t       stream;
  FloorCtx          *f;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(S, &f));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(VecCUDAGetArrayRead(x, &xa));
  PetscCall(VecCUDAGetArrayWrite(y, &ya));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(SpMVEmptyLaunch(xa, ya, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(VecCUDARestoreArrayRead(x, &xa));
  PetscCall(VecCUDARestoreArrayWrite(y, &ya));
  PetscCall(PetscLogGpuFlops(2.0 * (PetscLogDouble)f->nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MeasureHostFloors(BenchCtx *ctx, Vec x, Vec y)
{
  Mat                S;
  FloorCtx           f = {ctx->nnz};
  const PetscScalar *xa;
  PetscScalar       *ya;
  PetscReal         *launch, *access;
  cudaStream_t       stream;
  PetscLogDouble     t0, t1;

  PetscFunctionBegin;
  PetscCall(MatCreateShell(PETSC_COMM_SELF, ctx->m, ctx->n, ctx->m, ctx->n, &f, &S));
  PetscCall(MatShellSetOperation(S, MATOP_MULT, (void (*)(void))FloorMult));
  PetscCall(MatShellSetVecType(S, VECCUDA));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscMalloc2(ctx->batches, &launch, ctx->batches, &access));
  for (PetscInt r = 0; r < ctx->warmup; r++) PetscCall(MatMult(S, x, y));
  for (PetscInt b = 0; b < ctx->batches; b++) {
    PetscCallCUDA(cudaDeviceSynchronize());
    PetscCall(VecCUDAGetArrayRead(x, &xa));
    PetscCall(VecCUDAGetArrayWrite(y, &ya));
    PetscCall(PetscTime(&t0));
    for (PetscInt r = 0; r < ctx->reps; r++) PetscCall(SpMVEmptyLaunch(xa, ya, stream));
    PetscCall(PetscTime(&t1));
    PetscCall(VecCUDARestoreArrayRead(x, &xa));
    PetscCall(VecCUDARestoreArrayWrite(y, &ya));
    launch[b] = (PetscReal)(t1 - t0) / (PetscReal)ctx->reps;
    PetscCallCUDA(cudaDeviceSynchronize());
    PetscCall(PetscTime(&t0));
    for (PetscInt r = 0; r < ctx->reps; r++) PetscCall(MatMult(S, x, y));
    PetscCall(PetscTime(&t1));
    access[b] = (PetscReal)(t1 - t0) / (PetscReal)ctx->reps;
  }
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(BenchMedianReal(ctx->batches, launch, &ctx->launch_floor));
  PetscCall(BenchMedianReal(ctx->batches, access, &ctx->access_floor));
  PetscCall(PetscFree2(launch, access));
  PetscCall(MatDestroy(&S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The matrix of a type's entry (tname, options prefix prefix): a MatDuplicate() of the reference Aref converted in place
   to the type, or for sellcuda PETSc's own path, as its users take it: MATSEQAIJ to MATSEQSELL
   (MatConvert_SeqAIJ_SeqSELL()), then to MATSEQSELLCUDA in place. PETSc has no converter from MATSEQAIJ to
   MATSEQSELLCUDA: MatConvert() would fall back to its generic entry-by-entry conversion, which takes minutes on large
   matrices. *available is PETSC_FALSE (and *B NULL) when this PETSc has no sellcuda; *convert_s the MatConvert()s' time
*/
/* With -view_formats, MatView() of B in ASCII_INFO format (for ours: builds, value refreshes, the format's parameters), to
   tell whether two matrices of one type, timed apart, hold the same format and did the same work */
static PetscErrorCode ViewFormat(BenchCtx *ctx, Mat B, const char when[])
{
  const char *type;

  PetscFunctionBeginUser;
  if (!ctx->view_formats || !B) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectGetType((PetscObject)B, &type));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "=== %s: %s\n", when, type));
  PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_SELF, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(B, PETSC_VIEWER_STDOUT_SELF));
  PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_SELF));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EntryMatrix(const char tname[], const char prefix[], Mat Ahost, Mat Aref, Mat *B, PetscBool *available, PetscReal *convert_s)
{
  PetscBool      isaij, issell;
  PetscLogDouble c0, c1;

  PetscFunctionBeginUser;
  *B         = NULL;
  *available = PETSC_TRUE;
  PetscCall(PetscStrcmpAny(tname, &isaij, "aijcusparse", MATSEQAIJCUSPARSE, ""));
  PetscCall(PetscStrcmpAny(tname, &issell, "sellcuda", MATSEQSELLCUDA, ""));
  if (issell) {
    PetscCall(TypeAvailable(MATSEQSELLCUDA, available));
    if (!*available) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(PetscTime(&c0));
    PetscCall(MatConvert(Ahost, MATSEQSELL, MAT_INITIAL_MATRIX, B));
    PetscCall(MatConvert(*B, MATSEQSELLCUDA, MAT_INPLACE_MATRIX, B));
    PetscCall(PetscTime(&c1));
    PetscCall(MatSetOptionsPrefix(*B, prefix));
  } else {
    PetscCall(PetscTime(&c0));
    PetscCall(MatDuplicate(Aref, MAT_COPY_VALUES, B));
    PetscCall(MatSetOptionsPrefix(*B, prefix));
    if (!isaij) {
      PetscBool isroot;

      /* the benchmark is sequential, so the root name resolves to the sequential type */
      PetscCall(PetscStrcmp(tname, MATCMRS, &isroot));
      PetscCall(MatConvert(*B, isroot ? MATSEQCMRS : tname, MAT_INPLACE_MATRIX, B));
    }
    PetscCall(PetscTime(&c1));
  }
  *convert_s = (PetscReal)(c1 - c0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BenchEntry(BenchCtx *ctx, PetscInt k, const char entry[], Mat Ahost, Mat Aref, Vec x, Vec y, Vec yref, PetscReal nrmref, Vec work, PetscBool *correct)
{
  char           prefix[32], *tname;
  const char    *actual;
  Mat            B;
  PetscBool      isaij, issell, iscmrs, ours, isbalanced, isstream, ishot, isbce = PETSC_FALSE;
  Product        prod;
  PetscLogDouble t0, t1, t2, build_s = 0.0;
  PetscReal      convert_s = -1.0;
  PetscReal      first_s, first20_s, err1, err2, err, *secs, *wall, *issue, median_s, min_s, max_s, wall_median_s, issue_median_s, changed_s = -1.0;
  PetscLogDouble rebuild_s    = -1.0;
  PetscReal      host_first_s = -1.0, device_build_s = PETSC_MAX_REAL, device_build_min_s = -1.0, device_build_max_s = -1.0;
  PetscReal      model_bytes, fmt_bytes = -1.0, csr_bytes = -1.0;
  PetscInt       height = -1;
  cudaStream_t   stream;
  cudaEvent_t    start, stop;
  JSONLine      *line;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "b%" PetscInt_FMT "_", k));
  PetscCall(ParseEntry(entry, prefix, &tname));
  PetscCall(PetscStrcmpAny(tname, &isaij, "aijcusparse", MATSEQAIJCUSPARSE, ""));
  PetscCall(PetscStrcmpAny(tname, &issell, "sellcuda", MATSEQSELLCUDA, ""));
  PetscCall(PetscStrcmp(tname, "balanced", &isbalanced));
  PetscCall(PetscStrcmp(tname, "stream", &isstream));
  PetscCall(PetscStrcmp(tname, "balanced_hot", &ishot));
  PetscCall(PetscMemzero(&prod, sizeof(prod)));

  /* Build the matrix of this entry */
  if (isbalanced || isstream || ishot) {
    B             = NULL;
    prod.balanced = PETSC_TRUE;
    prod.kind     = ishot ? SPMV_BALANCED_HOT : (isbalanced ? SPMV_BALANCED_GATHER : SPMV_BALANCED_STREAM);
    prod.m        = ctx->m;
    prod.nnz      = ctx->nnz;
    if (ishot) {
      PetscInt k = 16384;

      PetscCall(PetscOptionsGetInt(NULL, prefix, "-hot_columns", &k, NULL));
      PetscCheck(k >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "balanced_hot/hot_columns=%" PetscInt_FMT " is negative", k);
      PetscCall(HotColumns(Ahost, k, &prod));
    }
    PetscCall(SpMVBalancedBlocks(prod.kind, &prod.nblocks));
    PetscCallCUDA(cudaMalloc((void **)&prod.partial, (size_t)prod.nblocks * sizeof(PetscScalar)));
    PetscCall(MatSeqAIJCUSPARSEGetIJ(Aref, PETSC_FALSE, &prod.rowptr, &prod.col));
    PetscCall(MatSeqAIJCUSPARSEGetArrayRead(Aref, &prod.val));
  } else {
    PetscBool available;

    PetscCall(EntryMatrix(tname, prefix, Ahost, Aref, &B, &available, &convert_s));
    if (!available) {
      PetscCall(NotAvailableRecord(ctx, entry, MATSEQSELLCUDA));
      PetscCall(PetscFree(tname));
      *correct = PETSC_TRUE;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  prod.B = B;
  if (B) PetscCall(PetscObjectGetType((PetscObject)B, &actual));
  else actual = tname;
  PetscCall(PetscStrcmp(actual, MATSEQAIJCUSPARSE, &isaij));
  PetscCall(PetscStrcmp(actual, MATSEQSELLCUDA, &issell));
  PetscCall(PetscStrcmp(actual, MATSEQCMRS, &iscmrs));
  /* types of this plugin derive from MATSEQAIJCUSPARSE and extend its name */
  PetscCall(PetscStrbeginswith(actual, MATSEQAIJCUSPARSE, &ours));
  ours = (ours && !isaij) ? PETSC_TRUE : PETSC_FALSE;

  /* First product, poisoned output, includes any lazy construction of the format */
  PetscCall(VecSet(y, NAN));
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(PetscTime(&t0));
  PetscCall(ProductApply(&prod, x, y));
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(PetscTime(&t1));
  first_s = (PetscReal)(t1 - t0);
  if (prod.balanced) PetscCall(BalancedError(&prod, yref, &err1));
  else PetscCall(RelativeError(y, yref, nrmref, work, &err1));
  if (iscmrs) PetscCall(MatCMRSGetHeight(B, &height));
  /* the first 20 products of the matrix, the first included (first20_s): what a solve of about 20 iterations pays, its
     build included (gpuauto builds after -mat_gpuformat_build_after products) */
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 1; r < 20; r++) PetscCall(ProductApply(&prod, x, y));
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(PetscTime(&t1));
  first20_s = first_s + (PetscReal)(t1 - t0);

  /* Timed products */
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaEventCreate(&start));
  PetscCallCUDA(cudaEventCreate(&stop));
  for (PetscInt r = 0; r < ctx->warmup; r++) PetscCall(ProductApply(&prod, x, y));
  PetscCall(PetscMalloc3(ctx->batches, &secs, ctx->batches, &wall, ctx->batches, &issue));
  /* an NVTX range "timed" around the timed batches, for profilers (ncu --nvtx --nvtx-include timed/: bench/launch_profile.sh) */
  nvtxRangePushA("timed");
  for (PetscInt b = 0; b < ctx->batches; b++) {
    float ms;

    PetscCallCUDA(cudaDeviceSynchronize());
    PetscCall(PetscTime(&t0));
    PetscCallCUDA(cudaEventRecord(start, stream));
    for (PetscInt r = 0; r < ctx->reps; r++) PetscCall(ProductApply(&prod, x, y));
    PetscCall(PetscTime(&t2)); /* the host's time to issue the products, before it waits for them */
    PetscCallCUDA(cudaEventRecord(stop, stream));
    PetscCallCUDA(cudaDeviceSynchronize());
    PetscCall(PetscTime(&t1));
    PetscCallCUDA(cudaEventElapsedTime(&ms, start, stop));
    secs[b]  = 1e-3 * (PetscReal)ms / (PetscReal)ctx->reps; /* milliseconds to seconds per product */
    wall[b]  = (PetscReal)(t1 - t0) / (PetscReal)ctx->reps;
    issue[b] = (PetscReal)(t2 - t0) / (PetscReal)ctx->reps;
  }
  nvtxRangePop();
  /* the format's build: read here, after it has happened also where it waits for some products (gpuauto at its defaults,
     -mat_gpuformat_build_after 50: in the first timed batch, whose time, max_us, includes it) */
  if (ours) PetscCall(MatGPUFormatGetBuildTime(B, &build_s));
  PetscCall(ViewFormat(ctx, B, "after the timed batches"));
  PetscCall(BenchMedianReal(ctx->batches, secs, &median_s)); /* sorts secs */
  min_s = secs[0];
  max_s = secs[ctx->batches - 1];
  PetscCall(BenchMedianReal(ctx->batches, wall, &wall_median_s));
  PetscCall(BenchMedianReal(ctx->batches, issue, &issue_median_s));

  /*
     Products after a change of values, as in a Newton or time step: each product follows MatScale(B, -1), which
     changes every value on the GPU, so that our types refresh their copy first. B is A again after each batch
     (sign changes are exact, and an odd batch gets one more, untimed).
  */
  if (B && !issell) {
    for (PetscInt b = 0; b < ctx->batches; b++) {
      float ms;

      PetscCallCUDA(cudaDeviceSynchronize());
      PetscCallCUDA(cudaEventRecord(start, stream));
      for (PetscInt r = 0; r < ctx->reps; r++) {
        PetscCall(MatScale(B, -1.0));
        PetscCall(ProductApply(&prod, x, y));
      }
      PetscCallCUDA(cudaEventRecord(stop, stream));
      PetscCallCUDA(cudaDeviceSynchronize());
      PetscCallCUDA(cudaEventElapsedTime(&ms, start, stop));
      secs[b] = 1e-3 * (PetscReal)ms / (PetscReal)ctx->reps;
      if (ctx->reps % 2) PetscCall(MatScale(B, -1.0));
    }
    PetscCall(BenchMedianReal(ctx->batches, secs, &changed_s));
  }
  PetscCall(PetscFree3(secs, wall, issue));
  PetscCallCUDA(cudaEventDestroy(start));
  PetscCallCUDA(cudaEventDestroy(stop));

  /* Check again after the repeated products and value changes */
  PetscCall(VecSet(y, NAN));
  PetscCall(ProductApply(&prod, x, y));
  if (prod.balanced) PetscCall(BalancedError(&prod, yref, &err2));
  else PetscCall(RelativeError(y, yref, nrmref, work, &err2));
  if (PetscIsNanReal(err1) || PetscIsNanReal(err2)) err = NAN;
  else err = PetscMax(err1, err2);
  *correct = (!PetscIsNanReal(err) && err <= ctx->tol) ? PETSC_TRUE : PETSC_FALSE;

  /* Build time: reported by our types; otherwise first product minus a steady-state product */
  if (!ours) build_s = first_s - median_s;

  /* A second matrix of the type, now that its kernels (and cuSPARSE's) are loaded, as for every matrix of a program after
     its first: the build of a MatDuplicate() (rebuild_s; aijcusparse duplicates on the host, so the build includes the
     upload of the CSR), the build of a matrix whose CSR is already on the GPU (device_build_s), and the first product of
     a matrix assembled on the host, its upload and build included (host_first_s), each checked */
  if (B && (ours || isaij)) {
    Mat            B2;
    PetscLogDouble s0, s1, first;

    PetscCall(SecondMatrixFirstProduct(Aref, prefix, ours ? actual : NULL, PETSC_FALSE, x, y, &B2, &first));
    PetscCall(MaxRelativeError(y, yref, nrmref, work, &err2));
    if (ours) PetscCall(MatGPUFormatGetBuildTime(B2, &rebuild_s));
    else rebuild_s = PetscMax(0.0, first - (PetscLogDouble)median_s); /* below one product's noise: none */
    PetscCall(MatDestroy(&B2));

    /* The build as users of an assembled aijcusparse matrix meet it: its CSR already on the GPU (one aijcusparse product
       uploads it), MatConvert() in place, then the first product, less one steady product (device_build_s) */
    {
      PetscReal *dev;

      PetscCall(PetscMalloc1(ctx->build_reps, &dev));
      for (PetscInt r = 0; r < ctx->build_reps; r++) {
        PetscCall(SecondMatrixFirstProduct(Aref, prefix, ours ? actual : NULL, PETSC_TRUE, x, y, &B2, &first));
        PetscCall(MaxRelativeError(y, yref, nrmref, work, &err2));
        dev[r] = PetscMax(0.0, (PetscReal)first - median_s); /* below one product's noise: none */
        PetscCall(MatDestroy(&B2));
      }
      PetscCall(PetscSortReal(ctx->build_reps, dev));
      device_build_s     = dev[ctx->build_reps / 2]; /* the median (the upper one of an even count) */
      device_build_min_s = dev[0];
      device_build_max_s = dev[ctx->build_reps - 1];
      PetscCall(PetscFree(dev));
    }

    PetscCall(VecSet(y, NAN));
    PetscCallCUDA(cudaDeviceSynchronize());
    PetscCall(PetscTime(&s0));
    PetscCall(MatConvert(Ahost, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &B2));
    PetscCall(MatSetOptionsPrefix(B2, prefix));
    if (ours) PetscCall(MatConvert(B2, actual, MAT_INPLACE_MATRIX, &B2));
    PetscCall(MatMult(B2, x, y));
    PetscCallCUDA(cudaDeviceSynchronize());
    PetscCall(PetscTime(&s1));
    host_first_s = (PetscReal)(s1 - s0);
    PetscCall(MaxRelativeError(y, yref, nrmref, work, &err2));
    PetscCall(MatDestroy(&B2));
    if (PetscIsNanReal(err1) || PetscIsNanReal(err2)) err = NAN;
    else err = PetscMax(err1, err2);
    *correct = (!PetscIsNanReal(err) && err <= ctx->tol) ? PETSC_TRUE : PETSC_FALSE;
  }

  /* Device memory */
  if (ours) PetscCall(MatGPUFormatGetDeviceMemory(B, &fmt_bytes, &csr_bytes));
  else if (isaij) {
    /* CSR: 8-byte values + 4-byte column indices per nonzero, 4-byte row offsets */
    csr_bytes = 12.0 * (PetscReal)ctx->nnz + 4.0 * (PetscReal)(ctx->m + 1);
    fmt_bytes = csr_bytes;
  }

  /* Traffic model of CSR SpMV (see the manual comment at the top) */
  model_bytes = 12.0 * (PetscReal)ctx->nnz + 4.0 * (PetscReal)(ctx->m + 1) + 8.0 * (PetscReal)ctx->n + 8.0 * (PetscReal)ctx->m;

  PetscCall(RecordBegin(ctx, &line));
  PetscCall(JSONAddReal(line, "row_mean", ctx->row_mean));
  PetscCall(JSONAddReal(line, "row_std", ctx->row_std));
  PetscCall(JSONAddInt(line, "row_max", ctx->row_max));
  PetscCall(JSONAddString(line, "type", actual));
  PetscCall(JSONAddString(line, "entry", entry));
  PetscCall(JSONAddReal(line, "median_us", 1e6 * median_s)); /* seconds to microseconds */
  PetscCall(JSONAddReal(line, "min_us", 1e6 * min_s));
  PetscCall(JSONAddReal(line, "max_us", 1e6 * max_s));
  PetscCall(JSONAddReal(line, "wall_median_us", 1e6 * wall_median_s));
  PetscCall(JSONAddReal(line, "issue_us", 1e6 * issue_median_s));
  PetscCall(JSONAddReal(line, "launch_floor_us", 1e6 * ctx->launch_floor));
  PetscCall(JSONAddReal(line, "access_floor_us", 1e6 * ctx->access_floor));
  if (changed_s >= 0.0) PetscCall(JSONAddReal(line, "value_change_us", 1e6 * changed_s));
  else PetscCall(JSONAddNull(line, "value_change_us"));
  PetscCall(JSONAddInt(line, "reps", ctx->reps));
  PetscCall(JSONAddInt(line, "batches", ctx->batches));
  PetscCall(JSONAddReal(line, "gflops", 2.0 * (PetscReal)ctx->nnz / median_s / 1e9)); /* 1e9 flop per GFLOP */
  PetscCall(JSONAddReal(line, "frac_copy_bw", model_bytes / median_s / (ctx->copy_bw * 1e9)));
  PetscCall(JSONAddReal(line, "model_bytes", model_bytes));
  PetscCall(JSONAddReal(line, "first_ms", 1e3 * first_s)); /* seconds to milliseconds */
  PetscCall(JSONAddReal(line, "first20_ms", 1e3 * first20_s));
  PetscCall(JSONAddReal(line, "build_ms", 1e3 * (PetscReal)build_s));
  PetscCall(JSONAddReal(line, "build_products", (PetscReal)build_s / median_s));
  if (rebuild_s >= 0.0 || host_first_s >= 0.0) {
    PetscCall(JSONAddReal(line, "rebuild_ms", 1e3 * (PetscReal)rebuild_s));
    PetscCall(JSONAddReal(line, "rebuild_products", (PetscReal)rebuild_s / median_s));
    PetscCall(JSONAddReal(line, "host_first_ms", 1e3 * host_first_s));
    PetscCall(JSONAddReal(line, "device_build_ms", 1e3 * device_build_s));
    PetscCall(JSONAddReal(line, "device_build_min_ms", 1e3 * device_build_min_s));
    PetscCall(JSONAddReal(line, "device_build_max_ms", 1e3 * device_build_max_s));
    PetscCall(JSONAddInt(line, "build_reps", ctx->build_reps));
  } else {
    PetscCall(JSONAddNull(line, "rebuild_ms"));
    PetscCall(JSONAddNull(line, "rebuild_products"));
    PetscCall(JSONAddNull(line, "host_first_ms"));
    PetscCall(JSONAddNull(line, "device_build_ms"));
    PetscCall(JSONAddNull(line, "device_build_min_ms"));
    PetscCall(JSONAddNull(line, "device_build_max_ms"));
    PetscCall(JSONAddNull(line, "build_reps"));
  }
  if (convert_s >= 0.0) PetscCall(JSONAddReal(line, "convert_ms", 1e3 * convert_s)); /* the MatConvert()s that made B */
  else PetscCall(JSONAddNull(line, "convert_ms"));
  if (fmt_bytes >= 0.0) {
    PetscCall(JSONAddReal(line, "device_bytes", fmt_bytes));
    PetscCall(JSONAddReal(line, "csr_bytes", csr_bytes));
  } else {
    PetscCall(JSONAddNull(line, "device_bytes"));
    PetscCall(JSONAddNull(line, "csr_bytes"));
  }
  if (iscmrs) PetscCall(JSONAddInt(line, "cmrs_height", height));
  else PetscCall(JSONAddNull(line, "cmrs_height"));
  if (ours) { /* where our formats took their device memory from (-mat_gpuformat_stream_alloc, else the library's default) */
    PetscBool pool;

    PetscCall(MatGPUFormatGetStreamAlloc(B, &pool));
    PetscCall(JSONAddBool(line, "stream_alloc", pool));
  } else PetscCall(JSONAddNull(line, "stream_alloc"));
  if (ours && B) { /* whether the format declined the matrix (DIA, ELL over their bound; gpuauto choosing the CSR) */
    PetscBool declined;

    PetscCall(MatGPUFormatGetDeclined(B, &declined));
    PetscCall(JSONAddBool(line, "declined", declined));
  } else PetscCall(JSONAddNull(line, "declined"));
  if (B) PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQBCE, &isbce));
  if (ishot) {
    PetscCall(JSONAddInt(line, "hot_columns", prod.k));
    PetscCall(JSONAddReal(line, "hot_share", prod.share));
  } else if (isbce) { /* BCE's hot columns (-mat_bce_hot_columns) */
    PetscInt   nhot;
    PetscInt64 hotnnz;

    PetscCall(MatBCEGetHotColumns(B, NULL, &nhot, &hotnnz));
    PetscCall(JSONAddInt(line, "hot_columns", nhot));
    PetscCall(JSONAddReal(line, "hot_share", ctx->nnz ? (PetscReal)hotnnz / (PetscReal)ctx->nnz : 0.0));
  } else {
    PetscCall(JSONAddNull(line, "hot_columns"));
    PetscCall(JSONAddNull(line, "hot_share"));
  }
  { /* gpuauto: what it chose, and the kind of matrix its model saw */
    const char *choice = NULL, *kind = NULL;
    PetscBool   isauto = PETSC_FALSE;

    if (B) PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQGPUAUTO, &isauto));
    if (isauto) PetscCall(MatGPUAutoGetChoice(B, &choice, &kind));
    if (choice) {
      PetscCall(JSONAddString(line, "gpuauto_choice", choice));
      PetscCall(JSONAddString(line, "gpuauto_kind", kind));
    } else {
      PetscCall(JSONAddNull(line, "gpuauto_choice"));
      PetscCall(JSONAddNull(line, "gpuauto_kind"));
    }
  }
  if (isstream) { /* nothing to check */
    PetscCall(JSONAddNull(line, "rel_err"));
    PetscCall(JSONAddNull(line, "correct"));
  } else {
    PetscCall(JSONAddReal(line, "rel_err", err));
    PetscCall(JSONAddBool(line, "correct", *correct));
  }
  PetscCall(RecordEnd(ctx, &line));
  if (!*correct) PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "bench_spmv: entry \"%s\" (type %s) relative error %g exceeds -tol %g\n", entry, actual, (double)err, (double)ctx->tol));

  PetscCall(PetscFree(tname));
  PetscCall(MatDestroy(&B));
  if (prod.balanced) {
    PetscCallCUDA(cudaFree(prod.partial));
    PetscCallCUDA(cudaFree(prod.hot)); /* cudaFree(NULL) does nothing */
    PetscCallCUDA(cudaFree(prod.hcol));
    PetscCallCUDA(cudaFree(prod.xh));
    PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(Aref, &prod.val));
    PetscCall(MatSeqAIJCUSPARSERestoreIJ(Aref, PETSC_FALSE, &prod.rowptr, &prod.col));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   -interleave R: the matrix types of -types (not the balanced kernels) timed again, in R rounds after the entries' own
   runs: in each round every type times one batch of -reps products, the types in turn and the first moving on by one
   each round, so that a drift of the host's or the GPU's speed during the run touches every type alike (a host-bound
   product's time moves by 1 us from one process to the next, and within one). One record per type, "mode":
   "interleaved", with the medians over the rounds of the GPU time per product (median_us) and of the host's time to
   issue one (issue_us), then checked against the reference again. Every type's matrix is kept at once: n times the
   device memory of one. Fewer than two types (sellcuda alone in a process of its own): nothing to interleave, no record
*/
static PetscErrorCode BenchInterleaved(BenchCtx *ctx, PetscInt rounds, int nentries, char **entries, Mat Ahost, Mat Aref, Vec x, Vec y, Vec yref, PetscReal nrmref, Vec work, PetscInt *nfailed)
{
  Mat         *B;
  int         *which;
  PetscReal   *gpu, *issue;
  PetscInt     n = 0;
  cudaStream_t stream;
  cudaEvent_t  start, stop;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc2(nentries, &B, nentries, &which));
  for (int k = 0; k < nentries; k++) {
    char      prefix[32], *tname;
    PetscBool kernel, available = PETSC_FALSE;
    PetscReal convert_s;

    PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "b%d_", k));
    PetscCall(ParseEntry(entries[k], prefix, &tname));
    PetscCall(PetscStrcmpAny(tname, &kernel, "balanced", "balanced_hot", "stream", ""));
    if (!kernel) PetscCall(EntryMatrix(tname, prefix, Ahost, Aref, &B[n], &available, &convert_s));
    PetscCall(PetscFree(tname));
    if (available) which[n++] = k;
  }
  if (n < 2) { /* nothing to interleave: a type alone (run_suite.sh's run of sellcuda in a process of its own) */
    PetscCall(PetscInfo(NULL, "-interleave: %" PetscInt_FMT " matrix type among the entries, no interleaved records\n", n));
    for (PetscInt i = 0; i < n; i++) PetscCall(MatDestroy(&B[i]));
    PetscCall(PetscFree2(B, which));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaEventCreate(&start));
  PetscCallCUDA(cudaEventCreate(&stop));
  PetscCall(PetscMalloc2(n * rounds, &gpu, n * rounds, &issue));
  for (PetscInt i = 0; i < n; i++) { /* the build, then the warm-up */
    for (PetscInt r = 0; r <= ctx->warmup; r++) PetscCall(MatMult(B[i], x, y));
  }
  nvtxRangePushA("interleaved"); /* for profilers, as "timed" in BenchEntry() */
  for (PetscInt r = 0; r < rounds; r++) {
    for (PetscInt j = 0; j < n; j++) {
      const PetscInt i = (j + r) % n;
      PetscLogDouble t0, t2;
      float          ms;

      PetscCallCUDA(cudaDeviceSynchronize());
      PetscCall(PetscTime(&t0));
      PetscCallCUDA(cudaEventRecord(start, stream));
      for (PetscInt k = 0; k < ctx->reps; k++) PetscCall(MatMult(B[i], x, y));
      PetscCall(PetscTime(&t2));
      PetscCallCUDA(cudaEventRecord(stop, stream));
      PetscCallCUDA(cudaDeviceSynchronize());
      PetscCallCUDA(cudaEventElapsedTime(&ms, start, stop));
      gpu[i * rounds + r]   = 1e-3 * (PetscReal)ms / (PetscReal)ctx->reps; /* milliseconds to seconds per product */
      issue[i * rounds + r] = (PetscReal)(t2 - t0) / (PetscReal)ctx->reps;
    }
  }
  nvtxRangePop();
  for (PetscInt i = 0; i < n; i++) PetscCall(ViewFormat(ctx, B[i], "after the interleaved rounds"));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal   median_s, issue_s, min_s, max_s, err;
    PetscBool   correct;
    const char *actual;
    JSONLine   *line;

    PetscCall(BenchMedianReal(rounds, gpu + i * rounds, &median_s)); /* sorts them */
    min_s = gpu[i * rounds];
    max_s = gpu[i * rounds + rounds - 1];
    PetscCall(BenchMedianReal(rounds, issue + i * rounds, &issue_s));
    PetscCall(VecSet(y, NAN));
    PetscCall(MatMult(B[i], x, y));
    PetscCall(RelativeError(y, yref, nrmref, work, &err));
    correct = (!PetscIsNanReal(err) && err <= ctx->tol) ? PETSC_TRUE : PETSC_FALSE;
    if (!correct) (*nfailed)++;
    PetscCall(PetscObjectGetType((PetscObject)B[i], &actual));
    PetscCall(RecordBegin(ctx, &line));
    PetscCall(JSONAddString(line, "type", actual));
    PetscCall(JSONAddString(line, "entry", entries[which[i]]));
    PetscCall(JSONAddString(line, "mode", "interleaved"));
    PetscCall(JSONAddInt(line, "rounds", rounds));
    PetscCall(JSONAddInt(line, "reps", ctx->reps));
    PetscCall(JSONAddReal(line, "median_us", 1e6 * median_s)); /* seconds to microseconds */
    PetscCall(JSONAddReal(line, "min_us", 1e6 * min_s));
    PetscCall(JSONAddReal(line, "max_us", 1e6 * max_s));
    PetscCall(JSONAddReal(line, "issue_us", 1e6 * issue_s));
    PetscCall(JSONAddReal(line, "launch_floor_us", 1e6 * ctx->launch_floor));
    PetscCall(JSONAddReal(line, "access_floor_us", 1e6 * ctx->access_floor));
    PetscCall(JSONAddReal(line, "rel_err", err));
    PetscCall(JSONAddBool(line, "correct", correct));
    PetscCall(RecordEnd(ctx, &line));
    if (!correct) PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "bench_spmv: interleaved entry \"%s\" (type %s) relative error %g exceeds -tol %g\n", entries[which[i]], actual, (double)err, (double)ctx->tol));
  }
  PetscCallCUDA(cudaEventDestroy(start));
  PetscCallCUDA(cudaEventDestroy(stop));
  PetscCall(PetscFree2(gpu, issue));
  for (PetscInt i = 0; i < n; i++) PetscCall(MatDestroy(&B[i]));
  PetscCall(PetscFree2(B, which));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
  BenchCtx              ctx;
  PetscInt              seed = 0, bw_mib = 1024, bw_reps = 20;
  char                  types[TYPES_MAX_LEN] = "aijcusparse,cmrs", json_out[PETSC_MAX_PATH_LEN] = "";
  PetscBool             flg_json;
  PetscRandom           rnd;
  Mat                   Ahost, Aref;
  Vec                   x, y, yref, work;
  PetscReal             nrmref;
  int                   ntypes, dev;
  char                **entries;
  struct cudaDeviceProp prop;
  PetscInt              nfailed = 0, ninterfailed = 0, rounds = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUFormatsInitializePackage());
  PetscCall(PetscMemzero(&ctx, sizeof(ctx)));
  ctx.warmup     = 10;
  ctx.batches    = 7;
  ctx.reps       = 100;
  ctx.tol        = 1e-12;
  ctx.build_reps = 5;

  PetscOptionsBegin(PETSC_COMM_SELF, NULL, "SpMV benchmark options", NULL);
  PetscCall(PetscOptionsString("-types", "Comma separated list of type[/option=value...] entries", NULL, types, types, sizeof(types), NULL));
  PetscCall(PetscOptionsBoundedInt("-build_reps", "Builds of a matrix whose CSR is already on the GPU to time (device_build_ms: their median; _min_ms, _max_ms)", NULL, ctx.build_reps, &ctx.build_reps, NULL, 1));
  PetscCall(PetscOptionsBoundedReal("-tol", "Largest accepted relative error against MATSEQAIJCUSPARSE", NULL, ctx.tol, &ctx.tol, NULL, 0.0));
  PetscCall(BenchTimingOptions(PetscOptionsObject, &ctx.warmup, &ctx.batches, &ctx.reps, &bw_mib, &bw_reps));
  PetscCall(PetscOptionsString("-json_out", "Also append the JSON records to this file", NULL, json_out, json_out, sizeof(json_out), &flg_json));
  PetscCall(PetscOptionsBoundedInt("-interleave", "Rounds of one batch per type in turn, after the entries' own runs (records with \"mode\": \"interleaved\"; 0: none)", NULL, rounds, &rounds, NULL, 0));
  PetscCall(PetscOptionsBool("-view_formats", "MatView() (ascii_info) of each matrix after its timed batches and after the interleaved rounds", NULL, ctx.view_formats, &ctx.view_formats, NULL));
  PetscOptionsEnd();
  {
    PetscBool stop;
    int       rc;

    PetscCall(BenchHelpOrNoDevice("bench_spmv", &stop, &rc));
    if (stop) {
      PetscCall(PetscFinalize());
      return rc;
    }
  }

  /* Device */
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaGetDeviceProperties(&prop, dev));
  PetscCall(PetscStrncpy(ctx.device, prop.name, sizeof(ctx.device)));
  PetscCall(BenchGetProvenance(&ctx.prov));
  ctx.l2_bytes = (PetscInt)prop.l2CacheSize;
  PetscCall(BenchMeasureCopyBandwidth(bw_mib, bw_reps, &ctx.copy_bw));

  /* Host matrix */
  PetscCall(MatGenFromOptions(&Ahost, ctx.matrix, sizeof(ctx.matrix), ctx.params, sizeof(ctx.params)));
  PetscCall(MatGetSize(Ahost, &ctx.m, &ctx.n));
  PetscCall(MatGenRowStatistics(Ahost, &ctx.nnz, &ctx.row_mean, &ctx.row_std, &ctx.row_max));

  /* Reference and vectors */
  PetscCall(MatConvert(Ahost, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &Aref));
  PetscCall(MatCreateVecs(Aref, &x, &y));
  PetscCall(VecDuplicate(y, &yref));
  PetscCall(VecDuplicate(y, &work));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL)); /* the matrix's seed (matgen.c), also that of x */
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)seed));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(MatMult(Aref, x, yref));
  PetscCall(VecNorm(yref, NORM_2, &nrmref));

  PetscCall(MeasureHostFloors(&ctx, x, y));
  if (flg_json) PetscCall(PetscFOpen(PETSC_COMM_SELF, json_out, "a", &ctx.json));

  /* Types */
  PetscCall(PetscStrToArray(types, ',', &ntypes, &entries));
  PetscCheck(ntypes > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "-types is empty");
  for (int k = 0; k < ntypes; k++) {
    PetscBool correct;

    PetscCall(BenchEntry(&ctx, (PetscInt)k, entries[k], Ahost, Aref, x, y, yref, nrmref, work, &correct));
    if (!correct) nfailed++;
  }
  if (rounds) PetscCall(BenchInterleaved(&ctx, rounds, ntypes, entries, Ahost, Aref, x, y, yref, nrmref, work, &ninterfailed));
  PetscCall(PetscStrToArrayDestroy(ntypes, entries));
  if (nfailed) PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "bench_spmv: %" PetscInt_FMT " of %d entries failed the correctness check\n", nfailed, ntypes));
  if (ninterfailed) PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "bench_spmv: %" PetscInt_FMT " interleaved types failed the correctness check\n", ninterfailed));
  nfailed += ninterfailed;

  if (ctx.json) PetscCall(PetscFClose(PETSC_COMM_SELF, ctx.json));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yref));
  PetscCall(VecDestroy(&work));
  PetscCall(MatDestroy(&Aref));
  PetscCall(MatDestroy(&Ahost));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return nfailed ? 1 : 0;
}

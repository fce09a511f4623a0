static const char help[] = "A petsc-gpuformats type on the GPU: against its host reference and against aijcusparse, through state changes and conversions.\n"
                           "  -format cmrs|sellcs|bce|dia|hyb|ell|argcsr: the type to test\n";

/*
   One program for every format: a descriptor (Format below) names the type, its parameter variants, its
   host reference and an option to check.
   1. Device product against the host reference of the same format, bitwise on integer data, for every
      variant of the format's parameters, on random and edge-case matrices (empty, empty rows, a
      100,000-entry row, m < 32, rectangular), with y poisoned by NaN; MatMultAdd with y != z and y == z; again
      after MatScale (the refresh fused into the product).
   2. MatMultEqual, MatMultAddEqual, MatMultTransposeEqual, MatMultTransposeAddEqual against aijcusparse, and the
      transpose products against the host seqaij.
   3. Values changed (host MatSetValues, device MatScale) and nonzeros added after the first product, on a
      matrix with short, empty and long rows (up to 10,000 entries): the product follows, through a
      values-only refresh and a rebuild respectively (counted by log events); values changed on a banded matrix,
      MatMultAdd first.
   4. Conversions: in place, initial and reuse, from seqaij and seqaijcusparse and back; MatSetType on an
      assembled aijcusparse matrix; MatDuplicate, MatCopy and MatBindToCPU keep the type.
   5. Options and errors: a valid option of the format and each of its out-of-range ones (every integer option); host vectors.
   6. Out of device memory: the build's clear error, no device memory held after it, cuSPARSE's products meanwhile.
   7. (-part random, not in "all") 1 on -count random matrices with -variants of the parameter variants: the
      compute-sanitizer runs (tests/CMakeLists.txt, PETSCGPUFORMATS_SANITIZE). With -explicit_transpose the matrices of
      1 and 7 get MAT_FORM_EXPLICIT_TRANSPOSE, so that aijcusparse's transpose products (the oracle's, and ours, which
      are inherited) multiply by an explicit transpose instead of running cuSPARSE's transpose kernel (initcheck).
*/
#include <petscgpuformats.h>
#include <petscdevice_cuda.h>
#include <cmrs/cmrs.h>
#include <sellcs/sellcs.h>
#include <bce/bce.h>
#include <dia/dia.h>
#include <hyb/hyb.h>
#include <argcsr/argcsr.h>
#include "../common/testcsr.h"

static PetscRandom rnd;
static PetscBool   explicit_transpose = PETSC_FALSE; /* -explicit_transpose */

typedef struct {
  const char *root;                                                                                                                                   /* MATCMRS */
  MatType     type;                                                                                                                                   /* MATSEQCMRS */
  const char *title;                                                                                                                                  /* log events <title>Build, <title>Values */
  PetscInt    nvariants;                                                                                                                              /* parameter combinations */
  PetscInt    largevariant;                                                                                                                           /* the variant for the 17M-row matrix: the most strips or chunks */
  PetscErrorCode (*setvariant)(PetscInt, char *, size_t);                                                                                             /* options of variant v */
  PetscErrorCode (*resetvariant)(void);                                                                                                               /* back to the defaults */
  PetscErrorCode (*reference)(Mat, const PetscInt *, const PetscInt *, const PetscScalar *, const PetscScalar *, const PetscScalar *, PetscScalar *); /* host product */
  const char *option, *value, *othervalue;                                                                                                            /* a valid option (after the prefix -t_), checked by checkoption(), and another valid value */
  PetscErrorCode (*checkoption)(Mat);
  const char *bad[13];           /* out-of-range options: name, value, name, value, ..., NULL */
  PetscBool   banded;            /* the out-of-memory check's matrix on a band: the format stores only few diagonals (DIA) */
  PetscErrorCode (*extra)(void); /* checks of the format's own (bad input), run with the options and errors; or NULL */
} Format;

/* ------------------------------------------------------------------ CMRS */
static const char *cmrs_heights[] = {"0", "1", "2", "4", "8", "16"}, *cmrs_spw[] = {"0", "1", "2", "4"};
static PetscBool   cmrs_pack = PETSC_TRUE, cmrs_sort = PETSC_TRUE;
static PetscInt    cmrs_height; /* requested, 0: automatic */

/* variant v: height x packing x sorting x strips per warp x split strips (chosen, or every strip past 64 entries split into
   chunks of 32: the chunk warps and their partial sums on small matrices) */
static PetscErrorCode CMRSVariant(PetscInt v, char *desc, size_t len)
{
  const char     *h = cmrs_heights[v % 6], *spw = cmrs_spw[(v / 24) % 4];
  const PetscBool split = (PetscBool)((v / 96) % 2 == 1), wsort = (PetscBool)((v / 5) % 2 == 0);

  PetscFunctionBeginUser;
  cmrs_height = atoi(h);
  cmrs_pack   = (PetscBool)((v / 6) % 2 == 0);
  cmrs_sort   = (PetscBool)((v / 12) % 2 == 1);
  PetscCall(PetscOptionsSetValue(NULL, "-mat_cmrs_height", h));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_cmrs_pack_columns", cmrs_pack ? "1" : "0"));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_cmrs_sort_columns", cmrs_sort ? "1" : "0"));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_cmrs_strips_per_warp", spw));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_cmrs_long_strip", split ? "64" : "0"));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_cmrs_chunk", split ? "32" : "0"));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_cmrs_warp_sort", wsort ? "1" : "0"));
  PetscCall(PetscSNPrintf(desc, len, "height %s, %s, %s (%s), strips per warp %s, %s", h, cmrs_pack ? "packed" : "separate row array", cmrs_sort ? "sorted" : "CSR order", wsort ? "short strips by warp sorts" : "by searches", spw, split ? "strips past 64 entries split into chunks of 32" : "long strips chosen"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CMRSResetVariant(void)
{
  PetscFunctionBeginUser;
  cmrs_pack = cmrs_sort = PETSC_TRUE;
  cmrs_height           = 0;
  PetscCall(PetscOptionsClearValue(NULL, "-mat_cmrs_height"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_cmrs_pack_columns"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_cmrs_sort_columns"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_cmrs_strips_per_warp"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_cmrs_long_strip"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_cmrs_chunk"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_cmrs_warp_sort"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CMRSReference(Mat A, const PetscInt *ia, const PetscInt *ja, const PetscScalar *a, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  PetscInt   m, n, height;
  CMRSArrays F;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatCMRSGetHeight(A, &height));
  PetscCheck(!cmrs_height || !m || height == cmrs_height, PETSC_COMM_SELF, PETSC_ERR_PLIB, "height %" PetscInt_FMT " requested, %" PetscInt_FMT " used", cmrs_height, height);
  if (!height) height = 1; /* an empty matrix has no format: any height of the reference gives zeros */
  PetscCall(CMRSBuildHost(m, n, ia, ja, a, height, cmrs_pack, cmrs_sort, &F));
  PetscCall(CMRSMultHost(&F, x, y, z));
  PetscCall(CMRSDestroyHost(&F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CMRSCheckOption(Mat A)
{
  PetscInt height;

  PetscFunctionBeginUser;
  PetscCall(MatCMRSGetHeight(A, &height));
  PetscCheck(height == 8, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-t_mat_cmrs_height 8 gave height %" PetscInt_FMT, height);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ SELL-C-sigma */
static const char    *sell_c[] = {"4", "8", "16", "32"}, *sell_t[] = {"0", "1", "2", "4", "32"}, *sell_long[] = {"0", "3"}, *sell_pad[] = {"0", "1"}, *sell_rt[] = {"0", "8", "1", "32"};
static const PetscInt sell_sigma_chunks[] = {0, 1, 8, 4096}; /* sigma in chunks of C; 0: automatic, 4096: past m */
static PetscInt       sell_req[4];                           /* requested C, sigma, T, long row; 0: not requested */

/* variant v: C x sigma x threads per row x long rows (automatic, or every row of more than 3 entries); across them, padding
   read or not, and the threads per row of the first product after a change of values (which every check repeats after
   MatScale()) */
static PetscErrorCode SELLCSVariant(PetscInt v, char *desc, size_t len)
{
  const char *C = sell_c[v % 4], *T = sell_t[(v / 16) % 5], *L = sell_long[(v / 80) % 2], *P = sell_pad[(v / 3) % 2], *R = sell_rt[(v / 5) % 4];
  PetscInt    s = (v / 4) % 4, sigma;
  char        sig[32];

  PetscFunctionBeginUser;
  sigma = s == 0 ? 0 : (s == 1 ? 1 : sell_sigma_chunks[s] * atoi(C));
  PetscCall(PetscSNPrintf(sig, sizeof(sig), "%" PetscInt_FMT, sigma));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_sellcs_c", C));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_sellcs_sigma", sig));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_sellcs_threads_per_row", T));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_sellcs_long_row", L));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_sellcs_read_padding", P));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_sellcs_refresh_threads_per_row", R));
  sell_req[0] = atoi(C);
  sell_req[1] = sigma;
  sell_req[2] = atoi(T);
  sell_req[3] = atoi(L);
  PetscCall(PetscSNPrintf(desc, len, "C %s, sigma %s, threads per row %s (refresh %s), long rows past %s, padding read %s", C, sig, T, R, L, P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SELLCSResetVariant(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsClearValue(NULL, "-mat_sellcs_c"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_sellcs_sigma"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_sellcs_threads_per_row"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_sellcs_long_row"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_sellcs_read_padding"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_sellcs_refresh_threads_per_row"));
  PetscCall(PetscArrayzero(sell_req, 4));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SELLCSReference(Mat A, const PetscInt *ia, const PetscInt *ja, const PetscScalar *a, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  PetscInt     m, n, used[4];
  SELLCSArrays F;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatSELLCSGetParameters(A, &used[0], &used[1], &used[2], &used[3]));
  for (int i = 0; i < 4; i++) PetscCheck(!sell_req[i] || used[i] == sell_req[i] || (i > 0 && !used[i]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "parameter %d: %" PetscInt_FMT " requested, %" PetscInt_FMT " used", i, sell_req[i], used[i]);
  if (!used[1]) used[1] = 1; /* an empty matrix has no format */
  if (!used[3]) used[3] = PETSC_INT_MAX;
  PetscCall(SELLCSBuildHost(m, n, ia, ja, a, used[0], used[1], used[3], &F));
  PetscCall(SELLCSMultHost(&F, x, y, z));
  PetscCall(SELLCSDestroyHost(&F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SELLCSCheckOption(Mat A)
{
  PetscInt C;

  PetscFunctionBeginUser;
  PetscCall(MatSELLCSGetParameters(A, &C, NULL, NULL, NULL));
  PetscCheck(C == 16, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-t_mat_sellcs_c 16 gave C = %" PetscInt_FMT, C);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ BCE */
static const char *bce_l[]     = {"0", "1", "32", "64", "1000000"};
static const char *bce_wides[] = {"0", "64", "4"}, *bce_wrows[] = {"0", "512", "8"}, *bce_hots[] = {"0", "3", "64", "100000"};
static PetscInt    bce_req, bce_merge, bce_hot;
static BCEWide     bce_wide; /* requested L (0: automatic), merge (0: never) and the rule for wide rows (a field 0: chosen) */

/* variant v: the cost model's L */
static PetscErrorCode BCEVariant(PetscInt v, char *desc, size_t len)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_bce_l", bce_l[v % 5]));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_bce_merge_lengths", (v / 5) % 2 ? "3" : "0"));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_bce_wide_entries_per_thread", bce_wides[v % 3]));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_bce_wide_row", bce_wrows[(v / 3) % 3]));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_bce_hot_columns", bce_hots[v % 4]));
  bce_hot          = atoi(bce_hots[v % 4]);
  bce_req          = atoi(bce_l[v % 5]);
  bce_merge        = (v / 5) % 2 ? 3 : 0;
  bce_wide.entries = atoi(bce_wides[v % 3]);
  bce_wide.row     = atoi(bce_wrows[(v / 3) % 3]);
  PetscCall(PetscSNPrintf(desc, len, "L %s, lengths merged into at most %" PetscInt_FMT " groups (0: never), %s entries per thread in rows of more than %s (0: chosen), %s hot columns", bce_l[v % 5], bce_merge, bce_wides[v % 3], bce_wrows[(v / 3) % 3], bce_hots[v % 4]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BCEResetVariant(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsClearValue(NULL, "-mat_bce_l"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_bce_merge_lengths"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_bce_wide_entries_per_thread"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_bce_wide_row"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_bce_hot_columns"));
  bce_req = bce_merge = bce_wide.row = bce_wide.entries = bce_hot = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The host reference with the L the device used; the device's partition (from its histogram) and rule for wide rows
   must be the reference's */
static PetscErrorCode BCEReference(Mat A, const PetscInt *ia, const PetscInt *ja, const PetscScalar *a, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  PetscInt   m, n, L, k, *widths, wrow, wentries, hot = bce_hot, req_hot, nhot, used = 0, inhot = 0;
  PetscInt64 hotnnz;
  BCEWide    req = bce_wide;
  BCEArrays  F;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatBCEGetPartition(A, &L, &k, &widths));
  PetscCheck(!bce_req || !L || L == bce_req, PETSC_COMM_SELF, PETSC_ERR_PLIB, "L %" PetscInt_FMT " requested, %" PetscInt_FMT " used", bce_req, L);
  /* the rule for wide rows requested of the device: a variant's, else the options database's (a test run with options) */
  if (!req.row) PetscCall(PetscOptionsGetInt(NULL, NULL, "-mat_bce_wide_row", &req.row, NULL));
  if (!req.entries) PetscCall(PetscOptionsGetInt(NULL, NULL, "-mat_bce_wide_entries_per_thread", &req.entries, NULL));
  PetscCall(BCEBuildHost(m, n, ia, ja, a, L ? L : 1, req, bce_merge, &F)); /* an empty matrix has no format: any L gives zeros */
  if (L) {
    PetscCall(MatBCEGetWideRows(A, &wrow, &wentries));
    PetscCheck(!F.nnz || (wrow == F.wide.row && wentries == F.wide.entries), PETSC_COMM_SELF, PETSC_ERR_PLIB, "device: %" PetscInt_FMT " entries per thread in rows of more than %" PetscInt_FMT "; the host reference: %" PetscInt_FMT " in rows of more than %" PetscInt_FMT, wentries, wrow, F.wide.entries, F.wide.row);
    PetscCheck(!req.row || wrow == req.row, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-mat_bce_wide_row %" PetscInt_FMT " requested, %" PetscInt_FMT " used", req.row, wrow);
    PetscCheck(!req.entries || wentries == req.entries, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-mat_bce_wide_entries_per_thread %" PetscInt_FMT " requested, %" PetscInt_FMT " used", req.entries, wentries);
    PetscCheck(k == F.k, PETSC_COMM_SELF, PETSC_ERR_PLIB, "device partition has %" PetscInt_FMT " blocks, the host reference %" PetscInt_FMT, k, F.k);
    for (PetscInt i = 0; i < k; i++) PetscCheck(widths[i] == F.blocks[i + (F.nempty ? 1 : 0)].width, PETSC_COMM_SELF, PETSC_ERR_PLIB, "device block %" PetscInt_FMT " has width %" PetscInt_FMT ", the host reference %d", i, widths[i], F.blocks[i + (F.nempty ? 1 : 0)].width);
  }
  PetscCall(PetscFree(widths));
  /* the hot columns: the requested number (a variant's, else the options database's, else automatic), or the columns with
     entries if fewer, those with the most entries (their entries: the largest counts' sum); automatic: none, or as many as
     the device kept, holding at least BCE_HOT_MIN_SHARE of the entries */
  if (!hot) {
    hot = -1;
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-mat_bce_hot_columns", &hot, NULL));
  }
  PetscCall(MatBCEGetHotColumns(A, &req_hot, &nhot, &hotnnz));
  PetscCheck(req_hot == hot, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-mat_bce_hot_columns %" PetscInt_FMT " requested, the matrix has %" PetscInt_FMT, hot, req_hot);
  if (hot < 0) hot = nhot;
  if (L && ia[m]) {
    PetscInt *count;

    PetscCall(PetscCalloc1(n, &count));
    for (PetscInt e = 0; e < ia[m]; e++) count[ja[e]]++;
    PetscCall(PetscSortInt(n, count)); /* ascending: the hot ones last */
    for (PetscInt c = n - 1; c >= 0 && count[c] > 0 && used < hot; c--, used++) inhot += count[c];
    PetscCall(PetscFree(count));
  }
  PetscCheck(nhot == used && hotnnz == inhot, PETSC_COMM_SELF, PETSC_ERR_PLIB, "hot columns: %" PetscInt_FMT " holding %" PetscInt64_FMT " entries on the device, %" PetscInt_FMT " holding %" PetscInt_FMT " by the host", nhot, hotnnz, used, inhot);
  PetscCheck(req_hot >= 0 || !nhot || (PetscReal)inhot >= BCE_HOT_MIN_SHARE * (PetscReal)ia[m], PETSC_COMM_SELF, PETSC_ERR_PLIB, "automatic hot columns: %" PetscInt_FMT " kept holding %" PetscInt_FMT " of %" PetscInt_FMT " entries", nhot, inhot, ia[m]);
  PetscCall(BCEMultHost(&F, x, y, z));
  PetscCall(BCEDestroyHost(&F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BCECheckOption(Mat A)
{
  PetscInt L;

  PetscFunctionBeginUser;
  PetscCall(MatBCEGetPartition(A, &L, NULL, NULL));
  PetscCheck(L == 32, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-t_mat_bce_l 32 gave L = %" PetscInt_FMT, L);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ formats that may decline a matrix (DIA, ELL) */
/* The CSR product in the CSR's order: what a declined matrix multiplies as (aijcusparse's product), exact on integer data
   in any order */
static void CSRProduct(PetscInt m, const PetscInt *ia, const PetscInt *ja, const PetscScalar *a, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  for (PetscInt i = 0; i < m; i++) {
    PetscScalar sum = 0.0;

    for (PetscInt k = ia[i]; k < ia[i + 1]; k++) sum += a[k] * x[ja[k]];
    z[i] = (y ? y[i] : 0.0) + sum;
  }
}

static PetscErrorCode CheckAgainstReference(Mat, const char *);
static PetscErrorCode CheckAgainstCUSPARSE(Mat, Mat, const char *);

/*
   A matrix that the format (type, its options -mat_<name>_fallback) cannot hold, both ways: declined at the default
   bound (MatGPUFormatGetDeclined() says so; products aijcusparse's, no device memory held, new values followed), and with fallback
   false the first product fails with PETSC_ERR_SUP naming -mat_<name>_max_fill, holding nothing; back to the fallback,
   products again. len: the rows' lengths (random columns) of the m x m matrix.
*/
static PetscErrorCode CheckDeclinedBothWays(MatType type, const char *name, PetscInt m, const PetscInt *len, const char *what)
{
  CSR            csr;
  Mat            H, A, B;
  Vec            x, y;
  PetscBool      flg, named;
  PetscLogDouble bytes;
  PetscErrorCode ierr;
  char          *msg = NULL, fallback[64], bound[64];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(fallback, sizeof(fallback), "-mat_%s_fallback", name));
  PetscCall(PetscSNPrintf(bound, sizeof(bound), "-mat_%s_max_fill", name));
  PetscCall(CSRCreate(rnd, m, m, len, PETSC_TRUE, &csr));
  PetscCall(CSRToMat(&csr, &H));
  PetscCall(MatConvert(H, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatConvert(H, type, MAT_INITIAL_MATRIX, &A));
  PetscCall(CheckAgainstCUSPARSE(A, B, what));
  PetscCall(MatGPUFormatGetDeclined(A, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: not declined", what);
  PetscCall(MatGPUFormatGetDeviceMemory(A, &bytes, NULL));
  PetscCheck(bytes == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: a declined matrix holds %g bytes of format", what, bytes);
  PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_SELF, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(A, PETSC_VIEWER_STDOUT_SELF));
  PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_SELF));
  PetscCall(MatScale(A, -2.0));
  PetscCall(MatScale(B, -2.0));
  PetscCall(CheckAgainstCUSPARSE(A, B, what));

  /* refused: an error, nothing held */
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(TestMultErrorWithOption(A, fallback, "0", x, y, &ierr));
  PetscCheck(ierr == PETSC_ERR_SUP, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, %s 0: error %d, not PETSC_ERR_SUP", what, fallback, (int)ierr);
  PetscCall(PetscErrorMessage(ierr, NULL, (void *)&msg));
  PetscCall(PetscStrstr(msg ? msg : "", bound, &msg));
  named = (PetscBool)(msg != NULL);
  PetscCheck(named, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the refusal does not name %s", what, bound);
  PetscCall(MatGPUFormatGetDeviceMemory(A, &bytes, NULL));
  PetscCheck(bytes == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: a refused matrix holds %g bytes of format", what, bytes);
  PetscCall(TestSetMatOption(A, fallback, "1"));
  PetscCall(CheckAgainstCUSPARSE(A, B, what));
  PetscCall(MatMultEqual(A, H, 3, &flg)); /* H has the values before the scaling */
  PetscCheck(!flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the scaled matrix multiplies as the original", what);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&H));
  PetscCall(CSRDestroy(&csr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ DIA */
static const char *dia_fills[] = {"2.5", "1000"};
static PetscReal   dia_req; /* -mat_dia_max_fill of the variant; 0: not set here */

/* variant v: the bound of slots per entry, the default (random matrices declined, their products aijcusparse's) or 1000
   (most of them stored) */
static PetscErrorCode DIAVariant(PetscInt v, char *desc, size_t len)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_dia_max_fill", dia_fills[v % 2]));
  dia_req = atof(dia_fills[v % 2]);
  PetscCall(PetscSNPrintf(desc, len, "at most %s slots per entry", dia_fills[v % 2]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DIAResetVariant(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsClearValue(NULL, "-mat_dia_max_fill"));
  dia_req = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The diagonals the device counted are the host's; a declined matrix multiplies as CSR, a stored one as the host
   reference of DIA */
static PetscErrorCode DIAReference(Mat A, const PetscInt *ia, const PetscInt *ja, const PetscScalar *a, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  PetscInt  m, n, ndiag, nd;
  PetscReal fill;
  PetscBool declined;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatDIAGetDiagonals(A, &ndiag, &fill, &declined));
  if (m && ia[m]) {
    PetscCall(DIACount(m, n, ia, ja, &nd));
    PetscCheck(nd == ndiag, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the device counted %" PetscInt_FMT " diagonals, the host %" PetscInt_FMT, ndiag, nd);
    PetscCheck(PetscAbsReal(fill - (PetscReal)nd * m / ia[m]) <= 1e-12 * fill, PETSC_COMM_SELF, PETSC_ERR_PLIB, "fill %g, expected %g", (double)fill, (double)nd * m / ia[m]);
    PetscCheck(!dia_req || declined == (PetscBool)(fill > dia_req), PETSC_COMM_SELF, PETSC_ERR_PLIB, "fill %g with the bound %g: %s", (double)fill, (double)dia_req, declined ? "declined" : "stored");
  } else PetscCheck(!declined, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a matrix without entries declined");
  if (declined) CSRProduct(m, ia, ja, a, x, y, z);
  else {
    DIAArrays F;

    PetscCall(DIABuildHost(m, n, ia, ja, a, 0, &F));
    PetscCall(DIAMultHost(&F, x, y, z));
    PetscCall(DIADestroyHost(&F));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -t_mat_dia_max_fill 1000 on the options check's matrix (300 x 300, 30 random entries per row, about 20 slots per
   entry): stored, where the default bound (2.5) and the other value (10) decline it */
static PetscErrorCode DIACheckOption(Mat A)
{
  PetscReal fill;
  PetscBool declined;

  PetscFunctionBeginUser;
  PetscCall(MatDIAGetDiagonals(A, NULL, &fill, &declined));
  PetscCheck(fill > 10 && !declined, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-t_mat_dia_max_fill 1000: fill %g, %s", (double)fill, declined ? "declined" : "stored");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Thousands of scattered diagonals (2000 x 2000, 5 random entries per row), declined or refused; a 5-point Laplacian of a
   60 x 50 grid stored on its 5 diagonals */
static PetscErrorCode DIACheckBounds(void)
{
  PetscInt      *len, ndiag;
  PetscReal      fill;
  PetscBool      declined;
  Mat            H, A;
  PetscLogDouble bytes;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(2000, &len));
  for (PetscInt i = 0; i < 2000; i++) len[i] = 5;
  PetscCall(CheckDeclinedBothWays(MATDIA, "dia", 2000, len, "DIA, scattered diagonals"));
  PetscCall(PetscFree(len));
  { /* a 5-point Laplacian: stored on 5 diagonals */
    const PetscInt gx = 60, gy = 50;

    PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, gx * gy, gx * gy, 5, NULL, &H));
    for (PetscInt j = 0; j < gy; j++)
      for (PetscInt i = 0; i < gx; i++) {
        const PetscInt r = j * gx + i;

        if (j > 0) PetscCall(MatSetValue(H, r, r - gx, -1.0, INSERT_VALUES));
        if (i > 0) PetscCall(MatSetValue(H, r, r - 1, -1.0, INSERT_VALUES));
        PetscCall(MatSetValue(H, r, r, 4.0, INSERT_VALUES));
        if (i < gx - 1) PetscCall(MatSetValue(H, r, r + 1, -1.0, INSERT_VALUES));
        if (j < gy - 1) PetscCall(MatSetValue(H, r, r + gx, -1.0, INSERT_VALUES));
      }
    PetscCall(MatAssemblyBegin(H, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(H, MAT_FINAL_ASSEMBLY));
    PetscCall(MatConvert(H, MATDIA, MAT_INITIAL_MATRIX, &A));
    PetscCall(CheckAgainstReference(A, "5-point Laplacian of a 60 x 50 grid"));
    PetscCall(MatDIAGetDiagonals(A, &ndiag, &fill, &declined));
    PetscCheck(ndiag == 5 && !declined && fill < 1.1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "5-point Laplacian: %" PetscInt_FMT " diagonals, fill %g, %s", ndiag, (double)fill, declined ? "declined" : "stored");
    PetscCall(MatGPUFormatGetDeviceMemory(A, &bytes, NULL));
    PetscCheck(bytes > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the Laplacian's DIA holds no device memory");
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&H));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "DIA: scattered diagonals declined (products aijcusparse's) or refused with an error; the Laplacian stored\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ HYB and ELL */
static const char *hyb_widths[] = {"0", "1", "3"}, *ell_fills[] = {"2", "1000"}, *hyb_pads[] = {"0", "1"};

/* HYB's variant v: the width (the rule, 1, 3) x padding read or not */
static PetscErrorCode HYBVariant(PetscInt v, char *desc, size_t len)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_hyb_width", hyb_widths[v % 3]));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_hyb_read_padding", hyb_pads[(v / 3) % 2]));
  PetscCall(PetscSNPrintf(desc, len, "width %s (0: the paper's rule), padding read %s", hyb_widths[v % 3], hyb_pads[(v / 3) % 2]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ELL's variant v: the bound of slots per entry (2, below the default 3, or 1000) x padding read or not */
static PetscErrorCode ELLVariant(PetscInt v, char *desc, size_t len)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_ell_max_fill", ell_fills[v % 2]));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_ell_read_padding", hyb_pads[(v / 2) % 2]));
  PetscCall(PetscSNPrintf(desc, len, "at most %s slots per entry, padding read %s", ell_fills[v % 2], hyb_pads[(v / 2) % 2]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HYBResetVariant(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsClearValue(NULL, "-mat_hyb_width"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_hyb_read_padding"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_ell_max_fill"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_ell_read_padding"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The width the device used (the one set, the paper's rule, or ELL's longest row; the options read with A's prefix, as
   A reads them) and its COO part are the host's; a declined ELL matrix multiplies as CSR, a stored one as the host
   reference of HYB */
static PetscErrorCode HYBReference(Mat A, const PetscInt *ia, const PetscInt *ja, const PetscScalar *a, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  PetscInt    m, n, width, ncoo, expect = 0, maxlen = 0, hyb_req = 0;
  PetscReal   ell_req = ELL_DEFAULT_MAX_FILL;
  PetscBool   declined, ell;
  const char *prefix;
  HYBArrays   F;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQELL, &ell));
  PetscCall(MatGetOptionsPrefix(A, &prefix));
  PetscCall(PetscOptionsGetInt(NULL, prefix, "-mat_hyb_width", &hyb_req, NULL));
  PetscCall(PetscOptionsGetReal(NULL, prefix, "-mat_ell_max_fill", &ell_req, NULL));
  PetscCall(MatHYBGetWidth(A, &width, &ncoo, &declined));
  for (PetscInt i = 0; i < m; i++) maxlen = PetscMax(maxlen, ia[i + 1] - ia[i]);
  if (m && ia[m]) {
    if (ell) expect = maxlen;
    else if (hyb_req) expect = PetscMin(hyb_req, maxlen);
    else PetscCall(HYBDefaultWidth(m, ia, &expect));
    PetscCheck(width == expect, PETSC_COMM_SELF, PETSC_ERR_PLIB, "width %" PetscInt_FMT ", expected %" PetscInt_FMT, width, expect);
    PetscCheck(!ell || !ell_req || declined == (PetscBool)((PetscReal)width * m / ia[m] > ell_req), PETSC_COMM_SELF, PETSC_ERR_PLIB, "ELL width %" PetscInt_FMT " with the bound %g: %s", width, (double)ell_req, declined ? "declined" : "stored");
  } else PetscCheck(!declined && !width, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a matrix without entries: width %" PetscInt_FMT ", %s", width, declined ? "declined" : "stored");
  if (declined) {
    CSRProduct(m, ia, ja, a, x, y, z);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(HYBBuildHost(m, n, ia, ja, a, width, &F));
  PetscCheck(F.ncoo == ncoo, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the device's COO part has %" PetscInt_FMT " entries, the host's %" PetscInt_FMT, ncoo, F.ncoo);
  PetscCall(HYBMultHost(&F, x, y, z));
  PetscCall(HYBDestroyHost(&F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -t_mat_hyb_width 7 on the options check's matrix (300 x 300, 30 entries per row): 7 ELL slots, 23 per row in COO */
static PetscErrorCode HYBCheckOption(Mat A)
{
  PetscInt width, ncoo;

  PetscFunctionBeginUser;
  PetscCall(MatHYBGetWidth(A, &width, &ncoo, NULL));
  PetscCheck(width == 7 && ncoo == 300 * 23, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-t_mat_hyb_width 7: width %" PetscInt_FMT ", %" PetscInt_FMT " entries in COO", width, ncoo);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -t_mat_ell_max_fill 1000 on the options check's matrix (rows of 30): width 30, stored */
static PetscErrorCode ELLCheckOption(Mat A)
{
  PetscInt  width, ncoo;
  PetscBool declined;

  PetscFunctionBeginUser;
  PetscCall(MatHYBGetWidth(A, &width, &ncoo, &declined));
  PetscCheck(width == 30 && !ncoo && !declined, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-t_mat_ell_max_fill 1000: width %" PetscInt_FMT ", %" PetscInt_FMT " entries in COO, %s", width, ncoo, declined ? "declined" : "stored");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ELL of a matrix with one dense row (2000 x 2000, rows of 3 and one of 2000: 500 slots per entry), declined or refused;
   HYB holds the same matrix with the long row in COO */
static PetscErrorCode ELLCheckBounds(void)
{
  PetscInt *len;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(2000, &len));
  for (PetscInt i = 0; i < 2000; i++) len[i] = 3;
  len[777] = 2000;
  PetscCall(CheckDeclinedBothWays(MATELL, "ell", 2000, len, "ELL, one dense row"));
  {
    CSR      csr;
    Mat      H, A;
    PetscInt width, ncoo;

    PetscCall(CSRCreate(rnd, 2000, 2000, len, PETSC_TRUE, &csr));
    PetscCall(CSRToMat(&csr, &H));
    PetscCall(MatConvert(H, MATHYB, MAT_INITIAL_MATRIX, &A));
    PetscCall(CheckAgainstReference(A, "HYB, one dense row"));
    PetscCall(MatHYBGetWidth(A, &width, &ncoo, NULL));
    PetscCheck(width == 3 && ncoo == 1997, PETSC_COMM_SELF, PETSC_ERR_PLIB, "HYB, one dense row: width %" PetscInt_FMT ", %" PetscInt_FMT " entries in COO", width, ncoo);
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&H));
    PetscCall(CSRDestroy(&csr));
  }
  PetscCall(PetscFree(len));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ELL: a dense row declined (products aijcusparse's) or refused with an error; HYB holds it in COO\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ ARG-CSR */
static const char *argcsr_blocks[] = {"32", "128", "1024"}, *argcsr_desired[] = {"1", "4", "32"};

/* variant v: threads per group x desired chunk size */
static PetscErrorCode ARGCSRVariant(PetscInt v, char *desc, size_t len)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_argcsr_block", argcsr_blocks[v % 3]));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_argcsr_desired_chunk_size", argcsr_desired[(v / 3) % 3]));
  PetscCall(PetscSNPrintf(desc, len, "%s threads per group, desired chunk size %s", argcsr_blocks[v % 3], argcsr_desired[(v / 3) % 3]));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode ARGCSRResetVariant(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsClearValue(NULL, "-mat_argcsr_block"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_argcsr_desired_chunk_size"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The host reference with the parameters the matrix read (its prefix): the device's groups, slots and mapped threads are
   the host's (the device assigns the threads by the closed form, the host by the paper's greedy), then the product */
static PetscErrorCode ARGCSRReference(Mat A, const PetscInt *ia, const PetscInt *ja, const PetscScalar *a, const PetscScalar *x, const PetscScalar *y, PetscScalar *z)
{
  PetscInt     m, n, block = ARGCSR_DEFAULT_BLOCK, desired = ARGCSR_DEFAULT_DESIRED, ngroups, nslots, threads, hthreads = 0;
  const char  *prefix;
  ARGCSRArrays F;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatGetOptionsPrefix(A, &prefix));
  PetscCall(PetscOptionsGetInt(NULL, prefix, "-mat_argcsr_block", &block, NULL));
  PetscCall(PetscOptionsGetInt(NULL, prefix, "-mat_argcsr_desired_chunk_size", &desired, NULL));
  PetscCall(MatARGCSRGetGroups(A, &ngroups, &nslots, &threads));
  if (!m || !ia[m]) {
    PetscCheck(!ngroups && !nslots, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a matrix without entries: %" PetscInt_FMT " groups, %" PetscInt_FMT " slots", ngroups, nslots);
    CSRProduct(m, ia, ja, a, x, y, z);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(ARGCSRBuildHost(m, n, ia, ja, a, block, desired, &F));
  for (PetscInt g = 0; g < F.ngroups; g++) hthreads += F.map[F.groups[g].firstRow + F.groups[g].size - 1];
  PetscCheck(F.ngroups == ngroups && F.nslots == nslots && hthreads == threads, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ARG-CSR (block %" PetscInt_FMT ", desired %" PetscInt_FMT "): the device has %" PetscInt_FMT " groups, %" PetscInt_FMT " slots, %" PetscInt_FMT " threads mapped; the host %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT, block, desired, ngroups, nslots, threads, F.ngroups, F.nslots, hthreads);
  PetscCall(ARGCSRMultHost(&F, x, y, z));
  PetscCall(ARGCSRDestroyHost(&F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -t_mat_argcsr_block 64 on the options check's matrix (300 x 300, rows of 30): at desired chunk size 1 a group closes
   past 64 entries, so 2 rows a group, 150 groups (32 threads: 300 groups) */
static PetscErrorCode ARGCSRCheckOption(Mat A)
{
  PetscInt ngroups;

  PetscFunctionBeginUser;
  PetscCall(MatARGCSRGetGroups(A, &ngroups, NULL, NULL));
  PetscCheck(ngroups == 150, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-t_mat_argcsr_block 64: %" PetscInt_FMT " groups, not 150", ngroups);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* HYB's COO part of 3 levels: rows of 300,000 and 150,000 entries past a width of 3 (450,000 COO entries, 879 warps of
   512, whose carries 28 warps of 32 reduce, whose carries one warp adds), the long rows crossing warps of every level */
static PetscErrorCode HYBCheckLongRows(void)
{
  PetscInt *len, width, ncoo;
  CSR       csr;
  Mat       H, A;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(1000, &len));
  for (PetscInt i = 0; i < 1000; i++) len[i] = 3;
  len[10]  = 300000;
  len[600] = 150000;
  PetscCall(CSRCreate(rnd, 1000, 400000, len, PETSC_TRUE, &csr));
  PetscCall(CSRToMat(&csr, &H));
  PetscCall(MatConvert(H, MATHYB, MAT_INITIAL_MATRIX, &A));
  PetscCall(CheckAgainstReference(A, "HYB, COO carries of 3 levels"));
  PetscCall(MatHYBGetWidth(A, &width, &ncoo, NULL));
  PetscCheck(width == 3 && ncoo == 300000 + 150000 - 6, PETSC_COMM_SELF, PETSC_ERR_PLIB, "HYB, rows of 300000 and 150000: width %" PetscInt_FMT ", %" PetscInt_FMT " entries in COO", width, ncoo);
  PetscCall(MatScale(A, -3.0)); /* the values refreshed, the levels again */
  PetscCall(MatScale(H, -3.0));
  PetscCall(CheckAgainstReference(A, "HYB, COO carries of 3 levels, values changed"));
  PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_SELF, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(A, PETSC_VIEWER_STDOUT_SELF));
  PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_SELF));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&H));
  PetscCall(CSRDestroy(&csr));
  PetscCall(PetscFree(len));
  { /* width 1 on rows of 2 entries: a COO part of m entries, one per row, at the levels' edges: one full warp (512), a
       last warp of one entry that carries nothing (513), 32 warps whose carries one warp adds, 33 (a level more); and a
       row that ends exactly on 32 warps (1 + 16,384 entries) */
    const PetscInt ms[] = {512, 513, 512 * 32, 512 * 33, 3000};

    PetscCall(PetscOptionsSetValue(NULL, "-mat_hyb_width", "1"));
    for (size_t c = 0; c < PETSC_STATIC_ARRAY_LENGTH(ms); c++) {
      char what[64];

      PetscCall(PetscMalloc1(ms[c], &len));
      for (PetscInt i = 0; i < ms[c]; i++) len[i] = 2;
      if (ms[c] == 3000) len[0] = 1 + 512 * 32;
      PetscCall(CSRCreate(rnd, ms[c], 20000, len, PETSC_TRUE, &csr));
      PetscCall(CSRToMat(&csr, &H));
      PetscCall(MatConvert(H, MATHYB, MAT_INITIAL_MATRIX, &A));
      PetscCall(MatSetFromOptions(A));
      PetscCall(PetscSNPrintf(what, sizeof(what), "HYB, width 1, %" PetscInt_FMT " rows", ms[c]));
      PetscCall(CheckAgainstReference(A, what));
      PetscCall(MatHYBGetWidth(A, &width, &ncoo, NULL));
      PetscCheck(width == 1 && ncoo == (ms[c] == 3000 ? 512 * 32 + 2999 : ms[c]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: width %" PetscInt_FMT ", %" PetscInt_FMT " entries in COO", what, width, ncoo);
      PetscCall(MatDestroy(&A));
      PetscCall(MatDestroy(&H));
      PetscCall(CSRDestroy(&csr));
      PetscCall(PetscFree(len));
    }
    PetscCall(PetscOptionsClearValue(NULL, "-mat_hyb_width"));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "HYB: COO carries reduced in 3 levels, and at the levels' edges, as the host reference\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const Format formats[] = {
    {MATCMRS,   MATSEQCMRS,   "CMRS",   192, 1, CMRSVariant,   CMRSResetVariant,   CMRSReference,   "mat_cmrs_height",  "8",    "4",  CMRSCheckOption,   {"mat_cmrs_height", "3", "mat_cmrs_strips_per_warp", "3", "mat_cmrs_chunk", "31", "mat_cmrs_chunk", "8192", "mat_cmrs_long_strip", "-1", NULL},                                                    PETSC_FALSE, NULL            },
    {MATSELLCS, MATSEQSELLCS, "SELLCS", 160, 5, SELLCSVariant, SELLCSResetVariant, SELLCSReference, "mat_sellcs_c",     "16",   "32", SELLCSCheckOption, {"mat_sellcs_c", "12", "mat_sellcs_sigma", "3", "mat_sellcs_threads_per_row", "3", "mat_sellcs_long_row", "-1", "mat_sellcs_refresh_threads_per_row", "64", NULL},                                 PETSC_FALSE, NULL            },
    {MATBCE,    MATSEQBCE,    "BCE",    10,  0, BCEVariant,    BCEResetVariant,    BCEReference,    "mat_bce_l",        "32",   "64", BCECheckOption,    {"mat_bce_l", "-1", "mat_bce_merge_lengths", "-1", "mat_bce_wide_entries_per_thread", "65", "mat_bce_wide_entries_per_thread", "-1", "mat_bce_wide_row", "-1", "mat_bce_hot_columns", "-2", NULL}, PETSC_FALSE, NULL            },
    {MATDIA,    MATSEQDIA,    "DIA",    2,   0, DIAVariant,    DIAResetVariant,    DIAReference,    "mat_dia_max_fill", "1000", "10", DIACheckOption,    {"mat_dia_max_fill", "0.5", "mat_dia_max_fill", "-1", NULL},                                                                                                                                       PETSC_TRUE,  DIACheckBounds  },
    {MATHYB,    MATSEQHYB,    "HYB",    6,   0, HYBVariant,    HYBResetVariant,    HYBReference,    "mat_hyb_width",    "7",    "9",  HYBCheckOption,    {"mat_hyb_width", "-1", NULL},                                                                                                                                                                     PETSC_FALSE, HYBCheckLongRows},
    {MATELL,    MATSEQELL,    "ELL",    4,   0, ELLVariant,    HYBResetVariant,    HYBReference,    "mat_ell_max_fill", "1000", "10", ELLCheckOption,    {"mat_ell_max_fill", "0.5", "mat_ell_max_fill", "-1", NULL},                                                                                                                                       PETSC_FALSE, ELLCheckBounds  },
    {MATARGCSR, MATSEQARGCSR, "ARGCSR", 9,   0, ARGCSRVariant, ARGCSRResetVariant, ARGCSRReference, "mat_argcsr_block", "64",   "32", ARGCSRCheckOption, {"mat_argcsr_block", "48", "mat_argcsr_block", "2048", "mat_argcsr_desired_chunk_size", "0", NULL},                                                                                                PETSC_FALSE, NULL            },
};
static const Format *fmt;

/* PETSc options of the format, with the test's prefix t_ */
static PetscErrorCode SetTestOption(const char *name, const char *value)
{
  char opt[128];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-t_%s", name));
  if (value) PetscCall(PetscOptionsSetValue(NULL, opt, value));
  else PetscCall(PetscOptionsClearValue(NULL, opt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FillInteger(Vec v, PetscInt lo, PetscInt hi)
{
  PetscScalar *a;
  PetscInt     n;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGetArrayWrite(v, &a));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal r;

    PetscCall(PetscRandomGetValueReal(rnd, &r));
    a[i] = (PetscScalar)(lo + (PetscInt)(r * (hi - lo + 1)));
  }
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EventCount(const char *name, PetscInt *count)
{
  PetscLogEvent      ev;
  PetscEventPerfInfo info;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventGetId(name, &ev));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info));
  *count = info.count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bitwise equality (integer data), NaN never equal */
static PetscErrorCode CheckEqual(Vec v, const PetscScalar *ref, const char *what)
{
  const PetscScalar *a;
  PetscInt           n;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGetArrayRead(v, &a));
  for (PetscInt i = 0; i < n; i++) PetscCheck(a[i] == ref[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: entry %" PetscInt_FMT " is %g, the host reference %g", what, i, (double)PetscRealPart(a[i]), (double)PetscRealPart(ref[i]));
  PetscCall(VecRestoreArrayRead(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The device products of A (integer values) against the host reference of the format, built from A's own
   host CSR with the parameters the device used.
*/
static PetscErrorCode CheckAgainstReference(Mat A, const char *what)
{
  Vec                x, y, w, z;
  const PetscInt    *ia, *ja;
  const PetscScalar *a, *xa, *wa;
  PetscScalar       *ref;
  PetscInt           m, nrows;
  PetscBool          done;
  char               msg[640];

  PetscFunctionBeginUser;
  PetscCall(MatGetLocalSize(A, &m, NULL));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(y, &w));
  PetscCall(VecDuplicate(y, &z));
  PetscCall(FillInteger(x, -3, 3));
  PetscCall(FillInteger(w, -5, 5));
  PetscCall(VecSet(y, NAN));
  PetscCall(MatMult(A, x, y));
  PetscCall(PetscMalloc1(m, &ref));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrows, &ia, &ja, &done)); /* MatRestoreRowIJ() zeroes nrows */
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatGetRowIJ");
  PetscCall(MatSeqAIJGetArrayRead(A, &a));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(fmt->reference(A, ia, ja, a, xa, NULL, ref));
  PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s: MatMult", what));
  PetscCall(CheckEqual(y, ref, msg));
  PetscCall(VecGetArrayRead(w, &wa));
  PetscCall(fmt->reference(A, ia, ja, a, xa, wa, ref));
  PetscCall(VecRestoreArrayRead(w, &wa));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &a));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrows, &ia, &ja, &done));
  PetscCall(VecSet(z, NAN));
  PetscCall(MatMultAdd(A, x, w, z));
  PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s: MatMultAdd", what));
  PetscCall(CheckEqual(z, ref, msg));
  PetscCall(MatMultAdd(A, x, w, w)); /* y == z, as the MPI product calls it */
  PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s: MatMultAdd with y == z", what));
  PetscCall(CheckEqual(w, ref, msg));
  PetscCall(PetscFree(ref));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every product of A against those of the aijcusparse matrix B */
static PetscErrorCode CheckAgainstCUSPARSE(Mat A, Mat B, const char *what)
{
  PetscBool flg;

  PetscFunctionBeginUser;
  PetscCall(MatMultEqual(A, B, 5, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatMult differs from aijcusparse", what);
  PetscCall(MatMultAddEqual(A, B, 5, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatMultAdd differs from aijcusparse", what);
  PetscCall(MatMultTransposeEqual(A, B, 5, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatMultTranspose differs from aijcusparse", what);
  PetscCall(MatMultTransposeAddEqual(A, B, 5, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatMultTransposeAdd differs from aijcusparse", what);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckType(Mat A, MatType type, const char *what)
{
  PetscBool flg;
  MatType   actual;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, type, &flg));
  PetscCall(MatGetType(A, &actual));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: type %s, expected %s", what, actual, type);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Each row's entries moved onto consecutive columns around its diagonal (values kept): a band of few diagonals */
static PetscErrorCode BandColumns(CSR *csr)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < csr->m; i++) {
    const PetscInt l = csr->rowptr[i + 1] - csr->rowptr[i], start = PetscMax(0, PetscMin(i - l / 2, csr->n - l));

    for (PetscInt q = 0; q < l; q++) csr->colind[csr->rowptr[i] + q] = start + q;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 1 and 2: one matrix, every variant of the format (-variants k: k of them, spread over the list) */
static PetscInt nmatrices;                   /* matrices CheckMatrix() has checked */
static PetscInt maxvariants = PETSC_INT_MAX; /* -variants */

static PetscErrorCode CheckMatrix(PetscInt m, PetscInt n, const PetscInt *len, const char *what)
{
  CSR  csr;
  Mat  H, A, B;
  char msg[512], desc[256];

  PetscFunctionBeginUser;
  nmatrices++;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "checking %s\n", what));
  PetscCall(CSRCreate(rnd, m, n, len, PETSC_TRUE, &csr));
  PetscCall(CSRToMat(&csr, &H));
  PetscCall(MatConvert(H, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatConvert(H, fmt->type, MAT_INITIAL_MATRIX, &A));
  PetscCall(CheckType(A, fmt->type, what));
  if (explicit_transpose) {
    PetscCall(MatSetOption(B, MAT_FORM_EXPLICIT_TRANSPOSE, PETSC_TRUE));
    PetscCall(MatSetOption(A, MAT_FORM_EXPLICIT_TRANSPOSE, PETSC_TRUE));
  }
  for (PetscInt k = 0, nv = PetscMin(fmt->nvariants, maxvariants); k < nv; k++) {
    /* with fewer variants than the format has, spread over the list and shifted with every matrix, so that a run of
       many matrices reaches them all */
    const PetscInt v = nv == fmt->nvariants ? k : (PetscInt)(((PetscInt64)k * fmt->nvariants / nv + nmatrices) % fmt->nvariants);

    PetscCall(fmt->setvariant(v, desc, sizeof(desc)));
    PetscCall(MatSetFromOptions(A));
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s (%s)", what, desc));
    PetscCall(CheckAgainstReference(A, msg));
    /* new values on the device: the refresh fused into the next product (the sanitizer tests run this part too); the
       second scaling (exact: powers of 2) brings A back to B's values for the next variant or check */
    PetscCall(MatScale(A, -2.0));
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s (%s), after MatScale", what, desc));
    PetscCall(CheckAgainstReference(A, msg));
    PetscCall(MatScale(A, -0.5));
  }
  PetscCall(fmt->resetvariant());
  PetscCall(CheckAgainstCUSPARSE(A, B, what));
  { /* the transpose products (cuSPARSE's, inherited) against the host matrix too, not only against cuSPARSE */
    PetscBool flg;

    PetscCall(MatMultTransposeEqual(A, H, 3, &flg));
    PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatMultTranspose differs from the host seqaij", what);
    PetscCall(MatMultTransposeAddEqual(A, H, 3, &flg));
    PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatMultTransposeAdd differs from the host seqaij", what);
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&H));
  PetscCall(CSRDestroy(&csr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   x with an infinity in column 0 and ones elsewhere, default parameters: every row must come out as with
   aijcusparse (the same value, or NaN where aijcusparse gives NaN), so a row without an entry in column 0 stays
   finite; a format that read padded slots as column 0 and value 0 would turn it into NaN (0 x Inf)
*/
static PetscErrorCode CheckInfinityInX(void)
{
  const PetscInt     m = 300;
  PetscInt           len[300];
  CSR                csr;
  Mat                H, A, B;
  Vec                x, ya, yb;
  const PetscScalar *a, *b;
  PetscScalar       *xa;
  PetscBool          sell;
  PetscInt           infinite = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "checking an infinity in x\n"));
  for (PetscInt i = 0; i < m; i++) len[i] = (i * 7) % 23; /* rows of 0 to 22 entries, so chunks and blocks are padded */
  PetscCall(CSRCreate(rnd, m, m, len, PETSC_TRUE, &csr));
  PetscCall(CSRToMat(&csr, &H));
  PetscCall(MatConvert(H, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatConvert(H, fmt->type, MAT_INITIAL_MATRIX, &A));
  PetscCall(MatCreateVecs(A, &x, &ya));
  PetscCall(VecDuplicate(ya, &yb));
  PetscCall(VecSet(x, 1.0));
  PetscCall(VecGetArray(x, &xa));
  xa[0] = (PetscScalar)INFINITY; /* IEEE infinity (PETSC_INFINITY is a large finite number) */
  PetscCall(VecRestoreArray(x, &xa));
  PetscCall(MatMult(A, x, ya));
  PetscCall(MatMult(B, x, yb));
  PetscCall(VecGetArrayRead(ya, &a));
  PetscCall(VecGetArrayRead(yb, &b));
  for (PetscInt i = 0; i < m; i++) {
    const PetscBool nan = (PetscBool)(PetscIsNanReal(PetscRealPart(a[i])) && PetscIsNanReal(PetscRealPart(b[i])));

    infinite += PetscIsInfOrNanReal(PetscRealPart(b[i]));

    PetscCheck(nan || a[i] == b[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "x[0] = Inf: row %" PetscInt_FMT " (%" PetscInt_FMT " entries) is %g, aijcusparse gives %g", i, len[i], (double)PetscRealPart(a[i]), (double)PetscRealPart(b[i]));
  }
  PetscCall(VecRestoreArrayRead(ya, &a));
  PetscCheck(infinite > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "x[0] = Inf: no row of aijcusparse's product is infinite or NaN");
  PetscCall(PetscStrcmp(fmt->root, MATSELLCS, &sell));
  if (sell) { /* the check sees the difference: SELL-C-sigma reading its padding gives NaN rows */
    PetscInt differ = 0;

    PetscCall(PetscOptionsSetValue(NULL, "-mat_sellcs_read_padding", "1"));
    PetscCall(MatSetFromOptions(A));
    PetscCall(MatMult(A, x, ya));
    PetscCall(VecGetArrayRead(ya, &a));
    for (PetscInt i = 0; i < m; i++) differ += !(a[i] == b[i] || (PetscIsNanReal(PetscRealPart(a[i])) && PetscIsNanReal(PetscRealPart(b[i]))));
    PetscCall(VecRestoreArrayRead(ya, &a));
    PetscCall(PetscOptionsClearValue(NULL, "-mat_sellcs_read_padding"));
    PetscCheck(differ > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "x[0] = Inf with the padding read: no row differs from aijcusparse, so this check cannot see a format that reads padding");
  }
  PetscCall(VecRestoreArrayRead(yb, &b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&yb));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&H));
  PetscCall(CSRDestroy(&csr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 17M rows of one entry: more than 2^24 strips of height 1 or rows (grid-stride loops past one grid) */
static PetscErrorCode CheckLarge(void)
{
  const PetscInt m = 17000000;
  PetscInt      *len;
  CSR            csr;
  Mat            H, A;
  char           desc[256];

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "checking %" PetscInt_FMT " x %" PetscInt_FMT " with one entry per row\n", m, m));
  PetscCall(PetscMalloc1(m, &len));
  for (PetscInt i = 0; i < m; i++) len[i] = 1;
  PetscCall(CSRCreate(rnd, m, m, len, PETSC_TRUE, &csr));
  PetscCall(PetscFree(len));
  PetscCall(CSRToMat(&csr, &H));
  PetscCall(CSRDestroy(&csr));
  PetscCall(MatConvert(H, fmt->type, MAT_INITIAL_MATRIX, &A));
  PetscCall(MatDestroy(&H));
  PetscCall(fmt->setvariant(fmt->largevariant, desc, sizeof(desc)));
  PetscCall(MatSetFromOptions(A));
  PetscCall(CheckAgainstReference(A, desc));
  PetscCall(fmt->resetvariant());
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Rows given in decreasing column order (MatCreateSeqAIJWithArrays(), which wants sorted rows but checks them only in a
   debug PETSc): the formats must give the same products, CMRS by noticing that its one-pass ranking of a strip's entries
   (for sorted rows) does not apply and sorting instead. A debug PETSc refuses such rows: nothing to check there.
*/
static PetscErrorCode CheckUnsortedRows(void)
{
  const PetscInt m = 500, n = 700, stride = 17;
  PetscInt      *ia, *ja;
  PetscScalar   *va;
  Mat            H, A;
  PetscBool      flg;

  PetscFunctionBeginUser;
  if (PetscDefined(USE_DEBUG)) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "rows out of column order: not checked (a debug PETSc refuses them)\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  nmatrices++;
  PetscCall(PetscMalloc1(m + 1, &ia));
  ia[0] = 0;
  for (PetscInt i = 0; i < m; i++) ia[i + 1] = ia[i] + (i * 13) % 40; /* rows of 0 to 39 entries */
  PetscCall(PetscMalloc2(ia[m], &ja, ia[m], &va));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt t = 0; t < ia[i + 1] - ia[i]; t++) {
      ja[ia[i] + t] = n - 1 - (i % stride) - t * stride; /* decreasing, distinct, at least 699 - 16 - 39 * 17 = 20 */
      va[ia[i] + t] = 1.0 + (PetscScalar)((i + t) % 5);
    }
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, m, n, ia, ja, va, &H));
  PetscCall(MatConvert(H, fmt->type, MAT_INITIAL_MATRIX, &A));
  PetscCall(CheckType(A, fmt->type, "rows out of column order"));
  for (PetscInt v = 0; v < fmt->nvariants; v++) { /* every variant: CMRS's heights, packed and separate row arrays */
    char desc[256], msg[512];

    PetscCall(fmt->setvariant(v, desc, sizeof(desc)));
    PetscCall(MatSetFromOptions(A));
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "500 x 700 with rows in decreasing column order (%s)", desc));
    PetscCall(CheckAgainstReference(A, msg));
  }
  PetscCall(fmt->resetvariant());
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatMultEqual(A, H, 3, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "rows out of column order: MatMult differs from the host seqaij");
  PetscCall(MatMultAddEqual(A, H, 3, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "rows out of column order: MatMultAdd differs from the host seqaij");
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&H));
  PetscCall(PetscFree2(ja, va));
  PetscCall(PetscFree(ia));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckMatrices(void)
{
  PetscInt *len;
  PetscInt  count = nmatrices;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(200000, &len));
  PetscCall(CheckMatrix(0, 5, len, "0 x 5"));
  PetscCall(CheckMatrix(20, 20, len, "20 x 20 without entries"));
  for (PetscInt i = 0; i < 25; i++) len[i] = (i % 3) ? i % 7 : 0;
  PetscCall(CheckMatrix(25, 25, len, "25 x 25 with empty rows"));
  for (PetscInt i = 0; i < 1000; i++) {
    PetscReal r;

    PetscCall(PetscRandomGetValueReal(rnd, &r));
    len[i] = r < 0.1 ? 0 : (PetscInt)(40 * r);
  }
  PetscCall(CheckMatrix(1000, 800, len, "1000 x 800 random"));
  for (PetscInt i = 0; i < 3000; i++) len[i] = 3;
  len[1234] = 100000;
  len[1235] = 60000;
  PetscCall(CheckMatrix(3000, 200000, len, "3000 x 200000 with rows of 100000 and 60000"));
  for (PetscInt i = 0; i < 5; i++) len[i] = 1500;
  PetscCall(CheckMatrix(5, 3000, len, "5 x 3000"));
  for (PetscInt i = 0; i < 3000; i++) len[i] = 2;
  PetscCall(CheckMatrix(3000, 5, len, "3000 x 5"));
  for (PetscInt i = 0; i < 64; i++) len[i] = (i % 16 == 15) ? 30 : 0;
  PetscCall(CheckMatrix(64, 64, len, "64 x 64, one nonempty row per 16"));
  /* more than 2^20 entries in skewed rows: CMRS's ranking by warp sorts of the short strips and a thread per entry of the
     long ones (cmrs_rank_long_kernel(), whose CUDA blocks split the rows of 3,000 to 30,000 entries between them) */
  for (PetscInt i = 0; i < 200000; i++) len[i] = 1 + i % 9;
  len[777]    = 30000;
  len[99999]  = 3000;
  len[150001] = 20000;
  PetscCall(CheckMatrix(200000, 200000, len, "200000 x 200000, rows of 1 to 9 and three of 3000 to 30000"));
  for (PetscInt i = 0; i < 31; i++) len[i] = 31;
  PetscCall(CheckMatrix(31, 31, len, "31 x 31 dense"));
  for (PetscInt i = 0; i < 300; i++) len[i] = 1 + (i * 7) % 300;
  PetscCall(CheckMatrix(300, 400, len, "300 x 400, every row of its own length"));
  for (PetscInt i = 0; i < 24; i++) len[i] = 9000 + 37 * i;
  PetscCall(CheckMatrix(24, 12000, len, "24 x 12000, rows of 9000 to 9851"));
  PetscCall(CheckLarge());
  PetscCall(CheckUnsortedRows());
  count = nmatrices - count;
  PetscCall(PetscFree(len));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "device = host reference and aijcusparse on %" PetscInt_FMT " matrices x %" PetscInt_FMT " variants\n", count, fmt->nvariants));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 1 on many random matrices (-count, default 300), small enough for compute-sanitizer: up to 3,000 x 3,000, empty rows,
   rectangular shapes, now and then a row of up to 5,000 entries (tests/CMakeLists.txt, PETSCGPUFORMATS_SANITIZE) */
static PetscErrorCode CheckRandomMatrices(void)
{
  PetscInt *len, count = 300;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-count", &count, NULL));
  PetscCall(PetscMalloc1(3000, &len));
  for (PetscInt t = 0; t < count; t++) {
    PetscReal r;
    PetscInt  m, n;
    char      what[64];

    PetscCall(PetscRandomGetValueReal(rnd, &r));
    m = (PetscInt)(r * 3000);
    PetscCall(PetscRandomGetValueReal(rnd, &r));
    n = 1 + (PetscInt)(r * 2999);
    for (PetscInt i = 0; i < m; i++) {
      PetscCall(PetscRandomGetValueReal(rnd, &r));
      len[i] = r < 0.1 ? 0 : (r > 0.999 ? (PetscInt)(5000 * r) : (PetscInt)(40 * r));
    }
    PetscCall(PetscSNPrintf(what, sizeof(what), "random %" PetscInt_FMT ": %" PetscInt_FMT " x %" PetscInt_FMT, t, m, n));
    PetscCall(CheckMatrix(m, n, len, what));
  }
  PetscCall(PetscFree(len));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "device = host reference and aijcusparse on %" PetscInt_FMT " random matrices\n", count));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 3: state changes after the first product */
static PetscErrorCode CheckStateChanges(void)
{
  const PetscInt m = 500, n = 12000;
  PetscInt      *len, builds0, builds1, values0, values1;
  CSR            csr;
  Mat            H, A;
  PetscInt       row = 17, cols[2], *cc;
  PetscScalar   *vv;
  char           buildevent[64], valuesevent[64];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(buildevent, sizeof(buildevent), "%sBuild", fmt->title));
  PetscCall(PetscSNPrintf(valuesevent, sizeof(valuesevent), "%sValues", fmt->title));
  PetscCall(PetscMalloc1(m, &len));
  PetscCall(PetscMalloc2(n, &cc, n, &vv));
  for (PetscInt i = 0; i < m; i++) len[i] = 1 + i % 12;
  len[row] = 0; /* an empty row that gets entries later */
  /* long rows, whose values the refresh of every format must reach too: SELL-C-sigma's long part, BCE's rows of
     several threads and rows split in parts (past 4,096 entries with 16 entries per thread in wide rows, 8,192 with 64) */
  len[70]  = 100;
  len[140] = 1000;
  len[210] = 10000;
  PetscCall(CSRCreate(rnd, m, n, len, PETSC_TRUE, &csr));
  PetscCall(CSRToMat(&csr, &H));
  PetscCall(MatConvert(H, fmt->root, MAT_INITIAL_MATRIX, &A));
  PetscCall(CheckAgainstReference(A, "before changes"));

  /* values changed on the host, same pattern: a values-only refresh */
  PetscCall(EventCount(buildevent, &builds0));
  PetscCall(EventCount(valuesevent, &values0));
  for (PetscInt i = 0; i < m; i += 7) {
    PetscInt           ncols;
    const PetscInt    *c;
    const PetscScalar *v;

    PetscCall(MatGetRow(A, i, &ncols, &c, &v));
    for (PetscInt k = 0; k < ncols; k++) {
      cc[k] = c[k];
      vv[k] = v[k] + 3;
    }
    PetscCall(MatRestoreRow(A, i, &ncols, &c, &v));
    PetscCall(MatSetValues(A, 1, &i, ncols, cc, vv, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(CheckAgainstReference(A, "after host MatSetValues"));
  /* values changed on the device */
  PetscCall(MatScale(A, -2.0));
  PetscCall(CheckAgainstReference(A, "after MatScale"));
  /* a view refreshes at once, through the format's refresh() rather than the one fused into the next product */
  PetscCall(MatScale(A, 0.5));
  PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_SELF, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(A, PETSC_VIEWER_STDOUT_SELF));
  PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_SELF));
  PetscCall(CheckAgainstReference(A, "after MatScale and a view"));
  PetscCall(MatZeroEntries(A));
  PetscCall(CheckAgainstReference(A, "after MatZeroEntries"));
  PetscCall(EventCount(buildevent, &builds1));
  PetscCall(EventCount(valuesevent, &values1));
  PetscCheck(builds1 == builds0 && values1 > values0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "value changes: %" PetscInt_FMT " rebuilds and %" PetscInt_FMT " refreshes, expected refreshes only", builds1 - builds0, values1 - values0);

  /* nonzeros added: a rebuild */
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  cols[0] = 3;
  cols[1] = 499;
  PetscCall(MatSetValue(A, row, cols[0], 2.0, INSERT_VALUES));
  PetscCall(MatSetValue(A, row, cols[1], -1.0, INSERT_VALUES));
  PetscCall(MatSetValue(A, 0, 498, 5.0, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(CheckAgainstReference(A, "after adding nonzeros"));
  PetscCall(EventCount(buildevent, &builds0));
  PetscCheck(builds0 > builds1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "new nonzeros did not rebuild the format");
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&H));

  /* a banded matrix, no long row: rows that share most columns, none split (CMRS's strips of several rows then find each
     entry's CSR position as they go, without a map; rows of 25, so that SELL-C-sigma's refresh takes two threads per row
     where its product takes one), new values first reaching MatMultAdd, then MatMult */
  {
    const PetscInt mb = 3001, half = 12;
    Mat            B;
    PetscBool      flg;

    PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, mb, mb, 2 * half + 1, NULL, &H));
    for (PetscInt i = 0; i < mb; i++) {
      PetscInt nc = 0;

      for (PetscInt j = PetscMax(0, i - half); j <= PetscMin(mb - 1, i + half); j++) {
        cc[nc] = j;
        vv[nc] = (PetscScalar)(1 + (i * 7 + j * 3) % 11);
        nc++;
      }
      PetscCall(MatSetValues(H, 1, &i, nc, cc, vv, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(H, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(H, MAT_FINAL_ASSEMBLY));
    PetscCall(MatConvert(H, fmt->root, MAT_INITIAL_MATRIX, &A));
    PetscCall(MatConvert(H, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &B));
    PetscCall(CheckAgainstReference(A, "banded"));
    PetscCall(MatScale(A, -3.0));
    PetscCall(MatScale(B, -3.0));
    PetscCall(MatMultAddEqual(A, B, 3, &flg));
    PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "banded, after MatScale: MatMultAdd differs from aijcusparse");
    PetscCall(CheckAgainstReference(A, "banded, after MatScale"));
    for (PetscInt i = 1; i < mb; i += 5) {
      const PetscScalar v = (PetscScalar)(i % 13) - 6;

      PetscCall(MatSetValue(A, i, i - 1, v, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(CheckAgainstReference(A, "banded, after host MatSetValues"));
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&H));
  }
  PetscCall(CSRDestroy(&csr));
  PetscCall(PetscFree2(cc, vv));
  PetscCall(PetscFree(len));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "state changes: values refreshed, pattern rebuilt\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 4: conversions, duplicate, copy, bind to CPU */
static PetscErrorCode CheckConversions(void)
{
  PetscInt *len;
  CSR       csr;
  Mat       H, B, A, C, D;
  PetscBool flg;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(700, &len));
  for (PetscInt i = 0; i < 700; i++) len[i] = i % 20;
  PetscCall(CSRCreate(rnd, 700, 650, len, PETSC_FALSE, &csr));
  PetscCall(CSRToMat(&csr, &H));
  PetscCall(MatConvert(H, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &B));

  /* in place from seqaijcusparse, and back */
  PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &A));
  PetscCall(MatConvert(A, fmt->root, MAT_INPLACE_MATRIX, &A));
  PetscCall(CheckType(A, fmt->type, "in place from seqaijcusparse"));
  PetscCall(CheckAgainstCUSPARSE(A, B, "in place from seqaijcusparse"));
  PetscCall(MatConvert(A, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, &A));
  PetscCall(CheckType(A, MATSEQAIJCUSPARSE, "in place back to seqaijcusparse"));
  PetscCall(CheckAgainstCUSPARSE(A, B, "in place back to seqaijcusparse"));
  /* MatSetType on the assembled aijcusparse matrix converts in place */
  PetscCall(MatSetType(A, fmt->root));
  PetscCall(CheckType(A, fmt->type, "MatSetType on an assembled matrix"));
  PetscCall(CheckAgainstCUSPARSE(A, B, "MatSetType on an assembled matrix"));
  PetscCall(MatDestroy(&A));

  /* in place from seqaij */
  PetscCall(MatDuplicate(H, MAT_COPY_VALUES, &A));
  PetscCall(MatConvert(A, fmt->type, MAT_INPLACE_MATRIX, &A));
  PetscCall(CheckType(A, fmt->type, "in place from seqaij"));
  PetscCall(CheckAgainstCUSPARSE(A, B, "in place from seqaij"));

  /* initial and reuse, both ways */
  PetscCall(MatConvert(B, fmt->root, MAT_INITIAL_MATRIX, &C));
  PetscCall(CheckType(C, fmt->type, "initial from seqaijcusparse"));
  PetscCall(MatScale(B, 0.5));
  PetscCall(MatConvert(B, fmt->root, MAT_REUSE_MATRIX, &C));
  PetscCall(CheckAgainstCUSPARSE(C, B, "reuse from seqaijcusparse"));
  PetscCall(MatConvert(C, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &D));
  PetscCall(CheckType(D, MATSEQAIJCUSPARSE, "initial to seqaijcusparse"));
  PetscCall(CheckAgainstCUSPARSE(D, B, "initial to seqaijcusparse"));
  PetscCall(MatScale(C, 4.0));
  PetscCall(MatConvert(C, MATSEQAIJCUSPARSE, MAT_REUSE_MATRIX, &D));
  PetscCall(CheckAgainstCUSPARSE(C, D, "reuse to seqaijcusparse"));
  PetscCall(MatDestroy(&D));
  PetscCall(MatConvert(C, MATAIJCUSPARSE, MAT_INITIAL_MATRIX, &D)); /* root names too */
  PetscCall(CheckType(D, MATSEQAIJCUSPARSE, "initial to aijcusparse"));
  PetscCall(MatDestroy(&D));
  PetscCall(MatConvert(C, MATAIJ, MAT_INITIAL_MATRIX, &D));
  PetscCall(CheckType(D, MATSEQAIJ, "initial to aij"));
  PetscCall(MatDestroy(&D));
  PetscCall(MatConvert(C, MATSEQAIJ, MAT_INITIAL_MATRIX, &D));
  PetscCall(CheckType(D, MATSEQAIJ, "initial to seqaij"));
  PetscCall(MatMultEqual(C, D, 5, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "initial to seqaij: products differ");
  PetscCall(MatDestroy(&D));
  PetscCall(MatScale(B, 4.0)); /* B = 0.5 x 4 = 2 x the original = C */

  /* duplicate and copy keep the type; the copy reaches the device */
  PetscCall(MatDuplicate(C, MAT_COPY_VALUES, &D));
  PetscCall(CheckType(D, fmt->type, "MatDuplicate"));
  PetscCall(CheckAgainstCUSPARSE(D, B, "MatDuplicate"));
  PetscCall(MatScale(C, -1.0));
  PetscCall(MatCopy(C, D, SAME_NONZERO_PATTERN));
  PetscCall(CheckType(D, fmt->type, "MatCopy"));
  PetscCall(MatScale(B, -1.0));
  PetscCall(CheckAgainstCUSPARSE(D, B, "MatCopy after a first product"));

  /* bind to the CPU and back */
  PetscCall(MatBindToCPU(D, PETSC_TRUE));
  PetscCall(CheckType(D, fmt->type, "MatBindToCPU"));
  PetscCall(MatMultEqual(D, B, 5, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "bound to the CPU: products differ");
  PetscCall(MatScale(D, 2.0));
  PetscCall(MatScale(B, 2.0));
  PetscCall(MatBindToCPU(D, PETSC_FALSE));
  PetscCall(CheckAgainstCUSPARSE(D, B, "unbound from the CPU"));
  {
    PetscLogDouble bytes, csrbytes;

    PetscCall(MatGPUFormatGetDeviceMemory(D, &bytes, &csrbytes));
    PetscCheck(bytes > 0 && csrbytes > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "unbound matrix holds no device format");
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&H));
  PetscCall(CSRDestroy(&csr));
  PetscCall(PetscFree(len));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "conversions, duplicate, copy and bind to CPU keep the type and the values\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 5: options, errors, viewer */
static PetscErrorCode CheckOptionsAndErrors(void)
{
  PetscInt      *len;
  CSR            csr;
  Mat            H, A;
  Vec            x, y, hx, hy;
  PetscBool      same;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(300, &len));
  for (PetscInt i = 0; i < 300; i++) len[i] = 30;
  PetscCall(CSRCreate(rnd, 300, 300, len, PETSC_TRUE, &csr));
  PetscCall(CSRToMat(&csr, &H));
  PetscCall(MatConvert(H, fmt->root, MAT_INITIAL_MATRIX, &A));
  PetscCall(MatSetOptionsPrefix(A, "t_"));
  PetscCall(SetTestOption(fmt->option, fmt->value));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(A, x, y));
  PetscCall(fmt->checkoption(A));
  { /* MatSetFromOptions() with the same parameters: no rebuild at the next product; with a changed one: one rebuild */
    char     ev[64];
    PetscInt n0, n1, n2;

    PetscCall(PetscSNPrintf(ev, sizeof(ev), "%sBuild", fmt->title));
    PetscCall(EventCount(ev, &n0));
    PetscCall(MatSetFromOptions(A));
    PetscCall(MatMult(A, x, y));
    PetscCall(EventCount(ev, &n1));
    PetscCheck(n1 == n0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatSetFromOptions() without a parameter change rebuilt the format (%" PetscInt_FMT " builds, %" PetscInt_FMT " before)", n1, n0);
    PetscCall(SetTestOption(fmt->option, fmt->othervalue));
    PetscCall(MatSetFromOptions(A)); /* another valid value: a change */
    PetscCall(MatMult(A, x, y));
    PetscCall(EventCount(ev, &n2));
    PetscCheck(n2 == n1 + 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatSetFromOptions() with a parameter change: %" PetscInt_FMT " builds, expected %" PetscInt_FMT, n2, n1 + 1);
    PetscCall(SetTestOption(fmt->option, fmt->value));
    PetscCall(MatSetFromOptions(A));
    PetscCall(MatMult(A, x, y));
    PetscCall(fmt->checkoption(A));
  }
  PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_SELF, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(A, PETSC_VIEWER_STDOUT_SELF));
  PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_SELF));

  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  for (PetscInt i = 0; i + 1 < (PetscInt)PETSC_STATIC_ARRAY_LENGTH(fmt->bad) && fmt->bad[i]; i += 2) { /* each out-of-range option alone */
    PetscCall(SetTestOption(fmt->bad[i], fmt->bad[i + 1]));
    ierr = MatSetFromOptions(A);
    PetscCheck(ierr == PETSC_ERR_ARG_OUTOFRANGE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-%s %s gave error %d", fmt->bad[i], fmt->bad[i + 1], (int)ierr);
    PetscCall(PetscStrcmp(fmt->bad[i], fmt->option, &same));
    PetscCall(SetTestOption(fmt->bad[i], same ? fmt->value : NULL)); /* the value the matrix keeps, for the references */
  }
  { /* MAT_REUSE_MATRIX from a matrix of the same sizes and entry count but another pattern (the transpose): an error */
    Mat Ht, Bt;

    PetscCall(MatTranspose(H, MAT_INITIAL_MATRIX, &Ht));
    PetscCall(MatConvert(Ht, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &Bt));
    ierr = MatConvert(Bt, fmt->root, MAT_REUSE_MATRIX, &A);
    PetscCheck(ierr == PETSC_ERR_ARG_INCOMP, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MAT_REUSE_MATRIX from another pattern gave error %d", (int)ierr);
    PetscCall(MatDestroy(&Bt));
    PetscCall(MatDestroy(&Ht));
  }
  PetscCall(PetscPopErrorHandler());

  /* host vectors work as with aijcusparse (cuSPARSE stages them): the same product as with the CUDA vectors above */
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 300, &hx));
  PetscCall(VecDuplicate(hx, &hy));
  PetscCall(VecSet(hx, 1.0));
  PetscCall(MatMult(A, hx, hy));
  {
    Vec       d;
    PetscReal nd, ny;

    PetscCall(VecDuplicate(hy, &d));
    PetscCall(VecCopy(y, d)); /* y = A x with x = 1 on the device, above */
    PetscCall(VecAXPY(d, -1.0, hy));
    PetscCall(VecNorm(d, NORM_INFINITY, &nd));
    PetscCall(VecNorm(hy, NORM_INFINITY, &ny));
    PetscCheck(ny > 0 && nd <= 1e-12 * ny, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatMult with host vectors: |y - y_device| = %g, |y| = %g", (double)nd, (double)ny);
    PetscCall(VecDestroy(&d));
  }
  /* CUDA vectors bound to the CPU (their arrays on the host): the product is staged as for host vectors, MatMultAdd()
     with y == z too, and the vectors are right on the host after it */
  {
    Vec       bx, bz, d;
    PetscReal nd, ny;

    PetscCall(VecDuplicate(x, &bx));
    PetscCall(VecDuplicate(y, &bz));
    PetscCall(VecBindToCPU(bx, PETSC_TRUE));
    PetscCall(VecBindToCPU(bz, PETSC_TRUE));
    PetscCall(VecSet(bx, 1.0));
    PetscCall(VecSet(bz, 1.0));
    PetscCall(MatMultAdd(A, bx, bz, bz)); /* 1 + A 1 */
    PetscCall(VecDuplicate(hy, &d));
    PetscCall(VecSet(d, 1.0));
    PetscCall(VecAXPY(d, 1.0, hy)); /* hy = A 1, above */
    PetscCall(VecAXPY(d, -1.0, bz));
    PetscCall(VecNorm(d, NORM_INFINITY, &nd));
    PetscCall(VecNorm(bz, NORM_INFINITY, &ny));
    PetscCheck(ny > 0 && nd <= 1e-12 * ny, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatMultAdd(y == z) with CUDA vectors bound to the CPU: |z - (1 + y_host)| = %g, |z| = %g", (double)nd, (double)ny);
    PetscCall(MatMult(A, bx, bz));
    PetscCall(VecAXPY(bz, -1.0, hy));
    PetscCall(VecNorm(bz, NORM_INFINITY, &nd));
    PetscCheck(nd <= 1e-12 * ny, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatMult with CUDA vectors bound to the CPU: |y - y_host| = %g", (double)nd);
    PetscCall(VecDestroy(&d));
    PetscCall(VecDestroy(&bx));
    PetscCall(VecDestroy(&bz));
  }

  if (fmt->extra) PetscCall(fmt->extra());
  /* the matrix still works after the errors, with the parameters it had (the option is still set: the references read
     it, as the matrix did) */
  PetscCall(fmt->checkoption(A));
  PetscCall(CheckAgainstReference(A, "after errors"));
  PetscCall(SetTestOption(fmt->option, NULL));
  PetscCall(VecDestroy(&hx));
  PetscCall(VecDestroy(&hy));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&H));
  PetscCall(CSRDestroy(&csr));
  PetscCall(PetscFree(len));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "options and errors as documented\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 6: out of device memory. With most of the free memory taken, the first product's build fails with a clear error
   (PETSC_ERR_MEM, naming the format and the bytes), holds no device memory afterwards, and the next products go through
   cuSPARSE's CSR (aijcusparse's product) and are right; after a parameter change, with the memory back, the format is
   built; a value refresh then runs with almost no memory free (it allocates nothing) */
static PetscErrorCode CheckOutOfMemory(void)
{
  const PetscInt     m = 1000000;
  PetscInt          *len;
  CSR                csr;
  Mat                H, R, A;
  Vec                x, y, yr;
  size_t             free0, free1, free2, total;
  void              *hog = NULL;
  const PetscScalar *v;
  PetscLogDouble     bytes, csrbytes;
  PetscErrorCode     ierr;
  char              *msg = NULL;
  PetscBool          named;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(m, &len));
  for (PetscInt i = 0; i < m; i++) len[i] = 16;
  PetscCall(CSRCreate(rnd, m, m, len, PETSC_TRUE, &csr));
  if (fmt->banded) PetscCall(BandColumns(&csr));
  PetscCall(CSRToMat(&csr, &H));
  PetscCall(MatConvert(H, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &R));
  PetscCall(MatCreateVecs(R, &x, &yr));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(MatMult(R, x, yr));
  { /* a product of a small matrix of the type first, and the vector operations the check uses: the kernels' code and
       cuBLAS's handle are loaded before the memory is measured */
    Mat       S;
    Vec       sx, sy;
    PetscReal nrm;

    PetscCall(CSRDestroy(&csr)); /* H holds the large matrix */
    PetscCall(CSRCreate(rnd, 100, 100, len, PETSC_TRUE, &csr));
    PetscCall(CSRToMat(&csr, &S));
    PetscCall(MatConvert(S, fmt->root, MAT_INPLACE_MATRIX, &S));
    PetscCall(MatCreateVecs(S, &sx, &sy));
    PetscCall(VecSet(sx, 1.0));
    PetscCall(MatMult(S, sx, sy));
    PetscCall(VecAXPY(sy, -1.0, sx));
    PetscCall(VecNorm(sy, NORM_INFINITY, &nrm));
    PetscCall(VecDestroy(&sx));
    PetscCall(VecDestroy(&sy));
    PetscCall(MatDestroy(&S));
  }
  PetscCall(MatConvert(R, fmt->root, MAT_INITIAL_MATRIX, &A));
  PetscCall(MatCreateVecs(A, NULL, &y));
  PetscCall(MatSeqAIJCUSPARSEGetArrayRead(A, &v)); /* A's CSR on the device before the memory goes */
  PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(A, &v));
  PetscCall(MatGPUFormatGetDeviceMemory(A, NULL, &csrbytes));
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCallCUDA(cudaMemGetInfo(&free0, &total));
  PetscCheck(free0 > csrbytes, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Too little device memory free for the test");
  PetscCallCUDA(cudaMalloc(&hog, free0 - (size_t)(csrbytes / 4))); /* a quarter of the CSR arrays left: no format fits */
  PetscCallCUDA(cudaMemGetInfo(&free1, &total));

  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatMult(A, x, y);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == PETSC_ERR_MEM, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A build without device memory gave error %d, not PETSC_ERR_MEM", (int)ierr);
  PetscCall(PetscErrorMessage(ierr, NULL, (void *)&msg)); /* char ** in PETSc 3.22, const char ** in 3.25 */
  PetscCall(PetscStrstr(msg ? msg : "", "device memory", &msg));
  named = (PetscBool)(msg != NULL);
  PetscCheck(named, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The out-of-memory error does not say device memory");
  PetscCallCUDA(cudaMemGetInfo(&free2, &total));
  PetscCheck(free2 + 4 * 1024 * 1024 >= free1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The failed build holds device memory: %zu bytes free before, %zu after", free1, free2);
  PetscCall(MatGPUFormatGetDeviceMemory(A, &bytes, NULL));
  PetscCheck(bytes == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The failed build reports %g bytes of format", bytes);

  /* the next products: cuSPARSE's, right */
  PetscCall(MatMult(A, x, y));
  PetscCall(VecAXPY(y, -1.0, yr));
  {
    PetscReal e, r;

    PetscCall(VecNorm(y, NORM_INFINITY, &e));
    PetscCall(VecNorm(yr, NORM_INFINITY, &r));
    PetscCheck(e <= 1e-12 * r, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Product after an out-of-memory build: error %g", (double)(e / r));
  }
  PetscCallCUDA(cudaFree(hog));

  /* still cuSPARSE's products (until the pattern or a parameter changes), now with CUDA vectors bound to the CPU: staged,
     and right on the host */
  {
    Vec       bx, by;
    PetscReal e, r;

    PetscCall(VecDuplicate(x, &bx));
    PetscCall(VecDuplicate(yr, &by));
    PetscCall(VecCopy(x, bx));
    PetscCall(VecBindToCPU(bx, PETSC_TRUE));
    PetscCall(VecBindToCPU(by, PETSC_TRUE));
    PetscCall(MatMult(A, bx, by));
    PetscCall(VecAXPY(by, -1.0, yr));
    PetscCall(VecNorm(by, NORM_INFINITY, &e));
    PetscCall(VecNorm(yr, NORM_INFINITY, &r));
    PetscCheck(e <= 1e-12 * r, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Product after an out-of-memory build, vectors bound to the CPU: error %g", (double)(e / r));
    PetscCall(VecDestroy(&bx));
    PetscCall(VecDestroy(&by));
  }

  /* memory back and a parameter changed: the format is built */
  PetscCall(MatSetOptionsPrefix(A, "t_"));
  PetscCall(SetTestOption(fmt->option, fmt->value));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatMult(A, x, y));
  PetscCall(MatGPUFormatGetDeviceMemory(A, &bytes, NULL));
  PetscCheck(bytes > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No format built after the memory came back");
  PetscCall(CheckAgainstReference(A, "after running out of memory"));

  /* a value refresh needs no device memory: with 64 MB left (the format takes more), new values reach the product */
  PetscCall(MatScale(A, 2.0));
  PetscCall(VecSet(y, NAN));
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCallCUDA(cudaMemGetInfo(&free0, &total));
  PetscCheck(bytes > 64.0 * 1024 * 1024 && free0 > ((size_t)64 << 20), PETSC_COMM_SELF, PETSC_ERR_PLIB, "The matrix is too small for the refresh check");
  PetscCallCUDA(cudaMalloc(&hog, free0 - ((size_t)64 << 20)));
  PetscCall(MatMult(A, x, y));
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCallCUDA(cudaFree(hog));
  PetscCall(MatGPUFormatGetDeviceMemory(A, &bytes, NULL));
  PetscCheck(bytes > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The format is gone after a refresh with little memory");
  PetscCall(VecAXPY(y, -2.0, yr));
  {
    PetscReal e, r;

    PetscCall(VecNorm(y, NORM_INFINITY, &e));
    PetscCall(VecNorm(yr, NORM_INFINITY, &r));
    PetscCheck(e <= 2e-12 * r, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Product after a refresh with little memory: error %g", (double)(e / (2 * r)));
  }
  PetscCall(SetTestOption(fmt->option, NULL));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yr));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&H));
  PetscCall(CSRDestroy(&csr));
  PetscCall(PetscFree(len));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "out of device memory: a clear error, nothing held, cuSPARSE's products meanwhile\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscLogDefaultBegin());
  PetscCall(PetscGPUFormatsInitializePackage());
  {
    char      name[64] = MATCMRS;
    PetscBool flg;

    PetscCall(PetscOptionsGetString(NULL, NULL, "-format", name, sizeof(name), NULL));
    for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(formats) && !fmt; i++) {
      PetscCall(PetscStrcmp(name, formats[i].root, &flg));
      if (flg) fmt = &formats[i];
    }
    PetscCheck(fmt, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "-format %s: not a format of this test", name);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "testing %s\n", fmt->type));
  }
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 7));
  PetscCall(PetscRandomSeed(rnd));
  {
    /* -part: one part, so that CTest names what broke (tests/CMakeLists.txt runs each on its own); all by default */
    const char *parts[]           = {"matrices", "inf_x", "state_changes", "conversions", "options_errors", "oom", "random"};
    PetscErrorCode (*run[])(void) = {CheckMatrices, CheckInfinityInX, CheckStateChanges, CheckConversions, CheckOptionsAndErrors, CheckOutOfMemory, CheckRandomMatrices};
    const PetscBool inall[]       = {PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, PETSC_FALSE};
    char            part[64]      = "all";
    PetscBool       all, found = PETSC_FALSE;

    PetscCall(PetscOptionsGetString(NULL, NULL, "-part", part, sizeof(part), NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-variants", &maxvariants, NULL));
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-explicit_transpose", &explicit_transpose, NULL));
    PetscCall(PetscStrcmp(part, "all", &all));
    for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(parts); i++) {
      PetscBool match;

      PetscCall(PetscStrcmp(part, parts[i], &match));
      if ((all && inall[i]) || match) PetscCall(run[i]());
      found = (PetscBool)(found || match);
    }
    PetscCheck(all || found, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-part %s: all, matrices, inf_x, state_changes, conversions, options_errors, oom or random", part);
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}

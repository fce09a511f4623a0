static const char help[] = "The parallel petsc-gpuformats types against MATMPIAIJ on the CPU, on any number of MPI processes.\n"
                           "  -format cmrs|sellcs|bce|dia|hyb|ell|argcsr|gpuauto: the type to test (-mat_gpuformat_offdiag puts the off-diagonal blocks in it too,\n"
                           "   -mat_gpuformat_overlap runs MatMult() with the diagonal block's product during the whole scatter)\n"
                           "  -verbose: every rank names each check on stderr as it starts (to find where a run stops)\n";

/*
   Randomized parallel check of mpiaijcusparse<fmt> against MATMPIAIJ on the CPU, built from the same triplets.
   Matrices (every rank owns a different number of rows; with several ranks, rank 1 owns none):
     square      2000 x 2000, rows of 0 to 8 entries, some rows with only off-process columns, a few entries set by
                 the rank that does not own their row (the stash);
     rectangular 1500 x 2300, likewise;
     blockdiag   2000 x 2000 with the columns of each row in its rank's own column range: empty off-diagonal blocks;
     small       20 x 20 (m < 32; ranks with no rows);
     longrow     6000 x 6000 with one row of 5000 entries.
   Ways to build one (each a way PETSc users build a parallel matrix):
     setvalues   MatSetType() + MatMPIAIJSetPreallocation() + MatSetValues(), off-process entries included;
     hash        MatSetType() + MatSetUp() without preallocation (PETSc's hash mode) + MatSetValues();
     coo         MatSetPreallocationCOO() + MatSetValuesCOO() with the values in device memory;
     convert     MatConvert() of the MATMPIAIJ, MAT_INITIAL_MATRIX;
     inplace     MatConvert() of a MATMPIAIJCUSPARSE copy, MAT_INPLACE_MATRIX;
     reuse       MatConvert() with MAT_REUSE_MATRIX into a matrix of ours, after new values in the source;
     load        MatLoad() of the reference, written in PETSc's binary format (same layout);
   and a DMDA's matrix (-dm_mat_type) filled with MatSetValuesStencil() and a DMPlex's (Q1 elements) filled with
   DMPlexMatSetClosure(), each against the same DM's MATMPIAIJ.
   Checks, for each: the type of the matrix and of its blocks; MatMult, MatMultAdd (y != z and y == z) and
   MatMultTranspose equal the reference's; again after new values (the same pattern), after new nonzeros (PETSc
   rebuilds the off-diagonal block), of the transpose, after MatAXPY with the transpose and after a
   transpose in place (both MatHeaderMerge()), after MatShift(), MatDiagonalSet() and MatEliminateZeros() on a square
   matrix with empty rows (built with MatSetValues(): each changes a block's pattern alone), and with NaN and Inf in x (the same rows are NaN or Inf); a vector of the wrong
   size gives the error that MATMPIAIJCUSPARSE gives, on every rank; MatDuplicate() and MatConvert() back to
   MATMPIAIJ keep the values.
   Products of parallel matrices (MatMatMult(), MatTransposeMatMult(), MatPtAP(), MatRARt(), MatMatMatMult(), initial
   and reuse) with our type as A, P or both, against PETSc's check by action, MATMPIAIJCUSPARSE's and MATMPIAIJ's
   products, with coarse sizes that leave processes without rows of the result.
*/
#include <petscgpuformats.h>
#include "../common/testcsr.h"
#include <unistd.h>
#include <petscdmda.h>
#include <petscdmplex.h>
#include <petscfe.h>
#include <petscdevice_cuda.h>
#include <petsc/private/matimpl.h> /* type_name in messages, offloadmask */

static char      format[64] = "cmrs", mpitype[128], seqtype[128];
static PetscBool offdiag, overlap, verbose;
/* the blocks take the parallel matrix's types by its next product, not at once (after MatAXPY() with a new pattern) */
static PetscBool blocks_at_product;
static PetscInt  nchecks;
static PetscInt  nskipped; /* comparisons with a reference product that failed PETSc's own check */

typedef struct {
  const char *name;
  PetscInt    M, N, maxlen;
  PetscBool   blockdiag, longrow, offonly;
} Case;

typedef struct {
  PetscInt     n;
  PetscInt    *i, *j;
  PetscScalar *v;
} Triplets;

/* Uneven ownership: rank r owns a share proportional to r + 1, rank 1 owns nothing when there are several ranks */
static void Split(PetscInt N, PetscMPIInt size, PetscMPIInt r, PetscInt *start, PetscInt *end)
{
  PetscInt w = 0, wr = 0, wbefore = 0;

  for (PetscMPIInt k = 0; k < size; k++) {
    PetscInt wk = (size > 1 && k == 1) ? 0 : k + 1;

    if (k < r) wbefore += wk;
    if (k == r) wr = wk;
    w += wk;
  }
  *start = N * wbefore / w;
  *end   = N * (wbefore + wr) / w;
}

static PetscErrorCode MakeTriplets(const Case *c, PetscInt seed, Triplets *t)
{
  PetscMPIInt size, rank;
  PetscRandom rnd;
  PetscInt    rstart, rend, cstart, cend, cap, nrstart, nrend;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  Split(c->M, size, rank, &rstart, &rend);
  Split(c->N, size, rank, &cstart, &cend);
  Split(c->M, size, (rank + 1) % size, &nrstart, &nrend);
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)(seed + 7919 * rank)));
  PetscCall(PetscRandomSeed(rnd));
  cap = (rend - rstart) * (c->maxlen + 1) + (c->longrow ? c->N : 0) + 64;
  PetscCall(PetscMalloc3(cap, &t->i, cap, &t->j, cap, &t->v));
  t->n = 0;
  for (PetscInt r = rstart; r < rend; r++) {
    PetscReal x;
    PetscInt  len;

    PetscCall(PetscRandomGetValueReal(rnd, &x));
    len = (PetscInt)(x * (c->maxlen + 1));
    if (r % 7 == 3) len = 0;                             /* empty rows */
    if (c->longrow && r == c->M / 2) len = c->N * 5 / 6; /* one long row (its columns may repeat: added) */
    for (PetscInt k = 0; k < len; k++) {
      PetscInt col;

      PetscCall(PetscRandomGetValueReal(rnd, &x));
      if (c->blockdiag) col = cend > cstart ? cstart + (PetscInt)(x * (cend - cstart)) % (cend - cstart) : -1;
      else if (c->offonly && size > 1 && r % 11 == 5 && cend - cstart < c->N) { /* only off-process columns */
        col = (PetscInt)(x * (c->N - (cend - cstart))) % (c->N - (cend - cstart));
        if (col >= cstart) col += cend - cstart;
      } else col = (PetscInt)(x * c->N) % c->N;
      if (col < 0) break;
      PetscCall(PetscRandomGetValueReal(rnd, &x));
      t->i[t->n] = r;
      t->j[t->n] = col;
      t->v[t->n] = (PetscScalar)((PetscInt)(x * 19) - 9); /* integers: the sums are exact */
      t->n++;
    }
  }
  /* entries of rows that the next rank owns (not in block-diagonal matrices: their columns would be off-block) */
  if (!c->blockdiag && size > 1)
    for (PetscInt k = 0; k < 16 && nrend > nrstart; k++) {
      PetscReal x;

      PetscCall(PetscRandomGetValueReal(rnd, &x));
      t->i[t->n] = nrstart + (PetscInt)(x * (nrend - nrstart)) % (nrend - nrstart);
      PetscCall(PetscRandomGetValueReal(rnd, &x));
      t->j[t->n] = (PetscInt)(x * c->N) % c->N;
      t->v[t->n] = 3.0;
      t->n++;
    }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TripletsDestroy(Triplets *t)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(t->i, t->j, t->v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateSized(const Case *c, MatType type, Mat *A)
{
  PetscMPIInt size, rank;
  PetscInt    rs, re, cs, ce;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  Split(c->M, size, rank, &rs, &re);
  Split(c->N, size, rank, &cs, &ce);
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, re - rs, ce - cs, c->M, c->N));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetFromOptions(*A)); /* as users do: our options (-mat_gpuformat_offdiag) are read here */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FillValues(Mat A, const Triplets *t, PetscScalar scale)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < t->n; k++) PetscCall(MatSetValue(A, t->i[k], t->j[k], scale * t->v[k], ADD_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The reference on the CPU: MATMPIAIJ with a generous preallocation */
static PetscErrorCode Reference(const Case *c, const Triplets *t, Mat *R)
{
  PetscFunctionBeginUser;
  PetscCall(CreateSized(c, MATMPIAIJ, R));
  PetscCall(MatMPIAIJSetPreallocation(*R, 10, NULL, 10, NULL));
  PetscCall(MatSetOption(*R, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(FillValues(*R, t, 1.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y_ours and y_ref (different types, same layout) agree: the same NaN and Inf entries, the others equal within rounding */
static PetscErrorCode SameVec(Vec ya, Vec yr, const char *what)
{
  PetscInt bad, allbad;

  PetscFunctionBeginUser;
  PetscCall(VecFirstDifference(ya, yr, 1e-12, what, &bad));
  PetscCallMPI(MPIU_Allreduce(&bad, &allbad, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
  PetscCheck(allbad < 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: differs from MATMPIAIJ", what);
  nchecks++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckTypes(Mat A, const char *what)
{
  Mat       Ad, Ao;
  PetscBool ok;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, seqtype, &ok));
  if (ok) { /* the root name gives the sequential type on one process, as aijcusparse does */
    PetscMPIInt size;

    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
    PetscCheck(size == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: type %s on %d processes", what, seqtype, size);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)A, mpitype, &ok));
  PetscCheck(ok, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: type %s, expected %s", what, ((PetscObject)A)->type_name, mpitype);
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(PetscObjectTypeCompare((PetscObject)Ad, seqtype, &ok));
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: diagonal block of type %s, expected %s", what, ((PetscObject)Ad)->type_name, seqtype);
  PetscCall(PetscObjectTypeCompare((PetscObject)Ao, offdiag ? seqtype : MATSEQAIJCUSPARSE, &ok));
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: off-diagonal block of type %s, expected %s", what, ((PetscObject)Ao)->type_name, offdiag ? seqtype : MATSEQAIJCUSPARSE);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   With -mat_gpuformat_overlap: from A's MatView() (info), the products whose diagonal block ran on its own stream on the
   first process, -1 when the view shows no scatter set up; *skip when there is nothing to check (the option off, the
   sequential type on one process, a DM's matrix, whose MatView() is the DM's: DMDA views a copy in natural ordering)
*/
static PetscErrorCode OverlapCount(Mat A, PetscBool *skip, long count[2])
{
  PetscBool   mpi;
  PetscMPIInt rank;
  PetscViewer viewer;
  FILE       *fd = NULL;
  DM          dm;

  PetscFunctionBeginUser;
  count[0] = count[1] = -1; /* the set-ups, the products */
  PetscCall(PetscObjectTypeCompare((PetscObject)A, mpitype, &mpi));
  PetscCall(MatGetDM(A, &dm));
  *skip = (PetscBool)(!overlap || !mpi || dm);
  if (*skip) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank == 0) {
    fd = tmpfile();
    PetscCheck(fd, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "no temporary file for MatView()");
  }
  PetscCall(PetscViewerASCIIOpenWithFILE(PETSC_COMM_WORLD, rank ? PETSC_STDOUT : fd, &viewer));
  PetscCall(PetscViewerPushFormat(viewer, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(A, viewer));
  PetscCall(PetscViewerPopFormat(viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  if (rank == 0) {
    const char *key = "-mat_gpuformat_overlap true), its own scatter of";
    char        line[4096], *at;
    long        nghost, n, nsetups;

    rewind(fd);
    while (fgets(line, sizeof(line), fd))
      if ((at = strstr(line, key)) && sscanf(at + strlen(key), " %ld ghost values (set-up %ld) and %ld products", &nghost, &nsetups, &n) == 3) {
        count[0] = nsetups;
        count[1] = n;
      }
    fclose(fd);
  }
  PetscCallMPI(MPI_Bcast(count, 2, MPI_LONG, 0, PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* With -mat_gpuformat_overlap, around one MatMult(): it ran with MatMult()'s own scatter, and on the first process (where
   its diagonal block has entries, not declined by its format) with that block on its own stream: the count went up by one, or is 1 after a new
   set-up */
static PetscErrorCode CheckOverlap(Mat A, const long before[2], const long after[2], const char *what)
{
  PetscMPIInt rank;
  int         empty = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank == 0) {
    Mat      Ad;
    MatInfo  info;
    PetscInt m;

    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
    PetscCall(MatGetInfo(Ad, MAT_LOCAL, &info));
    PetscCall(MatGetLocalSize(Ad, &m, NULL));
    empty = !(info.nz_used > 0 && m > 0);
    if (!empty) { /* a block that the format declined multiplies with aijcusparse's product, as an empty one with none */
      PetscBool declined;

      PetscCall(MatGPUFormatGetDeclined(Ad, &declined));
      empty = declined ? 1 : 0;
    }
  }
  PetscCallMPI(MPI_Bcast(&empty, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  PetscCheck(after[1] >= 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: after a product, MatView() does not show MatMult()'s own scatter (-mat_gpuformat_overlap)", what);
  PetscCheck(empty || (after[0] == before[0] ? after[1] == before[1] + 1 : after[1] == 1), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: MatMult() did not run the diagonal block on its own stream (-mat_gpuformat_overlap; set-ups %ld and products so %ld before, %ld and %ld after)", what, before[0], before[1], after[0], after[1]);
  nchecks++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* With -verbose, every rank says on stderr (unbuffered) which step it starts */
static PetscErrorCode Say(const char *step, const char *what, const char *detail)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  if (!verbose) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "[%d] %s: %s%s%s%s\n", rank, step, what, detail[0] ? " (" : "", detail, detail[0] ? ")" : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every product of A against R, with x random, or with NaN and Inf in x */
static PetscErrorCode CheckProducts(Mat A, Mat R, PetscBool naninf, const char *what)
{
  Vec         xa, ya, za, xr, yr, zr, ta, tr;
  PetscRandom rnd;
  PetscBool   cuda, skip;
  long        before[2], after[2];
  char        msg[256];

  PetscFunctionBeginUser;
  PetscCall(Say("products", what, naninf ? "NaN and Inf in x" : ""));
  if (!blocks_at_product) PetscCall(CheckTypes(A, what));
  PetscCall(MatCreateVecs(A, &xa, &ya));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)xa, &cuda, VECMPICUDA, VECSEQCUDA, ""));
  PetscCheck(cuda, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: MatCreateVecs() gave %s", what, ((PetscObject)xa)->type_name);
  PetscCall(MatCreateVecs(R, &xr, &yr));
  PetscCall(VecDuplicate(ya, &za));
  PetscCall(VecDuplicate(yr, &zr));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(VecSetRandom(xr, rnd));
  if (naninf) {
    PetscInt N;

    PetscCall(VecGetSize(xr, &N));
    PetscCall(VecSetValue(xr, 0, NAN, INSERT_VALUES));
    PetscCall(VecSetValue(xr, N - 1, INFINITY, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(xr));
    PetscCall(VecAssemblyEnd(xr));
  }
  PetscCall(VecCopy(xr, xa));
  PetscCall(VecSetRandom(yr, rnd));
  PetscCall(VecCopy(yr, ya));

  PetscCall(OverlapCount(A, &skip, before));
  PetscCall(MatMult(A, xa, za));
  PetscCall(OverlapCount(A, &skip, after));
  if (!skip) PetscCall(CheckOverlap(A, before, after, what));
  PetscCall(MatMult(R, xr, zr));
  PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s: MatMult", what));
  PetscCall(SameVec(za, zr, msg));
  PetscCall(MatMultAdd(A, xa, ya, za));
  PetscCall(MatMultAdd(R, xr, yr, zr));
  PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s: MatMultAdd", what));
  PetscCall(SameVec(za, zr, msg));
  PetscCall(MatMultAdd(A, xa, ya, ya)); /* y == z */
  PetscCall(MatMultAdd(R, xr, yr, yr));
  PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s: MatMultAdd with y == z", what));
  PetscCall(SameVec(ya, yr, msg));
  if (!naninf) {
    PetscCall(MatCreateVecs(A, NULL, &ta));
    PetscCall(MatCreateVecs(R, NULL, &tr));
    PetscCall(VecCopy(zr, tr));
    PetscCall(VecCopy(zr, ta));
    PetscCall(MatMultTranspose(A, ta, xa));
    PetscCall(MatMultTranspose(R, tr, xr));
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s: MatMultTranspose", what));
    PetscCall(SameVec(xa, xr, msg));
    PetscCall(VecDestroy(&ta));
    PetscCall(VecDestroy(&tr));
  }
  { /* the products ran through the format: it holds device memory wherever the diagonal block has entries */
    PetscLogDouble bytes;
    MatInfo        info;
    Mat            Ad = A;
    PetscBool      mpi;
    PetscInt       m;

    PetscCall(PetscObjectTypeCompare((PetscObject)A, mpitype, &mpi));
    if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
    PetscCall(MatGetInfo(Ad, MAT_LOCAL, &info));
    PetscCall(MatGetLocalSize(Ad, &m, NULL));
    PetscCall(MatGPUFormatGetDeviceMemory(Ad, &bytes, NULL)); /* the diagonal block's alone (on A, both blocks') */
    {                                                         /* unless the format declined the block (DIA, ELL: their bound), whose products are then aijcusparse's */
      PetscBool declined;

      PetscCall(MatGPUFormatGetDeclined(Ad, &declined));
      if (declined) bytes = 1;
    }
    PetscCheck(!(info.nz_used > 0 && m > 0) || bytes > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the format of the diagonal block was never built", what);
  }
  PetscCall(CheckTypes(A, what)); /* and after the products */
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&xa));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&za));
  PetscCall(VecDestroy(&xr));
  PetscCall(VecDestroy(&yr));
  PetscCall(VecDestroy(&zr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A, of our type, built from t one of the ways users build parallel matrices */
static PetscErrorCode Build(const Case *c, const Triplets *t, Mat R, const char *how, Mat *A)
{
  PetscBool is;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(how, "setvalues", &is));
  if (is) {
    PetscCall(CreateSized(c, format, A)); /* the root name: the parallel type on any number of ranks */
    PetscCall(MatMPIAIJSetPreallocation(*A, 10, NULL, 10, NULL));
    PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(FillValues(*A, t, 1.0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscStrcmp(how, "hash", &is));
  if (is) { /* no preallocation: PETSc's hash mode until the first assembly */
    PetscCall(CreateSized(c, format, A));
    PetscCall(MatSetUp(*A));
    PetscCall(FillValues(*A, t, 1.0));
    PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscStrcmp(how, "coo", &is));
  if (is) {
    PetscScalar *dv;

    PetscCall(CreateSized(c, mpitype, A));
    PetscCall(MatSetPreallocationCOO(*A, t->n, t->i, t->j));
    PetscCallCUDA(cudaMalloc((void **)&dv, PetscMax(t->n, 1) * sizeof(PetscScalar)));
    PetscCallCUDA(cudaMemcpy(dv, t->v, t->n * sizeof(PetscScalar), cudaMemcpyHostToDevice));
    PetscCall(MatSetValuesCOO(*A, dv, INSERT_VALUES));
    PetscCallCUDA(cudaFree(dv));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscStrcmp(how, "convert", &is));
  if (is) {
    PetscCall(MatConvert(R, mpitype, MAT_INITIAL_MATRIX, A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscStrcmp(how, "inplace", &is));
  if (is) {
    PetscCall(MatConvert(R, MATMPIAIJCUSPARSE, MAT_INITIAL_MATRIX, A));
    PetscCall(MatConvert(*A, format, MAT_INPLACE_MATRIX, A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscStrcmp(how, "load", &is));
  if (is) { /* MatLoad() of R, written in PETSc's binary format, into a matrix of our type */
    PetscViewer viewer;
    char        file[PETSC_MAX_PATH_LEN], info[PETSC_MAX_PATH_LEN + 8];
    PetscMPIInt rank;
    int         pid = (int)getpid();

    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    /* a name of this run's own: ctest runs the tests of every format and process count at once in one folder */
    PetscCallMPI(MPI_Bcast(&pid, 1, MPI_INT, 0, PETSC_COMM_WORLD));
    PetscCall(PetscSNPrintf(file, sizeof(file), "test_mpi_load_%d.bin", pid));
    PetscCall(PetscSNPrintf(info, sizeof(info), "%s.info", file));

    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_WRITE, &viewer));
    PetscCall(MatView(R, viewer));
    PetscCall(PetscViewerDestroy(&viewer));
    PetscCall(CreateSized(c, format, A));
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_READ, &viewer));
    PetscCall(MatLoad(*A, viewer));
    PetscCall(PetscViewerDestroy(&viewer));
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    if (rank == 0) {
      (void)remove(file);
      (void)remove(info);
    }
    PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscStrcmp(how, "reuse", &is));
  PetscCheck(is, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "Unknown way %s", how);
  { /* a matrix of ours of R's pattern with other values, then R's values through MAT_REUSE_MATRIX */
    Mat R2;

    PetscCall(MatDuplicate(R, MAT_COPY_VALUES, &R2));
    PetscCall(MatScale(R2, -5.0));
    PetscCall(MatConvert(R2, mpitype, MAT_INITIAL_MATRIX, A));
    PetscCall(CheckProducts(*A, R2, PETSC_FALSE, "before MAT_REUSE_MATRIX"));
    PetscCall(MatConvert(R, mpitype, MAT_REUSE_MATRIX, A));
    PetscCall(MatDestroy(&R2));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunCase(const Case *c, const char *how, PetscInt seed)
{
  Triplets  t;
  Mat       R, A, D, H;
  char      what[256];
  PetscBool setvalues;

  PetscFunctionBeginUser;
  PetscCall(Say("build", c->name, how));
  PetscCall(MakeTriplets(c, seed, &t));
  PetscCall(Reference(c, &t, &R));
  PetscCall(Build(c, &t, R, how, &A));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s built by %s", c->name, how));
  PetscCall(CheckProducts(A, R, PETSC_FALSE, what));
  PetscCall(CheckProducts(A, R, PETSC_TRUE, what));

  /* new values, the same pattern: MatScale, then the same entries added again through MatSetValues */
  PetscCall(MatScale(A, 2.0));
  PetscCall(MatScale(R, 2.0));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s built by %s, scaled", c->name, how));
  PetscCall(CheckProducts(A, R, PETSC_FALSE, what));
  PetscCall(FillValues(A, &t, -1.0));
  PetscCall(FillValues(R, &t, -1.0));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s built by %s, values added", c->name, how));
  PetscCall(CheckProducts(A, R, PETSC_FALSE, what));

  /* new nonzeros, off-process columns and entries of other ranks' rows included: PETSc rebuilds the blocks */
  if (!c->blockdiag) {
    Triplets t2;
    Case     c2 = *c;

    c2.maxlen  = 2;
    c2.longrow = PETSC_FALSE;
    PetscCall(MakeTriplets(&c2, seed + 99991, &t2));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(FillValues(A, &t2, 1.0));
    PetscCall(FillValues(R, &t2, 1.0));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s built by %s, new nonzeros", c->name, how));
    PetscCall(CheckProducts(A, R, PETSC_FALSE, what));
    PetscCall(TripletsDestroy(&t2));
  }

  /* MatAXPY with the transpose (another pattern): PETSc builds a new matrix of A's type and merges it into A's header */
  if (c->M == c->N) {
    Mat At, Rt;

    PetscCall(MatTranspose(A, MAT_INITIAL_MATRIX, &At));
    PetscCall(MatTranspose(R, MAT_INITIAL_MATRIX, &Rt));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s built by %s, its transpose", c->name, how));
    PetscCall(CheckProducts(At, Rt, PETSC_FALSE, what)); /* of the type, with A's parameters (the off-diagonal blocks') */
    PetscCall(MatAXPY(A, 0.5, At, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatAXPY(R, 0.5, Rt, DIFFERENT_NONZERO_PATTERN));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s built by %s, MatAXPY with its transpose", c->name, how));
    blocks_at_product = PETSC_TRUE; /* MatAXPY() is PETSc's own (see gpuformatmpi.c): the blocks follow at the product */
    PetscCall(CheckProducts(A, R, PETSC_FALSE, what));
    blocks_at_product = PETSC_FALSE;
    PetscCall(MatDestroy(&At));
    PetscCall(MatDestroy(&Rt));
    /* transposed in place: MatHeaderMerge() again */
    PetscCall(MatTranspose(A, MAT_INPLACE_MATRIX, &A));
    PetscCall(MatTranspose(R, MAT_INPLACE_MATRIX, &R));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s built by %s, transposed in place", c->name, how));
    PetscCall(CheckProducts(A, R, PETSC_FALSE, what));
  }
  PetscCall(PetscStrcmp(how, "setvalues", &setvalues));
  if (c->M == c->N && setvalues) { /* a block's pattern changed alone (gpuformatmpi.c): MatShift() and
    MatDiagonalSet() insert the diagonal entries that the empty rows lack, MatEliminateZeros() takes the zeros that a
    shift back leaves on the diagonal out again */
    Vec da, dr;

    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE)); /* the diagonal entries are new */
    PetscCall(MatSetOption(R, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatShift(A, 3.0));
    PetscCall(MatShift(R, 3.0));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s built by %s, shifted", c->name, how));
    PetscCall(CheckProducts(A, R, PETSC_FALSE, what));
    PetscCall(MatCreateVecs(A, &da, NULL));
    PetscCall(MatCreateVecs(R, &dr, NULL));
    PetscCall(VecSet(da, 2.0));
    PetscCall(VecSet(dr, 2.0));
    PetscCall(MatDiagonalSet(A, da, INSERT_VALUES));
    PetscCall(MatDiagonalSet(R, dr, INSERT_VALUES));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s built by %s, diagonal set", c->name, how));
    PetscCall(CheckProducts(A, R, PETSC_FALSE, what));
    PetscCall(MatShift(A, -2.0));
    PetscCall(MatShift(R, -2.0));
    PetscCall(MatEliminateZeros(A, PETSC_FALSE));
    PetscCall(MatEliminateZeros(R, PETSC_FALSE));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s built by %s, zeros eliminated", c->name, how));
    PetscCall(CheckProducts(A, R, PETSC_FALSE, what));
    PetscCall(VecDestroy(&da));
    PetscCall(VecDestroy(&dr));
  }

  /* MatDuplicate keeps type and values; MatConvert back to MATMPIAIJ gives the reference's entries */
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &D));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s built by %s, duplicate", c->name, how));
  PetscCall(CheckProducts(D, R, PETSC_FALSE, what));
  PetscCall(MatConvert(A, MATMPIAIJ, MAT_INITIAL_MATRIX, &H));
  {
    PetscReal nrm;

    PetscCall(MatAXPY(H, -1.0, R, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatNorm(H, NORM_FROBENIUS, &nrm));
    PetscCheck(nrm == 0.0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s built by %s: MatConvert to mpiaij differs from the reference by %g", c->name, how, (double)nrm);
    nchecks++;
  }
  PetscCall(MatDestroy(&H));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscCall(TripletsDestroy(&t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A DMDA's matrix of our type (DMSetMatType(), as -dm_mat_type sets it), a 5-point stencil with random weights set
   through MatSetValuesStencil(), against the same DMDA's MATMPIAIJ */
static PetscErrorCode CheckDMDA(void)
{
  DM          da;
  Mat         A, R;
  PetscInt    xs, ys, xm, ym, mx, my;
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(Say("check", "DMDA", ""));
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 37, 29, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMSetMatType(da, MATMPIAIJ));
  PetscCall(DMCreateMatrix(da, &R));
  PetscCall(DMSetMatType(da, format));
  PetscCall(DMSetVecType(da, VECCUDA));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAGetInfo(da, NULL, &mx, &my, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++) {
      MatStencil  row = {0}, col[5];
      PetscScalar v[5];
      PetscInt    n = 0;

      row.i = i;
      row.j = j;
      for (PetscInt d = 0; d < 5; d++) {
        PetscInt  di[5] = {0, -1, 1, 0, 0}, dj[5] = {0, 0, 0, -1, 1};
        PetscReal r;

        if (i + di[d] < 0 || i + di[d] >= mx || j + dj[d] < 0 || j + dj[d] >= my) continue;
        col[n].i = i + di[d];
        col[n].j = j + dj[d];
        col[n].k = col[n].c = 0;
        PetscCall(PetscRandomGetValueReal(rnd, &r));
        v[n++] = (PetscScalar)((PetscInt)(r * 19) - 9);
      }
      PetscCall(MatSetValuesStencil(A, 1, &row, n, col, v, INSERT_VALUES));
      PetscCall(MatSetValuesStencil(R, 1, &row, n, col, v, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(R, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(R, MAT_FINAL_ASSEMBLY));
  PetscCall(CheckProducts(A, R, PETSC_FALSE, "DMDA matrix"));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A DMPlex's matrix (Q1 elements on a distributed quadrilateral mesh) of our type, filled cell by cell with random element
   matrices through DMPlexMatSetClosure() (shared vertices: entries of other ranks' rows), against the same DMPlex's
   MATMPIAIJ */
static PetscErrorCode CheckDMPlex(void)
{
  DM          dm, dist;
  PetscFE     fe;
  Mat         A, R;
  PetscInt    faces[2] = {12, 9}, cStart, cEnd;
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(Say("check", "DMPlex", ""));
  PetscCall(DMPlexCreateBoxMesh(PETSC_COMM_WORLD, 2, PETSC_FALSE, faces, NULL, NULL, NULL, PETSC_TRUE, 0, PETSC_TRUE, &dm)); /* quadrilaterals: this PETSc has no triangle generator */
  PetscCall(DMPlexDistribute(dm, 0, NULL, &dist));
  if (dist) {
    PetscCall(DMDestroy(&dm));
    dm = dist;
  }
  PetscCall(PetscFECreateDefault(PETSC_COMM_WORLD, 2, 1, PETSC_FALSE, NULL, -1, &fe));
  PetscCall(DMSetField(dm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(dm));
  PetscCall(DMSetMatType(dm, MATMPIAIJ));
  PetscCall(DMCreateMatrix(dm, &R));
  PetscCall(DMSetMatType(dm, format));
  PetscCall(DMSetVecType(dm, VECCUDA));
  PetscCall(DMCreateMatrix(dm, &A));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscScalar v[16]; /* 4 x 4: the Q1 element matrix of a quadrilateral */

    for (PetscInt k = 0; k < 16; k++) {
      PetscReal r;

      PetscCall(PetscRandomGetValueReal(rnd, &r));
      v[k] = (PetscScalar)((PetscInt)(r * 19) - 9);
    }
    PetscCall(DMPlexMatSetClosure(dm, NULL, NULL, A, c, v, ADD_VALUES));
    PetscCall(DMPlexMatSetClosure(dm, NULL, NULL, R, c, v, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(R, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(R, MAT_FINAL_ASSEMBLY));
  PetscCall(CheckProducts(A, R, PETSC_FALSE, "DMPlex matrix"));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFEDestroy(&fe));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------ products of parallel matrices (MatProduct) */

/* A random M x N MATMPIAIJ with m local rows and PETSc's split of the columns (with N small, the last processes own none),
   1 to 3 integer entries a row: a prolongation P of a multigrid level */
static PetscErrorCode RandomProlongation(PetscInt m, PetscInt M, PetscInt N, PetscInt seed, Mat *P)
{
  PetscMPIInt rank;
  PetscRandom rnd;
  PetscInt    rstart, rend;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(MatCreate(PETSC_COMM_WORLD, P));
  PetscCall(MatSetSizes(*P, m, PETSC_DECIDE, M, N));
  PetscCall(MatSetType(*P, MATMPIAIJ));
  PetscCall(MatMPIAIJSetPreallocation(*P, 3, NULL, 3, NULL));
  PetscCall(MatSetOption(*P, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(*P, &rstart, &rend));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)(seed + 104729 * rank)));
  PetscCall(PetscRandomSeed(rnd));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscReal x;
    PetscInt  len;

    PetscCall(PetscRandomGetValueReal(rnd, &x));
    len = 1 + (PetscInt)(x * 3) % 3;
    for (PetscInt k = 0; k < len; k++) {
      PetscInt col;

      PetscCall(PetscRandomGetValueReal(rnd, &x));
      col = (PetscInt)(x * N) % N;
      PetscCall(PetscRandomGetValueReal(rnd, &x));
      PetscCall(MatSetValue(*P, r, col, (PetscScalar)(1 + (PetscInt)(x * 5)), ADD_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* D and E act alike: D x == E x for random x (PETSc's MatMultEqual(); both of any type, same layout) */
static PetscErrorCode SameAction(Mat D, Mat E, const char *what)
{
  PetscBool same;

  PetscFunctionBeginUser;
  PetscCall(MatMultEqual(D, E, 3, &same));
  PetscCheck(same, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: MatMult() differs", what);
  nchecks++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* D equals the MATMPIAIJ H entry by entry (both viewed when small and different) */
static PetscErrorCode SameEntries(Mat D, Mat H, const char *what)
{
  Mat       X;
  PetscReal nrm, nref;
  PetscInt  M;

  PetscFunctionBeginUser;
  PetscCall(MatConvert(D, MATMPIAIJ, MAT_INITIAL_MATRIX, &X));
  PetscCall(MatNorm(H, NORM_FROBENIUS, &nref));
  PetscCall(MatAXPY(X, -1.0, H, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(X, NORM_FROBENIUS, &nrm));
  PetscCall(MatGetSize(D, &M, NULL));
  if (!(nrm <= 1e-12 * PetscMax(1.0, nref)) && M <= 8) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: the product of ours, then %s's\n", what, MATMPIAIJ));
    PetscCall(MatView(D, PETSC_VIEWER_STDOUT_WORLD));
    PetscCall(MatView(H, PETSC_VIEWER_STDOUT_WORLD));
  }
  PetscCheck(nrm <= 1e-12 * PetscMax(1.0, nref), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: differs from %s's by %g (norm %g)", what, MATMPIAIJ, (double)nrm, (double)nref);
  nchecks++;
  PetscCall(MatDestroy(&X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef enum {
  PROD_AB,
  PROD_AtB,
  PROD_PtAP,
  PROD_RARt,
  PROD_ABC
} ProdKind;
static const char *ProdName[] = {"MatMatMult(A, P)", "MatTransposeMatMult(P, A)", "MatPtAP(A, P)", "MatRARt(A, R)", "MatMatMatMult(R, A, P)"};

/* D = the product k of A, P and R = P^T, with the user driver (MatMatMult(), ...), initial or reuse */
static PetscErrorCode UserProduct(ProdKind k, Mat A, Mat P, Mat R, MatReuse reuse, Mat *D)
{
  PetscFunctionBeginUser;
  switch (k) {
  case PROD_AB:
    PetscCall(MatMatMult(A, P, reuse, PETSC_DETERMINE, D));
    break;
  case PROD_AtB:
    PetscCall(MatTransposeMatMult(P, A, reuse, PETSC_DETERMINE, D));
    break;
  case PROD_PtAP:
    PetscCall(MatPtAP(A, P, reuse, PETSC_DETERMINE, D));
    break;
  case PROD_RARt:
    PetscCall(MatRARt(A, R, reuse, PETSC_DETERMINE, D));
    break;
  case PROD_ABC:
    PetscCall(MatMatMatMult(R, A, P, reuse, PETSC_DETERMINE, D));
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's own check of D by its action on random vectors (*ok) */
static PetscErrorCode ProductActs(ProdKind k, Mat A, Mat P, Mat R, Mat D, PetscBool *pok)
{
  PetscBool ok = PETSC_FALSE;

  PetscFunctionBeginUser;
  switch (k) {
  case PROD_AB:
    PetscCall(MatMatMultEqual(A, P, D, 10, &ok));
    break;
  case PROD_AtB:
    PetscCall(MatTransposeMatMultEqual(P, A, D, 10, &ok));
    break;
  case PROD_PtAP:
    PetscCall(MatPtAPMultEqual(A, P, D, 10, &ok));
    break;
  case PROD_RARt:
    PetscCall(MatRARtMultEqual(A, R, D, 10, &ok));
    break;
  case PROD_ABC: { /* PETSc has no public check of an ABC product: D x against R (A (P x)) */
    Vec       x, px, apx, y, z;
    PetscReal nrm, nz;

    PetscCall(MatCreateVecs(P, &x, &px));
    PetscCall(MatCreateVecs(A, NULL, &apx));
    PetscCall(MatCreateVecs(D, NULL, &y));
    PetscCall(VecDuplicate(y, &z));
    PetscCall(VecSetRandom(x, NULL));
    PetscCall(MatMult(P, x, px));
    PetscCall(MatMult(A, px, apx));
    PetscCall(MatMult(R, apx, z));
    PetscCall(MatMult(D, x, y));
    PetscCall(VecNorm(z, NORM_INFINITY, &nz));
    PetscCall(VecAXPY(y, -1.0, z));
    PetscCall(VecNorm(y, NORM_INFINITY, &nrm));
    ok = (PetscBool)(nrm <= 1e-10 * PetscMax(1.0, nz));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&px));
    PetscCall(VecDestroy(&apx));
    PetscCall(VecDestroy(&y));
    PetscCall(VecDestroy(&z));
  } break;
  }
  *pok = ok;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   D, of ours, passes PETSc's check by its action; it acts as Dr, MATMPIAIJCUSPARSE's product of the same operands, and
   equals Dh, MATMPIAIJ's on the CPU, entry by entry, where those pass the check too (a product that fails it is named:
   PETSc's CPU PtAP() fails on mat/tests/ex62's test 14 on 3 processes); it has our type where Dr has MATMPIAIJCUSPARSE,
   else Dr's (MatRARt(), which MATMPIAIJCUSPARSE computes on the CPU), and multiplies as Dh or Dr.
*/
static PetscErrorCode CheckProduct(ProdKind k, Mat A, Mat P, Mat R, Mat D, Mat Ar, Mat Pr, Mat Rr, Mat Dr, Mat HA, Mat HP, Mat HR, Mat Dh, const char *what)
{
  PetscBool ok, okr, okh, cusparse;
  char      msg[320];

  PetscFunctionBeginUser;
  PetscCall(ProductActs(k, A, P, R, D, &ok));
  PetscCheck(ok, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: PETSc's check of the product on random vectors fails", what);
  nchecks++;
  PetscCall(ProductActs(k, Ar, Pr, Rr, Dr, &okr));
  PetscCall(ProductActs(k, HA, HP, HR, Dh, &okh));
  if (okr) {
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s: action against %s's", what, MATMPIAIJCUSPARSE));
    PetscCall(SameAction(D, Dr, msg));
  } else {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s's own result fails PETSc's check: not compared with it\n", what, MATMPIAIJCUSPARSE));
    nskipped++;
  }
  if (okh) PetscCall(SameEntries(D, Dh, what));
  else {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s's own result fails PETSc's check: not compared with it\n", what, MATMPIAIJ));
    nskipped++;
  }
  /* the check above multiplies through our own operands: one reference at least must be independent of them */
  PetscCheck(okr || okh, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: neither %s's nor %s's result passes PETSc's check: ours compared with none", what, MATMPIAIJCUSPARSE, MATMPIAIJ);
  PetscCall(PetscObjectTypeCompare((PetscObject)Dr, MATMPIAIJCUSPARSE, &cusparse));
  if (cusparse) { /* the result takes our type (CheckProducts() checks it) */
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s, its result", what));
    PetscCall(CheckProducts(D, okh ? Dh : Dr, PETSC_FALSE, msg));
  } else {
    PetscCall(PetscObjectTypeCompare((PetscObject)D, ((PetscObject)Dr)->type_name, &cusparse));
    PetscCheck(cusparse, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: result of type %s, %s's of type %s", what, ((PetscObject)D)->type_name, MATMPIAIJCUSPARSE, ((PetscObject)Dr)->type_name);
    nchecks++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The host values of the parallel aijcusparse matrix X brought up to date with its device ones (its blocks read back):
   PETSc 3.22's cuSPARSE PtAP gives a wrong first result for an operand whose values are newer on the GPU (after
   MatScale()), see gpuformatproduct.c; the reference MATMPIAIJCUSPARSE operands are kept current on both sides */
static PetscErrorCode HostCurrent(Mat X)
{
  Mat                Ad, Ao;
  const PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(MatMPIAIJGetSeqAIJ(X, &Ad, &Ao, NULL));
  PetscCall(MatSeqAIJGetArrayRead(Ad, &a));
  PetscCall(MatSeqAIJRestoreArrayRead(Ad, &a));
  PetscCall(MatSeqAIJGetArrayRead(Ao, &a));
  PetscCall(MatSeqAIJRestoreArrayRead(Ao, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The products of multigrid on several processes (the Galerkin operator P^T A P and the others of PETSc's parallel
   product code) with our type as A, as P (and R) or both: the result passes PETSc's check by its action, acts as
   MATMPIAIJCUSPARSE's product of the same operands, equals MATMPIAIJ's on the CPU entry by entry, has our type and
   multiplies as they do (CheckProduct()); again after new values of A (MAT_REUSE_MATRIX). A's values are newer on the
   GPU than on the host at the first product (PETSc 3.22's cuSPARSE PtAP is wrong there, see gpuformatproduct.c). The coarse sizes leave the last processes without rows of the
   result (PETSc's mat/tests/ex62 test 14 on 3 processes: a 4 x 4 A and a 4 x 2 P).
*/
static PetscErrorCode CheckMatProducts(void)
{
  const Case cases[] = {
      {"product tiny", 4,   4,   3, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
      {"product",      240, 240, 6, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE }
  };
  const PetscInt coarse[] = {2, 70};
  /* which of A and P (R with it) are ours: both, A only, P only */
  const PetscBool ours[3][2] = {
      {PETSC_TRUE,  PETSC_TRUE },
      {PETSC_TRUE,  PETSC_FALSE},
      {PETSC_FALSE, PETSC_TRUE }
  };

  PetscFunctionBeginUser;
  for (size_t c = 0; c < PETSC_STATIC_ARRAY_LENGTH(cases); c++) {
    Triplets t;
    Mat      HA, HP, HR, Ar, Pr, Rr;
    PetscInt m;

    PetscCall(MakeTriplets(&cases[c], 900 + (PetscInt)c, &t));
    PetscCall(Reference(&cases[c], &t, &HA));
    PetscCall(MatGetLocalSize(HA, NULL, &m));
    PetscCall(RandomProlongation(m, cases[c].N, coarse[c], 950 + (PetscInt)c, &HP));
    PetscCall(MatTranspose(HP, MAT_INITIAL_MATRIX, &HR));
    PetscCall(MatConvert(HA, MATMPIAIJCUSPARSE, MAT_INITIAL_MATRIX, &Ar));
    PetscCall(MatConvert(HP, MATMPIAIJCUSPARSE, MAT_INITIAL_MATRIX, &Pr));
    PetscCall(MatConvert(HR, MATMPIAIJCUSPARSE, MAT_INITIAL_MATRIX, &Rr));
    for (PetscInt k = PROD_AB; k <= PROD_ABC; k++)
      for (size_t o = 0; o < PETSC_STATIC_ARRAY_LENGTH(ours); o++) {
        Mat  A, P, R, D, Dr, Dh;
        char what[256];

        PetscCall(PetscSNPrintf(what, sizeof(what), "%s (%" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " coarse) with A %s, P %s", ProdName[k], cases[c].M, cases[c].N, coarse[c], ours[o][0] ? mpitype : MATMPIAIJCUSPARSE, ours[o][1] ? mpitype : MATMPIAIJCUSPARSE));
        PetscCall(Say("products", what, ""));
        PetscCall(MatConvert(HA, ours[o][0] ? mpitype : MATMPIAIJCUSPARSE, MAT_INITIAL_MATRIX, &A));
        PetscCall(MatConvert(HP, ours[o][1] ? mpitype : MATMPIAIJCUSPARSE, MAT_INITIAL_MATRIX, &P));
        PetscCall(MatConvert(HR, ours[o][1] ? mpitype : MATMPIAIJCUSPARSE, MAT_INITIAL_MATRIX, &R));
        /* A's values newer on the GPU than on the host, as after MatScale() or MatSetValuesCOO() with device values, and
           different from them, so that a product that read the stale host values would show it; the references alike */
        PetscCall(MatScale(A, 2.0));
        PetscCall(MatScale(Ar, 2.0));
        PetscCall(HostCurrent(Ar));
        PetscCall(MatScale(HA, 2.0));
        {
          Mat Ad;
          int gpu, anygpu;

          PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
          gpu = Ad->offloadmask == PETSC_OFFLOAD_GPU;
          PetscCallMPI(MPIU_Allreduce(&gpu, &anygpu, 1, MPI_INT, MPI_LOR, PETSC_COMM_WORLD));
          PetscCheck(anygpu, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: MatScale() left no diagonal block's values newer on the GPU", what);
        }
        PetscCall(UserProduct((ProdKind)k, A, P, R, MAT_INITIAL_MATRIX, &D));
        PetscCall(UserProduct((ProdKind)k, Ar, Pr, Rr, MAT_INITIAL_MATRIX, &Dr));
        PetscCall(UserProduct((ProdKind)k, HA, HP, HR, MAT_INITIAL_MATRIX, &Dh));
        PetscCall(CheckProduct((ProdKind)k, A, P, R, D, Ar, Pr, Rr, Dr, HA, HP, HR, Dh, what));
        /* new values of A, the same pattern: the numeric phase again */
        PetscCall(MatScale(A, -0.5));
        PetscCall(MatScale(Ar, -0.5));
        PetscCall(HostCurrent(Ar));
        PetscCall(MatScale(HA, -0.5));
        PetscCall(UserProduct((ProdKind)k, A, P, R, MAT_REUSE_MATRIX, &D));
        PetscCall(UserProduct((ProdKind)k, Ar, Pr, Rr, MAT_REUSE_MATRIX, &Dr));
        PetscCall(UserProduct((ProdKind)k, HA, HP, HR, MAT_REUSE_MATRIX, &Dh));
        PetscCall(PetscStrlcat(what, ", reused after new values of A", sizeof(what)));
        PetscCall(CheckProduct((ProdKind)k, A, P, R, D, Ar, Pr, Rr, Dr, HA, HP, HR, Dh, what));
        PetscCall(MatScale(Ar, -1.0)); /* back to the values of HA as built: 2 x -0.5 */
        PetscCall(HostCurrent(Ar));
        PetscCall(MatScale(HA, -1.0));
        PetscCall(MatDestroy(&D));
        PetscCall(MatDestroy(&Dr));
        PetscCall(MatDestroy(&Dh));
        PetscCall(MatDestroy(&A));
        PetscCall(MatDestroy(&P));
        PetscCall(MatDestroy(&R));
      }
    PetscCall(MatDestroy(&Ar));
    PetscCall(MatDestroy(&Pr));
    PetscCall(MatDestroy(&Rr));
    PetscCall(MatDestroy(&HA));
    PetscCall(MatDestroy(&HP));
    PetscCall(MatDestroy(&HR));
    PetscCall(TripletsDestroy(&t));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A vector of the wrong size, local sizes that do not add up: the errors MATMPIAIJCUSPARSE gives, on every rank, and no
   hang */
static PetscErrorCode CheckErrors(void)
{
  Case           c = {"square", 200, 200, 4, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};
  Triplets       t;
  Mat            R, A, C;
  Vec            x, y;
  PetscErrorCode ierr, cierr;

  PetscFunctionBeginUser;
  PetscCall(Say("check", "errors", ""));
  PetscCall(MakeTriplets(&c, 5, &t));
  PetscCall(Reference(&c, &t, &R));
  PetscCall(MatConvert(R, mpitype, MAT_INITIAL_MATRIX, &A));
  PetscCall(MatConvert(R, MATMPIAIJCUSPARSE, MAT_INITIAL_MATRIX, &C));
  PetscCall(VecCreateMPICUDA(PETSC_COMM_WORLD, PETSC_DECIDE, c.N + 3, &x));
  PetscCall(MatCreateVecs(A, NULL, &y));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr  = MatMult(A, x, y);
  cierr = MatMult(C, x, y);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr && ierr == cierr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatMult with a vector of the wrong size: error %d, %d with %s", (int)ierr, (int)cierr, MATMPIAIJCUSPARSE);
  nchecks++;
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  { /* local sizes that do not add up to the global size: the error MATMPIAIJCUSPARSE gives, on every rank */
    PetscMPIInt    size, rank;
    const PetscInt M        = 100;
    MatType        types[2] = {mpitype, MATMPIAIJCUSPARSE};
    PetscErrorCode e[2];
    PetscInt       m;

    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    m = rank == size - 1 ? M - (size - 1) * (M / size) - 1 : M / size; /* each at most M (MatSetSizes() checks that), M - 1 in all */
    for (PetscInt k = 0; k < 2; k++) {
      Mat B;

      PetscCall(MatCreate(PETSC_COMM_WORLD, &B));
      PetscCall(MatSetSizes(B, m, m, M, M));
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      e[k] = MatSetType(B, types[k]);
      if (!e[k]) e[k] = MatMPIAIJSetPreallocation(B, 5, NULL, 5, NULL);
      PetscCall(PetscPopErrorHandler());
      PetscCall(MatDestroy(&B));
    }
    /* PETSc checks the sum only when it is built with debugging (PetscLayoutSetUp()); then both must fail, else both succeed */
    PetscCheck(e[0] == e[1] && (!PetscDefined(USE_DEBUG) || e[0]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "Local sizes that do not add up: error %d, %d with %s", (int)e[0], (int)e[1], MATMPIAIJCUSPARSE);
    nchecks++;
  }
  /* and the matrix still works */
  PetscCall(CheckProducts(A, R, PETSC_FALSE, "after an error"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&R));
  PetscCall(TripletsDestroy(&t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   DIA and ELL (formats with a fill bound) with -mat_<format>_fallback false, when only the first process's diagonal block
   is past the bound (-mat_<format>_max_fill 2: a row of that block full, the others tridiagonal): MatMult() fails on every
   process with PETSC_ERR_SUP, no process waits for ever; with the fallback back, that block alone is declined (its
   products aijcusparse's), the others stored, and the products are MATMPIAIJ's
*/
static PetscErrorCode CheckRefusal(void)
{
  const PetscInt N = 400;
  char           fallback[64], bound[64], saved[64] = "";
  PetscBool      has, hasbound, declined, isdia, isell;
  PetscMPIInt    rank, size;
  PetscInt       rstart, rend;
  Mat            A, R, Ad;
  Vec            x, y;
  PetscErrorCode ierr;
  int            e[2], ge[2];

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(format, "dia", &isdia));
  PetscCall(PetscStrcmp(format, "ell", &isell));
  if (!isdia && !isell) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(Say("check", "refusal", "one process's block past the bound"));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscSNPrintf(fallback, sizeof(fallback), "-mat_%s_fallback", format));
  PetscCall(PetscSNPrintf(bound, sizeof(bound), "-mat_%s_max_fill", format));
  PetscCall(PetscOptionsGetString(NULL, NULL, bound, saved, sizeof(saved), &hasbound));
  PetscCall(PetscOptionsSetValue(NULL, bound, "2"));
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, N, N, 3, NULL, 0, NULL, &R));
  PetscCall(MatSetOption(R, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(R, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    for (PetscInt j = PetscMax(rstart, i - 1); j <= PetscMin(rend - 1, i + 1); j++) PetscCall(MatSetValue(R, i, j, (PetscScalar)(1 + (i + 2 * j) % 7), INSERT_VALUES));
    if (!rank && i == rstart)
      for (PetscInt j = rstart; j < rend; j++) PetscCall(MatSetValue(R, i, j, (PetscScalar)(1 + j % 5), INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(R, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(R, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(R, mpitype, MAT_INITIAL_MATRIX, &A));
  if (size > 1) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
  else Ad = A;
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSet(x, 1.0));
  /* refused on the first process: an error on every one */
  PetscCall(TestMultErrorWithOption(A, fallback, "0", x, y, &ierr));
  e[0] = (int)ierr;
  e[1] = -(int)ierr;
  PetscCallMPI(MPIU_Allreduce(e, ge, 2, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
  PetscCheck(ge[0] == PETSC_ERR_SUP && -ge[1] == PETSC_ERR_SUP, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s false, one block past the bound: errors %d to %d on the processes, not PETSC_ERR_SUP on each", fallback, -ge[1], ge[0]);
  nchecks++;
  /* declined on the first process alone */
  PetscCall(TestSetMatOption(A, fallback, "1"));
  PetscCall(CheckProducts(A, R, PETSC_FALSE, "one block declined"));
  PetscCall(MatGPUFormatGetDeclined(Ad, &declined));
  has = (PetscBool)(rank == 0);
  PetscCheck(declined == has, PETSC_COMM_SELF, PETSC_ERR_PLIB, "process %d: its diagonal block %s, expected %s", rank, declined ? "declined" : "stored", has ? "declined" : "stored");
  nchecks++;
  if (hasbound) PetscCall(PetscOptionsSetValue(NULL, bound, saved));
  else PetscCall(PetscOptionsClearValue(NULL, bound));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const Case cases[] = {
      {"square",      2000, 2000, 8, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE },
      {"rectangular", 1500, 2300, 8, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE },
      {"blockdiag",   2000, 2000, 8, PETSC_TRUE,  PETSC_FALSE, PETSC_FALSE},
      {"small",       20,   20,   4, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE },
      {"longrow",     6000, 6000, 6, PETSC_FALSE, PETSC_TRUE,  PETSC_TRUE }
  };
  const char *ways[] = {"setvalues", "hash", "coo", "convert", "inplace", "reuse", "load"};
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUFormatsInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-format", format, sizeof(format), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-mat_gpuformat_offdiag", &offdiag, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-mat_gpuformat_overlap", &overlap, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-verbose", &verbose, NULL));
  PetscCall(PetscSNPrintf(mpitype, sizeof(mpitype), "mpiaijcusparse%s", format));
  PetscCall(PetscSNPrintf(seqtype, sizeof(seqtype), "seqaijcusparse%s", format));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(cases); k++)
    for (size_t w = 0; w < PETSC_STATIC_ARRAY_LENGTH(ways); w++) PetscCall(RunCase(&cases[k], ways[w], (PetscInt)(100 * k + w)));
  PetscCall(CheckDMDA());
  PetscCall(CheckDMPlex());
  PetscCall(CheckMatProducts());
  PetscCall(CheckErrors());
  PetscCall(CheckRefusal());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s on %d processes (off-diagonal blocks %s, MatMult() %s): %" PetscInt_FMT " checks passed; %" PetscInt_FMT " comparisons with a reference product skipped (it failed PETSc's own check)\n", mpitype, size, offdiag ? seqtype : MATSEQAIJCUSPARSE, overlap ? "with -mat_gpuformat_overlap" : "mpiaijcusparse's", nchecks, nskipped));
  PetscCall(PetscFinalize());
  return 0;
}

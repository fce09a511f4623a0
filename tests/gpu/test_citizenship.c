static const char help[] = "A petsc-gpuformats type as a PETSc citizen: products, inherited operations and preconditioners, against aijcusparse and seqaij.\n"
                           "  -format cmrs|sellcs|bce|dia|hyb|ell|argcsr|gpuauto: the type to test\n"
                           "  -test products|inherited|pc: the part to run (default: all)\n";

/*
   Every check compares the type under test (F) with what PETSc does with aijcusparse on the same data, and where
   a CPU reference applies, with seqaij.
   products:  MatProduct AB, AtB, ABt, PtAP, RARt, ABC and MatMatMult(), MatTransposeMatMult(), MatMatTransposeMult(),
              MatPtAP(), MatRARt(), MatMatMatMult(), initial and reuse (after new values), with F against F, another
              of our types (G), aijcusparse, seqaij and dense operands. The result must equal aijcusparse's entry by
              entry, be computed where aijcusparse's is (on the GPU when aijcusparse's is: offloadmask), take the
              type of the first of our operands when aijcusparse's result is aijcusparse (a multigrid hierarchy
              stays in F) unless -mat_gpuformat_product_min_rows says otherwise, and multiply as aijcusparse's.
              A product that fails with aijcusparse must fail with F, and one that succeeds must succeed.
   inherited: MatGetDiagonal, MatScale, MatDiagonalScale, MatShift (with missing diagonal entries), MatAXPY (same,
              subset and different patterns, with aijcusparse and with F), MatZeroRows (with and without keeping
              the pattern), MatZeroRowsColumns, MatCreateSubMatrix, MatTranspose (initial, reuse, in place),
              MatConvert to dense, MatGetDiagonalBlock: after each, F equals aijcusparse and seqaij entry by
              entry, keeps its type, and its products (which use the shadow format) equal seqaij's.
   pc:        PCPBJACOBI and PCVPBJACOBI take the GPU path they take for aijcusparse; ILU, ICC, LU and Cholesky
              use cuSPARSE's factorization by default, as for aijcusparse; PCBJACOBI with ILU; all apply as
              aijcusparse's.
*/
#include <petscgpuformats.h>
#include <petscpc.h>
#include <petsc/private/matimpl.h> /* offloadmask: where a product was computed */
#include <petsc/private/pcimpl.h>  /* pc->ops->apply: which path a preconditioner took */
#include "../common/testcsr.h"

static PetscRandom rnd;
static MatType     F, G;    /* the type under test and another of ours */
static PetscBool   verbose; /* -verbose: print each step of a product case */
static PetscInt    nchecks;

/* ------------------------------------------------------------------ helpers */

/* A random m x n MATSEQAIJ with integer values and rows of 0 to maxlen entries */
static PetscErrorCode RandomAIJ(PetscInt m, PetscInt n, PetscInt maxlen, Mat *A)
{
  PetscInt *len;
  CSR       csr;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(m, &len));
  for (PetscInt i = 0; i < m; i++) {
    PetscReal r;

    PetscCall(PetscRandomGetValueReal(rnd, &r));
    len[i] = (PetscInt)(r * (maxlen + 1));
  }
  PetscCall(CSRCreate(rnd, m, n, len, PETSC_TRUE, &csr));
  PetscCall(CSRToMat(&csr, A));
  PetscCall(CSRDestroy(&csr));
  PetscCall(PetscFree(len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A copy of the host matrix H as `type` (seqaij, aijcusparse or one of ours) */
static PetscErrorCode As(Mat H, MatType type, Mat *A)
{
  PetscBool aij;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(type, MATSEQAIJ, &aij));
  if (aij) PetscCall(MatDuplicate(H, MAT_COPY_VALUES, A));
  else PetscCall(MatConvert(H, type, MAT_INITIAL_MATRIX, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckType(Mat A, MatType type, const char *what)
{
  PetscBool same;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, type, &same));
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: type %s, expected %s", what, ((PetscObject)A)->type_name, type);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A and R (any AIJ or dense types, host or device) have the same entries: the same pattern and values to rounding */
static PetscErrorCode CheckSame(Mat A, Mat R, const char *what)
{
  PetscInt  m, n, rm, rn;
  PetscBool adense, rdense;

  PetscFunctionBeginUser;
  nchecks++;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatGetSize(R, &rm, &rn));
  PetscCheck(m == rm && n == rn, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %" PetscInt_FMT " x %" PetscInt_FMT ", expected %" PetscInt_FMT " x %" PetscInt_FMT, what, m, n, rm, rn);
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)A, &adense, MATSEQDENSE, MATSEQDENSECUDA, ""));
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)R, &rdense, MATSEQDENSE, MATSEQDENSECUDA, ""));
  PetscCheck(adense == rdense, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %s against %s", what, ((PetscObject)A)->type_name, ((PetscObject)R)->type_name);
  if (adense) {
    const PetscScalar *a, *r;
    PetscInt           lda, ldr;

    PetscCall(MatDenseGetArrayRead(A, &a));
    PetscCall(MatDenseGetArrayRead(R, &r));
    PetscCall(MatDenseGetLDA(A, &lda));
    PetscCall(MatDenseGetLDA(R, &ldr));
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt i = 0; i < m; i++) PetscCheck(PetscAbsScalar(a[i + j * lda] - r[i + j * ldr]) <= 1e-12 * (1 + PetscAbsScalar(r[i + j * ldr])), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: entry (%" PetscInt_FMT ", %" PetscInt_FMT ") is %g, expected %g", what, i, j, (double)PetscRealPart(a[i + j * lda]), (double)PetscRealPart(r[i + j * ldr]));
    PetscCall(MatDenseRestoreArrayRead(A, &a));
    PetscCall(MatDenseRestoreArrayRead(R, &r));
  } else {
    const PetscInt    *ai, *aj, *ri, *rj;
    const PetscScalar *a, *r;
    PetscBool          done;
    PetscInt           am, rm2;

    PetscCall(MatSeqAIJGetArrayRead(A, &a));
    PetscCall(MatSeqAIJGetArrayRead(R, &r));
    PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &am, &ai, &aj, &done));
    PetscCall(MatGetRowIJ(R, 0, PETSC_FALSE, PETSC_FALSE, &rm2, &ri, &rj, &done));
    for (PetscInt i = 0; i < m; i++) {
      PetscCheck(ai[i + 1] - ai[i] == ri[i + 1] - ri[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: row %" PetscInt_FMT " has %" PetscInt_FMT " entries, expected %" PetscInt_FMT, what, i, ai[i + 1] - ai[i], ri[i + 1] - ri[i]);
      for (PetscInt k = 0; k < ai[i + 1] - ai[i]; k++) {
        const PetscInt    c = aj[ai[i] + k];
        const PetscScalar v = a[ai[i] + k], w = r[ri[i] + k];

        PetscCheck(c == rj[ri[i] + k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: row %" PetscInt_FMT " entry %" PetscInt_FMT " in column %" PetscInt_FMT ", expected %" PetscInt_FMT, what, i, k, c, rj[ri[i] + k]);
        PetscCheck(PetscAbsScalar(v - w) <= 1e-12 * (1 + PetscAbsScalar(w)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: entry (%" PetscInt_FMT ", %" PetscInt_FMT ") is %g, expected %g", what, i, c, (double)PetscRealPart(v), (double)PetscRealPart(w));
      }
    }
    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &am, &ai, &aj, &done));
    PetscCall(MatRestoreRowIJ(R, 0, PETSC_FALSE, PETSC_FALSE, &rm2, &ri, &rj, &done));
    PetscCall(MatSeqAIJRestoreArrayRead(A, &a));
    PetscCall(MatSeqAIJRestoreArrayRead(R, &r));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The products of A (through its own MatMult, MatMultAdd, MatMultTranspose) equal those of R */
static PetscErrorCode CheckMult(Mat A, Mat R, const char *what)
{
  PetscBool flg;

  PetscFunctionBeginUser;
  PetscCall(MatMultEqual(A, R, 3, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatMult differs from %s", what, ((PetscObject)R)->type_name);
  PetscCall(MatMultAddEqual(A, R, 3, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatMultAdd differs from %s", what, ((PetscObject)R)->type_name);
  PetscCall(MatMultTransposeEqual(A, R, 3, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatMultTranspose differs from %s", what, ((PetscObject)R)->type_name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ products */

/* Operand kinds: F, G (ours), aijcusparse, seqaij (host), seqdense (host, B only) */
typedef enum {
  KF,
  KG,
  KCUSP,
  KAIJ,
  KDENSE
} Kind;
static const char *KindName[] = {"F", "G", "aijcusparse", "seqaij", "seqdense"};

typedef struct {
  MatProductType ptype;
  Kind           a, b, c;
} ProductCase;

/* Shapes: A is m x k in AB and ABC; k x m in AtB; square k x k in PtAP and RARt */
static PetscErrorCode ProductShapes(MatProductType t, PetscInt s[3][2])
{
  const PetscInt m = 300, k = 250, n = 120, l = 180;

  PetscFunctionBeginUser;
  s[2][0] = s[2][1] = 0;
  switch (t) {
  case MATPRODUCT_AB:
    s[0][0] = m, s[0][1] = k, s[1][0] = k, s[1][1] = n;
    break;
  case MATPRODUCT_AtB:
    s[0][0] = k, s[0][1] = m, s[1][0] = k, s[1][1] = n;
    break;
  case MATPRODUCT_ABt:
    s[0][0] = m, s[0][1] = k, s[1][0] = n, s[1][1] = k;
    break;
  case MATPRODUCT_PtAP:
    s[0][0] = k, s[0][1] = k, s[1][0] = k, s[1][1] = n;
    break;
  case MATPRODUCT_RARt:
    s[0][0] = k, s[0][1] = k, s[1][0] = n, s[1][1] = k;
    break;
  case MATPRODUCT_ABC:
    s[0][0] = m, s[0][1] = k, s[1][0] = k, s[1][1] = l, s[2][0] = l, s[2][1] = n;
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "product type");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MakeOperand(Mat H, Kind k, PetscBool reference, Mat *X)
{
  PetscFunctionBeginUser;
  switch (k) {
  case KF:
    PetscCall(As(H, reference ? MATSEQAIJCUSPARSE : F, X));
    break;
  case KG:
    PetscCall(As(H, reference ? MATSEQAIJCUSPARSE : G, X));
    break;
  case KCUSP:
    PetscCall(As(H, MATSEQAIJCUSPARSE, X));
    break;
  case KAIJ:
    PetscCall(As(H, MATSEQAIJ, X));
    break;
  case KDENSE:
    PetscCall(MatConvert(H, MATSEQDENSE, MAT_INITIAL_MATRIX, X));
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The old interface of each product type */
static PetscErrorCode OldProduct(MatProductType t, Mat A, Mat B, Mat C, MatReuse reuse, Mat *D)
{
  PetscFunctionBeginUser;
  switch (t) {
  case MATPRODUCT_AB:
    PetscCall(MatMatMult(A, B, reuse, PETSC_DETERMINE, D));
    break;
  case MATPRODUCT_AtB:
    PetscCall(MatTransposeMatMult(A, B, reuse, PETSC_DETERMINE, D));
    break;
  case MATPRODUCT_ABt:
    PetscCall(MatMatTransposeMult(A, B, reuse, PETSC_DETERMINE, D));
    break;
  case MATPRODUCT_PtAP:
    PetscCall(MatPtAP(A, B, reuse, PETSC_DETERMINE, D));
    break;
  case MATPRODUCT_RARt:
    PetscCall(MatRARt(A, B, reuse, PETSC_DETERMINE, D));
    break;
  case MATPRODUCT_ABC:
    PetscCall(MatMatMatMult(A, B, C, reuse, PETSC_DETERMINE, D));
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "product type");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The MatProduct interface: create, set from options, symbolic, numeric */
static PetscErrorCode NewProduct(MatProductType t, Mat A, Mat B, Mat C, Mat *D)
{
  PetscFunctionBeginUser;
  PetscCall(MatProductCreate(A, B, t == MATPRODUCT_ABC ? C : NULL, D));
  PetscCall(MatProductSetType(*D, t));
  PetscCall(MatProductSetFromOptions(*D));
  PetscCall(MatProductSymbolic(*D));
  PetscCall(MatProductNumeric(*D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The result of our product D against aijcusparse's R: entries, where it was computed, its type, its products */
static PetscErrorCode CheckProduct(Mat D, Mat R, MatType expect, const char *what)
{
  PetscFunctionBeginUser;
  PetscCall(CheckSame(D, R, what));
  PetscCheck(D->offloadmask == R->offloadmask, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: computed with offloadmask %s, aijcusparse's %s", what, PetscOffloadMaskToString(D->offloadmask), PetscOffloadMaskToString(R->offloadmask));
  PetscCall(CheckType(D, expect, what));
  if (D->rmap->n && D->cmap->n) PetscCall(CheckMult(D, R, what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunProductCase(const ProductCase *pc, PetscBool small)
{
  PetscInt       shape[3][2];
  Kind           kinds[3] = {pc->a, pc->b, pc->c};
  Mat            H[3] = {NULL, NULL, NULL}, X[3] = {NULL, NULL, NULL}, R[3] = {NULL, NULL, NULL}, D, Dr, Do, Dor;
  MatType        expect;
  char           what[256];
  PetscErrorCode ierr, rierr;
  const PetscInt nops = pc->ptype == MATPRODUCT_ABC ? 3 : 2;

  PetscFunctionBeginUser;
  PetscCall(ProductShapes(pc->ptype, shape));
  for (PetscInt i = 0; i < nops; i++) {
    /* the reference moves a host seqaij B or C to the GPU where ours does: when A is ours */
    Kind rk = kinds[i] == KAIJ && i > 0 && (pc->a == KF || pc->a == KG) ? KCUSP : kinds[i];

    PetscCall(RandomAIJ(shape[i][0], shape[i][1], i == 0 ? 8 : 4, &H[i]));
    PetscCall(MakeOperand(H[i], kinds[i], PETSC_FALSE, &X[i]));
    PetscCall(MakeOperand(H[i], rk, PETSC_TRUE, &R[i]));
  }
  if (small) { /* results of this product stay aijcusparse */
    PetscCall(MatSetOptionsPrefix(X[0], "small_"));
    PetscCall(PetscOptionsSetValue(NULL, "-small_mat_gpuformat_product_min_rows", "100000"));
    PetscCall(MatSetFromOptions(X[0])); /* options are read there (and at creation and conversion), not in a product */
  }
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s with A %s, B %s%s%s%s", MatProductTypes[pc->ptype], KindName[pc->a], KindName[pc->b], nops == 3 ? ", C " : "", nops == 3 ? KindName[pc->c] : "", small ? ", small" : ""));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %s\n", what));

  /* aijcusparse first: ours must fail exactly when it fails */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  if (verbose) PetscCall(PetscPrintf(PETSC_COMM_SELF, "    MatProduct with aijcusparse\n"));
  rierr = NewProduct(pc->ptype, R[0], R[1], R[2], &Dr);
  if (verbose) PetscCall(PetscPrintf(PETSC_COMM_SELF, "    MatProduct with ours\n"));
  ierr = NewProduct(pc->ptype, X[0], X[1], X[2], &D);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(!rierr == !ierr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: error %d with %s, %d with aijcusparse", what, (int)ierr, F, (int)rierr);
  if (rierr) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "    not supported with aijcusparse either (error %d)\n", (int)rierr));
  } else {
    PetscBool rcusp;

    /* ours takes the type of its first operand of ours where aijcusparse's result is aijcusparse */
    PetscCall(PetscObjectTypeCompare((PetscObject)Dr, MATSEQAIJCUSPARSE, &rcusp));
    expect = ((PetscObject)Dr)->type_name;
    if (rcusp && !small) {
      for (PetscInt i = nops - 1; i >= 0; i--)
        if (kinds[i] == KF || kinds[i] == KG) expect = kinds[i] == KF ? F : G;
    }
    for (PetscInt i = 1; i < nops; i++)
      if (kinds[i] == KAIJ && (pc->a == KF || pc->a == KG)) PetscCall(CheckType(X[i], MATSEQAIJCUSPARSE, "host operand of a product with ours"));
    if (verbose) PetscCall(PetscPrintf(PETSC_COMM_SELF, "    check, then the old interface\n"));
    PetscCall(CheckProduct(D, Dr, expect, what));
    PetscCall(OldProduct(pc->ptype, X[0], X[1], X[2], MAT_INITIAL_MATRIX, &Do));
    PetscCall(OldProduct(pc->ptype, R[0], R[1], R[2], MAT_INITIAL_MATRIX, &Dor));
    PetscCall(CheckProduct(Do, Dor, expect, what));

    /* new values in every operand, the same pattern: the numeric phases again */
    for (PetscInt i = 0; i < nops; i++) {
      PetscCall(MatScale(X[i], i + 2.0));
      PetscCall(MatScale(R[i], i + 2.0));
    }
    if (verbose) PetscCall(PetscPrintf(PETSC_COMM_SELF, "    numeric phase again\n"));
    PetscCall(MatProductNumeric(D));
    PetscCall(MatProductNumeric(Dr));
    PetscCall(CheckProduct(D, Dr, expect, what));
    PetscCall(OldProduct(pc->ptype, X[0], X[1], X[2], MAT_REUSE_MATRIX, &Do));
    PetscCall(OldProduct(pc->ptype, R[0], R[1], R[2], MAT_REUSE_MATRIX, &Dor));
    PetscCall(CheckProduct(Do, Dor, expect, what));
    if (verbose) PetscCall(PetscPrintf(PETSC_COMM_SELF, "    destroy\n"));
    PetscCall(MatDestroy(&Do));
    PetscCall(MatDestroy(&Dor));
  }
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&Dr));
  if (small) PetscCall(PetscOptionsClearValue(NULL, "-small_mat_gpuformat_product_min_rows"));
  for (PetscInt i = 0; i < 3; i++) {
    PetscCall(MatDestroy(&H[i]));
    PetscCall(MatDestroy(&X[i]));
    PetscCall(MatDestroy(&R[i]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A sparse matrix times a dense one, and an empty matrix in a product */
static MatType Expected(Mat);

static PetscErrorCode RunProductSpecial(void)
{
  Mat H, B, X, R, Xb, Rb, D, Dr;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  AB with A F, B seqdense\n"));
  PetscCall(RandomAIJ(200, 150, 8, &H));
  PetscCall(RandomAIJ(150, 7, 7, &B));
  PetscCall(As(H, F, &X));
  PetscCall(As(H, MATSEQAIJCUSPARSE, &R));
  PetscCall(MatConvert(B, MATSEQDENSE, MAT_INITIAL_MATRIX, &Xb));
  PetscCall(MatConvert(B, MATSEQDENSE, MAT_INITIAL_MATRIX, &Rb));
  PetscCall(MatMatMult(X, Xb, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &D));
  PetscCall(MatMatMult(R, Rb, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Dr));
  PetscCall(CheckType(D, ((PetscObject)Dr)->type_name, "AB with a dense B"));
  PetscCall(CheckSame(D, Dr, "AB with a dense B"));
  PetscCall(MatScale(X, -3.0));
  PetscCall(MatScale(R, -3.0));
  PetscCall(MatMatMult(X, Xb, MAT_REUSE_MATRIX, PETSC_DETERMINE, &D));
  PetscCall(MatMatMult(R, Rb, MAT_REUSE_MATRIX, PETSC_DETERMINE, &Dr));
  PetscCall(CheckSame(D, Dr, "AB with a dense B, reused"));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&Dr));
  PetscCall(MatDestroy(&Xb));
  PetscCall(MatDestroy(&Rb));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&H));

  /* the caller's host MATSEQDENSE as the result, two numeric phases (PETSc's mat/tests/ex237): against seqaij's; not
     against aijcusparse's, whose second phase writes to the host array (PETSc 3.22) */
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  AB with A F, B seqdense, the caller's seqdense result, numeric twice\n"));
  PetscCall(RandomAIJ(200, 150, 8, &H));
  PetscCall(RandomAIJ(150, 5, 5, &B));
  PetscCall(As(H, F, &X));
  PetscCall(MatConvert(B, MATSEQDENSE, MAT_INITIAL_MATRIX, &Xb));
  PetscCall(MatMatMult(H, Xb, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Dr));
  PetscCall(MatCreateDense(PETSC_COMM_SELF, 200, 5, 200, 5, NULL, &D));
  PetscCall(MatProductCreateWithMat(X, Xb, NULL, D));
  PetscCall(MatProductSetType(D, MATPRODUCT_AB));
  PetscCall(MatProductSetFromOptions(D));
  PetscCall(MatProductSymbolic(D));
  PetscCall(MatProductNumeric(D));
  PetscCall(CheckSame(D, Dr, "AB into the caller's seqdense"));
  PetscCall(MatProductNumeric(D));
  PetscCall(CheckSame(D, Dr, "AB into the caller's seqdense, second numeric phase"));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&Dr));
  PetscCall(MatDestroy(&Xb));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&H));

  /* A bound to the CPU (MatBindToCPU()): the product takes the host path, as aijcusparse's does; the same type and
     entries as aijcusparse bound alike, the entries of seqaij's; A unbound afterwards multiplies through its format */
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  AB and PtAP with A F bound to the CPU, B and P aijcusparse\n"));
  {
    Mat Dh, P, Pr, E, Er, Eh;

    PetscCall(RandomAIJ(120, 120, 6, &H));
    PetscCall(RandomAIJ(120, 40, 4, &B));
    PetscCall(As(H, F, &X));
    PetscCall(As(H, MATSEQAIJCUSPARSE, &R));
    PetscCall(As(B, MATSEQAIJCUSPARSE, &P));
    PetscCall(As(B, MATSEQAIJCUSPARSE, &Pr));
    PetscCall(MatScale(X, 2.0)); /* values newer on the GPU than on the host before the binding */
    PetscCall(MatScale(R, 2.0));
    PetscCall(MatScale(H, 2.0));
    PetscCall(MatBindToCPU(X, PETSC_TRUE));
    PetscCall(MatBindToCPU(R, PETSC_TRUE));
    PetscCall(MatMatMult(X, P, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &D));
    PetscCall(MatMatMult(R, Pr, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Dr));
    PetscCall(MatMatMult(H, B, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Dh));
    PetscCall(CheckType(D, Expected(Dr), "AB with A bound to the CPU"));
    PetscCall(CheckSame(D, Dh, "AB with A bound to the CPU"));
    PetscCall(CheckSame(Dr, Dh, "AB with aijcusparse's A bound to the CPU (the reference itself)"));
    PetscCall(MatPtAP(X, P, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &E));
    PetscCall(MatPtAP(R, Pr, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Er));
    PetscCall(MatPtAP(H, B, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Eh));
    PetscCall(CheckType(E, Expected(Er), "PtAP with A bound to the CPU"));
    PetscCall(CheckSame(E, Eh, "PtAP with A bound to the CPU"));
    PetscCall(CheckSame(Er, Eh, "PtAP with aijcusparse's A bound to the CPU (the reference itself)"));
    PetscCall(MatBindToCPU(X, PETSC_FALSE));
    PetscCall(CheckMult(X, H, "A unbound after products bound to the CPU"));
    PetscCall(MatDestroy(&E));
    PetscCall(MatDestroy(&Er));
    PetscCall(MatDestroy(&Eh));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&Dr));
    PetscCall(MatDestroy(&Dh));
    PetscCall(MatDestroy(&P));
    PetscCall(MatDestroy(&Pr));
    PetscCall(MatDestroy(&X));
    PetscCall(MatDestroy(&R));
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&H));
  }

  /* B a MATTRANSPOSEVIRTUAL (MatCreateTranspose()): its own "anytype" hook handles the product, as for aijcusparse */
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  AB with A F, B transpose-virtual of F\n"));
  {
    Mat            Ht, Y, Yr, T, Tr;
    PetscErrorCode ierr, rierr;

    PetscCall(RandomAIJ(120, 90, 6, &H));
    PetscCall(RandomAIJ(70, 90, 5, &Ht));
    PetscCall(As(H, F, &X));
    PetscCall(As(H, MATSEQAIJCUSPARSE, &R));
    PetscCall(As(Ht, F, &Y));
    PetscCall(As(Ht, MATSEQAIJCUSPARSE, &Yr));
    PetscCall(MatCreateTranspose(Y, &T));
    PetscCall(MatCreateTranspose(Yr, &Tr));
    D = Dr = NULL;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); /* ours must fail exactly when aijcusparse fails */
    rierr = MatMatMult(R, Tr, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Dr);
    ierr  = MatMatMult(X, T, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &D);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(!ierr == !rierr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "AB with a transpose-virtual B: error %d with %s, %d with aijcusparse", (int)ierr, F, (int)rierr);
    if (rierr) PetscCall(PetscPrintf(PETSC_COMM_SELF, "    not supported with aijcusparse either (error %d)\n", (int)rierr));
    else {
      PetscCall(CheckType(D, Expected(Dr), "AB with a transpose-virtual B"));
      PetscCall(CheckSame(D, Dr, "AB with a transpose-virtual B"));
    }
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&Dr));
    PetscCall(MatDestroy(&T));
    PetscCall(MatDestroy(&Tr));
    PetscCall(MatDestroy(&Y));
    PetscCall(MatDestroy(&Yr));
    PetscCall(MatDestroy(&X));
    PetscCall(MatDestroy(&R));
    PetscCall(MatDestroy(&Ht));
    PetscCall(MatDestroy(&H));
  }

  /* the interpolation of a DMDA of 3 fields: a host MAIJ, which moves to the GPU as an explicit aijcusparse matrix */
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  PtAP with A F, P seqmaij of 3 fields\n"));
  {
    Mat P, Pm, Pr;

    PetscCall(RandomAIJ(300, 300, 9, &H));
    PetscCall(RandomAIJ(100, 40, 3, &P));
    PetscCall(As(H, F, &X));
    PetscCall(As(H, MATSEQAIJCUSPARSE, &R));
    PetscCall(MatCreateMAIJ(P, 3, &Pm));
    PetscCall(MatConvert(Pm, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &Pr));
    PetscCall(MatPtAP(X, Pm, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &D));
    PetscCall(MatPtAP(R, Pr, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Dr));
    PetscCall(CheckType(Pm, MATSEQAIJCUSPARSE, "a MAIJ operand of a product with ours"));
    PetscCall(CheckProduct(D, Dr, F, "PtAP with a MAIJ P"));
    PetscCall(MatScale(X, 2.0));
    PetscCall(MatScale(R, 2.0));
    PetscCall(MatPtAP(X, Pm, MAT_REUSE_MATRIX, PETSC_DETERMINE, &D));
    PetscCall(MatPtAP(R, Pr, MAT_REUSE_MATRIX, PETSC_DETERMINE, &Dr));
    PetscCall(CheckProduct(D, Dr, F, "PtAP with a MAIJ P, reused"));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&Dr));
    PetscCall(MatDestroy(&Pm));
    PetscCall(MatDestroy(&Pr));
    PetscCall(MatDestroy(&P));
    PetscCall(MatDestroy(&X));
    PetscCall(MatDestroy(&R));
    PetscCall(MatDestroy(&H));
  }

  /* A newer on the GPU than on the host (after MatScale(), as after MatSetValuesCOO() with device values): PETSc 3.22's
     cuSPARSE PtAP, RARt and ABC (MatProductSymbolic_ABC_Basic()) then mark their intermediate product unallocated, upload
     its uninitialized host values over the device ones and keep that result in their first numeric phase, so
     aijcusparse's own result is wrong there; ours bring the operands' host values up to date before the symbolic phase.
     A is scaled once, so that stale host values of A would show too. Against seqaij with the same values. */
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  PtAP, RARt and ABC with A F newer on the GPU than on the host\n"));
  {
    Mat         P, Pt, Px, Rx, Hd, H2;
    const char *names[] = {"PtAP", "RARt", "ABC"};

    PetscCall(RandomAIJ(200, 200, 6, &H));
    PetscCall(MatDuplicate(H, MAT_COPY_VALUES, &H2));
    PetscCall(MatScale(H2, 2.0));
    PetscCall(RandomAIJ(200, 60, 3, &P));
    PetscCall(MatTranspose(P, MAT_INITIAL_MATRIX, &Pt));
    PetscCall(As(P, F, &Px));
    PetscCall(As(Pt, F, &Rx));
    for (PetscInt k = 0; k < 3; k++) {
      char msg[128];

      PetscCall(As(H, F, &X));
      PetscCall(MatScale(X, 2.0)); /* the values of H2, on the GPU only */
      PetscCheck(X->offloadmask == PETSC_OFFLOAD_GPU, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatScale() left %s's values %s", F, PetscOffloadMaskToString(X->offloadmask));
      if (k == 0) {
        PetscCall(MatPtAP(X, Px, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &D));
        PetscCall(MatPtAP(H2, P, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Hd));
      } else if (k == 1) {
        PetscCall(MatRARt(X, Rx, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &D));
        PetscCall(MatRARt(H2, Pt, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Hd));
      } else {
        PetscCall(MatMatMatMult(Rx, X, Px, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &D));
        PetscCall(MatMatMatMult(Pt, H2, P, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Hd));
      }
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s with A newer on the GPU", names[k]));
      PetscCall(CheckSame(D, Hd, msg));
      PetscCall(CheckMult(D, Hd, msg));
      PetscCall(MatDestroy(&D));
      PetscCall(MatDestroy(&Hd));
      PetscCall(MatDestroy(&X));
    }
    PetscCall(MatDestroy(&Px));
    PetscCall(MatDestroy(&Rx));
    PetscCall(MatDestroy(&Pt));
    PetscCall(MatDestroy(&P));
    PetscCall(MatDestroy(&H2));
    PetscCall(MatDestroy(&H));
  }

  /* a matrix without entries */
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  PtAP with P F without entries\n"));
  {
    Mat P, Px, Pr;

    PetscCall(RandomAIJ(100, 100, 6, &H));
    PetscCall(RandomAIJ(100, 40, 0, &P));
    PetscCall(As(H, F, &X));
    PetscCall(As(H, MATSEQAIJCUSPARSE, &R));
    PetscCall(As(P, F, &Px));
    PetscCall(As(P, MATSEQAIJCUSPARSE, &Pr));
    PetscCall(MatPtAP(X, Px, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &D));
    PetscCall(MatPtAP(R, Pr, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Dr));
    PetscCall(CheckSame(D, Dr, "PtAP with an empty P"));
    PetscCall(CheckMult(D, Dr, "PtAP with an empty P"));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&Dr));
    PetscCall(MatDestroy(&Px));
    PetscCall(MatDestroy(&Pr));
    PetscCall(MatDestroy(&P));
    PetscCall(MatDestroy(&X));
    PetscCall(MatDestroy(&R));
    PetscCall(MatDestroy(&H));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestProducts(void)
{
  const MatProductType types[]    = {MATPRODUCT_AB, MATPRODUCT_AtB, MATPRODUCT_ABt, MATPRODUCT_PtAP, MATPRODUCT_RARt};
  const Kind           pairs[][2] = {
                {KF,    KF   },
                {KF,    KG   },
                {KF,    KCUSP},
                {KCUSP, KF   },
                {KF,    KAIJ },
                {KAIJ,  KF   }
  };
  /* not {KCUSP, KF, KAIJ}: PETSc 3.22.5 itself crashes (SEGV, H100) on ABC of aijcusparse A and B with a seqaij C,
     in the reference run */
  const Kind triples[][3] = {
      {KF,    KF,    KF  },
      {KF,    KCUSP, KG  },
      {KCUSP, KF,    KG  },
      {KF,    KF,    KAIJ},
      {KF,    KAIJ,  KF  }
  };

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "products of %s (G = %s)\n", F, G));
  for (size_t t = 0; t < PETSC_STATIC_ARRAY_LENGTH(types); t++)
    for (size_t p = 0; p < PETSC_STATIC_ARRAY_LENGTH(pairs); p++) {
      ProductCase pc = {types[t], pairs[p][0], pairs[p][1], KF};

      /* PETSc 3.22.5 crashes on ABt and RARt of a seqaij A with an aijcusparse B itself: MatTransposeSymbolic_SeqAIJ()
         gives B's transpose B's type, aijcusparse, without values, and its conversion reads them (SEGV, seen on an H100) */
      if ((types[t] == MATPRODUCT_ABt || types[t] == MATPRODUCT_RARt) && pairs[p][0] == KAIJ) continue;
      PetscCall(RunProductCase(&pc, PETSC_FALSE));
    }
  for (size_t p = 0; p < PETSC_STATIC_ARRAY_LENGTH(triples); p++) {
    ProductCase pc = {MATPRODUCT_ABC, triples[p][0], triples[p][1], triples[p][2]};

    PetscCall(RunProductCase(&pc, PETSC_FALSE));
  }
  {
    ProductCase pc = {MATPRODUCT_PtAP, KF, KF, KF};

    PetscCall(RunProductCase(&pc, PETSC_TRUE));
  }
  PetscCall(RunProductSpecial());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ inherited operations */

/* The type a derived matrix of ours must have: ours where aijcusparse's is aijcusparse, else aijcusparse's */
static MatType Expected(Mat Rderived)
{
  PetscBool cusp = PETSC_FALSE;

  PetscCallAbort(PETSC_COMM_SELF, PetscObjectTypeCompare((PetscObject)Rderived, MATSEQAIJCUSPARSE, &cusp));
  return cusp ? F : ((PetscObject)Rderived)->type_name;
}

/* M[0] (ours), M[1] (aijcusparse) and M[2] (seqaij) hold the same matrix: entries, type, products */
static PetscErrorCode CheckTriple(Mat M[3], const char *what)
{
  PetscFunctionBeginUser;
  PetscCall(CheckType(M[0], Expected(M[1]), what));
  PetscCall(CheckSame(M[0], M[1], what));
  PetscCall(CheckSame(M[0], M[2], what));
  PetscCall(CheckMult(M[0], M[2], what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Square n x n with integer entries, most rows with a diagonal entry, every seventh without (MatShift then adds it) */
static PetscErrorCode SquareWithGaps(PetscInt n, Mat *H)
{
  Mat T;

  PetscFunctionBeginUser;
  PetscCall(RandomAIJ(n, n, 8, &T));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 10, NULL, H));
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           nc;

    PetscCall(MatGetRow(T, i, &nc, &cols, &vals));
    for (PetscInt k = 0; k < nc; k++)
      if (cols[k] != i || i % 7) PetscCall(MatSetValue(*H, i, cols[k], vals[k], INSERT_VALUES));
    PetscCall(MatRestoreRow(T, i, &nc, &cols, &vals));
    if (i % 7) PetscCall(MatSetValue(*H, i, i, 10.0 + i % 5, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*H, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*H, MAT_FINAL_ASSEMBLY));
  PetscCall(MatDestroy(&T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The first entry of each row and the diagonal, where present: a pattern inside the given one */
static PetscErrorCode SubsetPattern(Mat C, Mat *X)
{
  PetscInt n;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(C, &n, NULL));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 2, NULL, X));
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           nc;

    PetscCall(MatGetRow(C, i, &nc, &cols, &vals));
    for (PetscInt k = 0; k < nc; k++)
      if (k == 0 || cols[k] == i) PetscCall(MatSetValue(*X, i, cols[k], 3.0, INSERT_VALUES));
    PetscCall(MatRestoreRow(C, i, &nc, &cols, &vals));
  }
  PetscCall(MatAssemblyBegin(*X, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*X, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatAXPY(M[w], a, X, str) with X made from the host matrix Xh: as aijcusparse for ours and aijcusparse (or as ours,
   for ours, with xours), as seqaij for seqaij */
static PetscErrorCode AXPYAll(Mat M[3], Mat Xh, PetscBool xours, MatStructure str, const char *what)
{
  PetscFunctionBeginUser;
  for (PetscInt w = 0; w < 3; w++) {
    Mat X;

    PetscCall(As(Xh, w == 2 ? MATSEQAIJ : (w == 0 && xours ? F : MATSEQAIJCUSPARSE), &X));
    PetscCall(MatAXPY(M[w], 0.5, X, str));
    PetscCall(MatDestroy(&X));
  }
  PetscCall(CheckTriple(M, what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestInherited(void)
{
  const PetscInt n = 400, zrows[] = {0, 5, 17, 200, 399};
  Mat            H, M[3], S[3], T[3], Xh;
  IS             isr, isc;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "inherited operations of %s\n", F));
  PetscCall(SquareWithGaps(n, &H));
  PetscCall(As(H, F, &M[0]));
  PetscCall(As(H, MATSEQAIJCUSPARSE, &M[1]));
  PetscCall(As(H, MATSEQAIJ, &M[2]));
  PetscCall(CheckTriple(M, "conversion"));

  {
    Vec       d[3];
    PetscReal nrm;

    for (PetscInt w = 0; w < 3; w++) {
      PetscCall(MatCreateVecs(M[w], &d[w], NULL));
      PetscCall(MatGetDiagonal(M[w], d[w]));
    }
    for (PetscInt w = 0; w < 2; w++) {
      PetscCall(VecAXPY(d[w], -1.0, d[2]));
      PetscCall(VecNorm(d[w], NORM_INFINITY, &nrm));
      PetscCheck(nrm == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatGetDiagonal of %s differs from seqaij's by %g", ((PetscObject)M[w])->type_name, (double)nrm);
    }
    for (PetscInt w = 0; w < 3; w++) PetscCall(VecDestroy(&d[w]));
    nchecks++;
  }

  for (PetscInt w = 0; w < 3; w++) PetscCall(MatScale(M[w], 2.5));
  PetscCall(CheckTriple(M, "MatScale"));

  for (PetscInt w = 0; w < 3; w++) {
    Vec          l, r;
    PetscScalar *a;

    PetscCall(MatCreateVecs(M[w], &r, &l));
    PetscCall(VecGetArrayWrite(l, &a));
    for (PetscInt i = 0; i < n; i++) a[i] = 1 + i % 3;
    PetscCall(VecRestoreArrayWrite(l, &a));
    PetscCall(VecGetArrayWrite(r, &a));
    for (PetscInt i = 0; i < n; i++) a[i] = 0.5 + (i % 4) / 4.0;
    PetscCall(VecRestoreArrayWrite(r, &a));
    PetscCall(MatDiagonalScale(M[w], l, r));
    PetscCall(VecDestroy(&l));
    PetscCall(VecDestroy(&r));
  }
  PetscCall(CheckTriple(M, "MatDiagonalScale"));

  for (PetscInt w = 0; w < 3; w++) PetscCall(MatShift(M[w], 1.5)); /* adds the missing diagonal entries: a new pattern */
  PetscCall(CheckTriple(M, "MatShift"));

  PetscCall(MatDuplicate(M[2], MAT_COPY_VALUES, &Xh));
  PetscCall(AXPYAll(M, Xh, PETSC_FALSE, SAME_NONZERO_PATTERN, "MatAXPY with aijcusparse, same pattern"));
  PetscCall(AXPYAll(M, Xh, PETSC_TRUE, SAME_NONZERO_PATTERN, "MatAXPY with ours, same pattern"));
  PetscCall(MatDestroy(&Xh));
  PetscCall(SubsetPattern(M[2], &Xh));
  PetscCall(AXPYAll(M, Xh, PETSC_FALSE, SUBSET_NONZERO_PATTERN, "MatAXPY with aijcusparse, subset pattern"));
  PetscCall(AXPYAll(M, Xh, PETSC_TRUE, SUBSET_NONZERO_PATTERN, "MatAXPY with ours, subset pattern"));
  PetscCall(MatDestroy(&Xh));
  PetscCall(RandomAIJ(n, n, 3, &Xh));
  PetscCall(AXPYAll(M, Xh, PETSC_FALSE, DIFFERENT_NONZERO_PATTERN, "MatAXPY with aijcusparse, different pattern"));
  PetscCall(MatDestroy(&Xh));
  PetscCall(RandomAIJ(n, n, 3, &Xh));
  PetscCall(AXPYAll(M, Xh, PETSC_TRUE, DIFFERENT_NONZERO_PATTERN, "MatAXPY with ours, different pattern"));
  PetscCall(MatDestroy(&Xh));

  for (PetscInt w = 0; w < 3; w++) PetscCall(MatZeroRows(M[w], 5, zrows, 2.0, NULL, NULL));
  PetscCall(CheckTriple(M, "MatZeroRows"));
  for (PetscInt w = 0; w < 3; w++) {
    PetscCall(MatSetOption(M[w], MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
    PetscCall(MatZeroRows(M[w], 3, zrows + 1, 0.0, NULL, NULL));
    PetscCall(MatSetOption(M[w], MAT_KEEP_NONZERO_PATTERN, PETSC_FALSE));
  }
  PetscCall(CheckTriple(M, "MatZeroRows keeping the pattern"));
  for (PetscInt w = 0; w < 3; w++) PetscCall(MatZeroRowsColumns(M[w], 2, zrows + 2, 1.0, NULL, NULL));
  PetscCall(CheckTriple(M, "MatZeroRowsColumns"));

  PetscCall(ISCreateStride(PETSC_COMM_SELF, 150, 3, 2, &isr));
  PetscCall(ISCreateStride(PETSC_COMM_SELF, n / 3, 0, 3, &isc));
  for (PetscInt w = 0; w < 3; w++) PetscCall(MatCreateSubMatrix(M[w], isr, isc, MAT_INITIAL_MATRIX, &S[w]));
  PetscCall(CheckTriple(S, "MatCreateSubMatrix"));
  for (PetscInt w = 0; w < 3; w++) {
    PetscCall(MatScale(M[w], -1.0));
    PetscCall(MatCreateSubMatrix(M[w], isr, isc, MAT_REUSE_MATRIX, &S[w]));
  }
  PetscCall(CheckTriple(S, "MatCreateSubMatrix, reused"));
  for (PetscInt w = 0; w < 3; w++) PetscCall(MatDestroy(&S[w]));
  PetscCall(ISDestroy(&isr));
  PetscCall(ISDestroy(&isc));

  for (PetscInt w = 0; w < 3; w++) PetscCall(MatTranspose(M[w], MAT_INITIAL_MATRIX, &T[w]));
  PetscCall(CheckTriple(T, "MatTranspose"));
  for (PetscInt w = 0; w < 3; w++) {
    PetscCall(MatScale(M[w], 2.0));
    PetscCall(MatTranspose(M[w], MAT_REUSE_MATRIX, &T[w]));
  }
  PetscCall(CheckTriple(T, "MatTranspose, reused"));
  for (PetscInt w = 0; w < 3; w++) { /* in place, on copies whose format was built before */
    PetscCall(MatDestroy(&T[w]));
    PetscCall(MatDuplicate(M[w], MAT_COPY_VALUES, &T[w]));
  }
  PetscCall(CheckTriple(T, "MatDuplicate"));
  for (PetscInt w = 0; w < 3; w++) PetscCall(MatTranspose(T[w], MAT_INPLACE_MATRIX, &T[w]));
  PetscCall(CheckTriple(T, "MatTranspose in place"));
  for (PetscInt w = 0; w < 3; w++) PetscCall(MatDestroy(&T[w]));

  for (PetscInt w = 0; w < 3; w++) PetscCall(MatConvert(M[w], MATSEQDENSE, MAT_INITIAL_MATRIX, &T[w]));
  PetscCall(CheckSame(T[0], T[2], "MatConvert to seqdense"));
  PetscCall(CheckSame(T[1], T[2], "MatConvert of aijcusparse to seqdense"));
  for (PetscInt w = 0; w < 3; w++) PetscCall(MatDestroy(&T[w]));
  for (PetscInt w = 0; w < 2; w++) PetscCall(MatConvert(M[w], MATSEQDENSECUDA, MAT_INITIAL_MATRIX, &T[w]));
  PetscCall(MatConvert(M[2], MATSEQDENSE, MAT_INITIAL_MATRIX, &T[2]));
  PetscCall(CheckSame(T[0], T[1], "MatConvert to seqdensecuda"));
  PetscCall(CheckSame(T[0], T[2], "MatConvert to seqdensecuda against seqaij"));
  for (PetscInt w = 0; w < 3; w++) PetscCall(MatDestroy(&T[w]));

  { /* MatConvert() to our parallel type's name on one process gives that type, as aijcusparse to mpiaijcusparse does */
    char mpitype[64];
    Mat  P;

    PetscCall(PetscSNPrintf(mpitype, sizeof(mpitype), "mpi%s", F + 3));
    PetscCall(MatConvert(M[0], mpitype, MAT_INITIAL_MATRIX, &P));
    PetscCall(CheckType(P, mpitype, "MatConvert to the parallel type on one process"));
    PetscCall(CheckMult(P, M[2], "MatConvert to the parallel type on one process"));
    PetscCall(MatDestroy(&P));
  }

  for (PetscInt w = 0; w < 3; w++) {
    PetscCall(MatGetDiagonalBlock(M[w], &T[w]));
    PetscCall(PetscObjectReference((PetscObject)T[w]));
  }
  PetscCall(CheckTriple(T, "MatGetDiagonalBlock"));
  for (PetscInt w = 0; w < 3; w++) PetscCall(MatDestroy(&T[w]));

  for (PetscInt w = 0; w < 3; w++) PetscCall(MatDestroy(&M[w]));
  PetscCall(MatDestroy(&H));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ preconditioners */

/* Symmetric positive definite, block size 3: dense 3 x 3 diagonal blocks, -I to the neighbouring blocks and a few
   couplings two blocks away */
static PetscErrorCode BlockSPD(PetscInt nb, Mat *H)
{
  const PetscInt bs = 3;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_SELF, H));
  PetscCall(MatSetSizes(*H, nb * bs, nb * bs, nb * bs, nb * bs));
  PetscCall(MatSetBlockSize(*H, bs));
  PetscCall(MatSetType(*H, MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocation(*H, 15, NULL));
  for (PetscInt b = 0; b < nb; b++) {
    const PetscScalar blk[9] = {8.0 + b % 3, 1, 0.5, 1, 9, 1, 0.5, 1, 10};
    PetscInt          idx[3] = {b * bs, b * bs + 1, b * bs + 2};

    PetscCall(MatSetValues(*H, 3, idx, 3, idx, blk, INSERT_VALUES));
    for (PetscInt k = 0; k < bs; k++) {
      if (b + 1 < nb) {
        PetscCall(MatSetValue(*H, idx[k], idx[k] + bs, -1.0, INSERT_VALUES));
        PetscCall(MatSetValue(*H, idx[k] + bs, idx[k], -1.0, INSERT_VALUES));
      }
      if (b + 2 < nb && b % 5 == 0) {
        PetscCall(MatSetValue(*H, idx[k], idx[k] + 2 * bs, -0.5, INSERT_VALUES));
        PetscCall(MatSetValue(*H, idx[k] + 2 * bs, idx[k], -0.5, INSERT_VALUES));
      }
    }
  }
  PetscCall(MatAssemblyBegin(*H, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*H, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One preconditioner on ours (A) and on aijcusparse (R): the same path and the same result */
/* The factor of a preconditioner of A (one of ours) ends as one of aijcusparse does: without the functions composed on
   A, which PETSc's symbolic factorization copies onto it (what -checkfunctionlist lists at its destruction) */
static PetscErrorCode CheckFactorFunctions(PC pc, const char *what)
{
  Mat  Fm;
  char name[128];
  void (*f)(void) = NULL;

  PetscFunctionBeginUser;
  PetscCall(PCFactorGetMatrix(pc, &Fm));
  PetscCall(PetscObjectQueryFunction((PetscObject)Fm, "MatProductSetFromOptions_anytype_C", &f));
  PetscCheck(!f, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the factor keeps MatProductSetFromOptions_anytype_C of the matrix", what);
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_seqaijcusparse_C", F));
  PetscCall(PetscObjectQueryFunction((PetscObject)Fm, name, &f));
  PetscCheck(!f, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the factor keeps %s of the matrix", what, name);
  nchecks++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PC type on A (ours) and on R (aijcusparse): the same path, solver and result; named: the factorization's solver named
   (cusparse), which PETSc looks up by type-name prefix */
static PetscErrorCode ComparePC(Mat A, Mat R, PCType type, PetscBool named)
{
  PC            pc[2];
  Mat           M[2] = {A, R};
  Vec           x, y[2];
  PetscReal     nrm, diff;
  PetscBool     factor;
  MatSolverType st[2] = {NULL, NULL};
  char          what[128];
  PetscErrorCode (*apply[2])(PC, Vec, Vec);

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s with %s%s", type, F, named ? ", solver cusparse named" : ""));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %s\n", what));
  PetscCall(MatCreateVecs(R, &x, NULL));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(PetscStrcmpAny(type, &factor, PCILU, PCICC, PCLU, PCCHOLESKY, ""));
  for (PetscInt w = 0; w < 2; w++) {
    PetscCall(PCCreate(PETSC_COMM_SELF, &pc[w]));
    PetscCall(PCSetOperators(pc[w], M[w], M[w]));
    PetscCall(PCSetType(pc[w], type));
    if (named) PetscCall(PCFactorSetMatSolverType(pc[w], MATSOLVERCUSPARSE));
    PetscCall(PCSetUp(pc[w]));
    PetscCall(MatCreateVecs(M[w], NULL, &y[w]));
    PetscCall(PCApply(pc[w], x, y[w]));
    apply[w] = pc[w]->ops->apply;
    if (factor) PetscCall(PCFactorGetMatSolverType(pc[w], &st[w]));
  }
  PetscCheck(apply[0] == apply[1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the preconditioner takes another path than with aijcusparse", what);
  if (factor) {
    PetscBool same;

    PetscCall(PetscStrcmp(st[0], st[1], &same));
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: factorization by %s, with aijcusparse by %s", what, st[0], st[1]);
    PetscCall(CheckFactorFunctions(pc[0], what));
  }
  PetscCall(VecNorm(y[1], NORM_2, &nrm));
  PetscCall(VecAXPY(y[0], -1.0, y[1]));
  PetscCall(VecNorm(y[0], NORM_2, &diff));
  PetscCheck(diff <= 1e-12 * nrm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: applies differently from aijcusparse (relative difference %g)", what, (double)(diff / nrm));
  nchecks++;
  for (PetscInt w = 0; w < 2; w++) {
    PetscCall(PCDestroy(&pc[w]));
    PetscCall(VecDestroy(&y[w]));
  }
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestPC(void)
{
  const PCType   types[] = {PCJACOBI, PCPBJACOBI, PCVPBJACOBI, PCILU, PCICC, PCLU, PCCHOLESKY, PCBJACOBI};
  const PetscInt nb = 200, n = 3 * nb;
  Mat            H, A, R;
  PetscInt      *bsizes, nblocks = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "preconditioners with %s\n", F));
  PetscCall(BlockSPD(nb, &H));
  PetscCall(As(H, F, &A));
  PetscCall(As(H, MATSEQAIJCUSPARSE, &R));
  /* variable blocks of 1, 2 and 3 rows for PCVPBJACOBI; they do not cut the dense blocks of 3 in a way that matters */
  PetscCall(PetscMalloc1(n, &bsizes));
  for (PetscInt r = 0; r < n; nblocks++) {
    bsizes[nblocks] = PetscMin(1 + nblocks % 3, n - r);
    r += bsizes[nblocks];
  }
  PetscCall(MatSetVariableBlockSizes(A, nblocks, bsizes));
  PetscCall(MatSetVariableBlockSizes(R, nblocks, bsizes));
  for (size_t t = 0; t < PETSC_STATIC_ARRAY_LENGTH(types); t++) PetscCall(ComparePC(A, R, types[t], PETSC_FALSE));
  PetscCall(ComparePC(A, R, PCILU, PETSC_TRUE));
  PetscCall(ComparePC(A, R, PCICC, PETSC_TRUE));
  PetscCall(CheckType(A, F, "after the preconditioners"));
  PetscCall(PetscFree(bsizes));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&H));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char      format[64] = "cmrs", test[64] = "all";
  PetscBool all;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUFormatsInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-format", format, sizeof(format), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-test", test, sizeof(test), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-verbose", &verbose, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 20261125));
  PetscCall(PetscRandomSeed(rnd));
  {
    const char *names[] = {"cmrs", "sellcs", "bce", "dia", "hyb", "ell", "argcsr", "gpuauto"};
    MatType     types[] = {MATSEQCMRS, MATSEQSELLCS, MATSEQBCE, MATSEQDIA, MATSEQHYB, MATSEQELL, MATSEQARGCSR, MATSEQGPUAUTO};

    F = NULL;
    G = MATSEQCMRS;
    for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(names); i++) {
      PetscBool match;

      PetscCall(PetscStrcmp(format, names[i], &match));
      if (match) F = types[i];
      if (match && i == 0) G = MATSEQBCE; /* another of ours than the one under test */
    }
    PetscCheck(F, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-format %s: cmrs, sellcs, bce, dia, hyb, ell, argcsr or gpuauto", format);
  }
  PetscCall(PetscStrcmp(test, "all", &all));
  {
    PetscBool p, i, c;

    PetscCall(PetscStrcmp(test, "products", &p));
    PetscCall(PetscStrcmp(test, "inherited", &i));
    PetscCall(PetscStrcmp(test, "pc", &c));
    PetscCheck(all || p || i || c, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-test %s: products, inherited, pc or all", test);
    if (all || p) PetscCall(TestProducts());
    if (all || i) PetscCall(TestInherited());
    if (all || c) PetscCall(TestPC());
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%" PetscInt_FMT " checks passed\n", nchecks));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}

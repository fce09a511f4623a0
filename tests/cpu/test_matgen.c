static const char help[] = "The benchmark's test matrices: every generator at a small size, written and read back as PETSc binary and Matrix Market.\n";

/*
   For every kind of examples/matgen.c at a small size: its shape (entries per row, columns) as documented, and
   the round trip through a PETSc binary file and a Matrix Market file (MatEqual). Then Matrix Market files
   with symmetric, skew-symmetric and pattern entries, repeated entries and comments, against the matrices they
   describe, and a file that is not one.
*/
#include "matgen.h"

static PetscErrorCode RoundTrip(Mat A, const char *name)
{
  char        bin[PETSC_MAX_PATH_LEN], mtx[PETSC_MAX_PATH_LEN];
  PetscViewer viewer;
  Mat         B;
  PetscBool   eq;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(bin, sizeof(bin), "matgen-%s.dat", name));
  PetscCall(PetscSNPrintf(mtx, sizeof(mtx), "matgen-%s.mtx", name));
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_SELF, bin, FILE_MODE_WRITE, &viewer));
  PetscCall(MatView(A, viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  PetscCall(MatGenLoad(bin, &B));
  PetscCall(MatEqual(A, B, &eq));
  PetscCheck(eq, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the PETSc binary file does not read back", name);
  PetscCall(MatDestroy(&B));
  PetscCall(MatGenWriteMatrixMarket(A, mtx));
  PetscCall(MatGenLoad(mtx, &B));
  PetscCall(MatEqual(A, B, &eq));
  PetscCheck(eq, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the Matrix Market file does not read back", name);
  PetscCall(MatDestroy(&B));
  PetscCall(PetscOptionsClearValue(NULL, "-matrix")); /* the files stay for a look; ctest's directory is the build's */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Generates kind with the options given as "-opt value ...", checks m x n, the entry count range and the row lengths */
static PetscErrorCode Check(const char *kind, const char *opts, PetscInt m, PetscInt n, PetscInt64 nnzlo, PetscInt64 nnzhi, PetscInt minrow, PetscInt maxrow)
{
  Mat        A;
  char       name[256], params[256];
  PetscInt   am, an, maxlen;
  PetscInt64 nnz;
  PetscReal  mean, std;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsClear(NULL));
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCall(PetscOptionsSetValue(NULL, "-matrix", kind));
  PetscCall(MatGenFromOptions(&A, name, sizeof(name), params, sizeof(params)));
  PetscCall(MatGetSize(A, &am, &an));
  PetscCall(MatGenRowStatistics(A, &nnz, &mean, &std, &maxlen));
  PetscCheck(am == m && an == n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %" PetscInt_FMT " x %" PetscInt_FMT ", expected %" PetscInt_FMT " x %" PetscInt_FMT, kind, am, an, m, n);
  PetscCheck(nnz >= nnzlo && nnz <= nnzhi && maxlen <= maxrow, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %" PetscInt64_FMT " entries (expected %" PetscInt64_FMT " to %" PetscInt64_FMT "), longest row %" PetscInt_FMT, kind, nnz, nnzlo, nnzhi, maxlen);
  for (PetscInt i = 0; i < am; i++) {
    PetscInt ncols;

    PetscCall(MatGetRow(A, i, &ncols, NULL, NULL));
    PetscCheck(ncols >= minrow, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: row %" PetscInt_FMT " has %" PetscInt_FMT " entries, fewer than %" PetscInt_FMT, kind, i, ncols, minrow);
    PetscCall(MatRestoreRow(A, i, &ncols, NULL, NULL));
  }
  PetscCall(RoundTrip(A, kind));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-12s %s: %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt64_FMT " entries, rows %.2f +- %.2f, longest %" PetscInt_FMT "\n", kind, params, am, an, nnz, (double)mean, (double)std, maxlen));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A Matrix Market text against the dense matrix it describes */
static PetscErrorCode CheckText(const char *text, PetscInt m, PetscInt n, const PetscScalar *dense)
{
  FILE     *fp = fopen("matgen-text.mtx", "w");
  Mat       A, D;
  PetscBool eq;

  PetscFunctionBeginUser;
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write matgen-text.mtx");
  fputs(text, fp);
  fclose(fp);
  PetscCall(MatGenLoad("matgen-text.mtx", &A));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, m, n, n, NULL, &D));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt j = 0; j < n; j++)
      if (dense[i * n + j] != 0.0) PetscCall(MatSetValue(D, i, j, dense[i * n + j], INSERT_VALUES));
  PetscCall(MatAssemblyBegin(D, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(D, MAT_FINAL_ASSEMBLY));
  PetscCall(MatEqual(A, D, &eq));
  PetscCheck(eq, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Matrix Market text read wrongly:\n%s", text);
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(Check("lap2d5", "-grid 20", 400, 400, 5 * 400 - 4 * 20, 5 * 400 - 4 * 20, 3, 5));
  PetscCall(Check("lap3d7", "-grid 8", 512, 512, 7 * 512 - 6 * 64, 7 * 512 - 6 * 64, 4, 7));
  PetscCall(Check("lap3d7", "-grid 8 -grid_z 4", 256, 256, 7 * 256 - 4 * 32 - 2 * 64, 7 * 256 - 4 * 32 - 2 * 64, 4, 7)); /* 8 x 8 x 4 */
  PetscCall(Check("lap3d27", "-grid 6", 216, 216, 8 * 8 + 12 * 4 * 12 + 6 * 16 * 18 + 64 * 27, 8 * 8 + 12 * 4 * 12 + 6 * 16 * 18 + 64 * 27, 8, 27));
  PetscCall(Check("banded", "-rows 300 -width 7", 300, 300, 300 * 7 - 2 * (1 + 2 + 3), 300 * 7, 1, 7));
  PetscCall(Check("longrows", "-rows 500 -long_rows 2 -long_len 300", 500, 500, 498 * 4 + 600, 498 * 4 + 600, 4, 300));
  PetscCall(Check("rmat", "-scale 9 -edge_factor 8", 512, 512, 1000, 512 * 8, 0, 512));
  PetscCall(Check("circuit", "-rows 3000 -circuit_long_rows 3 -circuit_long_len 200", 3000, 3000, 2 * 2997, 10 * 2997 + 3 * 400, 2, 400));
  PetscCall(Check("fem", "-rows 2000 -neighbours 12", 2000, 2000, 2000 * 6, 2000 * 13, 2, 13));
  PetscCall(Check("lp1", "-rows 1000 -dense_rows 2 -fraction 0.5", 1000, 1000, 998 * 2 + 800, 998 * 6 + 1200, 2, 600));
  PetscCall(Check("permutation", "-rows 777", 777, 777, 777, 777, 1, 1));
  PetscCall(Check("dense", "-rows 30 -cols 20", 30, 20, 600, 600, 20, 20));
  PetscCall(Check("lprect", "-rows 400 -dense_rows 3 -fraction 0.1", 400, 1600, 397 * 5, 397 * 40 + 3 * 250, 5, 250));
  {
    const PetscScalar sym[] = {4, 1, 0, 1, 0, 2, 0, 2, 5}, skew[] = {0, -3, 0, 3, 0, 0, 0, 0, 0}, pat[] = {1, 1, 0, 0, 0, 2};
    PetscErrorCode    ierr;
    Mat               A;

    PetscCall(CheckText("%%MatrixMarket matrix coordinate real symmetric\n% a comment\n3 3 4\n1 1 4\n2 1 1\n3 2 2\n3 3 5\n", 3, 3, sym));
    PetscCall(CheckText("%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 1\n2 1 3\n", 3, 3, skew));
    PetscCall(CheckText("%%MatrixMarket matrix coordinate pattern general\n2 3 4\n1 1\n1 2\n2 3\n2 3\n", 2, 3, pat)); /* a repeated entry adds */
    PetscCall(CheckText("%%MatrixMarket matrix coordinate real general\n3 3 0\n", 3, 3, (const PetscScalar[]){0, 0, 0, 0, 0, 0, 0, 0, 0}));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    {
      FILE *fp = fopen("matgen-bad.mtx", "w");

      fputs("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", fp);
      fclose(fp);
    }
    ierr = MatGenLoad("matgen-bad.mtx", &A);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr == PETSC_ERR_SUP, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a dense (array) Matrix Market file gave error %d, expected PETSC_ERR_SUP", (int)ierr);
    PetscCall(PetscOptionsClear(NULL));
    PetscCall(PetscOptionsInsertString(NULL, "-matrix lap2d5 -grid 4 -grid_z 2"));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    {
      char name[64], params[256];

      ierr = MatGenFromOptions(&A, name, sizeof(name), params, sizeof(params));
    }
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr == PETSC_ERR_USER_INPUT, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-grid_z with lap2d5 gave error %d, expected PETSC_ERR_USER_INPUT", (int)ierr);
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "every generator's shape and file round trip, and Matrix Market symmetric, skew, pattern and repeated entries: as documented\n"));
  PetscCall(PetscFinalize());
  return 0;
}

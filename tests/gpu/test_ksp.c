static const char help[] = "KSP solves with the petsc-gpuformats types take the iterations of aijcusparse.\n";

/*
   CG on a 2D Laplacian and unrestarted GMRES on a nonsymmetric convection-diffusion-reaction matrix, both with Jacobi, once
   with aijcusparse and once with each type of the plugin: the iteration counts must be equal and the
   solutions agree to the solver tolerance.
*/
#include <petscksp.h>
#include <petscgpuformats.h>

/* 5-point operator on an N x N grid: -laplacian + c (upwind d/dx) + r */
static PetscErrorCode Operator(PetscInt N, PetscReal c, PetscReal r, Mat *A)
{
  PetscFunctionBeginUser;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, N * N, N * N, 5, NULL, A));
  for (PetscInt i = 0; i < N; i++) {
    for (PetscInt j = 0; j < N; j++) {
      const PetscInt row = i * N + j;

      if (i > 0) PetscCall(MatSetValue(*A, row, row - N, -1.0, INSERT_VALUES));
      if (j > 0) PetscCall(MatSetValue(*A, row, row - 1, -1.0 - c, INSERT_VALUES));
      PetscCall(MatSetValue(*A, row, row, 4.0 + c + r, INSERT_VALUES));
      if (j < N - 1) PetscCall(MatSetValue(*A, row, row + 1, -1.0, INSERT_VALUES));
      if (i < N - 1) PetscCall(MatSetValue(*A, row, row + N, -1.0, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Solve(Mat H, MatType type, KSPType ksptype, Vec *x, PetscInt *its)
{
  Mat                A;
  Vec                b;
  KSP                ksp;
  KSPConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(MatConvert(H, type, MAT_INITIAL_MATRIX, &A));
  PetscCall(MatCreateVecs(A, x, &b));
  PetscCall(VecSet(*x, 1.0));
  PetscCall(MatMult(A, *x, b));
  PetscCall(VecSet(*x, 0.0));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, ksptype));
  {
    PC pc;

    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
  }
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_CURRENT, PETSC_CURRENT, 5000));
  /* no restart and a reorthogonalized basis: iteration counts then move with rounding only by accident */
  PetscCall(KSPGMRESSetRestart(ksp, 300));
  PetscCall(KSPGMRESSetCGSRefinementType(ksp, KSP_GMRES_CGS_REFINE_ALWAYS));
  PetscCall(KSPSolve(ksp, b, *x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCheck(reason > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s with %s did not converge: %s", ksptype, type, KSPConvergedReasons[reason]);
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Compare(PetscInt N, PetscReal c, PetscReal r, KSPType ksptype, MatType type)
{
  Mat       H;
  Vec       xref, x;
  PetscInt  itref, it;
  PetscReal diff, nrm;

  PetscFunctionBeginUser;
  PetscCall(Operator(N, c, r, &H));
  PetscCall(Solve(H, MATSEQAIJCUSPARSE, ksptype, &xref, &itref));
  PetscCall(Solve(H, type, ksptype, &x, &it));
  PetscCall(VecAXPY(x, -1.0, xref));
  PetscCall(VecNorm(x, NORM_2, &diff));
  PetscCall(VecNorm(xref, NORM_2, &nrm));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s on %" PetscInt_FMT "^2 grid: aijcusparse %" PetscInt_FMT " iterations, %s %" PetscInt_FMT ", solutions differ by %.2e\n", ksptype, N, itref, type, it, (double)(diff / nrm)));
  PetscCheck(it == itref, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %" PetscInt_FMT " iterations with %s, %" PetscInt_FMT " with aijcusparse", ksptype, it, type, itref);
  PetscCheck(diff <= 1e-7 * nrm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: solutions differ by %g", ksptype, (double)(diff / nrm));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xref));
  PetscCall(MatDestroy(&H));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUFormatsInitializePackage());
  PetscCall(Compare(300, 0.0, 0.0, KSPCG, MATCMRS));
  PetscCall(Compare(300, 2.0, 2.0, KSPGMRES, MATCMRS));
  PetscCall(Compare(300, 0.0, 0.0, KSPCG, MATSELLCS));
  PetscCall(Compare(300, 2.0, 2.0, KSPGMRES, MATSELLCS));
  PetscCall(Compare(300, 0.0, 0.0, KSPCG, MATBCE));
  PetscCall(Compare(300, 2.0, 2.0, KSPGMRES, MATBCE));
  PetscCall(PetscFinalize());
  return 0;
}

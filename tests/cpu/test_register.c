static const char help[] = "Registration of the petsc-gpuformats types and log events, by -dll_append or explicitly.\n"
                           "  -explicit: call PetscGPUFormatsInitializePackage() instead of relying on -dll_append\n";

/* Runs without a GPU: registration creates no matrix */
#include <petscgpuformats.h>

int main(int argc, char **argv)
{
  PetscBool explicit  = PETSC_FALSE;
  const char *types[] = {MATSEQCMRS, MATMPICMRS, MATSEQSELLCS, MATMPISELLCS, MATSEQBCE, MATMPIBCE, MATSEQDIA, MATMPIDIA, MATSEQHYB, MATMPIHYB, MATSEQELL, MATMPIELL, MATSEQARGCSR, MATMPIARGCSR, MATSEQGPUAUTO, MATMPIGPUAUTO}, *events[] = {"CMRSBuild", "CMRSValues", "SELLCSBuild", "SELLCSValues", "BCEBuild", "BCEValues", "DIABuild", "DIAValues", "HYBBuild", "HYBValues", "ELLBuild", "ELLValues", "ARGCSRBuild", "ARGCSRValues", "GPUAutoBuild", "GPUAutoValues"};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-explicit", &explicit, NULL));
  if (explicit) {
    PetscCall(PetscGPUFormatsInitializePackage());
    PetscCall(PetscGPUFormatsInitializePackage()); /* idempotent */
  }
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(types); i++) {
    PetscErrorCode (*create)(Mat) = NULL;

    PetscCall(PetscFunctionListFind(MatList, types[i], &create));
    PetscCheck(create, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Matrix type %s is not registered", types[i]);
  }
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(events); i++) {
    PetscLogEvent ev = -1;

    PetscCall(PetscLogEventGetId(events[i], &ev));
    PetscCheck(ev >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Log event %s is not registered", events[i]);
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "registered:"));
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(types); i++) PetscCall(PetscPrintf(PETSC_COMM_SELF, " %s", types[i]));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, " and their log events\n"));
  PetscCall(PetscFinalize());
  return 0;
}

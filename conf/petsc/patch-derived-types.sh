#!/bin/sh
# Make a PETSc 3.22 source tree accept types derived from MATSEQAIJCUSPARSE in aijcusparse's own accessors
# (MatSeqAIJCUSPARSEGetArrayRead(), MatSeqAIJCUSPARSEGetIJ(), ...). Their debug-only check PetscCheckTypeName()
# wants the exact type name, so a debug PETSc (--with-debugging=1) rejects seqaijcusparsecmrs and the other types of
# petsc-gpuformats. After this patch the check accepts any type name that begins with seqaijcusparse; it stays a
# debug-only check (#if defined(PETSC_USE_DEBUG)), so an optimized PETSc is unchanged.
#   sh conf/petsc/patch-derived-types.sh PETSC_SOURCE_TREE
set -e
cd "$1"
f=src/mat/impls/aij/seq/seqcusparse/aijcusparse.cu
[ -f "$f" ] || { echo "patch-derived-types: no $f under $1" >&2; exit 1; }
n=$(grep -c 'PetscCheckTypeName([AB], MATSEQAIJCUSPARSE);' "$f" || true)
# each check on a line of its own becomes a debug-only block (an optimized PETSc keeps no check, as before)
sed -i -E 's/^([[:space:]]*)PetscCheckTypeName\(([AB]), MATSEQAIJCUSPARSE\);[[:space:]]*$/#if defined(PETSC_USE_DEBUG)\n\1do { PetscBool derived_ = PETSC_FALSE; PetscCall(PetscStrbeginswith(((PetscObject)(\2))->type_name, MATSEQAIJCUSPARSE, \&derived_)); PetscCheck(derived_, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Object (%s) is not %s or a type derived from it", ((PetscObject)(\2))->type_name, MATSEQAIJCUSPARSE); } while (0);\n#endif/' "$f"
left=$(grep -c 'PetscCheckTypeName([AB], MATSEQAIJCUSPARSE);' "$f" || true)
[ "$left" = 0 ] || { echo "patch-derived-types: $left exact checks left in $f" >&2; exit 1; }
echo "patch-derived-types: $n checks in $f accept derived types"

/*
   gpuauto's model, on the host: the kind of a matrix from its row statistics, and the candidates in the order the type
   tries them (it builds the first that holds the matrix).

   The orders are fitted (bench/gpuauto_fit.py; the test cpu_gpuauto_fit checks that this table is the fit) on the records
   of bench/results/h200/auto.jsonl (run_suite.sh auto: every candidate at its defaults in one process per matrix, 22
   matrices, one H200) and, for the matrices not in it, peers.jsonl (R-MAT of scales 21 and 22, 4 M rows of long rows):
   in each kind, first the candidate whose product is nearest the fastest candidate's (geometric mean over the matrices it
   holds), then the best on the matrices that one declines, and so on. The thresholds are set by hand in the gaps of the
   row statistics of those matrices:
   - small: at most GPUAUTO_SMALL_NNZ entries. The small matrices of the suite have 48 k to 809 k entries and products of
     5 to 12 microseconds, at the host's launch floor, where the types of ours are within 20 % of each other and the
     order is noisy; the large ones 4.4 M entries and more.
   - regular rows: standard deviation over mean of the row lengths at most 0.5 (0 to 0.28 on the stencils, banded, FEM-like,
     permutation and 9-diagonal matrices; 2.1 and more on the irregular ones), short up to 128 a row (50 at most there;
     the dense matrix 5000).
   - power-law: that ratio at least 5 and a mean of at least 10 a row (R-MAT: 9.2 and 15.3; the circuit-like, LP-like and
     long-row matrices have means of 4.4 to 6); large past GPUAUTO_POWER_LARGE_NNZ entries, where cuSPARSE's CSR overtakes
     BCE (R-MAT scale 21, 32 M entries: BCE 0.985 of it; scale 22, 65 M: 0.949).
   - irregular: the rest.
*/
#include "gpuauto.h"

const char *const GPUAutoCandidateNames[] = {"aijcusparse", "cmrs", "sellcs", "bce", "dia", "hyb", "ell", "argcsr"};
const char *const GPUAutoRuleNames[]      = {"small", "regular rows, short", "regular rows, long", "power-law rows", "power-law rows, large", "irregular rows"};

/* the order of each kind (every candidate appears once, the preferred first) */
static const GPUAutoCandidate GPUAutoOrder[GPUAUTO_NRULES][GPUAUTO_NCANDIDATES] = {
    {GPUAUTO_BCE,    GPUAUTO_CMRS,   GPUAUTO_SELLCS, GPUAUTO_ELL,  GPUAUTO_ARGCSR, GPUAUTO_CSR,    GPUAUTO_HYB, GPUAUTO_DIA   },
    {GPUAUTO_DIA,    GPUAUTO_SELLCS, GPUAUTO_ELL,    GPUAUTO_BCE,  GPUAUTO_HYB,    GPUAUTO_CMRS,   GPUAUTO_CSR, GPUAUTO_ARGCSR},
    {GPUAUTO_BCE,    GPUAUTO_SELLCS, GPUAUTO_CMRS,   GPUAUTO_CSR,  GPUAUTO_ARGCSR, GPUAUTO_HYB,    GPUAUTO_ELL, GPUAUTO_DIA   },
    {GPUAUTO_BCE,    GPUAUTO_CSR,    GPUAUTO_SELLCS, GPUAUTO_HYB,  GPUAUTO_CMRS,   GPUAUTO_ARGCSR, GPUAUTO_DIA, GPUAUTO_ELL   },
    {GPUAUTO_CSR,    GPUAUTO_BCE,    GPUAUTO_SELLCS, GPUAUTO_CMRS, GPUAUTO_DIA,    GPUAUTO_HYB,    GPUAUTO_ELL, GPUAUTO_ARGCSR},
    {GPUAUTO_SELLCS, GPUAUTO_BCE,    GPUAUTO_CSR,    GPUAUTO_CMRS, GPUAUTO_HYB,    GPUAUTO_ARGCSR, GPUAUTO_DIA, GPUAUTO_ELL   }
};

/* The kind of an m-row matrix of these row statistics */
PetscErrorCode GPUAutoClassify(PetscInt m, const MatGPUFormatRowStats *s, GPUAutoRule *rule)
{
  PetscReal cv;

  PetscFunctionBegin;
  PetscCheck(m >= 0 && s->nnz >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "gpuauto: %" PetscInt_FMT " rows, %" PetscInt_FMT " entries", m, s->nnz);
  cv = s->mean > 0 ? (PetscReal)(s->stddev / s->mean) : 0.0;
  if (s->nnz <= GPUAUTO_SMALL_NNZ) *rule = GPUAUTO_RULE_SMALL;
  else if (cv <= GPUAUTO_REGULAR_CV) *rule = s->maxlen <= GPUAUTO_SHORT_ROW ? GPUAUTO_RULE_REGULAR_SHORT : GPUAUTO_RULE_REGULAR_LONG;
  else if (cv >= GPUAUTO_POWER_CV && s->mean >= GPUAUTO_POWER_MEAN) *rule = s->nnz <= GPUAUTO_POWER_LARGE_NNZ ? GPUAUTO_RULE_POWER_LAW : GPUAUTO_RULE_POWER_LAW_LARGE;
  else *rule = GPUAUTO_RULE_IRREGULAR;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The candidates allowed (a mask of 1 << GPUAutoCandidate) in the order the type tries them, for an m-row matrix of these
   statistics: order[0 .. *n) and the kind; deterministic. mask 0 is an error.
*/
PetscErrorCode GPUAutoRank(PetscInt m, const MatGPUFormatRowStats *s, PetscInt mask, GPUAutoCandidate order[], PetscInt *n, GPUAutoRule *rule)
{
  PetscFunctionBegin;
  PetscCheck(mask > 0 && mask < (1 << GPUAUTO_NCANDIDATES), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "gpuauto: no candidate format allowed");
  PetscCall(GPUAutoClassify(m, s, rule));
  *n = 0;
  for (PetscInt i = 0; i < GPUAUTO_NCANDIDATES; i++) {
    GPUAutoCandidate c = GPUAutoOrder[*rule][i];

    if (mask & (1 << c)) order[(*n)++] = c;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mat_gpuauto_formats: a list of candidates' names, separated by commas, to the mask of GPUAutoRank() */
PetscErrorCode GPUAutoParseFormats(const char *list, PetscInt *mask)
{
  char  *copy, *tok, *save = NULL;
  size_t len;

  PetscFunctionBegin;
  *mask = 0;
  PetscCall(PetscStrlen(list, &len));
  PetscCheck(len, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-mat_gpuauto_formats: an empty list");
  PetscCall(PetscStrallocpy(list, &copy));
  for (tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
    PetscInt c;

    for (c = 0; c < GPUAUTO_NCANDIDATES; c++) {
      PetscBool same;

      PetscCall(PetscStrcmp(tok, GPUAutoCandidateNames[c], &same));
      if (same) break;
    }
    if (c == GPUAUTO_NCANDIDATES) { /* the name kept for the message, the copy freed */
      char           name[64];
      PetscErrorCode ierr = PetscStrncpy(name, tok, sizeof(name)), ferr = PetscFree(copy);

      PetscCall(ierr);
      PetscCall(ferr);
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "-mat_gpuauto_formats: unknown format '%s' (aijcusparse, cmrs, sellcs, bce, dia, hyb, ell, argcsr)", name);
    }
    *mask |= 1 << c;
  }
  PetscCall(PetscFree(copy));
  PetscCheck(*mask, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-mat_gpuauto_formats '%s' names no format", list);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The mask back to a list of names, in the candidates' fixed order */
PetscErrorCode GPUAutoFormatsString(PetscInt mask, char *buf, size_t len)
{
  size_t used = 0;

  PetscFunctionBegin;
  PetscCheck(len > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "no room");
  buf[0] = 0;
  for (PetscInt c = 0; c < GPUAUTO_NCANDIDATES; c++) {
    if (!(mask & (1 << c))) continue;
    PetscCall(PetscSNPrintf(buf + used, len - used, "%s%s", used ? "," : "", GPUAutoCandidateNames[c]));
    PetscCall(PetscStrlen(buf, &used));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

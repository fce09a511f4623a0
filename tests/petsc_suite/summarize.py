#!/usr/bin/env python3
"""Reads what run.sh left in OUTDIR/work/TYPE and writes OUTDIR/results.tsv and OUTDIR/summary.md.

Per test (one harness target: a test with its subtests and {{...}} loops), from the harness's own records:
  tests/counts/LABEL.counts  total / success / failed / failures / todo / skip (written by petsc_testend)
  tests/test__tap.log        the TAP lines: 'ok LABEL', 'not ok LABEL # Error code: N',
                             'not ok diff-LABEL', '# SKIP ...', 'Exceeded timeout limit'
  test.log                   make -O output: each test's TAP lines and its '#\t' lines (stdout, stderr, diff)
  build.log                  make -O output of the compilation
  normdiff.log               our types: diffs that vanish once the type's name is mapped back and our view lines dropped (normdiff.sh)
  selected.json              prepare.py select: canonical name, nsize, whether generated, expected-output notes
Status: pass, fail-diff, fail-error, timeout, skip, todo.
"""
import argparse
import collections
import datetime
import glob
import json
import os
import re
import shutil
import subprocess

STATUSES = ['pass', 'fail-diff', 'fail-error', 'timeout', 'skip', 'todo', 'not-run']
FAILS = ('fail-diff', 'fail-error', 'timeout')


def base_label(tap_label):
    lab = tap_label
    for p in ('diff-', 'cmd-'):
        if lab.startswith(p):
            lab = lab[len(p):]
    return lab.split('+')[0]


def read_tap(path):
    """{label: [(ok, full label, comment)]}"""
    res = collections.defaultdict(list)
    if not os.path.exists(path):
        return res
    rx = re.compile(r'^\s*(not )?ok (\S+)(?: # (.*))?$')
    with open(path, errors='replace') as fh:
        for ln in fh:
            m = rx.match(ln.rstrip('\n'))
            if m:
                res[base_label(m.group(2))].append((m.group(1) is None, m.group(2), m.group(3) or ''))
    return res


TAPLINE = re.compile(r'^\s*(not )?ok ')


def read_blocks(path):
    """{label: [lines]} from the make -O log: ' TEST label' then the TAP and '#' lines"""
    blocks = collections.defaultdict(list)
    if not os.path.exists(path):
        return blocks
    cur = None
    # gmakefile.test prints ' TEST tests/counts/LABEL.counts' (its pattern does not strip ./tests/counts/)
    rx = re.compile(r'^\s+TEST\s+(?:\S*/)?([^/\s]+?)(?:\.counts)?\s*$')
    with open(path, errors='replace') as fh:
        for ln in fh:
            ln = ln.rstrip('\n')
            m = rx.match(ln)
            if m:
                cur = m.group(1)
                continue
            if cur and (TAPLINE.match(ln) or ln.startswith('#')):
                blocks[cur].append(ln)
            else:
                cur = None
    return blocks


def read_counts(path):
    c = {'total': 0, 'success': 0, 'failed': 0, 'failures': [], 'todo': 0, 'skip': 0, 'time': 0.0}
    with open(path) as fh:
        for ln in fh:
            w = ln.split()
            if not w:
                continue
            if w[0] == 'failures':
                c['failures'] = w[1:]
            elif w[0] == 'time':
                if len(w) > 2:
                    c['time'] = float(w[2])
            elif w[0] in c:
                c[w[0]] = int(w[1])
    return c


def clean(s):
    return re.sub(r'\s+', ' ', s.replace('\t', ' ')).strip()


def detail_after(block, pred, n=12):
    """the '#' lines that follow the first TAP line satisfying pred"""
    out = []
    on = False
    for ln in block:
        if TAPLINE.match(ln):
            if on:
                break
            on = pred(ln.strip())
            continue
        if on and ln.startswith('#') and not ln.startswith('# retrying '):
            t = ln[1:]
            if t.startswith('\t'):
                t = t[1:]
            if t.strip():
                out.append(t.rstrip())
    return out[:n] if n else out


ERR_SKIP = re.compile(r'^-+|Error Message|See https://|Petsc Release Version|Configure options|'
                      r'WARNING! There are unused option|Option left:|There are \d+ unused|Could be the program crashed|'
                      r' with \d+ MPI process\(es\) and PETSC_ARCH|PETSc Option Table entries|^-\S+ .*\(source: |'
                      r'Checking the memory for corruption|for trouble shooting|Petsc Development GIT')


def error_reason(lines):
    msgs, frame = [], ''
    split = []
    for ln in lines:  # the ranks' lines can be glued together
        split += [x for x in re.split(r'(?=\[\d+\]PETSC ERROR:)', ln) if x.strip()]
    for ln in split:
        m = re.match(r'^\[\d+\]PETSC ERROR: ?(.*)$', ln)
        if not m:
            continue
        t = m.group(1).strip()
        if re.match(r'^#\d+ ', t):
            frame = frame or t
            continue
        if not t or ERR_SKIP.search(t):
            continue
        if t not in msgs:
            msgs.append(t)
    if msgs:
        r = '; '.join(msgs[:3])
        if frame:
            r += ' [' + frame + ']'
        return r
    for ln in lines:
        if ln.strip():
            return ln.strip()
    return ''


def diff_reason(lines):
    ch = [ln for ln in lines if ln[:2] in ('< ', '> ')]
    first = ' / '.join(ch[:2]) if ch else (lines[0] if lines else '')
    return 'output differs: ' + first


def name_only_reason(lines, T):
    """the reason of a diff that PETSc's expected output no longer shows once the type's name is mapped back: the
    changed lines that print a type's name or our view (the first changed lines may be numbers within PETSc's tolerance)"""
    ch = [ln for ln in lines if ln[:2] in ('< ', '> ')]
    named = [ln for ln in ch if re.search(r'aijcusparse|' + re.escape(T) + r'|GPU format', ln, re.I)]
    return 'output differs only in the type name: ' + ' / '.join((named or ch)[:2])


def build_error(build_log, exe):
    """first compiler error lines for the executable exe (tests/<rpath>/<name>)"""
    if not os.path.exists(build_log):
        return ''
    name = os.path.basename(exe)
    rel = exe[len('tests/'):] if exe.startswith('tests/') else exe
    hits = []
    with open(build_log, errors='replace') as fh:
        for ln in fh:
            if ('error' in ln.lower()) and (('/' + rel + '.') in ln or ('/' + name + '.') in ln or rel in ln):
                hits.append(clean(ln))
    return ' | '.join(hits[:3])


def classify(T, W, e, tap, blocks, normlog, stopped=False):
    lab = e['label']
    cf = os.path.join(W, 'tests', 'counts', lab + '.counts')
    row = {'status': '', 'reason': '', 'detail': '', 'name_only': '', 'cpu_s': ''}
    if not e['generated']:
        row['status'] = 'todo' if e['not_generated_reason'].startswith('TODO') else 'skip'
        row['reason'] = e['not_generated_reason']
        return row
    if not os.path.exists(cf):
        row['status'] = 'fail-error'
        if e['exe'] and not os.access(os.path.join(W, e['exe']), os.X_OK):
            row['reason'] = 'build failed'
            row['detail'] = build_error(os.path.join(W, 'build.log'), e['exe'])
        elif stopped:
            row['status'] = 'not-run'
            row['reason'] = 'the run was stopped (a deadline) before this test ran'
        else:
            row['reason'] = 'no result from the harness (not run?)'
        return row
    c = read_counts(cf)
    row['cpu_s'] = '%.2f' % c['time']
    taps = tap.get(lab, [])
    blk = blocks.get(lab, [])
    if c['todo'] > 0:
        row['status'] = 'todo'
        row['reason'] = next((cm for ok, fl, cm in taps if cm.startswith('TODO')), 'TODO')
        return row
    if c['skip'] > 0:
        row['status'] = 'skip'
        row['reason'] = next((cm for ok, fl, cm in taps if cm.startswith('SKIP')), 'SKIP')
        return row
    if c['failed'] > 0 or c['failures']:
        bad = [(fl, cm) for ok, fl, cm in taps if not ok]
        if any('Exceeded timeout' in cm for fl, cm in bad):
            row['status'] = 'timeout'
            fl, cm = next((fl, cm) for fl, cm in bad if 'Exceeded timeout' in cm)
            row['reason'] = cm + ' (' + fl + ')'
            return row
        runerr = [(fl, cm) for fl, cm in bad if not fl.startswith('diff-')]
        if runerr or not bad and any(not f.startswith('diff-') for f in c['failures']):
            fl, cm = runerr[0] if runerr else (c['failures'][0], 'Error')
            lines = detail_after(blk, lambda ln: ln.startswith('not ok ' + fl + ' ') or ln == 'not ok ' + fl, 0)
            row['status'] = 'fail-error'
            r = error_reason(lines)
            row['reason'] = (cm + ': ' + r) if r else cm
            row['detail'] = ' | '.join(clean(x) for x in lines[:8])
            if len(runerr) > 1:
                codes = collections.Counter(cm for fl, cm in runerr)
                more = '' if len(codes) == 1 else '; ' + ', '.join('%d x %s' % (n, k) for k, n in codes.most_common())
                nruns = sum(1 for ok, f, cm in taps if not f.startswith('diff-') and not cm.startswith('SKIP'))
                row['reason'] += ' (%d of %d runs failed%s)' % (len(runerr), nruns, more)
            return row
        fl = bad[0][0] if bad else c['failures'][0]
        lines = detail_after(blk, lambda ln: ln.startswith('not ok ' + fl + ' ') or ln == 'not ok ' + fl, 0)
        row['status'] = 'fail-diff'
        row['reason'] = diff_reason(lines)
        row['detail'] = ' | '.join(clean(x) for x in lines[:8])
        ents = normlog.get(os.path.join(W, 'tests', os.path.dirname(e['file']), e['key']), [])
        main = [x for x in ents if not re.search(r'_alt(_\d+)?\.out$', x[0])] or ents
        if main and all(x[2] == '0' for x in main):
            row['name_only'] = 'yes'
            row['reason'] = name_only_reason(lines, T)
        elif main:
            row['name_only'] = 'no'
        return row
    if c['success'] > 0:
        row['status'] = 'pass'
        return row
    row['status'] = 'fail-error'
    row['reason'] = 'the harness ran nothing (total %d)' % c['total']
    return row


def read_normlog(path):
    res = collections.defaultdict(list)
    if os.path.exists(path):
        with open(path, errors='replace') as fh:
            for ln in fh:
                w = ln.rstrip('\n').split('\t')
                if len(w) == 5:
                    res[w[0]].append((w[1], w[3], w[4]))
    return res


def git_commit(repo):
    """The commit, from GIT_COMMIT and GIT_DIRTY when set (a copy of the tree whose .git is not its own, as on the GPU
    host; bench/provenance.sh reads the same), else from git"""
    if os.environ.get('GIT_COMMIT'):
        return os.environ['GIT_COMMIT'] + ('-dirty' if os.environ.get('GIT_DIRTY', '0') not in ('0', 'false', '') else '')
    try:
        c = subprocess.run(['git', '-C', repo, 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True,
                           check=True).stdout.strip()
        dirty = subprocess.run(['git', '-C', repo, 'diff', '--quiet', 'HEAD', '--']).returncode != 0
        return c + ('-dirty' if dirty else '')
    except Exception:
        return 'unknown'


def petsc_version(petsc_dir):
    v = {}
    try:
        with open(os.path.join(petsc_dir, 'include', 'petscversion.h')) as fh:
            for ln in fh:
                m = re.match(r'#define PETSC_VERSION_(MAJOR|MINOR|SUBMINOR|RELEASE)\s+(\d+)', ln)
                if m:
                    v[m.group(1)] = m.group(2)
        return '%s.%s.%s' % (v['MAJOR'], v['MINOR'], v['SUBMINOR'])
    except Exception:
        return 'unknown'


def gpu_name():
    if not shutil.which('nvidia-smi'):
        return None
    try:
        r = subprocess.run(['nvidia-smi', '--query-gpu=name,driver_version', '--format=csv,noheader'],
                           capture_output=True, text=True, timeout=30)
        return '; '.join(ln.strip() for ln in r.stdout.splitlines() if ln.strip()) or 'nvidia-smi: ' + clean(r.stderr)
    except Exception as ex:
        return 'nvidia-smi failed: %s' % ex


def md(s):
    return str(s).replace('|', '\\|').replace('\n', ' ')


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--out', required=True)
    p.add_argument('--types', default='')
    p.add_argument('--petsc-dir', default='')
    p.add_argument('--repo', default='')
    p.add_argument('--lib', default='')
    p.add_argument('--dirs', default='')
    p.add_argument('--np', default='all')
    p.add_argument('--petsc-options', default='')
    p.add_argument('--stopped', action='store_true', help='the run was stopped: tests without a result did not run')
    p.add_argument('--baseline', default='',
                   help='results.tsv of an earlier run whose aijcusparse rows stand for aijcusparse (not run now)')
    p.add_argument('--from-tsv', nargs='+', default=None,
                   help='merge runs made apart (one call each on the GPU host): the rows of these results.tsv files, each '
                   'beside the summary.md whose header is quoted, instead of a run in --out; a (type, test) present twice '
                   'is taken from the first file that has it')
    a = p.parse_args()
    if a.from_tsv:
        return merge(a)
    if not (a.types and a.petsc_dir and a.repo):
        p.error('--types, --petsc-dir and --repo are needed (or --from-tsv)')
    types = a.types.split()
    rows = []
    timing = {}
    sel_all = {}
    baseline_rows = []
    if a.baseline:
        # the aijcusparse rows of the earlier run, for the tests selected now (the rest of the earlier run is not ours)
        with open(a.baseline, errors='replace') as fh:
            head = fh.readline().rstrip('\n').split('\t')
            for ln in fh:
                r = dict(zip(head, ln.rstrip('\n').split('\t')))
                if r.get('type') == 'aijcusparse':
                    r['multi'] = max(int(x) for x in r['nsize'].split(',') if x) > 1 if r.get('nsize') else False
                    baseline_rows.append(r)
        types = ['aijcusparse'] + [T for T in types if T != 'aijcusparse']
    for T in types:
        if a.baseline and T == 'aijcusparse':
            continue
        W = os.path.join(a.out, 'work', T)
        sel = json.load(open(os.path.join(W, 'selected.json')))
        sel_all[T] = sel
        try:
            timing[T] = json.load(open(os.path.join(W, 'timing.json')))
        except Exception:
            timing[T] = {}
        tap = read_tap(os.path.join(W, 'tests', 'test__tap.log'))
        blocks = read_blocks(os.path.join(W, 'test.log'))
        normlog = read_normlog(os.path.join(W, 'normdiff.log'))
        for e in sel:
            if a.np == '1' and max(e['nsize']) > 1:
                continue
            r = classify(T, W, e, tap, blocks, normlog, a.stopped)
            rows.append({'type': T, 'test': e['canonical'], 'label': e['label'], 'file': e['file'],
                         'nsize': ','.join(map(str, e['nsize'])), 'multi': max(e['nsize']) > 1,
                         'prints_type': '; '.join(e['prints_type']), **r})

    if a.baseline:
        selected = {r['test'] for r in rows}
        missing = selected - {r['test'] for r in baseline_rows}
        for r in baseline_rows:
            if r['test'] in selected:
                rows.append(r)
        for t in sorted(missing):  # a test the earlier run did not have: no comparison for it
            e = next(r for r in rows if r['test'] == t)
            rows.append({**{k: '' for k in e}, 'type': 'aijcusparse', 'test': t, 'label': e['label'], 'file': e['file'],
                         'nsize': e['nsize'], 'multi': e['multi'], 'status': 'not-run',
                         'reason': 'not in the baseline %s' % a.baseline})

    write(a, types, rows, timing, sel_all)


def read_tsv(path):
    with open(path, errors='replace') as fh:
        head = fh.readline().rstrip('\n').split('\t')
        rows = [dict(zip(head, ln.rstrip('\n').split('\t'))) for ln in fh if ln.strip()]
    for r in rows:
        r['multi'] = max(int(x) for x in r['nsize'].split(',') if x) > 1 if r.get('nsize') else False
    return rows


def merge(a):
    """--from-tsv: one record of runs made apart, from their results.tsv (and the headers of their summary.md)"""
    rows, seen, types, heads = [], set(), [], []
    for path in a.from_tsv:
        for r in read_tsv(path):
            if (r['type'], r['test']) in seen:
                continue
            seen.add((r['type'], r['test']))
            rows.append(r)
            if r['type'] not in types:
                types.append(r['type'])
        summ = os.path.join(os.path.dirname(path), 'summary.md')
        head = []
        if os.path.exists(summ):
            lines = open(summ, errors='replace').read().split('\n')[2:]
            if lines and lines[0].startswith('Merged by'):
                # a merged record: its own runs, one level down (which of its rows each gave is not kept)
                lines = lines[2:]
            for ln in lines:
                if not ln.startswith(('- ', '  ')):
                    break
                head.append('  ' + ln)
        heads.append((path, head))
    if 'aijcusparse' in types:
        types = ['aijcusparse'] + [T for T in types if T != 'aijcusparse']
    os.makedirs(a.out, exist_ok=True)
    write(a, types, rows, {}, {}, heads)


def write(a, types, rows, timing, sel_all, merged=None):
    """results.tsv and summary.md in a.out, from the rows of every type"""
    cols = ['type', 'test', 'label', 'file', 'nsize', 'status', 'prints_type', 'name_only', 'cpu_s', 'reason', 'detail']
    with open(os.path.join(a.out, 'results.tsv'), 'w') as fh:
        fh.write('\t'.join(cols) + '\n')
        for r in rows:
            fh.write('\t'.join(clean(str(r[k])) for k in cols) + '\n')

    # ---- summary.md
    by = {(r['type'], r['test']): r for r in rows}
    tests = []
    for r in rows:
        if r['test'] not in tests:
            tests.append(r['test'])
    L = []
    L.append('# PETSc\'s test suite with the petsc-gpuformats types')
    L.append('')
    if merged:
        L.append('Merged by `tests/petsc_suite/summarize.py --from-tsv` from runs made apart (each run\'s own header below; '
                 'a test present in two runs is taken from the first):')
        L.append('')
        for i, (path, head) in enumerate(merged):
            L.append('- run %d (%s):' % (i + 1, ', '.join(dict.fromkeys(r['type'] for r in read_tsv(path)))))
            L += head
    else:
        write_header(a, L, types, rows, timing, tests)
    L.append('')
    write_body(a, L, types, rows, by, tests, sel_all)


def write_header(a, L, types, rows, timing, tests):
    nfiles = len(open(os.path.join(a.out, 'files.txt')).read().split())
    L.append('- repository: `%s` (%s)' % (git_commit(a.repo), a.repo))
    L.append('- date: %s' % datetime.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M:%S %Z'))
    L.append('- PETSc: %s (%s)' % (petsc_version(a.petsc_dir), a.petsc_dir))
    g = gpu_name()
    L.append('- GPU: %s' % (g if g else 'none (no nvidia-smi)'))
    L.append('- host: %s, %s cores' % (os.uname().nodename, os.cpu_count()))
    if a.lib:
        L.append('- library: `%s`, appended with `-dll_append` for the types other than aijcusparse' % a.lib)
    L.append('- PETSC_OPTIONS given: `%s` (the harness appends its own, see README.md)' % (a.petsc_options.strip() or ''))
    if a.baseline:
        L.append('- aijcusparse: not run now; its results are those of an earlier run, `%s` (-B)' % a.baseline)
    L.append('- selection: %d source files under `%s` whose TEST blocks name aijcusparse in `args:`; %d tests%s'
             % (nfiles, a.dirs, len(tests), ' with nsize 1 (-n 1)' if a.np == '1' else ''))
    tl = []
    for T in types:
        if a.baseline and T == 'aijcusparse':
            continue
        t = timing.get(T, {})
        tl.append('%s %s s build + %s s tests' % (T, t.get('build_s', '?'), t.get('run_s', '?')))
    try:
        wall = json.load(open(os.path.join(a.out, 'work', 'timing.json')))
    except Exception:
        wall = {}
    ran = [T for T in types if timing.get(T)]
    if ran:
        L.append('- time: %s s in all (%s s to prepare the copies; then make -j %s shared by all types, the types '
                 'overlapping; timeout %s s per test): %s'
                 % (wall.get('wall_s', '?'), wall.get('prepare_s', '?'), timing[ran[0]].get('jobs', '?'),
                    timing[ran[0]].get('timeout', '?'), '; '.join(tl)))


def write_body(a, L, types, rows, by, tests, sel_all):
    L.append('Statuses: pass; fail (fail-diff: output differs from PETSc\'s expected output; fail-error: the program '
             'failed or did not build; timeout); skip (the harness skipped it, or did not generate it because a '
             '`requires:` is not met by this PETSc); todo.')
    L.append('')
    L.append('## Results per type')
    L.append('')
    if a.stopped:
        n = sum(1 for r in rows if r['status'] == 'not-run')
        L.append('**Stopped before the end** (a deadline): %d test runs did not start (not run, beside skip below; '
                 'not-run in results.tsv).' % n)
        L.append('')
    L.append('| type | 1 rank: pass | fail (diff/error/timeout) | skip | todo | >1 rank: pass | fail (diff/error/timeout) | skip | todo |')
    L.append('|---|---|---|---|---|---|---|---|---|')
    for T in types:
        cells = [T]
        for multi in (False, True):
            c = collections.Counter(r['status'] for r in rows if r['type'] == T and r['multi'] == multi)
            nf = sum(c[s] for s in FAILS)
            cells += [str(c['pass']), '%d (%d/%d/%d)' % (nf, c['fail-diff'], c['fail-error'], c['timeout']),
                      str(c['skip']) + (' (+%d not run)' % c['not-run'] if c['not-run'] else ''), str(c['todo'])]
        L.append('| ' + ' | '.join(cells) + ' |')
    L.append('')
    base = 'aijcusparse'
    ours = [T for T in types if T != base]
    for multi, title in ((False, 'Single-process tests (nsize 1)'), (True, 'Multi-rank tests (nsize > 1)')):
        L.append('## %s that pass with aijcusparse and fail with one of our types' % title)
        L.append('')
        if base not in types:
            L.append('(aijcusparse was not run: no comparison)')
            L.append('')
            continue
        items = []
        for t in tests:
            b = by.get((base, t))
            if not b or b['multi'] != multi or b['status'] != 'pass':
                continue
            for T in ours:
                r = by.get((T, t))
                if r and r['status'] in FAILS:
                    items.append((t, T, r))
        if not items:
            L.append('None.')
        else:
            L.append('| test | nsize | type | status | reason |')
            L.append('|---|---|---|---|---|')
            for t, T, r in items:
                st = r['status'] + (' (type name and view only)' if r['name_only'] == 'yes' else '')
                L.append('| %s | %s | %s | %s | %s |' % (md(t), r['nsize'], T, st, md(r['reason'][:300])))
        L.append('')
    # what fails everywhere, by reason
    L.append('## Failure reasons per type')
    L.append('')
    L.append('Most frequent reasons (first message of the error, or of the diff), with the number of tests.')
    L.append('')
    for T in types:
        c = collections.Counter()
        for r in rows:
            if r['type'] == T and r['status'] in FAILS:
                key = re.sub(r' \(\d+ of \d+ runs failed[^)]*\)$', '', r['reason'])
                key = re.sub(r'\[#\d+ .*\]$', '', key).strip()
                c[(r['status'], key[:200])] += 1
        if not c:
            L.append('- %s: no failures' % T)
            continue
        L.append('- %s:' % T)
        for (st, k), n in c.most_common(8):
            L.append('  - %d x %s: %s' % (n, st, md(k)))
        if len(c) > 8:
            L.append('  - ... %d other reasons (results.tsv)' % (len(c) - 8))
    L.append('')
    pt = [t for t in tests if by.get((types[0], t)) and by[(types[0], t)]['prints_type']]
    L.append('## Tests whose expected output names aijcusparse')
    L.append('')
    L.append('Their output differs with our types for the type\'s name alone (found by reading the expected '
             'output files and the tests\' output filters). A fail-diff marked "type name and view only" above is one whose '
             'output matches once the type\'s name is mapped back to aijcusparse and the lines our MatView() adds '
             '(the "<TITLE> GPU format" block of -mat_view ::ascii_info and -ksp_view) are dropped.')
    L.append('')
    for t in pt:
        L.append('- %s: %s' % (t, by[(types[0], t)]['prints_type']))
    if not pt:
        L.append('None.')
    L.append('')
    ng = collections.Counter()
    if sel_all:
        for e in next(iter(sel_all.values())):  # the selection of a type run now (the same for every type)
            if not e['generated'] and not (a.np == '1' and max(e['nsize']) > 1):
                ng[e['not_generated_reason']] += 1
    else:  # merged: the rows of the first type that the harness did not generate
        for r in rows:
            if r['type'] == types[0] and r['status'] in ('skip', 'todo') and r['reason'].startswith(('not generated', 'TODO')):
                ng[r['reason']] += 1
    L.append('## Not generated by the harness for this PETSc')
    L.append('')
    L.append('Counted as skip above.')
    L.append('')
    for k, n in ng.most_common():
        L.append('- %d x %s' % (n, md(k)))
    if not ng:
        L.append('None.')
    L.append('')
    with open(os.path.join(a.out, 'summary.md'), 'w') as fh:
        fh.write('\n'.join(L))
    # short report on stdout
    for T in types:
        c = collections.Counter(r['status'] for r in rows if r['type'] == T)
        print('%-12s ' % T + ' '.join('%s %d' % (s, c[s]) for s in STATUSES))


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
"""Helpers of run.sh (standard library only, plus PETSc's own config/testparse.py for test names).

  prepare.py find    --examples DIR --dirs "src/mat src/ksp"
        print the test sources (relative to DIR/src) whose /*TEST ... TEST*/ block names
        aijcusparse (or seqaijcusparse / mpiaijcusparse) in an args: line
  prepare.py rewrite --examples DIR --work WORK --type T --files "mat/tests/ex5.c ..."
        in the copy WORK/src rewrite only the args: lines of the TEST blocks of those files
        (seqaijcusparse -> seqaijcusparseT, mpiaijcusparse -> mpiaijcusparseT, aijcusparse -> T),
        record the old -> new test names, and give tests renamed by a '{{...}separate output}' loop
        over the type (mat/tests/ex18.c) their expected output under the new name (a copy, the
        original left as it is)
  prepare.py select  --examples DIR --work WORK --type T --files "..." [--np1]
        after the harness generated WORK/tests/datatest.pkl: write WORK/selected.json (every test
        of the files whose args name the type, with its canonical name, nsize, requirements, whether
        the harness generated it for this PETSc) and print the harness labels to run, one a line
"""
import argparse
import json
import os
import pickle
import re
import shutil
import sys

EXTS = ('.c', '.cxx', '.cu', '.cpp')
# the type as a whole word, optionally with its seq/mpi prefix; '_' counts as part of a word so that
# option names such as -mat_aijcusparse_x (none today) are never touched
TOKEN = re.compile(r'(?<![A-Za-z0-9_])(seq|mpi)?aijcusparse(?![A-Za-z0-9_])')
ARGS_LINE = re.compile(r'^(\s*!?\s*)args\s*:')
BLOCK = re.compile(r'/\*TEST\n(.*?)TEST\*/', re.S)


def type_token(t):
    """regex matching the type name(s) that a rewritten copy for type t uses"""
    if t == 'aijcusparse':
        return TOKEN
    t = re.escape(t)
    return re.compile(r'(?<![A-Za-z0-9_])(?:(?:seq|mpi)aijcusparse' + t + '|' + t + r')(?![A-Za-z0-9_])')


def rewrite_token(t, text):
    def sub(m):
        return (m.group(1) + 'aijcusparse' + t) if m.group(1) else t
    return TOKEN.sub(sub, text)


def iter_args_spans(block):
    """yield (start, end) character spans of the args: statements of a TEST block, continuation lines included"""
    pos = 0
    lines = block.split('\n')
    offs = []
    for ln in lines:
        offs.append(pos)
        pos += len(ln) + 1
    i = 0
    while i < len(lines):
        if ARGS_LINE.match(lines[i]):
            j = i
            while lines[j].rstrip().endswith('\\') and j + 1 < len(lines):
                j += 1
            yield offs[i], offs[j] + len(lines[j])
            i = j + 1
        else:
            i += 1


def args_name_type(src_text):
    for b in BLOCK.findall(src_text):
        for s, e in iter_args_spans(b):
            if TOKEN.search(b[s:e]):
                return True
    return False


def rewrite_text(text, t):
    """rewrite the args statements inside every TEST block; return (new text, number of substitutions)"""
    nsub = 0
    out = []
    last = 0
    for m in BLOCK.finditer(text):
        bs, be = m.span(1)
        block = m.group(1)
        nb = []
        lastb = 0
        for s, e in iter_args_spans(block):
            seg = block[s:e]
            nsub += len(TOKEN.findall(seg))
            nb.append(block[lastb:s])
            nb.append(rewrite_token(t, seg))
            lastb = e
        nb.append(block[lastb:])
        out.append(text[last:bs])
        out.append(''.join(nb))
        last = be
    out.append(text[last:])
    return ''.join(out), nsub


def cmd_find(a):
    src = os.path.join(a.examples, 'src')
    found = []
    for d in a.dirs.split():
        d = d.strip('/')
        if d.startswith('src/'):
            d = d[4:]
        elif d == 'src':
            d = ''
        top = os.path.join(src, d)
        if not os.path.isdir(top):
            sys.exit('prepare.py: no such directory: ' + top)
        for root, dirs, files in os.walk(top):
            dirs.sort()
            if os.path.basename(root) == 'output':
                continue
            for f in sorted(files):
                if not f.endswith(EXTS):
                    continue
                p = os.path.join(root, f)
                with open(p, errors='replace') as fh:
                    txt = fh.read()
                if 'aijcusparse' in txt and args_name_type(txt):
                    found.append(os.path.relpath(p, src))
    for f in sorted(set(found)):
        print(f)


# ---------------------------------------------------------------- PETSc's parser
def load_testparse(examples):
    cfg = os.path.join(examples, 'config')
    sys.path.insert(0, cfg)
    import testparse  # noqa: E402  (PETSc's own parser of the TEST blocks)
    return testparse


def parse_tests(testparse, path):
    """ordered {testkey: dict} of one source file as PETSc's harness parses it"""
    cwd = os.getcwd()
    try:
        d = testparse.parseTestFile(path, 0)
    finally:
        os.chdir(cwd)
    (tests,) = d.values()
    return tests


def label_of(testparse, key, rpath):
    defroot = testparse.getDefaultOutputFileRoot(key)
    if defroot.startswith('run'):
        defroot = defroot[3:]
    return rpath.replace('/', '_') + '-' + defroot


def all_args(td):
    s = td.get('args', '')
    for st in td.get('subtests', []):
        s += ' ' + td[st].get('args', '')
    return s


def nsizes(td):
    def vals(v):
        v = str(v).strip()
        if v.startswith('{{'):
            v = v[2:].split('}')[0]
        out = []
        for x in v.replace(',', ' ').split():
            try:
                out.append(int(x))
            except ValueError:
                pass
        return out or [1]
    top = vals(td.get('nsize', '1'))
    res = set()
    if td.get('subtests'):
        for st in td['subtests']:
            res.update(vals(td[st]['nsize']) if 'nsize' in td[st] else top)
    else:
        res.update(top)
    return sorted(res)


def requires_of(td, filedict):
    r = td.get('requires', '').split()
    for st in td.get('subtests', []):
        r += td[st].get('requires', '').split()
    r += str(filedict.get('requires', '')).split()
    seen = []
    for x in r:
        if x not in seen:
            seen.append(x)
    return ' '.join(seen)


def name_map(testparse, orig_path, new_path):
    """{new test key: original test key}, in the order PETSc generates them"""
    o = [k for k in parse_tests(testparse, orig_path) if k not in testparse.buildkeys]
    n = [k for k in parse_tests(testparse, new_path) if k not in testparse.buildkeys]
    if len(o) != len(n):
        raise RuntimeError('%s: %d tests before the rewrite, %d after' % (new_path, len(o), len(n)))
    return dict(zip(n, o))


def out_file_root(key):
    k = key[3:] if key.startswith('run') else key
    return k if '_' in k else k + '_1'


def cmd_rewrite(a):
    testparse = load_testparse(a.examples)
    log = []
    for rel in a.files.split():
        orig = os.path.join(a.examples, 'src', rel)
        dest = os.path.join(a.work, 'src', rel)
        with open(orig) as fh:
            txt = fh.read()
        new, nsub = rewrite_text(txt, a.type)
        with open(dest, 'w') as fh:
            fh.write(new)
        shutil.copystat(orig, dest)
        nmap = name_map(testparse, orig, dest)
        tests = parse_tests(testparse, dest)
        aliases = []
        for nk, ok in nmap.items():
            if nk == ok or 'output_file' in tests[nk]:
                continue
            odir = os.path.join(os.path.dirname(orig), 'output')
            ddir = os.path.join(os.path.dirname(dest), 'output')
            for suf in [''] + ['_alt'] + ['_alt_%d' % i for i in range(2, 9)]:
                so = os.path.join(odir, out_file_root(ok) + suf + '.out')
                sn = os.path.join(ddir, out_file_root(nk) + suf + '.out')
                if os.path.isfile(so) and not os.path.exists(sn):
                    shutil.copy2(so, sn)
                    aliases.append(os.path.relpath(sn, os.path.join(a.work, 'src')))
        log.append({'file': rel, 'substitutions': nsub,
                    'renamed': {k: v for k, v in nmap.items() if k != v},
                    'output_aliases': aliases})
    with open(os.path.join(a.work, 'rewrite.json'), 'w') as fh:
        json.dump(log, fh, indent=1)
    for e in log:
        print('%-40s %3d substitutions, %d renamed tests, %d expected-output copies'
              % (e['file'], e['substitutions'], len(e['renamed']), len(e['output_aliases'])))


def cmd_select(a):
    testparse = load_testparse(a.examples)
    pkl = os.path.join(a.work, 'tests', 'datatest.pkl')
    with open(pkl, 'rb') as fh:
        data = pickle.load(fh)
    src = os.path.join(a.work, 'src')
    gen = {}
    for root, files in data.items():
        rp = os.path.relpath(root, src)
        for exfile, d in files.items():
            gen[os.path.join(rp, exfile)] = d
    tok = type_token(a.type)
    sel = []
    for rel in a.files.split():
        orig = os.path.join(a.examples, 'src', rel)
        work = os.path.join(src, rel)
        rpath = os.path.dirname(rel)
        otests = parse_tests(testparse, orig)
        wtests = parse_tests(testparse, work)
        nmap = name_map(testparse, orig, work)
        gd = gen.get(rel, {})
        fileinfo = {k: otests[k] for k in testparse.buildkeys if k in otests}
        for nk, ok in nmap.items():
            otd, wtd = otests[ok], wtests[nk]
            named_orig = bool(TOKEN.search(all_args(otd)))
            named_new = bool(tok.search(all_args(wtd)))
            if named_orig != named_new:
                raise RuntimeError('%s %s: names aijcusparse before the rewrite: %s, names %s after: %s'
                                   % (rel, nk, named_orig, a.type, named_new))
            if not named_orig:
                continue
            srcdir = os.path.dirname(orig)
            if 'output_file' in otd:
                expected = os.path.join(srcdir, otd['output_file'])
            else:
                expected = os.path.join(srcdir, 'output', out_file_root(ok) + '.out')
            flt = ' '.join([otd.get('filter', '')] + [otd[s].get('filter', '') for s in otd.get('subtests', [])])
            pt = []
            exp_files = [expected] + [os.path.join(srcdir, otd[s]['output_file'])
                                      for s in otd.get('subtests', []) if 'output_file' in otd[s]]
            for f in exp_files:
                try:
                    with open(f, errors='replace') as fh:
                        if 'aijcusparse' in fh.read():
                            pt.append('expected output ' + os.path.basename(f) + ' prints aijcusparse')
                except OSError:
                    pass
            if 'aijcusparse' in flt:
                pt.append('output filter rewrites aijcusparse')
            ns = nsizes(otd)
            td = gd.get(nk) if isinstance(gd, dict) else None
            generated = isinstance(td, dict)
            reason = ''
            if not generated:
                todo = otd.get('TODO') or fileinfo.get('TODO')
                req = requires_of(otd, fileinfo)
                reason = ('TODO: ' + str(todo)) if todo else \
                    ('not generated by the harness for this PETSc (requires: %s)' % (req or '?'))
            exe = ''
            if generated:
                built = isinstance(gd.get('SKIP', []), list) and not gd.get('SKIP')
                exe = os.path.join('tests', rpath, td.get('execname', '')) if built else ''
            sel.append({
                'file': rel,
                'key': nk,
                'label': label_of(testparse, nk, rpath),
                'canonical': label_of(testparse, ok, rpath),
                'nsize': ns,
                'requires': requires_of(otd, fileinfo),
                'generated': generated,
                'not_generated_reason': reason,
                'exe': exe,
                'prints_type': pt,
            })
    for e in sel:
        e['run'] = e['generated'] and (not a.np1 or max(e['nsize']) == 1)
    with open(os.path.join(a.work, 'selected.json'), 'w') as fh:
        json.dump(sel, fh, indent=1)
    if a.labels:
        with open(a.labels, 'w') as fh:
            for e in sel:
                if e['run']:
                    fh.write(e['label'] + '\n')
    if a.exes:
        with open(a.exes, 'w') as fh:
            for x in sorted({e['exe'] for e in sel if e['run'] and e['exe']}):
                fh.write(x + '\n')
    n = len(sel)
    ng = sum(e['generated'] for e in sel)
    nr = sum(e['run'] for e in sel)
    print('%s: %d tests name the type in %d files; %d generated by the harness for this PETSc; %d to run'
          % (a.type, n, len(a.files.split()), ng, nr))


def main():
    p = argparse.ArgumentParser()
    sp = p.add_subparsers(dest='cmd', required=True)
    f = sp.add_parser('find')
    f.add_argument('--examples', required=True)
    f.add_argument('--dirs', required=True)
    r = sp.add_parser('rewrite')
    r.add_argument('--examples', required=True)
    r.add_argument('--work', required=True)
    r.add_argument('--type', required=True)
    r.add_argument('--files', required=True)
    s = sp.add_parser('select')
    s.add_argument('--examples', required=True)
    s.add_argument('--work', required=True)
    s.add_argument('--type', required=True)
    s.add_argument('--files', required=True)
    s.add_argument('--np1', action='store_true')
    s.add_argument('--labels')
    s.add_argument('--exes')
    a = p.parse_args()
    {'find': cmd_find, 'rewrite': cmd_rewrite, 'select': cmd_select}[a.cmd](a)


if __name__ == '__main__':
    main()

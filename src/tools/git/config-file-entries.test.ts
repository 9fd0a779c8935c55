import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useWorkspace } from '../../../test/helpers/workspace.js';
import { parseConfigText, readConfigFiles } from './config-file-entries.js';

const names = (text: string) =>
  parseConfigText(text).map((e) => `${e.section}.${e.subsection ?? ''}.${e.key}=${e.value}`);

describe('config files read as git reads them (issue #29 §5: every driver name is found)', () => {
  it('a key on the header line, quoted subsections with escapes, the deprecated dotted form', () => {
    expect(names('[filter "x"] clean = evil one')).toEqual(['filter.x.clean=evil one']);
    expect(names('[diff "a\\"b"]\n\ttextconv = t')).toEqual(['diff.a"b.textconv=t']);
    // git lower-cases a dotted subsection; both spellings are kept.
    expect(names('[Filter.MyDrv]\n  CLEAN = c')).toEqual(['filter.MyDrv.clean=c', 'filter.mydrv.clean=c']);
  });

  it('values: quotes, escapes, comments, continuation lines, bare booleans', () => {
    expect(names('[core]\n\tfsmonitor = "a b" # comment\n')).toEqual(['core..fsmonitor=a b']);
    expect(names('[alias]\n\tx = \\\n!evil\n')).toEqual(['alias..x=!evil']);
    expect(names('[core]\n\tbare\n')).toEqual(['core..bare=true']);
    expect(names('; only a comment\n# another\n')).toEqual([]);
  });

  const ws = useWorkspace();
  it('follows include and includeIf whatever the condition, relative and ~/ paths, loops stop', () => {
    const home = path.join(ws.dir(), 'home');
    mkdirSync(home);
    ws.file('a.cfg', '[include]\n\tpath = b.cfg\n[includeIf "onbranch:never"]\n\tpath = ~/c.cfg\n');
    ws.file('b.cfg', '[filter "fromb"]\n\tclean = x\n[include]\n\tpath = a.cfg\n');
    writeFileSync(path.join(home, 'c.cfg'), '[diff "fromc"]\n\ttextconv = y\n');
    const seen: string[] = [];
    const entries = readConfigFiles([path.join(ws.dir(), 'a.cfg')], home, (f) => seen.push(path.basename(f)));
    const subs = entries.map((e) => e.subsection).filter(Boolean);
    expect(subs).toEqual(expect.arrayContaining(['fromb', 'fromc']));
    expect(seen.sort()).toEqual(['a.cfg', 'b.cfg', 'c.cfg']);
  });
});

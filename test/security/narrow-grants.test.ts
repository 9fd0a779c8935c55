import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeGrant, grantOffer, grantsCover } from '../../src/approval/grant-coverage.js';
import { terminalApprover } from '../../src/cli/tty-approver.js';
import { validateConfig } from '../../src/config/load-config.js';
import type { ApprovalDecision, Approver, ConfirmationRequest } from '../../src/core/confirmation.js';
import { type GrantOffer, MemoryGrantStore, type RememberChoice } from '../../src/core/grant.js';
import { createToolgate, type Toolgate } from '../../src/toolgate.js';
import { scriptedTerminal } from '../helpers/scripted-terminal.js';
import { testTool } from '../helpers/tools.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Issue #30 §5: "always" on one call is as narrow as what was shown. Through the real pipeline
 * (createToolgate, the real tools, the real sandbox), with a scripted person: the first answer says
 * "always", every later one denies, so whatever runs afterwards without being asked ran by a grant.
 */
type Shown = ConfirmationRequest & { always?: GrantOffer };

class ScriptedPerson {
  readonly asked: Shown[] = [];
  #answers: ApprovalDecision[] = [];

  answers(...answers: ApprovalDecision[]): this {
    this.#answers.push(...answers);
    return this;
  }

  readonly approver: Approver = async (requests) => {
    this.asked.push(...(requests as Shown[]));
    return this.#answers.shift() ?? { kind: 'deny_all', reason: 'the script says no' };
  };
}

const always = (remember: RememberChoice): ApprovalDecision =>
  ({ kind: 'approve_all', remember }) as ApprovalDecision;

const config = validateConfig({ tools: { approval: { denylist: [] } } });

async function run(gate: Toolgate, name: string, args: Record<string, unknown>) {
  const [r] = await gate.execute([{ id: `c${Math.random()}`, name, arguments: args }]);
  return r;
}

describe('issue #30 §5: "always" on a file change grants that file (or the directory the person picks)', () => {
  it('"always" on write_file to a.txt lets a.txt be written again unasked, never b.txt; the words shown say so', async () => {
    const root = makeTempDir('toolgate-narrow-');
    const person = new ScriptedPerson().answers(always('session'));
    const gate = createToolgate({ config, roots: [root], approver: person.approver });
    expect((await run(gate, 'write_file', { path: 'a.txt', content: 'one' }))?.ok).toBe(true);
    const [first] = person.asked;
    expect(describeGrant(first as Shown, 'session', { store: 'memory' })).toBe(
      'always allow write_file to a.txt in this session',
    );
    expect((await run(gate, 'write_file', { path: 'a.txt', content: 'two', overwrite: true }))?.ok).toBe(
      true,
    );
    expect(person.asked).toHaveLength(1); // ran by the grant
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('two');
    const b = await run(gate, 'write_file', { path: 'b.txt', content: 'x' });
    expect(b?.ok).toBe(false);
    expect(person.asked.map((r) => r.locations[0]?.path)).toEqual(['a.txt', 'b.txt']);
    expect(existsSync(path.join(root, 'b.txt'))).toBe(false);
    // Another file-changing tool on the same file is its own question.
    const edit = await run(gate, 'edit_file', {
      path: 'a.txt',
      edits: [{ target: 'two', replacement: '3' }],
    });
    expect(edit?.ok).toBe(false);
    expect(person.asked).toHaveLength(3);
  });

  it('a path spelled another way (./a.txt, .//a.txt) is the same file; a.txt.bak, A.txt and sub/a.txt are not', async () => {
    const root = makeTempDir('toolgate-narrow-');
    mkdirSync(path.join(root, 'sub'));
    const person = new ScriptedPerson().answers(always('session'));
    const gate = createToolgate({ config, roots: [root], approver: person.approver });
    await run(gate, 'write_file', { path: 'a.txt', content: '1' });
    for (const p of ['./a.txt', './/a.txt'])
      expect((await run(gate, 'write_file', { path: p, content: p, overwrite: true }))?.content).toMatch(
        /^overwrote: a\.txt/,
      );
    for (const p of ['a.txt.bak', 'A.txt', 'sub/a.txt'])
      expect((await run(gate, 'write_file', { path: p, content: p, overwrite: true }))?.ok).toBe(false);
    expect(person.asked).toHaveLength(4);
  });

  it('apply_patch: the grant names every file the patch changed; a patch touching one more file asks', async () => {
    const root = makeTempDir('toolgate-narrow-');
    const person = new ScriptedPerson().answers(always('session'));
    const gate = createToolgate({ config, roots: [root], approver: person.approver });
    const add = (...files: string[]) =>
      ['*** Begin Patch', ...files.flatMap((f) => [`*** Add File: ${f}`, `+${f}`]), '*** End Patch'].join(
        '\n',
      );
    expect((await run(gate, 'apply_patch', { patch: add('x.txt', 'y.txt') }))?.ok).toBe(true);
    expect(describeGrant(person.asked[0] as Shown, 'project')).toBe(
      'always allow apply_patch to x.txt, y.txt for every session on this journal (every agent using it)',
    );
    const update = (f: string) =>
      ['*** Begin Patch', `*** Update File: ${f}`, '@@', `-${f}`, `+${f}!`, '*** End Patch'].join('\n');
    expect((await run(gate, 'apply_patch', { patch: update('y.txt') }))?.ok).toBe(true);
    expect(person.asked).toHaveLength(1);
    expect((await run(gate, 'apply_patch', { patch: add('z.txt') }))?.ok).toBe(false);
    expect(existsSync(path.join(root, 'z.txt'))).toBe(false);
  });

  it('a directory the person picks covers files under it only; one outside the root, not containing the file, or leading out through a link stores nothing', async () => {
    const root = makeTempDir('toolgate-narrow-');
    const person = new ScriptedPerson().answers(always({ scope: 'session', directory: 'src' }));
    const gate = createToolgate({ config, roots: [root], approver: person.approver });
    expect((await run(gate, 'write_file', { path: 'src/app.ts', content: '1' }))?.ok).toBe(true);
    expect(
      describeGrant(person.asked[0] as Shown, { scope: 'session', directory: 'src' }, { store: 'memory' }),
    ).toBe('always allow write_file to any file under src/ in this session');
    expect((await run(gate, 'write_file', { path: 'src/deep/b.ts', content: '2' }))?.ok).toBe(true);
    expect(person.asked).toHaveLength(1);
    for (const p of ['src2/x.ts', 'other/src/x.ts', 'top.ts'])
      expect((await run(gate, 'write_file', { path: p, content: 'no' }))?.ok).toBe(false);
    expect(person.asked).toHaveLength(4);

    const outside = makeTempDir('toolgate-narrow-outside-');
    symlinkSync(outside, path.join(root, 'out'));
    for (const [i, directory] of ['..', '../..', outside, 'lib', 'out', 'src\0'].entries()) {
      const again = new ScriptedPerson().answers(always({ scope: 'session', directory }));
      const g = createToolgate({ config, roots: [root], approver: again.approver });
      const file = `src/c${i}.ts`;
      expect((await run(g, 'write_file', { path: file, content: 'c' }))?.ok).toBe(true); // approved once
      expect((await run(g, 'write_file', { path: file, content: 'd', overwrite: true }))?.ok).toBe(false); // nothing kept
      expect(again.asked).toHaveLength(2);
    }
  });

  it('deletions always ask: "always" on delete_file (or a patch that deletes) stores nothing and says it is not available', async () => {
    const root = makeTempDir('toolgate-narrow-');
    const store = new MemoryGrantStore();
    const person = new ScriptedPerson().answers(always('project'), always('project'));
    const gate = createToolgate({ config, roots: [root], approver: person.approver, grants: store });
    await run(gate, 'write_file', { path: 'd.txt', content: 'x' });
    store.revoke(1);
    expect((await run(gate, 'delete_file', { path: 'd.txt' }))?.ok).toBe(true);
    expect(describeGrant(person.asked[1] as Shown, 'project')).toBe(
      '"always" is not available for delete_file: deletions always ask',
    );
    expect(store.all()).toEqual([]);
  });

  it('any other tool: "always" covers exactly the arguments approved', async () => {
    const root = makeTempDir('toolgate-narrow-');
    const ran: string[] = [];
    const deploy = testTool(
      'deploy',
      (a) => {
        ran.push(a.value ?? '');
        return 'ok';
      },
      { tier: 'side_effecting' },
    );
    const person = new ScriptedPerson().answers(always('session'));
    const gate = createToolgate({ config, roots: [root], approver: person.approver, tools: [deploy] });
    await run(gate, 'deploy', { value: 'staging' });
    expect(describeGrant(person.asked[0] as Shown, 'session')).toBe(
      'always allow deploy with exactly these arguments (deploy staging) in this session',
    );
    await run(gate, 'deploy', { value: 'staging' });
    await run(gate, 'deploy', { value: 'production' });
    await run(gate, 'deploy', { value: 'staging', ms: 0 });
    expect(ran).toEqual(['staging', 'staging']);
    expect(person.asked).toHaveLength(3);
  });
});

describe('issue #30 §5: "always" is offered only where a grant would stop the question', () => {
  it('a tool that always asks, a rule that asks: no "always" is offered, and an answer of "always" stores nothing', async () => {
    const root = makeTempDir('toolgate-narrow-');
    const ran: string[] = [];
    const tool = (name: string, requiresApproval: boolean) =>
      testTool(
        name,
        (a) => {
          ran.push(`${name} ${a.value}`);
          return 'ok';
        },
        { tier: 'side_effecting', requiresApproval },
      );
    const store = new MemoryGrantStore();
    const asking = validateConfig({
      tools: { approval: { denylist: [] }, policy: { rules: [{ tool: 'ruled', action: 'ask' }] } },
    });
    const person = new ScriptedPerson().answers(always('session'), always('session'));
    const gate = createToolgate({
      config: asking,
      roots: [root],
      approver: person.approver,
      tools: [tool('strict', true), tool('ruled', false)],
      grants: store,
    });
    await run(gate, 'strict', { value: 'v' });
    await run(gate, 'ruled', { value: 'v' });
    expect(ran).toEqual(['strict v', 'ruled v']);
    expect(describeGrant(person.asked[0] as Shown, 'session')).toMatch(
      /^"always" is not available for strict: it asks whatever is granted \("strict" always requires approval/,
    );
    expect(describeGrant(person.asked[1] as Shown, 'session')).toMatch(
      /^"always" is not available for ruled: it asks whatever is granted \(policy rule 0 asks/,
    );
    expect(store.all()).toEqual([]);
  });
});

describe('issue #30 §5: "always" on a fetch grants that origin (scheme, ASCII host, port)', () => {
  const servers: Server[] = [];
  const hits = new Map<number, string[]>();
  let a = 0;
  let b = 0;
  const listen = async () => {
    const server = createServer((req, res) => {
      const port = (server.address() as AddressInfo).port;
      hits.set(port, [...(hits.get(port) ?? []), req.url ?? '']);
      const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
      if (req.url?.startsWith('/go') && to) {
        res.writeHead(302, { location: to });
        res.end();
        return;
      }
      res.setHeader('content-type', 'text/plain');
      res.end(`page ${req.url}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    return (server.address() as AddressInfo).port;
  };
  beforeAll(async () => {
    a = await listen();
    b = await listen();
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });

  it('"always" on a fetch of host A lets A be fetched again unasked; host B, another port or another spelling of the host asks, and B is never reached', async () => {
    const fetchConfig = validateConfig({
      tools: {
        approval: { denylist: [] },
        web: { allow_private: [`127.0.0.1:${a}`, `127.0.0.1:${b}`, `localhost:${a}`] },
      },
    });
    const root = makeTempDir('toolgate-narrow-');
    const person = new ScriptedPerson().answers(always('session'));
    const gate = createToolgate({ config: fetchConfig, roots: [root], approver: person.approver });
    expect((await run(gate, 'web_fetch', { url: `http://127.0.0.1:${a}/first` }))?.ok).toBe(true);
    expect(describeGrant(person.asked[0] as Shown, 'session')).toBe(
      `always allow web_fetch fetches from http://127.0.0.1:${a} in this session`,
    );
    const again = await run(gate, 'web_fetch', { url: `http://127.0.0.1:${a}/second?q=1` });
    expect(again?.content).toContain('page /second?q=1');
    expect(person.asked).toHaveLength(1);
    for (const url of [
      `http://127.0.0.1:${b}/first`,
      `http://localhost:${a}/first`,
      `https://127.0.0.1:${a}/`,
    ])
      expect((await run(gate, 'web_fetch', { url }))?.ok).toBe(false);
    expect(person.asked).toHaveLength(4);
    expect(hits.get(b)).toBeUndefined();
    expect(hits.get(a)).toEqual(['/first', '/second?q=1']);
  });

  it('a redirect from the granted origin to another one is not followed: handed back, never requested (hostile review)', async () => {
    const fetchConfig = validateConfig({
      tools: { approval: { denylist: [] }, web: { allow_private: [`127.0.0.1:${a}`, `127.0.0.1:${b}`] } },
    });
    const root = makeTempDir('toolgate-narrow-redirect-');
    const person = new ScriptedPerson().answers(always('session'));
    const gate = createToolgate({ config: fetchConfig, roots: [root], approver: person.approver });
    hits.clear();
    expect((await run(gate, 'web_fetch', { url: `http://127.0.0.1:${a}/start` }))?.ok).toBe(true);
    const secret = `http://127.0.0.1:${b}/secret`;
    const hop = await run(gate, 'web_fetch', {
      url: `http://127.0.0.1:${a}/go?to=${encodeURIComponent(secret)}`,
    });
    expect(person.asked).toHaveLength(1); // the granted origin: not asked
    expect(hop?.metadata?.redirect).toBe(secret);
    expect(hop?.content).toContain('to another origin');
    expect(hits.get(b)).toBeUndefined();
    // Within the origin a redirect is followed.
    const inside = await run(gate, 'web_fetch', { url: `http://127.0.0.1:${a}/go?to=%2Finside` });
    expect(inside?.content).toContain('page /inside');
  });

  it('a look-alike host is granted and matched in its ASCII (punycode) form: a grant for apple.com never covers аpple.com', () => {
    const offer = grantOffer({ tool: 'web_fetch', args: { url: 'http://аpple.com/x' }, paths: [] });
    expect(offer).toEqual({ covers: [{ kind: 'origin', origin: 'http://xn--pple-43d.com' }] });
    const grant = {
      tool: 'web_fetch',
      covers: { kind: 'origin' as const, origin: 'http://apple.com' },
      scope: 'session' as const,
      createdAt: 0,
    };
    expect(grantsCover([grant], { tool: 'web_fetch', args: { url: 'http://аpple.com/' }, paths: [] })).toBe(
      false,
    );
    expect(
      grantsCover([grant], { tool: 'web_fetch', args: { url: 'http://apple.com:80/y' }, paths: [] }),
    ).toBe(true);
    expect(
      grantsCover([grant], {
        tool: 'web_fetch',
        args: { url: 'http://user:pw@apple.com.evil.example/' },
        paths: [],
      }),
    ).toBe(false);
    expect(grantOffer({ tool: 'web_fetch', args: { url: 'file:///etc/passwd' }, paths: [] })).toEqual({
      refused: 'the URL cannot be read',
    });
  });
});

describe('issue #30 §5: a directory the person picks at the terminal', () => {
  it('"always src" covers files under src only; a directory that does not hold the file is asked again', async () => {
    const root = makeTempDir('toolgate-narrow-dir-tty-');
    mkdirSync(path.join(root, 'src', 'app'), { recursive: true });
    mkdirSync(path.join(root, 'other'));
    const t = scriptedTerminal(['s', 'always other', 'always src'], { endWhenDone: true });
    const gate = createToolgate({
      config,
      roots: [root],
      approver: terminalApprover(t, { store: 'memory' }),
    });
    expect((await run(gate, 'write_file', { path: 'src/app/a.ts', content: 'a' }))?.ok).toBe(true);
    expect(t.shown()).toContain('always DIR/project DIR');
    expect(t.shown()).toContain('please answer'); // "always other" does not hold src/app/a.ts
    expect(t.shown()).toContain('→ always allow write_file to any file under src/ in this session');
    // Under src: no question (the terminal has no answers left, so a question would deny).
    expect((await run(gate, 'write_file', { path: 'src/b.ts', content: 'b' }))?.ok).toBe(true);
    expect(readFileSync(path.join(root, 'src', 'b.ts'), 'utf8')).toBe('b');
    const outside = await run(gate, 'write_file', { path: 'other/c.ts', content: 'c' });
    expect(outside?.ok).toBe(false);
    expect(existsSync(path.join(root, 'other', 'c.ts'))).toBe(false);
  });
});

import { symlinkSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testTool } from '../../test/helpers/tools.js';
import { makeTempDir, useWorkspace } from '../../test/helpers/workspace.js';
import { validateConfig } from '../config/load-config.js';
import type { PlannedCall } from '../core/planned-call.js';
import type { ToolCall } from '../core/tool-call.js';
import { createToolgate } from '../toolgate.js';

const kinds = (planned: PlannedCall[]) => planned.map((p) => p.disposition.kind);
const errorType = (p: PlannedCall | undefined) =>
  p?.disposition.kind === 'resolved' ? p.disposition.result.error?.type : undefined;

describe('planBatch', () => {
  const ws = useWorkspace();
  const gate = (tools: Record<string, unknown> = {}) =>
    createToolgate({
      config: validateConfig({ tools }),
      roots: [ws.dir()],
      builtins: false,
      tools: [
        testTool('echo'),
        testTool('writer', undefined, { tier: 'side_effecting' }),
        testTool('reader', undefined, { path: true }),
      ],
    });
  const call = (id: string, name = 'echo', args: ToolCall['arguments'] = {}): ToolCall => ({
    id,
    name,
    arguments: args,
  });

  it('T-MODE-01: disabled mode rejects every call', () => {
    const planned = gate({ mode: 'disabled' }).plan([call('1'), call('2', 'writer')]);
    expect(planned.map(errorType)).toEqual(['Denied', 'Denied']);
  });

  it('T-MODE-02: parse_only surfaces calls without running them', () => {
    const planned = gate({ mode: 'parse_only' }).plan([call('1', 'echo', { value: 'x' })]);
    expect(errorType(planned[0])).toBe('Denied');
    expect(planned[0]?.summary).toBe('echo x');
    expect(planned[0]?.disposition.kind === 'resolved' && planned[0].disposition.result.content).toMatch(
      /parse_only/,
    );
  });

  it('T-LIM-01: calls past max_tool_calls_per_batch are pre-resolved, the first ones still run', () => {
    const planned = gate({ max_tool_calls_per_batch: 2 }).plan([call('1'), call('2'), call('3'), call('4')]);
    expect(kinds(planned)).toEqual(['execute', 'execute', 'resolved', 'resolved']);
    expect(errorType(planned[2])).toBe('LimitExceeded');
  });

  it('T-LIM-01: past the limit a call still reports its own mistake, and the limit names its config key', () => {
    const planned = gate({ max_tool_calls_per_batch: 2 }).plan([
      call('1'),
      call('2'),
      call('1'), // a duplicate id past the limit
      call('4', 'echo', '{not json'),
      call('5', 'nope'),
      call('6'),
    ]);
    expect(planned.map(errorType)).toEqual([
      undefined,
      undefined,
      'DuplicateToolCallId',
      'BadArgs',
      'UnknownTool',
      'LimitExceeded',
    ]);
    const last = planned[5]?.disposition;
    expect(last?.kind === 'resolved' && last.result.content).toMatch(
      /call 6 of 6 and at most 2 run; .*\[tools\] max_tool_calls_per_batch raises the limit/,
    );
    expect(last?.kind === 'resolved' && last.result.metadata?.denial).toMatchObject({
      kind: 'limits_exceeded',
      rule: 'tools.max_tool_calls_per_batch',
    });
  });

  it('NFR-ERR-02: a denial carries its structured reason: rule, attempted and resolved path or pattern', () => {
    ws.file('secrets/key.txt', 'k');
    const g = createToolgate({
      config: validateConfig({
        tools: { sandbox: { denied_patterns: ['**/secrets/**'] }, approval: { denylist: ['writer'] } },
      }),
      roots: [ws.dir()],
      builtins: false,
      tools: [
        testTool('reader', undefined, { path: true }),
        testTool('writer', undefined, { tier: 'side_effecting' }),
      ],
    });
    const [outside, pattern, denylisted] = g.plan([
      call('1', 'reader', { path: '/etc/passwd' }),
      call('2', 'reader', { path: 'secrets/key.txt' }),
      call('3', 'writer'),
    ]);
    const denial = (p: PlannedCall | undefined) =>
      p?.disposition.kind === 'resolved' ? p.disposition.result.metadata?.denial : undefined;
    expect(denial(outside)).toMatchObject({
      kind: 'path_outside_sandbox',
      rule: 'tools.sandbox',
      attempted: '/etc/passwd',
    });
    expect(denial(pattern)).toMatchObject({
      kind: 'denied_pattern',
      attempted: 'secrets/key.txt',
      resolved: 'secrets/key.txt',
      pattern: '**/secrets/**',
    });
    expect(denial(denylisted)).toMatchObject({
      kind: 'denylisted',
      rule: 'tools.approval.denylist',
      allow: expect.stringContaining('remove "writer" from [tools.approval] denylist'),
    });
  });

  it('NFR-ERR-02: a path that resolves outside the roots names what it resolved to', () => {
    const outside = makeTempDir();
    symlinkSync(outside, path.join(ws.dir(), 'link'));
    const [p] = gate().plan([call('1', 'reader', { path: 'link/x.txt' })]);
    expect(p?.disposition.kind === 'resolved' && p.disposition.result.metadata?.denial).toEqual({
      kind: 'path_outside_sandbox',
      reason: expect.stringContaining('resolves outside the allowed roots'),
      rule: 'tools.sandbox',
      file: '(built-in defaults)',
      attempted: 'link/x.txt',
      resolved: path.join(outside, 'x.txt'),
    });
  });

  it('FR-LIM-03: arguments over max_tool_args_bytes are LimitExceeded', () => {
    const planned = gate({ max_tool_args_bytes: 50 }).plan([
      call('1', 'echo', { value: 'x'.repeat(100) }),
      call('2', 'echo', 'y'.repeat(60)),
    ]);
    expect(planned.map(errorType)).toEqual(['LimitExceeded', 'LimitExceeded']);
  });

  it('FR-VAL-02a: duplicate ids are pre-resolved and never run', () => {
    const planned = gate().plan([call('a'), call('a'), call('b'), call('a')]);
    expect(kinds(planned)).toEqual(['execute', 'resolved', 'execute', 'resolved']);
    expect(errorType(planned[1])).toBe('DuplicateToolCallId');
  });

  it('T-VAL-01: an unknown tool is pre-resolved and lists the real tools', () => {
    const [p] = gate().plan([call('1', 'rm_rf')]);
    expect(errorType(p)).toBe('UnknownTool');
    expect(p?.disposition.kind === 'resolved' && p.disposition.result.content).toMatch(
      /echo, reader, writer/,
    );
  });

  it('T-VAL-02: schema-invalid arguments are pre-resolved with what is wrong', () => {
    const planned = gate().plan([
      call('1', 'echo', { value: 3 }),
      call('2', 'echo', { nope: true }),
      call('3', 'echo', '{not json'),
      call('4', 'echo', '[1,2]'),
      call('5', 'echo', '{"value":"ok"}'),
    ]);
    expect(planned.map(errorType)).toEqual(['BadArgs', 'BadArgs', 'BadArgs', 'BadArgs', undefined]);
    const messages = planned.map((p) =>
      p.disposition.kind === 'resolved' ? p.disposition.result.error?.message : '',
    );
    expect(messages[0]).toMatch(/value: must be string/);
    expect(messages[1]).toMatch(/unknown parameter "nope"/);
    expect(messages[2]).toMatch(/not valid JSON/);
  });

  it('sandbox preflight from locations() pre-resolves a path escape as SandboxViolation', () => {
    const [p] = gate().plan([call('1', 'reader', { path: '../outside' })]);
    expect(errorType(p)).toBe('SandboxViolation');
  });

  it('Property 37: every call that needs confirmation carries its tool name, a description, a risk level and the locations it affects', () => {
    const builtins = createToolgate({
      config: validateConfig({ tools: { approval: { denylist: [] } } }),
      roots: [ws.dir()],
    });
    const rel = fc
      .array(fc.stringMatching(/^[a-z][a-z0-9_-]{0,6}$/), { minLength: 1, maxLength: 3 })
      .map((parts) => parts.join('/'));
    type Case = {
      name: string;
      args: Record<string, unknown>;
      locations: { path: string; access: string }[];
    };
    const cases: fc.Arbitrary<Case> = fc.oneof(
      fc.record({ path: rel, content: fc.string(), overwrite: fc.boolean() }).map((args) => ({
        name: 'write_file',
        args,
        locations: [{ path: args.path, access: 'write' }],
      })),
      fc
        .record({
          path: rel,
          edits: fc.array(fc.record({ target: fc.string({ minLength: 1 }), replacement: fc.string() }), {
            minLength: 1,
            maxLength: 3,
          }),
        })
        .map((args) => ({ name: 'edit_file', args, locations: [{ path: args.path, access: 'write' }] })),
      fc.record({ path: rel, recursive: fc.boolean() }).map((args) => ({
        name: 'delete_file',
        args,
        locations: [{ path: args.path, access: 'delete' }],
      })),
      fc.uniqueArray(rel, { minLength: 1, maxLength: 3 }).map((paths) => ({
        name: 'apply_patch',
        args: {
          patch: `*** Begin Patch\n${paths.map((p) => `*** Add File: ${p}\n+x\n`).join('')}*** End Patch`,
        },
        locations: paths.map((p) => ({ path: p, access: 'write' })),
      })),
      fc
        .record(
          {
            command: fc.constantFrom('touch x', 'npm test', 'echo token=abcdefgh12345678 > out', 'make'),
            cwd: rel,
          },
          { requiredKeys: ['command'] },
        )
        .map((args) => ({
          name: 'run_command',
          args,
          locations: [{ path: args.cwd ?? '.', access: 'list' }],
        })),
    );
    fc.assert(
      fc.property(cases, fc.stringMatching(/^[a-z0-9]{1,8}$/), ({ name, args, locations }, id) => {
        const [p] = builtins.plan([{ id, name, arguments: args }]);
        expect(p?.disposition.kind).toBe('needs_approval');
        if (p?.disposition.kind !== 'needs_approval') return;
        const { request } = p.disposition;
        expect(request.callId).toBe(id);
        expect(request.toolName).toBe(name);
        expect(request.summary).toBe(p.summary);
        expect(request.summary.length).toBeGreaterThan(0);
        expect(Array.from(request.summary).length).toBeLessThanOrEqual(200);
        // Shown exactly (issue #30 §1): what the person approves is what runs, secrets included.
        if (JSON.stringify(args).includes('abcdefgh12345678'))
          expect(request.summary).toContain('abcdefgh12345678');
        expect(['low', 'medium', 'high']).toContain(request.risk);
        expect(request.risk).toBe(p.decision?.risk);
        expect(request.locations).toEqual(locations);
        expect(request.reason.length).toBeGreaterThan(0);
        expect(request.rule.length).toBeGreaterThan(0);
      }),
    );
  });

  it('Property 37 (example): side-effecting calls need approval with a complete ConfirmationRequest', () => {
    const [p] = gate().plan([call('1', 'writer', { value: 'v', path: 'x.txt' })]);
    expect(p?.disposition).toMatchObject({
      kind: 'needs_approval',
      request: {
        callId: '1',
        toolName: 'writer',
        summary: 'writer v',
        risk: 'medium',
        locations: [{ path: 'x.txt', access: 'read' }],
        reason: expect.any(String),
        rule: 'tools.approval.prompt_side_effects',
        index: 0,
      },
    });
  });

  it('issue #30 §1 and §3: summaries are exact, cut at 200 characters as a title that says so, and whole beside it', () => {
    const value = `token=abcdefgh12345678 ${'z'.repeat(300)}`;
    const [p] = gate().plan([call('1', 'writer', { value })]);
    expect(p?.summary).toContain('abcdefgh12345678');
    expect(Array.from(p?.summary ?? '').length).toBeLessThanOrEqual(200);
    expect(p?.summary).toMatch(/ … \[cut: \d+ more characters\]$/);
    const request = p?.disposition.kind === 'needs_approval' ? p.disposition.request : undefined;
    expect(request?.summaryFull).toBe(`writer ${value}`);
  });

  it('rate limits count earlier calls of the same batch', () => {
    const g = createToolgate({
      config: validateConfig({ tools: { governance: { tools: { echo: { rate_limit_per_hour: 2 } } } } }),
      roots: [ws.dir()],
      builtins: false,
      tools: [testTool('echo')],
    });
    expect(g.plan([call('1'), call('2'), call('3')]).map(errorType)).toEqual([
      undefined,
      undefined,
      'LimitExceeded',
    ]);
  });

  it('Property 47: every call gets exactly one disposition, in call order: run it, ask with its confirmation details, or a result', () => {
    // Seed 001's shouldConfirmExecute() (false | confirmation details) is the planner's disposition
    // (DESIGN §1): `execute`, `needs_approval` with its ConfirmationRequest, or a pre-resolved result.
    const g = gate({ max_tool_calls_per_batch: 5 });
    const arbCall = fc.record({
      id: fc.constantFrom('a', 'b', 'c', 'd'),
      name: fc.constantFrom('echo', 'writer', 'reader', 'nope'),
      arguments: fc.oneof(
        fc.constant({}),
        fc.constant('{'),
        fc.record({ value: fc.string() }),
        fc.record({ path: fc.constantFrom('x', '../y', '/etc') }),
      ),
    });
    fc.assert(
      fc.property(fc.array(arbCall, { maxLength: 12 }), (calls) => {
        const planned = g.plan(calls);
        expect(planned.map((p) => p.call.id)).toEqual(calls.map((c) => c.id));
        expect(planned.map((p) => p.index)).toEqual(calls.map((_, i) => i));
        for (const p of planned) {
          const d = p.disposition;
          if (d.kind === 'execute') {
            // No confirmation needed: policy allowed it.
            expect(p.decision?.action).toBe('allow');
          } else if (d.kind === 'needs_approval') {
            expect(p.decision?.action).toBe('ask');
            expect(d.request).toMatchObject({ callId: p.call.id, toolName: p.call.name, summary: p.summary });
          } else {
            expect(d.result).toMatchObject({ id: p.call.id, name: p.call.name, ok: false });
            expect(typeof d.result.error?.type).toBe('string');
          }
        }
      }),
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultConfig, validateConfig } from '../config/load-config.js';
import { createToolgate } from '../toolgate.js';
import { builtinTools } from './builtin-tools.js';

const tools = builtinTools(defaultConfig());
const argsFor: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  read_file: fc.record({ path: fc.string({ minLength: 1 }) }),
  list_directory: fc.record({ path: fc.string({ minLength: 1 }), depth: fc.integer({ min: 0, max: 10 }) }),
  write_file: fc.record({ path: fc.string({ minLength: 1 }), content: fc.string() }),
  read_many_files: fc.string({ minLength: 1 }).map((p) => ({ path: p, paths: [p] })),
  glob: fc.record({ path: fc.string({ minLength: 1 }), pattern: fc.constantFrom('*.ts', '**/*') }),
  grep: fc.record({ path: fc.string({ minLength: 1 }), pattern: fc.string({ minLength: 1 }) }),
  run_command: fc
    .record({ path: fc.string({ minLength: 1 }), command: fc.string({ minLength: 1 }) })
    .map((r) => ({ ...r, cwd: r.path })),
  read_job_output: fc.record({ id: fc.string({ minLength: 1 }), stop: fc.boolean() }),
  system_metrics_snapshot: fc.constant({}),
  check_process_health: fc.record({
    pids: fc.array(fc.integer({ min: 1, max: 99999 }), { minLength: 1, maxLength: 3 }),
  }),
  read_system_logs: fc.record({ lines: fc.integer({ min: 1, max: 2000 }) }),
  git_status: fc.record({ path: fc.string({ minLength: 1 }) }),
  write_todos: fc.record({ action: fc.constantFrom('add', 'list'), task: fc.string({ minLength: 1 }) }),
  memory: fc.record({
    action: fc.constantFrom('list', 'search'),
    query: fc.string({ minLength: 1, maxLength: 20 }),
  }),
  memory_search: fc.record({
    query: fc.string({ minLength: 1, maxLength: 50 }),
    top_k: fc.integer({ min: 1, max: 20 }),
    include_conversation: fc.boolean(),
  }),
  memory_save: fc.record({ content: fc.string({ minLength: 1, maxLength: 100 }) }),
  memory_update: fc.record({
    note_id: fc.uuid().map((u) => `note-${u}`),
    content: fc.string({ minLength: 1, maxLength: 100 }),
  }),
  memory_delete: fc.record({ note_id: fc.uuid().map((u) => `note-${u}`) }),
  vault_copyto: fc.record({
    source: fc.string({ minLength: 1 }),
    destination: fc.string({ minLength: 1 }),
    overwrite: fc.boolean(),
  }),
  web_search: fc.record({
    query: fc.string({ minLength: 1, maxLength: 50 }),
    num_results: fc.integer({ min: 1, max: 20 }),
  }),
  web_fetch: fc.record({ url: fc.webUrl(), format: fc.constantFrom('markdown', 'text', 'html') }),
  delete_file: fc.record({ path: fc.string({ minLength: 1 }), recursive: fc.boolean() }),
  edit_file: fc.record({
    path: fc.string({ minLength: 1 }),
    edits: fc.array(fc.record({ target: fc.string({ minLength: 1 }), replacement: fc.string() }), {
      minLength: 1,
      maxLength: 3,
    }),
  }),
  apply_patch: fc
    .tuple(fc.stringMatching(/^[a-z]{1,8}\.txt$/), fc.stringMatching(/^[a-z ]{0,10}$/))
    .map(([p, line]) => ({ path: p, patch: `*** Begin Patch\n*** Add File: ${p}\n+${line}\n*** End Patch` })),
};

describe('built-in tool invocations', () => {
  it('every built-in has arguments for this test', () => {
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(argsFor).sort());
  });

  for (const tool of tools) {
    it(`Property 45 and Property 46: ${tool.name} describes every call (non-empty) and names the locations it touches, with a risk`, () => {
      fc.assert(
        fc.property(argsFor[tool.name] as fc.Arbitrary<Record<string, unknown>>, (generated) => {
          // apply_patch takes only `patch`; the generated `path` is what its locations must name.
          const { path: _p, ...rest } = generated;
          const pathless = tool.name === 'apply_patch' || tool.name === 'read_many_files';
          const raw = pathless || _p === undefined ? generated : { path: _p, ...rest };
          const args = tool.parse(pathless || tool.name === 'run_command' ? rest : raw);
          expect(tool.summary(args).length).toBeGreaterThan(0);
          const locations = tool.locations(args);
          expect(Array.isArray(locations)).toBe(true);
          // Tools that touch paths name them; system tools that take none have no locations.
          if (raw.path !== undefined) expect(locations.map((l) => l.path)).toContain(raw.path);
          for (const l of locations) expect(['read', 'write', 'delete', 'list']).toContain(l.access);
          expect(['low', 'medium', 'high']).toContain(tool.risk);
        }),
        { numRuns: 100 },
      );
    });
  }

  it("Property 44: arguments that do not match a tool's schema are BadArgs, before policy or execution", () => {
    // One valid call per tool; each mutation below breaks it in one way only.
    const valid: Record<string, Record<string, unknown>> = {
      read_file: { path: 'a.txt', start_line: 1 },
      read_many_files: { paths: ['a.txt'] },
      list_directory: { path: '.', depth: 1 },
      glob: { pattern: '*', max_results: 5 },
      grep: { pattern: 'x', case_sensitive: true },
      delete_file: { path: 'a.txt' },
      write_file: { path: 'a.txt', content: 'x', overwrite: false },
      edit_file: { path: 'a.txt', edits: [{ target: 'a', replacement: 'b' }] },
      apply_patch: { patch: '*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch' },
      run_command: { command: 'ls', timeout_ms: 1000 },
      read_job_output: { id: 'job-1', stop: false },
      system_metrics_snapshot: {},
      check_process_health: { pids: [1] },
      read_system_logs: { lines: 10 },
      git_status: { path: '.' },
      web_fetch: { url: 'https://example.org/', format: 'text' },
      write_todos: { action: 'add', task: 'x' },
      web_search: { query: 'tides', num_results: 3 },
      memory: { action: 'list' },
      memory_search: { query: 'tides', top_k: 3 },
      memory_save: { content: 'the tide turns at six' },
      memory_update: { note_id: 'note-00000000-0000-4000-8000-000000000000', content: 'x' },
      memory_delete: { note_id: 'note-00000000-0000-4000-8000-000000000000' },
      vault_copyto: { source: 'report.csv', destination: 'in/report.csv' },
    };
    expect(Object.keys(valid).sort()).toEqual(tools.map((t) => t.name).sort());
    const gate = createToolgate({
      config: validateConfig({ tools: { approval: { denylist: [] } } }),
      roots: [process.cwd()],
    });
    const planOne = (name: string, args: unknown) => {
      const [p] = gate.plan([{ id: '1', name, arguments: args as Record<string, unknown> | string }]);
      return p?.disposition.kind === 'resolved' ? p.disposition.result.error : null;
    };
    for (const [name, args] of Object.entries(valid)) expect(planOne(name, args)?.type).not.toBe('BadArgs');

    const classOf = (v: unknown) =>
      v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v;
    const schemaClass = (type: string) => (type === 'integer' ? 'number' : type);
    const anyJson = fc.oneof(
      fc.string({ maxLength: 5 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.integer(), { maxLength: 2 }),
      fc.dictionary(fc.stringMatching(/^[a-z]{1,3}$/), fc.integer(), { maxKeys: 2 }),
    );
    type Broken = { args: unknown; names?: string };
    const broken = (tool: (typeof tools)[number]): fc.Arbitrary<Broken> => {
      const schema = tool.inputSchema as {
        required?: string[];
        properties?: Record<string, { type?: string }>;
        additionalProperties?: boolean;
      };
      const base = valid[tool.name] as Record<string, unknown>;
      const typed = Object.entries(schema.properties ?? {}).filter(([, p]) => typeof p.type === 'string');
      const options: fc.Arbitrary<Broken>[] = [
        // Not an object at all, or not JSON.
        fc.constantFrom('[1,2]', '"text"', '42', 'null', '{not json', 'true').map((args) => ({ args })),
      ];
      if (schema.additionalProperties === false) {
        options.push(
          fc
            .tuple(fc.stringMatching(/^zz_[a-z]{1,6}$/), anyJson)
            .map(([key, value]) => ({ args: { ...base, [key]: value }, names: key })),
        );
      }
      if (schema.required?.length) {
        options.push(
          fc.constantFrom(...schema.required).map((key) => {
            const { [key]: _gone, ...rest } = base;
            return { args: rest, names: key };
          }),
        );
      }
      if (typed.length > 0) {
        options.push(
          fc
            .tuple(fc.constantFrom(...typed), anyJson)
            .filter(([[, p], value]) => classOf(value) !== schemaClass(p.type as string))
            .map(([[key], value]) => ({ args: { ...base, [key]: value }, names: key })),
        );
      }
      return fc.oneof(...options);
    };
    fc.assert(
      fc.property(
        fc.constantFrom(...tools).chain((tool) => broken(tool).map((b) => ({ tool: tool.name, ...b }))),
        ({ tool, args, names }) => {
          const error = planOne(tool, args);
          expect(error?.type).toBe('BadArgs');
          expect(error?.message.length).toBeGreaterThan(0);
          if (names) expect(error?.message).toContain(names);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('the schemas each model receives stay as they are (snapshot of the contract)', () => {
    expect(Object.fromEntries(tools.map((t) => [t.name, t.inputSchema]))).toMatchSnapshot();
  });
});

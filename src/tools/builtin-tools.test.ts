import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../config/load-config.js';
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
    it(`Properties 45-47: ${tool.name} has a non-empty description, its locations, and a risk`, () => {
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
        { numRuns: 50 },
      );
    });
  }

  it('the schemas each model receives stay as they are (snapshot of the contract)', () => {
    expect(Object.fromEntries(tools.map((t) => [t.name, t.inputSchema]))).toMatchSnapshot();
  });
});

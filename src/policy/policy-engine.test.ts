import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testTool } from '../../test/helpers/tools.js';
import { validateConfig } from '../config/load-config.js';
import type { Tier } from '../core/tier.js';
import { ToolError } from '../core/tool-error.js';
import { PolicyEngine, type PolicyInput } from './policy-engine.js';

function engine(tools: Record<string, unknown> = {}) {
  const config = validateConfig({ tools });
  return new PolicyEngine(config.tools, 'toolgate.toml');
}

function input(
  name: string,
  tier: Tier = 'read_only',
  extra: Partial<PolicyInput> = {},
  requiresApproval?: boolean,
): PolicyInput {
  return {
    tool: testTool(name, undefined, {
      tier,
      ...(requiresApproval === undefined ? {} : { requiresApproval }),
    }),
    args: {},
    paths: [],
    recentCalls: 0,
    ...extra,
  };
}

describe('PolicyEngine', () => {
  it('FR-APR-04a: disabled denies everything with the seed message', () => {
    const d = engine({ approval: { enabled: false } }).decide(input('read_file'));
    expect(d).toMatchObject({
      action: 'deny',
      reason: 'Tool execution disabled by policy',
      rule: 'tools.approval.enabled',
      file: 'toolgate.toml',
    });
  });

  it('FR-APR-04b: the denylist denies in every mode, even allowlisted', () => {
    for (const mode of ['auto', 'prompt', 'deny']) {
      const d = engine({ approval: { mode, denylist: ['x'], allowlist: ['x'] } }).decide(input('x'));
      expect(d.action).toBe('deny');
      expect(d.rule).toBe('tools.approval.denylist');
    }
  });

  it('run_command is denylisted by default (NFR-SEC-06)', () => {
    expect(engine().decide(input('run_command', 'privileged')).action).toBe('deny');
  });

  it('FR-APR-04c: deny mode runs only allowlisted tools', () => {
    const e = engine({ approval: { mode: 'deny', allowlist: ['ok'] } });
    expect(e.decide(input('ok')).action).toBe('allow');
    expect(e.decide(input('other')).action).toBe('deny');
  });

  it('FR-APR-04d: prompt mode asks for side effects unless allowlisted', () => {
    const e = engine({ approval: { mode: 'prompt', allowlist: ['w2'] } });
    expect(e.decide(input('w', 'side_effecting')).action).toBe('ask');
    expect(e.decide(input('w2', 'side_effecting')).action).toBe('allow');
    expect(e.decide(input('r', 'read_only')).action).toBe('allow');
    const quiet = engine({ approval: { mode: 'prompt', prompt_side_effects: false } });
    expect(quiet.decide(input('w', 'side_effecting')).action).toBe('allow');
  });

  it('FR-APR-04e: tool-level requiresApproval asks even when allowlisted or in auto mode', () => {
    expect(
      engine({ approval: { mode: 'auto', allowlist: ['p'] } }).decide(input('p', 'privileged')).action,
    ).toBe('ask');
    expect(engine({ approval: { mode: 'auto' } }).decide(input('r', 'read_only', {}, true)).action).toBe(
      'ask',
    );
  });

  it('DESIGN §3: a conditioned allow rule is standing approval; an unconditioned one is not', () => {
    const conditioned = engine({
      policy: {
        rules: [
          {
            tool: 'p',
            action: 'allow',
            conditions: [{ param: 'value', operator: 'startsWith', value: 'git ' }],
          },
        ],
      },
    });
    expect(conditioned.decide(input('p', 'privileged', { args: { value: 'git status' } })).action).toBe(
      'allow',
    );
    expect(conditioned.decide(input('p', 'privileged', { args: { value: 'rm -rf /' } })).action).toBe('ask');
    const plain = engine({ policy: { rules: [{ tool: 'p', action: 'allow' }] } });
    expect(plain.decide(input('p', 'privileged')).action).toBe('ask');
  });

  it('FR-APR-05: precedence disabled > denylist > sandbox > mode > requiresApproval', () => {
    const sandboxError = new ToolError('SandboxViolation', 'outside');
    // denylist beats sandbox
    expect(
      engine({ approval: { denylist: ['t'] } }).decide(input('t', 'read_only', { sandboxError })).rule,
    ).toBe('tools.approval.denylist');
    // sandbox beats an allow rule and the allowlist
    const d = engine({
      approval: { allowlist: ['t'] },
      policy: { rules: [{ tool: 't', action: 'allow' }] },
    }).decide(input('t', 'read_only', { sandboxError }));
    expect(d).toMatchObject({ action: 'deny', errorType: 'SandboxViolation' });
  });

  it('Property 33: the decision is the matching rule’s action, else the mode default', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('allow', 'deny', 'ask'),
        fc.constantFrom<Tier>('read_only', 'side_effecting'),
        (action, tier) => {
          const e = engine({ approval: { mode: 'auto' }, policy: { rules: [{ tool: 't', action }] } });
          expect(e.decide(input('t', tier)).action).toBe(action);
          expect(e.decide(input('other', tier)).action).toBe('allow');
        },
      ),
    );
  });

  it('Property 34: a tool-specific rule beats a glob, which beats "*"', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('allow', 'deny', 'ask'),
        fc.constantFrom('allow', 'deny', 'ask'),
        fc.constantFrom('allow', 'deny', 'ask'),
        (specific, glob, wildcard) => {
          const rules = [
            { tool: '*', action: wildcard },
            { tool: 'write_*', action: glob },
            { tool: 'write_file', action: specific },
          ];
          const e = engine({ approval: { mode: 'auto' }, policy: { rules } });
          expect(e.decide(input('write_file')).action).toBe(specific);
          expect(e.decide(input('write_other')).action).toBe(glob);
          expect(e.decide(input('read_file')).action).toBe(wildcard);
        },
      ),
    );
  });

  it('deny wins a tie between rules of the same specificity', () => {
    const e = engine({
      approval: { mode: 'auto' },
      policy: {
        rules: [
          { tool: 't', action: 'allow' },
          { tool: 't', action: 'deny' },
          { tool: 't', action: 'ask' },
        ],
      },
    });
    expect(e.decide(input('t')).action).toBe('deny');
  });

  it('Property 35: a rule applies only when all its conditions hold', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (prefix, rest) => {
        const e = engine({
          approval: { mode: 'auto' },
          policy: {
            rules: [
              {
                tool: 't',
                action: 'deny',
                conditions: [
                  { param: 'value', operator: 'startsWith', value: prefix },
                  { param: 'path', operator: 'contains', value: 'secret' },
                ],
              },
            ],
          },
        });
        expect(
          e.decide(input('t', 'read_only', { args: { value: prefix + rest, path: 'a/secret/b' } })).action,
        ).toBe('deny');
        expect(
          e.decide(input('t', 'read_only', { args: { value: prefix + rest, path: 'a/public' } })).action,
        ).toBe('allow');
        expect(e.decide(input('t', 'read_only', { args: { path: 'a/secret' } })).action).toBe('allow'); // missing param
      }),
    );
  });

  it('conditions: equals, matches, path-glob on the canonical relative path, value lists', () => {
    const e = engine({
      approval: { mode: 'auto' },
      policy: {
        rules: [
          {
            tool: 'a',
            action: 'deny',
            conditions: [{ param: 'value', operator: 'equals', value: ['x', 'y'] }],
          },
          {
            tool: 'b',
            action: 'deny',
            conditions: [{ param: 'value', operator: 'matches', value: '^rm\\s' }],
          },
          {
            tool: 'c',
            action: 'deny',
            conditions: [{ param: 'path', operator: 'path-glob', value: 'secret/**' }],
          },
        ],
      },
    });
    expect(e.decide(input('a', 'read_only', { args: { value: 'y' } })).action).toBe('deny');
    expect(e.decide(input('a', 'read_only', { args: { value: 'z' } })).action).toBe('allow');
    expect(e.decide(input('b', 'read_only', { args: { value: 'rm -rf' } })).action).toBe('deny');
    const paths = [{ input: './secret//k', absolute: '/r/secret/k', root: '/r', relative: 'secret/k' }];
    expect(e.decide(input('c', 'read_only', { args: { path: './secret//k' }, paths })).action).toBe('deny');
  });

  it('Property 36: every decision carries a risk level of low, medium or high', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<Tier>('read_only', 'side_effecting', 'privileged'),
        fc.string({ minLength: 1, maxLength: 8 }),
        (tier, n) => {
          const name = `t${n.replace(/[^a-z]/gi, '')}`;
          expect(['low', 'medium', 'high']).toContain(engine().decide(input(name, tier)).risk);
        },
      ),
    );
    expect(engine().decide(input('p', 'privileged')).risk).toBe('high');
  });

  it('governance: LOCKDOWN forbids side effects, ALERT asks, per-tool modes and paths', () => {
    expect(engine({ governance: { mode: 'LOCKDOWN' } }).decide(input('w', 'side_effecting')).action).toBe(
      'deny',
    );
    expect(engine({ governance: { mode: 'LOCKDOWN' } }).decide(input('r')).action).toBe('allow');
    expect(
      engine({ governance: { mode: 'ALERT' }, approval: { mode: 'auto' } }).decide(
        input('w', 'side_effecting'),
      ).action,
    ).toBe('ask');
    expect(engine({ governance: { mode: 'DEGRADED' } }).decide(input('p', 'privileged')).action).toBe('deny');
    const perTool = engine({
      governance: { mode: 'ALERT', tools: { r: { forbidden_in_modes: ['ALERT'] } } },
    });
    expect(perTool.decide(input('r')).rule).toBe('tools.governance.tools.r.forbidden_in_modes');
    const configuredMode = engine({
      governance: { mode: 'RECOVERY', modes: { RECOVERY: { allowed: ['r'], forbidden: [] } } },
    });
    expect(configuredMode.decide(input('r')).action).toBe('allow');
    expect(configuredMode.decide(input('other')).action).toBe('deny');
    const paths = [{ input: 'a.lock', absolute: '/r/a.lock', root: '/r', relative: 'a.lock' }];
    const pathRules = engine({ governance: { tools: { r: { forbidden_paths: ['**/*.lock'] } } } });
    expect(pathRules.decide(input('r', 'read_only', { paths })).action).toBe('deny');
    const allowedPaths = engine({ governance: { tools: { r: { allowed_paths: ['docs/**'] } } } });
    expect(allowedPaths.decide(input('r', 'read_only', { paths })).action).toBe('deny');
  });

  it('mode can change at run time', () => {
    const e = engine();
    e.setMode('LOCKDOWN');
    expect(e.decide(input('w', 'side_effecting')).action).toBe('deny');
  });

  it('rate limits per hour deny with LimitExceeded', () => {
    const e = engine({ governance: { tools: { r: { rate_limit_per_hour: 2 } } } });
    expect(e.decide(input('r', 'read_only', { recentCalls: 1 })).action).toBe('allow');
    expect(e.decide(input('r', 'read_only', { recentCalls: 2 }))).toMatchObject({
      action: 'deny',
      errorType: 'LimitExceeded',
    });
  });

  it('fails closed when evaluation throws', () => {
    const e = engine();
    const broken = {
      ...input('r'),
      tool: {
        ...testTool('r'),
        get tier(): Tier {
          throw new Error('boom');
        },
      },
    };
    expect(e.decide(broken as unknown as PolicyInput)).toMatchObject({ action: 'deny', rule: 'fail-closed' });
  });

  it('every decision names a rule and a file', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<Tier>('read_only', 'side_effecting', 'privileged'),
        fc.constantFrom('auto', 'prompt', 'deny'),
        (tier, mode) => {
          const d = engine({ approval: { mode } }).decide(input('t', tier));
          expect(d.rule.length).toBeGreaterThan(0);
          expect(d.file.length).toBeGreaterThan(0);
        },
      ),
    );
  });
});

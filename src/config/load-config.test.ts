import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useWorkspace } from '../../test/helpers/workspace.js';
import { configJsonSchema } from './config-schema.js';
import { ConfigError, defaultConfig, loadConfigFile, parseConfigText } from './load-config.js';

function errorOf(text: string): ConfigError {
  try {
    parseConfigText(text, 'toolgate.toml');
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('config', () => {
  const ws = useWorkspace();

  it('safe defaults: run_command denylisted, side effects ask, seed 000 limits', () => {
    const c = defaultConfig();
    expect(c.tools.approval.denylist).toContain('run_command');
    expect(c.tools.approval.mode).toBe('prompt');
    expect(c.tools.approval.prompt_side_effects).toBe(true);
    expect(c.tools.max_tool_calls_per_batch).toBe(8);
    expect(c.tools.max_tool_args_bytes).toBe(262_144);
    expect(c.tools.output.max_bytes).toBe(102_400);
    expect(c.tools.read_file).toEqual({ max_file_read_bytes: 204_800, max_scan_bytes: 2_097_152 });
    expect(c.tools.apply_patch.max_patch_bytes).toBe(524_288);
    expect(c.tools.sandbox).toEqual({
      allowed_roots: ['.'],
      denied_patterns: [],
      allow_absolute: false,
      include_default_denies: true,
    });
  });

  it('issue #30 §12: a governance path pattern that cannot be honoured is refused with its key and line', () => {
    const e = errorOf(
      ['[tools.governance.tools.read_file]', 'forbidden_paths = ["~/.ssh/**", "$SECRETS/**"]'].join('\n'),
    );
    expect(e.key).toBe('tools.governance.tools.read_file.forbidden_paths.1');
    expect(e.line).toBe(2);
    expect(e.message).toContain('only $HOME is expanded');
    // Home and absolute patterns are honoured, so accepted.
    expect(() =>
      parseConfigText(
        '[tools.governance.tools.read_file]\nforbidden_paths = ["~/.ssh/**", "/etc/**", "$HOME/x"]',
        't',
      ),
    ).not.toThrow();
  });

  it('reads the seed 000 §6 keys', () => {
    const c = parseConfigText(
      `[tools]\nmode = "parse_only"\nallow_parallel = true\nmax_tool_calls_per_batch = 3\n\n[tools.approval]\nmode = "deny"\nallowlist = ["read_file"]\n\n[tools.output]\nmax_bytes = 500\n`,
      'x.toml',
    );
    expect(c.tools.mode).toBe('parse_only');
    expect(c.tools.allow_parallel).toBe(true);
    expect(c.tools.max_tool_calls_per_batch).toBe(3);
    expect(c.tools.approval.allowlist).toEqual(['read_file']);
    expect(c.tools.output.max_bytes).toBe(500);
  });

  it('an unknown key names file, line and key', () => {
    const e = errorOf('[tools]\nmode = "enabled"\n\n[tools.sandbox]\nallowed_root = ["x"]\n');
    expect(e.file).toBe('toolgate.toml');
    expect(e.line).toBe(5);
    expect(e.key).toBe('tools.sandbox.allowed_root');
    expect(e.message).toMatch(/toolgate\.toml:5 at tools\.sandbox\.allowed_root: unknown key/);
  });

  it('a wrong value names the key and says what is expected', () => {
    const e = errorOf('[tools.approval]\n\nmode = "sometimes"\n');
    expect(e.line).toBe(3);
    expect(e.key).toBe('tools.approval.mode');
    expect(e.message).toMatch(/auto|prompt|deny/);
  });

  it('locates keys inside arrays of tables', () => {
    const e = errorOf(
      '[[tools.policy.rules]]\ntool = "a"\naction = "allow"\n\n[[tools.policy.rules]]\ntool = "b"\naction = "maybe"\n',
    );
    expect(e.key).toBe('tools.policy.rules.1.action');
    expect(e.line).toBe(7);
  });

  it('a TOML syntax error gives the line', () => {
    const e = errorOf('[tools]\nmode = "enabled"\nmax_tool_calls_per_batch = = 3\n');
    expect(e.line).toBe(3);
    expect(e.message).toMatch(/TOML syntax error/);
  });

  it('an invalid regular expression in a condition is rejected at load', () => {
    const e = errorOf(
      '[[tools.policy.rules]]\ntool = "read_file"\naction = "deny"\nconditions = [{ param = "path", operator = "matches", value = "(" }]\n',
    );
    expect(e.key).toBe('tools.policy.rules.0.conditions.0.value');
    expect(e.message).toMatch(/invalid regular expression/);
  });

  it('a missing file is a ConfigError naming it', () => {
    expect(() => loadConfigFile(path.join(ws.dir(), 'nope.toml'))).toThrow(/nope\.toml.*cannot read/);
  });

  it('loads a file from disk', () => {
    const file = path.join(ws.dir(), 'toolgate.toml');
    writeFileSync(file, '[tools.governance]\nmode = "LOCKDOWN"\n');
    expect(loadConfigFile(file).config.tools.governance.mode).toBe('LOCKDOWN');
  });

  it('the config JSON Schema is draft 2020-12 and describes every section', () => {
    const schema = configJsonSchema() as {
      $schema: string;
      properties: { tools: { properties: Record<string, unknown> } };
    };
    expect(schema.$schema).toContain('2020-12');
    for (const key of [
      'sandbox',
      'timeouts',
      'output',
      'environment',
      'approval',
      'read_file',
      'apply_patch',
      'policy',
      'governance',
    ]) {
      expect(schema.properties.tools.properties).toHaveProperty(key);
    }
  });
});

import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load-config.js';
import { REPO, runCli } from '../cli/run-cli.js';
import { makeTempDir } from '../helpers/workspace.js';
import { docCommand, GUIDE, PLACEHOLDERS, rawReadmeBlock, readmeBlock, runReadmeTrust } from './hosts.js';
import { PROMPT } from './scenario.js';

/**
 * The host set-up blocks of the README and docs/GETTING-STARTED.md, checked everywhere (also where
 * the hosts are not installed): each is where the real-host suite looks for it, parses, and starts
 * `toolgate mcp` from this clone on the project; each run line runs the host on the docs' prompt.
 * real-hosts.test.ts and chat-hosts.test.ts run them, as written, in the real hosts.
 */
const PROJECT = '/tmp/some project';
const SERVER_ARGS = [path.join(REPO, 'bin/toolgate.js'), 'mcp', '--root', PROJECT];

describe("README's host set-up blocks", () => {
  it('the allowlist is a valid toolgate.toml that allows the write tools', () => {
    const config = parseConfigText(readmeBlock('toolgate-allowlist'), 'README.md');
    expect(config.tools.approval.allowlist).toEqual(['write_file', 'edit_file', 'apply_patch']);
  });

  it('issue #29 §6: the trust line, run as written, makes the allowlist apply (trust kept in HOME, not the project)', () => {
    expect(rawReadmeBlock('toolgate-trust')).toContain(PLACEHOLDERS.project);
    const project = makeTempDir('toolgate-readme-project-');
    const home = makeTempDir('toolgate-readme-home-');
    try {
      writeFileSync(path.join(project, 'toolgate.toml'), readmeBlock('toolgate-allowlist'));
      const check = () =>
        JSON.parse(
          runCli(['config', 'check', '--root', project], {
            env: { XDG_CONFIG_HOME: path.join(home, '.config') },
          }).stdout,
        );
      expect(check().trust.state).toBe('untrusted');
      expect(check().tools.approval.allowlist).toEqual([]);
      const trusted = runReadmeTrust(project, home);
      expect(trusted.stderr).toBe('');
      expect(trusted.status).toBe(0);
      expect(statSync(path.join(home, '.config', 'toolgate', 'trusted.json')).isFile()).toBe(true);
      expect(existsSync(path.join(project, '.config'))).toBe(false);
      expect(check().trust.state).toBe('trusted');
      expect(check().tools.approval.allowlist).toEqual(['write_file', 'edit_file', 'apply_patch']);
    } finally {
      for (const dir of [project, home]) rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each(['claude-code-mcp-json', 'gemini-cli'])('%s starts toolgate mcp on the project', (name) => {
    const raw = rawReadmeBlock(name);
    expect(raw).toContain(PLACEHOLDERS.toolgate);
    expect(raw).toContain(PLACEHOLDERS.project);
    const server = JSON.parse(readmeBlock(name, PROJECT)).mcpServers.toolgate;
    expect(server.command).toBe('node');
    expect(server.args).toEqual(SERVER_ARGS);
  });

  it('gemini-cli: trusted server, API-key auth for headless runs', () => {
    const settings = JSON.parse(readmeBlock('gemini-cli', PROJECT));
    expect(settings.mcpServers.toolgate.trust).toBe(true);
    expect(settings.security.auth.selectedType).toBe('gemini-api-key');
  });

  it('Claude Code: the Elicitation hook answers toolgate with an approval', () => {
    const hooks = JSON.parse(readmeBlock('claude-code-elicitation-hook')).hooks.Elicitation;
    expect(hooks).toHaveLength(1);
    expect(hooks[0].matcher).toBe('toolgate');
    const command: string = hooks[0].hooks[0].command;
    const printed = JSON.parse(/^echo '(.*)'$/.exec(command)?.[1] ?? 'null');
    expect(printed.hookSpecificOutput).toEqual({
      hookEventName: 'Elicitation',
      action: 'accept',
      content: { approve: true },
    });
  });

  it('Codex: required = true, or optional with the shared grace off (a top-level key)', () => {
    const required = parseToml(readmeBlock('codex', PROJECT)) as {
      mcp_servers: { toolgate: Record<string, unknown> };
    };
    expect(required.mcp_servers.toolgate).toEqual({ command: 'node', args: SERVER_ARGS, required: true });
    const optional = parseToml(readmeBlock('codex-optional', PROJECT)) as {
      mcp_optional_startup_grace_ms: number;
      mcp_servers: { toolgate: Record<string, unknown> };
    };
    expect(optional.mcp_optional_startup_grace_ms).toBe(0);
    expect(optional.mcp_servers.toolgate).toEqual({ command: 'node', args: SERVER_ARGS });
  });

  it('a missing marker is an error, not an empty block', () => {
    expect(() => readmeBlock('no-such-host')).toThrow('README.md has no <!-- host-setup: no-such-host -->');
    expect(() => readmeBlock('no-such-host', PROJECT, GUIDE)).toThrow(`${GUIDE} has no`);
  });
});

describe("issue #31 §1: GETTING-STARTED's set-up blocks for opencode, Kilo CLI, qwen-code, Continue, Copilot CLI", () => {
  const guide = (name: string) => {
    const raw = rawReadmeBlock(name, GUIDE);
    expect(raw).toContain(PLACEHOLDERS.toolgate);
    expect(raw).toContain(PLACEHOLDERS.project);
    return readmeBlock(name, PROJECT, GUIDE);
  };

  it.each(['opencode', 'kilo'])('%s: a local server under "mcp", its command line in one array', (name) => {
    expect(JSON.parse(guide(name))).toEqual({
      mcp: { toolgate: { type: 'local', command: ['node', ...SERVER_ARGS], enabled: true } },
    });
  });

  it("qwen-code: trusted (qwen's own question off, toolgate's policy decides); alwaysLoadTools in the second", () => {
    const server = { command: 'node', args: SERVER_ARGS, trust: true };
    expect(JSON.parse(guide('qwen-code'))).toEqual({ mcpServers: { toolgate: server } });
    expect(JSON.parse(guide('qwen-code-always-load'))).toEqual({
      mcpServers: { toolgate: { ...server, alwaysLoadTools: true } },
    });
  });

  it('Continue: an mcpServers entry for config.yaml (read as YAML by cn in the real-host suite)', () => {
    const yaml = /^mcpServers:\n {2}- name: toolgate\n {4}command: node\n {4}args: (\[.*\])\n$/.exec(
      guide('continue'),
    );
    expect(yaml, 'the block is not the three-key entry this test reads').not.toBeNull();
    expect(JSON.parse(yaml?.[1] ?? '[]')).toEqual(SERVER_ARGS);
  });

  it('Copilot CLI: a local server with all its tools', () => {
    expect(JSON.parse(guide('copilot'))).toEqual({
      mcpServers: { toolgate: { type: 'local', command: 'node', args: SERVER_ARGS, tools: ['*'] } },
    });
  });

  it('the run lines: headless, on the prompt the suite gives, Copilot allowing only toolgate past its own check', () => {
    expect(docCommand('opencode-run', 'opencode')).toEqual(['run', PROMPT]);
    expect(docCommand('kilo-run', 'kilo')).toEqual(['run', PROMPT]);
    expect(docCommand('qwen-code-run', 'qwen')).toEqual(['-p', PROMPT]);
    expect(docCommand('continue-run', 'cn')).toEqual(['-p', PROMPT]);
    expect(docCommand('copilot-run', 'copilot')).toEqual(['-p', PROMPT, '--allow-tool', 'toolgate']);
  });

  it('a run line that is not one plain command is refused, not run otherwise', () => {
    expect(() => docCommand('copilot-run', 'opencode')).toThrow('does not run opencode');
    expect(() => docCommand('continue', 'cn')).toThrow('more than one line');
  });
});

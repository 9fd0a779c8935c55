import { afterEach, describe, expect, it } from 'vitest';
import { chatStream, textAnswer } from '../helpers/provider-streams.js';
import { type ReplayServer, startReplayServer } from '../helpers/replay-server.js';
import { replayModelArgs, runCliAsync } from '../helpers/run-cli-async.js';
import { useWorkspace } from '../helpers/workspace.js';
import { runCli, trustProject } from './run-cli.js';

const ws = useWorkspace();
let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const write = [{ id: 'w', name: 'write_file', arguments: { path: 'a.txt', content: 'a' } }];
const exec = (calls: unknown) =>
  JSON.parse(
    runCli(['exec', '--approve', 'all'], { cwd: ws.dir(), input: JSON.stringify(calls) }).stdout,
  ) as { ok: boolean; content: string }[];

/** The shell command a message names between backticks after "runs". */
const commandIn = (text: string) => /the user runs `toolgate ([^`]+)`/.exec(text)?.[1];

describe('issue #31 §3: a denial and an exit say the way out', () => {
  it('a LOCKDOWN denial says how to leave LOCKDOWN, and doing as it says lets the call run', () => {
    const set = runCli(['mode', 'set', 'LOCKDOWN', '--reason', 'probing'], { cwd: ws.dir() });
    expect(set.status).toBe(0);
    const [denied] = exec(write);
    expect(denied?.ok).toBe(false);
    // The fix first: the exact command, and the config line for a mode that comes from there.
    expect(denied?.content).toBe(
      'write_file failed: denied by policy. To allow it: leave LOCKDOWN mode: the user runs `toolgate mode set NORMAL --reason "…"`. Why: "write_file" is forbidden in LOCKDOWN mode (governance mode LOCKDOWN default for side_effecting tools in (built-in defaults))',
    );
    const command = commandIn(denied?.content ?? '');
    expect(command).toBe('mode set NORMAL --reason "…"');
    const left = runCli(['mode', 'set', 'NORMAL', '--reason', 'incident over'], { cwd: ws.dir() });
    expect(left.stderr).toBe('');
    expect(exec(write)[0]?.ok).toBe(true);
  });

  it('a LOCKDOWN the config sets names the config line too, and it works; a mode rule of the config is named as well', () => {
    ws.file('toolgate.toml', '[tools.governance]\nmode = "LOCKDOWN"\n');
    trustProject(ws.dir());
    const [denied] = exec(write);
    expect(denied?.content).toBe(
      'write_file failed: denied by policy. To allow it: leave LOCKDOWN mode: the user runs `toolgate mode set NORMAL --reason "…"`, or sets [tools.governance] mode = "NORMAL" in toolgate.toml in the workspace root (a mode set with `toolgate mode set` wins over the config\'s). Why: "write_file" is forbidden in LOCKDOWN mode (governance mode LOCKDOWN default for side_effecting tools in (built-in defaults))',
    );
    ws.file('toolgate.toml', '[tools.governance]\nmode = "NORMAL"\n');
    expect(exec(write)[0]?.ok).toBe(true);

    ws.file(
      'toolgate.toml',
      '[tools.governance]\nmode = "ALERT"\n[tools.governance.tools.write_file]\nforbidden_in_modes = ["ALERT"]\n',
    );
    trustProject(ws.dir());
    expect(exec(write)[0]?.content).toMatch(
      /^write_file failed: denied by policy\. To allow it: leave ALERT mode: the user runs `toolgate mode set NORMAL --reason "…"`, or sets .*; or change tools\.governance\.tools\.write_file\.forbidden_in_modes in toolgate\.toml in the workspace root\. Why: /,
    );
  });

  it("toolgate run's iteration-cap exit names the flag and the config key that raise the cap; each works", async () => {
    ws.file('notes.txt', 'n\n');
    const read = (id: string) => ({
      body: chatStream({ calls: [{ id, name: 'read_file', args: '{"path":"notes.txt"}' }] }),
    });
    const script = () => [read('c1'), read('c2'), read('c3'), { body: textAnswer('openai', 'done') }];
    const run = async (extra: string[]) => {
      await server?.close();
      server = await startReplayServer(script());
      return runCliAsync([
        'run',
        'read my notes',
        ...replayModelArgs(server.url),
        '--root',
        ws.dir(),
        '--no-journal',
        ...extra,
      ]);
    };

    ws.file('toolgate.toml', '[tools]\nmax_tool_iterations_per_user_turn = 1\n');
    trustProject(ws.dir());
    const capped = await run([]);
    expect(capped.status).toBe(1);
    expect(capped.stderr).toBe(
      'toolgate: to allow more than 1 round of tool calls in one turn, pass --max-iterations 2 (toolgate run and chat; maxIterations for runTurn) or set max_tool_iterations_per_user_turn = 2 under [tools] in toolgate.toml in the workspace root. Stopped: the model kept calling tools after max_tool_iterations_per_user_turn (1) was reached\n',
    );

    // Either way the message names lets the same model finish.
    const byFlag = await run(['--max-iterations', '2']);
    expect(byFlag.stderr).toBe('');
    expect(byFlag.status).toBe(0);
    ws.file('toolgate.toml', '[tools]\nmax_tool_iterations_per_user_turn = 2\n');
    trustProject(ws.dir());
    const byConfig = await run([]);
    expect(byConfig.stderr).toBe('');
    expect(byConfig.status).toBe(0);
  });
});

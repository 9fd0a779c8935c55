import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import * as z from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { ToolError } from '../../core/tool-error.js';

const args = z
  .strictObject({
    names: z
      .array(z.string().min(1))
      .max(50)
      .optional()
      .describe('Process names to look for (as in /proc/<pid>/comm).'),
    pids: z
      .array(z.number().int().positive().max(4_194_304))
      .max(200)
      .optional()
      .describe('Process ids to check.'),
  })
  .refine((a) => (a.names?.length ?? 0) + (a.pids?.length ?? 0) > 0, { message: 'give names or pids' });

const CLOCK_TICKS = 100; // Linux USER_HZ
const PAGE = 4096;

/** The answer's JSON (MCP outputSchema). */
export const healthSchema = z.object({
  processes: z.array(
    z.object({
      pid: z.number(),
      name: z.string(),
      running: z.boolean(),
      state: z.string().optional(),
      cpuPercent: z.number().optional(),
      rssBytes: z.number().optional(),
      ageSeconds: z.number().optional(),
    }),
  ),
});

interface Health {
  pid: number;
  name: string;
  running: boolean;
  state?: string;
  cpuPercent?: number;
  rssBytes?: number;
  ageSeconds?: number;
}

function readProc(pid: number): Health | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm is in parentheses and may hold spaces: split after the last ')'.
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    const startTicks = Number(fields[19]);
    const rssPages = Number(fields[21]);
    const ageSeconds = Math.max(0, os.uptime() - startTicks / CLOCK_TICKS);
    const cpuSeconds = (utime + stime) / CLOCK_TICKS;
    return {
      pid,
      name,
      running: true,
      state: fields[0],
      cpuPercent: ageSeconds > 0 ? Math.round((cpuSeconds / ageSeconds) * 1000) / 10 : 0,
      rssBytes: rssPages * PAGE,
      ageSeconds: Math.round(ageSeconds),
    };
  } catch {
    return undefined;
  }
}

/** seed 002 check_process_health: by names or pids — running, CPU (average over its life), RSS, age. */
export function createProcessHealthTool() {
  return defineTool({
    name: 'check_process_health',
    description:
      'Check processes by name or pid: whether they run, their state, CPU use averaged over their life, resident memory and age. JSON.',
    args,
    output: healthSchema,
    tier: 'read_only',
    category: 'system',
    timeoutMs: 10_000,
    summary: (a) => `Check processes ${[...(a.names ?? []), ...(a.pids ?? []).map(String)].join(', ')}`,
    async execute(a) {
      if (process.platform !== 'linux')
        throw new ToolError('ExecutionFailed', 'check_process_health reads /proc and works on Linux only');
      const results: Health[] = [];
      for (const pid of a.pids ?? []) results.push(readProc(pid) ?? { pid, name: '', running: false });
      if (a.names?.length) {
        const wanted = new Set(a.names);
        const found = new Set<string>();
        for (const entry of readdirSync('/proc')) {
          if (!/^\d+$/.test(entry)) continue;
          const h = readProc(Number(entry));
          if (h && wanted.has(h.name)) {
            results.push(h);
            found.add(h.name);
          }
        }
        for (const name of wanted) if (!found.has(name)) results.push({ pid: 0, name, running: false });
      }
      const running = results.filter((r) => r.running).length;
      return {
        content: JSON.stringify({ processes: results }),
        display: `${running} of ${results.length} running`,
      };
    },
  });
}

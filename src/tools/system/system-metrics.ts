import { statfsSync } from 'node:fs';
import os from 'node:os';
import * as z from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { runQuiet } from './run-quiet.js';

/** The snapshot's JSON (MCP outputSchema). */
export const snapshotSchema = z.object({
  cpu: z.object({
    cores: z.number(),
    model: z.string(),
    usagePercent: z.number(),
    loadAverage: z.array(z.number()),
  }),
  memory: z.object({ totalBytes: z.number(), freeBytes: z.number(), usedPercent: z.number() }),
  disks: z.array(
    z.object({
      path: z.string(),
      totalBytes: z.number().optional(),
      freeBytes: z.number().optional(),
      usedPercent: z.number().optional(),
      error: z.string().optional(),
    }),
  ),
  uptimeSeconds: z.number(),
  gpus: z.array(
    z.object({
      name: z.string().optional(),
      utilizationPercent: z.number(),
      memoryUsedMiB: z.number(),
      memoryTotalMiB: z.number(),
    }),
  ),
  platform: z.string(),
});

const args = z.strictObject({});

/** CPU usage over a short window, from two samples of the per-core counters. */
async function cpuPercent(windowMs: number): Promise<number> {
  const sample = () =>
    os.cpus().reduce(
      (acc, c) => {
        const t = c.times;
        acc.idle += t.idle;
        acc.total += t.user + t.nice + t.sys + t.idle + t.irq;
        return acc;
      },
      { idle: 0, total: 0 },
    );
  const a = sample();
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  const b = sample();
  const total = b.total - a.total;
  return total > 0 ? Math.round((1 - (b.idle - a.idle) / total) * 1000) / 10 : 0;
}

/** seed 002 system_metrics_snapshot: CPU, load, memory, disks of the roots, uptime, GPUs if nvidia-smi exists. */
export function createSystemMetricsTool() {
  return defineTool({
    name: 'system_metrics_snapshot',
    description:
      'A snapshot of this machine: CPU use and load, memory, disk space of the workspace roots and /, uptime, and GPUs when nvidia-smi is present. JSON.',
    args,
    output: snapshotSchema,
    tier: 'read_only',
    category: 'system',
    timeoutMs: 15_000,
    summary: () => 'Take a system metrics snapshot',
    async execute(_a, ctx) {
      const mounts = [...new Set([...ctx.sandbox.roots, '/'])];
      const disks = mounts.map((mount) => {
        try {
          const s = statfsSync(mount);
          const total = s.blocks * s.bsize;
          const free = s.bavail * s.bsize;
          return {
            path: ctx.sandbox.display(mount),
            totalBytes: total,
            freeBytes: free,
            usedPercent: total ? Math.round(((total - free) / total) * 1000) / 10 : 0,
          };
        } catch {
          return { path: ctx.sandbox.display(mount), error: 'unavailable' };
        }
      });
      const gpuOut = await runQuiet(
        'nvidia-smi',
        ['--query-gpu=name,utilization.gpu,memory.used,memory.total', '--format=csv,noheader,nounits'],
        { timeoutMs: 5000 },
      );
      const gpus =
        gpuOut?.code === 0
          ? gpuOut.stdout
              .trim()
              .split('\n')
              .filter(Boolean)
              .map((line) => {
                const [name, util, used, total] = line.split(',').map((x) => x.trim());
                return {
                  name,
                  utilizationPercent: Number(util),
                  memoryUsedMiB: Number(used),
                  memoryTotalMiB: Number(total),
                };
              })
          : [];
      const snapshot = {
        cpu: {
          cores: os.cpus().length,
          model: os.cpus()[0]?.model ?? 'unknown',
          usagePercent: await cpuPercent(200),
          loadAverage: os.loadavg(),
        },
        memory: {
          totalBytes: os.totalmem(),
          freeBytes: os.freemem(),
          usedPercent: Math.round((1 - os.freemem() / os.totalmem()) * 1000) / 10,
        },
        disks,
        uptimeSeconds: Math.round(os.uptime()),
        gpus,
        platform: `${os.type()} ${os.release()} ${os.arch()}`,
      };
      return {
        content: JSON.stringify(snapshot),
        display: `cpu ${snapshot.cpu.usagePercent}%, mem ${snapshot.memory.usedPercent}%`,
        metadata: { gpus: gpus.length },
      };
    },
  });
}

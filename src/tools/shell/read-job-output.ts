import * as z from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { ToolError } from '../../core/tool-error.js';
import type { JobManager } from './background-jobs.js';

const args = z.strictObject({
  id: z.string().min(1).describe('The job id run_command returned (e.g. "job-1").'),
  stop: z.boolean().default(false).describe('Stop the job (its whole process group) first.'),
});

/** Reads a background job's status and capped output log; `stop` ends it (SIGTERM, grace, SIGKILL). */
export function createReadJobOutputTool(settings: { jobs: JobManager; graceMs: number }) {
  return defineTool({
    name: 'read_job_output',
    description:
      'Status and output (start and end kept) of a background job started by run_command with background: true. stop: true ends it.',
    args,
    tier: 'read_only',
    category: 'shell',
    timeoutMs: 30_000,
    summary: (a) => `${a.stop ? 'Stop and read' : 'Read'} background job ${a.id}`,
    async execute(a) {
      const job = settings.jobs.get(a.id);
      if (!job) {
        throw new ToolError(
          'NotFound',
          `no background job "${a.id}" in this toolgate process: jobs end with the process that started them (a \`toolgate exec\` ends its jobs when it exits). Start the command again; to read a job in a later call, use one long-running session (toolgate mcp or chat, or one toolgate run turn)`,
        );
      }
      if (a.stop) await settings.jobs.stop(job, settings.graceMs);
      if (a.stop && !job.exit) await new Promise((resolve) => job.child.once('close', resolve));
      const status = job.exit
        ? job.exit.code === null
          ? `ended by ${job.exit.signal}`
          : `exited with code ${job.exit.code}`
        : `running for ${Math.round((Date.now() - job.startedAt) / 1000)} s`;
      return {
        content: `job ${job.id}: ${status}\ncommand: ${job.command}\noutput (${job.output.total} bytes):\n${job.output.text()}`,
        metadata: { running: !job.exit, exitCode: job.exit?.code ?? null, bytes: job.output.total },
      };
    },
  });
}

import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import * as z from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { ToolError } from '../../core/tool-error.js';
import { runQuiet } from './run-quiet.js';

const args = z.strictObject({
  since: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('journalctl --since value, e.g. "1 hour ago" or "2026-11-22 10:00".'),
  lines: z.number().int().min(1).max(2000).default(200).describe('Most lines to return (newest).'),
  filter: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Only lines containing this text (case-insensitive).'),
});

const SYSLOG_FILES = ['/var/log/syslog', '/var/log/messages'];
const TAIL_BYTES = 4 * 1024 * 1024;

/** The last `maxBytes` of a file, as lines (the first, partial line dropped). */
async function tailLines(file: string, maxBytes: number): Promise<string[] | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const { size } = await handle.stat();
    const start = Math.max(0, size - maxBytes);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const lines = buffer.toString('utf8').split('\n');
    if (start > 0) lines.shift();
    if (lines.at(-1) === '') lines.pop();
    return lines;
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

/**
 * seed 002 read_system_logs: journalctl when present, else the syslog file; since, lines and a
 * text filter; capped. Medium risk: system logs can hold other people's secrets, so it asks.
 */
export function createSystemLogsTool(
  settings: { syslogFiles?: readonly string[]; useJournalctl?: boolean } = {},
) {
  const files = settings.syslogFiles ?? SYSLOG_FILES;
  return defineTool({
    name: 'read_system_logs',
    description:
      'Read recent system log lines (journalctl, or /var/log/syslog). Filter by text and time; newest last.',
    args,
    tier: 'side_effecting',
    category: 'system',
    timeoutMs: 15_000,
    summary: (a) =>
      `Read system logs${a.since ? ` since ${a.since}` : ''}${a.filter ? ` matching "${a.filter}"` : ''} (${a.lines} lines)`,
    async execute(a) {
      const needle = a.filter?.toLowerCase();
      const keep = (lines: string[]) =>
        (needle ? lines.filter((l) => l.toLowerCase().includes(needle)) : lines).slice(-a.lines);
      const journal =
        settings.useJournalctl === false
          ? undefined
          : await runQuiet(
              'journalctl',
              [
                '--no-pager',
                '-o',
                'short-iso',
                '-n',
                String(needle ? Math.min(a.lines * 20, 20_000) : a.lines),
                ...(a.since ? ['--since', a.since] : []),
              ],
              { timeoutMs: 10_000 },
            );
      if (
        journal &&
        journal.code === 0 &&
        journal.stdout.trim() &&
        !/No journal files were found/.test(journal.stdout)
      ) {
        const lines = keep(journal.stdout.split('\n').filter(Boolean));
        return {
          content: lines.join('\n') || '(no matching log lines)',
          metadata: { source: 'journalctl', lines: lines.length },
        };
      }
      for (const file of files) {
        const lines = await tailLines(file, TAIL_BYTES);
        if (lines) {
          const kept = keep(lines);
          return {
            content: kept.join('\n') || '(no matching log lines)',
            metadata: { source: file, lines: kept.length },
          };
        }
      }
      throw new ToolError(
        'NotFound',
        'no system log here: journalctl has no journal and /var/log/syslog and /var/log/messages do not exist',
      );
    },
  });
}

import path from 'node:path';
import { describeStoredGrant } from '../approval/grant-coverage.js';
import type { Grant } from '../core/grant.js';
import { isForeignGrant } from '../journal/grant-rows.js';
import type { Journal } from '../journal/journal.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';
import { journalPath, openExistingJournal } from './open-journal.js';
import { resolveSetup } from './resolve-setup.js';
import { UsageError } from './usage-error.js';

export interface GrantsOptions {
  root?: string[];
  config?: string;
  journal?: string;
  session?: string;
  json?: boolean;
  all?: boolean;
}

type Out = NodeJS.WritableStream;

/** The first root, absolute: paths a grant covers under it are shown relative to it. */
function firstRoot(setup: ReturnType<typeof resolveSetup>): string {
  return path.resolve(setup.baseDir, setup.roots[0] ?? '.');
}

function withJournal<T>(options: GrantsOptions, use: (journal: Journal | undefined, root: string) => T): T {
  // Looking at or removing grants never creates a journal where there is none.
  const setup = resolveSetup(options);
  const journal = openExistingJournal(journalPath(setup, options.journal));
  try {
    return use(journal, firstRoot(setup));
  } finally {
    journal?.close();
  }
}

/**
 * `toolgate grants list [--session S] [--json]`: every "always allow" on the journal (or those in
 * force for one session), each with its id, what it covers and for whom.
 */
export function runGrantsList(options: GrantsOptions, out: Out): number {
  return withJournal(options, (journal, root) => {
    // Those of one session are filtered from every row, so rows that allow nothing show too.
    const all = journal ? journal.allGrants() : [];
    const grants =
      options.session !== undefined
        ? all.filter((g) => g.scope === 'project' || g.session === options.session)
        : all;
    if (options.json) {
      out.write(
        `${JSON.stringify(
          grants.map((g) => grantJson(g, root)),
          null,
          2,
        )}\n`,
      );
      return 0;
    }
    if (grants.length === 0) {
      out.write('no grants: nothing is allowed by an earlier "always"\n');
      return 0;
    }
    for (const g of grants)
      out.write(
        `${g.id}  ${new Date(g.createdAt).toISOString()}  ${sanitizeForTerminal(describeStoredGrant(g, root))}\n`,
      );
    out.write('remove one with `toolgate grants revoke ID`, every one with `toolgate grants revoke --all`\n');
    return 0;
  });
}

/**
 * `toolgate grants revoke ID | --all [--session S]`: committed before it returns, so the next
 * plan of every process on the journal asks again.
 */
export async function runGrantsRevoke(
  id: string | undefined,
  options: GrantsOptions,
  out: Out,
): Promise<number> {
  if ((id === undefined) === (options.all !== true))
    throw new UsageError(
      'name one grant (`toolgate grants revoke ID`, ids from `toolgate grants list`) or give --all',
    );
  if (id !== undefined && options.session !== undefined)
    throw new UsageError('--session goes with --all (an id already names one grant)');
  const wanted = id === undefined ? undefined : Number(id);
  if (wanted !== undefined && (!/^\d+$/.test(id ?? '') || !Number.isSafeInteger(wanted) || wanted < 1))
    throw new UsageError(`give the grant's number as \`toolgate grants list\` shows it (got "${id}")`);
  const setup = resolveSetup(options);
  const journal = openExistingJournal(journalPath(setup, options.journal));
  if (!journal) {
    if (wanted !== undefined)
      throw new UsageError(`no grant has id ${wanted}: there is no journal here yet, so there are no grants`);
    out.write('no grants to revoke: there is no journal here yet\n');
    return 0;
  }
  try {
    if (wanted !== undefined) {
      const grant = journal.allGrants().find((g) => g.id === wanted);
      if (!grant || !journal.revokeGrant(wanted))
        throw new UsageError(`no grant has id ${wanted}; see \`toolgate grants list\``);
      await journal.sync();
      out.write(
        `revoked grant ${wanted}: ${sanitizeForTerminal(describeStoredGrant(grant, firstRoot(setup)))}\n`,
      );
      return 0;
    }
    const n = journal.revokeGrants(options.session);
    await journal.sync();
    out.write(
      `revoked ${n} grant(s)${options.session !== undefined ? ` of session ${sanitizeForTerminal(options.session)}` : ''}\n`,
    );
    return 0;
  } finally {
    journal.close();
  }
}

function grantJson(g: Grant, root: string) {
  const foreign = isForeignGrant(g);
  return {
    id: g.id,
    tool: g.tool,
    scope: g.scope,
    session: g.session ?? null,
    created_at: new Date(g.createdAt).toISOString(),
    covers: foreign ? g.notMadeHere : g.covers,
    // Made by this user's toolgate here (sealed, SQLite) or in a shared database (PostgreSQL).
    made_here: !foreign,
    honoured: !foreign && g.covers.kind !== 'tool_wide_legacy',
    text: describeStoredGrant(g, root),
  };
}

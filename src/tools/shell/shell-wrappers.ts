import { assignmentRisk } from './shell-tables.js';

/**
 * Wrappers the analyzer looks through to the command that really runs (`env`, `nice`, `timeout`,
 * `xargs`, `sudo`, …), and the script of `bash -c`.
 */
/** For `bash -lc 'script'` and friends: the script, null when there is no -c, undefined when not static. */
export function shellScript(args: (string | undefined)[]): string | null | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === undefined) return undefined;
    if (a === '--' || (!a.startsWith('-') && !a.startsWith('+'))) return null;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(a)) {
      // Flags after -c may still come before the script (`bash -c -e 'x'` is unusual; take the next non-flag).
      for (let j = i + 1; j < args.length; j++) {
        const s = args[j];
        if (s === undefined) return undefined;
        if (s.startsWith('-') && s !== '-') continue;
        return s;
      }
      return undefined;
    }
    if (a === '-o' || a === '+o' || a === '-O' || a === '+O' || a === '--rcfile' || a === '--init-file') i++;
  }
  return null;
}

/** One wrapper layer: the wrapped argv, or undefined when `name` is not a wrapper. */
export function unwrapOnce(
  name: string,
  rest: (string | undefined)[],
  risk: (reason: string) => void,
): (string | undefined)[] | undefined {
  const skipOptions = (withValue: Set<string>): (string | undefined)[] => {
    let i = 0;
    while (i < rest.length) {
      const a = rest[i];
      if (a === undefined) return rest.slice(i);
      if (a === '--') return rest.slice(i + 1);
      if (!a.startsWith('-') || a === '-') break;
      i += withValue.has(a) ? 2 : 1;
    }
    return rest.slice(i);
  };
  switch (name) {
    case 'sudo':
    case 'doas':
      risk(`${name} runs the command as another user`);
      return skipOptions(
        new Set(['-u', '-g', '-C', '-h', '-p', '-U', '-r', '-t', '-D', '--user', '--group']),
      );
    case 'env': {
      let i = 0;
      while (i < rest.length) {
        const a = rest[i];
        if (a === undefined) {
          risk('env with arguments known only at run time');
          return rest.slice(i);
        }
        if (a === '-S' || a.startsWith('--split-string') || /^-[^-]*S/.test(a)) {
          risk('env -S runs a command line from a string');
          return undefined;
        }
        if (a === '-u' || a === '--unset' || a === '-C' || a === '--chdir') i += 2;
        else if (a === '--') {
          i++;
          break;
        } else if (a.startsWith('-')) i++;
        else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) {
          const varName = a.slice(0, a.indexOf('='));
          const why = assignmentRisk(varName, a.slice(a.indexOf('=') + 1));
          if (why) risk(why);
          i++;
        } else break;
      }
      return rest.slice(i);
    }
    case 'nice':
      return skipOptions(new Set(['-n', '--adjustment']));
    case 'ionice':
      return skipOptions(new Set(['-c', '-n', '-p', '-P', '-u']));
    case 'timeout': {
      const after = skipOptions(new Set(['-s', '--signal', '-k', '--kill-after']));
      return after.slice(1); // the duration
    }
    case 'nohup':
    case 'time':
    case 'command':
    case 'builtin':
      return skipOptions(new Set());
    case 'exec':
      return skipOptions(new Set(['-a']));
    case 'stdbuf':
      return skipOptions(new Set(['-i', '-o', '-e']));
    case 'xargs': {
      const inner = skipOptions(
        new Set([
          '-I',
          '-i',
          '-L',
          '-l',
          '-n',
          '-P',
          '-d',
          '-E',
          '-e',
          '-s',
          '-a',
          '--arg-file',
          '--delimiter',
          '--max-args',
          '--max-procs',
          '--replace',
        ]),
      );
      // xargs adds words only known at run time.
      return inner.length === 0 ? ['echo', undefined] : [...inner, undefined];
    }
    default:
      return undefined;
  }
}

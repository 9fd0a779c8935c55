import v8 from 'node:v8';

/**
 * From now on V8 compiles each function straight to baseline machine code (Sparkplug) the first
 * time it runs, instead of interpreting it until it has run often enough. A server's request path
 * is compiled on its first requests, and a fresh `toolgate mcp` answers its first few hundred calls
 * about 5% faster (BENCHMARKS.md, session 13). Not set at start: compiling everything the start-up
 * runs once would cost ~13 ms before `tools/list` is answered; and never in a short command like
 * `toolgate exec`. Baseline code is made from the bytecode in one quick pass and changes nothing a
 * program can observe.
 */
export function compileBaselineFromNowOn(): void {
  try {
    v8.setFlagsFromString('--always-sparkplug');
  } catch {
    // a V8 without the flag: functions are compiled as before
  }
}

/** `fn`, which calls `first` once, just before its first run. */
export function beforeFirstCall<A extends unknown[], R>(
  fn: (...args: A) => R,
  first: () => void,
): (...args: A) => R {
  let done = false;
  return (...args: A) => {
    if (!done) {
      done = true;
      first();
    }
    return fn(...args);
  };
}

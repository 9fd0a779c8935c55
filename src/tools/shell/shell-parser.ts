import { createRequire } from 'node:module';
import type { Parser } from 'web-tree-sitter';

/**
 * The bash grammar (tree-sitter-bash, as wasm: no native build). Loading is async and done once per
 * process; parsing after that is synchronous, so the planner can stay synchronous: the pipeline
 * awaits `loadShellParser()` before planning a batch that holds a shell call.
 */
let loading: Promise<Parser> | undefined;
let ready: Parser | undefined;

export function loadShellParser(): Promise<Parser> {
  loading ??= (async () => {
    // Imported here, not at the top: commands that run no shell call never load it.
    const { Language, Parser } = await import('web-tree-sitter');
    const require = createRequire(import.meta.url);
    await Parser.init();
    const language = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
    const parser = new Parser();
    parser.setLanguage(language);
    ready = parser;
    return parser;
  })();
  return loading;
}

/** The loaded parser, or undefined before `loadShellParser()` finished (callers then fail closed). */
export function shellParser(): Parser | undefined {
  return ready;
}

// The CLI as a bundle (part of `npm run build`): Node resolves, reads and compiles a few files
// instead of ~430 (dist/ plus every dependency's own files), which is most of what `toolgate mcp`
// took to answer tools/list. The library (`import 'toolgate'`, dist/index.js) stays tsc's output.
//
// dist/bundle/toolgate.js is the entry bin/toolgate.js loads; every command's module and what only
// it uses stay behind a dynamic import, so esbuild splits them into chunks loaded on demand (the
// HTTP server for `mcp --http`, ink and react for `chat` are never read by `mcp` or `exec`).
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// Left to Node at run time: wasm and binaries found through their package's own path
// (web-tree-sitter's and tree-sitter-bash's .wasm, ripgrep's rg) and the OS sandbox (an optional
// dependency with its own helper binaries, loaded only when configured). better-sqlite3's
// JavaScript is bundled; its native addon is loaded from its package (nativeAddon below).
// Everything only the CLI uses (the MCP SDK, hono, commander, ink and react for `chat`,
// node-postgres, linkedom and the page converter) is bundled, so it is a devDependency: a library
// user does not install it (issue #31 §3). Each command's own code stays in its own chunk.
const EXTERNAL = [
  'web-tree-sitter',
  'tree-sitter-bash',
  'tree-sitter-bash/*',
  '@vscode/ripgrep',
  '@anthropic-ai/sandbox-runtime',
  'pino', // required (synchronously) with the first log line: most runs write none
  'react-devtools-core', // ink imports it only when DEV=true, and it is not installed
  'pg-native', // node-postgres requires it only for pg.native, which toolgate never uses
];

// The MCP SDK's Server makes an ajv instance with every format when it is constructed, to check
// elicitation answers, and imports ajv (~200 KB) to do so: at every start, for something most
// sessions never do. In the bundle its provider is this stand-in, which loads the SDK's own
// provider (and ajv) the first time a validator is asked for; the behaviour is the same. The real
// provider is its own entry (dist/bundle/mcp-ajv.js, required synchronously: Node >= 20.19
// requires ES modules), since the SDK is bundled and not installed beside the CLI.
const AJV_PROVIDER = /@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]validation[\\/]ajv-provider\.js$/;
let ajvProviderReplaced = false;
const lazyAjvProvider = {
  name: 'lazy-ajv-provider',
  setup(b) {
    b.onResolve({ filter: /^toolgate:mcp-ajv$/ }, () => ({
      path: path.join(REPO, 'node_modules/@modelcontextprotocol/sdk/dist/esm/validation/ajv-provider.js'),
      suffix: '?real',
    }));
    b.onLoad({ filter: AJV_PROVIDER }, (args) => {
      if (args.suffix === '?real') return undefined; // the entry: the SDK's own file
      ajvProviderReplaced = true;
      return {
        loader: 'js',
        // A required name esbuild cannot see (it would bundle ajv right back in); the stand-in is
        // in a chunk (dist/bundle/chunks) or in the entry itself.
        contents: `
          import { createRequire } from 'node:module';
          import { existsSync } from 'node:fs';
          import { fileURLToPath } from 'node:url';
          const load = createRequire(import.meta.url);
          function realProvider() {
            for (const candidate of ['../mcp-ajv.js', './mcp-ajv.js']) {
              const file = fileURLToPath(new URL(candidate, import.meta.url));
              if (existsSync(file)) return load(file);
            }
            throw new Error('toolgate: dist/bundle/mcp-ajv.js is missing; run npm run build');
          }
          export class AjvJsonSchemaValidator {
            #ajv; #real;
            constructor(ajv) { this.#ajv = ajv; }
            getValidator(schema) {
              this.#real ??= new (realProvider().AjvJsonSchemaValidator)(this.#ajv);
              return this.#real.getValidator(schema);
            }
          }`,
      };
    });
  },
};

// better-sqlite3 is required when the first database is opened (src/journal/load-better-sqlite3.ts),
// so a library that opens none does not need it. In the bundle the loader imports it statically,
// so its JavaScript is bundled (one file to read instead of a dozen at every start).
const LOADER = /src[\\/]journal[\\/]load-better-sqlite3\.ts$/;
let loaderReplaced = false;
const lazyBetterSqlite3 = {
  name: 'bundled-better-sqlite3',
  setup(b) {
    b.onLoad({ filter: LOADER }, () => {
      loaderReplaced = true;
      return {
        loader: 'js',
        contents: `import Database from 'better-sqlite3';
          export function loadBetterSqlite3() { return Database; }`,
      };
    });
  },
};

// better-sqlite3 finds its addon with the `bindings` package, which looks for it beside the file
// that called it (a bundle chunk here) after reading the stack, then tries a dozen paths. In the
// bundle: the addon where npm builds it in better-sqlite3's own directory, else `bindings` itself,
// told which package to search.
const nativeAddon = {
  name: 'better-sqlite3-addon',
  setup(b) {
    b.onResolve({ filter: /^bindings$/ }, (args) =>
      /better-sqlite3/.test(args.importer)
        ? { path: 'bindings', namespace: 'better-sqlite3-addon' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'better-sqlite3-addon' }, () => ({
      loader: 'js',
      resolveDir: REPO,
      contents: `
        const path = require('node:path');
        module.exports = function bindings(name) {
          const root = path.dirname(require.resolve('better-sqlite3/package.json'));
          try {
            return require(path.join(root, 'build', 'Release', name));
          } catch (error) {
            if (error?.code !== 'MODULE_NOT_FOUND') throw error;
            return require('bindings')({ bindings: name, module_root: root });
          }
        };`,
    }));
  },
};

const result = await build({
  absWorkingDir: REPO,
  // The page converter runs in a worker thread (src/tools/web/convert-page.ts): its own entry.
  // So does the PostgreSQL journal's connection (src/journal/postgres/sync-pg.ts).
  entryPoints: {
    toolgate: 'src/cli/main.ts',
    'page-worker': 'src/tools/web/page-worker.ts',
    'pg-worker': 'src/journal/postgres/pg-worker.ts',
    'mcp-ajv': 'toolgate:mcp-ajv',
  },
  outdir: 'dist/bundle',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  external: EXTERNAL,
  // CommonJS dependencies bundled into ESM call require() for Node's built-ins.
  banner: {
    js: "import { createRequire as __toolgateCreateRequire } from 'node:module'; const require = __toolgateCreateRequire(import.meta.url);",
  },
  // Smaller text to read and parse at every start; names are kept as they are for stack traces.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'eof',
  sourcemap: 'linked',
  sourcesContent: false,
  metafile: true,
  write: false,
  logLevel: 'warning',
  plugins: [lazyAjvProvider, lazyBetterSqlite3, nativeAddon],
});

// Checks that keep the bundle small, failing the build rather than quietly growing it again.
if (!ajvProviderReplaced) {
  throw new Error(
    'bundle-cli: the MCP SDK no longer has dist/esm/validation/ajv-provider.js; update lazyAjvProvider',
  );
}
if (!loaderReplaced) {
  throw new Error('bundle-cli: src/journal/load-better-sqlite3.ts is gone; update lazyBetterSqlite3');
}
// `import { z } from 'zod'` hands esbuild the whole namespace as one value, which cannot be
// tree-shaken: every locale of zod (~370 KB) would be read and compiled at every start.
const bundled = Object.values(result.metafile.outputs).flatMap((o) =>
  Object.entries(o.inputs)
    .filter(([, i]) => i.bytesInOutput > 0)
    .map(([f]) => f),
);
const locales = bundled.filter(
  (f) => /zod[\\/]v4[\\/]locales[\\/]/.test(f) && !/[\\/](en|index)\.js$/.test(f),
);
if (locales.length > 0) {
  throw new Error(
    `bundle-cli: zod's locales are in the bundle (${locales.length} files): import zod as \`import * as z from 'zod'\`, not \`import { z } from 'zod'\``,
  );
}

// Written without a moment where a CLI started meanwhile (tests run while others build) finds a
// file missing or half written: each file to a temporary name, then renamed over the old one, the
// entry last; then what the new build no longer has is removed (chunk names carry a content hash).
const outdir = path.join(REPO, 'dist/bundle');
const entryFile = path.join(outdir, 'toolgate.js');
const files = [...result.outputFiles].sort(
  (a, b) => Number(a.path === entryFile) - Number(b.path === entryFile),
);
for (const file of files) {
  mkdirSync(path.dirname(file.path), { recursive: true });
  const temporary = `${file.path}.${process.pid}.tmp`;
  writeFileSync(temporary, file.contents);
  renameSync(temporary, file.path);
}
const written = new Set(files.map((f) => f.path));
for (const entry of readdirSync(outdir, { recursive: true, withFileTypes: true })) {
  const file = path.join(entry.parentPath, entry.name);
  if (entry.isFile() && !written.has(file)) rmSync(file);
}

const outputs = Object.entries(result.metafile.outputs).filter(([file]) => file.endsWith('.js'));
const bytes = outputs.reduce((sum, [, o]) => sum + o.bytes, 0);
// BUNDLE_META=file.json: esbuild's metafile, to see what each chunk holds (esbuild.github.io/analyze).
if (process.env.BUNDLE_META) writeFileSync(process.env.BUNDLE_META, JSON.stringify(result.metafile));
console.log(`dist/bundle: ${outputs.length} files, ${(bytes / 1024).toFixed(0)} KiB`);

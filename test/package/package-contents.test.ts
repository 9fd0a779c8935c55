import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPTIONAL_PACKAGES } from '../../src/core/optional-package.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  optionalDependencies: Record<string, string>;
};

/** What `npm pack` would put in the tarball (no scripts: dist/ is built by the suite's build). */
function packedFiles(): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: REPO,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return (JSON.parse(out) as [{ files: { path: string }[] }])[0].files.map((f) => f.path).sort();
}

/** Specifiers a file imports: ES import/export statements and import() calls, not comments. */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]/gm))
    found.push(m[1] as string);
  for (const m of text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm)) found.push(m[1] as string);
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1] as string);
  return found;
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

describe('issue #31 §3: the tarball ships what a user needs', () => {
  const files = packedFiles();
  const shipped = new Set(files);

  it('has the library (JS and types), the CLI bundle, bin, README and LICENSE; no sources, tests or source maps', () => {
    for (const needed of [
      'bin/toolgate.js',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/bundle/toolgate.js',
      'dist/bundle/page-worker.js',
      'dist/bundle/pg-worker.js',
      'dist/bundle/mcp-ajv.js',
      'README.md',
      'LICENSE',
      'package.json',
    ])
      expect(files).toContain(needed);
    // The maps point at src/, which is not shipped; the CLI's own modules are in the bundle only.
    expect(files.filter((f) => /^(src|test|bench|scripts)\//.test(f) || f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => /^dist\/(cli|console|tui|mcp|journal\/postgres)\//.test(f))).toEqual([]);
  });

  it('every relative import of a shipped library file is shipped, and every package it imports is a dependency', () => {
    const allowed = new Set([
      ...Object.keys(manifest.dependencies),
      ...Object.keys(manifest.optionalDependencies),
      ...builtinModules,
    ]);
    const broken: string[] = [];
    for (const file of files.filter(
      (f) => /^dist\/.*\.(js|d\.ts)$/.test(f) && !f.startsWith('dist/bundle/'),
    )) {
      for (const spec of specifiers(readFileSync(path.join(REPO, file), 'utf8'))) {
        if (spec.startsWith('node:')) continue;
        if (spec.startsWith('.')) {
          const target = path.posix.join(path.posix.dirname(file), spec);
          const candidates = file.endsWith('.d.ts') ? [target.replace(/\.js$/, '.d.ts'), target] : [target];
          if (!candidates.some((c) => shipped.has(c))) broken.push(`${file} → ${spec} (not shipped)`);
        } else if (!allowed.has(packageName(spec)) && !file.endsWith('.d.ts')) {
          broken.push(`${file} → ${spec} (not a dependency)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('the install lines name the versions package.json installs', () => {
    expect(OPTIONAL_PACKAGES).toEqual(manifest.optionalDependencies);
  });
});

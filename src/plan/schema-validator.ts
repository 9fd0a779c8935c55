import { createRequire } from 'node:module';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { AnyToolDefinition } from '../core/tool-definition.js';

// ajv (CommonJS) is loaded on the first check, synchronously: tools defined with zod are checked
// by their own parser first, so most runs never need it, and start-up is ~60 ms shorter.
const require = createRequire(import.meta.url);

/**
 * JSON Schema (draft 2020-12) validation of arguments before a tool sees them (seed 000 FR-VAL-01).
 * One compiled validator per tool, made on first use and kept.
 */
export class SchemaValidator {
  #ajv: Ajv2020 | undefined;
  readonly #compiled = new WeakMap<AnyToolDefinition, ValidateFunction>();

  /** Returns undefined when valid, else a message listing what is wrong, for the model. */
  check(tool: AnyToolDefinition, args: unknown): string | undefined {
    let validate = this.#compiled.get(tool);
    if (!validate) {
      this.#ajv ??= new (require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020({
        allErrors: true,
        strict: false,
        validateFormats: false,
      });
      validate = this.#ajv.compile(tool.inputSchema);
      this.#compiled.set(tool, validate);
    }
    if (validate(args)) return undefined;
    return formatAjvErrors(validate.errors ?? []);
  }
}

function formatAjvErrors(errors: readonly ErrorObject[]): string {
  const lines = errors.slice(0, 8).map((error) => {
    const where = error.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : '(arguments)';
    if (error.keyword === 'additionalProperties') {
      return `${where}: unknown parameter "${(error.params as { additionalProperty: string }).additionalProperty}"`;
    }
    if (error.keyword === 'required') {
      return `${where}: missing required parameter "${(error.params as { missingProperty: string }).missingProperty}"`;
    }
    return `${where}: ${error.message ?? 'is invalid'}`;
  });
  if (errors.length > 8) lines.push(`(${errors.length - 8} more)`);
  return lines.join('; ');
}

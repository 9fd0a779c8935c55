import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolResult } from '../../src/core/tool-result.js';
import { toMcpResult } from '../../src/mcp/mcp-server.js';

/**
 * Content that is text, or JSON of any shape (the structured-content path parses it). Not an own
 * `__proto__` key: the SDK's parse would drop that one, where the lane sends what the tool read.
 */
const content = fc.oneof(
  fc.string(),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue()).map((v) => JSON.stringify(v)),
);

describe('the MCP result of a ToolResult (the direct lane sends it without the SDK checking it)', () => {
  it('Property: whatever a tool answered, the result is one the SDK accepts as a CallToolResult, unchanged by its parse', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        content,
        fc.option(fc.jsonValue(), { nil: undefined }),
        fc.boolean(),
        (ok, text, structured, declares) => {
          const result: ToolResult = {
            id: '1',
            name: 'some_tool',
            ok,
            content: text,
            error: ok ? null : { type: 'Internal', message: text },
            latencyMs: 0,
            ...(structured === undefined ? {} : { metadata: { structured } }),
          };
          const mcp = toMcpResult(result, declares);
          const parsed = CallToolResultSchema.safeParse(mcp);
          expect(parsed.success).toBe(true);
          // What goes on the wire is what the SDK would have sent after its own parse.
          expect(JSON.parse(JSON.stringify(parsed.data))).toEqual(JSON.parse(JSON.stringify(mcp)));
        },
      ),
      { numRuns: 1000, seed: 14 },
    );
  });
});

// The agent loop's stream handling against the least any client must do with the same bytes.
import { performance } from 'node:perf_hooks';
import { adapterFor } from '../dist/providers/adapters.js';
import { SseParser } from '../dist/providers/sse-parser.js';
import { ToolCallAccumulator } from '../dist/providers/tool-call-accumulator.js';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** An OpenAI Chat stream: 2,000 text deltas, then 8 tool calls whose arguments come in 500 fragments each. */
function bigChatStream() {
  const ev = (o) => `data: ${JSON.stringify(o)}\n\n`;
  let out = '';
  for (let i = 0; i < 2000; i++) out += ev({ choices: [{ index: 0, delta: { content: `word${i} ` } }] });
  for (let c = 0; c < 8; c++) {
    out += ev({
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              {
                index: c,
                id: `call_${c}`,
                type: 'function',
                function: { name: 'write_file', arguments: '' },
              },
            ],
          },
        },
      ],
    });
    const args = JSON.stringify({ path: `f${c}.txt`, content: 'x'.repeat(5000) });
    for (let i = 0; i < args.length; i += 10) {
      out += ev({
        choices: [
          { index: 0, delta: { tool_calls: [{ index: c, function: { arguments: args.slice(i, i + 10) } }] } },
        ],
      });
    }
  }
  out += ev({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
  return `${out}data: [DONE]\n\n`;
}

export function streamDecode() {
  const body = Buffer.from(bigChatStream(), 'utf8');
  const chunks = [];
  for (let i = 0; i < body.length; i += 16384) chunks.push(body.subarray(i, i + 16384));
  const ours = () => {
    const parser = new SseParser();
    const decoder = adapterFor('openai').createDecoder();
    const acc = new ToolCallAccumulator();
    for (const chunk of chunks) {
      for (const e of parser.push(chunk))
        for (const ev of decoder.push(e)) if (ev.type.startsWith('tool_call')) acc.apply(ev);
    }
    return acc.finish().length;
  };
  // The floor: decode the bytes, split the events, JSON.parse each payload, nothing else.
  const floor = () => {
    const text = new TextDecoder().decode(body);
    let n = 0;
    for (const block of text.split('\n\n'))
      if (block.startsWith('data: {')) n += JSON.parse(block.slice(6)) ? 1 : 0;
    return n;
  };
  for (let i = 0; i < 5; i++) {
    ours();
    floor();
  }
  const a = [];
  const b = [];
  for (let i = 0; i < 15; i++) {
    let t = performance.now();
    if (ours() !== 8) throw new Error('stream decode lost calls');
    a.push(performance.now() - t);
    t = performance.now();
    floor();
    b.push(performance.now() - t);
  }
  const mb = body.length / 1e6;
  return [
    [
      `agent loop: decode + accumulate a ${mb.toFixed(1)} MB OpenAI stream (6,000+ events, 8 calls)`,
      `${median(a).toFixed(1)} ms`,
      `split + JSON.parse only ${median(b).toFixed(1)} ms`,
      `${(median(a) / median(b)).toFixed(2)}×`,
      '—',
    ],
  ];
}

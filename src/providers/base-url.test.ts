import { describe, expect, it } from 'vitest';
import { normalizeBaseUrl } from './base-url.js';

const OPENAI = 'https://api.openai.com/v1';
const ANTHROPIC = 'https://api.anthropic.com/v1';
const GEMINI = 'https://generativelanguage.googleapis.com/v1beta';

describe('normalizeBaseUrl', () => {
  it('adds the API version path to a bare host, and /v1 to any Anthropic URL without it', () => {
    expect(normalizeBaseUrl('openai-compatible', 'http://127.0.0.1:11434', OPENAI)).toEqual({
      url: 'http://127.0.0.1:11434/v1',
    });
    expect(normalizeBaseUrl('openai-compatible', 'http://h:1/v1/', OPENAI)).toEqual({ url: 'http://h:1/v1' });
    expect(normalizeBaseUrl('openai', 'https://proxy.example/openai', OPENAI)).toEqual({
      url: 'https://proxy.example/openai',
    });
    expect(normalizeBaseUrl('anthropic', 'https://api.anthropic.com', ANTHROPIC)).toEqual({ url: ANTHROPIC });
    expect(normalizeBaseUrl('anthropic', 'http://h:1/gw', ANTHROPIC)).toEqual({ url: 'http://h:1/gw/v1' });
    expect(normalizeBaseUrl('gemini', 'http://127.0.0.1:9', GEMINI)).toEqual({
      url: 'http://127.0.0.1:9/v1beta',
    });
    // An endpoint URL pasted whole is taken as its base.
    expect(normalizeBaseUrl('openai-compatible', 'http://h:1/v1/chat/completions', OPENAI)).toEqual({
      url: 'http://h:1/v1',
    });
    expect(normalizeBaseUrl('anthropic', 'http://h:1/v1/messages', ANTHROPIC)).toEqual({
      url: 'http://h:1/v1',
    });
    expect(normalizeBaseUrl('openai-responses', 'http://h:1/v1/responses/', OPENAI)).toEqual({
      url: 'http://h:1/v1',
    });
  });

  it('refuses what fetch cannot reach, saying what was probably meant', () => {
    expect(normalizeBaseUrl('openai-compatible', 'localhost:11434', OPENAI)).toEqual({
      problem:
        '--base-url "localhost:11434" must start with http:// or https:// (did you mean http://localhost:11434?)',
    });
    expect(normalizeBaseUrl('openai', 'ftp://h/v1', OPENAI)).toEqual({
      problem: '--base-url "ftp://h/v1" must start with http:// or https://',
    });
    expect(normalizeBaseUrl('openai', 'not a url', OPENAI)).toMatchObject({
      problem: expect.stringMatching(/is not a URL/),
    });
  });
});

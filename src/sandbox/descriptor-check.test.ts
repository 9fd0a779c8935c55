import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../config/load-config.js';
import { builtinTools } from '../tools/builtin-tools.js';
import {
  DescriptorCheckUnavailable,
  type DescriptorProbe,
  descriptorCheckWorks,
  requireDescriptorCheck,
  systemDescriptorProbe,
  UNSAFE_NO_DESCRIPTOR_CHECK_ENV,
} from './descriptor-check.js';

const macos: DescriptorProbe = { platform: 'darwin', procFdReadable: () => false };
const windows: DescriptorProbe = { platform: 'win32', procFdReadable: () => false };
const linuxWithoutProc: DescriptorProbe = { platform: 'linux', procFdReadable: () => false };
const linux: DescriptorProbe = { platform: 'linux', procFdReadable: () => true };

describe('issue #31 §4: the descriptor check fails closed where it cannot run', () => {
  it('runs on this Linux machine, asked of the real system', () => {
    expect(descriptorCheckWorks(systemDescriptorProbe)).toBe(true);
    expect(() => requireDescriptorCheck()).not.toThrow();
  });

  it.each([
    ['macOS', macos, /platform \(darwin\) has no \/proc\/self\/fd/],
    ['Windows', windows, /platform \(win32\) has no \/proc\/self\/fd/],
    ['Linux without /proc', linuxWithoutProc, /is \/proc mounted\?/],
  ])('refuses on %s, the fix first: the supported platform and the override', (_, probe, why) => {
    expect(descriptorCheckWorks(probe)).toBe(false);
    let thrown: unknown;
    try {
      requireDescriptorCheck(probe, {});
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DescriptorCheckUnavailable);
    const message = (thrown as Error).message;
    expect(message).toMatch(
      /^toolgate's file tools need Linux with \/proc mounted: run toolgate there, or set TOOLGATE_UNSAFE_NO_DESCRIPTOR_CHECK=1/,
    );
    expect(message).toMatch(why);
    expect(message).toContain('supported platforms: Linux');
  });

  it('an override set knowingly (exactly "1") lets them start; anything else does not', () => {
    expect(() => requireDescriptorCheck(macos, { [UNSAFE_NO_DESCRIPTOR_CHECK_ENV]: '1' })).not.toThrow();
    for (const value of ['', '0', 'true', 'yes', ' 1'])
      expect(() => requireDescriptorCheck(macos, { [UNSAFE_NO_DESCRIPTOR_CHECK_ENV]: value })).toThrow(
        DescriptorCheckUnavailable,
      );
    expect(() => requireDescriptorCheck(linux, {})).not.toThrow();
  });

  it('the built-in file tools refuse to start where the check cannot run (no silent skip)', () => {
    expect(() => builtinTools(defaultConfig(), { descriptorProbe: macos })).toThrow(
      DescriptorCheckUnavailable,
    );
    expect(() => builtinTools(defaultConfig(), { descriptorProbe: linuxWithoutProc })).toThrow(
      /is \/proc mounted\?/,
    );
    expect(builtinTools(defaultConfig(), { descriptorProbe: linux }).map((t) => t.name)).toContain(
      'read_file',
    );
  });
});

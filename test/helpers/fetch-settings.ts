import type dns from 'node:dns';
import type { FetchSettings } from '../../src/tools/web/fetch-url.js';

/** fetchUrl's settings with nothing allowed beyond the defaults, resolving names with `lookup`. */
export function fetchSettingsWith(lookup: typeof dns.lookup): FetchSettings {
  return {
    allowPrivate: [],
    allowedHosts: [],
    deniedHosts: [],
    maxDownloadBytes: 1 << 20,
    connectTimeoutMs: 2000,
    maxRedirects: 5,
    userAgent: 't',
    lookup,
  };
}

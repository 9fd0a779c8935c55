/**
 * How long the journal keeps a refused call for the automatic governor's count: older ones are
 * forgotten as new ones are noted (the governor looks back `window_seconds`, far less than this).
 */
export const REFUSALS_KEPT_MS = 24 * 60 * 60 * 1000;

/**
 * Why a call was not run, as data (seed 000 NFR-ERR-02), in a denied result's `metadata.denial`:
 * the rule and file that decided, the reason in words, and for paths what was attempted and what it
 * resolved to (or the pattern that matched). `allow` says how a person could let it run.
 */
export interface Denial {
  kind:
    | 'disabled'
    | 'denylisted'
    | 'policy'
    | 'path_outside_sandbox'
    | 'denied_pattern'
    | 'limits_exceeded'
    | 'not_approved';
  reason: string;
  rule?: string;
  file?: string;
  attempted?: string;
  resolved?: string;
  pattern?: string;
  /** What would let the call run without asking (a config line), where there is one. */
  allow?: string;
}

export function denialMetadata(denial: Denial): { denial: Denial } {
  return { denial };
}

/**
 * The files inside a repository's git directory with which it decides what git runs, where git
 * finds its configuration or its objects: whoever writes them runs programs in the next git
 * command, the model's or the user's own (`commondir` pointing at a planted config, a hook, a
 * rebase todo's `exec` line). No tool writes them (nor reads them: the patterns are default
 * denies). They are WRITE-sensitive only: git itself must read them, so an OS sandbox should keep
 * them readable and unwritable. A `.git` FILE (gitfile) is refused by the sandbox itself (sandbox.ts).
 */
export const GIT_INTERNAL_PATTERNS: readonly string[] = [
  '**/.git/config',
  '**/.git/config.worktree',
  '**/.git/commondir',
  '**/.git/hooks/**',
  '**/.git/info/attributes',
  '**/.git/objects/info/alternates',
  '**/.git/objects/info/http-alternates',
  '**/.git/rebase-merge/**',
  '**/.git/worktrees/*/config.worktree',
  '**/.git/worktrees/*/commondir',
  '**/.git/worktrees/*/gitdir',
  '**/.git/worktrees/*/rebase-merge/**',
  '**/.git/modules/**/config',
  '**/.git/modules/**/config.worktree',
  '**/.git/modules/**/commondir',
  '**/.git/modules/**/gitdir',
  '**/.git/modules/**/hooks/**',
  '**/.git/modules/**/info/attributes',
  '**/.git/modules/**/objects/info/alternates',
  '**/.git/modules/**/rebase-merge/**',
];

/**
 * Denied even inside a root (seed 000 FR-VAL-05), plus toolgate's own policy and state: a model must
 * never edit its own config or journal (DESIGN §4). A pattern `X/**` also denies `X` itself.
 */
export const DEFAULT_DENIED_PATTERNS: readonly string[] = [
  '**/.ssh/**',
  '**/.gnupg/**',
  '**/id_rsa*',
  '**/id_dsa*',
  '**/id_ecdsa*',
  '**/id_ed25519*',
  '**/*.pem',
  '**/*.key',
  '**/.netrc',
  '**/.git-credentials',
  '**/.aws/credentials',
  '**/etc/shadow',
  '**/etc/gshadow',
  '**/etc/sudoers',
  ...GIT_INTERNAL_PATTERNS,
];

/** Always denied, whatever `include_default_denies` says. */
export const TOOLGATE_OWN_PATTERNS: readonly string[] = [
  '**/toolgate.toml',
  '**/.toolgate/**',
  // The person's list of trusted project configs (toolgate trust), should a root hold the config home.
  '**/toolgate/trusted.json',
  '**/toolgate/.trusted.json.*',
  // `toolgate mcp --http`'s generated bearer token ($XDG_STATE_HOME/toolgate/mcp-token) and its temp files.
  '**/toolgate/mcp-token',
  '**/toolgate/mcp-token.*',
  // The key that seals the journal's grants, answers and modes ($XDG_STATE_HOME/toolgate/seal-key):
  // whoever reads it can forge them.
  '**/toolgate/seal-key',
  '**/toolgate/seal-key.*',
];

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
  // A repository's own git settings and hooks: whoever writes them runs programs in the next git
  // command (yours or the model's). Reading the rest of .git stays possible.
  '**/.git/config',
  '**/.git/config.worktree',
  '**/.git/hooks/**',
  '**/.git/info/attributes',
  '**/.git/modules/**/config',
  '**/.git/modules/**/hooks/**',
  '**/.git/worktrees/**/config.worktree',
];

/** Always denied, whatever `include_default_denies` says. */
export const TOOLGATE_OWN_PATTERNS: readonly string[] = ['**/toolgate.toml', '**/.toolgate/**'];

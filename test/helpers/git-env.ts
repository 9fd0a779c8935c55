/** Git with nothing of the person's own configuration: only the tree's own files count. */
export const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  HOME: '/nonexistent',
  XDG_CONFIG_HOME: '/nonexistent',
};

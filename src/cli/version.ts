/** toolgate's version as the CLI reports it (`--version`, telemetry's service.version). */
export const CLI_VERSION = '0.1.0';

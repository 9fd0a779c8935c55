// Preloaded (node --import) by benches: prints the process's peak RSS to stderr when it exits.
process.once('exit', () => process.stderr.write(`peak-rss ${process.resourceUsage().maxRSS * 1024}\n`));

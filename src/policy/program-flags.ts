import { type OptionTable, optionTable } from './option-parser.js';

/**
 * The options known to be safe for each program on the read-only list (issue #29), as data to be
 * reviewed like configuration. Spec syntax (option-parser.ts): `-a` no value, `-n=` a value,
 * `--color=?` a value only attached, `-f=<` a file it reads (judged as a path), `!` asks (writes,
 * runs a program, reads file names from a file, never ends, sets the clock). Each table lists a
 * program's real long options, unsafe ones marked `!`, so that abbreviations resolve as the
 * program resolves them (`date --s` is `--set`). Anything not listed asks.
 */

/** GNU getopt_long: clusters, attached or separate values, unique prefixes, options after operands. */
const gnu = (specs: string, extra: Partial<Omit<OptionTable, 'options'>> = {}) =>
  optionTable(`${specs} --help --version`, { abbreviations: true, permutes: true, ...extra });

export const PROGRAM_FLAGS: ReadonlyMap<string, OptionTable> = new Map([
  [
    'ls',
    gnu(`-a -A -b -B -c -C -d -D -f -F -g -G -h -H -i -I= -k -l -L -m -n -N -o -p -q -Q -r -R -s -S
      -t -T= -u -U -v -w= -x -X -Z -1 --all --almost-all --author --escape --block-size= --ignore-backups
      --color=? --directory --dired --classify=? --file-type --format= --full-time --group-directories-first
      --no-group --human-readable --si --dereference-command-line --dereference-command-line-symlink-to-dir
      --hide= --hyperlink=? --indicator-style= --inode --ignore= --kibibytes --dereference
      --numeric-uid-gid --literal --hide-control-chars --show-control-chars --quote-name --quoting-style=
      --reverse --recursive --size --sort= --time= --time-style= --tabsize= --width= --context --zero`),
  ],
  [
    'cat',
    gnu(`-A -b -e -E -n -s -t -T -u -v --show-all --number-nonblank --show-ends --number --squeeze-blank
      --show-tabs --show-nonprinting`),
  ],
  [
    'head',
    gnu('-c= -n= -q -v -z --bytes= --lines= --quiet --silent --verbose --zero-terminated', {
      numeric: /^-\d+$/,
    }),
  ],
  [
    'tail',
    // -f/-F/--follow never end.
    gnu(
      `-c= -f! -F! -n= -q -s= -v -z --bytes= --follow=?! --lines= --max-unchanged-stats= --pid= --quiet
       --silent --retry --sleep-interval= --verbose --zero-terminated`,
      { numeric: /^-\d+[bcl]?$/ },
    ),
  ],
  // --files0-from reads the names of the files it opens from a file: names no word of the command has.
  ['wc', gnu('-c -m -l -L -w --bytes --chars --lines --files0-from=! --max-line-length --words')],
  ['pwd', optionTable('-L -P --help', { abbreviations: false, permutes: false })],
  [
    'grep',
    gnu(
      `-E -F -G -P -e= -f=< -i -y -w -x -z -s -v -V -m= -b -n -H -h -o -q -a -I -d= -D= -r -R -L -l -c
       -T -Z -B= -A= -C= -U --extended-regexp --fixed-strings --basic-regexp --perl-regexp --regexp=
       --file=< --ignore-case --no-ignore-case --word-regexp --line-regexp --null-data --no-messages
       --invert-match --max-count= --byte-offset --line-number --line-buffered --with-filename
       --no-filename --label= --only-matching --quiet --silent --binary-files= --text --directories=
       --devices= --recursive --dereference-recursive --include= --exclude= --exclude-from=<
       --exclude-dir= --files-without-match --files-with-matches --count --initial-tab --null
       --before-context= --after-context= --context= --group-separator= --no-group-separator --color=?
       --colour=? --binary`,
      { numeric: /^-\d+$/ },
    ),
  ],
  [
    'rg',
    // ripgrep takes long options only by their whole name. --pre/--pre-glob/--search-zip (-z) and
    // --hostname-bin run programs.
    optionTable(
      `-a -b -c -F -H -I -i -l -L -n -N -o -p -q -s -S -u -U -v -w -x -0 -P -h -V -. -A= -B= -C= -e= -E=
       -f=< -g= -j= -m= -M= -r= -t= -T= -d= -z! --after-context= --before-context= --context= --binary
       --block-buffered --byte-offset --case-sensitive --color= --colors= --column --context-separator=
       --no-context-separator --count --count-matches --crlf --debug --trace --dfa-size-limit= --encoding=
       --engine= --field-context-separator= --field-match-separator= --file=< --files
       --files-with-matches --files-without-match --fixed-strings --follow --glob= --glob-case-insensitive
       --heading --hidden --iglob= --ignore-case --ignore-file=< --ignore-file-case-insensitive
       --include-zero --invert-match --json --line-buffered --line-number --line-regexp --max-columns=
       --max-columns-preview --max-count= --max-depth= --max-filesize= --mmap --no-mmap --multiline
       --multiline-dotall --no-config --no-column --no-heading --no-filename --no-ignore --no-ignore-dot
       --no-ignore-exclude --no-ignore-files --no-ignore-global --no-ignore-parent --no-ignore-vcs
       --no-line-number --no-messages --no-unicode --null --null-data --one-file-system --only-matching
       --passthru --path-separator= --pcre2 --pretty --quiet --regex-size-limit= --regexp= --replace=
       --smart-case --sort= --sortr= --stats --text --threads= --trim --type= --type-not= --type-list
       --unrestricted --vimgrep --with-filename --word-regexp --help --version --pre=! --pre-glob=!
       --search-zip! --hostname-bin=!`,
      { abbreviations: false, permutes: true },
    ),
  ],
  [
    'tree',
    // tree's own parser: whole long names (`--opt=v` or `--opt v`), and a value-taking letter
    // takes the next word even inside a cluster. -o writes, -R writes 00Tree.html files into every
    // directory, -H/-T/--hintro/--houtro/--nolinks make or read HTML, --fromfile lists a file's lines.
    optionTable(
      `-a -d -l -f -x -L= -R! -P= -I= --gitignore --gitfile=< --ignore-case --matchdirs --metafirst --prune
       --info --infofile=< --noreport --charset= --filelimit= --timefmt= -o=! -q -N -Q -p -u -g -s -h --si
       --du -D --inodes --device -F -v -t -c -U -r --dirsfirst --filesfirst --sort= -i -A -S -n -C -X -J
       -H=! -T=! --nolinks! --hintro=! --houtro=! --fromfile! --fflinks --help --version`,
      { abbreviations: false, permutes: true, valuesFromNextWord: true },
    ),
  ],
  [
    'sort',
    // -o writes; -T and --temporary-directory write temporaries there; --compress-program runs one.
    gnu(`-b -d -f -g -i -M -h -n -R -r -V -c -C -m -s -u -z -k= -S= -t= -T=! -o=! --ignore-leading-blanks
      --dictionary-order --ignore-case --general-numeric-sort --ignore-nonprinting --month-sort
      --human-numeric-sort --numeric-sort --random-sort --random-source=< --reverse --sort= --version-sort
      --batch-size= --check=? --compress-program=! --debug --files0-from=! --key= --merge --output=!
      --stable --buffer-size= --field-separator= --temporary-directory=! --parallel= --unique
      --zero-terminated`),
  ],
  [
    'uniq',
    gnu(
      `-c -d -D -f= -i -s= -u -z -w= --count --repeated --all-repeated=? --skip-fields= --group=?
       --ignore-case --skip-chars= --unique --zero-terminated --check-chars=`,
      { maxOperands: 1 },
    ),
  ],
  [
    'cut',
    gnu(`-b= -c= -d= -f= -n -s -z --bytes= --characters= --delimiter= --fields= --complement --only-delimited
      --output-delimiter= --zero-terminated`),
  ],
  [
    'file',
    // -C compiles (writes), -m takes a colon-separated list of files, -f reads names from a file,
    // -z/-Z run decompressors, -p sets access times, -S turns off its own sandbox.
    gnu(`-v -m=! -z! -Z! -b -c -e= -f=! -F= -i -k -l -L -h -n -N -0 -p! -P= -r -s -S! -C! -d --magic-file=!
      --uncompress! --uncompress-noreport! --brief --checking-printout --exclude= --exclude-quiet=
      --files-from=! --separator= --mime --apple --extension --mime-type --mime-encoding --keep-going
      --list --dereference --no-dereference --no-buffer --no-pad --print0 --preserve-date! --parameter=
      --raw --special-files --no-sandbox! --compile! --debug`),
  ],
  ['stat', gnu('-L -f -c= -t --dereference --file-system --cached= --format= --printf= --terse')],
  [
    'du',
    gnu(`-0 -a -B= -b -c -D -d= -H -h -k -L -l -m -P -S -s -t= -X=< -x --null --all --apparent-size
      --block-size= --bytes --total --dereference-args --max-depth= --files0-from=! --human-readable
      --inodes --dereference --count-links --no-dereference --separate-dirs --si --summarize --threshold=
      --time=? --time-style= --exclude-from=< --exclude= --one-file-system`),
  ],
  [
    'df',
    gnu(`-a -B= -h -H -i -k -l -P -t= -T -x= -v --all --block-size= --human-readable --si --inodes --local
      --no-sync --output=? --portability --sync --total --type= --print-type --exclude-type=`),
  ],
  ['which', optionTable('-a', { abbreviations: false, permutes: false })],
  ['whoami', gnu('')],
  [
    'date',
    // -s/--set set the clock, and so does an operand that is not +FORMAT; -f reads dates from a file.
    gnu(
      `-d= -f=! -I=? -R -r=< -s=! -u --date= --debug --file=! --iso-8601=? --resolution --rfc-email
       --rfc-822 --rfc-2822 --rfc-3339= --reference=< --set=! --utc --universal --uct`,
      { operand: /^\+/ },
    ),
  ],
  [
    'uname',
    gnu(`-a -s -n -r -v -m -p -i -o --all --kernel-name --sysname --nodename --kernel-release --release
      --kernel-version --machine --processor --hardware-platform --operating-system`),
  ],
  ['basename', gnu('-a -s= -z --multiple --suffix= --zero')],
  ['dirname', gnu('-z --zero')],
  [
    'realpath',
    gnu(`-e -m -L -P -q -s -z --canonicalize-existing --canonicalize-missing --logical --physical --quiet
      --relative-to= --relative-base= --strip --no-symlinks --zero`),
  ],
  // bash's printf takes one option, -v, which assigns a variable (an array subscript in its name
  // runs a substitution); the format is the first operand, and after it nothing is an option.
  ['printf', optionTable('-v=!', { abbreviations: false, permutes: false })],
]);

/** Programs whose every word is only printed or ignored: any arguments are safe. */
export const ANY_ARGUMENTS: ReadonlySet<string> = new Set(['echo', 'true', 'false']);

// git's history holds every file ever committed, denied ones and vaults too, and its pathspecs and
// REV:path forms are not paths a sandbox can judge: `git log` and `git diff` are on the list only
// in forms that print no file's contents (commit headers and messages, names and counts).
const GIT_WORD = /^[^-:][^:]*$/;

/** Revision options (revision.c): whole names only, values attached or as the next word. */
const gitRevisions = (specs: string, extra: Partial<Omit<OptionTable, 'options'>> = {}) =>
  optionTable(specs, { abbreviations: false, permutes: true, operand: GIT_WORD, ...extra });

/** git's parse-options: unique prefixes of long names, values attached or the next word. */
const gitParseOptions = (specs: string) =>
  optionTable(`${specs} -h`, { abbreviations: true, permutes: true });

/** Tables for `git <subcommand>`, applied after git's global options (git-global-options.ts). */
export const GIT_SUBCOMMAND_FLAGS: ReadonlyMap<string, OptionTable> = new Map([
  [
    'status',
    gitParseOptions(`-v -s -b -z -u=? -M=? --verbose --no-verbose --short --no-short --branch --no-branch
      --show-stash --no-show-stash --porcelain=? --no-porcelain --long --no-long --null --untracked-files=?
      --ignored=? --no-ignored --ignore-submodules=? --column=? --no-column --ahead-behind --no-ahead-behind
      --renames --no-renames --find-renames=?`),
  ],
  [
    'log',
    gitRevisions(
      `--oneline --graph --all --reverse --no-merges --merges --first-parent --no-decorate --decorate=?
       --abbrev-commit -i --regexp-ignore-case --invert-grep --all-match -n= --max-count= --since= --until=
       --after= --before= --author= --committer= --grep= --format= --pretty=? --date= --abbrev=?`,
      { numeric: /^-\d+$/ },
    ),
  ],
  ['diff', gitRevisions('--stat --name-only --name-status --numstat --shortstat --cached --staged')],
  [
    'rev-parse',
    // rev-parse compares its options whole; it prints names and object ids, never contents.
    optionTable(
      `--show-toplevel --show-cdup --show-prefix --git-dir --git-common-dir --absolute-git-dir
       --is-inside-work-tree --is-inside-git-dir --is-bare-repository --is-shallow-repository
       --show-superproject-working-tree --show-object-format=? --show-ref-format --abbrev-ref=? --short=?
       --verify -q --quiet --symbolic --symbolic-full-name --all --branches=? --tags=? --remotes=? --sq
       --revs-only --no-revs --flags --no-flags --default= --prefix= --git-path= --shared-index-path
       --local-env-vars --since= --until= --after= --before=`,
      { abbreviations: false, permutes: true },
    ),
  ],
  [
    'ls-files',
    // --recurse-submodules runs git in submodules, whose configuration nobody checked.
    gitParseOptions(`-c -d -m -o -i -s -u -k -z -t -v -f -x= -X=< --cached --deleted --modified --others
      --ignored --stage --unmerged --killed --directory --no-empty-directory --eol --deduplicate --exclude=
      --exclude-from=< --exclude-per-directory= --exclude-standard --error-unmatch --with-tree= --full-name
      --abbrev=? --format= --recurse-submodules! --sparse`),
  ],
  [
    'blame',
    // --contents reads a file in place of the tracked one; --textconv runs the repository's drivers.
    gitParseOptions(`-b -l -t -p -e -w -c -f -n -s -L= -S=< -M=? -C=? --root --show-stats --reverse=
      --porcelain --line-porcelain --incremental --encoding= --contents=! --date= --progress --no-progress
      --ignore-rev= --ignore-revs-file=< --show-email --abbrev=? --show-name --show-number --score-debug
      --color-lines --color-by-age --minimal --textconv! --no-textconv --first-parent`),
  ],
]);

/** `git diff` prints file contents unless one of these turns its output into names or counts. */
export const GIT_DIFF_NAMES_ONLY = ['--stat', '--name-only', '--name-status', '--numstat', '--shortstat'];

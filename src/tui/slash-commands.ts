/**
 * The chat's slash commands: local, never sent to the model. A line whose first word is `/name`
 * (one slash, no other) is a command; a known one runs, an unknown one is refused with the list.
 * A path such as `/etc/hosts` is an ordinary message, and `//text` sends `/text`.
 */
export type CommandName = 'help' | 'todos' | 'tool' | 'quit';

export interface SlashCommand {
  name: CommandName;
  aliases: readonly string[];
  usage: string;
  does: string;
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { name: 'help', aliases: [], usage: '/help', does: 'this list of keys and commands' },
  { name: 'todos', aliases: [], usage: '/todos', does: "the session's whole todo list (write_todos)" },
  {
    name: 'tool',
    aliases: [],
    usage: '/tool <id> <result>',
    does: 'supply the result of a call the model made (tools.mode "parse_only")',
  },
  {
    name: 'quit',
    aliases: ['exit'],
    usage: '/quit',
    does: 'leave the chat (also /exit); a running turn is cancelled',
  },
];

export type ParsedLine =
  | { kind: 'message'; text: string }
  | { kind: 'command'; name: CommandName; args: string }
  | { kind: 'unknown'; word: string };

const COMMAND = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/;

/** What an entered line is: a message for the model, a command, or an unknown command. */
export function parseLine(line: string): ParsedLine {
  if (line.startsWith('//')) return { kind: 'message', text: line.slice(1) };
  const m = COMMAND.exec(line);
  if (!m) return { kind: 'message', text: line };
  const word = (m[1] as string).toLowerCase();
  const command = SLASH_COMMANDS.find((c) => c.name === word || c.aliases.includes(word));
  if (!command) return { kind: 'unknown', word: m[1] as string };
  return { kind: 'command', name: command.name, args: (m[2] ?? '').trim() };
}

const commandList = SLASH_COMMANDS.map((c) => c.usage).join(' · ');

/** The answer to `/something` that is not a command: nothing is sent. */
export function unknownCommand(word: string): string {
  return `unknown command /${word}: nothing was sent. Commands: ${commandList} (start a line with // to send one that begins with /)`;
}

/** `/help`: every key and command, whatever is on screen now. */
export function helpText(): string {
  const pad = (s: string, n: number) => s + ' '.repeat(Math.max(1, n - [...s].length));
  const keys: [string, string][] = [
    ['enter', 'send the line (a message for the model, or a command)'],
    ['esc', 'cancel the running turn: nothing more is run or sent, the model is not resumed'],
    ['ctrl+c', 'cancel the running turn; when none runs, leave'],
    ['↑/↓', 'scroll the tool output'],
  ];
  const commands = SLASH_COMMANDS.map((c) => [c.usage, c.does] as [string, string]);
  commands.push(['//text', 'send a line that begins with / (as /text)']);
  const width = Math.max(...[...keys, ...commands].map(([k]) => [...k].length)) + 2;
  return [
    'keys',
    ...keys.map(([k, what]) => `  ${pad(k, width)}${what}`),
    'at an approval prompt',
    '  [a] approve all · [d] deny all (the model is told, and continues) · [p] pick calls (space choose, enter run, esc back)',
    '  [s] / [g] approve and always allow (this session / the project) · [esc] cancel the turn: nothing in the batch runs',
    'commands',
    ...commands.map(([k, what]) => `  ${pad(k, width)}${what}`),
  ].join('\n');
}

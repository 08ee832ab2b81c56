// Flags of a `faxstack` command: node's parseArgs, with its refusals said in our words (the
// command, the option, the options it has). main.ts names the command being run; the commands
// import this module, never main.ts, so that main can load them lazily.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './usage-error.js';

export { UsageError };

export interface ParsedArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

let command = '';

/** The command being run (`send`, `accounts create` …), for messages. */
export function setCommand(name: string): void {
  command = name;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** The options as a user types them: `--via VALUE, --json`. */
function optionList(options: Options): string {
  return Object.entries(options)
    .map(([name, o]) => `--${name}${o.type === 'string' ? ' VALUE' : ''}${o.short ? ` (-${o.short})` : ''}`)
    .join(', ');
}

/** parseArgs with our usage error on bad flags. */
export function args(argv: string[], options: Options, positionals = false): ParsedArgs {
  try {
    const r = parseArgs({ args: argv, options, allowPositionals: positionals, strict: true });
    return { values: r.values as ParsedArgs['values'], positionals: r.positionals };
  } catch (err) {
    throw new UsageError(parseProblem(err as Error & { code?: string }, options));
  }
}

function parseProblem(err: Error & { code?: string }, options: Options): string {
  const who = `faxstack${command ? ` ${command}` : ''}`;
  const help = `— see ${who} --help`;
  const quoted = /'([^']+)'/.exec(err.message)?.[1] ?? '';
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${quoted.split(' ')[0]} for ${who}; its options are ${optionList(options)} ${help}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const flag = quoted.split(/[ ,]+/).filter((t) => t.startsWith('-')).at(-1) ?? quoted;
      const o = options[flag.replace(/^-+/, '')];
      return o?.type === 'boolean' ? `${flag} takes no value (${who}) ${help}` : `${flag} needs a value (${who}) ${help}`;
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${quoted}: ${who} takes only options (${optionList(options)}) ${help}`;
    default:
      return `${err.message} (${who})`;
  }
}

/** A string option's value ('' when absent). */
export const str = (v: string | boolean | undefined): string => (typeof v === 'string' ? v : '');

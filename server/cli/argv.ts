import type { Command } from 'commander';

/**
 * msprobe is invoked as `msprobe -f mindspore graph -i … -o …`: the framework comes before the sub-command.
 * Commander only knows options after their command, so leading `-f X` / `-fX` / `--framework X` /
 * `--framework=X` are moved behind the sub-command as `--framework X`. Anything else is left as typed.
 */
export function moveLeadingFramework(argv: readonly string[]): string[] {
  const rest = [...argv];
  const moved: string[] = [];
  while (rest.length > 0) {
    const a = rest[0];
    if ((a === '-f' || a === '--framework') && rest.length > 1 && !rest[1].startsWith('-')) {
      moved.push('--framework', rest[1]);
      rest.splice(0, 2);
    } else if (a.startsWith('--framework=')) {
      moved.push('--framework', a.slice('--framework='.length));
      rest.shift();
    } else if (/^-f[^-]/.test(a)) {
      moved.push('--framework', a.slice(2));
      rest.shift();
    } else break;
  }
  if (moved.length === 0 || rest.length === 0) return [...argv];
  return [rest[0], ...moved, ...rest.slice(1)];
}

/**
 * msprobe's multi-letter single-dash flags (`-lm`, `-oc`, `-am`, …), which commander would read as bundles of
 * one-letter flags, spelled out as the long forms `spellings` gives (`-lm=x` too). Everything else is left as typed.
 */
export function spellOutFlags(argv: readonly string[], spellings: Readonly<Record<string, string>>): string[] {
  return argv.map((a) => {
    const eq = a.indexOf('=');
    const long = spellings[eq < 0 ? a : a.slice(0, eq)];
    return long ? long + (eq < 0 ? '' : a.slice(eq)) : a;
  });
}

/** Makes `cmd` accept those spellings: they are spelled out before commander parses the command's arguments. */
export function acceptSpellings(cmd: Command, spellings: Readonly<Record<string, string>>): void {
  const parseOptions = cmd.parseOptions.bind(cmd);
  cmd.parseOptions = (argv: string[]) => parseOptions(spellOutFlags(argv, spellings));
}

import type { Command } from 'commander';
import { UsageError, type CliIo } from './program.js';

/**
 * `probeboard merge SHARD… -o OUT.vis.db [--force]`: the `.vis.db` shards of one `graph --shard` build joined into
 * one file, equal row for row to a single-machine build (server/graph/mergeShards.ts).
 */
export function registerMergeCommand(program: Command, io?: CliIo): void {
  const say = io?.out ?? ((t: string) => void process.stdout.write(t));
  program
    .command('merge')
    .description('join the .vis.db shards of one "graph --shard" build into one .vis.db')
    .argument('<shards...>', 'every shard file of the build (build_<key>_shard<K>of<N>.vis.db)')
    .requiredOption('-o, --output <file>', 'the merged file (.vis.db); written whole or not at all')
    .option('--force', 'replace the output file when it exists')
    .action(async (shards: string[], flags: { output: string; force?: boolean }) => {
      if (!flags.output.endsWith('.vis.db')) throw new UsageError(`-o ${flags.output}: the merged file's name must end in .vis.db`);
      const { mergeShards } = await import('../graph/mergeShards.js');
      const r = mergeShards(shards, flags.output, { force: flags.force });
      say(`probeboard: merged ${r.shards} shard${r.shards === 1 ? '' : 's'} (${r.pairs} graphs) → ${r.file}\n`);
    });
}

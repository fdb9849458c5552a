/**
 * A problem with a file the user handed in, as one line: `<file>: <problem>`. Each reader has its own subclass,
 * so callers can tell them apart; the CLI answers every FileProblem as an input error (one line, exit code 2) and
 * the server as a 4xx naming the file.
 */
export class FileProblem extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'FileProblem';
  }
}

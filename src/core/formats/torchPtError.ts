/** A `.pt` file that cannot be read as a plain tensor; names the file. */
export class TorchPtError extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'TorchPtError';
  }
}

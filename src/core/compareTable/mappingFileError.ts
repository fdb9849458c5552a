/** A mapping yaml (-am/-cm/-dm, the built-in API table) that is missing, unreadable or not the expected shape. */
export class MappingFileError extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'MappingFileError';
  }
}

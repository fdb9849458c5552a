import { FileProblem } from '../../fileProblem.js';

/**
 * A TensorBoard / ONNX file that cannot be read (fully). `offset` is the byte offset of the damaged record for event
 * files; `line`/`column` (1-based) the position in a text-format file. The message is the one-line problem without
 * the file name, which the caller adds (style.md: errors as values at boundaries).
 */
export class TbFormatError extends Error {
  constructor(
    message: string,
    readonly where: { offset?: number; line?: number; column?: number } = {},
  ) {
    super(message);
    this.name = 'TbFormatError';
  }
}

/** A `TbFormatError` with the file it came from, answered like every other bad input file (src/core/fileProblem.ts). */
export class TbFileProblem extends FileProblem {
  override name = 'TbFileProblem';
  readonly where: TbFormatError['where'];
  constructor(file: string, error: TbFormatError) {
    super(file, error.message);
    this.where = error.where;
  }
}

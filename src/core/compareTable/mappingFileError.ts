import { FileProblem } from '../fileProblem.js';

/** A mapping yaml (-am/-cm/-dm, the built-in API table) that is missing, unreadable or not the expected shape. */
export class MappingFileError extends FileProblem {
  override name = 'MappingFileError';
}

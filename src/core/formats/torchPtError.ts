import { FileProblem } from '../fileProblem.js';

/** A `.pt` file that cannot be read as a plain tensor; names the file. */
export class TorchPtError extends FileProblem {
  override name = 'TorchPtError';
}

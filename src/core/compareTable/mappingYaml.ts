import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { MappingFileError } from './mappingFileError.js';

/**
 * Parses a mapping yaml (-am/-cm/-dm, the built-in API table) to plain values, refusing duplicate keys. The yaml
 * library's own unique-key check compares each key with every earlier one (40,000 keys took a minute), so it is off
 * and the same check is done here with one Set per mapping. Errors are MappingFileErrors naming `file`.
 */
export function parseMappingYaml(text: string, file: string): unknown {
  const lines = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: false, lineCounter: lines, prettyErrors: true });
  if (doc.errors.length) throw new MappingFileError(file, `not valid YAML (${doc.errors[0].message.split('\n')[0]})`);
  const duplicate = firstDuplicateKey(doc.contents);
  if (duplicate) {
    const at = duplicate.offset === undefined ? null : lines.linePos(duplicate.offset);
    const where = at ? ` at line ${at.line}, column ${at.col}` : '';
    throw new MappingFileError(file, `not valid YAML (duplicate key '${duplicate.key}'${where})`);
  }
  try {
    return doc.toJS();
  } catch (e) {
    throw new MappingFileError(file, `not valid YAML (${(e as Error).message.split('\n')[0]})`);
  }
}

/** Walks the node tree with an explicit stack, so a deeply nested file cannot overflow the call stack. */
function firstDuplicateKey(root: unknown): { key: string; offset?: number } | null {
  const stack: unknown[] = [root];
  while (stack.length) {
    const node = stack.pop();
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? pair.key.value : String(pair.key);
        if (seen.has(key)) return { key: String(key), offset: (pair.key as Node | null)?.range?.[0] };
        seen.add(key);
        stack.push(pair.key, pair.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) stack.push(item);
    }
  }
  return null;
}

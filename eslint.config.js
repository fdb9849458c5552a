// The layers' import boundaries (README "Tests"): the core imports neither the viewer, the Node side, Node's modules
// nor a UI library; the viewer does not import the Node side; the Node side does not import the viewer.
import tseslint from 'typescript-eslint';

const restrict = (regex, message) => ({ 'no-restricted-imports': ['error', { patterns: [{ regex, message }] }] });

export default [
  { ignores: ['dist/**', 'node_modules/**', 'test/artifacts/**', 'examples/**'] },
  { files: ['**/*.ts', '**/*.tsx'], languageOptions: { parser: tseslint.parser } },
  {
    files: ['src/core/**/*.ts'],
    rules: restrict('^(\\.\\./)+(app|server)/|^node:|^(react|react-dom|zustand|express|better-sqlite3)(/|$)', 'src/core runs unchanged in Node, a Web Worker and the page: it imports only the core and plain libraries.'),
  },
  {
    files: ['src/app/**/*.ts', 'src/app/**/*.tsx'],
    rules: restrict('^(\\.\\./)+server/|^node:|^(express|better-sqlite3)(/|$)', 'The viewer talks to the server over HTTP only.'),
  },
  {
    files: ['server/**/*.ts'],
    rules: restrict('^(\\.\\./)+src/app/|^(react|react-dom|zustand)(/|$)', 'The Node side shares the core with the viewer, not the viewer itself.'),
  },
];

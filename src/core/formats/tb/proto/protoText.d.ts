// `import text from './x.proto?raw'`: vite and vitest load it natively, esbuild through scripts/build-server.mjs.
declare module '*.proto?raw' {
  const text: string;
  export default text;
}

/**
 * Which matched (name, shape) pairs survive the dtype check (msprobe-compare.md §3.2): equal dtypes, or both in
 * the float16/float32/bfloat16 group of one framework; in a MindSpore-vs-PyTorch run both names are first mapped
 * to their kind (int/float/bool/complex). A failing pair loses its bench side ("No bench data matched.").
 */

const MS_FLOATS = new Set(['Float16', 'Float32', 'BFloat16']);
const PT_FLOATS = new Set(['torch.float16', 'torch.float32', 'torch.bfloat16']);

const CROSS_KIND: Record<string, string> = {};
for (const [kind, names] of Object.entries({
  int: ['Int8', 'UInt8', 'Int16', 'UInt16', 'Int32', 'UInt32', 'Int64', 'UInt64'],
  float: ['Float16', 'Float32', 'Float64', 'BFloat16'],
  bool: ['Bool'],
  complex: ['Complex64', 'Complex128'],
})) {
  for (const ms of names) {
    CROSS_KIND[ms] = kind;
    CROSS_KIND[`torch.${ms.toLowerCase()}`] = kind;
  }
}

export function dtypesCompatible(npu: string, bench: string, crossFramework: boolean): boolean {
  if (crossFramework) {
    npu = CROSS_KIND[npu] ?? npu;
    bench = CROSS_KIND[bench] ?? bench;
  }
  if (npu === bench) return true;
  return (MS_FLOATS.has(npu) && MS_FLOATS.has(bench)) || (PT_FLOATS.has(npu) && PT_FLOATS.has(bench));
}

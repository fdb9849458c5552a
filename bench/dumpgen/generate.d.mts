// Types for generate.mjs (the generator is plain JavaScript so that it runs with `node` alone).

export interface DumpOptions {
  out: string;
  layers?: number;
  ranks?: number;
  steps?: number;
  microSteps?: number;
  bench?: boolean;
  md5?: boolean;
  tensor?: boolean;
  /** NaN/inf in the first bad layer's attention (NPU side), for `graph -oc`. */
  overflow?: boolean;
  seed?: number;
  stackFormat?: 'old' | 'grouped';
  /** One distinct stack per forward entry (layers called from lines of their own), with the real collector's frames. */
  distinctStacks?: boolean;
  layout?: 'auto' | 'files' | 'ranks' | 'steps';
  /** Layers strongly perturbed on the Bench side (default: one at 60 % depth). */
  badLayers?: number[];
  noise?: number;
  fortran?: boolean;
  /** torch_npu fused kernels (npu_rms_norm, npu_rotary_mul, npu_fusion_attention) instead of their decomposition. */
  fused?: boolean;
  /** msprobe data_mode ["forward"]: no backward entries, no parameter gradients. */
  forwardOnly?: boolean;
  /** Keep only this many innermost frames per stack. */
  stackFrames?: number;
  dims?: Partial<{ seq: number; hidden: number; heads: number; ffn: number; vocab: number }>;
  log?: (msg: string) => void;
}

export interface DumpSummary {
  compareJson: string;
  npuPath: string;
  benchPath: string | null;
  /** Dump entries summed over ranks and steps (construct.json keys + parameters_grad). */
  nodesPerSide: number;
  dumpDirs: number;
  jsonBytes: number;
  tensorBytes: number;
  tensorFiles: number;
  seconds: number;
}

export function generateDumps(options: DumpOptions): DumpSummary;

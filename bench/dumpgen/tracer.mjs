// Records what msprobe's hooks would record while a model runs (msprobe-format.md §1.4, §1.5, §1.8): module and API
// calls with msprobe's names and counters, construct.json's child → parent map in call order, dump.json entries,
// stacks, then the backward pass replayed in reverse and the parameter gradients.
import { hashSeed, Rng } from './random.mjs';
import { callSite, stackFor } from './stacks.mjs';
import { TensorRef } from './tensors.mjs';
import { TensorSlot } from './sides.mjs';

/** Python values as msprobe describes non-tensor arguments (ints are bigint: the writer prints them without ".0"). */
export const py = {
  /** @param {number} v */ int: (v) => ({ type: 'int', value: BigInt(v) }),
  /** @param {number} v */ float: (v) => ({ type: 'float', value: v }),
  /** @param {boolean} v */ bool: (v) => ({ type: 'bool', value: v }),
  /** @param {string} v */ str: (v) => ({ type: 'str', value: v }),
  /** @param {Array<number | null>} v */ slice: (...v) => ({ type: 'slice', value: v.map((x) => (x === null ? null : BigInt(x))) }),
};

/**
 * @typedef {object} CallNode  one recorded forward call, replayed by the backward pass
 * @property {'module' | 'api'} kind
 * @property {string} key   module: "{path}.{Class}"; api: "{Prefix}.{api}"
 * @property {number} n     module call count / API counter
 * @property {Array<TensorRef | null>} argTensors  one per positional argument (null for non-tensors)
 * @property {unknown[]} outputs  tensors, None (null) or Python values
 * @property {boolean} grad
 * @property {CallNode[]} children
 */

/** @param {unknown} v @param {string} base @returns {unknown} */
function toSlots(v, base) {
  if (v instanceof TensorRef) return new TensorSlot(v, base);
  if (Array.isArray(v)) return v.map((x, i) => toSlots(x, `${base}.${i}`));
  return v;
}

/** @param {unknown} v @returns {v is TensorRef} */
function needsGrad(v) {
  return v instanceof TensorRef && v.requiresGrad;
}

/** @param {unknown} v @returns {Array<TensorRef | null>} */
function flatArgs(v) {
  if (v instanceof TensorRef) return [v];
  if (Array.isArray(v)) return v.flatMap(flatArgs);
  return [null];
}

export class Tracer {
  /**
   * @param {{ seed: number, stackFrames?: number, distinctStacks?: boolean }} o  stackFrames: keep only the innermost
   *   frames of each stack; distinctStacks: stacks.mjs `distinct`
   */
  constructor(o) {
    this.seed = o.seed;
    this.stackFrames = o.stackFrames ?? Infinity;
    this.distinctStacks = Boolean(o.distinctStacks);
    this.rng = new Rng(o.seed);
    /** @type {Map<string, string | null>} construct.json */
    this.construct = new Map();
    /** @type {Map<string, Record<string, unknown>>} dump.json `data` */
    this.data = new Map();
    /** @type {Map<string, string[]>} stack.json (old shape) */
    this.stacks = new Map();
    /** @type {Map<string, number>} */
    this.apiCounts = new Map();
    /** @type {Map<string, number>} */
    this.moduleCounts = new Map();
    /** @type {Array<{ name: string, cls: string, attr: string, site: string, calls: number, node: CallNode }>} */
    this.open = [];
    this.topCalls = 0;
    /** @type {CallNode[]} root-level calls of the current micro step */
    this.tape = [];
    this.layer = -1;
    this.tensorCount = 0;
    /** @type {Map<string, TensorRef>} */
    this.weights = new Map();
    /** Modules with parameters, in first-call order: [key, {name: tensor}]. @type {Map<string, Record<string, TensorRef>>} */
    this.paramModules = new Map();
  }

  /**
   * A new tensor produced in the current layer.
   * @param {Omit<ConstructorParameters<typeof TensorRef>[0], 'id' | 'seed' | 'layer'> & { layer?: number }} f
   */
  tensor(f) {
    const id = this.tensorCount++;
    return new TensorRef({ layer: this.layer, ...f, id, seed: hashSeed(this.seed, id) });
  }

  /** An activation: zero-centred, O(1). @param {number[]} shape @param {string} dtype @param {number} [scale] */
  act(shape, dtype, scale = 1) {
    const r = this.rng;
    return this.tensor({ shape, dtype, kind: 'normal', mu: r.gauss() * 0.03 * scale, sigma: scale * r.uniform(0.5, 1.5), requiresGrad: true, role: 'fwd' });
  }

  /** A view of `x` (same values, maybe another shape or dtype). @param {TensorRef} x @param {number[]} [shape] @param {string} [dtype] */
  view(x, shape = x.shape, dtype = x.dtype) {
    return this.tensor({ ...x, shape, dtype, aliasOf: x, role: x.role, layer: x.layer });
  }

  /** A parameter, created once and shared by every call. @param {string} name @param {number[]} shape @param {string} dtype @param {number} [mu] */
  weight(name, shape, dtype, mu = 0) {
    let w = this.weights.get(name);
    if (!w) {
      const r = this.rng;
      w = this.tensor({ shape, dtype, kind: 'normal', mu: mu || r.gauss() * 1e-4, sigma: mu ? mu * 0.05 : 0.02, requiresGrad: true, role: 'param' });
      this.weights.set(name, w);
    }
    return w;
  }

  /** Resets per-micro-step call positions (stack line numbers must not depend on the micro step). */
  beginMicroStep() {
    this.topCalls = 0;
    this.tape = [];
  }

  /** @param {CallNode} node @returns {{ parent: string | null, ordinal: number }} */
  enter(node) {
    const top = this.open[this.open.length - 1];
    if (top) {
      top.node.children.push(node);
      return { parent: top.name, ordinal: top.calls++ };
    }
    this.tape.push(node);
    return { parent: null, ordinal: this.topCalls++ };
  }

  /**
   * A module forward call `Module.{path}.{cls}.forward.{n}`; `body` runs inside it and returns its outputs.
   * @template {unknown[]} T
   * @param {string} path @param {string} cls @param {unknown[]} args
   * @param {Record<string, TensorRef> | null} params
   * @param {() => T} body
   * @returns {T}
   */
  module(path, cls, args, params, body) {
    const key = `${path}.${cls}`;
    const n = this.moduleCounts.get(key) ?? 0;
    this.moduleCounts.set(key, n + 1);
    const name = `Module.${key}.forward.${n}`;
    /** @type {CallNode} */
    const node = { kind: 'module', key, n, argTensors: flatArgs(args), outputs: [], grad: true, children: [] };
    const { parent, ordinal } = this.enter(node);
    this.construct.set(name, parent);
    /** @type {Record<string, unknown>} */
    const entry = { input_args: toSlots(args, `${name}.input`), input_kwargs: {}, output: null };
    this.data.set(name, entry);
    const attr = path.split('.').pop() ?? path;
    const site = callSite(ordinal, attr, this.distinctStacks);
    this.stacks.set(name, stackFor(this.open, site, { attr }, this.distinctStacks).slice(0, this.stackFrames));
    this.open.push({ name, cls, attr, site, calls: 0, node });
    const outputs = body();
    this.open.pop();
    node.outputs = outputs;
    // A module whose outputs need no gradient (rotary tables) never fires a backward hook.
    node.grad = outputs.some(needsGrad);
    entry.output = toSlots(outputs, `${name}.output`);
    if (params) {
      entry.parameters = Object.fromEntries(Object.entries(params).map(([k, w]) => [k, new TensorSlot(w, `${name}.parameters.${k}`)]));
      if (!this.paramModules.has(key)) this.paramModules.set(key, params);
    }
    return outputs;
  }

  /**
   * An API call `{base}.{k}.forward` (k = msprobe's per-API global counter).
   * @param {string} base e.g. "Tensor.__add__"
   * @template {unknown[]} T
   * @param {unknown[]} args @param {Record<string, unknown>} kwargs @param {T} outputs
   * @param {{ grad?: boolean }} [o] grad: false for calls that get no backward entry (integer ops, collectives)
   * @returns {T}
   */
  api(base, args, kwargs, outputs, o = {}) {
    const k = this.apiCounts.get(base) ?? 0;
    this.apiCounts.set(base, k + 1);
    const name = `${base}.${k}.forward`;
    const grad = o.grad ?? outputs.some(needsGrad);
    /** @type {CallNode} */
    const node = { kind: 'api', key: base, n: k, argTensors: flatArgs(args), outputs, grad, children: [] };
    const { parent, ordinal } = this.enter(node);
    this.construct.set(name, parent);
    const kw = Object.fromEntries(Object.entries(kwargs).map(([key, v]) => [key, toSlots(v, `${name}.input.${key}`)]));
    this.data.set(name, { input_args: toSlots(args, `${name}.input`), input_kwargs: kw, output: toSlots(outputs, `${name}.output`) });
    this.stacks.set(name, stackFor(this.open, callSite(ordinal, null), { api: base }, this.distinctStacks).slice(0, this.stackFrames));
    return outputs;
  }

  /** A gradient tensor shaped like `t`, in the layer that produced `t`. @param {TensorRef} t */
  gradLike(t) {
    const r = this.rng;
    const sigma = 10 ** r.uniform(-5, -3.5);
    return this.tensor({ shape: t.shape, dtype: t.dtype, kind: 'normal', mu: sigma * r.gauss() * 0.02, sigma, requiresGrad: false, role: 'bwd', layer: t.layer });
  }

  /**
   * Replays the current micro step's calls in reverse as msprobe's backward hooks see them: a module's backward entry
   * first (pre-hook), then its children in reverse; APIs as `{base}.{k}.backward`. Then the parameter gradients
   * `Module.{path}.{cls}.parameters_grad.{micro}` (not in construct.json).
   * @param {number} micro
   */
  backward(micro) {
    /** @type {Map<TensorRef, TensorRef>} */
    const grads = new Map();
    /** @param {TensorRef} t */
    const gradOf = (t) => {
      let g = grads.get(t);
      if (!g) grads.set(t, (g = this.gradLike(t)));
      return g;
    };
    /** @param {CallNode[]} nodes @param {string | null} parent */
    const replay = (nodes, parent) => {
      for (let i = nodes.length - 1; i >= 0; i--) {
        const node = nodes[i];
        if (!node.grad) continue;
        const name = node.kind === 'module' ? `Module.${node.key}.backward.${node.n}` : `${node.key}.${node.n}.backward`;
        this.construct.set(name, parent);
        /** @type {Record<string, unknown>} */
        const entry = { input: null, output: null };
        this.data.set(name, entry);
        const gradIn = node.outputs.map((o) => (needsGrad(o) ? gradOf(o) : null));
        if (node.kind === 'module') replay(node.children, name);
        const gradOut = node.argTensors.map((a) => {
          if (!a?.requiresGrad) return null;
          if (node.kind === 'module') return gradOf(a);
          const g = this.gradLike(a);
          grads.set(a, g);
          return g;
        });
        entry.input = toSlots(gradIn, `${name}.input`);
        entry.output = toSlots(gradOut, `${name}.output`);
      }
    };
    replay(this.tape, null);
    const modules = [...this.paramModules].reverse();
    for (const [key, params] of modules) {
      const name = `Module.${key}.parameters_grad.${micro}`;
      const entry = Object.fromEntries(Object.entries(params).map(([p, w]) => {
        const g = this.gradLike(w);
        return [p, [new TensorSlot(g, `${name}.${p}`)]];
      }));
      this.data.set(name, entry);
    }
  }
}

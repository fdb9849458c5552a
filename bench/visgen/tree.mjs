// The node hierarchy of a synthetic transformer run, shaped like msprobe's graph (msprobe-format.md §2): a root,
// an embedding, optional "wide" modules with thousands of API leaves, a module with exactly 1,000 leaves, a deep
// chain of nested modules, then blocks of transformer layers with Apis_Between_Modules collections, and an output
// layer taking the remainder so the node count is exact. Kept in typed arrays (first child / next sibling) so 10^6
// nodes stay small.

const LAYER_NODES = 27;
const LAYERS_PER_BLOCK = 64;
const COLLECTION_NODES = 4;
const APIS = [
  'Functional.linear',
  'Torch.matmul',
  'Tensor.__add__',
  'Functional.softmax',
  'Torch.mul',
  'Functional.dropout',
  'Tensor.view',
  'Functional.gelu',
];

export class Tree {
  /** @param {number} capacity */
  constructor(capacity) {
    /** @type {string[]} */
    this.ids = [];
    this.parent = new Int32Array(capacity);
    this.type = new Uint8Array(capacity);
    this.firstChild = new Int32Array(capacity).fill(-1);
    this.lastChild = new Int32Array(capacity).fill(-1);
    this.nextSibling = new Int32Array(capacity).fill(-1);
    this.childCount = new Int32Array(capacity);
    this.apiCounters = new Map();
  }

  get size() {
    return this.ids.length;
  }

  /** @param {string} id @param {number} type @param {number} parent */
  add(id, type, parent) {
    const i = this.ids.length;
    if (i >= this.parent.length) throw new Error(`visgen: tree capacity ${this.parent.length} exceeded`);
    this.ids.push(id);
    this.parent[i] = parent;
    this.type[i] = type;
    if (parent >= 0) {
      if (this.lastChild[parent] < 0) this.firstChild[parent] = i;
      else this.nextSibling[this.lastChild[parent]] = i;
      this.lastChild[parent] = i;
      this.childCount[parent]++;
    }
    return i;
  }

  /** An API leaf with msprobe's `{api}.{n}.forward` name. @param {number} parent @param {number} k */
  leaf(parent, k) {
    const api = APIS[k % APIS.length];
    const n = this.apiCounters.get(api) ?? 0;
    this.apiCounters.set(api, n + 1);
    return this.add(`${api}.${n}.forward`, 1, parent);
  }

  /** @param {number} node @returns {number[]} */
  children(node) {
    const out = [];
    for (let c = this.firstChild[node]; c >= 0; c = this.nextSibling[c]) out.push(c);
    return out;
  }

  /** Ancestor ids, root first. @param {number} node */
  pathOf(node) {
    const out = [];
    for (let p = this.parent[node]; p >= 0; p = this.parent[p]) out.push(this.ids[p]);
    return out.reverse();
  }

  /** Post-order (children before their parent), msprobe's `node_order` (msprobe-format.md §4.2). */
  postOrder() {
    const order = new Int32Array(this.size);
    let k = 0;
    const stack = [0];
    const visited = new Uint8Array(this.size);
    while (stack.length > 0) {
      const n = stack[stack.length - 1];
      if (!visited[n]) {
        visited[n] = 1;
        const kids = this.children(n);
        for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
      } else {
        stack.pop();
        order[k++] = n;
      }
    }
    return order;
  }
}

/**
 * @param {{ nodes: number, wide?: boolean | number }} o
 * @returns {{ tree: Tree, wideModules: number[], thousandModule: number, deepest: number }}
 */
export function buildTree(o) {
  const total = Math.max(3, Math.floor(o.nodes));
  const tree = new Tree(total);
  const root = tree.add('DefaultModel', 0, -1);
  const left = () => total - tree.size;
  // The output layer (a module and one leaf) is always last, and takes whatever the loops leave.
  const reserve = 2;

  const module = (/** @type {string} */ id, /** @type {number} */ parent, /** @type {number} */ leaves, type = 0) => {
    const m = tree.add(id, type, parent);
    for (let k = 0; k < leaves; k++) tree.leaf(m, k);
    return m;
  };

  if (left() >= reserve + 3) module('Module.embedding.Embedding.forward.0', root, 2);

  const wideModules = [];
  if (o.wide) {
    let width = o.wide === true ? 5000 : Math.max(1, Math.floor(o.wide));
    let count = Math.max(1, Math.floor(total / 50_000));
    while (count > 1 && (width + 1) * count > 0.6 * total) count--;
    if ((width + 1) * count > 0.6 * total) width = Math.max(1, Math.floor(0.5 * total) - 1);
    for (let w = 0; w < count && left() >= width + 1 + reserve; w++) {
      wideModules.push(module(`Module.wide.${w}.WideBlock.forward.0`, root, width));
    }
  }

  let thousandModule = -1;
  if (total >= 2000 && left() >= 1001 + reserve) thousandModule = module('Module.thousand.ThousandBlock.forward.0', root, 1000);

  // A chain of nested modules, each with one leaf: depth grows with size, up to 100 levels.
  let deepest = root;
  const depth = Math.min(100, Math.floor((left() - reserve) * 0.02 / 2));
  for (let d = 0, parent = root; d < depth; d++) {
    parent = tree.add(`Module.deep.${'sub.'.repeat(d)}Block.forward.0`, 0, parent);
    deepest = tree.leaf(parent, d);
  }

  // Decoder layers in blocks of LAYERS_PER_BLOCK (one block ≈ one forward of a pipeline stage), so the root keeps
  // a few hundred children even at 10^6 nodes, as real runs with many micro steps do.
  let block = -1;
  for (let layer = 0; left() >= LAYER_NODES + COLLECTION_NODES + 1 + reserve; layer++) {
    if (layer % LAYERS_PER_BLOCK === 0) block = tree.add(`Module.blocks.${layer / LAYERS_PER_BLOCK}.TransformerBlock.forward.0`, 0, root);
    addLayer(tree, block, layer);
    // API calls between modules are grouped as msprobe does (node_type 9, msprobe-format.md §2.8).
    if (layer % 4 === 3) module(`Apis_Between_Modules.${Math.floor(layer / 4)}`, block, 3, 9);
  }

  const out = tree.add('Module.output_layer.Linear.forward.0', 0, root);
  for (let k = 0; left() > 0; k++) tree.leaf(out, k);
  if (deepest === root) deepest = tree.size - 1;
  return { tree, wideModules, thousandModule, deepest };
}

/** One decoder layer: 27 nodes (modules with their API calls, as msprobe names them). */
function addLayer(/** @type {Tree} */ tree, /** @type {number} */ root, /** @type {number} */ i) {
  const p = `Module.layers.${i}`;
  const layer = tree.add(`${p}.TransformerLayer.forward.0`, 0, root);
  const ln1 = tree.add(`${p}.input_layernorm.LayerNorm.forward.0`, 0, layer);
  tree.leaf(ln1, 7);
  const attn = tree.add(`${p}.self_attention.SelfAttention.forward.0`, 0, layer);
  for (let k = 0; k < 8; k++) tree.leaf(attn, k);
  const core = tree.add(`${p}.self_attention.core_attention.CoreAttention.forward.0`, 0, attn);
  for (let k = 0; k < 4; k++) tree.leaf(core, k + 1);
  tree.leaf(layer, 2);
  const ln2 = tree.add(`${p}.post_attention_layernorm.LayerNorm.forward.0`, 0, layer);
  tree.leaf(ln2, 7);
  const mlp = tree.add(`${p}.mlp.MLP.forward.0`, 0, layer);
  const fc1 = tree.add(`${p}.mlp.dense_h_to_4h.Linear.forward.0`, 0, mlp);
  tree.leaf(fc1, 0);
  tree.leaf(mlp, 7);
  const fc2 = tree.add(`${p}.mlp.dense_4h_to_h.Linear.forward.0`, 0, mlp);
  tree.leaf(fc2, 0);
  tree.leaf(layer, 2);
}

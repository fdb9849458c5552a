import type { PyValue } from '../formats/pyJson.js';
import type { Graph, GraphNode, RawItem } from '../model/graph.js';
import { precisionIndexRepr } from './nodeResults.js';
import { pyEquals } from './pyNumber.js';

/**
 * Cross-rank communication matching → `matched_distributed` (msprobe-format.md §2.12; msprobe
 * `DistributedAnalyzer`). Run once per side over that side's graphs of one step, keyed by rank.
 *
 * The value written is `{communications_type, nodes_info: {"<rank>": ["<index>", "<node id>"]}}`, or a list of
 * those for `batch_isend_irecv` with several P2P ops. `nodes_info` is a plain object, so its rank keys come out in
 * ascending order (msprobe: insertion order, which is the same unless a group lists its ranks unsorted).
 */

type CommType = 'send' | 'receive' | 'send_receive';

export interface MatchedDistributed {
  communications_type: CommType;
  nodes_info?: Record<string, [string, string]>;
}

interface P2pConfig {
  target: string;
  rankParam: string;
  comm: CommType;
  kind: 'p2p' | 'collective';
}

const CONFIG: Record<string, P2pConfig> = {
  send: { target: 'recv', rankParam: 'dst', comm: 'send', kind: 'p2p' },
  isend: { target: 'irecv', rankParam: 'dst', comm: 'send', kind: 'p2p' },
  recv: { target: 'send', rankParam: 'src', comm: 'receive', kind: 'p2p' },
  irecv: { target: 'isend', rankParam: 'src', comm: 'receive', kind: 'p2p' },
  broadcast: { target: 'broadcast', rankParam: '1', comm: 'send', kind: 'collective' },
  scatter: { target: 'scatter', rankParam: 'src', comm: 'send', kind: 'collective' },
  gather: { target: 'gather', rankParam: 'dst', comm: 'receive', kind: 'collective' },
  reduce: { target: 'reduce', rankParam: '1', comm: 'receive', kind: 'collective' },
};

const BATCH_P2P = 'batch_isend_irecv';

function configOf(api: string): P2pConfig | undefined {
  return Object.prototype.hasOwnProperty.call(CONFIG, api) ? CONFIG[api] : undefined;
}

/** Python `str()` of a rank value as it appears in ids and JSON keys. */
function rankStr(v: PyValue): string {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isInteger(v) ? `${v}.0` : String(v);
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return 'None';
}

/** The graph dict is keyed by int rank; only an int value finds a graph. */
function rankKey(v: PyValue): number | undefined {
  if (typeof v === 'bigint') return Number(v);
  return undefined;
}

function replaceAll(s: string, from: string, to: string): string {
  return s.split(from).join(to);
}

function apiName(nodeId: string): string {
  return nodeId.split('.')[1] ?? '';
}

function targetRankOf(node: GraphNode, param: string): PyValue | undefined {
  const item = node.inputData.get(`${node.id}.input.${param}`);
  const v = item?.get('value');
  return v === null ? undefined : v;
}

function groupInfo(node: GraphNode): { ranks: PyValue[]; id: string } | null {
  const group: RawItem | undefined = node.inputData.get(`${node.id}.input.group`);
  if (!group || group.size === 0) return null;
  const ranks = group.get('group_ranks');
  if (!Array.isArray(ranks) || ranks.length === 0) return null;
  const id = group.get('group_id');
  if (typeof id !== 'string' || id === '') return null;
  return { ranks, id };
}

const OUTPUT_KEYS = ['dtype', 'shape', 'Max', 'Min', 'Mean', 'Norm'];

function outputsEqual(a: RawItem | undefined, b: RawItem | undefined): boolean {
  return OUTPUT_KEYS.every((k) => pyEquals(a?.get(k) ?? null, b?.get(k) ?? null));
}

function opposite(comm: CommType): CommType {
  if (comm === 'send') return 'receive';
  if (comm === 'receive') return 'send';
  return comm;
}

export function matchDistributed(graphsByRank: Map<number, Graph>, overflowCheck: boolean): void {
  // rank → (unique id → node id), (node id → unique id | unique ids of a batch)
  const idToNode = new Map<number, Map<string, string>>();
  const nodeToIds = new Map<number, Map<string, string | string[]>>();

  const indexOf = (node: GraphNode): string =>
    overflowCheck ? (node.data.overflowLevel ?? 'Nan') : (precisionIndexRepr(node) ?? 'Nan');

  for (const [rank, graph] of graphsByRank) {
    const toNode = new Map<string, string>();
    const toIds = new Map<string, string | string[]>();
    const groupCount = new Map<string, number>();
    const batchCount = new Map<string, number>();
    for (const [id, node] of graph.nodeMap) {
      if (!id.startsWith('Distributed')) continue;
      const api = apiName(id);
      if (api === BATCH_P2P) {
        const params: string[] = [];
        for (const info of node.batchP2pInfo) {
          if (info.op === null || info.op === undefined || info.peer === null || info.peer === undefined) continue;
          const groupId = typeof info.groupId === 'string' ? info.groupId : '';
          const key = `${info.op}_rank${rankStr(info.peer)}_${groupId}`;
          const count = (batchCount.get(key) ?? 0) + 1;
          batchCount.set(key, count);
          const unique = `${key}_${count}`;
          params.push(unique);
          toNode.set(unique, node.id);
        }
        if (params.length) toIds.set(node.id, params);
        continue;
      }
      const config = configOf(api);
      let groupKey: string;
      if (config?.kind === 'p2p') {
        const target = targetRankOf(node, config.rankParam);
        if (target === undefined) continue;
        groupKey = `${api}rank${rankStr(target)}`;
      } else {
        const group = groupInfo(node);
        if (!group) continue;
        groupKey = group.id + api;
      }
      const count = (groupCount.get(groupKey) ?? 0) + 1;
      groupCount.set(groupKey, count);
      const unique = `${groupKey}_${count}`;
      toNode.set(unique, id);
      toIds.set(id, unique);
    }
    idToNode.set(rank, toNode);
    nodeToIds.set(rank, toIds);
  }

  const targetNode = (
    rank: number,
    unique: string,
    api: string,
    targetRank: PyValue,
    targetApi?: string,
  ): GraphNode | undefined => {
    const key = rankKey(targetRank);
    const graph = key === undefined ? undefined : graphsByRank.get(key);
    if (!graph || key === undefined) return undefined;
    const targetUnique = targetApi
      ? replaceAll(replaceAll(unique, `rank${rankStr(targetRank)}`, `rank${rank}`), api, targetApi)
      : unique;
    const targetId = idToNode.get(key)?.get(targetUnique) ?? '';
    return graph.nodeMap.get(targetId);
  };

  const link = (node: GraphNode, target: GraphNode, api: string, targetRank: PyValue, reverse = false) => {
    const comm = CONFIG[api].comm;
    const value: MatchedDistributed = {
      communications_type: reverse ? opposite(comm) : comm,
      nodes_info: { [rankStr(targetRank)]: [indexOf(target), target.id] },
    };
    node.matchedDistributed = value;
  };

  const isMatched = (node: GraphNode): boolean => {
    const md = node.matchedDistributed;
    if (md === null || md === undefined) return false;
    if (Array.isArray(md)) return md.length > 0;
    return typeof md === 'object' && Object.keys(md as object).length > 0;
  };

  for (const [rank, graph] of graphsByRank) {
    for (const [id, node] of graph.nodeMap) {
      if (!id.startsWith('Distributed') || isMatched(node)) continue;
      const api = apiName(id);
      const config = configOf(api);
      if (api === BATCH_P2P) {
        const uniques = nodeToIds.get(rank)?.get(id);
        if (!Array.isArray(uniques) || uniques.length === 0) continue;
        const list: MatchedDistributed[] = [];
        let single: MatchedDistributed | null = null;
        for (const unique of uniques) {
          const parts = unique.split('_');
          const opApi = parts[0];
          const opConfig = configOf(opApi);
          const rankText = (parts[1] ?? '').replace('rank', '').trim();
          // Python int(): an integer literal only
          if (!opConfig || !/^[+-]?\d+$/.test(rankText)) continue;
          // BigInt of the text, not of a Number: a 400-digit rank is Infinity as a Number (no BigInt of it).
          const targetRank = BigInt(rankText);
          const target = targetNode(rank, unique, opApi, targetRank, opConfig.target);
          if (!target) continue;
          const info: MatchedDistributed = {
            communications_type: opConfig.comm,
            nodes_info: { [String(targetRank)]: [indexOf(target), target.id] },
          };
          if (uniques.length > 1) list.push(info);
          else single = info;
        }
        if (uniques.length > 1 ? list.length : single) node.matchedDistributed = uniques.length > 1 ? list : single;
      } else if (config?.kind === 'p2p') {
        const target = targetRankOf(node, config.rankParam);
        if (target === undefined) continue;
        const unique = nodeToIds.get(rank)?.get(id);
        const peer = targetNode(rank, typeof unique === 'string' ? unique : '', api, target, config.target);
        if (!peer) continue;
        const source = targetRankOf(peer, CONFIG[config.target].rankParam);
        if (source === undefined) continue;
        if (!pyEquals(source, BigInt(rank))) continue;
        if (!outputsEqual(node.outputData.get(`${node.id}.output.0`), peer.outputData.get(`${peer.id}.output.0`))) continue;
        link(node, peer, api, target);
        link(peer, node, config.target, BigInt(rank));
      } else {
        let comm: CommType = 'send_receive';
        if (config) {
          const source = targetRankOf(node, config.rankParam);
          if (source === undefined || rankStr(source) !== String(rank)) continue;
          comm = config.comm;
        }
        const group = groupInfo(node);
        if (!group) continue;
        const unique = nodeToIds.get(rank)?.get(id);
        const nodesInfo: Record<string, [string, string]> = {};
        let any = false;
        for (const targetRank of group.ranks) {
          if (rankStr(targetRank) === String(rank)) continue;
          const peer = targetNode(rank, typeof unique === 'string' ? unique : '', api, targetRank);
          if (!peer) continue;
          const peerGroup = groupInfo(peer);
          if (!peerGroup || peerGroup.id !== group.id) continue;
          nodesInfo[rankStr(targetRank)] = [indexOf(peer), peer.id];
          any = true;
          if (config) link(peer, node, api, BigInt(rank), true);
        }
        if (any) node.matchedDistributed = { communications_type: comm, nodes_info: nodesInfo };
      }
    }
  }
}

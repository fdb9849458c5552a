/**
 * `matched_distributed` of a `Distributed.*` node (msprobe-format.md §2.12): `{communications_type, nodes_info:
 * {"<rank>": ["<index>", "<node id>"]}}`, or a list of those for a batch_isend_irecv. Read defensively: the value
 * comes from the user's file, so anything else gives no peers.
 */

export interface CommPeer {
  rank: number;
  /** The peer's precision_index (or overflow level with -oc) as msprobe wrote it, `Nan` when it had none. */
  index: string;
  nodeId: string;
}

export interface CommLink {
  /** send | receive | send_receive as written. */
  type: string;
  peers: CommPeer[];
}

export function communicationLinks(value: unknown): CommLink[] {
  const items = Array.isArray(value) ? value : [value];
  const links: CommLink[] = [];
  for (const item of items) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) continue;
    const { communications_type: type, nodes_info: info } = item as Record<string, unknown>;
    if (typeof info !== 'object' || info === null || Array.isArray(info)) continue;
    const peers: CommPeer[] = [];
    for (const [key, entry] of Object.entries(info)) {
      const rank = /^\d{1,9}$/.test(key) ? Number(key) : NaN;
      if (!Number.isSafeInteger(rank) || !Array.isArray(entry) || typeof entry[1] !== 'string') continue;
      peers.push({ rank, index: entry[0] === undefined || entry[0] === null ? '' : String(entry[0]), nodeId: entry[1] });
    }
    if (peers.length > 0) links.push({ type: typeof type === 'string' ? type : '', peers: peers.sort((a, b) => a.rank - b.rank) });
  }
  return links;
}

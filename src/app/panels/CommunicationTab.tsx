import type { NodeDetail, Side } from '../../core/api/types.js';
import { communicationLinks } from '../../core/ranks/communication.js';
import { openRankAt, rankGraph, type OpenView } from '../commands/openRank.js';
import '../controls/heatmap.css';
import { useT } from '../i18n/i18n.js';
import { useAppStore } from '../state/appStore.js';

/** Whether either side of the selection has communication peers (the tab is offered only then). */
export function hasPeers(npu: NodeDetail | null, bench: NodeDetail | null): boolean {
  return [npu, bench].some((d) => d !== null && communicationLinks(d.matchedDistributed).length > 0);
}

function useOpenView(): OpenView {
  const runs = useAppStore((s) => s.runs);
  const run = useAppStore((s) => s.run);
  const tag = useAppStore((s) => s.tag);
  const step = useAppStore((s) => s.step);
  const meta = useAppStore((s) => s.meta);
  return { runs, run, tag, step, meta };
}

function SidePeers({ detail, side, label }: { detail: NodeDetail; side: Side; label: string | null }) {
  const t = useT();
  const view = useOpenView();
  const links = communicationLinks(detail.matchedDistributed);
  if (links.length === 0) return null;
  return (
    <div className="pb-sideinfo" data-side={side} data-testid={`comm-${side}`}>
      {label && <h3 className="pb-sideinfo__title">{label}</h3>}
      {links.map((link, k) => (
        <div className="pb-block" key={k}>
          <h4 data-testid="comm-type">{t('comm.type', { type: link.type })}</h4>
          <table className="pb-comm__table">
            <thead>
              <tr>
                <th scope="col">{t('comm.rank')}</th>
                <th scope="col">{t('comm.node')}</th>
                <th scope="col">{t('comm.index')}</th>
                <th scope="col" />
              </tr>
            </thead>
            <tbody>
              {link.peers.map((peer) => {
                const reachable = rankGraph(view, peer.rank) !== null;
                return (
                  <tr key={peer.rank} data-testid="comm-peer" data-rank={peer.rank} data-node={peer.nodeId}>
                    <td>{peer.rank}</td>
                    <td className="pb-comm__node">{peer.nodeId}</td>
                    <td>{peer.index}</td>
                    <td>
                      <button
                        type="button"
                        data-testid="comm-go"
                        disabled={!reachable}
                        title={reachable ? undefined : t('comm.noRank', { rank: peer.rank })}
                        onClick={() => void openRankAt(peer.rank, side, peer.nodeId)}
                      >
                        {t('comm.go', { rank: peer.rank })}
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ))}
    </div>
  );
}

/**
 * Issue 14 #6: the selected node's `matched_distributed` (msprobe-format.md §2.12), per side: the communication type
 * and each peer rank's node, with a button that opens that rank and selects the peer node there.
 */
export function CommunicationTab({ npu, bench, compare }: { npu: NodeDetail | null; bench: NodeDetail | null; compare: boolean }) {
  const t = useT();
  if (!hasPeers(npu, bench)) return <p className="pb-info__empty">{t('comm.none')}</p>;
  return (
    <div className="pb-nodeinfo" data-testid="comm-tab">
      {npu && <SidePeers detail={npu} side="npu" label={compare ? t('info.side.npu') : null} />}
      {bench && <SidePeers detail={bench} side="bench" label={t('info.side.bench')} />}
    </div>
  );
}

import type { ChangeEvent } from 'react';
import { useT } from '../i18n/i18n.js';
import { openFile } from '../state/actions.js';
import { useAppStore } from '../state/appStore.js';

/** Run → file → micro step. A file the server could not read stays listed, marked, with its one-line error. */
export function FilePicker() {
  const t = useT();
  const runs = useAppStore((s) => s.runs);
  const run = useAppStore((s) => s.run);
  const tag = useAppStore((s) => s.tag);
  const micro = useAppStore((s) => s.micro);
  const step = useAppStore((s) => s.step);
  const rank = useAppStore((s) => s.rank);
  const meta = useAppStore((s) => s.meta);
  const setMicro = useAppStore((s) => s.setMicro);

  const runEntry = runs.find((r) => r.run === run);
  const tags = runEntry?.tags ?? [];
  const tagEntry = tags.find((e) => e.tag === tag);
  const microSteps = meta?.microSteps ?? 0;

  const onRun = (e: ChangeEvent<HTMLSelectElement>) => {
    const next = runs.find((r) => r.run === e.target.value);
    const first = next?.tags.find((x) => x.error === null) ?? next?.tags[0];
    if (next && first) void openFile(next.run, first.tag);
  };
  const onTag = (e: ChangeEvent<HTMLSelectElement>) => {
    if (run !== null) void openFile(run, e.target.value);
  };
  // A `.vis.db` holds one graph per step and rank; changing either re-opens the graph (micro step back to ALL).
  const steps = meta?.steps ?? [];
  const ranks = meta?.ranks ?? [];
  const reopenAt = (at: { step: number | null; rank: number | null }) => {
    if (run !== null && tag !== null) void openFile(run, tag, at);
  };

  return (
    <div className="pb-picker">
      <label className="pb-field">
        <span className="pb-field__label">{t('picker.run')}</span>
        <select data-testid="run-select" value={run ?? ''} onChange={onRun}>
          {run === null && <option value="" disabled />}
          {runs.map((r) => (
            <option key={r.run} value={r.run}>
              {r.run}
            </option>
          ))}
        </select>
      </label>
      <label className="pb-field">
        <span className="pb-field__label">{t('picker.tag')}</span>
        <select data-testid="tag-select" value={tag ?? ''} onChange={onTag} disabled={tags.length === 0}>
          {tag === null && <option value="" disabled />}
          {tags.map((e) => (
            <option key={e.tag} value={e.tag} data-error={e.error ? 'true' : undefined}>
              {e.error ? t('picker.badFile', { tag: e.tag }) : e.graphType ? `${e.tag} · ${t(e.graphType === 'compare' ? 'picker.compare' : 'picker.build')}` : e.tag}
            </option>
          ))}
        </select>
      </label>
      {tagEntry?.error && (
        <p className="pb-picker__error" data-testid="file-error" role="status">
          {t('picker.fileError', { error: tagEntry.error })}
        </p>
      )}
      {steps.length > 1 && (
        <NumberSelect
          label={t('picker.step')}
          testId="step-select"
          value={step ?? steps[0]}
          options={steps}
          onChange={(s) => reopenAt({ step: s, rank })}
        />
      )}
      {ranks.length > 1 && (
        <NumberSelect
          label={t('picker.rank')}
          testId="rank-select"
          value={rank ?? ranks[0]}
          options={ranks}
          onChange={(r) => reopenAt({ step, rank: r })}
        />
      )}
      <label className="pb-field">
        <span className="pb-field__label">{t('picker.micro')}</span>
        <select
          data-testid="micro-select"
          value={micro}
          onChange={(e) => setMicro(Number(e.target.value))}
          disabled={!meta}
        >
          <option value={-1}>{t('picker.microAll')}</option>
          {Array.from({ length: microSteps }, (_, i) => (
            <option key={i} value={i}>
              {i}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

interface NumberSelectProps {
  label: string;
  testId: string;
  value: number;
  options: number[];
  onChange: (value: number) => void;
}

function NumberSelect(props: NumberSelectProps) {
  return (
    <label className="pb-field">
      <span className="pb-field__label">{props.label}</span>
      <select data-testid={props.testId} value={props.value} onChange={(e) => props.onChange(Number(e.target.value))}>
        {props.options.map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
    </label>
  );
}

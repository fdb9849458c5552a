import type { ChangeEvent } from 'react';
import { useT } from '../i18n/i18n.js';
import { switchGraph } from '../state/actions.js';
import { useAppStore } from '../state/appStore.js';
import { entryForOptionValue, fileExtension, fileOptionValue, findRun, openEntry, pickerChoices, rankAtStep, runLabel } from '../state/fileChoice.js';

/**
 * Run → file → micro step. A file the server could not read stays listed, marked, with its one-line error. Each
 * file shows its extension, so a `.vis` and a `.vis.db` of one name are two entries that open their own file. A run
 * or file that is not listed (a link to something gone) shows as no choice, never as another run's.
 */
export function FilePicker() {
  const t = useT();
  const runs = useAppStore((s) => s.runs);
  const run = useAppStore((s) => s.run);
  const tag = useAppStore((s) => s.tag);
  const format = useAppStore((s) => s.format);
  const micro = useAppStore((s) => s.micro);
  const step = useAppStore((s) => s.step);
  const rank = useAppStore((s) => s.rank);
  const meta = useAppStore((s) => s.meta);
  const setMicro = useAppStore((s) => s.setMicro);

  const runEntry = findRun(runs, run);
  const tags = runEntry?.tags ?? [];
  const tagEntry = openEntry(tags, tag, format);
  const microSteps = meta?.microSteps ?? 0;

  const onRun = (e: ChangeEvent<HTMLSelectElement>) => {
    const next = runs.find((r) => r.run === e.target.value);
    const first = next?.tags.find((x) => x.error === null) ?? next?.tags[0];
    if (next && first) void switchGraph({ step: null, rank: null, file: { run: next.run, tag: first.tag, format: first.format } });
  };
  const onTag = (e: ChangeEvent<HTMLSelectElement>) => {
    const entry = entryForOptionValue(tags, e.target.value);
    // Another file keeps the selection and open groups where it has them (issue 14 item 5).
    if (run !== null && entry) void switchGraph({ step: null, rank: null, file: { run, tag: entry.tag, format: entry.format } });
  };
  // A `.vis.db` holds one graph per step and rank; changing either re-opens the graph (micro step back to ALL).
  const { steps, ranks } = pickerChoices(meta, step, rank);
  const reopenAt = (at: { step: number | null; rank: number | null }) => void switchGraph(at);

  return (
    <div className="pb-picker">
      <label className="pb-field">
        <span className="pb-field__label">{t('picker.run')}</span>
        <select data-testid="run-select" value={runEntry ? runEntry.run : ''} onChange={onRun}>
          {!runEntry && <option value="" disabled />}
          {runs.map((r) => (
            <option key={r.run} value={r.run}>
              {runLabel(r.run, t('picker.rootRun'))}
            </option>
          ))}
        </select>
      </label>
      <label className="pb-field">
        <span className="pb-field__label">{t('picker.tag')}</span>
        <select
          data-testid="tag-select"
          value={tagEntry ? fileOptionValue(tags, tagEntry) : ''}
          onChange={onTag}
          disabled={tags.length === 0}
        >
          {!tagEntry && <option value="" disabled />}
          {tags.map((e) => {
            // A TensorBoard-side tag is already its file's name (`x.onnx`, `events…#graph_def`).
            const name = e.format === 'vis' || e.format === 'db' ? t('picker.fileWithFormat', { tag: e.tag, ext: fileExtension(e.format) }) : e.tag;
            return (
              <option
                key={`${e.format}/${e.tag}`}
                value={fileOptionValue(tags, e)}
                data-format={e.format}
                data-error={e.error ? 'true' : undefined}
              >
                {e.error
                  ? t('picker.badFile', { tag: name })
                  : e.graphType
                    ? `${name} · ${t(e.graphType === 'compare' ? 'picker.compare' : 'picker.build')}`
                    : name}
              </option>
            );
          })}
        </select>
      </label>
      {tagEntry?.error && (
        <p className="pb-picker__error" data-testid="file-error" role="status">
          {t('picker.fileError', { error: tagEntry.error })}
        </p>
      )}
      {/* A TensorBoard-side graph that opened with a problem its reader noted (issue 16); the server words it. */}
      {tagEntry?.note && (
        <p className="pb-picker__note" data-testid="file-note" role="status">
          {tagEntry.note}
        </p>
      )}
      {steps.length > 1 && (
        <NumberSelect
          label={t('picker.step')}
          testId="step-select"
          value={step ?? steps[0]}
          options={steps}
          onChange={(s) => reopenAt({ step: s, rank: rankAtStep(meta, s, rank) })}
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

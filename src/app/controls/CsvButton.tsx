import { useT } from '../i18n/i18n.js';
import { downloadCsv } from './download.js';

interface Props {
  testId: string;
  /** Hover text: what the file holds (the table, the listed results, this page). */
  title: string;
  /** Builds the CSV and its file name when clicked (not on every render). */
  build: () => { csv: string; fileName: string };
}

/** A small "CSV" button that downloads what its panel shows. */
export function CsvButton({ testId, title, build }: Props) {
  const t = useT();
  return (
    <button
      type="button"
      className="pb-csv"
      data-testid={testId}
      title={title}
      aria-label={title}
      onClick={(e) => {
        e.stopPropagation();
        const { csv, fileName } = build();
        downloadCsv(csv, fileName);
      }}
    >
      {t('csv.button')}
    </button>
  );
}

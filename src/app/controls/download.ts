/** Saves `blob` as `fileName` through a temporary object-URL link (no server round trip, works offline). */
export function downloadBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.style.display = 'none';
  document.body.appendChild(link);
  link.click();
  link.remove();
  // Revoked on the next task: Chromium starts the download from the click, after which the URL is no longer needed.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** A CSV document (from commands/exportCsv.ts) as a download. */
export function downloadCsv(csv: string, fileName: string): void {
  downloadBlob(new Blob([csv], { type: 'text/csv;charset=utf-8' }), fileName);
}

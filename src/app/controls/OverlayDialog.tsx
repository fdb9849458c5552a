import { useEffect, useId, useRef, type ReactNode } from 'react';
import './match.css';

/**
 * A modal dialog on the native `<dialog>`: the browser traps focus, Esc closes it (onClose) and focus returns to the
 * button that opened it. Mounted only while open.
 */
export function OverlayDialog({ title, testId, onClose, children, actions }: { title: string; testId: string; onClose: () => void; children: ReactNode; actions: ReactNode }) {
  const ref = useRef<HTMLDialogElement | null>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      className="pb-dialog"
      data-testid={testId}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2 id={titleId} className="pb-dialog__title">
        {title}
      </h2>
      <div className="pb-dialog__body">{children}</div>
      <div className="pb-dialog__actions">{actions}</div>
    </dialog>
  );
}

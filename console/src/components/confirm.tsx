import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import { ErrorMessage } from './feedback';
import './confirm.css';

/**
 * Asks before an action that is hard to take back (one that stops devices from being served,
 * or replaces what is stored): a modal dialog saying what will happen, in numbers, with the
 * action's button and Cancel. Nothing is sent until the action's button is pressed; Cancel,
 * Escape or closing the dialog calls `onCancel` and changes nothing. Focus starts on Cancel, so
 * a stray Enter does not act. Shown while rendered: the page renders it when it asks.
 */
export function ConfirmDialog({
  title,
  confirm,
  danger = true,
  busy = false,
  error,
  onConfirm,
  onCancel,
  children,
}: {
  title: string;
  /** The action's button, naming what it does ("Suspend acme.example"). */
  confirm: string;
  /** A destructive action (red button); false for a plain one (apply an import). */
  danger?: boolean;
  /** The action runs: both buttons wait. */
  busy?: boolean;
  /** The action's failure, shown in the dialog (which stays open). */
  error?: unknown;
  onConfirm: () => void;
  onCancel: () => void;
  /** What will happen, with the numbers (devices affected…). */
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      class="confirm"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-what`}
      onCancel={(event) => {
        // Escape: the page closes the dialog by no longer rendering it.
        event.preventDefault();
        if (!busy) onCancel();
      }}
    >
      <h2 id={`${id}-title`}>{title}</h2>
      <div id={`${id}-what`} class="confirm-what">
        {children}
      </div>
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="button" class={danger ? 'danger' : 'primary'} disabled={busy} onClick={onConfirm}>
          {confirm}
        </button>
        <button type="button" disabled={busy} autoFocus onClick={onCancel}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}

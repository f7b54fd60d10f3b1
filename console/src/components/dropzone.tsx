import { useState } from 'preact/hooks';

/** A file by drag and drop, or chosen with the (keyboard-operable) file button. */
export function DropZone({ label, accept, onFile, disabled }: { label: string; accept?: string; onFile: (file: File) => void; disabled?: boolean }) {
  const [over, setOver] = useState(false);
  return (
    <div
      class={over ? 'dropzone over' : 'dropzone'}
      onDragOver={(event) => {
        event.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(event) => {
        event.preventDefault();
        setOver(false);
        const file = event.dataTransfer?.files[0];
        if (file && !disabled) onFile(file);
      }}
    >
      <p>Drop {label} here, or</p>
      <label class="button file-button">
        Choose {label}
        <input
          type="file"
          class="visually-hidden"
          accept={accept}
          disabled={disabled}
          onChange={(event) => {
            const file = event.currentTarget.files?.[0];
            if (file) onFile(file);
            event.currentTarget.value = '';
          }}
        />
      </label>
    </div>
  );
}

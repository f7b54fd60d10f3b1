/** Previous and next page of a list answered as `{items, next_offset}`. */
export function Pager({
  offset,
  limit,
  nextOffset,
  onOffset,
}: {
  offset: number;
  limit: number;
  nextOffset: number | null | undefined;
  onOffset: (offset: number) => void;
}) {
  if (offset === 0 && (nextOffset === null || nextOffset === undefined)) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
        Previous
      </button>
      <span>from {offset + 1}</span>
      <button type="button" disabled={nextOffset === null || nextOffset === undefined} onClick={() => nextOffset != null && onOffset(nextOffset)}>
        Next
      </button>
    </nav>
  );
}

/** A text progress bar: "[#######.............]  35/100". */
export function progressBar(done: number, total: number, width = 24): string {
  const fraction = total > 0 ? Math.min(1, done / total) : 0;
  const filled = Math.round(fraction * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(done).padStart(String(total).length)}/${total}`;
}

/** The largest number of starts (epoch milliseconds) in any window [t, t + 1 s): a rate's peak. */
export const busiestSecond = (starts: number[]): number => {
  const sorted = [...starts].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (j < sorted.length && (sorted[j] ?? 0) < (sorted[i] ?? 0) + 1000) j++;
    most = Math.max(most, j - i);
  }
  return most;
};

/** Lists as a Portuguese sentence says them: `celular`, `nome e celular`, `a, b e c`. Pure. */
export function listPt(items: readonly (string | number)[]): string {
  const all = items.map(String);
  return all.length <= 1 ? (all[0] ?? '') : `${all.slice(0, -1).join(', ')} e ${all.at(-1)}`;
}

/**
 * `há 5 minutos`, `há 2 horas`, `há 3 dias`: the report's age in words. Pure and DOM-free: the
 * server writes it into the page (dashboard-format.ts re-exports it) and the page's script keeps
 * it current (main.ts), so both say the same.
 */
export function describeAge(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const plural = (n: number, one: string, many: string) => `há ${n} ${n === 1 ? one : many}`;
  if (s < 60) return 'agora há pouco';
  if (s < 3600) return plural(Math.floor(s / 60), 'minuto', 'minutos');
  if (s < 86_400) return plural(Math.floor(s / 3600), 'hora', 'horas');
  return plural(Math.floor(s / 86_400), 'dia', 'dias');
}

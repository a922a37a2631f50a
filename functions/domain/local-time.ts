/**
 * Times as the people of an account read them: in the account's time zone (`report.timeZone`,
 * America/Sao_Paulo unless configured), written the Brazilian way, `26/11/2026 08:41:47`. Every
 * list and export an operator reads shows these; the JSON keeps the UTC ISO instant beside them
 * for programs. Pure.
 */
/** An account's time zone unless the configuration names another (as the report's default). */
export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('pt-BR', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, format);
  }
  return format;
}

function parts(instant: Date, timeZone: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const part of formatter(timeZone).formatToParts(instant)) found[part.type] = part.value;
  return found;
}

/**
 * An instant (ISO text or Date) as `DD/MM/AAAA HH:MM:SS` in `timeZone`; the text as it is when
 * it is not a time. A zone Node does not know throws RangeError (the configuration refuses one).
 */
export function localDateTime(instant: string | Date, timeZone: string): string {
  const date = typeof instant === 'string' ? new Date(instant) : instant;
  if (Number.isNaN(date.getTime())) return String(instant);
  const p = parts(date, timeZone);
  return `${p.day}/${p.month}/${p.year} ${p.hour}:${p.minute}:${p.second}`;
}

/** The calendar day (`AAAA-MM-DD`) of an instant in `timeZone`: a file name's date. */
export function localDay(instant: Date, timeZone: string): string {
  const p = parts(instant, timeZone);
  return `${p.year}-${p.month}-${p.day}`;
}

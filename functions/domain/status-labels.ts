/**
 * Each public lead status as a person reads it (the console, its script, the exports). No
 * imports, so that the console's browser bundle can hold it too.
 */
export const STATUS_LABELS = {
  queued: 'Na fila',
  delivered: 'Entregue',
  rejected: 'Recusado',
  dead: 'Esgotado',
  test: 'Teste',
  parked: 'Parado',
} as const;

/**
 * The line that heads every view: the gym's system answering or not, in an operator's words
 * (the leads wait in line), with the leads on their way and the last successful delivery.
 */
import { api, reason, when } from './api.ts';
import { clear, el } from './dom.ts';
import type { UpstreamHealth } from './page-data.ts';
import { HEALTH_REASONS } from './words.ts';

export function loadHealth(): void {
  const box = document.getElementById('health');
  if (!box) return;
  api<UpstreamHealth>('GET', 'upstream')
    .then((h) => {
      const open = h.circuit.state === 'open';
      const state = open
        ? 'fora do ar — os leads esperam na fila e serão enviados quando voltar'
        : 'recebendo os leads';
      clear(box).appendChild(
        el('span', {}, [
          'Sistema da academia: ',
          el('b', { class: open ? 'bad' : 'ok', text: state }),
        ]),
      );
      const add = (text: string, cls?: string) =>
        box.appendChild(el('span', { text, ...(cls && { class: cls }) }));
      if (open && h.circuit.reason) {
        add(`Motivo: ${HEALTH_REASONS[h.circuit.reason] ?? 'erro ao responder'}`);
      }
      if (open && h.circuit.nextProbeAt) add(`Nova tentativa: ${when(h.circuit.nextProbeAt)}`);
      add(`Leads a caminho: ${h.backlog ?? 0}`);
      if (h.circuit.lastSuccessAt) {
        add(`Último envio bem-sucedido: ${when(h.circuit.lastSuccessAt)}`, 'muted');
      }
    })
    .catch((e: unknown) => {
      clear(box).appendChild(el('span', { text: `Sistema da academia: ${reason(e)}` }));
    });
}

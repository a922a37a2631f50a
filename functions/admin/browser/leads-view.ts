/**
 * `#/`: the leads, newest first, 50 at a time ("Mostrar mais"), with their filters (status,
 * profile, period, a name, e-mail or phone), the parked ones as a CSV, and the resend of the
 * exhausted ones (asked for confirmation first).
 */
import { api, base, PAGE, reason, when } from './api.ts';
import { badge, clear, confirmed, el, field, message, options, viewRoot } from './dom.ts';
import type { LeadSummary } from './page-data.ts';
import { LABELS } from './words.ts';

function filters(params: URLSearchParams): HTMLFormElement {
  const status = options(PAGE.statuses, LABELS, params.get('status') ?? '', 'Todas');
  status.name = 'status';
  const profile = options(PAGE.profiles, null, params.get('profile') ?? '', 'Todos');
  profile.name = 'profile';
  const since = el('input', { type: 'date', name: 'since', value: params.get('since') ?? '' });
  const until = el('input', { type: 'date', name: 'until', value: params.get('until') ?? '' });
  const q = el('input', {
    type: 'search',
    name: 'q',
    value: params.get('q') ?? '',
    placeholder: 'nome, e-mail ou telefone',
  });
  const form = el('form', { class: 'filters', role: 'search' }, [
    field('Situação', status),
    field('Perfil', profile),
    field('De', since),
    field('Até', until),
    field('Buscar', q),
    el('button', { type: 'submit', text: 'Filtrar' }),
  ]);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const input of [status, profile, since, until, q]) {
      if (input.value) next.set(input.name, input.value);
    }
    location.hash = `#/?${next.toString()}`;
  });
  return form;
}

function replayButton(note: HTMLElement): HTMLButtonElement {
  const replay: HTMLButtonElement = el('button', {
    class: 'plain',
    type: 'button',
    text: 'Reenviar todos os esgotados',
    onclick: () => {
      const question =
        'Reenviar todos os leads esgotados ao sistema da academia? Cada um volta para a fila e é enviado de novo.';
      if (!confirmed(question)) return;
      replay.disabled = true;
      api<{ requeued: number }>('POST', 'replay')
        .then((r) => {
          clear(note).appendChild(
            message(`${r.requeued} leads esgotados voltaram para a fila.`, 'ok'),
          );
        })
        .catch((e: unknown) => clear(note).appendChild(message(reason(e), 'error')))
        .then(() => {
          replay.disabled = false;
        });
    },
  });
  return replay;
}

function leadRow(lead: LeadSummary): HTMLTableRowElement {
  const c = lead.contact ?? {};
  return el(
    'tr',
    {
      class: 'lead',
      'data-lead': lead.leadId,
      onclick: () => {
        location.hash = `#/lead/${lead.leadId}`;
      },
    },
    [
      el('td', { text: when(lead.receivedAt) }),
      el('td', {}, [badge(lead.status)]),
      el('td', { text: lead.profile }),
      el('td', {}, [
        el('a', { href: `#/lead/${lead.leadId}`, text: c.name || lead.leadId }),
        el('div', { class: 'muted', text: [c.email, c.phone].filter(Boolean).join(' · ') }),
      ]),
      el('td', { class: 'muted', text: lead.reason || lead.lastError || '' }),
    ],
  );
}

export function showLeads(params: URLSearchParams): void {
  const view = viewRoot();
  const csv = el('a', {
    class: 'button plain',
    href: `${base}leads.csv?status=parked`,
    download: '',
    text: 'Exportar parados (planilha CSV)',
  });
  const replayNote = el('div');
  const list = el('div', {}, [message('Carregando…')]);
  clear(view).appendChild(el('h2', { text: 'Leads' }));
  view.appendChild(
    el('div', { class: 'card' }, [
      filters(params),
      el('div', { class: 'actions' }, [csv, replayButton(replayNote)]),
      replayNote,
    ]),
  );
  view.appendChild(list);

  const query = new URLSearchParams(params);
  query.set('limit', '50');
  if (!query.get('order')) query.set('order', 'newest');
  const rows = el('tbody');
  const heads = ['Recebido', 'Situação', 'Perfil', 'Pessoa', 'Motivo'];
  const table = el('table', { class: 'leads' }, [
    el('thead', {}, [
      el(
        'tr',
        {},
        heads.map((h) => el('th', { text: h })),
      ),
    ]),
    rows,
  ]);
  const more = el('button', { class: 'plain', type: 'button', text: 'Mostrar mais', hidden: '' });
  function page(cursor?: string): void {
    if (cursor) query.set('cursor', cursor);
    api<{ leads: LeadSummary[]; cursor?: string }>('GET', `leads?${query.toString()}`)
      .then((data) => {
        if (!rows.firstChild && data.leads.length === 0) {
          clear(list).appendChild(message('Nenhum lead com esses filtros.'));
          return;
        }
        if (!table.parentNode) clear(list).appendChild(el('div', { class: 'card' }, [table, more]));
        for (const lead of data.leads) rows.appendChild(leadRow(lead));
        const next = data.cursor;
        more.hidden = !next;
        more.onclick = next ? () => page(next) : null;
      })
      .catch((e: unknown) => clear(list).appendChild(message(reason(e), 'error')));
  }
  page();
}

/**
 * `#/lead/<id>`: one lead: its timeline, what the person sent, the Prospect it became in
 * Portuguese words, "Tentar de novo", the correction and the move (lead-forms.ts); after a
 * resend the page follows the lead until it leaves the queue.
 */
import { api, reason, when } from './api.ts';
import { badge, branchLine, clear, el, message, viewRoot } from './dom.ts';
import { correctionForm, moveForm } from './lead-forms.ts';
import type { BranchChoice, LeadDetail, Prospect } from './page-data.ts';
import {
  followText,
  HIDDEN_PROSPECT,
  PROSPECT_LABELS,
  prospectValue,
  timelineLines,
} from './words.ts';

/** A definition list of the pairs that have a value. */
export function kv(pairs: readonly [string, unknown][]): HTMLDListElement {
  const dl = el('dl', { class: 'kv' });
  for (const [label, value] of pairs) {
    if (value === undefined || value === null || value === '') continue;
    dl.appendChild(el('dt', { text: label }));
    dl.appendChild(
      el('dd', { text: typeof value === 'object' ? JSON.stringify(value) : String(value) }),
    );
  }
  return dl;
}

/** A Prospect's fields by their Portuguese names (the partner token left out). */
export function prospectList(prospect: Prospect, branches: readonly BranchChoice[] = []) {
  return kv(
    Object.keys(prospect)
      .filter((k) => !HIDDEN_PROSPECT.has(k))
      .map((k): [string, unknown] => [
        PROSPECT_LABELS[k] ?? k,
        prospectValue(k, prospect[k], branches),
      ]),
  );
}

function timelineOf(lead: LeadDetail): HTMLOListElement {
  return el(
    'ol',
    { class: 'timeline' },
    timelineLines(lead, when).map((line) =>
      el('li', { text: line.text, ...(line.delivered && { class: 'delivered' }) }),
    ),
  );
}

function sentCards(lead: LeadDetail, branches: readonly BranchChoice[]): HTMLElement {
  const sent = lead.submitted ?? { answers: [], attribution: {} };
  const answers = el('tbody');
  for (const a of sent.answers) {
    const value = Array.isArray(a.value) ? a.value.join(', ') : a.value;
    answers.appendChild(
      el('tr', {}, [el('th', { text: a.label || a.key }), el('td', { text: value })]),
    );
  }
  const typedProspect = sent.prospect ?? {};
  for (const k of Object.keys(typedProspect)) {
    answers.appendChild(
      el('tr', {}, [
        el('th', { text: PROSPECT_LABELS[k] ?? k }),
        el('td', { text: prospectValue(k, typedProspect[k], branches) }),
      ]),
    );
  }
  const attribution = sent.attribution ?? {};
  const typed = el('div', { class: 'card', id: 'submitted' }, [
    el('h3', { text: 'O que a pessoa enviou' }),
    el('table', {}, [answers]),
    Object.keys(attribution).length ? el('h3', { text: 'Origem' }) : null,
    kv(Object.entries(attribution)),
  ]);
  const mapped = el('div', { class: 'card', id: 'prospect' }, [
    el('h3', { text: 'O cadastro enviado ao sistema da academia' }),
    prospectList(lead.prospect ?? {}, branches),
  ]);
  return el('div', { class: 'grid2' }, [typed, mapped]);
}

function mappingCard(lead: LeadDetail): HTMLElement | null {
  if (!lead.branch && !lead.warnings) return null;
  return el('div', { class: 'card', id: 'mapping' }, [
    el('h3', { text: 'Unidade' }),
    lead.branch ? branchLine(lead.branch) : null,
    lead.warnings ? el('h3', { text: 'Avisos' }) : null,
    lead.warnings
      ? el(
          'ul',
          { class: 'warnings' },
          lead.warnings.map((w) => el('li', { text: w })),
        )
      : null,
  ]);
}

function actionCards(box: HTMLElement, lead: LeadDetail, branches: readonly BranchChoice[]) {
  const leadId = lead.leadId;
  const result = el('div');
  const actions = el('div', { class: 'actions' });
  const retry = () =>
    api('POST', `leads/${encodeURIComponent(leadId)}/retry`).then(() => follow(leadId));
  if (lead.status !== 'delivered') {
    const again: HTMLButtonElement = el('button', {
      type: 'button',
      class: 'plain',
      text: 'Tentar de novo',
      onclick: () => {
        again.disabled = true;
        retry().catch((e: unknown) => {
          clear(result).appendChild(message(reason(e), 'error'));
          again.disabled = false;
        });
      },
    });
    actions.appendChild(again);
  }
  if (lead.correctable) {
    const form = correctionForm(leadId, lead.prospect ?? {}, branches, result, retry);
    box.appendChild(el('div', { class: 'card' }, [form, actions, result]));
  } else if (actions.firstChild) box.appendChild(el('div', { class: 'card' }, [actions, result]));
  if (lead.moveTo && (lead.correctable || lead.profileGone)) {
    const moved = (status: string, profile: string) =>
      status === 'queued'
        ? follow(leadId)
        : showLead(leadId, message(`Movido para o perfil ${profile}.`, 'ok'));
    box.appendChild(el('div', { class: 'card' }, [moveForm(lead, result, moved)]));
  }
}

export function showLead(leadId: string, notice?: HTMLElement): void {
  const view = viewRoot();
  clear(view).appendChild(el('p', {}, [el('a', { href: '#/', text: '← Leads' })]));
  const box = el('div', {}, [message('Carregando…')]);
  view.appendChild(box);
  api<LeadDetail>('GET', `leads/${encodeURIComponent(leadId)}`)
    .then((lead) => {
      clear(box);
      const branches = lead.branchChoices ?? [];
      const c = lead.contact ?? {};
      box.appendChild(el('h2', {}, [`${c.name || lead.leadId} `, badge(lead.status)]));
      if (notice) box.appendChild(notice);
      box.appendChild(
        el('div', { class: 'card' }, [
          el('h3', { text: 'Linha do tempo' }),
          timelineOf(lead),
          el('p', { class: 'muted', text: lead.leadId }),
        ]),
      );
      const mapping = mappingCard(lead);
      if (mapping) box.appendChild(mapping);
      box.appendChild(sentCards(lead, branches));
      actionCards(box, lead, branches);
    })
    .catch((e: unknown) => clear(box).appendChild(message(reason(e), 'error')));
}

/** After a resend: the lead's page again, followed until it leaves the queue. */
export function follow(leadId: string): void {
  let tries = 0;
  const check = () => {
    api<LeadDetail>('GET', `leads/${encodeURIComponent(leadId)}`).then((lead) => {
      const here = location.hash === `#/lead/${leadId}`;
      if (lead.status === 'queued' && tries++ < 30 && here) {
        setTimeout(check, 1000);
        return;
      }
      const { text, kind } = followText(lead);
      showLead(leadId, message(text, kind));
    });
  };
  check();
}

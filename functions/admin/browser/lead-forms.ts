/**
 * A lead's forms: the correction a phone can fill (`tel`, `email` and numeric keyboards, the
 * DDI 55 unless typed, the branch chosen by name among the branches of the lead's own account,
 * a number where none are named, the fields the upstream requires marked, and for a lead with
 * a phone and no e-mail the profile's placeholder hinted; correction.ts computes the change),
 * and the move to another profile of its source (its own left the configuration).
 */
import { api, PAGE, reason } from './api.ts';
import { correctionChange, EDITABLE, type EditableField, initialValue } from './correction.ts';
import { clear, el, field, message, options } from './dom.ts';
import type { BranchChoice, LeadDetail, Prospect } from './page-data.ts';

type Input = HTMLInputElement | HTMLSelectElement;

/** The input of one editable field: the keyboard a phone should open, the branch by name. */
function editInput(spec: EditableField, value: unknown, branches: readonly BranchChoice[]): Input {
  const shown = initialValue(spec.key, value);
  if (spec.type === 'branch' && branches.length) {
    const ids = branches.map((b) => String(b.idBranch));
    const names: Record<string, string> = {};
    for (const b of branches) names[String(b.idBranch)] = b.name;
    if (shown && !ids.includes(shown)) {
      ids.push(shown);
      names[shown] = `Unidade ${shown}`;
    }
    const select = options(ids, names, shown, 'Escolha a unidade');
    select.name = spec.key;
    return select;
  }
  return el('input', {
    name: spec.key,
    type: spec.type === 'branch' ? 'text' : spec.type,
    inputmode: spec.inputmode,
    autocomplete: spec.autocomplete,
    value: shown,
  });
}

/** The correction form; `retry` sends the lead again once the correction is saved. */
export function correctionForm(
  leadId: string,
  prospect: Prospect,
  branches: readonly BranchChoice[],
  result: HTMLElement,
  retry: () => Promise<void>,
): HTMLFormElement {
  const required = new Set(PAGE.required);
  const inputs = new Map<string, Input>();
  const fields = el(
    'div',
    { class: 'fields' },
    EDITABLE.map((spec) => {
      const input = editInput(spec, prospect[spec.key], branches);
      inputs.set(spec.key, input);
      if (required.has(spec.key)) input.setAttribute('aria-required', 'true');
      return field(spec.label + (required.has(spec.key) ? ' (obrigatório)' : ''), input);
    }),
  );
  const phoneOnly = !prospect.email && prospect.cellphone;
  const button = el('button', { type: 'submit', text: 'Salvar e reenviar' });
  const form = el('form', { id: 'correct' }, [
    el('h3', { text: 'Corrigir e reenviar' }),
    el('p', {
      class: 'muted',
      text: 'Preencha o que falta ou corrija; a correção vale em todo envio deste lead. Os campos marcados (obrigatório) são exigidos pelo sistema da academia.',
    }),
    phoneOnly
      ? el('p', { class: 'muted', id: 'email-placeholder-hint', text: PAGE.placeholderHint })
      : null,
    fields,
    el('div', { class: 'actions' }, [button]),
  ]);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const typed = Object.fromEntries([...inputs].map(([key, input]) => [key, input.value]));
    button.disabled = true;
    api('PATCH', `leads/${encodeURIComponent(leadId)}`, {
      prospect: correctionChange(prospect, typed),
    })
      .then(retry)
      .catch((e: unknown) => {
        clear(result).appendChild(message(reason(e), 'error'));
        button.disabled = false;
      });
  });
  return form;
}

/** Moving the lead to another profile of its source; `moved` says what became of it. */
export function moveForm(
  lead: LeadDetail,
  result: HTMLElement,
  moved: (status: string, profile: string) => void,
): HTMLFormElement {
  const select = options(lead.moveTo ?? [], null, '', 'Escolha o perfil');
  select.name = 'profile';
  const button = el('button', { type: 'submit', text: 'Mover' });
  const why = lead.profileGone
    ? `O perfil ${lead.profile} saiu da configuração: mova o lead para um perfil da mesma origem e ele é enviado por ele.`
    : 'O lead passa a ser enviado pelo perfil escolhido (mesma origem).';
  const form = el('form', { id: 'move' }, [
    el('h3', { text: 'Mover para outro perfil' }),
    el('p', { class: 'muted', text: why }),
    field('Perfil', select),
    el('div', { class: 'actions' }, [button]),
  ]);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!select.value) return;
    button.disabled = true;
    api<{ status: string }>('PATCH', `leads/${encodeURIComponent(lead.leadId)}`, {
      profile: select.value,
    })
      .then((answer) => moved(answer.status, select.value))
      .catch((e: unknown) => {
        clear(result).appendChild(message(reason(e), 'error'));
        button.disabled = false;
      });
  });
  return form;
}

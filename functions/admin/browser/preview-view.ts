/**
 * `#/preview`: a body mapped as a platform would send it (nothing stored, nothing sent), and
 * the profile's test lead through the real path, answered with a link to the lead it became
 * (found by its e-mail when the intake did not say), whatever the platform answered.
 */
import { api, PAGE, reason } from './api.ts';
import { branchLine, clear, el, field, message, options, viewRoot } from './dom.ts';
import { prospectList } from './lead-view.ts';
import type { LeadSummary, PreviewLead } from './page-data.ts';

interface TestLeadAnswer {
  status: number;
  answer?: { error?: { message?: string } };
  leadIds?: string[];
  search?: string;
}

/** Sends the profile's test lead, then links to the lead it became. */
export function sendTestLead(profile: string, out: HTMLElement): void {
  clear(out).appendChild(message('Enviando…'));
  api<TestLeadAnswer>('POST', `test-lead/${encodeURIComponent(profile)}`)
    .then((r) => {
      const ok = r.status < 300;
      const said = ok
        ? 'Lead de teste recebido pela entrada de leads.'
        : `A entrada recusou o lead de teste (erro ${r.status}).`;
      clear(out).appendChild(message(said, ok ? 'ok' : 'error'));
      if (!ok && r.answer?.error) {
        out.appendChild(el('p', { class: 'muted', text: r.answer.error.message ?? '' }));
      }
      const link = el('p', { class: 'test-lead-link' });
      out.appendChild(link);
      const show = (id: string) =>
        clear(link).appendChild(
          el('a', { class: 'button', href: `#/lead/${id}`, text: 'Abrir o lead de teste' }),
        );
      const known = r.leadIds?.[0];
      if (known) {
        show(known);
        return;
      }
      const search = r.search;
      if (!ok || !search) return;
      let tries = 0;
      const query = `leads?order=newest&limit=5&profile=${encodeURIComponent(profile)}&q=${encodeURIComponent(search)}`;
      const find = () => {
        api<{ leads: LeadSummary[] }>('GET', query).then((data) => {
          const found = data.leads[0];
          if (found) show(found.leadId);
          else if (tries++ < 20) setTimeout(find, 500);
          else link.textContent = 'O lead de teste ainda não apareceu na lista de leads.';
        });
      };
      find();
    })
    .catch((e: unknown) => clear(out).appendChild(message(reason(e), 'error')));
}

function previewResult(lead: PreviewLead): HTMLElement {
  if (lead.pending) return message(lead.note ?? '');
  return el('div', { class: 'card result' }, [
    lead.missing.length
      ? message(`Seria parado: ${lead.reason ?? ''}`, 'error')
      : message('Seria enviado.', 'ok'),
    lead.branch ? branchLine(lead.branch) : null,
    el('h3', { text: 'Cadastro' }),
    prospectList(lead.prospect),
    lead.warnings.length
      ? el('p', { class: 'muted', text: `Avisos: ${lead.warnings.join('; ')}` })
      : null,
    lead.notices.length
      ? el('p', { class: 'muted', text: `Conferir: ${lead.notices.join('; ')}` })
      : null,
  ]);
}

const FORMATS = {
  'application/json': 'JSON',
  'application/x-www-form-urlencoded': 'Formulário (campo=valor)',
};

export function showPreview(): void {
  const view = viewRoot();
  const profile = options(PAGE.profiles, null, PAGE.profiles[0] ?? '');
  const type = options(Object.keys(FORMATS), FORMATS, 'application/json');
  const body = el('textarea', {
    name: 'body',
    spellcheck: 'false',
    placeholder: '{"nome": "Ana Souza", "email": "ana@example.com"}',
  });
  const out = el('div');
  const form = el('form', { id: 'preview' }, [
    el('div', { class: 'fields' }, [field('Perfil', profile), field('Formato', type)]),
    field('Conteúdo, como a plataforma envia', body),
    el('div', { class: 'actions' }, [
      el('button', { type: 'submit', text: 'Ver como ficaria' }),
      el('button', {
        type: 'button',
        class: 'plain',
        id: 'send-test',
        text: 'Enviar um lead de teste',
        onclick: () => sendTestLead(profile.value, out),
      }),
    ]),
  ]);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    api<{ spam?: boolean; leads: PreviewLead[] }>(
      'POST',
      `preview/${encodeURIComponent(profile.value)}`,
      body.value,
      type.value,
    )
      .then((r) => {
        clear(out);
        if (r.spam) {
          out.appendChild(
            message(
              'O campo isca (contra robôs) veio preenchido: o lead seria descartado.',
              'error',
            ),
          );
        }
        for (const lead of r.leads) out.appendChild(previewResult(lead));
      })
      .catch((e: unknown) => clear(out).appendChild(message(reason(e), 'error')));
  });
  clear(view).appendChild(el('h2', { text: 'Testar um envio' }));
  view.appendChild(
    el('p', {
      class: 'muted',
      text: 'Em "Ver como ficaria" nada é gravado nem enviado ao sistema da academia. O lead de teste percorre o caminho real e é entregue com "LEAD DE TESTE — pode apagar." nas observações.',
    }),
  );
  view.appendChild(el('div', { class: 'card' }, [form]));
  view.appendChild(out);
}
